/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reading trace text: the stack ids, comms and full stacks in the output
 * of the trace or trace_pipe file (or of trace-cmd report), and the
 * folded-stack counts fold gathers from them. Used by expand, fold and
 * the trace text fuzz target (the marks of ids without definition by
 * plugin_stackmap.so and report too); calls nothing of the CLI.
 */
#ifndef _STACKMAP_TRACETEXT_H
#define _STACKMAP_TRACETEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/*
 * A stack id appears as "<stack_id 0x%08x>" (kernel_stack_id's print
 * format), at the end of a line that has the usual context prefix
 * ("comm-pid [cpu] flags timestamp: ") unless context-info is off. A
 * full stack is a "<stack trace>" line and one " => symbol" line per
 * frame.
 */
#define STACK_ID_TAG	"<stack_id 0x"
#define STACK_TRACE_TAG	"<stack trace>"
#define FRAME_TAG	" => "

/*
 * What plugin_stackmap.so and "stackmap report" print after the id of
 * a kernel_stack_id that no definition resolved: the plugin has read
 * the trace up to the id only, report all of it (all of the id's
 * buffer, in a file with instances).
 */
#define STACK_ID_NOT_YET	\
	" [no definition read yet: stackmap report FILE resolves definitions that come later]"
#define STACK_ID_UNDEFINED	" [no definition in the trace]"
#define STACK_ID_UNDEFINED_BUF	" [no definition in its buffer]"
/*
 * The marks of an id of a trace with boot markers (a boot-mapped
 * instance), which only the definitions of its own boot resolve: none
 * of them; the boot cannot be told (libstackmap.h, enum
 * smap_boot_state); the plugin has not read its CPU's first marker
 * yet; expand and fold leave it, since a map does not say which boot
 * it is from.
 */
#define STACK_ID_UNDEFINED_BOOT	" [no definition in this boot's part of the trace]"
#define STACK_ID_EARLIER_BOOT	\
	" [of an earlier boot: its boot marker is not in the trace]"
#define STACK_ID_NO_MARK	" [of an unknown boot: its CPU has no boot marker]"
#define STACK_ID_BAD_MARK	" [of an unknown boot: its boot marker is malformed]"
#define STACK_ID_MARK_NOT_YET	\
	" [no boot marker read yet on its CPU: stackmap report FILE reads them all first]"
#define STACK_ID_BOOT_MARKED	" [of a boot-marked trace]"

/*
 * A boot marker, kernel_stack_boot's print format, as the trace file and
 * trace-cmd report print it.
 */
#define STACK_BOOT_TAG		"<stack_boot 0x"

const char *find_stack_id(const char *line, uint32_t *id, const char **end);
/* @line holds a boot marker "<stack_boot 0x%08x flags 0x%x>". */
bool is_stack_boot(const char *line);
/* @end past one of the STACK_ID_NOT_YET... marks, if it starts with one. */
const char *skip_undefined_mark(const char *end);
bool parse_comm(const char *line, char *comm, size_t len);

/* A string -> count table; open addressing, grows at half full. */
struct counts {
	char **keys;
	uint64_t *vals;
	size_t nr, cap;
};

int counts_add(struct counts *c, const char *key, uint64_t n);
void counts_free(struct counts *c);
void counts_print(struct counts *c);

/* A growing string for one folded stack. */
struct fold_buf {
	char *s;
	size_t len, cap;
};

int fold_append(struct fold_buf *b, const char *sep, const char *s,
		size_t len);
/* Sets *@boot_marked if the trace holds a boot marker. */
int fold_trace(FILE *in, struct counts *ids, struct counts *full,
	       unsigned int flags, bool *boot_marked);

#endif /* _STACKMAP_TRACETEXT_H */
