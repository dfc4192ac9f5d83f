/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ftrace stackmap: the glue between the trace option "stackmap" and a
 * stackdepot_lf depot per trace instance: what trace.h and trace.c use,
 * and what the tracefs files of trace_stackmap_export.c call. See
 * Documentation/trace/ftrace-stackmap.rst.
 */
#ifndef _TRACE_STACKMAP_H
#define _TRACE_STACKMAP_H

#include <linux/atomic.h>
#include <linux/stackdepot_lf.h>
#include <linux/types.h>

struct array_buffer;
struct trace_array;
struct trace_buffer;
struct dentry;

/* Deepest stack stored as an id; deeper stacks are recorded in full. */
#define TRACE_STACKMAP_MAX_DEPTH	128U
/* Typical depth of a traced kernel stack; sizes the depot's chunks. */
#define TRACE_STACKMAP_EXPECTED_DEPTH	16U
/*
 * Default capacity, in distinct stacks, of a depot: its table, the only
 * part sized by the capacity, takes 128 KiB; records take memory as they
 * come, so that a depot holding a few hundred stacks stays under 256 KiB.
 */
#define TRACE_STACKMAP_DEFAULT_SIZE	16384U
/*
 * A depot made at boot (trace_options=stackmap) has room from the start
 * for this share of its capacity, 2,048 stacks by default (416 KiB of
 * chunks on 64-bit, with the spare growth keeps), which carries the boot
 * until growth can run (see trace_stackmap_init()). A boot traced with
 * three kmem events stored fewer than 512 stacks before that.
 */
#define TRACE_STACKMAP_BOOT_ROOM_DIV	8U
/*
 * A depot allocated at run time, when the option is set, has room from
 * the start for this share of its capacity, of the default capacity at
 * most: 512 stacks by default, the burst the function tracer makes on the
 * allocator in its first second, while growth waits for a work item.
 */
#define TRACE_STACKMAP_ROOM_DIV		32U
#define TRACE_STACKMAP_MIN_SIZE		STACKDEPOT_LF_MIN_RECORDS
#define TRACE_STACKMAP_MAX_SIZE		STACKDEPOT_LF_MAX_RECORDS
/*
 * Default share, in percent of what a CPU's buffer holds, that the buffer
 * may overwrite before the stacks are defined again: the whole of it, so
 * that the definitions cost a few percent of a wrapping buffer, not a
 * tenth (see stack_map_redefine in Documentation/trace/ftrace-stackmap.rst).
 */
#define TRACE_STACKMAP_DEFAULT_REDEFINE	100U

/* The options of options/stackmap-*, other than the trace_flags bit. */
enum trace_stackmap_opt {
	TRACE_STACKMAP_OPT_EXPAND,	/* stackmap-expand: print full stacks */
	TRACE_STACKMAP_OPT_DEFS,	/* stackmap-defs: write definitions */
	TRACE_STACKMAP_NR_OPTS,
};

#ifdef CONFIG_FTRACE_STACKMAP

/**
 * struct trace_stackmap_cpu - what a CPU's buffer lost, as the stack map saw it
 * @buffer: the buffer the counts are of
 * @seen: its count of overwritten events at the last look
 * @base: that count when its stacks were last defined again
 * @held: the events it held then; it may overwrite stack_map_redefine
 *	percent of them after @base before they are defined again
 * @marked: on a persistent instance, the trace_stackmap.mark_epoch of the
 *	last TRACE_STACK_BOOT marker this CPU wrote; %STACKMAP_MARK_NONE
 *	before its first
 * @mark_lost: the buffer's count of overwritten events after that marker
 * @marking: a marker is being written on this CPU, at a context level
 *	that an interrupt may have interrupted
 *
 * Read and written only on its CPU, by the recording path at any context
 * level: see stackmap_lost_defs() and stackmap_mark_boot().
 */
struct trace_stackmap_cpu {
	struct trace_buffer	*buffer;
	unsigned long		seen;
	unsigned long		base;
	unsigned long		held;
	unsigned int		marked;
	unsigned long		mark_lost;
	bool			marking;
};

/* trace_stackmap_cpu.marked before the CPU's first marker */
#define STACKMAP_MARK_NONE	0U
/* The first value of trace_stackmap.mark_epoch, above it. */
#define STACKMAP_MARK_EPOCH	1U

/*
 * TRACE_STACK_BOOT flags: the first marker of this boot's depot on its
 * CPU, before which the CPU's buffer holds nothing of this boot.
 */
#define TRACE_STACKMAP_BOOT_FIRST	0x1U

/**
 * struct trace_stackmap - stackmap state embedded in each trace_array
 * @depot: the depot, NULL until the option is first enabled
 * @size: capacity in distinct stacks of the next depot, 0 for the default
 * @epoch: bumped every time @depot is reset or replaced, so that open
 *	readers notice without asking the depot
 * @expand: print stack ids as full stacks in the trace file
 * @no_defs: do not write stack definitions into the buffer
 *	(options/stackmap-defs is 0); clear by default
 * @redefine_pct: share of what a CPU's buffer holds, in percent, that it
 *	may overwrite before the stacks are defined again; 0: never
 * @cpu: what each CPU's buffer lost, allocated with the first depot
 * @redefine: the main buffer lost its definitions where the depot could
 *	not be reached; the next caller of trace_stackmap_record() that can
 *	reach it clears the marks, before it takes its own id
 * @drops_context: stacks recorded in full because a grace period would not
 *	have waited for the caller (a CPU going offline, RCU not watching)
 * @defs: definitions written, by the recording path and by "emit"
 * @defs_emitted: of them, those written by "emit"
 * @defs_lost: definitions the ring buffer refused
 * @defs_bytes: bytes of the definitions written, as
 *	ring_buffer_event_length() counts them
 * @redefinitions: times a CPU's buffer overwrote its share, and its stacks
 *	were to be defined again
 * @boot: on a persistent (boot-mapped) instance, whose buffer may hold an
 *	earlier boot's ids, the nonzero token of this boot's TRACE_STACK_BOOT
 *	markers, drawn at random with @cpu; 0 elsewhere
 * @mark_epoch: bumped whenever every CPU's buffer lost its definitions,
 *	so that each CPU writes its marker again
 * @last_boot: the persistent buffer held events when the option was set,
 *	maybe an earlier boot's ids: the trace output does not look ids up
 *	in the depot until the buffer is reset
 *
 * Only trace_stackmap.c changes these. @size and @epoch are protected by
 * its trace_stackmap_mutex; @depot is written under it and read locklessly
 * by the recording and print paths; so are @no_defs and @cpu; @boot is
 * set before @cpu is published and never changes; @expand, @redefine,
 * @redefine_pct, @mark_epoch, @last_boot and the counters are lockless.
 */
struct trace_stackmap {
	struct stackdepot_lf __rcu	*depot;
	unsigned int			size;
	u32				epoch;
	bool				expand;
	bool				no_defs;
	int				redefine;
	unsigned int			redefine_pct;
	struct trace_stackmap_cpu __percpu *cpu;
	atomic_long_t			drops_context;
	atomic_long_t			defs;
	atomic_long_t			defs_emitted;
	atomic_long_t			defs_lost;
	atomic64_t			defs_bytes;
	atomic_long_t			redefinitions;
	u32				boot;
	atomic_t			mark_epoch;
	bool				last_boot;
};

extern struct trace_event trace_stack_id_event;
extern struct trace_event trace_stack_def_event;
extern struct trace_event trace_stack_boot_event;

void __init trace_stackmap_init(void);
int trace_stackmap_enable(struct trace_array *tr);
bool trace_stackmap_record(struct trace_array *tr, struct trace_buffer *buffer,
			   unsigned int trace_ctx, const unsigned long *calls,
			   unsigned int nr_entries);
void trace_stackmap_redefine(struct trace_array *tr);
void trace_stackmap_buffer_reset(struct array_buffer *buf);
void trace_stackmap_buffer_consumed(struct array_buffer *buf);
void trace_stackmap_init_tracefs(struct trace_array *tr,
				 struct dentry *d_tracer);
void trace_stackmap_free(struct trace_array *tr);

/* For the tracefs files of trace_stackmap_export.c. */
struct stackdepot_lf *trace_stackmap_lock_depot(struct trace_array *tr,
						u32 *epoch);
void trace_stackmap_unlock_depot(void);
void trace_stackmap_assert_depot_held(void);
unsigned int trace_stackmap_size(struct trace_array *tr);
u32 trace_stackmap_index_bits(struct trace_array *tr);
int trace_stackmap_parse_uint(const char *str, unsigned int max,
			      unsigned int *val);
int trace_stackmap_parse_size(const char *str, unsigned int *size);
int trace_stackmap_set_size(struct trace_array *tr, unsigned int size);
void trace_stackmap_reset(struct trace_array *tr);
int trace_stackmap_emit(struct trace_array *tr);
bool trace_stackmap_option(struct trace_array *tr,
			   enum trace_stackmap_opt opt);
int trace_stackmap_set_option(struct trace_array *tr,
			      enum trace_stackmap_opt opt, bool on);
int trace_stackmap_set_redefine(struct trace_array *tr, unsigned int pct);

#else /* !CONFIG_FTRACE_STACKMAP */

static inline void trace_stackmap_init(void) { }

static inline int trace_stackmap_enable(struct trace_array *tr)
{
	return 0;
}

static inline bool trace_stackmap_record(struct trace_array *tr,
					 struct trace_buffer *buffer,
					 unsigned int trace_ctx,
					 const unsigned long *calls,
					 unsigned int nr_entries)
{
	return false;
}

static inline void trace_stackmap_redefine(struct trace_array *tr) { }
static inline void trace_stackmap_buffer_reset(struct array_buffer *buf) { }
static inline void trace_stackmap_buffer_consumed(struct array_buffer *buf) { }

static inline void trace_stackmap_init_tracefs(struct trace_array *tr,
					       struct dentry *d_tracer) { }
static inline void trace_stackmap_free(struct trace_array *tr) { }

#endif /* CONFIG_FTRACE_STACKMAP */

#endif /* _TRACE_STACKMAP_H */
