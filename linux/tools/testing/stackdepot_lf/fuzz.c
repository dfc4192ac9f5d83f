// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the input is a depot geometry followed by a sequence
 * of API operations, run single-threaded against a model of what the depot
 * must hold. Any disagreement aborts.
 *
 * Input: 8 bytes of parameters (max_records: 2 bytes, max_depth: 2,
 * expected_depth, flags, hash stub, growth paused from the start), then
 * operations of one opcode byte and up to five argument bytes; the
 * opcode modulo 10 is: 0-2 get_id, 3-4 lookup, 5 reset, 6 walk, 7 check
 * everything, 8 many new stacks at once, 9 growth control (hold back or
 * let run, make an allocation fail, check everything).
 *
 * The model is exact: it keeps the hash table (the slot of every record,
 * probing as the depot does with the hash the depot uses, stub or not),
 * the chunk cursor and chunk ends, the records' hit counts and every
 * counter, and predicts the outcome of each call.
 *
 * Growth runs on the harness's worker thread. The fuzzer waits for it
 * after each operation (sdlf_grow_flush()), so that every call starts from
 * a known set of chunks and counter blocks, read back from stats.chunks
 * and stats.mem_allocated; and it lets inputs hold growth back and make
 * its allocations fail, so that the stalls are modelled too: an insert
 * needs its chunk and its counter block, and is refused with drops_grow
 * without them. What growth adds in one operation is not fully determined,
 * because a run may start while the call that asked for it is still going
 * and see its cursors half-way; the model bounds it by what the states
 * the call went through ask for. For the same reason, an insert that asked
 * for growth (its record landed in the last chunk) before it looked for
 * its counter block may find the block added under it: both outcomes are
 * accepted there, and followed.
 */
#include "util.h"

#define FUZZ_STACKS	1024
/* max_records of the inputs stay below this */
#define FUZZ_MAX_IDS	1200
#define FUZZ_MAX_SLOTS	4096
#define FUZZ_OLD_IDS	64
/* The library's probe limit and counter block, as the header tells */
#define FUZZ_PROBE	32U
#define FUZZ_REF_BLOCK	256U

#define CHECK(cond) do {						\
	if (!(cond)) {							\
		fprintf(stderr, "fuzz: %s:%d: %s\n", __FILE__, __LINE__,\
			#cond);						\
		abort();						\
	}								\
} while (0)

#define RS(depth)	STACKDEPOT_LF_RECORD_SIZE(depth)
#define ID(id)		stackdepot_lf_id_to_u32(id)

struct model_rec {
	u16 stack;
	u16 depth;
	u32 hits;
	u32 raw;
};

/* What the depot must hold and have counted. */
struct model {
	struct stackdepot_lf *depot;
	struct stackdepot_lf_params p;
	bool refs;
	bool paused;
	/* a failed allocation may have left a directory ahead of the chunks */
	bool failed;
	u32 gen;
	u32 bits;	/* index bits of the ids */
	u32 mask;
	u32 probe;
	/* Geometry */
	u64 chunk_size;
	u32 max_chunks;
	u32 max_blocks;
	u64 block_size;	/* bytes of a counter block */
	u64 mem0;	/* stackdepot_lf_mem_size() */
	u32 chunks0;	/* chunks and counter blocks at create */
	u32 blocks0;
	/* Growth, as read back after each operation */
	u32 chunks;
	u32 blocks;
	u64 mem;
	/* The current generation */
	unsigned int nr_ids;
	struct model_rec rec[FUZZ_MAX_IDS];
	u16 slot_rec[FUZZ_MAX_SLOTS];	/* index into rec + 1, or 0 */
	u64 arena;	/* bytes */
	u64 ends;
	/* Lifetime counters */
	u64 hits, inserts, drops_full, drops_grow, drops_probe, drops_too_deep;
	u64 resets;
	unsigned int nr_old;
	u32 old_ids[FUZZ_OLD_IDS];
};

/*
 * The cursors a call went through, and the growth requests it made in
 * them: a run of growth sees one of the states from the first request on,
 * and at least one from the last certain one on.
 */
struct grow_track {
	unsigned int n;
	u64 arena[4];
	u32 records[4];
	bool req[4];
	bool certain[4];
};

struct input {
	const u8 *data;
	size_t size;
};

static u8 next_byte(struct input *in)
{
	u8 b = 0;

	if (in->size) {
		b = *in->data++;
		in->size--;
	}
	return b;
}

static u32 hash_const(const unsigned long *entries, unsigned int nr_entries)
{
	return 7;
}

static u32 hash_weak(const unsigned long *entries, unsigned int nr_entries)
{
	return stack_nr(entries) & 3;
}

static unsigned long entries[STACKDEPOT_LF_MAX_DEPTH + 8];
static unsigned long got[STACKDEPOT_LF_MAX_DEPTH + 8];

static void track_state(struct grow_track *t, const struct model *m)
{
	CHECK(t->n < ARRAY_SIZE(t->arena));
	t->arena[t->n] = m->arena;
	t->records[t->n] = m->nr_ids;
	t->req[t->n] = false;
	t->certain[t->n] = false;
	t->n++;
}

/* A request in the last state tracked */
static void track_req(struct grow_track *t, bool certain)
{
	t->req[t->n - 1] = true;
	t->certain[t->n - 1] |= certain;
}

/* Spare chunks or blocks growth keeps past @in_use: half, one at least */
static u32 spare_for(u32 in_use)
{
	return max(in_use / 2, 1U);
}

/* Is the spare past @in_use of @have, of at most @max, short? */
static bool spare_short(u32 in_use, u32 have, u32 max)
{
	return have < min(in_use + spare_for(in_use), max);
}

/* Chunks growth wants in a state: the spare past the chunks in use */
static u32 want_chunks(const struct model *m, u64 arena)
{
	u32 in_use = (arena ? (arena - 1) / m->chunk_size : 0) + 1;

	return min(in_use + spare_for(in_use), m->max_chunks);
}

static u32 want_blocks(const struct model *m, u32 records)
{
	u32 in_use = records / FUZZ_REF_BLOCK + 1;

	return min(in_use + spare_for(in_use), m->max_blocks);
}

/* Entries of the chunk directory for @chunks chunks */
static u32 dir_for(const struct model *m, u32 chunks)
{
	u32 dir = min(8U, m->max_chunks);

	while (dir < chunks)
		dir = min(2 * dir, m->max_chunks);
	return dir;
}

/*
 * The counter blocks a depot of @chunks chunks and @mem bytes has: its
 * memory is the initial size, the chunks and directory entries added, and
 * the blocks added. The directory may be one size ahead of the chunks
 * when the chunk after a new directory failed to allocate; the sizes are
 * such that only one reading fits.
 */
static u32 blocks_for(const struct model *m, u32 chunks, u64 mem)
{
	u32 dir = dir_for(m, chunks), dir0 = dir_for(m, m->chunks0), next, found = 0;
	u64 rest;
	int i;

	CHECK(mem >= m->mem0 + (u64)(chunks - m->chunks0) * m->chunk_size);
	next = chunks == dir && dir < m->max_chunks ?
	       min(2 * dir, m->max_chunks) : 0;
	for (i = 0; i < 2; i++, dir = next) {
		if (!dir || (i && !m->failed))
			break;
		rest = mem - m->mem0 -
		       (u64)(chunks - m->chunks0) * m->chunk_size;
		if (rest < (u64)(dir - dir0) * sizeof(void *))
			continue;
		rest -= (u64)(dir - dir0) * sizeof(void *);
		if (!m->refs) {
			if (!rest) {
				CHECK(!found);
				found = 1;
			}
			continue;
		}
		if (rest % m->block_size)
			continue;
		CHECK(!found);
		found = rest / m->block_size + m->blocks0;
		CHECK(found <= m->max_blocks);
	}
	CHECK(found);
	return m->refs ? found : 0;
}

/*
 * Read back what growth did in the operation that went through @t, and
 * check it against what the states it went through ask for.
 */
static void check_growth(struct model *m, const struct grow_track *t,
			 unsigned int fail_before,
			 struct stackdepot_lf_stats *st)
{
	u32 c0 = m->chunks, b0 = m->blocks, lo_c, hi_c, lo_b, hi_b;
	unsigned int fail_after, k, first = t->n, last = t->n;
	bool fired;

	stackdepot_lf_stats(m->depot, st);
	fail_after = __atomic_load_n(&sdlf_fail_alloc_at, __ATOMIC_RELAXED);
	CHECK(fail_after <= fail_before);
	fired = fail_before && !fail_after;
	m->failed |= fired;
	for (k = 0; k < t->n; k++) {
		if (t->req[k] && first == t->n)
			first = k;
		if (t->certain[k])
			last = k;
	}
	m->mem = st->mem_allocated;
	m->chunks = st->chunks;
	m->blocks = blocks_for(m, st->chunks, st->mem_allocated);
	if (first == t->n || m->paused) {
		/* Nothing ran, or it did nothing. */
		CHECK(fail_after == fail_before);
		CHECK(m->chunks == c0 && m->blocks == b0);
		return;
	}
	hi_c = c0;
	hi_b = b0;
	for (k = first; k < t->n; k++) {
		hi_c = max(hi_c, want_chunks(m, t->arena[k]));
		if (m->refs)
			hi_b = max(hi_b, want_blocks(m, t->records[k]));
	}
	lo_c = c0;
	lo_b = b0;
	if (last < t->n && !fired) {
		lo_c = ~0U;
		lo_b = ~0U;
		for (k = last; k < t->n; k++) {
			lo_c = min(lo_c, want_chunks(m, t->arena[k]));
			lo_b = min(lo_b, m->refs ?
				   want_blocks(m, t->records[k]) : 0);
		}
		lo_c = max(lo_c, c0);
		lo_b = max(lo_b, b0);
	}
	CHECK(m->chunks >= lo_c && m->chunks <= hi_c);
	CHECK(m->blocks >= lo_b && m->blocks <= hi_b);
	/* Nothing to add, nothing allocated: a failure stays armed. */
	if (hi_c == c0 && hi_b == b0)
		CHECK(fail_after == fail_before);
}

/* The counters and cursors the model knows, against the depot's @st. */
static void check_counters_in(struct model *m,
			      const struct stackdepot_lf_stats *st)
{
	CHECK(st->generation == m->gen);
	CHECK(!st->resetting);
	CHECK(st->records == m->nr_ids);
	/* Single-threaded: no lost race, so no arena is ever lost. */
	CHECK(st->arena_used == m->arena);
	CHECK(st->chunk_ends == m->ends);
	CHECK(st->arena_lost == 0 && st->lost_races == 0 &&
	      st->drops_busy == 0 && st->drops_context == 0);
	CHECK(st->arena_used <= (u64)st->chunks * st->chunk_size);
	/* Each record has a long counter per stripe of its block. */
	CHECK(st->mem_used == st->arena_used +
	      (m->refs ? m->nr_ids * m->block_size / FUZZ_REF_BLOCK : 0));
	CHECK(st->chunks == m->chunks && st->mem_allocated == m->mem);
	CHECK(st->chunks <= m->max_chunks);
	CHECK(st->hits == m->hits && st->inserts == m->inserts);
	CHECK(st->drops_full == m->drops_full);
	CHECK(st->drops_grow == m->drops_grow);
	CHECK(st->drops_probe == m->drops_probe);
	CHECK(st->drops_too_deep == m->drops_too_deep);
	CHECK(st->resets == m->resets);
}

static void check_counters(struct model *m)
{
	struct stackdepot_lf_stats st;

	stackdepot_lf_stats(m->depot, &st);
	check_counters_in(m, &st);
}

/* The hit count lookup and iteration report for @r */
static u32 model_refs(const struct model *m, const struct model_rec *r)
{
	return m->refs ? 1 + r->hits : 0;
}

/*
 * Everything, including the accounting identity: the chunk bytes used are
 * the records', lost ones (none here) and chunk ends.
 */
static void check_stats(struct model *m)
{
	struct stackdepot_lf_stats st;
	struct stackdepot_lf_info info;
	struct stackdepot_lf_iter iter;
	u64 bytes = 0, want = 0;
	unsigned int i, n = 0;
	int ret;

	check_counters(m);
	stackdepot_lf_stats(m->depot, &st);
	for (i = 0; i < m->nr_ids; i++)
		want += RS(m->rec[i].depth);
	stackdepot_lf_iter_start(&iter, m->depot);
	while ((ret = stackdepot_lf_iter_next(&iter, got, ARRAY_SIZE(got),
					      &info)) > 0) {
		bytes += RS(ret);
		n++;
	}
	CHECK(ret == 0 && n == m->nr_ids);
	CHECK(bytes == want);
	CHECK(st.arena_used - st.arena_lost - st.chunk_ends == bytes);
}

/*
 * get_id of stack @nr of @depth frames, predicted. Unless @each, the
 * counters are read back (which sums every ref counter) only after calls
 * that may have changed more than the model's counters, and the caller
 * checks them when done.
 */
static void get_id_at(struct model *m, u32 nr, unsigned int depth, bool each)
{
	stackdepot_lf_id_t id = stackdepot_lf_u32_to_id(0xdead);
	unsigned int fail = __atomic_load_n(&sdlf_fail_alloc_at,
					    __ATOMIC_RELAXED);
	struct stackdepot_lf_stats st;
	struct grow_track t = { };
	u64 size, start, chunk;
	struct model_rec *r;
	u32 pos, k;
	bool r4;
	int ret;

	make_stack(entries, depth, nr);
	ret = stackdepot_lf_get_id(m->depot, entries, depth, &id);
	sdlf_grow_flush(m->depot);
	if (!depth) {
		CHECK(ret == -EINVAL);
		return;
	}
	if (depth > m->p.max_depth) {
		CHECK(ret == -E2BIG);
		m->drops_too_deep++;
		goto refused;
	}

	/* The depot's probe, on the model's table. */
	pos = sdlf_hash(entries, depth) & m->mask;
	for (k = 0; k < m->probe; k++, pos = (pos + 1) & m->mask) {
		if (!m->slot_rec[pos])
			break;
		r = &m->rec[m->slot_rec[pos] - 1];
		if (r->stack == nr && r->depth == depth) {
			CHECK(ret == 0 && ID(id) == r->raw);
			r->hits++;
			m->hits++;
			goto out;
		}
	}
	if (k == m->probe) {
		CHECK(ret == -ENOSPC);
		m->drops_probe++;
		goto refused;
	}

	/* A new record for the empty slot @pos; sdlf_record_build() */
	track_state(&t, m);
	if (m->nr_ids >= m->p.max_records)
		goto full;
	if (m->refs && m->nr_ids / FUZZ_REF_BLOCK >= m->blocks) {
		/* No counter block: refused before it takes chunk space. */
		track_req(&t, true);
		goto grow;
	}
	size = RS(depth);
	start = m->arena;
	if (start % m->chunk_size + size > m->chunk_size)
		start = ALIGN(start, m->chunk_size);
	chunk = start / m->chunk_size;
	if (chunk >= m->chunks) {
		if (m->chunks >= m->max_chunks)
			goto full;
		/* Its chunk is not there yet: ask for it. */
		track_req(&t, true);
		goto grow;
	}
	m->ends += start - m->arena;
	m->arena = start + size;
	track_state(&t, m);
	r4 = spare_short(chunk + 1, m->chunks, m->max_chunks);
	if (r4)
		track_req(&t, true);
	if (m->refs && m->nr_ids / FUZZ_REF_BLOCK >= m->blocks &&
	    (ret || !r4 || m->paused)) {
		/* No counter block: the chunk space goes back. */
		m->arena = start;
		track_state(&t, m);
		track_req(&t, true);
		goto grow;
	}
	CHECK(ret == 0);
	if (m->refs && (!r4 || m->paused) &&
	    spare_short(m->nr_ids / FUZZ_REF_BLOCK + 1, m->blocks,
			m->max_blocks)) {
		m->nr_ids++;
		track_state(&t, m);
		track_req(&t, true);
	} else {
		/*
		 * Without a request of its own, or after one that growth may
		 * have answered before it counted the blocks.
		 */
		m->nr_ids++;
		track_state(&t, m);
	}
	/* The empty slot's: no other record of the generation has it. */
	CHECK(ID(id) == (m->gen << m->bits | pos));
	CHECK(stackdepot_lf_id_gen(m->depot, id) == m->gen);
	CHECK(m->nr_ids <= FUZZ_MAX_IDS);
	r = &m->rec[m->nr_ids - 1];
	r->stack = nr;
	r->depth = depth;
	r->hits = 0;
	r->raw = ID(id);
	m->slot_rec[pos] = m->nr_ids;
	m->inserts++;
	goto out;

full:
	CHECK(ret == -ENOSPC);
	m->drops_full++;
	goto refused;
grow:
	CHECK(ret == -ENOSPC);
	m->drops_grow++;
refused:
	CHECK(ID(id) == 0xdead);
	each = true;
out:
	for (k = 0; k < t.n; k++)
		each |= t.req[k];
	if (!each)
		return;
	check_growth(m, &t, fail, &st);
	check_counters_in(m, &st);
}

static void op_get_id(struct model *m, struct input *in)
{
	u32 nr = next_byte(in) % 64;
	unsigned int depth = next_byte(in) | (next_byte(in) & 1) << 8;

	/* Mostly depths in range, sometimes 0 or too deep. */
	if (depth > m->p.max_depth + 2)
		depth = depth % (m->p.max_depth + 2);
	get_id_at(m, nr, depth, true);
}

/* Many new stacks at once, so that short inputs fill chunks and blocks. */
static void op_bulk(struct model *m, struct input *in)
{
	unsigned int count = 1 + next_byte(in), base = next_byte(in) * 4;
	u8 how = next_byte(in);
	unsigned int i, depth;

	for (i = 0; i < count; i++) {
		depth = how & 1 ? 1 + how % m->p.max_depth :
				  1 + (i * 7 + how) % m->p.max_depth;
		get_id_at(m, 64 + (base + i) % (FUZZ_STACKS - 64), depth,
			  false);
	}
	check_counters(m);
}

static void check_lookup(struct model *m, u32 raw, unsigned int size)
{
	u32 gen = raw >> m->bits;
	struct stackdepot_lf_stats st;
	struct stackdepot_lf_info info;
	unsigned long want[STACKDEPOT_LF_MAX_DEPTH];
	struct model_rec *r;
	int ret;

	stackdepot_lf_stats(m->depot, &st);
	got[0] = 0x5a5a;
	ret = stackdepot_lf_lookup(m->depot, stackdepot_lf_u32_to_id(raw), got,
				   size, &info);
	CHECK(st.table_slots == 1U << m->bits);
	if (!gen) {
		CHECK(ret == -EINVAL);
		return;
	}
	if (gen != m->gen) {
		CHECK(ret == -ESTALE);
		return;
	}
	if (!m->slot_rec[raw & m->mask]) {
		CHECK(ret == -ENOENT);
		return;
	}
	r = &m->rec[m->slot_rec[raw & m->mask] - 1];
	CHECK(r->raw == raw);
	if (size < r->depth) {
		CHECK(ret == -ENOSPC && got[0] == 0x5a5a);
		return;
	}
	CHECK(ret == r->depth);
	make_stack(want, ret, r->stack);
	CHECK(!memcmp(want, got, ret * sizeof(*got)));
	CHECK(ID(info.id) == raw && info.depth == (u32)ret);
	CHECK(info.refs == model_refs(m, r));
}

static void op_lookup(struct model *m, struct input *in)
{
	u8 how = next_byte(in), b = next_byte(in);
	unsigned int size = how & 1 ? b % (m->p.max_depth + 1) :
			   STACKDEPOT_LF_MAX_DEPTH;
	u32 raw;

	switch ((how >> 1) % 4) {
	case 0:		/* an id of this generation */
		raw = m->nr_ids ? m->rec[(b | next_byte(in) << 8) %
					 m->nr_ids].raw : 0;
		break;
	case 1:		/* an id of an earlier generation */
		raw = m->nr_old ? m->old_ids[b % m->nr_old] : 0;
		break;
	case 2:		/* the current tag on any slot */
		raw = m->gen << m->bits |
		      ((b | next_byte(in) << 8) & m->mask);
		break;
	default:	/* anything */
		raw = next_byte(in) | next_byte(in) << 8 | b << 16 |
		      (u32)next_byte(in) << 24;
		break;
	}
	check_lookup(m, raw, size);
}

static void op_reset(struct model *m)
{
	stackdepot_lf_id_t id;
	unsigned int i;

	for (i = 0; i < m->nr_ids && m->nr_old < FUZZ_OLD_IDS; i++)
		m->old_ids[m->nr_old++] = m->rec[i].raw;
	stackdepot_lf_reset(m->depot);
	/* A new tag; lower than the last only when the id space wrapped. */
	CHECK(stackdepot_lf_generation(m->depot) != m->gen);
	m->gen = stackdepot_lf_generation(m->depot);
	m->nr_ids = 0;
	memset(m->slot_rec, 0, sizeof(m->slot_rec));
	m->arena = 0;
	m->ends = 0;
	m->resets++;
	/* The chunks and counter blocks stay: check_counters() sees them. */
	check_counters(m);
	for (i = 0; i < m->nr_old; i++) {
		id = stackdepot_lf_u32_to_id(m->old_ids[i]);
		CHECK(stackdepot_lf_lookup(m->depot, id, got,
					   STACKDEPOT_LF_MAX_DEPTH, NULL) ==
		      -ESTALE);
	}
}

static void op_iterate(struct model *m, struct input *in)
{
	u8 how = next_byte(in);
	unsigned int seen = 0, size, stop = next_byte(in);
	struct stackdepot_lf_info info;
	struct stackdepot_lf_iter iter;
	struct model_rec *r;
	u32 raw;
	int ret;

	stackdepot_lf_iter_start(&iter, m->depot);
	for (;;) {
		/* Sometimes a buffer too small, which must not advance. */
		size = how & 1 && seen == stop ? how % (m->p.max_depth + 1) :
						 m->p.max_depth;
		ret = stackdepot_lf_iter_next(&iter, got, size, &info);
		if (ret == -ENOSPC) {
			CHECK(size < m->p.max_depth);
			how = 0;
			continue;
		}
		if (ret <= 0)
			break;
		raw = ID(info.id);
		CHECK(raw >> m->bits == m->gen && m->slot_rec[raw & m->mask]);
		r = &m->rec[m->slot_rec[raw & m->mask] - 1];
		CHECK(r->raw == raw && ret == r->depth);
		CHECK(stack_nr(got) == r->stack);
		CHECK(info.refs == model_refs(m, r));
		seen++;
		if (how & 2 && seen == stop) {
			/* A reset mid-walk ends it with -ESTALE for good. */
			op_reset(m);
			ret = stackdepot_lf_iter_next(&iter, got, size, &info);
			CHECK(ret == -ESTALE);
			ret = stackdepot_lf_iter_next(&iter, got, size, &info);
			CHECK(ret == -ESTALE);
			return;
		}
	}
	CHECK(ret == 0 && seen == m->nr_ids);
}

/*
 * Hold growth back or let it catch up, or make one of the next
 * allocations fail: the stalls get_id_at() models.
 */
static void op_growth(struct model *m, struct input *in)
{
	u8 how = next_byte(in);
	unsigned int fail = __atomic_load_n(&sdlf_fail_alloc_at,
					    __ATOMIC_RELAXED);
	struct stackdepot_lf_stats st;
	struct grow_track t = { };

	switch (how % 4) {
	case 0:
	case 1:
		m->paused = !m->paused;
		sdlf_grow_pause(m->depot, m->paused);
		sdlf_grow_flush(m->depot);
		/* Let run again, it catches up with the cursors as they are. */
		track_state(&t, m);
		if (!m->paused)
			track_req(&t, true);
		check_growth(m, &t, fail, &st);
		break;
	case 2:
		/* The first, second or third allocation from now fails. */
		if (!fail)
			__atomic_store_n(&sdlf_fail_alloc_at,
					 1 + (how >> 2) % 3, __ATOMIC_RELAXED);
		break;
	default:
		check_stats(m);
		break;
	}
	check_counters(m);
}

/* Chunks of about 32 records of the expected depth, 4 to 64 KiB */
static u64 chunk_size_for(const struct stackdepot_lf_params *p)
{
	unsigned int depth = p->expected_depth ?:
			     min(STACKDEPOT_LF_DEFAULT_DEPTH, p->max_depth);
	u64 want = max(32 * RS(depth), 4 * RS(p->max_depth));
	u64 size = 4096;

	while (size < want && size < 65536)
		size <<= 1;
	return size;
}

/*
 * Chunks at create: room for initial_records of the expected depth, and
 * the spare past them.
 */
static u32 initial_chunks_for(const struct model *m)
{
	unsigned int depth = m->p.expected_depth ?:
			     min(STACKDEPOT_LF_DEFAULT_DEPTH, m->p.max_depth);
	u32 in_use = max(DIV_ROUND_UP(m->p.initial_records,
				      m->chunk_size / RS(depth)), 1U);

	return min(in_use + spare_for(in_use), m->max_chunks);
}

static bool model_create(struct model *m, struct input *in)
{
	struct stackdepot_lf_params q;
	struct stackdepot_lf_stats st;
	u8 b[8];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(b); i++)
		b[i] = next_byte(in);
	memset(m, 0, sizeof(*m));
	/* Odd sizes, and a few out of range to check refusal. */
	m->p.max_records = 12 + (b[0] | b[1] << 8) % 1100;
	m->p.max_depth = b[2] % 8 ? 1 + b[2] % 40 : 200 + b[3] % 60;
	m->p.expected_depth = b[4] % 4 ? (b[4] >> 2) % (m->p.max_depth + 2) :
					 0;
	m->p.flags = b[5] & 0x83;
	m->refs = m->p.flags & STACKDEPOT_LF_COUNT_REFS;
	/* Initial room: none, a third of the capacity, or one too many. */
	if (b[7] & 2)
		m->p.initial_records = b[7] & 4 ? m->p.max_records + 1 :
						  m->p.max_records / 3;
	/* Global to all depots: set while no get_id runs. */
	if (b[6] % 3 == 1)
		sdlf_stub_activate((void *)sdlf_hash, (void *)hash_const);
	else if (b[6] % 3 == 2)
		sdlf_stub_activate((void *)sdlf_hash, (void *)hash_weak);

	m->depot = stackdepot_lf_create(&m->p);
	if (IS_ERR(m->depot)) {
		CHECK(PTR_ERR(m->depot) == -EINVAL);
		CHECK(stackdepot_lf_mem_size(&m->p) == 0);
		CHECK(m->p.max_records < STACKDEPOT_LF_MIN_RECORDS ||
		      m->p.max_depth > STACKDEPOT_LF_MAX_DEPTH ||
		      m->p.expected_depth > m->p.max_depth ||
		      m->p.initial_records > m->p.max_records ||
		      (m->p.flags & ~(STACKDEPOT_LF_COUNT_REFS |
				       STACKDEPOT_LF_CPU_MARKS)));
		sdlf_stub_deactivate();
		return false;
	}
	CHECK(m->depot);
	m->gen = stackdepot_lf_generation(m->depot);
	m->bits = ilog2(roundup_pow_of_two(2 * m->p.max_records));
	m->mask = (1U << m->bits) - 1;
	CHECK(m->mask < FUZZ_MAX_SLOTS);
	m->probe = min(FUZZ_PROBE, m->mask + 1);
	m->chunk_size = chunk_size_for(&m->p);
	m->max_chunks = DIV_ROUND_UP(m->p.max_records,
				     m->chunk_size / RS(m->p.max_depth)) + 1;
	m->mem0 = stackdepot_lf_mem_size(&m->p);
	m->chunks0 = initial_chunks_for(m);
	m->blocks0 = m->refs ? max(DIV_ROUND_UP(m->p.initial_records,
						FUZZ_REF_BLOCK), 1U) : 0;
	if (m->refs) {
		m->max_blocks = DIV_ROUND_UP(m->p.max_records, FUZZ_REF_BLOCK);
		q = m->p;
		q.flags &= ~STACKDEPOT_LF_COUNT_REFS;
		m->block_size = (m->mem0 - stackdepot_lf_mem_size(&q) -
				 m->max_blocks * sizeof(void *)) / m->blocks0;
		CHECK(m->block_size % (FUZZ_REF_BLOCK * sizeof(u32)) == 0);
	}
	m->blocks = m->blocks0;
	m->chunks = m->chunks0;
	m->mem = m->mem0;

	stackdepot_lf_stats(m->depot, &st);
	CHECK(st.chunk_size == m->chunk_size);
	CHECK(st.chunks == m->chunks);
	CHECK(st.index_bits == m->bits);
	CHECK(st.max_records == m->p.max_records);
	CHECK(st.max_depth == m->p.max_depth);
	check_counters(m);
	if (b[7] & 1) {
		m->paused = true;
		sdlf_grow_pause(m->depot, true);
	}
	return true;
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	static struct model m;
	struct input in = { data, size };

	if (!model_create(&m, &in))
		return 0;
	while (in.size) {
		switch (next_byte(&in) % 10) {
		case 0: case 1: case 2:
			op_get_id(&m, &in);
			break;
		case 3: case 4:
			op_lookup(&m, &in);
			break;
		case 5:
			op_reset(&m);
			break;
		case 6:
			op_iterate(&m, &in);
			break;
		case 7:
			check_stats(&m);
			break;
		case 8:
			op_bulk(&m, &in);
			break;
		default:
			op_growth(&m, &in);
			break;
		}
	}
	check_stats(&m);
	op_iterate(&m, &in);
	/* Nothing of this input may reach the next one. */
	__atomic_store_n(&sdlf_fail_alloc_at, 0, __ATOMIC_RELAXED);
	stackdepot_lf_destroy(m.depot);
	sdlf_stub_deactivate();
	return 0;
}
