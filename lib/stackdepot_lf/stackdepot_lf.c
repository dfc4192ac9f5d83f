// SPDX-License-Identifier: GPL-2.0
/*
 * stackdepot_lf - lock-free, generation-aware stack trace deduplication
 *
 * Layout
 * ------
 * A depot is an open-addressing hash table of u32 slots plus an arena of
 * variable-length records (struct sdlf_record: an 8-byte header and the
 * frames). A slot is 0 while empty; otherwise it holds the arena offset of
 * its record in 8-byte granules plus one. Within a generation a slot
 * changes at most once, from 0 to its record, and a published record never
 * changes, so readers need no retry loop.
 *
 * Ids
 * ---
 * Each generation of each depot is given a range of 2^@index_bits ids, as
 * many as its table has slots, aligned to its size: the id of slot @pos is
 * the base of the range plus @pos, and the generation tag is the id above
 * @index_bits. Ranges are handed out system-wide in order (sdlf_ids_alloc()),
 * so an id resolves in the one depot and generation it came from, and in
 * no other until the 2^32 id values have all been handed out again. Range
 * 0 is never handed out, so 0 is never an id.
 *
 * Coding conventions in this file: @depot is the depot, @val a slot value,
 * @pos a slot index, @state the generation state word (the base of the
 * generation's id range, with the busy bit set during a reset).
 *
 * Ordering guarantees
 * -------------------
 * - Publication: an inserter allocates arena space, writes the whole record
 *   with plain stores, then publishes it with cmpxchg_release() on an empty
 *   slot. Every reader loads slots with smp_load_acquire(), so a record is
 *   complete before anyone can reach it. A half-built record is reachable by
 *   nobody; there is no "claimed but empty" slot state.
 * - Generations: get_id, lookup and every step of an iteration run inside
 *   sdlf_read_lock() and start with smp_load_acquire() of @state. Reset
 *   sets the busy bit, waits for all read sections with sdlf_synchronize(),
 *   clears the table and arena with no reader or writer left that saw the
 *   old generation, counts the reset, and publishes the next range with
 *   smp_store_release(). Hence a caller that sees a generation sees that
 *   generation's table and reset count, and nobody observes a record while
 *   it is cleared or rewritten. That holds only for callers a grace period
 *   waits for: sdlf_read_lock() tells the others (a CPU going offline after
 *   RCU stopped waiting for it, code where RCU is not watching), which get
 *   -EPERM having read only the depot's constant fields and counted in its
 *   per-CPU statistics: the depot itself must still be valid for them.
 * - Arena reuse within a generation: a caller that lost a publication race
 *   gives its unpublished record's space back with a release cmpxchg on
 *   @arena_used, and allocations take space with an acquire cmpxchg, so
 *   the loser's stores are ordered before the next owner's.
 * - Hit counts (%STACKDEPOT_LF_COUNT_REFS) are relaxed atomics kept apart
 *   from the records so that the hit path does not dirty the cache lines
 *   that other CPUs compare against. Each CPU counts into one of up to
 *   SDLF_REF_STRIPES copies of the counter array (its own, on machines
 *   with that few CPUs), so that CPUs hitting the same hot stack do not
 *   bounce one cache line between them; readers sum the copies.
 * - Statistics are per-CPU local64_t counters, incremented with preemption
 *   disabled (NMI-safe where the depot can be built at all, see Kconfig)
 *   and summed without synchronisation.
 *
 * Progress guarantees
 * -------------------
 * - get_id is lock-free: it probes at most @max_probe slots, and its only
 *   loops that can repeat are the compare-and-swap loops reserving a record
 *   and arena space, which fail only when another caller succeeded.
 * - lookup is wait-free. An iteration step is wait-free, bounded by the
 *   table size.
 * - reset blocks: it takes a mutex and waits for an RCU grace period. It
 *   never waits for a get_id caller beyond that caller's bounded section.
 */

#include "stackdepot_lf_internal.h"

#define SDLF_BUSY		1U
/* Iterator state of a walk that saw a reset; odd, so never a live state */
#define SDLF_ITER_STALE		U32_MAX
#define SDLF_GRANULE		8U
/* Copies of the hit counters; a power of two */
#define SDLF_REF_STRIPES	8U

struct sdlf_record {
	u32 hash;
	u16 depth;
	u16 reserved;
	unsigned long entries[];
};

struct sdlf_pcpu_stats {
	local64_t hits;
	local64_t inserts;
	local64_t lost_races;
	local64_t drops_full;
	local64_t drops_probe;
	local64_t drops_too_deep;
	local64_t drops_busy;
	local64_t drops_context;
};

struct stackdepot_lf {
	/* Read-mostly: set at create, @state changes only on reset. */
	u32 state;
	u32 slot_mask;
	u32 index_bits;
	u32 max_records;
	u32 max_depth;
	u32 max_probe;
	u32 flags;
	u32 ref_stripes;
	u32 arena_granules;
	u32 (*hash)(const unsigned long *entries, unsigned int nr_entries);
	u32 *slots;
	atomic_t *refs;		/* ref_stripes arrays of table size */
	u8 *arena;
	size_t mem_total;
	struct sdlf_pcpu_stats __percpu *pcpu;

	/* Written by inserts only, on its own cache line; in granules. */
	atomic_t nr_records ____cacheline_aligned;
	atomic_t arena_used;
	atomic_t arena_lost;

	/* Reset side. */
	struct mutex reset_lock ____cacheline_aligned;
	atomic64_t resets;
};

/*
 * The next free id, system-wide: each generation of each depot takes the
 * next range of ids aligned to its table size (see "Ids" above).
 */
static DEFINE_MUTEX(sdlf_ids_lock);
static u64 sdlf_ids_next;

/* Take the id range of a new generation of a table of @slots slots. */
static u32 sdlf_ids_alloc(u32 slots)
{
	u64 base;

	mutex_lock(&sdlf_ids_lock);
	base = ALIGN(sdlf_ids_next, (u64)slots);
	/* Range 0 would hold id 0; after the last range, wrap to the first. */
	if (!base || base + slots > (1ULL << 32))
		base = slots;
	sdlf_ids_next = base + slots;
	mutex_unlock(&sdlf_ids_lock);
	return base;
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
 * frames that trade lanes from hashing alike, and the final avalanche
 * (MurmurHash3's fmix64) makes every input bit reach the slot index.
 */
static u32 sdlf_hash(const unsigned long *entries, unsigned int nr_entries)
{
	u64 a = 0x9e3779b97f4a7c15ULL ^ nr_entries, b = 0xc2b2ae3d27d4eb4fULL;
	u64 c = 0x165667b19e3779f9ULL, d = 0x27d4eb2f165667c5ULL, h;
	unsigned int i;

	for (i = 0; i + 4 <= nr_entries; i += 4) {
		a = sdlf_mix(a, entries[i]);
		b = sdlf_mix(b, entries[i + 1]);
		c = sdlf_mix(c, entries[i + 2]);
		d = sdlf_mix(d, entries[i + 3]);
	}
	for (; i < nr_entries; i++)
		a = sdlf_mix(a, entries[i]);

	h = a ^ (b << 16 | b >> 48) ^ (c << 32 | c >> 32) ^ (d << 48 | d >> 16);
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ULL;
	return (u32)(h ^ (h >> 33));
}

static inline struct sdlf_record *sdlf_record(struct stackdepot_lf *depot,
					      u32 val)
{
	return (struct sdlf_record *)(depot->arena +
				      (size_t)(val - 1) * SDLF_GRANULE);
}

/* The hit counter of slot @pos in copy @stripe */
static inline atomic_t *sdlf_ref(struct stackdepot_lf *depot, u32 stripe,
				 u32 pos)
{
	return &depot->refs[(size_t)stripe * (depot->slot_mask + 1) + pos];
}

/* Count a call that returned slot @pos; called in a read section. */
static __always_inline void sdlf_count_ref(struct stackdepot_lf *depot, u32 pos)
{
	if (depot->refs)
		atomic_inc(sdlf_ref(depot, sdlf_cpu() & (depot->ref_stripes - 1),
				    pos));
}

static unsigned int sdlf_read_refs(struct stackdepot_lf *depot, u32 pos)
{
	unsigned int refs = 0;
	u32 stripe;

	if (!depot->refs)
		return 0;
	for (stripe = 0; stripe < depot->ref_stripes; stripe++)
		refs += atomic_read(sdlf_ref(depot, stripe, pos));
	return refs;
}

/* Arena granules a record of @depth frames takes */
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
 * loop on architectures without efficient unaligned access. Once hash and
 * depth match, the stacks almost always are equal and every word gets
 * compared anyway, so the loop takes no early exit, only a few
 * instructions a frame.
 */
static bool sdlf_record_match(const struct sdlf_record *rec, u32 hash,
			      const unsigned long *entries,
			      unsigned int nr_entries)
{
	unsigned long diff = 0;
	unsigned int i;

	if (rec->hash != hash || rec->depth != nr_entries)
		return false;
	for (i = 0; i < nr_entries; i++)
		diff |= rec->entries[i] ^ entries[i];
	return !diff;
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
 * Reserve one record of the budget and arena space for it, then fill it in.
 * Returns the slot value that will publish it, or 0 if the depot is full.
 * The record becomes reachable only through the cmpxchg_release() in
 * sdlf_slot_publish(); the acquire on the arena only orders our stores
 * after those of a loser that gave the same bytes back.
 */
static u32 sdlf_record_build(struct stackdepot_lf *depot, u32 hash,
			     const unsigned long *entries,
			     unsigned int nr_entries)
{
	u32 size = sdlf_record_granules(nr_entries);
	struct sdlf_record *rec;
	int nr, used;

	nr = atomic_read(&depot->nr_records);
	do {
		if ((u32)nr >= depot->max_records)
			return 0;
	} while (!atomic_try_cmpxchg_relaxed(&depot->nr_records, &nr, nr + 1));

	used = atomic_read(&depot->arena_used);
	do {
		/* Granule counts fit in an int: the arena is at most 4 GiB. */
		if (size > depot->arena_granules - (u32)used) {
			atomic_dec(&depot->nr_records);
			return 0;
		}
		/*
		 * Pairs with the release in sdlf_record_discard(): the stores
		 * of a record given back land before ours to the same bytes.
		 */
	} while (!atomic_try_cmpxchg_acquire(&depot->arena_used, &used,
					     used + size));

	rec = sdlf_record(depot, used + 1);
	rec->hash = hash;
	rec->depth = nr_entries;
	rec->reserved = 0;
	memcpy(rec->entries, entries, nr_entries * sizeof(*entries));
	return used + 1;
}

/*
 * Give back a record that lost its race and was never published. Its arena
 * space is returned if nobody allocated after it, and accounted as lost
 * otherwise.
 */
static void sdlf_record_discard(struct stackdepot_lf *depot, u32 val)
{
	u32 size = sdlf_record_granules(sdlf_record(depot, val)->depth);
	int start = val - 1, end = start + size;

	/*
	 * Pairs with the acquire in sdlf_record_build() of the next owner.
	 * On failure the cmpxchg overwrites @end: count @size, not @end.
	 */
	if (!atomic_try_cmpxchg_release(&depot->arena_used, &end, start))
		atomic_add(size, &depot->arena_lost);
	atomic_dec(&depot->nr_records);
}

bool stackdepot_lf_caller_visible(void)
{
	return sdlf_caller_visible();
}
EXPORT_SYMBOL_GPL(stackdepot_lf_caller_visible);

/* get_id of a caller in a read section that a grace period waits for */
static __always_inline int sdlf_get_id(struct stackdepot_lf *depot,
				       const unsigned long *entries,
				       unsigned int nr_entries,
				       stackdepot_lf_id_t *id)
{
	u32 hash, state, pos, val, new_val = 0;
	unsigned int i;
	int ret;

	if (unlikely(nr_entries > depot->max_depth)) {
		sdlf_count(&depot->pcpu->drops_too_deep);
		return -E2BIG;
	}
	hash = depot->hash ? depot->hash(entries, nr_entries) :
			     sdlf_hash(entries, nr_entries);

	/* Pairs with smp_store_release() in stackdepot_lf_reset(). */
	state = smp_load_acquire(&depot->state);
	if (unlikely(state & SDLF_BUSY)) {
		sdlf_count(&depot->pcpu->drops_busy);
		return -EBUSY;
	}

	pos = hash & depot->slot_mask;
	for (i = 0; i < depot->max_probe; i++, pos = (pos + 1) & depot->slot_mask) {
		/* Pairs with sdlf_slot_publish(): the record is complete. */
		val = smp_load_acquire(&depot->slots[pos]);
		if (!val) {
			if (!new_val) {
				new_val = sdlf_record_build(depot, hash, entries,
							    nr_entries);
				if (!new_val) {
					sdlf_count(&depot->pcpu->drops_full);
					ret = -ENOSPC;
					goto out;
				}
			}
			if (sdlf_slot_publish(depot, pos, new_val)) {
				/* Hitters may already count it: add, not set. */
				sdlf_count_ref(depot, pos);
				sdlf_count(&depot->pcpu->inserts);
				*id = sdlf_make_id(state, pos);
				new_val = 0;
				ret = 0;
				goto out;
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
			sdlf_count_ref(depot, pos);
			sdlf_count(&depot->pcpu->hits);
			if (new_val)
				sdlf_count(&depot->pcpu->lost_races);
			*id = sdlf_make_id(state, pos);
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

int stackdepot_lf_get_id(struct stackdepot_lf *depot,
			 const unsigned long *entries, unsigned int nr_entries,
			 stackdepot_lf_id_t *id)
{
	int ret;

	if (unlikely(!depot || !nr_entries))
		return -EINVAL;

	/* Counters are per CPU: count in the section, visible or not. */
	if (likely(sdlf_read_lock())) {
		ret = sdlf_get_id(depot, entries, nr_entries, id);
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
			     unsigned int nr_entries, stackdepot_lf_id_t *id)
{
	struct stackdepot_lf *depot;
	int ret = -EPERM;

	if (unlikely(!nr_entries))
		return -EINVAL;

	/* A refused caller must not even load the pointer: nothing to count in. */
	if (likely(sdlf_read_lock())) {
		/* Pairs with the owner's rcu_assign_pointer() of *@depotp. */
		depot = rcu_dereference_sched(*depotp);
		ret = depot ? sdlf_get_id(depot, entries, nr_entries, id) :
			      -ENODEV;
	}
	sdlf_read_unlock();
	return ret;
}
EXPORT_SYMBOL_GPL(stackdepot_lf_get_id_rcu);

/* Copy out the record in slot @pos; called in a read section. */
static int sdlf_copy(struct stackdepot_lf *depot, u32 state, u32 pos, u32 val,
		     unsigned long *entries, unsigned int size,
		     struct stackdepot_lf_info *info)
{
	const struct sdlf_record *rec = sdlf_record(depot, val);
	unsigned int depth = rec->depth;

	if (depth > size)
		return -ENOSPC;
	memcpy(entries, rec->entries, depth * sizeof(*entries));
	if (info) {
		info->id = sdlf_make_id(state, pos);
		info->depth = depth;
		info->refs = sdlf_read_refs(depot, pos);
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

void stackdepot_lf_reset(struct stackdepot_lf *depot)
{
	u32 state;

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
	if (depot->refs)
		memset(depot->refs, 0, (size_t)depot->ref_stripes *
		       (depot->slot_mask + 1) * sizeof(atomic_t));
	atomic_set(&depot->nr_records, 0);
	atomic_set(&depot->arena_used, 0);
	atomic_set(&depot->arena_lost, 0);
	atomic64_inc(&depot->resets);

	/*
	 * Pairs with smp_load_acquire() of ->state: whoever sees the new
	 * generation sees the cleared table, the counters and the new reset
	 * count.
	 */
	smp_store_release(&depot->state, sdlf_ids_alloc(depot->slot_mask + 1));
	mutex_unlock(&depot->reset_lock);
}
EXPORT_SYMBOL_GPL(stackdepot_lf_reset);

u32 stackdepot_lf_generation(struct stackdepot_lf *depot)
{
	/* Pairs with the stores to ->state in stackdepot_lf_reset(). */
	return depot ? READ_ONCE(depot->state) >> depot->index_bits : 0;
}
EXPORT_SYMBOL_GPL(stackdepot_lf_generation);

u32 stackdepot_lf_id_gen(struct stackdepot_lf *depot, stackdepot_lf_id_t id)
{
	return depot ? stackdepot_lf_id_to_u32(id) >> depot->index_bits : 0;
}
EXPORT_SYMBOL_GPL(stackdepot_lf_id_gen);

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

void stackdepot_lf_stats(struct stackdepot_lf *depot,
			 struct stackdepot_lf_stats *stats)
{
	unsigned int cpu;
	u32 state;

	memset(stats, 0, sizeof(*stats));
	if (!depot)
		return;

	/* Pairs with the stores to ->state in stackdepot_lf_reset(). */
	state = READ_ONCE(depot->state);
	stats->generation = state >> depot->index_bits;
	stats->resetting = state & SDLF_BUSY;
	stats->index_bits = depot->index_bits;
	stats->records = atomic_read(&depot->nr_records);
	stats->max_records = depot->max_records;
	stats->table_slots = depot->slot_mask + 1;
	stats->max_depth = depot->max_depth;
	stats->arena_used = (u64)(u32)atomic_read(&depot->arena_used) *
			    SDLF_GRANULE;
	stats->arena_lost = (u64)(u32)atomic_read(&depot->arena_lost) *
			    SDLF_GRANULE;
	stats->arena_size = (u64)depot->arena_granules * SDLF_GRANULE;
	stats->mem_total = depot->mem_total;
	stats->resets = atomic64_read(&depot->resets);

	for_each_possible_cpu(cpu) {
		struct sdlf_pcpu_stats *pcpu = per_cpu_ptr(depot->pcpu, cpu);

		/* Pairs with local64_inc() in sdlf_count(); may lag. */
		stats->hits += local64_read(&pcpu->hits);
		stats->inserts += local64_read(&pcpu->inserts);
		stats->lost_races += local64_read(&pcpu->lost_races);
		stats->drops_full += local64_read(&pcpu->drops_full);
		stats->drops_probe += local64_read(&pcpu->drops_probe);
		stats->drops_too_deep += local64_read(&pcpu->drops_too_deep);
		stats->drops_busy += local64_read(&pcpu->drops_busy);
		stats->drops_context += local64_read(&pcpu->drops_context);
	}
}
EXPORT_SYMBOL_GPL(stackdepot_lf_stats);

/* Table slots for @params, or 0 if @params is out of range. */
static u32 sdlf_check_params(const struct stackdepot_lf_params *params)
{
	if (!params ||
	    params->max_records < STACKDEPOT_LF_MIN_RECORDS ||
	    params->max_records > STACKDEPOT_LF_MAX_RECORDS ||
	    !params->max_depth || params->max_depth > STACKDEPOT_LF_MAX_DEPTH ||
	    params->max_probe > STACKDEPOT_LF_MAX_PROBE ||
	    params->flags & ~STACKDEPOT_LF_COUNT_REFS ||
	    params->arena_size <
	    (size_t)sdlf_record_granules(params->max_depth) * SDLF_GRANULE ||
	    params->arena_size > STACKDEPOT_LF_MAX_ARENA)
		return 0;
	return roundup_pow_of_two(2 * params->max_records);
}

static u32 sdlf_ref_stripes(void)
{
	return min_t(u32, roundup_pow_of_two(nr_cpu_ids), SDLF_REF_STRIPES);
}

/* Bytes a depot of @params takes, in 64 bits so that it cannot wrap. */
static u64 sdlf_mem_size(const struct stackdepot_lf_params *params,
			 u32 slots)
{
	u64 size = sizeof(struct stackdepot_lf) +
		   (u64)ALIGN_DOWN(params->arena_size, SDLF_GRANULE) +
		   (u64)slots * sizeof(u32) +
		   (u64)nr_cpu_ids * sizeof(struct sdlf_pcpu_stats);

	if (params->flags & STACKDEPOT_LF_COUNT_REFS)
		size += (u64)sdlf_ref_stripes() * slots * sizeof(atomic_t);
	return size;
}

size_t stackdepot_lf_mem_size(const struct stackdepot_lf_params *params)
{
	u32 slots = sdlf_check_params(params);
	u64 size;

	if (!slots)
		return 0;
	size = sdlf_mem_size(params, slots);
	return size > SIZE_MAX ? 0 : size;
}
EXPORT_SYMBOL_GPL(stackdepot_lf_mem_size);

struct stackdepot_lf *stackdepot_lf_create(const struct stackdepot_lf_params *params)
{
	u32 slots = sdlf_check_params(params);
	struct stackdepot_lf *depot;

	if (!slots || sdlf_mem_size(params, slots) > SIZE_MAX)
		return ERR_PTR(-EINVAL);

	depot = kzalloc(sizeof(*depot), GFP_KERNEL);
	if (!depot)
		return ERR_PTR(-ENOMEM);

	depot->slot_mask = slots - 1;
	depot->index_bits = ilog2(slots);
	depot->max_records = params->max_records;
	depot->max_depth = params->max_depth;
	depot->max_probe = min(params->max_probe ?: STACKDEPOT_LF_DEFAULT_PROBE,
			       slots);
	depot->flags = params->flags;
	depot->ref_stripes = sdlf_ref_stripes();
	depot->hash = params->hash;
	depot->arena_granules = params->arena_size / SDLF_GRANULE;
	depot->mem_total = sdlf_mem_size(params, slots);
	mutex_init(&depot->reset_lock);
	atomic64_set(&depot->resets, 0);

	depot->slots = kvcalloc(slots, sizeof(u32), GFP_KERNEL);
	depot->arena = vmalloc((size_t)depot->arena_granules * SDLF_GRANULE);
	depot->pcpu = alloc_percpu(struct sdlf_pcpu_stats);
	if (params->flags & STACKDEPOT_LF_COUNT_REFS)
		depot->refs = kvcalloc((size_t)depot->ref_stripes * slots,
				       sizeof(atomic_t), GFP_KERNEL);
	if (!depot->slots || !depot->arena || !depot->pcpu ||
	    (params->flags & STACKDEPOT_LF_COUNT_REFS && !depot->refs)) {
		stackdepot_lf_destroy(depot);
		return ERR_PTR(-ENOMEM);
	}
	/* Not yet published: nobody reads ->state before we return. */
	depot->state = sdlf_ids_alloc(slots);
	return depot;
}
EXPORT_SYMBOL_GPL(stackdepot_lf_create);

void stackdepot_lf_destroy(struct stackdepot_lf *depot)
{
	if (!depot)
		return;
	free_percpu(depot->pcpu);
	kvfree(depot->refs);
	vfree(depot->arena);
	kvfree(depot->slots);
	mutex_destroy(&depot->reset_lock);
	kfree(depot);
}
EXPORT_SYMBOL_GPL(stackdepot_lf_destroy);
