/* SPDX-License-Identifier: GPL-2.0 */
/*
 * "stackmap profile": what its two parts share. cmd_profile.c parses
 * the options, pairs each event with its stack and sums events in a
 * window; profile_inuse.c replays allocations and frees to tell what
 * memory each stack held at an instant (--inuse).
 */
#ifndef _STACKMAP_PROFILE_H
#define _STACKMAP_PROFILE_H

#include <stdio.h>

#include "cli.h"
#include "inuse.h"
#include "pprof.h"
#include "profargs.h"
#include "tracedat.h"

#ifndef fallthrough
#define fallthrough	__attribute__((__fallthrough__))
#endif

/* Frames kept of a full stack: a ring-buffer page of 4-byte longs. */
#define PROF_MAX_DEPTH		1024U

enum prof_output { PROF_TOP, PROF_FOLDED, PROF_PPROF, PROF_SVG };

/* An event type of the trace, as the options make it count. */
struct prof_type {
	struct tep_event *event;
	bool selected;		/* by --event, or by default */
	bool counted;		/* an event of it was counted */
	int missing;		/* the first weight it lacks, or -1 */
	bool carried_stack;	/* an event of it was followed by a stack */
	enum prof_bytes bytes;
	struct tep_format_field *fields[PROF_MAX_WEIGHTS];
	/* --inuse: what it does to memory, and the fields that say where */
	enum prof_mem mem;
	struct tep_format_field *addr, *size;
};

/* What the stack of a pending event does. */
enum prof_fate {
	PROF_IGNORED,		/* not selected, or outside the window */
	PROF_COUNTS,		/* counts, with its weights */
	PROF_UNWEIGHED,		/* selected by default, lacks a weight */
	PROF_BAD,		/* its record ends before a weight */
};

struct profile;

/* An event of a CPU, waiting for its stack. */
struct prof_pending {
	struct prof_type *type;	/* NULL: none */
	enum prof_fate fate;
	int64_t w[PROF_MAX_WEIGHTS];
	long op;		/* --inuse: the allocation's op, or -1 */
	uint64_t ctx;		/* its context: prof_context() */
};

/*
 * The events of a CPU waiting for their stacks, the latest on top. The
 * kernel writes an event's stack after the event is committed, with
 * interrupts on: an interrupt's events and their stacks may come in
 * between, nested as the contexts were (task, softirq, irq, NMI). The
 * stack's entry carries its event's context (the same trace_ctx: the
 * common flags and preempt count, and the pid), so a stack goes to the
 * latest waiting event of its context; the events above that one never
 * got a stack (an event of a tracer that records none, nesting too
 * deep for the kernel to record one) and are dropped. A CPU's events
 * lost by the ring buffer take the waiting events' stacks with them.
 */
#define PROF_NEST		8

struct prof_cpu {
	int nr;
	struct prof_pending v[PROF_NEST];
};

typedef void (*prof_drop_fn)(struct profile *p, struct prof_pending *pend);

/* The context of @rec that its stack's entry shares. */
uint64_t prof_context(struct tep_handle *tep, struct tep_record *rec);
/*
 * A new waiting event of context @ctx on @c; the oldest goes to @drop
 * (if not NULL) when @c is full.
 */
struct prof_pending *prof_push(struct profile *p, struct prof_cpu *c,
			       uint64_t ctx, prof_drop_fn drop);
/*
 * The latest waiting event of context @ctx, taken off @c with the
 * events above it (to @drop); NULL, and @c as it was, if none waits.
 */
struct prof_pending *prof_take(struct profile *p, struct prof_cpu *c,
			       uint64_t ctx, prof_drop_fn drop);
/* Every waiting event of @c, to @drop: its CPU lost events. */
void prof_clear(struct profile *p, struct prof_cpu *c, prof_drop_fn drop);

/* A distinct stack and its sums. */
struct prof_stack {
	uint64_t hash;
	uint32_t depth;
	bool unresolved;	/* an id without definition: @id, no frames */
	bool malformed;		/* a kernel_stack_id without an id */
	bool none;		/* --inuse: an allocation without a stack */
	uint32_t id;
	uint32_t idx;		/* its index in profile.by_idx */
	uint64_t events;
	int64_t w[PROF_MAX_WEIGHTS];
	uint64_t *addrs;	/* innermost first */
};

typedef int (*prof_fill_fn)(struct profile *p, struct tep_handle *tep,
			    struct pprof *pp);

struct profile {
	struct tracedat td;
	struct prof_event_spec events[PROF_MAX_EVENTS];
	int nr_events;
	const char *weights[PROF_MAX_WEIGHTS];
	int nr_weights;
	struct prof_window win;
	const char *time_args[5];	/* as given, by time_opts[] */
	enum prof_output output;
	bool output_set;
	unsigned long top;
	const char *pprof;
	const char *svg;
	uint64_t from, to;
	uint64_t page_size;
	int layer;			/* --layer, or -1 */
	bool all_frames;		/* --all-frames */
	const char *instance;		/* --instance, or NULL */
	bool has_boot;			/* --boot TOKEN */
	uint32_t boot;
	prof_fill_fn fill;		/* the pprof's samples */

	/* --inuse T, or peak */
	bool inuse, inuse_peak;
	uint64_t inuse_at;
	int buf;			/* the buffer replayed */
	struct mem_ops ops;
	unsigned long long nr_mem_bad, nr_batched_dropped;
	bool has_page_free, has_layer[MEM_NR_LAYERS], has_alloc[MEM_NR_LAYERS];

	struct prof_type **types;	/* each its own: pending points to it */
	int nr_types;
	struct prof_cpu *pending;	/* [buffer * nr_cpus + cpu] */
	bool *buf_counted;		/* [buffer]: a window counted its events */
	int nr_cpus;
	struct prof_stack **stacks;	/* open addressing, NULL: free */
	size_t nr_stacks, cap;
	struct prof_stack **by_idx;	/* [idx] */
	uint64_t addrs[PROF_MAX_DEPTH];

	unsigned long long nr_stack_events, nr_samples, nr_unresolved;
	unsigned long long nr_no_stack, nr_unweighed, nr_bad;
	uint32_t first_unresolved;
	struct prof_type *first_unweighed;
	uint64_t total_events;
	int64_t total_w[PROF_MAX_WEIGHTS];
};

/* Bad usage or input: one line, and exit status 2 as the value. */
#define bad(fmt, ...)							\
	(fprintf(stderr, "stackmap: profile: " fmt "\n", ##__VA_ARGS__),	\
	 EXIT_USAGE)

void prof_nomem(void);
/* Read a numeric field of @rec; false if the record ends before it. */
bool prof_read_field(struct tep_format_field *f, struct tep_record *rec,
		     int64_t *v);
bool prof_is_numeric(struct tep_format_field *f);
struct prof_type *prof_find_type(struct profile *p, struct tep_event *ev);
/*
 * The stack of a kernel_stack_id or kernel_stack record, into @key
 * (its frames in p->addrs): an id resolved by the definitions of @b,
 * the frames of the tracepoint of @event (the event's name) dropped.
 */
void prof_stack_key(struct profile *p, struct td_buffer *b,
		    struct tep_event *ev, struct tep_record *rec,
		    const char *event, struct prof_stack *key);
/* The stack equal to @key, made on first use; NULL if out of memory. */
struct prof_stack *prof_intern(struct profile *p, struct prof_stack *key);
void prof_format_frame(char *buf, size_t len, struct tep_handle *tep,
		       uint64_t ip, bool offset);
/* A stack without frames: its text into @buf, and true. */
bool prof_frameless(const struct prof_stack *st, char *buf, size_t len);
/* "root;...;leaf", names only; NULL if out of memory. */
char *prof_fold_stack(struct tep_handle *tep, const struct prof_stack *st);
/* The window [@from, @to] as the table's header prints it. */
void prof_print_spans(struct profile *p, FILE *f, const char *prefix,
		      uint64_t from, uint64_t to);
/*
 * Warn on stderr, and with @pp in its comments, of the parts of the
 * window [@from, @to] that a CPU lost.
 */
int prof_warn_losses(struct profile *p, struct pprof *pp, uint64_t from,
		     uint64_t to);
/*
 * The comments of a pprof: what it covers (@what from @from to @to),
 * each CPU's span, and the warnings of prof_warn_losses().
 */
int prof_pprof_comments(struct profile *p, struct pprof *pp,
			const char *what, uint64_t from, uint64_t to);
/*
 * The pprof locations of @st into @locs (room for PROF_MAX_DEPTH), the
 * leaf first: how many, or 0 if out of memory.
 */
uint32_t prof_pprof_locations(struct pprof *pp, struct tep_handle *tep,
			      const struct prof_stack *st, uint64_t *locs);
/* Write the pprof p->fill makes to --pprof FILE: 0, or the exit status. */
int prof_write_pprof(struct profile *p, struct tep_handle *tep);

/* --inuse: the replay of one buffer, and its output. */
int prof_inuse(struct profile *p, struct tracecmd_input **h);

#endif /* _STACKMAP_PROFILE_H */
