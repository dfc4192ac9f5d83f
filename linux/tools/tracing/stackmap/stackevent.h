/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The stackmap events through libtraceevent: reading kernel_stack_id and
 * kernel_stack_def records by their formats, and printing them. Shared
 * by plugin_stackmap.so and "stackmap report", so that the two print a
 * stack, a definition and an id alike; they call only the library.
 */
#ifndef _STACKMAP_STACKEVENT_H
#define _STACKMAP_STACKEVENT_H

#include <event-parse.h>
#include <trace-seq.h>

#include "libstackmap.h"

#define STACKEVENT_SYSTEM	"ftrace"
#define STACKEVENT_ID		"kernel_stack_id"
#define STACKEVENT_DEF		"kernel_stack_def"
#define STACKEVENT_BOOT		"kernel_stack_boot"
/* The full stack an event falls back to when the depot is full. */
#define STACKEVENT_FULL		"kernel_stack"
/* The user stack options/userstacktrace writes after the kernel's. */
#define STACKEVENT_USER		"user_stack"

/*
 * Read the id of a kernel_stack_id record: 0, or -1 if the format has no
 * u32 id or the record ends before it.
 */
int stackevent_read_id(struct tep_event *event, struct tep_record *record,
		       uint32_t *id);
/*
 * Decode a kernel_stack_def record, with the field offsets of its format
 * and the traced kernel's long size and byte order: as smap_def_decode(),
 * which names the problem of a malformed record in @err.
 */
int stackevent_read_def(struct tep_event *event, struct tep_record *record,
			struct smap_def *def, struct smap_error *err);

/*
 * Read a kernel_stack_boot record: its boot token and flags. 0, or -1
 * for a malformed one (no u32 boot and flags in the format, a record
 * that ends before them, token 0), named in @err; what the record does
 * not hold reads as 0.
 */
int stackevent_read_boot(struct tep_event *event, struct tep_record *record,
			 uint32_t *token, uint32_t *flags,
			 struct smap_error *err);
/* "<stack_boot 0x%08x flags 0x%x>", and " [malformed]" for a bad record. */
void stackevent_print_boot(struct trace_seq *s, uint32_t token,
			   uint32_t flags, bool malformed);
/*
 * The traced kernel's long, the size of a frame: 4 or 8 bytes. Its
 * frames are @addrs of definitions.
 */
uint32_t stackevent_long_size(struct tep_handle *tep);

/* "<stack_def 0x%08x depth %u>", and " [malformed]" for a bad record. */
void stackevent_print_def(struct trace_seq *s, const struct smap_def *def,
			  bool malformed);
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
