/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stackdepot_lf - lock-free, generation-aware stack trace deduplication
 *
 * A depot turns a stack trace (an array of return addresses) into a 32-bit
 * id and back. It is meant for hot, context-agnostic paths such as tracers:
 * stackdepot_lf_get_id() never sleeps, never allocates and never takes a
 * lock, so it may run in NMI context. Its memory follows what it stores:
 * the records live in chunks that a work item adds ahead of need, and when
 * no chunk is ready, or the depot holds its capacity in stacks, get_id
 * fails and the caller is expected to keep the full stack instead.
 *
 * Every id carries the generation it was issued in. A reset empties the
 * depot and starts a new generation. Generation tags are allocated
 * system-wide, so an id issued by another depot, or by this one before a
 * reset, resolves to -ESTALE, never to a stack: a live depot's current
 * generation is never handed out again, and an older one's tags come back
 * only once the generations of all depots together have used up the whole
 * 32-bit id space since (for a depot of 2^k table slots resetting alone,
 * 2^(32 - k) - 1 generations: 262,143 at 16,384 slots).
 *
 * The contract of each function is documented below; the mechanism and its
 * ordering guarantees are documented in lib/stackdepot_lf/stackdepot_lf.c.
 */
#ifndef _LINUX_STACKDEPOT_LF_H
#define _LINUX_STACKDEPOT_LF_H

#include <linux/err.h>
#include <linux/limits.h>
#include <linux/types.h>

struct stackdepot_lf;

/**
 * typedef stackdepot_lf_id_t - generation-tagged id of a stack in a depot
 *
 * For a depot whose table has 2^k slots (k is &stackdepot_lf_stats.index_bits,
 * 5 to 20), the low k bits locate the record and the high 32 - k bits hold
 * the generation tag, which is never 0, so 0 is never a valid id. The value
 * is opaque apart from that split.
 */
typedef u32 __bitwise stackdepot_lf_id_t;

/* Limits of struct stackdepot_lf_params; see stackdepot_lf_create(). */
#define STACKDEPOT_LF_MIN_RECORDS	16U
/* Tables have at most 2^20 slots: ids keep at least 12 tag bits. */
#define STACKDEPOT_LF_MAX_RECORDS	524288U
#define STACKDEPOT_LF_MAX_DEPTH		256U
#define STACKDEPOT_LF_DEFAULT_DEPTH	16U
/*
 * Bytes a record of @depth frames takes in its chunk: an 8-byte header and
 * the frames, in 8-byte units (an odd depth leaves 4 bytes of padding on
 * 32-bit). With %STACKDEPOT_LF_COUNT_REFS, each record also has a long
 * hit counter per stripe (see stackdepot_lf_stats.mem_used).
 */
#define STACKDEPOT_LF_RECORD_SIZE(depth) \
	((8 + (depth) * sizeof(unsigned long) + 7) & ~(size_t)7)

/* Flags for struct stackdepot_lf_params.flags */
/* Count the get_id calls that returned each record (see stackdepot_lf_info). */
#define STACKDEPOT_LF_COUNT_REFS	0x1U
/*
 * Keep the marks per CPU: each CPU's first use of a record is told (see
 * stackdepot_lf_get_id_rcu()), and now and then a later one too. Costs
 * 4 KiB per possible CPU at most, whatever the capacity.
 */
#define STACKDEPOT_LF_CPU_MARKS		0x2U

/**
 * struct stackdepot_lf_params - capacity and behaviour of a depot
 * @max_records: capacity in distinct stacks per generation,
 *	%STACKDEPOT_LF_MIN_RECORDS to %STACKDEPOT_LF_MAX_RECORDS. The hash
 *	table, the only part sized by it, gets at least twice as many 4-byte
 *	slots, rounded up to a power of two; records take memory as they come.
 * @max_depth: deepest stack accepted, 1 to %STACKDEPOT_LF_MAX_DEPTH.
 *	Deeper stacks are refused with -E2BIG, never truncated.
 * @expected_depth: typical depth of the stacks, 0 for
 *	%STACKDEPOT_LF_DEFAULT_DEPTH; at most @max_depth. It sizes the chunks
 *	records are stored in (about 32 records of this depth each), so it
 *	only trades the memory allocated ahead of need against how often
 *	growth runs.
 * @flags: %STACKDEPOT_LF_COUNT_REFS, %STACKDEPOT_LF_CPU_MARKS, both or 0.
 * @initial_records: records of @expected_depth the depot has room for
 *	from the start, at most @max_records; 0 for the least (two chunks).
 *	Growth, which runs in a work item, adds room as stacks come; a user
 *	whose first burst of new stacks comes before work items run (boot)
 *	or faster than growth can follow sizes it with this.
 */
struct stackdepot_lf_params {
	unsigned int max_records;
	unsigned int max_depth;
	unsigned int expected_depth;
	unsigned int flags;
	unsigned int initial_records;
};

/**
 * struct stackdepot_lf_info - what lookup and iteration report of a record
 * @id: the record's id in the current generation
 * @depth: number of frames in the record
 * @refs: get_id calls that returned @id (0 without %STACKDEPOT_LF_COUNT_REFS);
 *	the sum of per-CPU counts, which may lag calls still running
 */
struct stackdepot_lf_info {
	stackdepot_lf_id_t id;
	unsigned int depth;
	unsigned int refs;
};

/**
 * struct stackdepot_lf_stats - counters of a depot
 * @generation: current generation tag, 1 to 2^(32 - @index_bits) - 1; the
 *	tags of one depot's successive generations are increasing, but not
 *	consecutive when other depots took tags in between, until they wrap
 * @resetting: 1 while a reset is in progress
 * @index_bits: low bits of an id that index the table; the tag is above
 * @records: records in the current generation
 * @max_records: capacity in records
 * @max_depth: deepest stack accepted
 * @table_slots: hash table slots
 * @chunks: record chunks allocated
 * @chunk_size: bytes of one chunk
 * @arena_used: chunk bytes taken in the current generation, including
 *	@arena_lost and @chunk_ends
 * @arena_lost: chunk bytes taken by inserts that lost a race and could not
 *	be given back in the current generation, including the record each
 *	CPU keeps for its next insert
 * @chunk_ends: chunk bytes left unused because the next record did not fit
 *	in what remained of a chunk
 * @mem_used: @arena_used and the hit counters of the current generation's
 *	records
 * @mem_allocated: bytes allocated by the depot (table and its marks, chunks,
 *	counters and the depot itself)
 * @hits: get_id calls that found the stack already stored (lifetime)
 * @inserts: get_id calls that stored a new stack (lifetime)
 * @lost_races: hits that happened after building a record because another
 *	caller published the same stack first (included in @hits)
 * @drops_full: get_id calls refused with -ENOSPC because the depot holds
 *	@max_records stacks, or all its chunks are in use and no more may be
 *	added
 * @drops_grow: get_id calls refused with -ENOSPC because the chunk or the
 *	counters the record needed were not added yet
 * @drops_probe: get_id calls refused with -ENOSPC because every slot the
 *	probe may visit was in use
 * @drops_too_deep: get_id calls refused with -E2BIG
 * @drops_busy: get_id calls refused with -EBUSY during a reset
 * @drops_context: get_id calls refused with -EPERM because a grace period
 *	would not wait for the caller (see stackdepot_lf_caller_visible())
 * @resets: completed resets
 *
 * Every get_id call on a valid depot with a non-zero @nr_entries is counted
 * exactly once in @hits, @inserts or one of the @drops_* counters. The
 * lifetime counters are sums of per-CPU counters (and, with
 * %STACKDEPOT_LF_COUNT_REFS, of the records' hit counters) read without
 * stopping writers, so they may lag concurrent calls.
 */
struct stackdepot_lf_stats {
	u32 generation;
	u32 resetting;
	u32 index_bits;
	u32 records;
	u32 max_records;
	u32 max_depth;
	u32 table_slots;
	u32 chunks;
	u32 chunk_size;
	u64 arena_used;
	u64 arena_lost;
	u64 chunk_ends;
	u64 mem_used;
	u64 mem_allocated;
	u64 hits;
	u64 inserts;
	u64 lost_races;
	u64 drops_full;
	u64 drops_grow;
	u64 drops_probe;
	u64 drops_too_deep;
	u64 drops_busy;
	u64 drops_context;
	u64 resets;
};

/**
 * struct stackdepot_lf_iter - cursor over the records of one generation
 * @depot: the depot being walked
 * @resets: resets of the depot before the walk started
 * @state: generation state the walk started in
 * @pos: next hash table slot to examine
 *
 * Initialise with stackdepot_lf_iter_start(); the fields are private.
 */
struct stackdepot_lf_iter {
	struct stackdepot_lf *depot;
	u64 resets;
	u32 state;
	u32 pos;
};

/**
 * stackdepot_lf_id_to_u32() - raw value of an id, for storage or export
 * @id: the id
 *
 * Return: @id as a plain integer.
 */
static inline u32 stackdepot_lf_id_to_u32(stackdepot_lf_id_t id)
{
	return (__force u32)id;
}

/**
 * stackdepot_lf_u32_to_id() - id from a raw value saved earlier
 * @val: a value returned by stackdepot_lf_id_to_u32(), or any u32
 *
 * Return: the id; lookup rejects values that are not ids of the current
 * generation.
 */
static inline stackdepot_lf_id_t stackdepot_lf_u32_to_id(u32 val)
{
	return (__force stackdepot_lf_id_t)val;
}

#ifdef CONFIG_STACKDEPOT_LF

/**
 * stackdepot_lf_create() - allocate an empty depot
 * @params: capacity; see struct stackdepot_lf_params for the ranges
 *
 * Allocates the table and room for @params->initial_records records (two
 * chunks at least). Further chunks are added by a work item, queued from
 * get_id through irq_work, so as to keep ready half as many chunks again
 * as a generation uses (one at least), until @params->max_records records
 * of @params->max_depth frames would fit. get_id may be called from the
 * earliest boot on: before the scheduler runs it does not queue growth,
 * and only the initial room is there.
 *
 * Context: Process context; may sleep.
 * Return: the depot, ERR_PTR(-EINVAL) if a parameter is out of range or the
 * depot's size does not fit in a size_t, ERR_PTR(-ENOMEM), or
 * ERR_PTR(-ENOSPC) if the depots hold every range of ids of its size (see
 * stackdepot_lf_release_ids()).
 */
struct stackdepot_lf *stackdepot_lf_create(const struct stackdepot_lf_params *params);

/**
 * stackdepot_lf_destroy() - free a depot
 * @depot: the depot, or NULL
 *
 * The caller guarantees that no other function is running on @depot and
 * that none will be called on it afterwards. The ids it issued may be
 * issued again by depots created later, once the system-wide cursor of
 * ids comes round to them: a user that reads ids after the depot is gone
 * reads them against no depot, or against one that releases only what
 * it knows unreadable (see stackdepot_lf_release_ids()).
 *
 * Context: Process context; may sleep.
 */
void stackdepot_lf_destroy(struct stackdepot_lf *depot);

/**
 * stackdepot_lf_caller_visible() - whether a grace period waits for the caller
 *
 * Reset waits with synchronize_rcu() for the callers of get_id, lookup and
 * iteration, and so does a user that frees a depot it published with
 * rcu_assign_pointer(). A grace period does not wait for code on a CPU
 * going offline once RCU has stopped waiting for it (the dying CPU still
 * runs smp_call_function_single() and the tracers that hook it), nor for
 * code where RCU is not watching (idle and early entry code). Those
 * callers get -EPERM from the depot; a user that looks up its depot
 * pointer under RCU uses stackdepot_lf_get_id_rcu(), or calls this first
 * and does not touch the pointer when it returns false. The test is the
 * CPU's bit in cpu_online_mask, which is set only while RCU waits for the
 * CPU, so it also refuses a CPU that is still coming up and already
 * watched: a safe, rare over-refusal.
 *
 * Context: Any context, with preemption disabled.
 * Return: true if the caller's preemption-disabled section is waited for
 * by synchronize_rcu().
 */
bool stackdepot_lf_caller_visible(void);

/**
 * stackdepot_lf_get_id() - id of a stack, storing the stack if it is new
 * @depot: the depot
 * @entries: return addresses, innermost first
 * @nr_entries: number of entries
 * @id: where to store the id on success
 *
 * Equal stacks get equal ids and different stacks different ids within a
 * generation, even when several CPUs insert the same new stack at once.
 * Lock-free: the call completes in a bounded number of its own steps unless
 * other callers keep winning the same allocation race.
 *
 * Context: Any context, including NMI and hard IRQ with interrupts off;
 * callers that a grace period would not wait for are refused (see
 * stackdepot_lf_caller_visible()). Never sleeps, never allocates.
 * Return: 0 and *@id set on success; -EINVAL if @depot is NULL or
 * @nr_entries is 0; -E2BIG if @nr_entries exceeds the depot's max depth;
 * -ENOSPC if the depot holds its capacity (one record short of it, also
 * while a concurrent insert holds a reservation it will give back), if
 * the chunk the record needs has not been added yet (growth is then
 * requested) or if all probed slots are taken; -EBUSY while a reset is
 * in progress; -EPERM if a grace period would not wait for the caller. On
 * error *@id is left untouched.
 */
int __must_check stackdepot_lf_get_id(struct stackdepot_lf *depot,
				      const unsigned long *entries,
				      unsigned int nr_entries,
				      stackdepot_lf_id_t *id);

/**
 * stackdepot_lf_get_id_rcu() - stackdepot_lf_get_id() on a depot under RCU
 * @depotp: where the owner publishes the depot with rcu_assign_pointer()
 *	(and unpublishes it before it frees it after synchronize_rcu()); the
 *	pointer may be NULL
 * @entries: return addresses, innermost first
 * @nr_entries: number of entries
 * @id: where to store the id on success
 * @first: if not NULL, where to store on success whether this call set the
 *	mark of the record: true for one call per record between the record's
 *	store, or stackdepot_lf_clear_marks(), and the next clearing (for two
 *	if a call races with the clearing), false for the others; NULL leaves
 *	the mark alone. With %STACKDEPOT_LF_CPU_MARKS, the mark is the
 *	calling CPU's: the first call per record per CPU is told true, and
 *	the caller keeps preemption disabled while it uses what it was told;
 *	a later call on that CPU may be told true again (the CPU keeps a
 *	few thousand records' marks, and a call nested in another's update
 *	of them, from an interrupt or NMI, is told true), but a call told
 *	false always follows one told true on its CPU since the clearing
 *
 * For owners that replace or free their depot while get_id may run: the
 * check that a grace period waits for the caller, the load of *@depotp
 * and the get_id happen in one read section, so that a refused caller
 * never touches the depot, which may be freed under it.
 *
 * With @first, a user can tell the first use of each stack since a point
 * of its choosing (the stack's store, or its last clearing of the marks),
 * for example to pass the stack on downstream once and its id afterwards.
 * A caller that is told false may return before the one told true has
 * passed the stack on.
 *
 * Context: As stackdepot_lf_get_id().
 * Return: as stackdepot_lf_get_id(), and -ENODEV if *@depotp is NULL.
 * -EPERM is not counted in the depot's statistics (the caller may count
 * it); every other outcome is. On error *@first is left untouched.
 */
int __must_check stackdepot_lf_get_id_rcu(struct stackdepot_lf __rcu *const *depotp,
					  const unsigned long *entries,
					  unsigned int nr_entries,
					  stackdepot_lf_id_t *id, bool *first);

/**
 * stackdepot_lf_lookup() - copy out the stack an id stands for
 * @depot: the depot
 * @id: an id returned by stackdepot_lf_get_id()
 * @entries: buffer for the stack, innermost first; NULL to copy nothing
 * @size: capacity of @entries in entries, unused if @entries is NULL
 * @info: if not NULL, filled with the record's id, depth and ref count
 *
 * An id of another generation or of another depot never resolves, even if
 * its slot has been reused, until the id space wraps (see the top of this
 * header for the bound); a copy never mixes two generations.
 *
 * Context: Any context, including NMI.
 * Return: the stack depth on success; -EPERM if a grace period would not
 * wait for the caller; -EINVAL if @depot is NULL or @id is
 * not an id this depot could have issued; -ESTALE if @id is from another
 * generation or a reset is in progress; -ENOENT if the current generation
 * has no record at @id; -ENOSPC if @entries is not NULL and @size is
 * smaller than the depth (nothing is copied).
 */
int stackdepot_lf_lookup(struct stackdepot_lf *depot, stackdepot_lf_id_t id,
			 unsigned long *entries, unsigned int size,
			 struct stackdepot_lf_info *info);

/**
 * stackdepot_lf_reset() - empty the depot and start a new generation
 * @depot: the depot
 *
 * The chunks stay allocated for the next generation, which usually stores
 * much the same stacks again, so that it drops none while they are added
 * back; they are freed with the depot.
 *
 * New get_id calls fail with -EBUSY until the reset is complete; calls
 * already running are waited for with synchronize_rcu(). Afterwards all
 * ids issued before the reset resolve to -ESTALE, and so do all walks
 * started before it, however many resets followed. Concurrent resets are
 * serialised.
 *
 * The range of ids of the old generation stays the depot's, as do those
 * of the generations before, until its user calls
 * stackdepot_lf_release_ids(): no other generation of any depot is given
 * an id a trace may still hold. Should the depots hold every range, the
 * depot stays empty and busy (get_id fails with -EBUSY) until then, or
 * until a later reset finds a range that other depots released.
 *
 * Context: Process context; sleeps.
 */
void stackdepot_lf_reset(struct stackdepot_lf *depot);

/**
 * stackdepot_lf_release_ids() - let the ids of past generations be reused
 * @depot: the depot, or NULL
 *
 * For a user that knows no id @depot issued before its current
 * generation can be read any more: the trace or map that kept them was
 * cleared or freed. Their ranges may then be given to later generations,
 * of @depot or of other depots, once the system-wide cursor of ids comes
 * round to them; until then a reset never gives out an id that an earlier
 * generation issued. A depot that a reset left busy for want of a range
 * releases them all and takes the first free range.
 *
 * Context: Process context; sleeps.
 */
void stackdepot_lf_release_ids(struct stackdepot_lf *depot);

/**
 * stackdepot_lf_clear_marks() - clear the mark of every record
 * @depot: the depot, or NULL
 *
 * Afterwards the next stackdepot_lf_get_id_rcu() call that asks for the
 * mark of a record is told it set it, as after the record's store. A
 * reset clears the marks too. Calls running meanwhile may find their mark
 * cleared after they set it; the record's next caller is then told true
 * again. The clearing is fully ordered: a call that sets a mark the
 * clearing leaves set sees the caller's stores made before the clearing,
 * and the marks are clear before the caller's later accesses. A call
 * that loaded a mark before it was cleared may be told false: the
 * record's next caller is told true.
 *
 * Context: Any context. With %STACKDEPOT_LF_CPU_MARKS, one atomic
 * operation (each CPU's next call that asks starts a new epoch of its
 * marks, and wipes its 4 KiB once in many); without, takes time in
 * proportion to the table size (a bit per slot, 4 KiB for 32768 slots).
 */
void stackdepot_lf_clear_marks(struct stackdepot_lf *depot);

/**
 * stackdepot_lf_clear_cpu_marks() - clear the calling CPU's marks
 * @depot: the depot, or NULL
 *
 * As stackdepot_lf_clear_marks(), for the marks of the calling CPU alone
 * in a depot created with %STACKDEPOT_LF_CPU_MARKS (all of them without):
 * that CPU's next call that asks for the mark of a record is told it set
 * it; the other CPUs' marks stay as they are. Equally fully ordered.
 *
 * Context: Any context, with preemption disabled. With
 * %STACKDEPOT_LF_CPU_MARKS, one atomic operation; without, takes time in
 * proportion to the table size (a bit per slot).
 */
void stackdepot_lf_clear_cpu_marks(struct stackdepot_lf *depot);

/**
 * stackdepot_lf_unmark() - give back the mark of one record
 * @depot: the depot, or NULL
 * @id: the id whose mark a caller was told it set
 *
 * For a caller that was told it set the mark but could not do what the
 * mark stands for (its user could not pass the stack on): the record's
 * next caller that asks is told it set the mark (with
 * %STACKDEPOT_LF_CPU_MARKS, the next on the calling CPU, whose mark is
 * given back). Nothing happens if @id is not an id of the current
 * generation, or the caller is one a grace period would not wait for.
 *
 * Context: Any context, including NMI; with %STACKDEPOT_LF_CPU_MARKS, on
 * the CPU of the call that set the mark, preemption disabled since.
 */
void stackdepot_lf_unmark(struct stackdepot_lf *depot, stackdepot_lf_id_t id);

/**
 * stackdepot_lf_generation() - current generation tag of a depot
 * @depot: the depot
 *
 * Context: Any context.
 * Return: the tag that ids of the current generation carry, the bits of
 * their value above the table index (stackdepot_lf_index_bits()); 0 if
 * @depot is NULL. During a reset, or while a reset waits for a range of
 * ids (stackdepot_lf_release_ids()), the tag of the generation cleared.
 */
u32 stackdepot_lf_generation(struct stackdepot_lf *depot);

/**
 * stackdepot_lf_iter_start() - begin a walk over the current generation
 * @iter: the cursor to initialise
 * @depot: the depot
 *
 * Context: Any context.
 */
void stackdepot_lf_iter_start(struct stackdepot_lf_iter *iter,
			      struct stackdepot_lf *depot);

/**
 * stackdepot_lf_iter_next() - copy out the next record of a walk
 * @iter: a cursor set up by stackdepot_lf_iter_start()
 * @entries: buffer for the stack; NULL to learn only @info
 * @size: capacity of @entries; the depot's max depth always suffices;
 *	unused if @entries is NULL
 * @info: filled with the record's id, depth and ref count
 *
 * A walk returns every record that existed when it started exactly once,
 * and records added during the walk at most once. Calls of one walk may be
 * spread over sleeps.
 *
 * Context: Any context.
 * Return: the depth of the record copied; 0 at the end of the walk;
 * -EPERM if a grace period would not wait for the caller; -ESTALE if the
 * depot was reset since stackdepot_lf_iter_start(), or was being reset or
 * refused the caller when the walk started (every later call returns
 * -ESTALE too); -ENOSPC if @entries is not NULL and @size is too small
 * for the next record (the walk does not advance).
 */
int stackdepot_lf_iter_next(struct stackdepot_lf_iter *iter,
			    unsigned long *entries, unsigned int size,
			    struct stackdepot_lf_info *info);

/**
 * stackdepot_lf_stats() - read the depot's counters
 * @depot: the depot
 * @stats: filled in
 *
 * With %STACKDEPOT_LF_COUNT_REFS, @stats->hits is summed over the hit
 * counters of every record, so the call takes time in proportion to the
 * records stored.
 *
 * Context: Any context.
 */
void stackdepot_lf_stats(struct stackdepot_lf *depot,
			 struct stackdepot_lf_stats *stats);

/**
 * stackdepot_lf_index_bits() - how a depot splits its ids
 * @params: capacity, as for stackdepot_lf_create()
 *
 * A reader that keeps ids apart from the depot (a file format, say) can
 * tell generations apart with it: the high bits of an id are its
 * generation tag (stackdepot_lf_generation()).
 *
 * Context: Any context.
 * Return: the number of low bits of an id that index the table of a depot
 * created with @params, or 0 if @params is out of range.
 */
u32 stackdepot_lf_index_bits(const struct stackdepot_lf_params *params);

#else /* !CONFIG_STACKDEPOT_LF */

static inline bool stackdepot_lf_caller_visible(void)
{
	return false;
}

static inline struct stackdepot_lf *
stackdepot_lf_create(const struct stackdepot_lf_params *params)
{
	return ERR_PTR(-EOPNOTSUPP);
}

static inline void stackdepot_lf_destroy(struct stackdepot_lf *depot) { }

static inline int __must_check
stackdepot_lf_get_id(struct stackdepot_lf *depot, const unsigned long *entries,
		     unsigned int nr_entries, stackdepot_lf_id_t *id)
{
	return -EINVAL;
}

static inline int __must_check
stackdepot_lf_get_id_rcu(struct stackdepot_lf __rcu *const *depotp,
			 const unsigned long *entries, unsigned int nr_entries,
			 stackdepot_lf_id_t *id, bool *first)
{
	return -EINVAL;
}

static inline int stackdepot_lf_lookup(struct stackdepot_lf *depot,
				       stackdepot_lf_id_t id,
				       unsigned long *entries,
				       unsigned int size,
				       struct stackdepot_lf_info *info)
{
	return -EINVAL;
}

static inline void stackdepot_lf_reset(struct stackdepot_lf *depot) { }

static inline void stackdepot_lf_release_ids(struct stackdepot_lf *depot) { }

static inline void stackdepot_lf_clear_marks(struct stackdepot_lf *depot) { }

static inline void stackdepot_lf_clear_cpu_marks(struct stackdepot_lf *depot) { }

static inline void stackdepot_lf_unmark(struct stackdepot_lf *depot,
					stackdepot_lf_id_t id) { }

static inline u32 stackdepot_lf_generation(struct stackdepot_lf *depot)
{
	return 0;
}

static inline void stackdepot_lf_iter_start(struct stackdepot_lf_iter *iter,
					    struct stackdepot_lf *depot)
{
	iter->depot = depot;
	iter->resets = 0;
	iter->state = 0;
	iter->pos = 0;
}

static inline int stackdepot_lf_iter_next(struct stackdepot_lf_iter *iter,
					  unsigned long *entries,
					  unsigned int size,
					  struct stackdepot_lf_info *info)
{
	return 0;
}

static inline void stackdepot_lf_stats(struct stackdepot_lf *depot,
				       struct stackdepot_lf_stats *stats)
{
	*stats = (struct stackdepot_lf_stats){ };
}

static inline u32
stackdepot_lf_index_bits(const struct stackdepot_lf_params *params)
{
	return 0;
}

#endif /* CONFIG_STACKDEPOT_LF */

#endif /* _LINUX_STACKDEPOT_LF_H */
