/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The stackmap events through libtraceevent: reading kernel_stack_id
 * records by their format, and printing them. The helpers of
 * plugin_stackmap.so, apart from its entry points and options; they
 * call only the library.
 */
#ifndef _STACKMAP_STACKEVENT_H
#define _STACKMAP_STACKEVENT_H

#include <event-parse.h>
#include <trace-seq.h>

#include "libstackmap.h"

#define STACKEVENT_SYSTEM	"ftrace"
#define STACKEVENT_ID		"kernel_stack_id"

/*
 * Read the id of a kernel_stack_id record: 0, or -1 if the format has no
 * u32 id or the record ends before it.
 */
int stackevent_read_id(struct tep_event *event, struct tep_record *record,
		       uint32_t *id);
/*
 * "<stack trace>" and a "\n => symbol+0xoff/0xsize" line per frame, the
 * symbols from the kallsyms of the trace.
 */
void stackevent_print_stack(struct trace_seq *s, struct tep_handle *tep,
			    const uint64_t *addrs, uint32_t depth);
/*
 * Print @id as the map @ix resolves it: its stack, or the id marked
 * " [stale]" (another generation) or " [unknown]" (not in the map).
 */
enum smap_lookup stackevent_print_mapped(struct trace_seq *s,
					 struct tep_handle *tep,
					 struct smap_index *ix, uint32_t id);

#endif /* _STACKMAP_STACKEVENT_H */
