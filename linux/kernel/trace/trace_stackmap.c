// SPDX-License-Identifier: GPL-2.0
/*
 * ftrace stackmap: record kernel stacks as ids of a stackdepot_lf depot.
 *
 * With the "stackmap" and "stacktrace" options set, __ftrace_trace_stack()
 * writes a TRACE_STACK_ID event holding a 32-bit id instead of a TRACE_STACK
 * event holding every frame. This file creates and frees one depot per
 * trace instance, hands ids to the recording path and prints TRACE_STACK_ID
 * events; every change to an instance's stack map (reset, size, options,
 * emit) is made here. The stack_map* tracefs files, in
 * trace_stackmap_export.c, parse what is written and call in here, and
 * read the depots back while trace_stackmap_lock_depot() holds them. The
 * map itself lives in lib/stackdepot_lf/; nothing here knows its layout.
 *
 * Definitions: so that a reader of the ring buffer alone (trace-cmd record,
 * trace_pipe_raw) can resolve ids, the first use of a stack on a CPU since
 * that CPU's buffer last held its frames is preceded there by a
 * TRACE_STACK_DEF event holding the id and the frames (options/stackmap-defs,
 * on by default): each CPU's buffer defines the stacks of its own ids, so
 * that it resolves them whatever the other CPUs' buffers lost. The depot's
 * per-CPU marks tell that first use: they are cleared with each new
 * generation, and here whenever the buffer loses what it held (cleared,
 * swapped with the max buffer, or read by a consuming reader that closed
 * its file: every CPU's; a CPU's share of it overwritten,
 * stack_map_redefine: that CPU's) and whenever definitions or the option
 * are turned back on. "emit" written to stack_map writes the definitions of every
 * stack at once, for a buffer read out once at the end.
 *
 * Persistent buffers: the buffer of a boot-mapped instance may hold the
 * ids and definitions of an earlier boot, whose ids this boot's depot
 * gives out again for other stacks, with timestamps of another clock.
 * Each CPU's buffer of such an instance holds a TRACE_STACK_BOOT marker,
 * with a token drawn at random for this boot, before the first id or
 * definition of this boot on that CPU (%TRACE_STACKMAP_BOOT_FIRST), and
 * again on each sub-buffer it writes once it overwrites, and after each
 * reset or consuming read: a reader gives each id the boot of the marker
 * before it on its CPU, and resolves it only with that boot's
 * definitions. Until such a buffer is reset, its trace output does not
 * look ids up in this boot's depot.
 *
 * Coding conventions in this file: @tr is the trace instance, @sm its
 * embedded struct trace_stackmap, @depot the depot published in it.
 *
 * Locking: trace_stackmap_mutex serialises creating, replacing, resetting
 * and freeing depots, and every tracefs access to them. When both are
 * taken, trace_types_lock nests outside trace_stackmap_mutex, as
 * set_tracer_flag() calls trace_stackmap_enable() with trace_types_lock
 * held. The recording path (through stackdepot_lf_get_id_rcu()) and the
 * trace output path read tr->stackmap.depot with rcu_dereference_sched(),
 * with preemption disabled, and only where a grace period waits for them;
 * a depot is freed only after it has been unpublished and synchronize_rcu()
 * has returned.
 */

#include <linux/ctype.h>
#include <linux/init.h>
#include <linux/kernel.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/random.h>
#include <linux/rcupdate.h>
#include <linux/stackdepot_lf.h>

#include "trace.h"
#include "trace_output.h"
#include "trace_stackmap.h"

/* Serialises depot creation, replacement, reset, freeing and tracefs. */
static DEFINE_MUTEX(trace_stackmap_mutex);
/* Set by trace_stackmap_init(); depots are created only afterwards. */
static bool stackmap_ready;
/* Capacity of the top-level depot from trace_stackmap_size=, 0 if unset. */
static unsigned int stackmap_boot_size;

/* Context levels of interrupt_context_level(): task, softirq, irq, NMI. */
#define STACKMAP_PRINT_NESTING	4

/*
 * Frames of the ids being expanded in the trace output, per CPU and per
 * context level: with preemption off, only a higher level can interrupt
 * a printer on its CPU, so no lock is needed and ftrace_dump() never
 * waits for one.
 */
struct stackmap_print_bufs {
	unsigned long entries[STACKMAP_PRINT_NESTING][TRACE_STACKMAP_MAX_DEPTH];
};

static DEFINE_PER_CPU(struct stackmap_print_bufs, stackmap_print_bufs);

/*
 * A number written to a stackmap file or given on the command line, at
 * most @max: decimal digits and an optional trailing newline, nothing
 * else. kstrtouint() would also take a sign, and a leading 0 that was
 * once read as octal; both are refused rather than read as decimal.
 */
int trace_stackmap_parse_uint(const char *str, unsigned int max,
			      unsigned int *val)
{
	if (!isdigit(str[0]) || (str[0] == '0' && isdigit(str[1])) ||
	    kstrtouint(str, 10, val) || *val > max)
		return -EINVAL;
	return 0;
}

/* A depot size, from trace_stackmap_size= or stack_map_size. */
int trace_stackmap_parse_size(const char *str, unsigned int *size)
{
	if (trace_stackmap_parse_uint(str, TRACE_STACKMAP_MAX_SIZE, size) ||
	    *size < TRACE_STACKMAP_MIN_SIZE)
		return -EINVAL;
	return 0;
}

static int __init set_trace_stackmap_size(char *str)
{
	unsigned int size;

	if (!str || trace_stackmap_parse_size(str, &size)) {
		pr_warn("trace_stackmap_size= must be decimal, %u to %u, ignored\n",
			TRACE_STACKMAP_MIN_SIZE, TRACE_STACKMAP_MAX_SIZE);
		return -EINVAL;
	}
	stackmap_boot_size = size;
	return 0;
}
early_param("trace_stackmap_size", set_trace_stackmap_size);

/*
 * Capacity of the next depot of @tr, and of the current one: a new size
 * frees it. trace_stackmap_mutex held, or the depot by
 * trace_stackmap_lock_depot().
 */
unsigned int trace_stackmap_size(struct trace_array *tr)
{
	if (tr->stackmap.size)
		return tr->stackmap.size;
	if ((tr->flags & TRACE_ARRAY_FL_GLOBAL) && stackmap_boot_size)
		return stackmap_boot_size;
	return TRACE_STACKMAP_DEFAULT_SIZE;
}

/* Parameters of a depot of @size stacks, with room for @initial. */
static void trace_stackmap_params(struct stackdepot_lf_params *params,
				  unsigned int size, unsigned int initial)
{
	*params = (struct stackdepot_lf_params) {
		.max_records	= size,
		.max_depth	= TRACE_STACKMAP_MAX_DEPTH,
		.expected_depth	= TRACE_STACKMAP_EXPECTED_DEPTH,
		.flags		= STACKDEPOT_LF_COUNT_REFS |
				  STACKDEPOT_LF_CPU_MARKS,
		.initial_records = initial,
	};
}

/**
 * trace_stackmap_index_bits() - how the depot of an instance splits its ids
 * @tr: the instance, its depot held by trace_stackmap_lock_depot()
 *
 * Return: the low bits of an id that index the table of the depot of @tr,
 * or of the depot setting the option would create.
 */
u32 trace_stackmap_index_bits(struct trace_array *tr)
{
	struct stackdepot_lf_params params;

	trace_stackmap_params(&params, trace_stackmap_size(tr), 0);
	return stackdepot_lf_index_bits(&params);
}

/* The depot of @tr, NULL if none; trace_stackmap_mutex held. */
static struct stackdepot_lf *stackmap_depot(struct trace_array *tr)
{
	return rcu_dereference_protected(tr->stackmap.depot,
					 lockdep_is_held(&trace_stackmap_mutex));
}

/*
 * The depot of @tr for a caller that holds no lock: in an RCU-sched read
 * section (preemption disabled), as the depot is freed after
 * synchronize_rcu(). NULL if @tr has none; ERR_PTR(-EPERM) if that grace
 * period would not wait for the caller (a CPU going offline, RCU not
 * watching), which must then leave the depot alone.
 */
static struct stackdepot_lf *stackmap_depot_sched(struct trace_array *tr)
{
	if (!stackdepot_lf_caller_visible())
		return ERR_PTR(-EPERM);
	/* Pairs with rcu_assign_pointer() in stackmap_create(). */
	return rcu_dereference_sched(tr->stackmap.depot);
}

/**
 * trace_stackmap_lock_depot() - hold the depot of an instance to read it
 * @tr: the instance
 * @epoch: if not NULL, set to the count of its resets and replacements so
 *	far, which a reader compares with a later one to learn whether its
 *	ids went stale
 *
 * Until trace_stackmap_unlock_depot(), the depot is neither reset, nor
 * replaced, nor freed, and trace_stackmap_size() is its capacity. Do not
 * hold it over a copy to or from user memory.
 *
 * Context: Process context; takes trace_stackmap_mutex.
 * Return: the depot, or NULL if @tr has none.
 */
struct stackdepot_lf *trace_stackmap_lock_depot(struct trace_array *tr,
						u32 *epoch)
{
	mutex_lock(&trace_stackmap_mutex);
	if (epoch)
		*epoch = tr->stackmap.epoch;
	return stackmap_depot(tr);
}

/**
 * trace_stackmap_unlock_depot() - let go of a depot held for reading
 *
 * Context: Process context, after trace_stackmap_lock_depot().
 */
void trace_stackmap_unlock_depot(void)
{
	mutex_unlock(&trace_stackmap_mutex);
}

/* For the readers of trace_stackmap_export.c: lockdep checks they hold it. */
void trace_stackmap_assert_depot_held(void)
{
	lockdep_assert_held(&trace_stackmap_mutex);
}

/*
 * Give @tr a depot, if it has none, with room for @initial stacks from the
 * start; trace_stackmap_mutex held.
 */
static int stackmap_create(struct trace_array *tr, unsigned int initial)
{
	struct stackdepot_lf_params params;
	struct stackdepot_lf *depot;

	lockdep_assert_held(&trace_stackmap_mutex);

	if (stackmap_depot(tr))
		return 0;

	/*
	 * Ids of a depot freed by a resize may still sit in the ring buffer;
	 * they stay stale in the new one, whose generation tags are handed
	 * out system-wide after those of every depot before it.
	 */
	if (!tr->stackmap.cpu) {
		struct trace_stackmap_cpu __percpu *cpu;

		cpu = alloc_percpu(struct trace_stackmap_cpu);
		if (!cpu)
			return -ENOMEM;
		if (tr->range_addr_start) {
			tr->stackmap.boot = get_random_u32_above(0);
			atomic_set(&tr->stackmap.mark_epoch,
				   STACKMAP_MARK_EPOCH);
		}
		/*
		 * Pairs with smp_load_acquire() in stackmap_lost_defs() and
		 * stackmap_mark_boot(): they see @boot and @mark_epoch set.
		 */
		smp_store_release(&tr->stackmap.cpu, cpu);
	}

	trace_stackmap_params(&params, trace_stackmap_size(tr), initial);
	depot = stackdepot_lf_create(&params);
	if (IS_ERR(depot))
		return PTR_ERR(depot);

	/* Pairs with rcu_dereference_sched() in stackdepot_lf_get_id_rcu(). */
	rcu_assign_pointer(tr->stackmap.depot, depot);
	tr->stackmap.epoch++;
	return 0;
}

/*
 * Unpublish the depot of @tr and free it once no reader can see it;
 * trace_stackmap_mutex held.
 */
static void stackmap_destroy(struct trace_array *tr)
{
	struct stackdepot_lf *depot;

	lockdep_assert_held(&trace_stackmap_mutex);

	depot = stackmap_depot(tr);
	if (!depot)
		return;

	tr->stackmap.epoch++;
	RCU_INIT_POINTER(tr->stackmap.depot, NULL);
	/* Waits for trace_stackmap_get_id() and stackmap_print_stack(). */
	synchronize_rcu();
	stackdepot_lf_destroy(depot);
}

/**
 * trace_stackmap_enable() - allocate the depot of an instance
 * @tr: the instance whose stackmap option is being set
 *
 * Called by set_tracer_flag() before the option is set. For
 * trace_options= on the command line, applied by early_trace_init(),
 * nothing is allocated here: trace_stackmap_init() does it, before the
 * first event of the boot is traced. A new depot starts with room for a
 * share of its capacity (1 / %TRACE_STACKMAP_ROOM_DIV, of the default
 * capacity at most), for the burst of new stacks that follows: growth
 * runs in a work item, which a busy CPU may not run for a while. A depot
 * kept from an earlier use of the option has its stacks defined again at
 * their next use: the buffer may have lost their definitions meanwhile.
 *
 * The buffer of a persistent (boot-mapped) instance that holds events may
 * hold an earlier boot's ids: its trace output stops looking ids up in the
 * depot until it is reset.
 *
 * Context: Process context, trace_types_lock held.
 * Return: 0, or -ENOMEM.
 */
int trace_stackmap_enable(struct trace_array *tr)
{
	int ret = 0;

	mutex_lock(&trace_stackmap_mutex);
	/*
	 * An instance of trace_instance= gets its files, which set the
	 * default, only at fs_initcall. Pairs with READ_ONCE() in
	 * stackmap_lost_defs_slow().
	 */
	if (system_state == SYSTEM_BOOTING && !tr->stackmap.cpu)
		WRITE_ONCE(tr->stackmap.redefine_pct,
			   TRACE_STACKMAP_DEFAULT_REDEFINE);
	/* Pairs with READ_ONCE() in trace_stack_id_print(). */
	if (tr->range_addr_start &&
	    ring_buffer_entries(tr->array_buffer.buffer))
		WRITE_ONCE(tr->stackmap.last_boot, true);
	stackdepot_lf_clear_marks(stackmap_depot(tr));
	/* trace_instance= sets it at boot: see trace_stackmap_init(). */
	if (stackmap_ready && system_state == SYSTEM_BOOTING)
		ret = stackmap_create(tr, trace_stackmap_size(tr) /
					  TRACE_STACKMAP_BOOT_ROOM_DIV);
	else if (stackmap_ready)
		ret = stackmap_create(tr, min(trace_stackmap_size(tr),
					      TRACE_STACKMAP_DEFAULT_SIZE) /
					  TRACE_STACKMAP_ROOM_DIV);
	mutex_unlock(&trace_stackmap_mutex);
	return ret;
}

/*
 * The slow part of stackmap_lost_defs(): @lost events overwritten in all,
 * and more than at the last look, or another buffer.
 */
static noinline bool stackmap_lost_defs_slow(struct trace_stackmap *sm,
					     struct trace_stackmap_cpu *sc,
					     struct trace_buffer *buffer,
					     int cpu, unsigned long lost)
{
	unsigned int pct;

	WRITE_ONCE(sc->seen, lost);
	/*
	 * A buffer swapped in, or reset (its counts start again): the swap
	 * or the reset had the stacks defined again already. Count from
	 * here; the next loss defines them again.
	 */
	if (buffer != READ_ONCE(sc->buffer) || lost < READ_ONCE(sc->base)) {
		WRITE_ONCE(sc->buffer, buffer);
		WRITE_ONCE(sc->base, lost);
		WRITE_ONCE(sc->held, 0);
		return false;
	}
	/*
	 * The share is read at each loss, not when the stacks were last
	 * defined again: a new stack_map_redefine counts from its write.
	 * Pairs with WRITE_ONCE() in trace_stackmap_set_redefine().
	 */
	pct = READ_ONCE(sm->redefine_pct);
	if (!pct || lost - READ_ONCE(sc->base) <
		    max(mult_frac(READ_ONCE(sc->held), pct, 100), 1UL))
		return false;

	/*
	 * The buffer overwrote its share since its stacks were last defined
	 * again: the definitions it held then may be gone. Until it
	 * overwrites that share of what it holds now, the definitions
	 * written from here on stand for it. The other CPUs' buffers hold
	 * their own definitions, and lost nothing.
	 */
	WRITE_ONCE(sc->base, lost);
	WRITE_ONCE(sc->held, ring_buffer_entries_cpu(buffer, cpu));
	atomic_long_inc(&sm->redefinitions);
	return true;
}

/*
 * The buffer lost its definitions (@this_cpu: this CPU's share of it): the
 * next use of each stack, on this CPU or on every CPU, defines it again.
 * Where the depot cannot be reached, the next caller of
 * trace_stackmap_get_id() that can reach it clears every CPU's marks
 * before it takes its own id: more definitions than needed, none missing.
 */
static void stackmap_redefine(struct trace_array *tr, bool this_cpu)
{
	struct stackdepot_lf *depot;

	/*
	 * Every CPU's marker goes again; pairs with atomic_read() in
	 * stackmap_mark_boot(). The epoch skips STACKMAP_MARK_NONE as it
	 * wraps: it would make the next marker a boot's first.
	 */
	if (!this_cpu && !atomic_inc_return(&tr->stackmap.mark_epoch))
		atomic_inc(&tr->stackmap.mark_epoch);
	rcu_read_lock_sched_notrace();
	depot = stackmap_depot_sched(tr);
	if (IS_ERR(depot))
		/*
		 * After the swap, reset or loss of the definitions. Pairs
		 * with xchg() in trace_stackmap_get_id().
		 */
		smp_store_release(&tr->stackmap.redefine, 1);
	else if (this_cpu)
		stackdepot_lf_clear_cpu_marks(depot);
	else
		stackdepot_lf_clear_marks(depot);
	rcu_read_unlock_sched_notrace();
}

/*
 * Has this CPU's @buffer overwritten, since its stacks were last defined
 * again, the share of it that stack_map_redefine allows? The ring buffer
 * counts the events it overwrote (overrun); as long as that count has not
 * moved, reading it (ring_buffer_overrun_cpu()) and two compares tell
 * that nothing was lost.
 *
 * The per-CPU state is written only on this CPU, but an interrupt or NMI
 * may record a stack between a load and a store of the task it
 * interrupts: each field is read and written whole, and the worst a torn
 * sequence does is define the stacks again once more, or one loss later.
 */
static __always_inline bool stackmap_lost_defs(struct trace_stackmap *sm,
					       struct trace_buffer *buffer)
{
	struct trace_stackmap_cpu __percpu *cpus;
	struct trace_stackmap_cpu *sc;
	unsigned long lost;
	int cpu;

	/* Pairs with smp_store_release() in stackmap_create(). */
	cpus = smp_load_acquire(&sm->cpu);
	if (unlikely(!cpus))
		return false;
	cpu = smp_processor_id();
	sc = per_cpu_ptr(cpus, cpu);
	lost = ring_buffer_overrun_cpu(buffer, cpu);
	if (likely(lost == READ_ONCE(sc->seen) &&
		   buffer == READ_ONCE(sc->buffer)))
		return false;
	return stackmap_lost_defs_slow(sm, sc, buffer, cpu, lost);
}

/*
 * trace_stackmap_get_id() - id of a stack in the depot of an instance
 * @tr: the instance
 * @buffer: the buffer of @tr the id goes into
 * @calls: the stack, innermost first
 * @nr_entries: its depth
 * @id: where the id goes on success
 * @define: set on success to whether the caller must write the stack's
 *	definition, with trace_stackmap_write_def(), before the id: true for
 *	one caller per stack on each CPU after that CPU's buffer last lost
 *	the definitions it held (cleared, swapped, or its share overwritten:
 *	see stackmap_lost_defs()), while options/stackmap-defs is on
 *
 * Context: Any context, with preemption disabled. The first caller after
 * trace_stackmap_redefine() could not reach the depot clears its marks
 * (stackdepot_lf_clear_marks(): one atomic operation).
 * Return: 0, -ENODEV if the instance has no depot, -EPERM if a grace period
 * would not wait for the caller, or the error of stackdepot_lf_get_id();
 * on error the caller records the full stack.
 */
static int trace_stackmap_get_id(struct trace_array *tr,
				 struct trace_buffer *buffer,
				 const unsigned long *calls,
				 unsigned int nr_entries, u32 *id, bool *define)
{
	struct trace_stackmap *sm = &tr->stackmap;
	stackdepot_lf_id_t sid;
	bool no_defs;
	int ret;

	*define = false;
	/*
	 * Only callers that write definitions set the marks. Pairs with
	 * smp_store_release() in trace_stackmap_set_option(): the marks were
	 * cleared before definitions came back on.
	 */
	no_defs = smp_load_acquire(&sm->no_defs);
	/*
	 * A redefinition asked for where the depot could not be reached: a
	 * caller that can reach it clears the marks before it takes its own
	 * id, so that its stack is defined too. The xchg() is fully ordered
	 * and pairs with smp_store_release() in trace_stackmap_redefine():
	 * having taken the request, we see the swap or reset made before it,
	 * as trace_stackmap_write_def() needs.
	 */
	if (unlikely(READ_ONCE(sm->redefine)) &&
	    stackdepot_lf_caller_visible() && xchg(&sm->redefine, 0))
		trace_stackmap_redefine(tr);
	/*
	 * The definitions on the pages this CPU's buffer overwrote are gone:
	 * this use, and the next use on this CPU of every other stack,
	 * defines it again.
	 */
	if (!no_defs && stackmap_lost_defs(sm, buffer))
		stackmap_redefine(tr, true);
	/*
	 * The depot is freed after synchronize_rcu(): the library checks
	 * that a grace period waits for us before it loads the pointer.
	 */
	ret = stackdepot_lf_get_id_rcu(&sm->depot, calls, nr_entries, &sid,
				       no_defs ? NULL : define);
	if (unlikely(ret)) {
		if (ret == -EPERM)
			atomic_long_inc(&sm->drops_context);
		return ret;
	}

	*id = stackdepot_lf_id_to_u32(sid);
	return 0;
}

/*
 * Reserve an entry of @type, @len bytes long, in @buffer, as
 * trace_buffer_lock_reserve() does, setting @event; return its data, or
 * NULL if the buffer refused it. The caller fills the entry without
 * looking its data up a second time with ring_buffer_event_data(): on
 * the path of every id, that call costs as much as the rest of the
 * reservation's set-up.
 */
static __always_inline void *stackmap_reserve(struct trace_buffer *buffer,
					      unsigned short type,
					      unsigned long len,
					      unsigned int trace_ctx,
					      struct ring_buffer_event **event)
{
	struct trace_entry *ent;

	*event = ring_buffer_lock_reserve(buffer, len);
	if (!*event)
		return NULL;
	ent = ring_buffer_event_data(*event);
	tracing_generic_entry_update(ent, type, trace_ctx);
	return ent;
}

/*
 * The slow part of stackmap_mark_boot(): this CPU's marker is missing, or
 * may have been overwritten. An interrupt that comes in while it is
 * being written, marking set, records its stack in full: its id would
 * come before the marker. One that came before marking was set has
 * written a marker, which the second look at @sc->marked sees.
 */
static noinline bool stackmap_mark_boot_slow(struct trace_stackmap *sm,
					     struct trace_stackmap_cpu *sc,
					     struct trace_buffer *buffer,
					     unsigned int trace_ctx,
					     unsigned int epoch, int cpu)
{
	struct ring_buffer_event *event;
	struct stack_boot_entry *entry;
	unsigned int marked;
	bool ret = true;

	if (READ_ONCE(sc->marking))
		return false;
	WRITE_ONCE(sc->marking, true);
	/*
	 * Only this CPU's contexts read @sc, each interrupting the other:
	 * the compiler's order is the order they see.
	 */
	barrier();
	marked = READ_ONCE(sc->marked);
	if (marked == epoch &&
	    ring_buffer_overrun_cpu(buffer, cpu) == READ_ONCE(sc->mark_lost))
		goto out;

	entry = stackmap_reserve(buffer, TRACE_STACK_BOOT, sizeof(*entry),
				 trace_ctx, &event);
	if (!entry) {
		ret = false;
		goto out;
	}
	entry->boot = sm->boot;
	entry->flags = marked == STACKMAP_MARK_NONE ?
		       TRACE_STACKMAP_BOOT_FIRST : 0;
	trace_buffer_unlock_commit_nostack(buffer, event);
	/* In the buffer before an interrupt can take this CPU as marked. */
	barrier();
	WRITE_ONCE(sc->mark_lost, ring_buffer_overrun_cpu(buffer, cpu));
	WRITE_ONCE(sc->marked, epoch);
out:
	barrier();
	WRITE_ONCE(sc->marking, false);
	return ret;
}

/*
 * Is this CPU's TRACE_STACK_BOOT marker in @buffer before what the caller
 * writes? Only a persistent instance (@sm->boot set) has markers. There
 * it is written before the CPU's first id or definition of this boot,
 * again after every CPU's buffer lost its contents (stackmap_redefine()),
 * and again whenever the CPU's buffer overwrote events since the last
 * one: once a buffer wraps, each sub-buffer that holds ids holds a marker
 * before them, so that a marker of this boot stays on the CPU while any
 * of its ids does. False, leaving the caller to record the full stack,
 * if the buffer refused the marker or another context of this CPU is
 * writing it, or if @sm has no per-CPU state yet (nor a depot).
 *
 * Context: Any context, with preemption disabled.
 */
static __always_inline bool stackmap_mark_boot(struct trace_stackmap *sm,
					       struct trace_buffer *buffer,
					       unsigned int trace_ctx)
{
	struct trace_stackmap_cpu __percpu *cpus;
	struct trace_stackmap_cpu *sc;
	unsigned int epoch;
	int cpu;

	/*
	 * Pairs with smp_store_release() in stackmap_create(): @boot, set
	 * before it and never changed, is read after it. No @cpu yet, no
	 * depot: the caller would record the full stack anyway.
	 */
	cpus = smp_load_acquire(&sm->cpu);
	if (unlikely(!cpus))
		return false;
	if (likely(!READ_ONCE(sm->boot)))
		return true;
	cpu = smp_processor_id();
	sc = per_cpu_ptr(cpus, cpu);
	/* Pairs with atomic_inc() in stackmap_redefine(). */
	epoch = atomic_read(&sm->mark_epoch);
	if (likely(READ_ONCE(sc->marked) == epoch &&
		   ring_buffer_overrun_cpu(buffer, cpu) ==
		   READ_ONCE(sc->mark_lost)))
		return true;
	return stackmap_mark_boot_slow(sm, sc, buffer, trace_ctx, epoch, cpu);
}

/*
 * Write the definition of @id into @buffer; false if the buffer refused it.
 * Its bytes are those of a stack_def_entry of @nr_entries frames.
 */
static bool stackmap_write_def(struct trace_array *tr,
			       struct trace_buffer *buffer,
			       unsigned int trace_ctx, u32 id,
			       const unsigned long *calls,
			       unsigned int nr_entries)
{
	struct ring_buffer_event *event;
	struct stack_def_entry *entry;

	entry = stackmap_reserve(buffer, TRACE_STACK_DEF,
				 struct_size(entry, caller, nr_entries),
				 trace_ctx, &event);
	if (!entry)
		return false;
	entry->id = id;
	entry->depth = nr_entries;
	memcpy(entry->caller, calls, flex_array_size(entry, caller, nr_entries));
	atomic_long_inc(&tr->stackmap.defs);
	atomic64_add(ring_buffer_event_length(event), &tr->stackmap.defs_bytes);
	trace_buffer_unlock_commit_nostack(buffer, event);
	return true;
}

/* Give back the mark of @id, so that its next use defines it again. */
static void stackmap_undefine(struct trace_array *tr, u32 id)
{
	struct stackdepot_lf *depot;

	rcu_read_lock_sched_notrace();
	depot = stackmap_depot_sched(tr);
	if (!IS_ERR(depot))
		stackdepot_lf_unmark(depot, stackdepot_lf_u32_to_id(id));
	rcu_read_unlock_sched_notrace();
}

/*
 * trace_stackmap_write_def() - write the definition of a stack id
 * @tr: the instance whose depot issued @id
 * @buffer: a ring buffer of @tr
 * @trace_ctx: the context of the event, as tracing_gen_ctx() gives it
 * @id: the id, for which trace_stackmap_get_id() asked for a definition
 * @calls: its stack, innermost first
 * @nr_entries: the depth, at most %TRACE_STACKMAP_MAX_DEPTH
 *
 * A definition the buffer refuses (counted in definitions_lost), or one
 * that went into a buffer that is not, or no longer, the main buffer of
 * @tr (update_max_tr() swapped them meanwhile), leaves the main buffer
 * without it: the stack's next use is asked to define it again.
 *
 * Context: Any context; no other reservation of @buffer held at this
 * context level.
 * Return: true if the definition is in @buffer, false if the buffer
 * refused it.
 */
static bool trace_stackmap_write_def(struct trace_array *tr,
				     struct trace_buffer *buffer,
				     unsigned int trace_ctx, u32 id,
				     const unsigned long *calls,
				     unsigned int nr_entries)
{
	if (!stackmap_write_def(tr, buffer, trace_ctx, id, calls, nr_entries)) {
		atomic_long_inc(&tr->stackmap.defs_lost);
		stackmap_undefine(tr, id);
		return false;
	}
	/*
	 * If the mark survived the clearing of a swap (__update_max_tr()),
	 * this load sees the swap: a mark survives a clearing only if the
	 * call that set it read the depot's clearing count after the
	 * clearing added to it (an acquire in the depot), and that fully
	 * ordered add follows the stores of the swap. Where the swap left
	 * the clearing to a caller of trace_stackmap_get_id(), that caller
	 * saw the swap when it took the request, before it set its mark.
	 */
	if (buffer != READ_ONCE(tr->array_buffer.buffer))
		stackmap_undefine(tr, id);
	return true;
}

/*
 * Is @buffer one whose output resolves ids in the depot of @tr? Every
 * caller of __ftrace_trace_stack() passes a buffer of tr, but one:
 * __trace_array_vprintk() pairs printk_trace with the buffer of
 * trace_array_printk()'s target instance, of global_trace (a warning),
 * of tr->max_buffer (update_max_tr_single()) or of the hwlat and osnoise
 * instances. The latency tracers swap tr->array_buffer with
 * tr->max_buffer, which is read back through the same instance, so both
 * are accepted. The event commit path may also pass temp_buffer, which
 * holds an event for its triggers while tracing is off and is never
 * read: it gets the full stack, and the depot keeps no record for it.
 */
static bool stackmap_buffer_is_own(struct trace_array *tr,
				   struct trace_buffer *buffer)
{
	/*
	 * update_max_tr() swaps the two pointers with plain stores under
	 * tr->max_lock while writers run; READ_ONCE() keeps each load whole.
	 * A writer that sees a torn or later swap matches neither and records
	 * the full stack: it never takes another instance's buffer for @tr's.
	 */
	if (buffer == READ_ONCE(tr->array_buffer.buffer))
		return true;
#ifdef CONFIG_TRACER_MAX_TRACE
	if (buffer == READ_ONCE(tr->max_buffer.buffer))
		return true;
#endif
	return false;
}

/**
 * trace_stackmap_record() - record a stack as its id
 * @tr: the instance whose flags and depot are in use
 * @buffer: the ring buffer the event went into
 * @trace_ctx: the context of the event, as tracing_gen_ctx() gives it
 * @calls: the stack, innermost first
 * @nr_entries: its depth
 *
 * Writes a TRACE_STACK_ID entry holding the id of @calls, preceded by the
 * stack's definition where trace_stackmap_get_id() asks for one.
 *
 * Reserve first, then take the id: a buffer that refuses the entry
 * (recording off, full without overwrite, recursion) leaves the depot
 * untouched, so that it stores no stack and counts no reference that no
 * event holds. Without an id the entry is discarded before the caller
 * reserves the full stack: the two are never held at once at one context
 * level, where the ring buffer's recursion check would spend its one
 * transition slot on the second and refuse a third, and the event keeps
 * its stack. For the same reason the id entry is given back while a
 * definition is written, and reserved again after it; if the definition
 * does not fit, the event keeps its full stack.
 *
 * Context: Any context, with preemption disabled (__ftrace_trace_stack()).
 * Return: true if the id is in @buffer; false, leaving nothing in it, if
 * no id can be had (@buffer is not one of @tr's, the stack too deep, the
 * depot full, resetting or not allocated yet): the caller then records
 * the full stack.
 */
bool trace_stackmap_record(struct trace_array *tr, struct trace_buffer *buffer,
			   unsigned int trace_ctx, const unsigned long *calls,
			   unsigned int nr_entries)
{
	struct ring_buffer_event *event;
	struct stack_id_entry *entry;
	bool define;
	u32 id;

	if (!stackmap_buffer_is_own(tr, buffer))
		return false;

	if (!stackmap_mark_boot(&tr->stackmap, buffer, trace_ctx))
		return false;

	entry = stackmap_reserve(buffer, TRACE_STACK_ID, sizeof(*entry),
				 trace_ctx, &event);
	if (!entry)
		return false;

	if (trace_stackmap_get_id(tr, buffer, calls, nr_entries, &id, &define)) {
		ring_buffer_discard_commit(buffer, event);
		return false;
	}

	if (unlikely(define)) {
		ring_buffer_discard_commit(buffer, event);
		if (!trace_stackmap_write_def(tr, buffer, trace_ctx, id, calls,
					      nr_entries))
			return false;
		entry = stackmap_reserve(buffer, TRACE_STACK_ID, sizeof(*entry),
					 trace_ctx, &event);
		if (!entry)
			return false;
	}

	entry->id = id;
	trace_buffer_unlock_commit_nostack(buffer, event);
	return true;
}

/**
 * trace_stackmap_redefine() - define each stack again at its next use
 * @tr: the instance whose main buffer lost the definitions it held
 *
 * Called when the main buffer of @tr is cleared, shrunk or given new
 * sub-buffers, or swapped with its max buffer: the next use of each stack
 * on each CPU writes its definition again. (A CPU's buffer that has
 * overwritten the share of it that stack_map_redefine allows has its own
 * stacks defined again: see trace_stackmap_get_id().) Where the depot
 * cannot be reached (RCU would not wait for the caller), the next caller
 * of trace_stackmap_get_id() that can reach it does it, before it takes
 * its own id.
 *
 * Context: Any context.
 */
void trace_stackmap_redefine(struct trace_array *tr)
{
	stackmap_redefine(tr, false);
}

/**
 * trace_stackmap_buffer_reset() - a buffer of an instance was emptied
 * @buf: the buffer, main or max
 *
 * The main buffer's definitions went with its events, and so did an
 * earlier boot's ids if it is empty now; the max buffer held none the
 * main buffer needs.
 *
 * Context: Any context.
 */
void trace_stackmap_buffer_reset(struct array_buffer *buf)
{
	if (buf != &buf->tr->array_buffer)
		return;
	/*
	 * An earlier boot's ids are gone once no CPU's buffer holds an
	 * event: one CPU's reset, or a reset of the online CPUs, may leave
	 * some. Pairs with READ_ONCE() in trace_stack_id_print().
	 */
	if (!ring_buffer_entries(buf->buffer))
		WRITE_ONCE(buf->tr->stackmap.last_boot, false);
	trace_stackmap_redefine(buf->tr);
}

/**
 * trace_stackmap_buffer_consumed() - a consuming reader of a buffer is done
 * @buf: the buffer it read, main or max
 *
 * A reader of trace_pipe or trace_pipe_raw (read, splice or mmap) takes
 * the events it reads out of the buffer, definitions with them. Its own
 * stream holds every definition it read before the ids that need it, but
 * the ids written after it would find theirs nowhere: the main buffer's
 * stacks are defined again at their next use, on each CPU, as after a
 * reset. Called when the reader closes its file, so that a reader that
 * keeps reading, as trace-cmd record does, gets no definition twice.
 *
 * Context: Process context.
 */
void trace_stackmap_buffer_consumed(struct array_buffer *buf)
{
	if (buf == &buf->tr->array_buffer)
		trace_stackmap_redefine(buf->tr);
}

/**
 * trace_stackmap_option() - read an option of an instance's stack map
 * @tr: the instance
 * @opt: the option
 *
 * Context: Any context.
 * Return: whether @opt is set.
 */
bool trace_stackmap_option(struct trace_array *tr,
			   enum trace_stackmap_opt opt)
{
	switch (opt) {
	case TRACE_STACKMAP_OPT_EXPAND:
		/* A lockless read of what trace_stackmap_set_option() wrote. */
		return READ_ONCE(tr->stackmap.expand);
	case TRACE_STACKMAP_OPT_DEFS:
		/* A lockless read of what trace_stackmap_set_option() wrote. */
		return !READ_ONCE(tr->stackmap.no_defs);
	default:
		return false;
	}
}

/**
 * trace_stackmap_set_option() - set or clear an option of an instance
 * @tr: the instance
 * @opt: %TRACE_STACKMAP_OPT_EXPAND: the trace file prints ids as full
 *	stacks; %TRACE_STACKMAP_OPT_DEFS: definitions are written into the
 *	buffer. Definitions turned back on define every stack again at its
 *	next use: the buffer may have lost those written before.
 * @on: set it
 *
 * Context: Process context; takes trace_stackmap_mutex.
 * Return: 0, or -EINVAL for an unknown @opt.
 */
int trace_stackmap_set_option(struct trace_array *tr,
			      enum trace_stackmap_opt opt, bool on)
{
	switch (opt) {
	case TRACE_STACKMAP_OPT_EXPAND:
		/* Pairs with READ_ONCE() in trace_stack_id_print(). */
		WRITE_ONCE(tr->stackmap.expand, on);
		return 0;
	case TRACE_STACKMAP_OPT_DEFS:
		mutex_lock(&trace_stackmap_mutex);
		if (on && tr->stackmap.no_defs)
			stackdepot_lf_clear_marks(stackmap_depot(tr));
		/* Pairs with smp_load_acquire() in trace_stackmap_get_id(). */
		smp_store_release(&tr->stackmap.no_defs, !on);
		mutex_unlock(&trace_stackmap_mutex);
		return 0;
	default:
		return -EINVAL;
	}
}

/**
 * trace_stackmap_reset() - empty the depot of an instance
 * @tr: the instance
 *
 * The ids already in the trace stop resolving (readers of stack_map and
 * stack_map_bin get -ESTALE); the stacks get new ids, and definitions,
 * at their next use.
 *
 * Context: Process context; sleeps. Takes trace_stackmap_mutex.
 */
void trace_stackmap_reset(struct trace_array *tr)
{
	struct stackdepot_lf *depot;

	mutex_lock(&trace_stackmap_mutex);
	depot = stackmap_depot(tr);
	if (depot) {
		stackdepot_lf_reset(depot);
		tr->stackmap.epoch++;
	}
	mutex_unlock(&trace_stackmap_mutex);
}

/**
 * trace_stackmap_set_size() - set the capacity of an instance's depot
 * @tr: the instance
 * @size: capacity in distinct stacks, %TRACE_STACKMAP_MIN_SIZE to
 *	%TRACE_STACKMAP_MAX_SIZE
 *
 * A depot of another capacity is freed: the next setting of the option
 * creates one of @size. The ids it issued stay in the trace, stale.
 *
 * Context: Process context; sleeps. Takes trace_types_lock and
 * trace_stackmap_mutex.
 * Return: 0; -EBUSY while the option is set (its depot in use); -EINVAL
 * for a @size out of range.
 */
int trace_stackmap_set_size(struct trace_array *tr, unsigned int size)
{
	int ret = 0;

	if (size < TRACE_STACKMAP_MIN_SIZE || size > TRACE_STACKMAP_MAX_SIZE)
		return -EINVAL;

	/* Keeps the option from being set while the depot is replaced. */
	mutex_lock(&trace_types_lock);
	mutex_lock(&trace_stackmap_mutex);
	if (tr->trace_flags & TRACE_ITER_STACKMAP) {
		ret = -EBUSY;
	} else if (size != trace_stackmap_size(tr)) {
		tr->stackmap.size = size;
		stackmap_destroy(tr);
	}
	mutex_unlock(&trace_stackmap_mutex);
	mutex_unlock(&trace_types_lock);
	return ret;
}

/**
 * trace_stackmap_set_redefine() - how much a buffer may lose before redefining
 * @tr: the instance
 * @pct: share of what a CPU's buffer of @tr holds, in percent (1-100), that
 *	it may overwrite before the stacks are defined again; 0: only when
 *	the buffer is cleared, swapped or resized
 *
 * Context: Any context.
 * Return: 0, or -EINVAL if @pct is over 100.
 */
int trace_stackmap_set_redefine(struct trace_array *tr, unsigned int pct)
{
	if (pct > 100)
		return -EINVAL;
	/* Pairs with READ_ONCE() in stackmap_lost_defs_slow(). */
	WRITE_ONCE(tr->stackmap.redefine_pct, pct);
	return 0;
}

/*
 * Ring-buffer bytes of a definition of @depth frames, at most: the payload
 * rounded to 4, the event header (4 or 8 bytes), and the 8-byte time
 * extend the ring buffer may put before it.
 */
static size_t stackmap_def_bytes(unsigned int depth)
{
	struct stack_def_entry *entry;

	return ALIGN(struct_size(entry, caller, depth), 4) + 8 + 8;
}

/*
 * What definitions of @bytes in all (stackmap_def_bytes()), none over
 * @longest, may take of a buffer whose sub-buffers hold @subbuf bytes of
 * events, at most. An event never straddles two sub-buffers: one that
 * does not fit in what is left of the current sub-buffer leaves it as
 * padding, less than @longest, and goes to the next. So each sub-buffer
 * they fill holds more than @subbuf - @longest of them, and the one they
 * start in counts whole.
 */
static size_t stackmap_defs_footprint(size_t bytes, size_t longest,
				      size_t subbuf)
{
	if (!bytes)
		return 0;
	if (longest >= subbuf)
		return SIZE_MAX;
	return (1 + DIV_ROUND_UP(bytes, subbuf - longest)) * subbuf;
}

/*
 * Is @buffer, the main buffer of @tr, recording? Not while the user turned
 * tracing off, nor while tracing_stop_tr() or a reset holds its recording
 * off.
 */
static bool stackmap_recording(struct trace_array *tr,
			       struct trace_buffer *buffer)
{
	return tracer_tracing_is_on(tr) && ring_buffer_record_is_on(buffer);
}

/*
 * Before a definition "emit" writes into @buffer on this CPU: the CPU's
 * marker, on a persistent instance. False if it could not be written.
 */
static bool stackmap_emit_mark(struct trace_array *tr,
			       struct trace_buffer *buffer)
{
	bool ret;

	preempt_disable_notrace();
	ret = stackmap_mark_boot(&tr->stackmap, buffer, tracing_gen_ctx_dec());
	preempt_enable_notrace();
	return ret;
}

/**
 * trace_stackmap_emit() - write the definitions of every stack of a depot
 * @tr: the instance
 *
 * For a buffer whose older definitions were overwritten (the flight
 * recorder: overwrite mode, read out later), writes a definition of every
 * stack of the current generation into the main buffer of @tr, now, on
 * the CPU the caller runs on. So that they do not overwrite the history
 * they are meant to explain, their entries may take at most half of that
 * CPU's buffer, counting for each definition the time extend it may get
 * and for each sub-buffer the padding it may end with
 * (stackmap_defs_footprint()).
 *
 * Context: Process context; sleeps. Takes trace_stackmap_mutex.
 * Return: 0 (also without a depot: nothing to define); -EBUSY if @tr is
 * not recording (tracing off, or held off by a resize or a reset), or not
 * on the caller's CPU (tracing_cpumask), which then writes nothing;
 * -EFBIG, writing nothing, if the definitions would take more than half of
 * the CPU's buffer, or partway if stacks stored during the emit made them
 * outgrow it; -ENOSPC if the buffer refused one (those before it were
 * written); -ENOMEM.
 */
int trace_stackmap_emit(struct trace_array *tr)
{
	struct trace_buffer *buffer;
	struct stackdepot_lf_info info;
	struct stackdepot_lf_iter iter;
	struct stackdepot_lf *depot;
	unsigned long *entries;
	size_t bytes = 0, longest = 0, subbuf, budget;
	int cpu, depth, ret = 0;

	entries = kmalloc_array(TRACE_STACKMAP_MAX_DEPTH, sizeof(*entries),
				GFP_KERNEL);
	if (!entries)
		return -ENOMEM;

	mutex_lock(&trace_stackmap_mutex);
	/* The definitions go to this CPU's buffer, however long they take. */
	migrate_disable();
	cpu = smp_processor_id();
	depot = stackmap_depot(tr);
	/*
	 * update_max_tr() may swap the main buffer meanwhile: each
	 * definition goes into the one that is main when it is written.
	 * Pairs with the plain stores of that swap, as in
	 * stackmap_buffer_is_own().
	 */
	buffer = READ_ONCE(tr->array_buffer.buffer);
	if (!stackmap_recording(tr, buffer) ||
	    !cpumask_test_cpu(cpu, tr->tracing_cpumask)) {
		ret = -EBUSY;
		goto out;
	}
	if (!depot)
		goto out;

	/* Resets take trace_stackmap_mutex: the walks cannot go stale. */
	stackdepot_lf_iter_start(&iter, depot);
	while (stackdepot_lf_iter_next(&iter, entries, TRACE_STACKMAP_MAX_DEPTH,
				       &info) > 0) {
		bytes += stackmap_def_bytes(info.depth);
		longest = max(longest, stackmap_def_bytes(info.depth));
	}
	subbuf = ring_buffer_subbuf_size_get(buffer);
	budget = ring_buffer_size(buffer, cpu) / 2;
	if (stackmap_defs_footprint(bytes, longest, subbuf) > budget) {
		ret = -EFBIG;
		goto out;
	}

	/* get_id may store more stacks meanwhile: the budget still holds. */
	bytes = 0;
	stackdepot_lf_iter_start(&iter, depot);
	while ((depth = stackdepot_lf_iter_next(&iter, entries,
						TRACE_STACKMAP_MAX_DEPTH,
						&info)) > 0) {
		bytes += stackmap_def_bytes(depth);
		longest = max(longest, stackmap_def_bytes(depth));
		if (stackmap_defs_footprint(bytes, longest, subbuf) > budget) {
			ret = -EFBIG;
			break;
		}
		buffer = READ_ONCE(tr->array_buffer.buffer);
		if (!stackmap_emit_mark(tr, buffer) ||
		    !stackmap_write_def(tr, buffer, tracing_gen_ctx(),
					stackdepot_lf_id_to_u32(info.id),
					entries, depth)) {
			ret = stackmap_recording(tr, buffer) ? -ENOSPC : -EBUSY;
			break;
		}
		atomic_long_inc(&tr->stackmap.defs_emitted);
		cond_resched();
	}
	if (depth < 0)
		ret = depth;
out:
	migrate_enable();
	mutex_unlock(&trace_stackmap_mutex);
	kfree(entries);
	return ret;
}

/**
 * trace_stackmap_free() - free the depot of an instance being removed
 * @tr: the instance
 *
 * Context: Process context; sleeps.
 */
void trace_stackmap_free(struct trace_array *tr)
{
	struct trace_stackmap_cpu __percpu *cpu;

	mutex_lock(&trace_stackmap_mutex);
	cpu = tr->stackmap.cpu;
	stackmap_destroy(tr);
	mutex_unlock(&trace_stackmap_mutex);
	if (!cpu)
		return;
	WRITE_ONCE(tr->stackmap.cpu, NULL);
	/* Waits for stackmap_lost_defs(), which runs with preemption off. */
	synchronize_rcu();
	free_percpu(cpu);
}

/* TRACE_STACK_ID output */

/*
 * Print the stack of @id like a TRACE_STACK event. Returns false, having
 * printed nothing, if the id does not resolve.
 */
static bool stackmap_print_stack(struct trace_seq *s, struct trace_array *tr,
				 u32 id, int flags)
{
	struct stackmap_print_bufs *bufs;
	struct stackdepot_lf *depot;
	unsigned long *entries;
	int depth;

	/* Keeps this CPU's buffer of this level ours until it is printed. */
	preempt_disable_notrace();
	bufs = this_cpu_ptr(&stackmap_print_bufs);
	entries = bufs->entries[interrupt_context_level()];

	/*
	 * Only the copy needs the depot, freed after synchronize_rcu(), which
	 * does not wait for a dump from a CPU RCU no longer waits for.
	 */
	rcu_read_lock_sched_notrace();
	depot = stackmap_depot_sched(tr);
	depth = IS_ERR(depot) ? PTR_ERR(depot) :
		stackdepot_lf_lookup(depot, stackdepot_lf_u32_to_id(id),
				     entries, TRACE_STACKMAP_MAX_DEPTH, NULL);
	rcu_read_unlock_sched_notrace();

	/* The depot holds this boot's addresses: no text delta. */
	if (depth > 0)
		trace_print_stack_frames(s, entries, entries + depth, 0, flags);

	preempt_enable_notrace();
	return depth > 0;
}

static enum print_line_t trace_stack_id_print(struct trace_iterator *iter,
					      int flags,
					      struct trace_event *event)
{
	struct trace_seq *s = &iter->seq;
	struct stack_id_entry *field;

	trace_assign_type(field, iter->ent);

	/* Pairs with WRITE_ONCE() in trace_stackmap_set_option(). */
	if (READ_ONCE(iter->tr->stackmap.expand)) {
		/*
		 * An earlier boot's id is not this depot's. Pairs with
		 * WRITE_ONCE() in trace_stackmap_enable() and
		 * trace_stackmap_buffer_reset().
		 */
		if (READ_ONCE(iter->tr->stackmap.last_boot)) {
			trace_seq_printf(s, "<stack_id 0x%08x> %s\n", field->id,
					 "[not expanded: the buffer may hold an earlier boot's ids]");
			return trace_handle_return(s);
		}
		if (stackmap_print_stack(s, iter->tr, field->id, flags))
			return trace_handle_return(s);
	}

	trace_seq_printf(s, "<stack_id 0x%08x>\n", field->id);
	return trace_handle_return(s);
}

static enum print_line_t trace_stack_id_raw(struct trace_iterator *iter,
					    int flags,
					    struct trace_event *event)
{
	struct stack_id_entry *field;

	trace_assign_type(field, iter->ent);
	trace_seq_printf(&iter->seq, "0x%08x\n", field->id);
	return trace_handle_return(&iter->seq);
}

static struct trace_event_functions trace_stack_id_funcs = {
	.trace		= trace_stack_id_print,
	.raw		= trace_stack_id_raw,
};

struct trace_event trace_stack_id_event = {
	.type		= TRACE_STACK_ID,
	.funcs		= &trace_stack_id_funcs,
};

/* TRACE_STACK_DEF output */

/* The frames an entry holds: no more than its size allows. */
static unsigned int stack_def_depth(struct trace_iterator *iter,
				    const struct stack_def_entry *field)
{
	size_t room = iter->ent_size > sizeof(*field) ?
		      iter->ent_size - sizeof(*field) : 0;

	return min_t(size_t, field->depth, room / sizeof(field->caller[0]));
}

/*
 * The frames as the stack_map file prints them, "  [i] symbol+off/size",
 * not as " => " lines: those belong to the stack of the event above. The
 * frames of a persistent buffer are moved by its text delta, as
 * trace_output.c moves every address it prints of such a buffer, this
 * boot's too where the buffer holds both boots' events.
 */
static enum print_line_t trace_stack_def_print(struct trace_iterator *iter,
					       int flags,
					       struct trace_event *event)
{
	struct trace_seq *s = &iter->seq;
	struct stack_def_entry *field;
	unsigned int i, depth;

	trace_assign_type(field, iter->ent);
	depth = stack_def_depth(iter, field);

	trace_seq_printf(s, "<stack_def 0x%08x depth %u>\n", field->id,
			 field->depth);
	for (i = 0; i < depth; i++) {
		if (field->caller[i] == FTRACE_TRAMPOLINE_MARKER)
			trace_seq_printf(s, "  [%u] [FTRACE TRAMPOLINE]\n", i);
		else
			trace_seq_printf(s, "  [%u] %pS\n", i,
					 (void *)(field->caller[i] +
						  iter->tr->text_delta));
	}
	return trace_handle_return(s);
}

/* No addresses in raw text: %lx would bypass kptr_restrict. */
static enum print_line_t trace_stack_def_raw(struct trace_iterator *iter,
					     int flags,
					     struct trace_event *event)
{
	struct stack_def_entry *field;

	trace_assign_type(field, iter->ent);
	trace_seq_printf(&iter->seq, "0x%08x %u\n", field->id, field->depth);
	return trace_handle_return(&iter->seq);
}

static struct trace_event_functions trace_stack_def_funcs = {
	.trace		= trace_stack_def_print,
	.raw		= trace_stack_def_raw,
};

struct trace_event trace_stack_def_event = {
	.type		= TRACE_STACK_DEF,
	.funcs		= &trace_stack_def_funcs,
};

/* TRACE_STACK_BOOT output */

static enum print_line_t trace_stack_boot_print(struct trace_iterator *iter,
						int flags,
						struct trace_event *event)
{
	struct stack_boot_entry *field;

	trace_assign_type(field, iter->ent);
	trace_seq_printf(&iter->seq, "<stack_boot 0x%08x flags 0x%x>\n",
			 field->boot, field->flags);
	return trace_handle_return(&iter->seq);
}

static enum print_line_t trace_stack_boot_raw(struct trace_iterator *iter,
					      int flags,
					      struct trace_event *event)
{
	struct stack_boot_entry *field;

	trace_assign_type(field, iter->ent);
	trace_seq_printf(&iter->seq, "0x%08x 0x%x\n", field->boot,
			 field->flags);
	return trace_handle_return(&iter->seq);
}

static struct trace_event_functions trace_stack_boot_funcs = {
	.trace		= trace_stack_boot_print,
	.raw		= trace_stack_boot_raw,
};

struct trace_event trace_stack_boot_event = {
	.type		= TRACE_STACK_BOOT,
	.funcs		= &trace_stack_boot_funcs,
};

/**
 * trace_stackmap_init() - allocate the depots trace_options= asked for
 *
 * Called by trace_init() before the events of the kernel command line are
 * enabled, so that the boot's first stacks get ids. Such a depot starts
 * with room for a share of its capacity (1 / %TRACE_STACKMAP_BOOT_ROOM_DIV):
 * its growth runs in a work item, which cannot run before the scheduler
 * does, while nearly every event of early boot brings a new stack.
 *
 * Context: start_kernel(), with interrupts still disabled.
 */
void __init trace_stackmap_init(void)
{
	struct trace_array *tr;

	mutex_lock(&trace_types_lock);
	mutex_lock(&trace_stackmap_mutex);
	stackmap_ready = true;
	list_for_each_entry(tr, &ftrace_trace_arrays, list) {
		/* Before its tracefs files, which set it too, exist. */
		tr->stackmap.redefine_pct = TRACE_STACKMAP_DEFAULT_REDEFINE;
		if (!(tr->trace_flags & TRACE_ITER_STACKMAP))
			continue;
		if (stackmap_create(tr, trace_stackmap_size(tr) /
				    TRACE_STACKMAP_BOOT_ROOM_DIV)) {
			pr_warn("tracing: cannot enable stackmap in %s\n",
				tr->name ?: "top level");
			tr->trace_flags &= ~TRACE_ITER_STACKMAP;
		}
	}
	mutex_unlock(&trace_stackmap_mutex);
	mutex_unlock(&trace_types_lock);
}
