// SPDX-License-Identifier: GPL-2.0
/*
 * stackdepot_lf - lock-free, generation-aware stack trace deduplication
 *
 * Layout
 * ------
 * A depot is an open-addressing hash table of u32 slots plus records
 * (struct sdlf_record: an 8-byte header and the frames) stored in chunks.
 * A slot is 0 while empty; otherwise it holds its record's position plus
 * one, in 8-byte granules counted across the chunks: chunk (val - 1) >>
 * @chunk_shift, granule (val - 1) within it. Within a generation a slot
 * changes at most once, from 0 to its record, and a published record never
 * changes, so readers need no retry loop. Each record also has a record
 * number, its rank among the generation's records, which indexes its hit
 * counters.
 *
 * Growth
 * ------
 * The table is the only part sized by the capacity. A depot starts with
 * room for @initial_records records of the expected depth and a spare
 * chunk (two chunks at least); more are added by sdlf_grow() in a work
 * item, which get_id queues through irq_work (safe in NMI) once the chunks
 * ready past the one a record lands in are fewer than sdlf_spare() asks:
 * half as many as are in use, one at least. The spare grows with the
 * stacks stored, so that the burst of new stacks that comes while the work
 * item waits to run finds room however far the depot has grown, and the
 * chunks allocated ahead of need stay under half of those in use. Blocks
 * of hit counters, SDLF_REF_BLOCK record numbers each, are kept ahead the
 * same way. get_id itself never allocates: a record that needs a chunk or
 * counter block not yet added fails with -ENOSPC, counted in drops_grow,
 * and requests growth again. Before the scheduler runs (system_state is
 * SYSTEM_BOOTING) nothing is requested: no work item could run, and the
 * interrupt controller that irq_work raises may not be set up yet; the
 * first insert after that asks, and the initial room carries boot until
 * then. The chunk directory (->chunks) is replaced by a larger copy when
 * it fills, and the old one is freed after a grace period. A reset keeps
 * every chunk and counter block.
 *
 * Ids
 * ---
 * Each generation of each depot is given a range of 2^@index_bits ids, as
 * many as its table has slots, aligned to its size: the id of slot @pos is
 * the base of the range plus @pos, and the generation tag is the id above
 * @index_bits. Ranges are handed out system-wide in order (sdlf_ids_alloc()),
 * so an id resolves in the one depot and generation it came from, and in
 * no other. Ids outlive their generation (a trace keeps them), so a depot
 * holds the ranges of its past generations too, until its user says that
 * none of their ids can be read any more (stackdepot_lf_release_ids()) or
 * destroys it: the ranges from @ids_hold, its oldest range not released,
 * to the end of its current one. That hull may hold other depots' ranges
 * too, which is only wasteful. Past the end of the space the cursor
 * starts again at the first range and skips what the depots hold, so that
 * a range is never handed out while an id of it may still be read: an id
 * read against its depot resolves in its own generation or not at all. If
 * the depots hold every range, a reset leaves the depot busy (get_id
 * fails with -EBUSY, and the caller keeps its full stack) until its user
 * releases what it holds. Range 0 is never handed out, so 0 is never an
 * id.
 *
 * Marks
 * -----
 * A get_id caller that asks for the mark of the record it gets learns
 * whether it is the first to ask since a point of its choosing (ftrace
 * writes a stack's definition into its trace buffer then): since the
 * record's store, or stackdepot_lf_clear_marks(), and, with
 * STACKDEPOT_LF_CPU_MARKS, stackdepot_lf_clear_cpu_marks() of its CPU.
 * A caller that could not do what the mark stood for gives it back
 * (stackdepot_lf_unmark()). A caller told "first" when another was told
 * so already only does the work twice; one told "not first" when nobody
 * did it loses what the mark stands for (a stack for ftrace's readers).
 * Only the first kind of error is allowed, and only per CPU.
 *
 * Marks are the record's, by record number (an id names a slot, whose
 * record gives the number to stackdepot_lf_unmark()): numbers are dense
 * from 0, so that a depot of few stacks uses the start of its marks.
 *
 * Without STACKDEPOT_LF_CPU_MARKS, one mark bit per record number
 * (->marks), set with test_and_set_bit() by any CPU, is exact: one caller
 * per record between clearings. It costs a bit per slot, whatever the
 * CPUs.
 *
 * With STACKDEPOT_LF_CPU_MARKS, a bit per slot per CPU would cost the
 * capacity times the CPUs (128 KiB per CPU at the largest capacity) and
 * a clearing would walk all of it. Instead each CPU keeps a small cache
 * of the records it was told "first" for: SDLF_MARK_SETS sets of four u16
 * entries (4 KiB), fewer sets when the table has fewer slots (the cache
 * is then exact). The set is picked by the low bits of the record number,
 * and an entry holds the number's other bits (its tag) and the CPU's
 * epoch when it was told "first" for it. Numbers being dense, the cache
 * holds the first SDLF_MARK_SETS x 4 records of a generation (2048)
 * without evicting any: a depot of that many stacks has exact marks. A
 * set is one u64, so that a hit compares its four entries at once.
 * Clearing does not touch the caches: stackdepot_lf_clear_marks() and
 * reset add one to the depot's count of clearings (->mark_clears),
 * stackdepot_lf_clear_cpu_marks() to its CPU's (->mark_cpu_clears); the
 * CPU's next call that asks for a mark sees a sum that moved and starts a
 * new epoch, in which no older entry matches. Epochs grow by one; before
 * the entry's epoch field would wrap, the CPU wipes its cache (4 KiB,
 * once in 2^(16 - tag bits) - 1 clearings: 31 at the largest capacity,
 * 1023 at 32768 slots) and starts again from epoch 1. A caller is told
 * "not first" only if an entry holds its number's tag and the current
 * epoch; otherwise it writes that entry in the first way of the set,
 * moving the others up one and evicting the oldest (a later call for the
 * evicted record is told "first" again: the harmless error). So the memory
 * is a few KiB per CPU at any capacity, a clearing is one atomic add, and
 * its cost moves to each CPU's next call: a compare, and a wipe of 4 KiB
 * once in many clearings. A hit moves nothing, so that it writes nothing
 * and needs no section (below): the ways are in order of insertion, not
 * of use. On the userspace benchmark's calls (4096 stacks drawn by Zipf's
 * law, twice what the cache holds) a simulation evicts on 13.3% of the
 * calls in that order, 11.4% in order of use. Four ways rather than two
 * in the same 4 KiB: on the ids of make run's boot traced from the
 * command line (2,879 and 1,374 stacks on its two CPUs, no clearing), a
 * simulation of the cache in order of use tells "first" 2,887 and 1,379
 * times with four ways, 3,337 and 1,749 with two, where exact marks tell
 * 2,879 and 1,374.
 *
 * Why "not first" is never wrong. Every write to a CPU's cache, its
 * epoch and the sum it last saw is made by that CPU in a section
 * (sdlf_mark_enter()) that a nested context (an interrupt or NMI of the
 * same CPU, while preemption is disabled as get_id requires) cannot
 * enter: a nested call that finds the section taken and needs one is
 * told "first" and writes nothing. So sections run one at a time on a
 * CPU, each from start to end, and the cache behaves as a sequential
 * structure. In it: (1) an entry is written only as "this record, the
 * current epoch" by a caller then told "first", or as 0 (empty: epoch 0
 * is never current) by unmark and by the wipe, or moved whole to another
 * way of its set, a set being written whole; (2) the epoch changes only
 * from e to e + 1, or from the last value to 1 after the wipe, so no
 * entry written before the change matches after it: within one cycle of
 * epochs their values only grow, and a cycle starts with an empty cache;
 * (3) a section starts a new epoch before any lookup if the sum of the
 * depot's and its CPU's clearings differs from the sum it folded in last,
 * and stores that sum after the new epoch and the wipe.
 * Hence a caller told "not first" in a section for record number @nr
 * found an entry that a caller of its CPU told "first" for @nr wrote in the
 * current epoch, after the epoch started, after every clearing whose
 * count the section read, and that nobody gave back since. A hit told
 * "not first" outside a section (sdlf_mark_cpu()) reads the count of
 * clearings, the sum its CPU folded in, the epoch and the set, in that
 * order, each whole, and writes nothing; a section nested in it runs
 * whole between two of its loads, and a section it is nested in is
 * stopped between two of its stores, in program order. If the sum it
 * reads equals the count it read, its CPU had folded in every clearing
 * that count holds, and (3) had stored the epoch of that sum and wiped
 * before; the epoch it reads then is that one or, if a nested section
 * folded in a clearing since, a later one (which the hit may use: it
 * read the count before that clearing, like a call running during it).
 * Either way every entry of that epoch in the set it reads was written
 * after the epoch started by a caller told "first" (a section stopped
 * half-way has written whole entries only), and was not given back
 * when the set was read. The sum could only come back
 * to a value a CPU folded in after 2^BITS_PER_LONG clearings between two
 * of its calls. Reset adds to the count before it publishes the next
 * generation, so a record of the next generation never matches an entry
 * of the last (its callers load the state with acquire, then the count).
 *
 * Clearing races with callers as follows. A caller that read the count
 * before it moved may be told "not first", as a call running during the
 * clearing; the next call after the clearing starts a new epoch and is
 * told "first". A caller that read the moved count starts a new epoch:
 * the count is loaded with acquire, pairing with the fully ordered
 * atomic_long_inc_return() of the clearing, so a caller whose mark the
 * clearing leaves set sees what the clearer stored before it.
 *
 * Coding conventions in this file: @depot is the depot, @val a slot value,
 * @pos a slot index, @state the generation state word (the base of the
 * generation's id range, with the busy bit set during a reset).
 *
 * Ordering guarantees
 * -------------------
 * - Publication: an inserter reserves chunk space and a record number,
 *   writes the whole record with plain stores, then publishes it with
 *   cmpxchg_release() on an empty slot. Every reader loads slots with
 *   smp_load_acquire(), so a record is complete before anyone can reach it.
 *   A half-built record is reachable by nobody; there is no "claimed but
 *   empty" slot state.
 * - Growth: sdlf_add_chunk() fills the directory entry and then publishes
 *   the chunk count with smp_store_release(); inserters read the count with
 *   smp_load_acquire() before using a chunk, and counter blocks go the same
 *   way. A reader reaches a chunk only through a published record, so it
 *   loads the directory pointer after the slot (rcu_dereference_sched(),
 *   pairing with the rcu_assign_pointer() of a new directory): it then sees
 *   a directory that holds the chunk. Old directories are freed only after
 *   sdlf_synchronize(), so a reader's copy stays valid for its section.
 * - Generations: get_id, lookup and every step of an iteration run inside
 *   sdlf_read_lock() and start with smp_load_acquire() of @state. Reset
 *   sets the busy bit, waits for all read sections with sdlf_synchronize(),
 *   clears the table and counters with no reader or writer left that saw
 *   the old generation, counts the reset, and publishes the next range with
 *   smp_store_release(). Hence a caller that sees a generation sees that
 *   generation's table and reset count, and nobody observes a record while
 *   it is cleared or rewritten. That holds only for callers a grace period
 *   waits for: sdlf_read_lock() tells the others (a CPU going offline after
 *   RCU stopped waiting for it, code where RCU is not watching), which get
 *   -EPERM having read only the depot's constant fields and counted in its
 *   per-CPU statistics: the depot itself must still be valid for them.
 * - Chunk space and record numbers reused within a generation: a caller
 *   that lost a publication race gives its unpublished record's space and
 *   number back with a release cmpxchg, and allocations take them with an
 *   acquire cmpxchg, so the loser's stores are ordered before the next
 *   owner's. A record whose number others took after cannot be given
 *   back: its CPU keeps it, space and number, for its next insert. Only
 *   that CPU, its interrupts and NMIs touch the kept record, each taking
 *   or putting it with one xchg(), so that program order on the one CPU
 *   orders its stores; reset clears it with no caller left.
 * - Hit counts (%STACKDEPOT_LF_COUNT_REFS) are relaxed atomics in counter
 *   blocks indexed by record number, apart from the records so that the hit
 *   path does not dirty the cache lines that other CPUs compare against.
 *   Each CPU counts into one of up to SDLF_REF_STRIPES stripes of a block,
 *   SDLF_REF_BLOCK counters apart (its own stripe, on machines with that
 *   few CPUs), so that CPUs hitting the same hot stack do not bounce one
 *   cache line between them; readers sum the stripes. Such depots keep no
 *   other hit counter: their hits are the sum of the ref counts, which are
 *   longs so that a hot stack's count does not wrap on 64-bit.
 * - Marks without STACKDEPOT_LF_CPU_MARKS are atomic bit operations that
 *   publish nothing: test_and_set_bit() decides which caller sets a mark,
 *   and the test_bit() before it keeps the callers of a marked record
 *   from writing its cache line. Reset clears them in its window with no
 *   caller left, before it publishes the next generation;
 *   stackdepot_lf_clear_marks() clears them under running callers one
 *   word at a time with xchg(), so that a caller racing with it may find
 *   its mark cleared just after setting it, and a second caller then sets
 *   it again: a clearing may elect two callers, never none. A caller that
 *   reads a word just before a clearing and tests a bit of it is told
 *   "not first" as before the clearing: the next caller is told "first".
 *   It skips the words it finds clear, so smp_mb() before and after it
 *   makes it fully ordered: pairing with the full barrier of
 *   test_and_set_bit(), a caller that sets a mark the clearing left set
 *   sees what the clearer stored before it (ftrace's swap of buffers).
 *   stackdepot_lf_unmark() clears one bit with clear_bit(), after
 *   checking in a read section that the id is of the current generation,
 *   whose reset would clear the bit anyway.
 * - Per-CPU marks (STACKDEPOT_LF_CPU_MARKS) are a CPU's own, touched only
 *   by it in sections nested contexts stay out of (see "Marks" above).
 *   The clearings are counted with atomic_long_inc_return(), fully
 *   ordered, and callers load the depot's count with acquire: a caller
 *   that sees a clearing sees what the clearer stored before it.
 * - The last-stack hint (sdlf_pcpu.last, see sdlf_get_id()) publishes
 *   nothing either: its CPU, that CPU's interrupts and NMIs read and write
 *   it whole with READ_ONCE() and WRITE_ONCE(), and a caller loads the
 *   slot it names with acquire like any other and takes it only if the
 *   record there holds its frames. Reset leaves it: an id of an earlier
 *   generation names no slot of the next, or, once the ids have gone
 *   round, a slot whose record is checked all the same.
 * - Statistics are per-CPU local64_t counters, incremented with preemption
 *   disabled (NMI-safe where the depot can be built at all, see Kconfig)
 *   and summed without synchronisation.
 *
 * Progress guarantees
 * -------------------
 * - get_id is lock-free: it probes at most SDLF_MAX_PROBE slots, and its
 *   only loops that can repeat are the compare-and-swap loops reserving
 *   chunk space and a record number, which fail only when another caller
 *   succeeded. Queueing an irq_work takes a few atomic operations (and
 *   on x86 a self-IPI); it never waits for the work to run.
 * - lookup is wait-free. An iteration step is wait-free, bounded by the
 *   table size.
 * - reset blocks: it takes a mutex and waits for an RCU grace period. It
 *   never waits for a get_id caller beyond that caller's bounded section.
 *   Growth runs in a work item, takes its own mutex and allocates with
 *   GFP_KERNEL; nothing on the get_id path waits for it.
 */

#include "stackdepot_lf_internal.h"

#define SDLF_BUSY		1U
/* Iterator state of a walk that saw a reset; odd, so never a live state */
#define SDLF_ITER_STALE		U32_MAX
#define SDLF_GRANULE		8U
/* Slots an insert examines before it gives up; no table has fewer */
#define SDLF_MAX_PROBE		32U
static_assert(SDLF_MAX_PROBE <= 2 * STACKDEPOT_LF_MIN_RECORDS);
/* Stripes of the hit counters; a power of two */
#define SDLF_REF_STRIPES	8U
/* Record numbers per block of hit counters */
#define SDLF_REF_BLOCK		256U
#define SDLF_REF_BLOCK_SHIFT	ilog2(SDLF_REF_BLOCK)
/* sdlf_record.meta: the depth in the low bits, the record number above */
#define SDLF_DEPTH_BITS		9
#define SDLF_DEPTH_MASK		((1U << SDLF_DEPTH_BITS) - 1)
/* Records of the expected depth a chunk is sized for */
#define SDLF_CHUNK_RECORDS	32U
/* Chunks are 4 KiB to 64 KiB; in granules, log2 */
#define SDLF_MIN_CHUNK_SHIFT	9
#define SDLF_MAX_CHUNK_SHIFT	13
/* Entries of a new chunk directory */
#define SDLF_DIR_MIN		8U
/*
 * Sets of a CPU's marks (STACKDEPOT_LF_CPU_MARKS), of four u16 entries
 * each, unless the table has fewer slots than entries: 4 KiB per CPU.
 * See "Marks" above for why four ways and not two.
 */
#define SDLF_MARK_SETS		512U
#define SDLF_MARK_WAYS		4U
/* A u16 in each way of a set, and their top bits */
#define SDLF_MARK_LANES_LO	0x0001000100010001ULL
#define SDLF_MARK_LANES_HI	0x8000800080008000ULL
static_assert(SDLF_MARK_WAYS * 16 == 64);
/* An entry's epoch field keeps a few bits at the largest capacity. */
static_assert(ilog2(2 * STACKDEPOT_LF_MAX_RECORDS) - ilog2(SDLF_MARK_SETS) <= 12);

struct sdlf_record {
	u32 hash;
	u32 meta;
	unsigned long entries[];
};

/*
 * Per-CPU statistics, and the record a lost race kept for the next insert.
 * What a hit reads comes first, on the line it loads anyway.
 */
struct sdlf_pcpu {
	u32 last;		/* id of this CPU's last get_id: sdlf_get_id() */
	u32 ref_stripe;
	/*
	 * Set at create, so that a hit loads them instead of computing them
	 * from the CPU number: the marks (the depot's bitmap, or this CPU's
	 * cache of sets of SDLF_MARK_WAYS u16 entries with CPU marks) and
	 * this CPU's stripe of the hit counters (sdlf_count_hit()).
	 */
	void *marks;
	/*
	 * With CPU marks, see "Marks" above: this CPU's alone, written in
	 * its sections, read by its hits outside them too.
	 */
	unsigned long mark_seen;	/* clearings folded in */
	u64 mark_base;		/* the epoch, in its place in every way's entry */
	bool mark_busy;		/* a section runs: sdlf_mark_enter() */
	atomic_long_t mark_cpu_clears;	/* stackdepot_lf_clear_cpu_marks() */
	local64_t hits;		/* only without STACKDEPOT_LF_COUNT_REFS */
	local64_t inserts;
	local64_t lost_races;
	local64_t drops_full;
	local64_t drops_grow;
	local64_t drops_probe;
	local64_t drops_too_deep;
	local64_t drops_busy;
	local64_t drops_context;
	u32 kept;		/* a lost race's record, or 0: sdlf_keep() */
};

struct stackdepot_lf {
	/* Read-mostly: set at create; @state changes on reset. */
	u32 state;
	u32 slot_mask;
	u32 index_bits;
	u32 max_records;
	u32 max_depth;
	u32 chunk_shift;	/* granules per chunk, log2 */
	u32 chunk_mask;		/* granules per chunk, minus one */
	u32 max_chunks;
	u32 ref_stripes;
	u32 max_ref_blocks;	/* 0 without STACKDEPOT_LF_COUNT_REFS */
	u32 mark_words;		/* longs of the bitmap, or of a CPU's cache */
	u32 mark_sets;		/* sets of a CPU's cache, 0 without CPU marks */
	u32 mark_tag_shift;	/* slot bits a set's index takes */
	u32 mark_epoch_shift;	/* slot bits an entry's tag takes */
	u32 mark_last_base;	/* the last epoch, shifted; see "Marks" above */
	atomic_long_t mark_clears;	/* clear_marks() and resets, CPU marks */
	u32 *slots;
	unsigned long *marks;	/* the bitmap, or every CPU's cache */
	u8 * __rcu *chunks;	/* chunk directory, replaced by growth */
	atomic_long_t **ref_blocks;	/* max_ref_blocks entries, or NULL */
	struct sdlf_pcpu __percpu *pcpu;

	/* Written by inserts, on its own cache line. */
	atomic_t nr_records ____cacheline_aligned;	/* numbers handed out */
	atomic_t arena_used;	/* granules, across the chunks */
	atomic_t arena_lost;	/* granules lost races could not give back */
	atomic_t chunk_ends;	/* granules skipped at the ends of chunks */
	atomic_t records_lost;	/* numbers lost races could not give back */
	/* Published by growth with release, read with acquire. */
	u32 nr_chunks;
	u32 nr_ref_blocks;

	/* Growth side. */
	struct irq_work grow_irq;
	struct work_struct grow_work;
	struct mutex grow_lock;	/* serialises growth */
	u32 dir_size;		/* entries of ->chunks; grow_lock */
#if IS_ENABLED(CONFIG_KUNIT)
	bool grow_paused;	/* sdlf_grow_pause(); grow_lock */
#endif
	size_t mem_allocated;	/* written under grow_lock */

	/* Id ranges, under sdlf_ids_lock; see "Ids" above. */
	struct list_head ids_node;	/* in sdlf_ids_live while @ids_held */
	bool ids_held;		/* holds the ranges from @ids_hold on */
	u32 ids_hold;		/* the oldest range whose ids may be read */
	u32 ids_base;		/* the range of the current (or last) generation */

	/* Reset side. */
	struct mutex reset_lock ____cacheline_aligned;
	atomic64_t resets;
	atomic64_t hits_base;	/* ref-counted hits of past generations */
};

/*
 * The next free id, system-wide: each generation of each depot takes the
 * next range of ids aligned to its table size that no depot holds (see
 * "Ids" above). sdlf_ids_live lists the depots that hold ranges.
 */
static DEFINE_MUTEX(sdlf_ids_lock);
static u64 sdlf_ids_next;
#if IS_ENABLED(CONFIG_KUNIT)
/*
 * The ids below it, 2^32 but while the KUnit suite makes it smaller
 * (sdlf_ids_set_space()) to reach its wrap in a few ranges.
 */
static u64 sdlf_ids_space = BIT_ULL(32);
#else
#define sdlf_ids_space	BIT_ULL(32)
#endif
static LIST_HEAD(sdlf_ids_live);

/* The end of the ids @depot holds: that of its current (or last) range. */
static u64 sdlf_ids_end(const struct stackdepot_lf *depot)
{
	return (u64)depot->ids_base + depot->slot_mask + 1;
}

/*
 * The depot that holds an id of [@base, @base + @slots), or NULL. A depot
 * holds the ids from @ids_hold to the end of its current range, round the
 * end of the space if its ranges wrapped since @ids_hold.
 */
static struct stackdepot_lf *sdlf_ids_holder(u64 base, u32 slots)
{
	struct stackdepot_lf *depot;
	u64 hold, end;

	lockdep_assert_held(&sdlf_ids_lock);
	list_for_each_entry(depot, &sdlf_ids_live, ids_node) {
		hold = depot->ids_hold;
		end = sdlf_ids_end(depot);
		if (hold < end ? base < end && hold < base + slots :
				 base < end || hold < base + slots)
			return depot;
	}
	return NULL;
}

/*
 * The first range of @slots ids from the cursor on that no depot holds,
 * going round the space once; 0 if they hold every one.
 */
static u64 sdlf_ids_find(u32 slots)
{
	u64 start = ALIGN(sdlf_ids_next, (u64)slots), base;
	struct stackdepot_lf *holder;
	bool wrapped = false;

	lockdep_assert_held(&sdlf_ids_lock);
	/* Range 0 would hold id 0; past the last range, the first. */
	if (!start || start + slots > sdlf_ids_space)
		start = slots;
	base = start;
	for (;;) {
		holder = sdlf_ids_holder(base, slots);
		if (!holder)
			return base;
		/* Past what the holder holds: its end, or round the space. */
		if (base < sdlf_ids_end(holder))
			base = ALIGN(sdlf_ids_end(holder), (u64)slots);
		else
			base = sdlf_ids_space;
		if (base + slots > sdlf_ids_space) {
			if (wrapped)
				return 0;
			wrapped = true;
			base = slots;
		}
		/* Back where it started: every range is held. */
		if (wrapped && base >= start)
			return 0;
	}
}

/*
 * Take the id range of a new generation of @depot, whose table has @slots
 * slots; the ranges @depot held stay held. Returns the range's base, or 0
 * if every range is held.
 */
static u32 sdlf_ids_alloc(struct stackdepot_lf *depot, u32 slots)
{
	u64 base;

	mutex_lock(&sdlf_ids_lock);
	base = sdlf_ids_find(slots);
	if (base) {
		sdlf_ids_next = base + slots;
		if (!depot->ids_held) {
			list_add(&depot->ids_node, &sdlf_ids_live);
			depot->ids_held = true;
			depot->ids_hold = base;
		}
		depot->ids_base = base;
	}
	mutex_unlock(&sdlf_ids_lock);
	return base;
}

/* The ranges @depot holds may be handed out again: it holds none. */
static void sdlf_ids_free(struct stackdepot_lf *depot)
{
	mutex_lock(&sdlf_ids_lock);
	if (depot->ids_held) {
		list_del(&depot->ids_node);
		depot->ids_held = false;
	}
	mutex_unlock(&sdlf_ids_lock);
}

#if IS_ENABLED(CONFIG_KUNIT)
/*
 * Move the system-wide id cursor, so that the KUnit suite can reach the
 * wrap of the id space without 2^32 ids' worth of resets. Returns the old
 * cursor, which the suite puts back: ranges must not be handed out twice.
 */
u64 sdlf_ids_set_next(u64 next)
{
	u64 old;

	mutex_lock(&sdlf_ids_lock);
	old = sdlf_ids_next;
	sdlf_ids_next = next;
	mutex_unlock(&sdlf_ids_lock);
	return old;
}
EXPORT_SYMBOL_IF_KUNIT(sdlf_ids_set_next);

/*
 * Make the id space @space ids, a power of two no smaller than the
 * tables that take ranges meanwhile, so that the KUnit suite can reach
 * its wrap with depots of several sizes. Returns the old size, which the
 * suite puts back with the old cursor.
 */
u64 sdlf_ids_set_space(u64 space)
{
	u64 old;

	mutex_lock(&sdlf_ids_lock);
	old = sdlf_ids_space;
	sdlf_ids_space = space;
	mutex_unlock(&sdlf_ids_lock);
	return old;
}
EXPORT_SYMBOL_IF_KUNIT(sdlf_ids_set_space);
#endif

/* Count an event of the calling CPU; called in a read section. */
static __always_inline void sdlf_count(local64_t __percpu *counter)
{
	local64_inc(raw_cpu_ptr(counter));
}

static __always_inline u64 sdlf_mix(u64 h, unsigned long entry)
{
	return ((h << 23 | h >> 41) ^ entry) * 0xff51afd7ed558ccdULL;
}

/*
 * Four independent lanes, each taking every fourth frame, so that the
 * multiplies of a stack overlap instead of waiting for each other, and
 * three instructions a frame: the hash is most of the cost of a hit. The
 * rotation feeds the well-mixed high bits of a product into the low bits
 * of the next; rotating the lanes apart before combining them keeps
 * frames that trade lanes from hashing alike. Only the first lane needs a
 * seed (and the depth): the others start at 0 and so cost nothing until
 * their first frame. The high half of a last
 * product, after folding the high bits down, depends on every bit of the
 * lanes, and is what the slot index and the record's check take.
 * Visible to the KUnit suite, which replaces it to make stacks collide.
 */
VISIBLE_IF_KUNIT __always_inline
u32 sdlf_hash(const unsigned long *entries, unsigned int nr_entries)
{
	const unsigned long *end = entries + nr_entries;
	const unsigned long *end4 = entries + (nr_entries & ~3U);
	u64 a = 0x9e3779b97f4a7c15ULL ^ nr_entries, b = 0, c = 0, d = 0, h;

	/* The stub lookup takes a spinlock: never from NMI. */
	if (!in_nmi())
		KUNIT_STATIC_STUB_REDIRECT(sdlf_hash, entries, nr_entries);

	/* Pointers, not indices: no index arithmetic per frame. */
	for (; entries < end4; entries += 4) {
		a = sdlf_mix(a, entries[0]);
		b = sdlf_mix(b, entries[1]);
		c = sdlf_mix(c, entries[2]);
		d = sdlf_mix(d, entries[3]);
	}
	for (; entries < end; entries++)
		a = sdlf_mix(a, *entries);

	h = a ^ (b << 16 | b >> 48) ^ (c << 32 | c >> 32) ^ (d << 48 | d >> 16);
	h ^= h >> 29;
	return (h * 0xc4ceb9fe1a85ec53ULL) >> 32;
}
EXPORT_SYMBOL_IF_KUNIT(sdlf_hash);

/*
 * The record at granule @pos (a slot value minus one). The caller reached
 * @pos through a slot or a chunk count loaded with acquire, so the
 * directory it loads now holds the chunk; called in a read section.
 */
static __always_inline struct sdlf_record *
sdlf_record_at(struct stackdepot_lf *depot, u32 pos)
{
	/* Pairs with rcu_assign_pointer() in sdlf_dir_grow(). */
	u8 **dir = rcu_dereference_sched(depot->chunks);

	return (struct sdlf_record *)(dir[pos >> depot->chunk_shift] +
				      (size_t)(pos & depot->chunk_mask) *
				      SDLF_GRANULE);
}

static __always_inline struct sdlf_record *
sdlf_record(struct stackdepot_lf *depot, u32 val)
{
	return sdlf_record_at(depot, val - 1);
}

static __always_inline u32 sdlf_record_nr(const struct sdlf_record *rec)
{
	return rec->meta >> SDLF_DEPTH_BITS;
}

static __always_inline u32 sdlf_record_depth(const struct sdlf_record *rec)
{
	return rec->meta & SDLF_DEPTH_MASK;
}

/* The hit counter of record number @nr in stripe @stripe */
static __always_inline atomic_long_t *
sdlf_ref(struct stackdepot_lf *depot, u32 nr, u32 stripe)
{
	return &depot->ref_blocks[nr >> SDLF_REF_BLOCK_SHIFT]
		[stripe * SDLF_REF_BLOCK + (nr & (SDLF_REF_BLOCK - 1))];
}

/* Count a hit on @rec by the CPU of @pc; called in a read section. */
static __always_inline void sdlf_count_hit(struct stackdepot_lf *depot,
					   struct sdlf_pcpu *pc,
					   const struct sdlf_record *rec)
{
	if (depot->ref_blocks)
		atomic_long_inc(sdlf_ref(depot, sdlf_record_nr(rec),
					 pc->ref_stripe));
	else
		local64_inc(&pc->hits);
}

/* Hits on record number @nr since it was stored */
static unsigned long sdlf_read_refs(struct stackdepot_lf *depot, u32 nr)
{
	unsigned long refs = 0;
	u32 stripe;

	for (stripe = 0; stripe < depot->ref_stripes; stripe++)
		refs += atomic_long_read(sdlf_ref(depot, nr, stripe));
	return refs;
}

/* Granules a record of @depth frames takes */
static inline u32 sdlf_record_granules(unsigned int depth)
{
	return STACKDEPOT_LF_RECORD_SIZE(depth) / SDLF_GRANULE;
}

/* The id of slot @pos in the generation of @state, which is not busy */
static inline stackdepot_lf_id_t sdlf_make_id(u32 state, u32 pos)
{
	return stackdepot_lf_u32_to_id(state | pos);
}

/*
 * Frames are whole words: comparing words beats memcmp(), which is a byte
 * loop on architectures without efficient unaligned access. Its callers
 * compare only stacks that almost always are equal (hash and depth match,
 * or depth and middle frame), whose every word gets compared anyway, so
 * the loop takes no early exit, and takes two frames a round.
 */
static __always_inline bool sdlf_frames_equal(const unsigned long *frame,
					      const unsigned long *entries,
					      unsigned int nr_entries)
{
	unsigned long diff = 0;
	size_t i = nr_entries & 1;

	if (i)
		diff = frame[0] ^ entries[0];
	for (; i < nr_entries; i += 2)
		diff |= (frame[i] ^ entries[i]) | (frame[i + 1] ^ entries[i + 1]);
	return !diff;
}

/* Is @rec, which the hash @hash of @entries led to, the stack @entries? */
static __always_inline bool sdlf_record_match(const struct sdlf_record *rec,
					      u32 hash,
					      const unsigned long *entries,
					      unsigned int nr_entries)
{
	return rec->hash == hash && sdlf_record_depth(rec) == nr_entries &&
	       sdlf_frames_equal(rec->entries, entries, nr_entries);
}

/*
 * Is @rec, which no hash led to, the stack @entries? The depth and one
 * frame from the middle first: stacks that share their outer frames (one
 * entry path) and innermost ones (one tracepoint) differ there, so that
 * another stack seldom costs a compare of every frame.
 */
static __always_inline bool sdlf_record_same(const struct sdlf_record *rec,
					     const unsigned long *entries,
					     unsigned int nr_entries)
{
	return sdlf_record_depth(rec) == nr_entries &&
	       rec->entries[nr_entries / 2] == entries[nr_entries / 2] &&
	       sdlf_frames_equal(rec->entries, entries, nr_entries);
}

/*
 * Chunks or counter blocks growth keeps ready past the @in_use ones that
 * hold records: half as many, one at least (see "Growth" above).
 */
static inline u32 sdlf_spare(u32 in_use)
{
	return max(in_use / 2, 1U);
}

/* Of @have chunks or blocks, @in_use hold records: is the spare short? */
static inline bool sdlf_spare_short(u32 in_use, u32 have, u32 max)
{
	return have < min(in_use + sdlf_spare(in_use), max);
}

/* Queue growth; any context, NMI included. */
static void sdlf_grow_request(struct stackdepot_lf *depot)
{
	/* No interrupt to raise yet, nor a worker to run growth. */
	if (unlikely(system_state == SYSTEM_BOOTING))
		return;
	irq_work_queue(&depot->grow_irq);
}

/*
 * Publish the record @val in the empty slot @pos. Returns false if another
 * caller filled the slot first. Visible to the KUnit suite, which replaces
 * it to force a lost race.
 */
VISIBLE_IF_KUNIT bool sdlf_slot_publish(struct stackdepot_lf *depot, u32 pos,
					u32 val)
{
	/* The stub lookup takes a spinlock: never from NMI. */
	if (!in_nmi())
		KUNIT_STATIC_STUB_REDIRECT(sdlf_slot_publish, depot, pos, val);
	/*
	 * Publish the record written by sdlf_record_build(). Pairs with the
	 * smp_load_acquire() of slots in the probe loop, lookup and iteration.
	 */
	return cmpxchg_release(&depot->slots[pos], 0, val) == 0;
}
EXPORT_SYMBOL_IF_KUNIT(sdlf_slot_publish);

/*
 * Give back @size granules at @start, if nobody took space after them;
 * they are accounted as lost otherwise.
 */
static void sdlf_arena_give_back(struct stackdepot_lf *depot, u32 start,
				 u32 size)
{
	int end = start + size;

	/*
	 * Pairs with the acquire in sdlf_record_build() of the next owner:
	 * our stores to these bytes land before theirs.
	 */
	if (!atomic_try_cmpxchg_release(&depot->arena_used, &end, start))
		atomic_add(size, &depot->arena_lost);
}

/*
 * Keep the unpublished record @val of @size granules for this CPU's next
 * insert; called in a read section. Its space and number count as lost
 * until then. A record kept before, by a caller this one interrupted,
 * stays lost.
 */
static void sdlf_keep(struct stackdepot_lf *depot, u32 val, u32 size)
{
	atomic_add(size, &depot->arena_lost);
	atomic_inc(&depot->records_lost);
	/* Atomic against this CPU's interrupts; see "Chunk space" above. */
	xchg(&raw_cpu_ptr(depot->pcpu)->kept, val);
}

/*
 * Take the record this CPU kept, if a record of @size granules fits in
 * it; called in a read section. Returns its slot value, or 0. What the
 * new record leaves of the kept one stays lost.
 */
static u32 sdlf_take_kept(struct stackdepot_lf *depot, u32 size)
{
	u32 *kept = &raw_cpu_ptr(depot->pcpu)->kept;
	u32 val;

	/* Written only by this CPU while callers run: a plain check first. */
	if (likely(!READ_ONCE(*kept)))
		return 0;
	/* Atomic against this CPU's interrupts; see "Chunk space" above. */
	val = xchg(kept, 0);
	if (!val)
		return 0;
	if (sdlf_record_granules(sdlf_record_depth(sdlf_record(depot, val))) <
	    size) {
		xchg(kept, val);
		return 0;
	}
	atomic_sub(size, &depot->arena_lost);
	atomic_dec(&depot->records_lost);
	return val;
}

/*
 * Can record number @nr be taken? 0 if so, -ENOSPC if the depot is full,
 * -EAGAIN if the number has no counter block yet; *@blocks is the number
 * of blocks seen.
 */
static int sdlf_nr_room(struct stackdepot_lf *depot, int nr, u32 *blocks)
{
	if ((u32)nr >= depot->max_records)
		return -ENOSPC;
	if (depot->ref_blocks) {
		/* Pairs with smp_store_release() in sdlf_add_ref_block(). */
		*blocks = smp_load_acquire(&depot->nr_ref_blocks);
		if (nr >> SDLF_REF_BLOCK_SHIFT >= *blocks)
			return -EAGAIN;
	}
	return 0;
}

/*
 * Reserve chunk space and a record number, or take the record this CPU
 * kept, then fill the record in. Returns 0 and in *@valp the slot value
 * that will publish it, or -ENOSPC, counted. The record becomes reachable
 * only through the cmpxchg_release() in sdlf_slot_publish(); the acquires
 * on the cursors only order our stores after those of a loser that gave
 * the same bytes back.
 */
static int sdlf_record_build(struct stackdepot_lf *depot, u32 hash,
			     const unsigned long *entries,
			     unsigned int nr_entries, u32 *valp)
{
	u32 size = sdlf_record_granules(nr_entries);
	u32 per_chunk = 1U << depot->chunk_shift;
	u32 val, start, chunk, nr_chunks, blocks = 0;
	struct sdlf_record *rec;
	int used, nr, ret;

	val = sdlf_take_kept(depot, size);
	if (val) {
		rec = sdlf_record(depot, val);
		nr = sdlf_record_nr(rec);
		goto fill;
	}

	/*
	 * Checked first, so that a full depot, or one whose next record has
	 * no counter block yet, takes no chunk space: space reserved and
	 * then given back after others took some would be lost.
	 */
	ret = sdlf_nr_room(depot, atomic_read(&depot->nr_records), &blocks);
	if (ret)
		goto drop;

	used = atomic_read(&depot->arena_used);
	do {
		/* A record never straddles chunks: skip the end of this one. */
		start = used;
		if ((start & (per_chunk - 1)) + size > per_chunk)
			start = ALIGN(start, per_chunk);
		chunk = start >> depot->chunk_shift;
		/* Pairs with smp_store_release() in sdlf_add_chunk(). */
		nr_chunks = smp_load_acquire(&depot->nr_chunks);
		if (chunk >= nr_chunks) {
			ret = nr_chunks >= depot->max_chunks ? -ENOSPC : -EAGAIN;
			goto drop;
		}
		/*
		 * Pairs with the release in sdlf_arena_give_back(): the stores
		 * of a record given back land before ours to the same bytes.
		 */
	} while (!atomic_try_cmpxchg_acquire(&depot->arena_used, &used,
					     start + size));
	if (unlikely(start != used))
		atomic_add(start - used, &depot->chunk_ends);
	if (sdlf_spare_short(chunk + 1, nr_chunks, depot->max_chunks))
		sdlf_grow_request(depot);

	nr = atomic_read(&depot->nr_records);
	do {
		ret = sdlf_nr_room(depot, nr, &blocks);
		if (ret) {
			sdlf_arena_give_back(depot, start, size);
			goto drop;
		}
		/* Pairs with the release in sdlf_record_discard(). */
	} while (!atomic_try_cmpxchg_acquire(&depot->nr_records, &nr, nr + 1));
	if (depot->ref_blocks &&
	    sdlf_spare_short((nr >> SDLF_REF_BLOCK_SHIFT) + 1, blocks,
			     depot->max_ref_blocks))
		sdlf_grow_request(depot);
	val = start + 1;
	rec = sdlf_record(depot, val);

fill:
	rec->hash = hash;
	rec->meta = (u32)nr << SDLF_DEPTH_BITS | nr_entries;
	memcpy(rec->entries, entries, nr_entries * sizeof(*entries));
	*valp = val;
	return 0;

drop:
	if (ret == -EAGAIN) {
		sdlf_grow_request(depot);
		sdlf_count(&depot->pcpu->drops_grow);
	} else {
		sdlf_count(&depot->pcpu->drops_full);
	}
	return -ENOSPC;
}

/*
 * Give back a record that lost its race and was never published: its
 * record number if nobody took one after it, and then its chunk space if
 * nobody took space after it. A record whose number cannot be given back
 * is kept whole, space included, for this CPU's next insert.
 */
static void sdlf_record_discard(struct stackdepot_lf *depot, u32 val)
{
	const struct sdlf_record *rec = sdlf_record(depot, val);
	u32 size = sdlf_record_granules(sdlf_record_depth(rec));
	int nr = sdlf_record_nr(rec), next = nr + 1;

	/* Pairs with the acquire in sdlf_record_build() of the next owner. */
	if (!atomic_try_cmpxchg_release(&depot->nr_records, &next, nr)) {
		sdlf_keep(depot, val, size);
		return;
	}
	sdlf_arena_give_back(depot, val - 1, size);
}

/*
 * Remember @id as this CPU's last stack (see sdlf_get_id()); called in a
 * read section. An interrupt or NMI between the load and the store may
 * have remembered its own: either id is a good hint.
 */
static __always_inline void sdlf_remember(struct stackdepot_lf *depot,
					  stackdepot_lf_id_t id)
{
	u32 *last = &raw_cpu_ptr(depot->pcpu)->last;
	u32 val = stackdepot_lf_id_to_u32(id);

	if (READ_ONCE(*last) != val)
		WRITE_ONCE(*last, val);
}

/* The marks of the caller, in a read section: the bitmap or its CPU's. */
static __always_inline void *sdlf_marks(struct stackdepot_lf *depot)
{
	return raw_cpu_ptr(depot->pcpu)->marks;
}

/*
 * Enter the marks section of the CPU of @pc (see "Marks" above), or
 * return false if a context this one interrupted is in it. Only that
 * CPU's contexts touch @mark_busy, and each nested one runs from start
 * to end between two instructions of the one it interrupts, leaving the
 * flag as it found it: the test and the store need not be one atomic
 * operation. The barrier() calls keep the section's accesses inside.
 */
static __always_inline bool sdlf_mark_enter(struct sdlf_pcpu *pc)
{
	if (READ_ONCE(pc->mark_busy))
		return false;
	WRITE_ONCE(pc->mark_busy, true);
	barrier();
	return true;
}

static __always_inline void sdlf_mark_exit(struct sdlf_pcpu *pc)
{
	barrier();
	WRITE_ONCE(pc->mark_busy, false);
}

/*
 * The points of a marks section where the KUnit suite runs what an
 * interrupt could: between a caller's lookup and its write of the entry,
 * and in the start of a new epoch, before its stores.
 */
VISIBLE_IF_KUNIT void sdlf_mark_window(struct stackdepot_lf *depot, u32 nr)
{
	/* The stub lookup takes a spinlock: never from NMI. */
	if (!in_nmi())
		KUNIT_STATIC_STUB_REDIRECT(sdlf_mark_window, depot, nr);
}
EXPORT_SYMBOL_IF_KUNIT(sdlf_mark_window);

/*
 * Start the next epoch of the marks of the CPU of @pc, in its section,
 * having folded in @seen clearings: no entry written before matches
 * after. Before the epoch field would wrap, every entry is wiped. The
 * count is stored last: a hit of a context nested in this one compares
 * entries only once it matches (sdlf_mark_cpu()), and by then the new
 * epoch and the wipe are in place. @nr is the caller's record number,
 * for the KUnit suite.
 */
static noinline void sdlf_mark_new_epoch(struct stackdepot_lf *depot,
					 struct sdlf_pcpu *pc,
					 unsigned long seen, u32 nr)
{
	u64 base = pc->mark_base +
		   ((u64)1 << depot->mark_epoch_shift) * SDLF_MARK_LANES_LO;

	if ((u16)pc->mark_base >= depot->mark_last_base) {
		memset(pc->marks, 0, depot->mark_sets * sizeof(u64));
		base = ((u64)1 << depot->mark_epoch_shift) * SDLF_MARK_LANES_LO;
	}
	if (IS_ENABLED(CONFIG_KUNIT))
		sdlf_mark_window(depot, nr);
	/* Read by nested hits; see sdlf_mark_cpu(). */
	WRITE_ONCE(pc->mark_base, base);
	barrier();
	WRITE_ONCE(pc->mark_seen, seen);
}

/*
 * The set of record number @nr in the marks of the CPU of @pc: four u16
 * entries in a u64, way 0 in the low bits, so that a hit compares them
 * all at once.
 */
static __always_inline u64 *sdlf_mark_set(struct stackdepot_lf *depot,
					  struct sdlf_pcpu *pc, u32 nr)
{
	return (u64 *)pc->marks + (nr & (depot->mark_sets - 1));
}

/* The bits of record number @nr its set does not tell: an entry's tag */
static __always_inline u32 sdlf_mark_tag(struct stackdepot_lf *depot,
					 u32 nr)
{
	return nr >> depot->mark_tag_shift;
}

/*
 * The entry record number @nr has in the current epoch of the CPU of @pc,
 * and the
 * set it goes in.
 */
static __always_inline u16 sdlf_mark_entry(struct stackdepot_lf *depot,
					   struct sdlf_pcpu *pc, u32 nr,
					   u64 **set)
{
	*set = sdlf_mark_set(depot, pc, nr);
	/* Written by sdlf_mark_new_epoch() of this CPU only. */
	return (u16)READ_ONCE(pc->mark_base) | sdlf_mark_tag(depot, nr);
}

/* Does some entry of @set equal @want4's, which has it in every way? */
static __always_inline bool sdlf_mark_found(u64 set, u64 want4)
{
	/* A zero-lane test of the XOR: exact for "some lane is 0". */
	u64 x = set ^ want4;

	return (x - SDLF_MARK_LANES_LO) & ~x & SDLF_MARK_LANES_HI;
}

/*
 * The sum of the clearings of the marks of @depot and of the CPU of @pc.
 * Pairs with atomic_long_inc_return() in stackdepot_lf_clear_marks() (and
 * the release of ->state after reset's increment): seeing the clearing,
 * the caller sees what the clearer stored before it. The CPU's own count
 * is written by its contexts only.
 */
static __always_inline unsigned long
sdlf_mark_clears(struct stackdepot_lf *depot, struct sdlf_pcpu *pc)
{
	return atomic_long_read_acquire(&depot->mark_clears) +
	       atomic_long_read(&pc->mark_cpu_clears);
}

/*
 * sdlf_mark_cpu() for a caller whose entry is not in its set in the
 * current epoch, or whose CPU's marks were cleared since its last
 * section: the section proper, out of line. A new entry goes in way 0,
 * the others move up a way, and the oldest goes.
 */
static noinline bool sdlf_mark_cpu_section(struct stackdepot_lf *depot,
					   struct sdlf_pcpu *pc, u32 nr)
{
	unsigned long seen;
	u64 *set, old;
	u16 want;

	/* Nested in a section of this CPU: an extra "first" is harmless. */
	if (unlikely(!sdlf_mark_enter(pc)))
		return true;
	/* Again, in the section: a nested one may have folded in more. */
	seen = sdlf_mark_clears(depot, pc);
	if (unlikely(seen != pc->mark_seen))
		sdlf_mark_new_epoch(depot, pc, seen, nr);
	want = sdlf_mark_entry(depot, pc, nr, &set);
	old = *set;
	if (!sdlf_mark_found(old, want * SDLF_MARK_LANES_LO)) {
		if (IS_ENABLED(CONFIG_KUNIT))
			sdlf_mark_window(depot, nr);
		/* Read by nested hits, whole; see sdlf_mark_cpu(). */
		WRITE_ONCE(*set, old << 16 | want);
		sdlf_mark_exit(pc);
		return true;
	}
	sdlf_mark_exit(pc);
	return false;
}

/*
 * Is this the first caller on the CPU of @pc to ask for the mark of slot
 * @nr since the CPU's marks were last cleared? Called in a read section;
 * see "Marks" above for why "false" is never wrong. A hit whose entry is
 * in its set in the current epoch reads the count of clearings its CPU
 * folded in, then the epoch, then the set, in that order, and writes
 * nothing: it needs no section, in a nested context either (see "Marks").
 */
static __always_inline bool sdlf_mark_cpu(struct stackdepot_lf *depot,
					  struct sdlf_pcpu *pc, u32 nr)
{
	/* Constant for the depot's life: computed before the loads below. */
	u64 *set = sdlf_mark_set(depot, pc, nr);
	u64 tag = sdlf_mark_tag(depot, nr), want4;

	/*
	 * Written by this CPU's sections, the count last when an epoch
	 * starts (sdlf_mark_new_epoch()); READ_ONCE() keeps the loads in
	 * this order, and a nested section runs whole between two of them.
	 */
	if (likely(sdlf_mark_clears(depot, pc) == READ_ONCE(pc->mark_seen))) {
		want4 = READ_ONCE(pc->mark_base) | tag * SDLF_MARK_LANES_LO;
		if (likely(sdlf_mark_found(READ_ONCE(*set), want4)))
			return false;
	}
	return sdlf_mark_cpu_section(depot, pc, nr);
}

/*
 * Set the mark of record number @nr for a caller on the CPU of @pc that
 * asked with
 * @first; called in a read section. No ordering for the bitmap: a mark
 * publishes no data, it only elects one caller, and the atomic
 * test_and_set_bit() does that alone.
 */
static __always_inline void sdlf_mark(struct stackdepot_lf *depot,
				      struct sdlf_pcpu *pc, u32 nr,
				      bool *first)
{
	if (!first)
		return;
	if (depot->mark_sets)
		*first = sdlf_mark_cpu(depot, pc, nr);
	else
		*first = !test_bit(nr, pc->marks) &&
			 !test_and_set_bit(nr, pc->marks);
}

/*
 * Clear every mark of the bitmap (without CPU marks). A word is cleared
 * whole with xchg(), an atomic like the test_and_set_bit() of callers in
 * sdlf_mark() it races with (a plain store would be lost on architectures
 * whose bit operations take a lock, bringing back the other bits of the
 * word): either comes first, and a mark cleared after it was set is set
 * again by the next caller. Words with no mark are only read, so that
 * clearing a depot whose stacks are few does not dirty the lines every
 * hit reads; so the loop orders nothing by itself
 * (stackdepot_lf_clear_marks() adds the barriers).
 */
static void sdlf_clear_words(unsigned long *marks, size_t words)
{
	size_t i;

	for (i = 0; i < words; i++)
		if (READ_ONCE(marks[i]))
			xchg(&marks[i], 0);
}

bool stackdepot_lf_caller_visible(void)
{
	return sdlf_caller_visible();
}
EXPORT_SYMBOL_GPL(stackdepot_lf_caller_visible);

/*
 * The rest of get_id when the stack is not in its home slot @pos: probe
 * the next slots, and store the stack in the first empty one unless
 * another caller stores it first. Out of line, so that a hit in the home
 * slot, by far the most common call, stays short.
 */
static noinline int sdlf_get_id_slow(struct stackdepot_lf *depot, u32 hash,
				     u32 state, u32 pos,
				     const unsigned long *entries,
				     unsigned int nr_entries,
				     stackdepot_lf_id_t *id, bool *first)
{
	u32 probed, val, new_val = 0;
	struct sdlf_pcpu *pc;
	int ret;

	for (probed = 0; probed < SDLF_MAX_PROBE;
	     probed++, pos = (pos + 1) & depot->slot_mask) {
		/* Pairs with sdlf_slot_publish(): the record is complete. */
		val = smp_load_acquire(&depot->slots[pos]);
		if (!val) {
			if (!new_val) {
				ret = sdlf_record_build(depot, hash, entries,
							nr_entries, &new_val);
				if (ret)
					return ret;
			}
			if (sdlf_slot_publish(depot, pos, new_val)) {
				sdlf_count(&depot->pcpu->inserts);
				sdlf_mark(depot, raw_cpu_ptr(depot->pcpu),
					  sdlf_record_nr(sdlf_record(depot,
								     new_val)),
					  first);
				*id = sdlf_make_id(state, pos);
				sdlf_remember(depot, *id);
				return 0;
			}
			/*
			 * Another caller filled the slot. A failed cmpxchg is
			 * unordered, so load it again; pairs with the
			 * cmpxchg_release() that filled it.
			 */
			val = smp_load_acquire(&depot->slots[pos]);
		}
		if (sdlf_record_match(sdlf_record(depot, val), hash, entries,
				      nr_entries)) {
			pc = raw_cpu_ptr(depot->pcpu);
			sdlf_count_hit(depot, pc, sdlf_record(depot, val));
			if (new_val)
				sdlf_count(&depot->pcpu->lost_races);
			sdlf_mark(depot, pc,
				  sdlf_record_nr(sdlf_record(depot, val)), first);
			*id = sdlf_make_id(state, pos);
			sdlf_remember(depot, *id);
			ret = 0;
			goto out;
		}
	}
	sdlf_count(&depot->pcpu->drops_probe);
	ret = -ENOSPC;
out:
	if (new_val)
		sdlf_record_discard(depot, new_val);
	return ret;
}

/* get_id of a caller in a read section that a grace period waits for */
static __always_inline int sdlf_get_id(struct stackdepot_lf *depot,
				       const unsigned long *entries,
				       unsigned int nr_entries,
				       stackdepot_lf_id_t *id, bool *first)
{
	const struct sdlf_record *rec;
	struct sdlf_pcpu *pc;
	u32 hash, state, pos, val;

	if (unlikely(nr_entries > depot->max_depth)) {
		sdlf_count(&depot->pcpu->drops_too_deep);
		return -E2BIG;
	}

	/* Pairs with smp_store_release() in stackdepot_lf_reset(). */
	state = smp_load_acquire(&depot->state);
	if (unlikely(state & SDLF_BUSY)) {
		sdlf_count(&depot->pcpu->drops_busy);
		return -EBUSY;
	}

	/*
	 * The stack of the id this CPU got last, if of this generation, is
	 * compared before any hashing: events that follow each other on a
	 * CPU often share their stack. The id is only a hint, written and
	 * read whole by this CPU, its interrupts and NMIs: whatever it says,
	 * the stack is taken from it only if the slot it names holds the
	 * same frames, and a stack is stored at most once per generation,
	 * so that slot is the stack's.
	 */
	pc = raw_cpu_ptr(depot->pcpu);
	/* Written by sdlf_remember(); no ordering, see above. */
	pos = READ_ONCE(pc->last) ^ state;
	if (pos <= depot->slot_mask) {
		/* Pairs with sdlf_slot_publish(): the record is complete. */
		val = smp_load_acquire(&depot->slots[pos]);
		if (likely(val)) {
			rec = sdlf_record(depot, val);
			if (likely(sdlf_record_same(rec, entries, nr_entries)))
				goto hit;
		}
	}

	hash = sdlf_hash(entries, nr_entries);
	pos = hash & depot->slot_mask;
	/* Pairs with sdlf_slot_publish(): the record is complete. */
	val = smp_load_acquire(&depot->slots[pos]);
	if (unlikely(!val))
		goto slow;
	rec = sdlf_record(depot, val);
	if (unlikely(!sdlf_record_match(rec, hash, entries, nr_entries)))
		goto slow;
	sdlf_remember(depot, sdlf_make_id(state, pos));
hit:
	sdlf_count_hit(depot, pc, rec);
	sdlf_mark(depot, pc, sdlf_record_nr(rec), first);
	*id = sdlf_make_id(state, pos);
	return 0;
slow:
	return sdlf_get_id_slow(depot, hash, state, pos, entries, nr_entries,
				id, first);
}

int stackdepot_lf_get_id(struct stackdepot_lf *depot,
			 const unsigned long *entries, unsigned int nr_entries,
			 stackdepot_lf_id_t *id)
{
	int ret;

	if (unlikely(!depot || !nr_entries))
		return -EINVAL;

	/* Counters are per CPU: count in the section, visible or not. */
	if (likely(sdlf_read_lock())) {
		ret = sdlf_get_id(depot, entries, nr_entries, id, NULL);
	} else {
		sdlf_count(&depot->pcpu->drops_context);
		ret = -EPERM;
	}
	sdlf_read_unlock();
	return ret;
}
EXPORT_SYMBOL_GPL(stackdepot_lf_get_id);

int stackdepot_lf_get_id_rcu(struct stackdepot_lf __rcu *const *depotp,
			     const unsigned long *entries,
			     unsigned int nr_entries, stackdepot_lf_id_t *id,
			     bool *first)
{
	struct stackdepot_lf *depot;
	int ret = -EPERM;

	if (unlikely(!nr_entries))
		return -EINVAL;

	/* A refused caller must not even load the pointer: nothing to count in. */
	if (likely(sdlf_read_lock())) {
		/* Pairs with the owner's rcu_assign_pointer() of *@depotp. */
		depot = rcu_dereference_sched(*depotp);
		ret = depot ? sdlf_get_id(depot, entries, nr_entries, id,
					  first) : -ENODEV;
	}
	sdlf_read_unlock();
	return ret;
}
EXPORT_SYMBOL_GPL(stackdepot_lf_get_id_rcu);

/* Copy out the record in slot @pos, frames if @entries; in a read section. */
static int sdlf_copy(struct stackdepot_lf *depot, u32 state, u32 pos, u32 val,
		     unsigned long *entries, unsigned int size,
		     struct stackdepot_lf_info *info)
{
	const struct sdlf_record *rec = sdlf_record(depot, val);
	unsigned int depth = sdlf_record_depth(rec);

	if (entries) {
		if (depth > size)
			return -ENOSPC;
		memcpy(entries, rec->entries, depth * sizeof(*entries));
	}
	if (info) {
		info->id = sdlf_make_id(state, pos);
		info->depth = depth;
		/* The insert itself, and the hits since. */
		info->refs = depot->ref_blocks ?
			     1 + sdlf_read_refs(depot, sdlf_record_nr(rec)) : 0;
	}
	return depth;
}

int stackdepot_lf_lookup(struct stackdepot_lf *depot, stackdepot_lf_id_t id,
			 unsigned long *entries, unsigned int size,
			 struct stackdepot_lf_info *info)
{
	u32 raw = stackdepot_lf_id_to_u32(id);
	u32 state, val;
	int ret;

	/* Range 0 is never handed out: such a value is nobody's id. */
	if (!depot || raw <= depot->slot_mask)
		return -EINVAL;

	if (!sdlf_read_lock()) {
		ret = -EPERM;
		goto out;
	}
	/*
	 * Pairs with smp_store_release() in stackdepot_lf_reset(). A busy
	 * state has a bit set that no range base has.
	 */
	state = smp_load_acquire(&depot->state);
	if ((raw & ~depot->slot_mask) != state) {
		ret = -ESTALE;
		goto out;
	}
	/* Pairs with cmpxchg_release() in sdlf_slot_publish(). */
	val = smp_load_acquire(&depot->slots[raw & depot->slot_mask]);
	ret = val ? sdlf_copy(depot, state, raw & depot->slot_mask, val,
			      entries, size, info) : -ENOENT;
out:
	sdlf_read_unlock();
	return ret;
}
EXPORT_SYMBOL_GPL(stackdepot_lf_lookup);

/* Sum of the hit counters of the records numbered below @records */
static u64 sdlf_sum_refs(struct stackdepot_lf *depot, u32 records)
{
	u32 blocks = DIV_ROUND_UP(records, SDLF_REF_BLOCK), b, i;
	u64 sum = 0;

	/* Pairs with smp_store_release() in sdlf_add_ref_block(). */
	blocks = min(blocks, smp_load_acquire(&depot->nr_ref_blocks));
	for (b = 0; b < blocks; b++)
		for (i = 0; i < depot->ref_stripes * SDLF_REF_BLOCK; i++)
			sum += (unsigned long)atomic_long_read(&depot->ref_blocks[b][i]);
	return sum;
}

void stackdepot_lf_reset(struct stackdepot_lf *depot)
{
	u32 state, records, base, b;
	int cpu;

	if (!depot)
		return;

	mutex_lock(&depot->reset_lock);
	/* Only resets write ->state, and they hold reset_lock. */
	state = depot->state;
	/* Pairs with smp_load_acquire() of ->state: new callers back off. */
	WRITE_ONCE(depot->state, state | SDLF_BUSY);
	/*
	 * Wait for every get_id, lookup and iteration step that may have seen
	 * the old generation; later ones see the busy bit and touch nothing.
	 */
	sdlf_synchronize();

	memset(depot->slots, 0, (size_t)(depot->slot_mask + 1) * sizeof(u32));
	if (depot->mark_sets) {
		/*
		 * Every CPU starts a new epoch at its next call: ordered
		 * before them by the release of ->state below.
		 */
		atomic_long_inc(&depot->mark_clears);
	} else {
		/* Not memset(): stackdepot_lf_clear_marks() may run meanwhile. */
		sdlf_clear_words(depot->marks, depot->mark_words);
	}
	records = atomic_read(&depot->nr_records);
	if (depot->ref_blocks) {
		/* Before the counters go: stackdepot_lf_stats() reads both. */
		atomic64_add(sdlf_sum_refs(depot, records), &depot->hits_base);
		/* Blocks growth adds now are zeroed already. */
		for (b = 0; b < DIV_ROUND_UP(records, SDLF_REF_BLOCK); b++)
			memset(depot->ref_blocks[b], 0, depot->ref_stripes *
			       SDLF_REF_BLOCK * sizeof(atomic_long_t));
	}
	atomic_set(&depot->nr_records, 0);
	atomic_set(&depot->arena_used, 0);
	atomic_set(&depot->arena_lost, 0);
	atomic_set(&depot->chunk_ends, 0);
	atomic_set(&depot->records_lost, 0);
	for_each_possible_cpu(cpu)
		WRITE_ONCE(per_cpu_ptr(depot->pcpu, cpu)->kept, 0);
	atomic64_inc(&depot->resets);

	/*
	 * With every range held, the depot stays busy until
	 * stackdepot_lf_release_ids(), or a later reset, finds it one.
	 */
	base = sdlf_ids_alloc(depot, depot->slot_mask + 1);
	if (base) {
		/*
		 * Pairs with smp_load_acquire() of ->state: whoever sees the
		 * new generation sees the cleared table, the counters and the
		 * new reset count.
		 */
		smp_store_release(&depot->state, base);
	}
	mutex_unlock(&depot->reset_lock);
}
EXPORT_SYMBOL_GPL(stackdepot_lf_reset);

void stackdepot_lf_release_ids(struct stackdepot_lf *depot)
{
	u32 base;

	if (!depot)
		return;
	mutex_lock(&depot->reset_lock);
	/* Only resets write ->state, and they hold reset_lock. */
	if (!(depot->state & SDLF_BUSY)) {
		mutex_lock(&sdlf_ids_lock);
		depot->ids_hold = depot->ids_base;
		mutex_unlock(&sdlf_ids_lock);
	} else {
		/*
		 * A reset found every range held and left the depot cleared
		 * and busy: it holds none now, and takes the first free one.
		 */
		sdlf_ids_free(depot);
		base = sdlf_ids_alloc(depot, depot->slot_mask + 1);
		if (base) {
			/* Pairs with smp_load_acquire() of ->state, as in reset. */
			smp_store_release(&depot->state, base);
		}
	}
	mutex_unlock(&depot->reset_lock);
}
EXPORT_SYMBOL_GPL(stackdepot_lf_release_ids);

void stackdepot_lf_clear_marks(struct stackdepot_lf *depot)
{
	if (!depot)
		return;
	if (depot->mark_sets) {
		/*
		 * Fully ordered; pairs with the acquire in sdlf_mark_cpu():
		 * a caller that sees the new count sees the caller's earlier
		 * stores, and the count moves before its later accesses.
		 */
		atomic_long_inc_return(&depot->mark_clears);
		return;
	}
	/*
	 * The words found clear are not written: without this barrier the
	 * caller's earlier stores could pass the loads of the marks, and
	 * a get_id setting a mark meanwhile could miss both the clearing
	 * and those stores. Pairs with the full barrier of get_id's
	 * test_and_set_bit().
	 */
	smp_mb();
	sdlf_clear_words(depot->marks, depot->mark_words);
	/* As above: the marks are clear before the caller's later accesses. */
	smp_mb();
}
EXPORT_SYMBOL_GPL(stackdepot_lf_clear_marks);

void stackdepot_lf_clear_cpu_marks(struct stackdepot_lf *depot)
{
	if (!depot)
		return;
	if (!depot->mark_sets) {
		stackdepot_lf_clear_marks(depot);
		return;
	}
	/*
	 * The read section only pins the CPU (the caller keeps it pinned
	 * from its get_id on); the marks are there whether RCU waits or not.
	 */
	sdlf_read_lock();
	/*
	 * Fully ordered, as in stackdepot_lf_clear_marks(); read by this
	 * CPU's next section, in program order or in a nested context.
	 */
	atomic_long_inc_return(&raw_cpu_ptr(depot->pcpu)->mark_cpu_clears);
	sdlf_read_unlock();
}
EXPORT_SYMBOL_GPL(stackdepot_lf_clear_cpu_marks);

/*
 * Empty the entry of record number @nr in the caller's CPU's marks, if it
 * has one.
 */
static void sdlf_mark_give_back(struct stackdepot_lf *depot, u32 nr)
{
	struct sdlf_pcpu *pc = raw_cpu_ptr(depot->pcpu);
	u64 *set, entries;
	unsigned int i;
	u16 want;

	/*
	 * Nested in a section: this context's calls were told "first" and
	 * wrote nothing. An entry of an epoch since ended matches nothing.
	 */
	if (!sdlf_mark_enter(pc))
		return;
	want = sdlf_mark_entry(depot, pc, nr, &set);
	entries = *set;
	for (i = 0; i < SDLF_MARK_WAYS; i++)
		if ((u16)(entries >> 16 * i) == want)
			entries &= ~(0xffffULL << 16 * i);
	/* Read by nested hits, whole; see sdlf_mark_cpu(). */
	WRITE_ONCE(*set, entries);
	sdlf_mark_exit(pc);
}

void stackdepot_lf_unmark(struct stackdepot_lf *depot, stackdepot_lf_id_t id)
{
	u32 raw = stackdepot_lf_id_to_u32(id), state, val, nr;

	if (!depot || raw <= depot->slot_mask)
		return;
	/* A reset clears every mark: only one of this generation needs it. */
	if (likely(sdlf_read_lock())) {
		/* Pairs with smp_store_release() in stackdepot_lf_reset(). */
		state = smp_load_acquire(&depot->state);
		val = 0;
		if ((raw & ~depot->slot_mask) == state) {
			/* Pairs with sdlf_slot_publish(): complete record. */
			val = smp_load_acquire(&depot->slots[raw &
							     depot->slot_mask]);
		}
		/* The marks are the record's, by its number. */
		nr = val ? sdlf_record_nr(sdlf_record(depot, val)) : 0;
		if (val && depot->mark_sets)
			sdlf_mark_give_back(depot, nr);
		else if (val)
			clear_bit(nr, sdlf_marks(depot));
	}
	sdlf_read_unlock();
}
EXPORT_SYMBOL_GPL(stackdepot_lf_unmark);

u32 stackdepot_lf_generation(struct stackdepot_lf *depot)
{
	/* Pairs with the stores to ->state in stackdepot_lf_reset(). */
	return depot ? READ_ONCE(depot->state) >> depot->index_bits : 0;
}
EXPORT_SYMBOL_GPL(stackdepot_lf_generation);

#if IS_ENABLED(CONFIG_KUNIT)
u32 stackdepot_lf_id_gen(struct stackdepot_lf *depot, stackdepot_lf_id_t id)
{
	return depot ? stackdepot_lf_id_to_u32(id) >> depot->index_bits : 0;
}
EXPORT_SYMBOL_IF_KUNIT(stackdepot_lf_id_gen);
#endif

void stackdepot_lf_iter_start(struct stackdepot_lf_iter *iter,
			      struct stackdepot_lf *depot)
{
	u32 state;

	iter->depot = depot;
	iter->pos = 0;
	iter->state = SDLF_ITER_STALE;
	iter->resets = 0;
	if (!depot)
		return;
	if (sdlf_read_lock()) {
		/* Pairs with smp_store_release() in stackdepot_lf_reset(). */
		state = smp_load_acquire(&depot->state);
		if (!(state & SDLF_BUSY)) {
			iter->state = state;
			/* Written before the release above, by the last reset. */
			iter->resets = atomic64_read(&depot->resets);
		}
	}
	sdlf_read_unlock();
}
EXPORT_SYMBOL_GPL(stackdepot_lf_iter_start);

int stackdepot_lf_iter_next(struct stackdepot_lf_iter *iter,
			    unsigned long *entries, unsigned int size,
			    struct stackdepot_lf_info *info)
{
	struct stackdepot_lf *depot = iter->depot;
	u32 val;
	int ret = 0;

	if (!depot)
		return -EINVAL;
	if (iter->state & SDLF_BUSY)
		return -ESTALE;

	if (!sdlf_read_lock()) {
		ret = -EPERM;
		goto out;
	}
	/*
	 * Pairs with smp_store_release() in stackdepot_lf_reset(). The reset
	 * count, not the id range, tells whether a reset happened: a range
	 * comes back once the id space wraps.
	 */
	if (smp_load_acquire(&depot->state) != iter->state ||
	    atomic64_read(&depot->resets) != iter->resets) {
		iter->state = SDLF_ITER_STALE;
		ret = -ESTALE;
		goto out;
	}
	for (; iter->pos <= depot->slot_mask; iter->pos++) {
		/* Pairs with cmpxchg_release() in sdlf_slot_publish(). */
		val = smp_load_acquire(&depot->slots[iter->pos]);
		if (!val)
			continue;
		ret = sdlf_copy(depot, iter->state, iter->pos, val, entries,
				size, info);
		if (ret > 0)
			iter->pos++;
		break;
	}
out:
	sdlf_read_unlock();
	return ret;
}
EXPORT_SYMBOL_GPL(stackdepot_lf_iter_next);

/* Bytes of one block of hit counters */
static size_t sdlf_ref_block_size(struct stackdepot_lf *depot)
{
	return (size_t)depot->ref_stripes * SDLF_REF_BLOCK *
	       sizeof(atomic_long_t);
}

void stackdepot_lf_stats(struct stackdepot_lf *depot,
			 struct stackdepot_lf_stats *stats)
{
	u32 state, records, used, lost;
	unsigned int cpu;

	memset(stats, 0, sizeof(*stats));
	if (!depot)
		return;

	/* Pairs with the stores to ->state in stackdepot_lf_reset(). */
	state = smp_load_acquire(&depot->state);
	/*
	 * Lost numbers first: each was taken before it was lost, so
	 * records cannot come out negative.
	 */
	lost = atomic_read(&depot->records_lost);
	records = atomic_read(&depot->nr_records);
	used = atomic_read(&depot->arena_used);
	stats->generation = state >> depot->index_bits;
	stats->resetting = state & SDLF_BUSY;
	stats->index_bits = depot->index_bits;
	stats->records = records >= lost ? records - lost : 0;
	stats->max_records = depot->max_records;
	stats->max_depth = depot->max_depth;
	stats->table_slots = depot->slot_mask + 1;
	/* Pairs with smp_store_release() in sdlf_add_chunk(). */
	stats->chunks = smp_load_acquire(&depot->nr_chunks);
	stats->chunk_size = SDLF_GRANULE << depot->chunk_shift;
	stats->arena_used = (u64)used * SDLF_GRANULE;
	stats->arena_lost = (u64)(u32)atomic_read(&depot->arena_lost) *
			    SDLF_GRANULE;
	stats->chunk_ends = (u64)(u32)atomic_read(&depot->chunk_ends) *
			    SDLF_GRANULE;
	stats->mem_used = stats->arena_used;
	if (depot->ref_blocks) {
		stats->mem_used += (u64)records * depot->ref_stripes *
				   sizeof(atomic_long_t);
		/*
		 * A reset adds the counters to hits_base before it clears
		 * them; if one ran while they were summed, count only
		 * hits_base, which may lag but never counts a hit twice.
		 */
		stats->hits = atomic64_read(&depot->hits_base);
		if (!(state & SDLF_BUSY))
			stats->hits += sdlf_sum_refs(depot, records);
		/*
		 * The sums above, then ->state. Pairs with the reset's store
		 * of the busy state, which sdlf_synchronize() orders before
		 * the counters are summed into hits_base and cleared: a sum
		 * that read a cleared counter sees a new state here.
		 */
		smp_rmb();
		if (READ_ONCE(depot->state) != state)
			stats->hits = atomic64_read(&depot->hits_base);
	}
	stats->mem_allocated = READ_ONCE(depot->mem_allocated);
	stats->resets = atomic64_read(&depot->resets);

	for_each_possible_cpu(cpu) {
		struct sdlf_pcpu *pcpu = per_cpu_ptr(depot->pcpu, cpu);

		/* Pairs with local64_inc() in sdlf_count(); may lag. */
		stats->hits += local64_read(&pcpu->hits);
		stats->inserts += local64_read(&pcpu->inserts);
		stats->lost_races += local64_read(&pcpu->lost_races);
		stats->drops_full += local64_read(&pcpu->drops_full);
		stats->drops_grow += local64_read(&pcpu->drops_grow);
		stats->drops_probe += local64_read(&pcpu->drops_probe);
		stats->drops_too_deep += local64_read(&pcpu->drops_too_deep);
		stats->drops_busy += local64_read(&pcpu->drops_busy);
		stats->drops_context += local64_read(&pcpu->drops_context);
	}
}
EXPORT_SYMBOL_GPL(stackdepot_lf_stats);

/*
 * Replace the full chunk directory with one twice as large; grow_lock held.
 * Readers may still use the old one until the grace period ends.
 */
static int sdlf_dir_grow(struct stackdepot_lf *depot)
{
	u8 **old = rcu_dereference_protected(depot->chunks,
					     lockdep_is_held(&depot->grow_lock));
	u32 size = min(2 * depot->dir_size, depot->max_chunks);
	u8 **dir;

	dir = kvcalloc(size, sizeof(*dir), GFP_KERNEL);
	if (!dir)
		return -ENOMEM;
	memcpy(dir, old, depot->nr_chunks * sizeof(*dir));
	/* Pairs with rcu_dereference_sched() in sdlf_record_at(). */
	rcu_assign_pointer(depot->chunks, dir);
	WRITE_ONCE(depot->mem_allocated, depot->mem_allocated +
		   (size - depot->dir_size) * sizeof(*dir));
	depot->dir_size = size;
	sdlf_synchronize();
	kvfree(old);
	return 0;
}

/* Add one chunk; grow_lock held. */
static int sdlf_add_chunk(struct stackdepot_lf *depot)
{
	size_t bytes = (size_t)SDLF_GRANULE << depot->chunk_shift;
	u32 n = depot->nr_chunks;	/* only grow_lock holders write it */
	u8 **dir;
	u8 *chunk;

	if (n == depot->dir_size && sdlf_dir_grow(depot))
		return -ENOMEM;
	chunk = kvmalloc(bytes, GFP_KERNEL);
	if (!chunk)
		return -ENOMEM;
	dir = rcu_dereference_protected(depot->chunks,
					lockdep_is_held(&depot->grow_lock));
	dir[n] = chunk;
	WRITE_ONCE(depot->mem_allocated, depot->mem_allocated + bytes);
	/* Pairs with smp_load_acquire() in sdlf_record_build(). */
	smp_store_release(&depot->nr_chunks, n + 1);
	return 0;
}

/* Add one block of hit counters; grow_lock held. */
static int sdlf_add_ref_block(struct stackdepot_lf *depot)
{
	u32 n = depot->nr_ref_blocks;	/* only grow_lock holders write it */
	atomic_long_t *block;

	block = kvzalloc(sdlf_ref_block_size(depot), GFP_KERNEL);
	if (!block)
		return -ENOMEM;
	depot->ref_blocks[n] = block;
	WRITE_ONCE(depot->mem_allocated, depot->mem_allocated +
		   sdlf_ref_block_size(depot));
	/* Pairs with smp_load_acquire() in sdlf_record_build(). */
	smp_store_release(&depot->nr_ref_blocks, n + 1);
	return 0;
}

/* Growth held back by a test (sdlf_grow_pause()); grow_lock held. */
static bool sdlf_grow_paused(struct stackdepot_lf *depot)
{
#if IS_ENABLED(CONFIG_KUNIT)
	return depot->grow_paused;
#else
	return false;
#endif
}

/*
 * Add what the current generation is about to need: the spare chunks and
 * counter blocks sdlf_spare() asks past those in use; grow_lock held. The
 * cursors are read without ordering: a stale value only makes this add
 * fewer or more than needed, and an insert that finds the spare short
 * asks again.
 */
static void sdlf_grow(struct stackdepot_lf *depot)
{
	u32 used, in_use;

	if (sdlf_grow_paused(depot))
		return;
	/* Chunks up to the last one with a record in it, one at least. */
	used = atomic_read(&depot->arena_used);
	in_use = (used ? (used - 1) >> depot->chunk_shift : 0) + 1;
	while (sdlf_spare_short(in_use, depot->nr_chunks, depot->max_chunks))
		if (sdlf_add_chunk(depot))
			break;
	if (!depot->ref_blocks)
		return;
	in_use = ((u32)atomic_read(&depot->nr_records) >>
		  SDLF_REF_BLOCK_SHIFT) + 1;
	while (sdlf_spare_short(in_use, depot->nr_ref_blocks,
				depot->max_ref_blocks))
		if (sdlf_add_ref_block(depot))
			break;
}

static void sdlf_grow_work(struct work_struct *work)
{
	struct stackdepot_lf *depot = container_of(work, struct stackdepot_lf,
						   grow_work);

	mutex_lock(&depot->grow_lock);
	sdlf_grow(depot);
	mutex_unlock(&depot->grow_lock);
}

/* Runs in hard interrupt context: allocating is for the work item. */
static void sdlf_grow_irq(struct irq_work *work)
{
	struct stackdepot_lf *depot = container_of(work, struct stackdepot_lf,
						   grow_irq);

	queue_work(system_unbound_wq, &depot->grow_work);
}

#if IS_ENABLED(CONFIG_KUNIT)
/* Wait until the growth requested so far has run. */
void sdlf_grow_flush(struct stackdepot_lf *depot)
{
	irq_work_sync(&depot->grow_irq);
	flush_work(&depot->grow_work);
}
EXPORT_SYMBOL_IF_KUNIT(sdlf_grow_flush);

/*
 * Hold growth back, as if every allocation were slow, or let it run
 * again, catching up at once with what was asked for meanwhile.
 */
void sdlf_grow_pause(struct stackdepot_lf *depot, bool pause)
{
	mutex_lock(&depot->grow_lock);
	depot->grow_paused = pause;
	mutex_unlock(&depot->grow_lock);
	if (!pause)
		queue_work(system_unbound_wq, &depot->grow_work);
}
EXPORT_SYMBOL_IF_KUNIT(sdlf_grow_pause);
#endif

/* Table slots for @params, or 0 if @params is out of range. */
static u32 sdlf_check_params(const struct stackdepot_lf_params *params)
{
	if (!params ||
	    params->max_records < STACKDEPOT_LF_MIN_RECORDS ||
	    params->max_records > STACKDEPOT_LF_MAX_RECORDS ||
	    !params->max_depth || params->max_depth > STACKDEPOT_LF_MAX_DEPTH ||
	    params->expected_depth > params->max_depth ||
	    params->initial_records > params->max_records ||
	    params->flags & ~(STACKDEPOT_LF_COUNT_REFS |
			      STACKDEPOT_LF_CPU_MARKS))
		return 0;
	return roundup_pow_of_two(2 * params->max_records);
}

/* How a depot of valid @params is laid out when created. */
struct sdlf_geometry {
	u32 slots;
	u32 chunk_shift;	/* granules per chunk, log2 */
	u32 max_chunks;
	u32 chunks;		/* at create */
	u32 dir_size;		/* at create */
	u32 ref_stripes;
	u32 max_ref_blocks;	/* 0 without STACKDEPOT_LF_COUNT_REFS */
	u32 ref_blocks;		/* at create */
	u32 mark_words;		/* longs of the bitmap, or of a CPU's cache */
	u32 mark_sets;		/* sets of a CPU's cache, 0 without CPU marks */
};

/* Entries of a chunk directory that lists @chunks of at most @max_chunks. */
static u32 sdlf_dir_entries(u32 chunks, u32 max_chunks)
{
	u32 size = min(SDLF_DIR_MIN, max_chunks);

	while (size < chunks)
		size = min(2 * size, max_chunks);
	return size;
}

static u32 sdlf_ref_stripes(void)
{
	return min_t(u32, roundup_pow_of_two(nr_cpu_ids), SDLF_REF_STRIPES);
}

/*
 * Chunks are about SDLF_CHUNK_RECORDS records of the expected depth, and
 * at least four of the deepest. A generation can use enough of them for
 * @max_records records of the maximum depth (chunk ends included: each
 * full chunk holds at least that many records), and one more for the spare
 * growth keeps ahead. A new depot has room for @initial_records records of
 * the expected depth and the spare past them, two chunks at least, and
 * counter blocks for those records, one at least.
 */
static void sdlf_geometry(const struct stackdepot_lf_params *params,
			  u32 slots, struct sdlf_geometry *g)
{
	u32 depth = params->expected_depth ?:
		    min(STACKDEPOT_LF_DEFAULT_DEPTH, params->max_depth);
	u32 want = max(SDLF_CHUNK_RECORDS * sdlf_record_granules(depth),
		       4 * sdlf_record_granules(params->max_depth));
	u32 in_use;

	g->slots = slots;
	g->chunk_shift = clamp_t(u32, order_base_2(want), SDLF_MIN_CHUNK_SHIFT,
				 SDLF_MAX_CHUNK_SHIFT);
	g->max_chunks = DIV_ROUND_UP(params->max_records,
				     (1U << g->chunk_shift) /
				     sdlf_record_granules(params->max_depth)) + 1;
	in_use = max(DIV_ROUND_UP(params->initial_records,
				  (1U << g->chunk_shift) /
				  sdlf_record_granules(depth)), 1U);
	g->chunks = min(in_use + sdlf_spare(in_use), g->max_chunks);
	g->dir_size = sdlf_dir_entries(g->chunks, g->max_chunks);
	g->ref_stripes = sdlf_ref_stripes();
	g->mark_words = BITS_TO_LONGS(slots);
	g->mark_sets = 0;
	if (params->flags & STACKDEPOT_LF_CPU_MARKS) {
		/* Four slots per set at most: a cache that small is exact. */
		g->mark_sets = min(SDLF_MARK_SETS, slots / SDLF_MARK_WAYS);
		/* Each CPU's on lines of its own: they are written often. */
		g->mark_words = ALIGN(DIV_ROUND_UP(g->mark_sets * SDLF_MARK_WAYS *
						   sizeof(u16), sizeof(long)),
				      SMP_CACHE_BYTES / sizeof(long));
	}
	g->max_ref_blocks = 0;
	g->ref_blocks = 0;
	if (params->flags & STACKDEPOT_LF_COUNT_REFS) {
		g->max_ref_blocks = DIV_ROUND_UP(params->max_records,
						 SDLF_REF_BLOCK);
		g->ref_blocks = max(DIV_ROUND_UP(params->initial_records,
						 SDLF_REF_BLOCK), 1U);
	}
}

/* Bytes of a depot of @g but its chunks and counter blocks. */
static size_t sdlf_mem_base(const struct sdlf_geometry *g)
{
	return sizeof(struct stackdepot_lf) +
	       (size_t)g->slots * sizeof(u32) +
	       (size_t)(g->mark_sets ? nr_cpu_ids : 1) * g->mark_words *
	       sizeof(unsigned long) +
	       nr_cpu_ids * sizeof(struct sdlf_pcpu) +
	       g->dir_size * sizeof(u8 *) +
	       g->max_ref_blocks * sizeof(atomic_long_t *);
}

#if IS_ENABLED(CONFIG_KUNIT)
/* Bytes of one chunk, and of one block of hit counters, of @g. */
static size_t sdlf_chunk_bytes(const struct sdlf_geometry *g)
{
	return (size_t)SDLF_GRANULE << g->chunk_shift;
}

static size_t sdlf_ref_block_bytes(const struct sdlf_geometry *g)
{
	return (size_t)g->ref_stripes * SDLF_REF_BLOCK * sizeof(atomic_long_t);
}

size_t stackdepot_lf_mem_size(const struct stackdepot_lf_params *params)
{
	u32 slots = sdlf_check_params(params);
	struct sdlf_geometry g;

	if (!slots)
		return 0;
	sdlf_geometry(params, slots, &g);
	return sdlf_mem_base(&g) + g.chunks * sdlf_chunk_bytes(&g) +
	       g.ref_blocks * sdlf_ref_block_bytes(&g);
}
EXPORT_SYMBOL_IF_KUNIT(stackdepot_lf_mem_size);

size_t stackdepot_lf_marks_bytes(const struct stackdepot_lf *depot)
{
	if (!depot)
		return 0;
	return (size_t)(depot->mark_sets ? nr_cpu_ids : 1) * depot->mark_words *
	       sizeof(unsigned long);
}
EXPORT_SYMBOL_IF_KUNIT(stackdepot_lf_marks_bytes);
#endif

u32 stackdepot_lf_index_bits(const struct stackdepot_lf_params *params)
{
	u32 slots = sdlf_check_params(params);

	return slots ? ilog2(slots) : 0;
}
EXPORT_SYMBOL_GPL(stackdepot_lf_index_bits);

struct stackdepot_lf *stackdepot_lf_create(const struct stackdepot_lf_params *params)
{
	u32 slots = sdlf_check_params(params);
	struct stackdepot_lf *depot;
	struct sdlf_geometry g;
	struct sdlf_pcpu *pc;
	int ret = 0;
	int cpu;

	if (!slots)
		return ERR_PTR(-EINVAL);
	sdlf_geometry(params, slots, &g);

	depot = kzalloc(sizeof(*depot), GFP_KERNEL);
	if (!depot)
		return ERR_PTR(-ENOMEM);

	depot->slot_mask = slots - 1;
	depot->index_bits = ilog2(slots);
	depot->max_records = params->max_records;
	depot->max_depth = params->max_depth;
	depot->chunk_shift = g.chunk_shift;
	depot->chunk_mask = (1U << depot->chunk_shift) - 1;
	depot->max_chunks = g.max_chunks;
	depot->dir_size = g.dir_size;
	depot->ref_stripes = g.ref_stripes;
	depot->max_ref_blocks = g.max_ref_blocks;
	depot->mark_words = g.mark_words;
	depot->mark_sets = g.mark_sets;
	if (g.mark_sets) {
		depot->mark_tag_shift = ilog2(g.mark_sets);
		depot->mark_epoch_shift = depot->index_bits -
					  depot->mark_tag_shift;
		/* The entry's bits above its tag, 6 of 16 at the least */
		depot->mark_last_base = ((1U << (16 - depot->mark_epoch_shift)) -
					 1) << depot->mark_epoch_shift;
	}
	atomic_long_set(&depot->mark_clears, 0);
	mutex_init(&depot->reset_lock);
	mutex_init(&depot->grow_lock);
	init_irq_work(&depot->grow_irq, sdlf_grow_irq);
	INIT_WORK(&depot->grow_work, sdlf_grow_work);
	atomic64_set(&depot->resets, 0);
	atomic64_set(&depot->hits_base, 0);

	depot->slots = kvcalloc(slots, sizeof(u32), GFP_KERNEL);
	depot->marks = kvcalloc((size_t)(g.mark_sets ? nr_cpu_ids : 1) *
				g.mark_words,
				sizeof(unsigned long), GFP_KERNEL);
	RCU_INIT_POINTER(depot->chunks, kvcalloc(depot->dir_size, sizeof(u8 *),
						 GFP_KERNEL));
	depot->pcpu = alloc_percpu(struct sdlf_pcpu);
	if (depot->max_ref_blocks)
		depot->ref_blocks = kvcalloc(depot->max_ref_blocks,
					     sizeof(atomic_long_t *), GFP_KERNEL);
	/* Chunks and counter blocks count themselves in as they are added. */
	depot->mem_allocated = sdlf_mem_base(&g);
	if (!depot->slots || !depot->marks ||
	    !rcu_access_pointer(depot->chunks) ||
	    !depot->pcpu || (depot->max_ref_blocks && !depot->ref_blocks)) {
		stackdepot_lf_destroy(depot);
		return ERR_PTR(-ENOMEM);
	}
	for_each_possible_cpu(cpu) {
		pc = per_cpu_ptr(depot->pcpu, cpu);
		pc->marks = depot->marks;
		if (g.mark_sets)
			pc->marks = depot->marks + (size_t)cpu * g.mark_words;
		/* Epoch 0 would match the empty entries. */
		pc->mark_base = ((u64)1 << depot->mark_epoch_shift) *
				SDLF_MARK_LANES_LO;
		pc->ref_stripe = cpu & (g.ref_stripes - 1);
	}

	/*
	 * The initial room, so that the first burst of stacks need not wait
	 * for growth (nor boot, which cannot run it yet); growth adds the rest.
	 */
	mutex_lock(&depot->grow_lock);
	while (!ret && depot->nr_chunks < g.chunks)
		ret = sdlf_add_chunk(depot);
	while (!ret && depot->nr_ref_blocks < g.ref_blocks)
		ret = sdlf_add_ref_block(depot);
	mutex_unlock(&depot->grow_lock);
	if (ret) {
		stackdepot_lf_destroy(depot);
		return ERR_PTR(ret);
	}
	/* Not yet published: nobody reads ->state before we return. */
	depot->state = sdlf_ids_alloc(depot, slots);
	if (!depot->state) {
		stackdepot_lf_destroy(depot);
		return ERR_PTR(-ENOSPC);
	}
	return depot;
}
EXPORT_SYMBOL_GPL(stackdepot_lf_create);

void stackdepot_lf_destroy(struct stackdepot_lf *depot)
{
	u8 **dir;
	u32 i;

	if (!depot)
		return;
	sdlf_ids_free(depot);
	/* No get_id runs any more: nothing queues growth after these. */
	irq_work_sync(&depot->grow_irq);
	cancel_work_sync(&depot->grow_work);

	dir = rcu_dereference_protected(depot->chunks, true);
	for (i = 0; dir && i < depot->nr_chunks; i++)
		kvfree(dir[i]);
	kvfree(dir);
	for (i = 0; depot->ref_blocks && i < depot->nr_ref_blocks; i++)
		kvfree(depot->ref_blocks[i]);
	kvfree(depot->ref_blocks);
	free_percpu(depot->pcpu);
	kvfree(depot->marks);
	kvfree(depot->slots);
	mutex_destroy(&depot->grow_lock);
	mutex_destroy(&depot->reset_lock);
	kfree(depot);
}
EXPORT_SYMBOL_GPL(stackdepot_lf_destroy);
