/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A trace.dat through libtracecmd, for the commands that read one
 * (report): its buffers, the top one and each instance, opened
 * together, and the first pass that learns every buffer's
 * kernel_stack_def definitions, so that the second pass resolves each
 * id with the definition in force at its time.
 */
#ifndef _STACKMAP_TRACEDAT_H
#define _STACKMAP_TRACEDAT_H

#include <trace-cmd.h>

#include "stackevent.h"

/* One buffer of the trace: the top one (name "") or an instance. */
struct td_buffer {
	char *name;
	struct smap_deftab defs;
};

/**
 * struct tracedat - a trace.dat and what its first pass learned
 * @path: the file
 * @bufs: its buffers, [0] the top one; each handle of td_open() has
 *	its td_buffer as private data
 * @name_width: of the longest instance name
 * @nr_defs: the definitions learned
 * @nr_malformed: the definitions that teach nothing (the first is
 *	named on stderr)
 */
struct tracedat {
	const char *path;
	struct td_buffer *bufs;
	int nr_bufs;
	int name_width;
	unsigned long nr_defs, nr_malformed;
};

/* Name a file that cannot be opened at all as open() does: 0, or -1. */
int td_check_readable(const char *path);
/* The trace clock of @handle counts nanoseconds: its times in seconds. */
bool td_in_seconds(struct tracecmd_input *handle);
/* @event is ftrace:@name (STACKEVENT_ID, STACKEVENT_DEF, ...). */
bool td_is_event(struct tep_event *event, const char *name);
/*
 * Open the trace and its instance buffers: td->nr_bufs handles, [0] the
 * top buffer. The first call makes td->bufs. NULL: error reported.
 */
struct tracecmd_input **td_open(struct tracedat *td);
void td_close(struct tracecmd_input **h, int n);
/* Pass 1: learn the definitions of every buffer. 0, or -1 reported. */
int td_learn(struct tracedat *td);
void td_free(struct tracedat *td);

#endif /* _STACKMAP_TRACEDAT_H */
