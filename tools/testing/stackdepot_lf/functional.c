// SPDX-License-Identifier: GPL-2.0
/*
 * Functional tests of stackdepot_lf in userspace, one per case of
 * lib/tests/stackdepot_lf_kunit.c (minus the hard-IRQ and kthread stress
 * cases, which stress.c covers with real threads; refs_concurrent runs
 * threads of its own), plus the cases that need the harness's knobs:
 * allocation failure at create and in growth, invisible callers, real
 * lost races.
 * Prints "PASS harness:functional.<case>" or "FAIL ..." per case.
 *
 * Growth runs on the harness's worker thread. The get_id() helper waits
 * for it after each call (sdlf_grow_flush()), so that a test sees the
 * chunks a depot whose work items keep up would have; the growth cases
 * hold it back with sdlf_grow_pause() where they need a stall. Every case
 * ends with put_depot(), which checks the accounting identity
 * arena_used - arena_lost - chunk_ends == the bytes of the records.
 */
#include <getopt.h>

#include "util.h"

static const char *cur_case;
static int case_failed;

#define FAIL_AT(fmt, ...) do {						\
	fprintf(stderr, "%s:%d: %s: " fmt "\n", __FILE__, __LINE__,	\
		cur_case, ##__VA_ARGS__);				\
	case_failed = 1;						\
} while (0)

#define EXPECT_OP(a, op, b) ({						\
	long long __a = (long long)(a), __b = (long long)(b);		\
	bool __ok = __a op __b;						\
	if (!__ok)							\
		FAIL_AT("expected %s %s %s (%lld vs %lld)", #a, #op, #b,\
			__a, __b);					\
	__ok;								\
})
#define EXPECT_EQ(a, b)	EXPECT_OP(a, ==, b)
#define EXPECT_NE(a, b)	EXPECT_OP(a, !=, b)
#define EXPECT_GT(a, b)	EXPECT_OP(a, >, b)
#define EXPECT_GE(a, b)	EXPECT_OP(a, >=, b)
#define EXPECT_LE(a, b)	EXPECT_OP(a, <=, b)
#define EXPECT_MEMEQ(a, b, n) do {					\
	if (memcmp((a), (b), (n)))					\
		FAIL_AT("%s and %s differ", #a, #b);			\
} while (0)
#define ASSERT_EQ(a, b) do { if (!EXPECT_EQ(a, b)) return; } while (0)
#define ASSERT_TRUE(c)	do { if (!EXPECT_NE(!!(c), 0)) return; } while (0)

#define RS(depth)	STACKDEPOT_LF_RECORD_SIZE(depth)
#define ID(id)		stackdepot_lf_id_to_u32(id)

/* The probe limit of the library, SDLF_MAX_PROBE */
#define TEST_PROBE	32
/* Record numbers per block of hit counters, SDLF_REF_BLOCK */
#define TEST_REF_BLOCK	256

static unsigned long want_buf[STACKDEPOT_LF_MAX_DEPTH];
static unsigned long got_buf[STACKDEPOT_LF_MAX_DEPTH];

/*
 * The geometry a depot of @p must have, from the header and the top of
 * stackdepot_lf.c: chunks of about 32 records of the expected depth and
 * at least four of the deepest, a power of two from 4 KiB to 64 KiB ...
 */
static size_t chunk_size_for(const struct stackdepot_lf_params *p)
{
	unsigned int depth = p->expected_depth ?:
			     min(STACKDEPOT_LF_DEFAULT_DEPTH, p->max_depth);
	size_t want = max(32 * RS(depth), 4 * RS(p->max_depth));
	size_t size = 4096;

	while (size < want && size < 65536)
		size <<= 1;
	return size;
}

/* ... as many as max_records of the deepest records need, and a spare ... */
static unsigned int max_chunks_for(const struct stackdepot_lf_params *p)
{
	return DIV_ROUND_UP(p->max_records,
			    chunk_size_for(p) / RS(p->max_depth)) + 1;
}

/* ... listed in a directory of 8 entries that doubles when full ... */
static unsigned int dir_for(const struct stackdepot_lf_params *p,
			    unsigned int chunks)
{
	unsigned int max_chunks = max_chunks_for(p);
	unsigned int dir = min(8U, max_chunks);

	while (dir < chunks)
		dir = min(2 * dir, max_chunks);
	return dir;
}

/* ... and, with COUNT_REFS, counter blocks, one in the initial size. */
static size_t ref_block_bytes(const struct stackdepot_lf_params *p)
{
	struct stackdepot_lf_params q = *p;

	if (!(p->flags & STACKDEPOT_LF_COUNT_REFS))
		return 0;
	q.flags = 0;
	/* The table of block pointers, and the first block */
	return stackdepot_lf_mem_size(p) - stackdepot_lf_mem_size(&q) -
	       DIV_ROUND_UP(p->max_records, TEST_REF_BLOCK) * sizeof(void *);
}

/*
 * What a depot of @p with @chunks chunks and @blocks counter blocks has
 * allocated: the initial size (two chunks, one block) and the growth.
 */
static u64 mem_for(const struct stackdepot_lf_params *p, unsigned int chunks,
		   unsigned int blocks)
{
	u64 mem = stackdepot_lf_mem_size(p);

	mem += (u64)(chunks - 2) * chunk_size_for(p);
	mem += (u64)(dir_for(p, chunks) - dir_for(p, 2)) * sizeof(void *);
	if (blocks)
		mem += (u64)(blocks - 1) * ref_block_bytes(p);
	return mem;
}

/*
 * A depot of @p, checked against what create promises: the bytes
 * stackdepot_lf_mem_size() announced, two chunks of the documented size,
 * nothing used. NULL, and a failure, if create failed.
 */
static struct stackdepot_lf *create_depot(const struct stackdepot_lf_params *p)
{
	struct stackdepot_lf *depot = stackdepot_lf_create(p);
	struct stackdepot_lf_stats stats;

	if (IS_ERR_OR_NULL(depot)) {
		FAIL_AT("create: %ld", PTR_ERR(depot));
		return NULL;
	}
	stackdepot_lf_stats(depot, &stats);
	EXPECT_EQ(stats.mem_allocated, stackdepot_lf_mem_size(p));
	EXPECT_EQ(stats.mem_allocated, mem_for(p, 2, 1));
	EXPECT_EQ(stats.chunks, 2);
	EXPECT_EQ(stats.chunk_size, chunk_size_for(p));
	EXPECT_EQ(stats.arena_used, 0);
	EXPECT_EQ(stats.mem_used, 0);
	EXPECT_EQ(stats.max_records, p->max_records);
	EXPECT_EQ(stats.max_depth, p->max_depth);
	return depot;
}

static const struct stackdepot_lf_params default_params = {
	.max_records = 1024,
	.max_depth = TEST_DEPTH,
	.flags = STACKDEPOT_LF_COUNT_REFS,
};

static struct stackdepot_lf *create_default(void)
{
	struct stackdepot_lf *depot = create_depot(&default_params);

	if (!depot)
		abort();
	return depot;
}

/* get_id of synthetic stack @nr of @depth frames, then let growth run. */
static int try_get_id(struct stackdepot_lf *depot, unsigned int depth, u32 nr,
		      stackdepot_lf_id_t *id)
{
	int ret;

	make_stack(want_buf, depth, nr);
	ret = stackdepot_lf_get_id(depot, want_buf, depth, id);
	sdlf_grow_flush(depot);
	return ret;
}

/* Id of synthetic stack @nr of @depth frames; 0 (and a failure) if none. */
static stackdepot_lf_id_t get_id(struct stackdepot_lf *depot,
				 unsigned int depth, u32 nr)
{
	stackdepot_lf_id_t id = 0;

	EXPECT_EQ(try_get_id(depot, depth, nr, &id), 0);
	EXPECT_NE(ID(id), 0);
	return id;
}

static void expect_resolves(struct stackdepot_lf *depot, stackdepot_lf_id_t id,
			    unsigned int depth, u32 nr)
{
	struct stackdepot_lf_info info;

	make_stack(want_buf, depth, nr);
	ASSERT_EQ(stackdepot_lf_lookup(depot, id, got_buf, ARRAY_SIZE(got_buf),
				       &info), depth);
	EXPECT_MEMEQ(got_buf, want_buf, depth * sizeof(*want_buf));
	EXPECT_EQ(info.depth, depth);
	EXPECT_EQ(ID(info.id), ID(id));
}

/* The ref count of @id, which resolves to a record of @depth frames */
static unsigned int refs_of(struct stackdepot_lf *depot, stackdepot_lf_id_t id,
			    unsigned int depth)
{
	struct stackdepot_lf_info info = { };

	EXPECT_EQ(stackdepot_lf_lookup(depot, id, got_buf, ARRAY_SIZE(got_buf),
				       &info), depth);
	return info.refs;
}

/* Every get_id call is counted exactly once, in one of these. */
static u64 calls_counted(const struct stackdepot_lf_stats *stats)
{
	return stats->hits + stats->inserts + stats->drops_full +
	       stats->drops_grow + stats->drops_probe + stats->drops_too_deep +
	       stats->drops_busy + stats->drops_context;
}

/*
 * Sum of the chunk bytes of the records of the current generation, which
 * must equal arena_used - arena_lost - chunk_ends whenever no get_id is
 * running. *@records, if not NULL, gets the number of records walked.
 */
static u64 record_bytes(struct stackdepot_lf *depot, unsigned int *records)
{
	struct stackdepot_lf_info info;
	struct stackdepot_lf_iter iter;
	unsigned int n = 0;
	u64 sum = 0;
	int ret;

	stackdepot_lf_iter_start(&iter, depot);
	while ((ret = stackdepot_lf_iter_next(&iter, got_buf,
					      ARRAY_SIZE(got_buf), &info)) > 0) {
		sum += ALIGN(RS(info.depth), 8);
		n++;
	}
	EXPECT_EQ(ret, 0);
	if (records)
		*records = n;
	return sum;
}

/*
 * The accounting identity of a quiescent depot: every chunk byte taken is
 * a record's, lost to a race, or a chunk end; and the usage is within
 * what was allocated.
 */
static void expect_arena_adds_up(struct stackdepot_lf *depot)
{
	struct stackdepot_lf_stats stats;
	unsigned int records;
	u64 bytes;

	sdlf_grow_flush(depot);
	stackdepot_lf_stats(depot, &stats);
	bytes = record_bytes(depot, &records);
	EXPECT_EQ(stats.arena_used - stats.arena_lost - stats.chunk_ends,
		  bytes);
	EXPECT_EQ(records, stats.records);
	EXPECT_LE(stats.arena_used, (u64)stats.chunks * stats.chunk_size);
	EXPECT_GE(stats.mem_used, stats.arena_used);
	EXPECT_GE(stats.mem_allocated,
		  (u64)stats.chunks * stats.chunk_size);
	EXPECT_EQ(stats.resetting, 0);
}

/* Every case ends with this: the identity, then the depot goes. */
static void put_depot(struct stackdepot_lf *depot)
{
	expect_arena_adds_up(depot);
	stackdepot_lf_destroy(depot);
}

static void test_round_trip(void)
{
	struct stackdepot_lf *depot = create_default();
	struct stackdepot_lf_stats stats;
	stackdepot_lf_id_t id;

	id = get_id(depot, 12, 1);
	expect_resolves(depot, id, 12, 1);
	stackdepot_lf_stats(depot, &stats);
	EXPECT_EQ(stats.records, 1);
	EXPECT_EQ(stats.inserts, 1);
	EXPECT_EQ(stats.hits, 0);
	EXPECT_NE(stats.generation, 0);
	EXPECT_EQ(stats.index_bits, 11);
	EXPECT_EQ(stats.table_slots, 2048);
	EXPECT_EQ(stats.arena_used, RS(12));
	EXPECT_EQ(stats.chunk_ends, 0);
	/* The record is in the first chunk: the spare is still spare. */
	EXPECT_EQ(stats.chunks, 2);
	EXPECT_EQ(stackdepot_lf_id_gen(depot, id), stats.generation);
	EXPECT_EQ(stackdepot_lf_generation(depot), stats.generation);
	put_depot(depot);
}

static void test_same_and_different(void)
{
	struct stackdepot_lf *depot = create_default();
	unsigned long entries[TEST_DEPTH];
	stackdepot_lf_id_t a, b, c, d = 0, e = 0;
	struct stackdepot_lf_info info;

	a = get_id(depot, 16, 7);
	b = get_id(depot, 16, 7);
	c = get_id(depot, 16, 8);
	make_stack(entries, 16, 7);
	EXPECT_EQ(stackdepot_lf_get_id(depot, entries, 15, &d), 0);
	entries[9] ^= 0x40;
	EXPECT_EQ(stackdepot_lf_get_id(depot, entries, 16, &e), 0);

	EXPECT_EQ(ID(a), ID(b));
	EXPECT_NE(ID(a), ID(c));
	EXPECT_NE(ID(a), ID(d));
	EXPECT_NE(ID(a), ID(e));
	expect_resolves(depot, a, 16, 7);
	expect_resolves(depot, c, 16, 8);
	EXPECT_EQ(stackdepot_lf_lookup(depot, d, entries, TEST_DEPTH, &info), 15);
	EXPECT_EQ(stackdepot_lf_lookup(depot, a, entries, TEST_DEPTH, &info), 16);
	EXPECT_EQ(info.refs, 2);
	put_depot(depot);
}

static void test_depth_limits(void)
{
	struct stackdepot_lf *depot = create_default();
	unsigned long entries[TEST_DEPTH + 1];
	stackdepot_lf_id_t id;
	struct stackdepot_lf_stats stats;

	id = get_id(depot, 1, 3);
	expect_resolves(depot, id, 1, 3);
	id = get_id(depot, TEST_DEPTH, 3);
	expect_resolves(depot, id, TEST_DEPTH, 3);

	make_stack(entries, TEST_DEPTH + 1, 3);
	id = stackdepot_lf_u32_to_id(0x1234);
	EXPECT_EQ(stackdepot_lf_get_id(depot, entries, TEST_DEPTH + 1, &id),
		  -E2BIG);
	EXPECT_EQ(ID(id), 0x1234);
	stackdepot_lf_stats(depot, &stats);
	EXPECT_EQ(stats.drops_too_deep, 1);
	EXPECT_EQ(stats.records, 2);
	put_depot(depot);
}

static void test_invalid(void)
{
	struct stackdepot_lf *depot = create_default();
	unsigned long entries[TEST_DEPTH];
	struct stackdepot_lf_stats stats;
	stackdepot_lf_id_t id = 0, good;
	u32 raw;

	make_stack(entries, 4, 1);
	EXPECT_EQ(stackdepot_lf_get_id(NULL, entries, 4, &id), -EINVAL);
	EXPECT_EQ(stackdepot_lf_get_id(depot, entries, 0, &id), -EINVAL);
	EXPECT_EQ(stackdepot_lf_lookup(NULL, id, entries, TEST_DEPTH, NULL),
		  -EINVAL);
	EXPECT_EQ(stackdepot_lf_lookup(depot, stackdepot_lf_u32_to_id(0),
				       entries, TEST_DEPTH, NULL), -EINVAL);
	EXPECT_EQ(stackdepot_lf_lookup(depot, stackdepot_lf_u32_to_id(2047),
				       entries, TEST_DEPTH, NULL), -EINVAL);
	EXPECT_EQ(stackdepot_lf_id_gen(depot, stackdepot_lf_u32_to_id(2047)), 0);

	good = get_id(depot, 8, 1);
	raw = ID(good) ^ 1;
	EXPECT_EQ(stackdepot_lf_lookup(depot, stackdepot_lf_u32_to_id(raw),
				       entries, TEST_DEPTH, NULL), -ENOENT);
	raw = ID(good) + 2048;
	EXPECT_EQ(stackdepot_lf_lookup(depot, stackdepot_lf_u32_to_id(raw),
				       entries, TEST_DEPTH, NULL), -ESTALE);
	raw = ID(good) - 2048;
	EXPECT_EQ(stackdepot_lf_lookup(depot, stackdepot_lf_u32_to_id(raw),
				       entries, TEST_DEPTH, NULL),
		  raw > 2047 ? -ESTALE : -EINVAL);
	memset(entries, 0, sizeof(entries));
	EXPECT_EQ(stackdepot_lf_lookup(depot, good, entries, 7, NULL), -ENOSPC);
	EXPECT_EQ(entries[0], 0);

	/* Invalid calls are not get_id calls on the depot: not counted. */
	stackdepot_lf_stats(depot, &stats);
	EXPECT_EQ(calls_counted(&stats), 1);
	put_depot(depot);
}

struct param_case {
	const char *desc;
	struct stackdepot_lf_params p;
	int err;
};

/* As the KUnit suite's, under the same names (with underscores). */
static const struct param_case param_cases[] = {
	{ "minimum", { 16, 1, 0, 0 }, 0 },
	{ "odd_sizes", { 17, 5, 3, 0 }, 0 },
	{ "max_depth", { 64, 256, 0, STACKDEPOT_LF_COUNT_REFS }, 0 },
	{ "expected_depth_is_max", { 64, 256, 256, 0 }, 0 },
	{ "largest", { STACKDEPOT_LF_MAX_RECORDS, 256, 256,
		       STACKDEPOT_LF_COUNT_REFS }, 0 },
	{ "too_few_records", { 15, 8, 0, 0 }, -EINVAL },
	{ "too_many_records", { STACKDEPOT_LF_MAX_RECORDS + 1, 8, 0, 0 },
	  -EINVAL },
	{ "zero_depth", { 64, 0, 0, 0 }, -EINVAL },
	{ "depth_too_big", { 64, 257, 0, 0 }, -EINVAL },
	{ "expected_depth_above_max", { 64, 8, 9, 0 }, -EINVAL },
	{ "unknown_flag", { 64, 8, 0, 0x80 }, -EINVAL },
};

static const struct param_case *cur_param;

static void test_create_params(void)
{
	const struct param_case *c = cur_param;
	struct stackdepot_lf *depot;
	struct stackdepot_lf_stats stats;

	if (c->err) {
		depot = stackdepot_lf_create(&c->p);
		EXPECT_EQ(PTR_ERR_OR_ZERO(depot), c->err);
		EXPECT_EQ(stackdepot_lf_mem_size(&c->p), 0);
		return;
	}
	/* create_depot() checks the size and geometry it promises. */
	depot = create_depot(&c->p);
	ASSERT_TRUE(depot);
	stackdepot_lf_stats(depot, &stats);
	EXPECT_EQ(stats.table_slots,
		  roundup_pow_of_two(2 * c->p.max_records));
	/* Chunks hold at least four of the deepest records. */
	EXPECT_GE(stats.chunk_size, 4 * RS(c->p.max_depth));
	/* A depot of any valid size stores its deepest stack. */
	expect_resolves(depot, get_id(depot, c->p.max_depth, 2),
			c->p.max_depth, 2);
	put_depot(depot);
}

static u32 constant_hash(const unsigned long *entries, unsigned int nr_entries)
{
	return 42;
}

static void test_collisions(void)
{
	struct stackdepot_lf_params p = {
		.max_records = 256,
		.max_depth = TEST_DEPTH,
	};
	struct stackdepot_lf *depot = create_depot(&p);
	unsigned long entries[TEST_DEPTH];
	struct stackdepot_lf_stats stats;
	stackdepot_lf_id_t ids[TEST_PROBE], id;
	unsigned int i, j;

	ASSERT_TRUE(depot);
	/* Every stack hashes alike: each still gets its own id and record. */
	sdlf_stub_activate((void *)sdlf_hash, (void *)constant_hash);
	for (i = 0; i < TEST_PROBE; i++)
		ids[i] = get_id(depot, 10, 100 + i);
	for (i = 0; i < TEST_PROBE; i++) {
		for (j = 0; j < i; j++)
			EXPECT_NE(ID(ids[i]), ID(ids[j]));
		/* In the probe order, from the home slot on. */
		EXPECT_EQ(ID(ids[i]) & 511, 42 + i);
		expect_resolves(depot, ids[i], 10, 100 + i);
		EXPECT_EQ(ID(ids[i]), ID(get_id(depot, 10, 100 + i)));
	}
	/* The probe limit is reached: refused in bounded time, counted. */
	make_stack(entries, 10, 200);
	EXPECT_EQ(stackdepot_lf_get_id(depot, entries, 10, &id), -ENOSPC);
	sdlf_stub_deactivate();
	stackdepot_lf_stats(depot, &stats);
	EXPECT_EQ(stats.drops_probe, 1);
	EXPECT_EQ(stats.drops_full + stats.drops_grow, 0);
	EXPECT_EQ(stats.records, TEST_PROBE);
	/* Nothing was left behind by the refused insert. */
	EXPECT_EQ(stats.arena_used, TEST_PROBE * RS(10));
	for (i = 0; i < TEST_PROBE; i++)
		expect_resolves(depot, ids[i], 10, 100 + i);
	put_depot(depot);
}

static u32 last_slot_hash(const unsigned long *entries,
			  unsigned int nr_entries)
{
	return ~0U;
}

/*
 * Harness only: a probe that starts in the last slot of the table goes on
 * from slot 0, and the limit counts the slots on both sides of the wrap.
 */
static void test_collisions_wrap(void)
{
	struct stackdepot_lf_params p = {
		.max_records = 64,
		.max_depth = TEST_DEPTH,
	};
	struct stackdepot_lf *depot = create_depot(&p);
	struct stackdepot_lf_stats stats;
	stackdepot_lf_id_t ids[TEST_PROBE], id;
	unsigned int i, mask;

	ASSERT_TRUE(depot);
	stackdepot_lf_stats(depot, &stats);
	ASSERT_EQ(stats.table_slots, 128);
	mask = stats.table_slots - 1;
	sdlf_stub_activate((void *)sdlf_hash, (void *)last_slot_hash);
	for (i = 0; i < TEST_PROBE; i++) {
		ids[i] = get_id(depot, 3, i);
		EXPECT_EQ(ID(ids[i]) & mask, (mask + i) & mask);
	}
	for (i = 0; i < TEST_PROBE; i++)
		EXPECT_EQ(ID(get_id(depot, 3, i)), ID(ids[i]));
	/* 32 slots probed, none free: refused with room for 32 records. */
	EXPECT_EQ(try_get_id(depot, 3, 99, &id), -ENOSPC);
	sdlf_stub_deactivate();
	stackdepot_lf_stats(depot, &stats);
	EXPECT_EQ(stats.drops_probe, 1);
	EXPECT_EQ(stats.drops_full, 0);
	EXPECT_EQ(stats.hits, TEST_PROBE);
	EXPECT_EQ(stats.records, TEST_PROBE);
	/* Hashed elsewhere, the same stack finds a free slot. */
	id = get_id(depot, 3, 99);
	expect_resolves(depot, id, 3, 99);
	for (i = 0; i < TEST_PROBE; i++)
		expect_resolves(depot, ids[i], 3, i);
	put_depot(depot);
}

static void test_fill_records(void)
{
	struct stackdepot_lf_params p = {
		.max_records = 16,
		.max_depth = TEST_DEPTH,
	};
	struct stackdepot_lf *depot = create_depot(&p);
	unsigned long entries[TEST_DEPTH];
	struct stackdepot_lf_stats stats;
	stackdepot_lf_id_t ids[16], id;
	unsigned int i;

	ASSERT_TRUE(depot);
	for (i = 0; i < 16; i++)
		ids[i] = get_id(depot, 6, i);
	make_stack(entries, 6, 99);
	EXPECT_EQ(stackdepot_lf_get_id(depot, entries, 6, &id), -ENOSPC);
	EXPECT_EQ(ID(ids[3]), ID(get_id(depot, 6, 3)));
	for (i = 0; i < 16; i++)
		expect_resolves(depot, ids[i], 6, i);
	stackdepot_lf_stats(depot, &stats);
	EXPECT_EQ(stats.records, 16);
	EXPECT_EQ(stats.drops_full, 1);
	EXPECT_EQ(stats.drops_probe, 0);
	EXPECT_EQ(stats.drops_grow, 0);
	EXPECT_EQ(stats.hits, 1);
	/* A full depot takes no chunk space for the stacks it refuses. */
	EXPECT_EQ(stats.arena_used, 16 * RS(6));
	put_depot(depot);
}

/*
 * Capacity is in records, not bytes: chunks are added until max_records
 * stacks of max_depth frames fit, so a depot that holds max_records
 * stacks refuses every new one as full, however small, while its known
 * stacks still hit; and it never refuses one for want of a chunk.
 */
static void test_fill_arena(void)
{
	struct stackdepot_lf_params p = {
		.max_records = 64,
		.max_depth = TEST_DEPTH,
		.expected_depth = 20,
	};
	struct stackdepot_lf *depot = create_depot(&p);
	unsigned long entries[TEST_DEPTH];
	struct stackdepot_lf_stats stats;
	stackdepot_lf_id_t ids[64], id;
	unsigned int i, per_chunk;

	ASSERT_TRUE(depot);
	stackdepot_lf_stats(depot, &stats);
	per_chunk = stats.chunk_size / RS(20);
	ASSERT_TRUE(per_chunk < 64 && 2 * per_chunk >= 64);
	for (i = 0; i < 64; i++)
		ids[i] = get_id(depot, 20, i);
	make_stack(entries, 20, 50 + 64);
	EXPECT_EQ(stackdepot_lf_get_id(depot, entries, 20, &id), -ENOSPC);
	make_stack(entries, 4, 51 + 64);
	EXPECT_EQ(stackdepot_lf_get_id(depot, entries, 4, &id), -ENOSPC);
	EXPECT_EQ(ID(get_id(depot, 20, 5)), ID(ids[5]));
	for (i = 0; i < 64; i++)
		expect_resolves(depot, ids[i], 20, i);
	sdlf_grow_flush(depot);
	stackdepot_lf_stats(depot, &stats);
	EXPECT_EQ(stats.records, 64);
	EXPECT_EQ(stats.drops_full, 2);
	EXPECT_EQ(stats.drops_grow, 0);
	EXPECT_EQ(stats.hits, 1);
	/* Two chunks in use, the end of the first unused; and a spare. */
	EXPECT_EQ(stats.chunk_ends, stats.chunk_size - per_chunk * RS(20));
	EXPECT_EQ(stats.arena_used, stats.chunk_size +
		  (64 - per_chunk) * RS(20));
	EXPECT_EQ(stats.chunks, 3);
	EXPECT_LE(stats.chunks, max_chunks_for(&p));
	EXPECT_EQ(stats.mem_allocated, mem_for(&p, 3, 0));
	put_depot(depot);
}

/* Depth of a record of 256 bytes: 31 frames on 64-bit */
#define DEPTH_256	((256 - 8) / sizeof(unsigned long))

/*
 * Records never straddle chunks: one that ends a chunk exactly leaves
 * nothing unused and the next starts the next chunk; one that does not
 * fit in what is left of a chunk goes to the next, and the rest is
 * counted in chunk_ends. Each chunk that gets its first record has the
 * next one added behind it.
 */
static void test_chunk_ends(void)
{
	struct stackdepot_lf_params p = {
		.max_records = 1024,
		.max_depth = TEST_DEPTH,
	};
	struct stackdepot_lf *depot = create_depot(&p);
	stackdepot_lf_id_t ids[200], id1, id2, id3, id4;
	unsigned int i, n = 0, nr = 0;
	struct stackdepot_lf_stats stats;
	u64 c;

	ASSERT_TRUE(depot);
	ASSERT_EQ(RS(DEPTH_256), 256);
	ASSERT_EQ(RS(TEST_DEPTH), 264);
	stackdepot_lf_stats(depot, &stats);
	c = stats.chunk_size;
	ASSERT_EQ(c, 8192);

	/* Chunk 0, exactly: nothing unused, no growth yet. */
	for (i = 0; i < 32; i++, n++, nr++)
		ids[n] = get_id(depot, DEPTH_256, nr);
	stackdepot_lf_stats(depot, &stats);
	EXPECT_EQ(stats.arena_used, c);
	EXPECT_EQ(stats.chunk_ends, 0);
	EXPECT_EQ(stats.chunks, 2);
	/* The next record starts chunk 1, which gets a spare behind it. */
	ids[n++] = get_id(depot, DEPTH_256, nr++);
	stackdepot_lf_stats(depot, &stats);
	EXPECT_EQ(stats.arena_used, c + 256);
	EXPECT_EQ(stats.chunk_ends, 0);
	EXPECT_EQ(stats.chunks, 3);

	/* 30 records of 264 bytes leave 16; a 16-byte record fills them. */
	for (i = 0; i < 30; i++, n++, nr++)
		ids[n] = get_id(depot, TEST_DEPTH, nr);
	stackdepot_lf_stats(depot, &stats);
	EXPECT_EQ(stats.arena_used, 2 * c - 16);
	id1 = get_id(depot, 1, 1000);
	stackdepot_lf_stats(depot, &stats);
	EXPECT_EQ(stats.arena_used, 2 * c);
	EXPECT_EQ(stats.chunk_ends, 0);
	EXPECT_EQ(stats.chunks, 3);

	/* 31 of 264 leave 8 bytes, too few for the smallest record. */
	for (i = 0; i < 31; i++, n++, nr++)
		ids[n] = get_id(depot, TEST_DEPTH, nr);
	stackdepot_lf_stats(depot, &stats);
	EXPECT_EQ(stats.arena_used, 3 * c - 8);
	EXPECT_EQ(stats.chunks, 4);
	id2 = get_id(depot, 1, 1001);
	stackdepot_lf_stats(depot, &stats);
	EXPECT_EQ(stats.chunk_ends, 8);
	EXPECT_EQ(stats.arena_used, 3 * c + RS(1));
	EXPECT_EQ(stats.chunks, 5);
	/* Right behind it, where it went. */
	id3 = get_id(depot, 2, 1002);

	/* Fill chunk 3 up to 232 bytes; a record of 264 goes on to 4. */
	for (i = 0; i < 30; i++, n++, nr++)
		ids[n] = get_id(depot, TEST_DEPTH, nr);
	stackdepot_lf_stats(depot, &stats);
	EXPECT_EQ(stats.arena_used, 4 * c - 232);
	id4 = get_id(depot, TEST_DEPTH, 1003);
	stackdepot_lf_stats(depot, &stats);
	EXPECT_EQ(stats.chunk_ends, 8 + 232);
	EXPECT_EQ(stats.arena_used, 4 * c + RS(TEST_DEPTH));
	EXPECT_EQ(stats.chunks, 6);
	EXPECT_EQ(stats.drops_grow, 0);
	EXPECT_EQ(stats.mem_allocated, mem_for(&p, 6, 0));

	/* Records on both sides of every boundary resolve. */
	for (i = 0, nr = 0; i < n; i++, nr++)
		expect_resolves(depot, ids[i], i < 33 ? DEPTH_256 : TEST_DEPTH,
				nr);
	expect_resolves(depot, id1, 1, 1000);
	expect_resolves(depot, id2, 1, 1001);
	expect_resolves(depot, id3, 2, 1002);
	expect_resolves(depot, id4, TEST_DEPTH, 1003);
	put_depot(depot);
}

/*
 * Growth stalled: once the two chunks a depot starts with are used up,
 * new stacks are refused with -ENOSPC and counted in drops_grow, taking
 * no chunk space; known stacks still hit and count their refs, every call
 * is counted exactly once, and inserts work again once growth catches up.
 */
static void test_growth_stalled(void)
{
	struct stackdepot_lf *depot = create_default();
	const struct stackdepot_lf_params *p = &default_params;
	unsigned long entries[TEST_DEPTH + 1];
	struct stackdepot_lf_stats stats;
	stackdepot_lf_id_t ids[62], id;
	unsigned int i, calls = 0;
	u64 c, mem;

	stackdepot_lf_stats(depot, &stats);
	c = stats.chunk_size;
	mem = stats.mem_allocated;
	ASSERT_EQ(c / RS(TEST_DEPTH), 31);
	sdlf_grow_pause(depot, true);
	for (i = 0; i < 62; i++, calls++)
		ids[i] = get_id(depot, TEST_DEPTH, i);
	stackdepot_lf_stats(depot, &stats);
	EXPECT_EQ(stats.arena_used, 2 * c - 8);
	EXPECT_EQ(stats.chunk_ends, 8);
	EXPECT_EQ(stats.chunks, 2);

	/* No chunk ready: refused, nothing stored, the caller keeps it. */
	id = stackdepot_lf_u32_to_id(0x1234);
	EXPECT_EQ(try_get_id(depot, TEST_DEPTH, 500, &id), -ENOSPC);
	calls++;
	EXPECT_EQ(ID(id), 0x1234);
	/* However small: 8 bytes are left, and no record is that small. */
	EXPECT_EQ(try_get_id(depot, 1, 501, &id), -ENOSPC);
	calls++;
	/* And again: a refusal leaves nothing that would let it in. */
	EXPECT_EQ(try_get_id(depot, TEST_DEPTH, 500, &id), -ENOSPC);
	calls++;
	/* Other refusals are still told apart. */
	make_stack(entries, TEST_DEPTH + 1, 502);
	EXPECT_EQ(stackdepot_lf_get_id(depot, entries, TEST_DEPTH + 1, &id),
		  -E2BIG);
	calls++;
	EXPECT_EQ(ID(id), 0x1234);
	/* Known stacks still hit, count their refs, and resolve. */
	for (i = 0; i < 62; i++, calls++)
		EXPECT_EQ(ID(get_id(depot, TEST_DEPTH, i)), ID(ids[i]));
	for (i = 0; i < 62; i++) {
		expect_resolves(depot, ids[i], TEST_DEPTH, i);
		EXPECT_EQ(refs_of(depot, ids[i], TEST_DEPTH), 2);
	}

	sdlf_grow_flush(depot);
	stackdepot_lf_stats(depot, &stats);
	EXPECT_EQ(stats.drops_grow, 3);
	EXPECT_EQ(stats.drops_full, 0);
	EXPECT_EQ(stats.drops_probe, 0);
	EXPECT_EQ(stats.drops_too_deep, 1);
	EXPECT_EQ(stats.inserts, 62);
	EXPECT_EQ(stats.hits, 62);
	EXPECT_EQ(stats.records, 62);
	EXPECT_EQ(calls_counted(&stats), calls);
	/* The refusals took no chunk space, and nothing was added. */
	EXPECT_EQ(stats.arena_used, 2 * c - 8);
	EXPECT_EQ(stats.chunk_ends, 8);
	EXPECT_EQ(stats.arena_lost, 0);
	EXPECT_EQ(stats.chunks, 2);
	EXPECT_EQ(stats.mem_allocated, mem);
	expect_arena_adds_up(depot);

	/*
	 * Growth catches up with what was asked for meanwhile as soon as
	 * it may run: a spare past the last chunk in use, and a counter
	 * block past the one in use.
	 */
	sdlf_grow_pause(depot, false);
	sdlf_grow_flush(depot);
	stackdepot_lf_stats(depot, &stats);
	EXPECT_EQ(stats.chunks, 3);
	EXPECT_EQ(stats.mem_allocated, mem_for(p, 3, 2));
	/* The refused stack is stored now, in the new chunk ... */
	id = get_id(depot, TEST_DEPTH, 500);
	calls++;
	expect_resolves(depot, id, TEST_DEPTH, 500);
	EXPECT_EQ(refs_of(depot, id, TEST_DEPTH), 1);
	/* ... which is the last: one more is added behind it. */
	stackdepot_lf_stats(depot, &stats);
	EXPECT_EQ(stats.arena_used, 2 * c + RS(TEST_DEPTH));
	EXPECT_EQ(stats.chunks, 4);
	EXPECT_EQ(stats.mem_allocated, mem_for(p, 4, 2));
	EXPECT_EQ(stats.drops_grow, 3);
	EXPECT_EQ(calls_counted(&stats), calls);
	for (i = 0; i < 62; i++)
		expect_resolves(depot, ids[i], TEST_DEPTH, i);
	put_depot(depot);
}

/*
 * Fill a depot of @p with its capacity of its deepest stacks, one insert
 * at a time with growth let run between them: it grows chunk by chunk,
 * always one spare past the last chunk in use, never past the cap, and
 * its memory is exactly its chunks, directory and counter blocks. Then
 * new stacks are refused as full, never as waiting for growth.
 */
static void growth_to_cap(const struct stackdepot_lf_params *p)
{
	struct stackdepot_lf *depot = create_depot(p);
	unsigned int n = p->max_records, depth = p->max_depth, i;
	unsigned int max_chunks = max_chunks_for(p), max_blocks = 0;
	unsigned int chunks = 2, blocks = 0, last;
	unsigned long *entries;
	struct stackdepot_lf_stats stats;
	stackdepot_lf_id_t *ids, id;
	bool request;
	u64 c;
	int ret;

	ASSERT_TRUE(depot);
	if (p->flags & STACKDEPOT_LF_COUNT_REFS) {
		blocks = 1;
		max_blocks = DIV_ROUND_UP(n, TEST_REF_BLOCK);
	}
	stackdepot_lf_stats(depot, &stats);
	c = stats.chunk_size;
	ids = calloc(n, sizeof(*ids));
	entries = calloc(depth, sizeof(*entries));
	ASSERT_TRUE(ids && entries);
	for (i = 0; i < n; i++) {
		ret = try_get_id(depot, depth, i, &ids[i]);
		if (!EXPECT_EQ(ret, 0))
			break;
		stackdepot_lf_stats(depot, &stats);
		/*
		 * Growth is asked for when a record lands in the last chunk
		 * or gets a number in the last counter block, and adds up to
		 * one spare of each. (Asked for by the chunk, it may run
		 * before the record takes its number, and add a block less:
		 * the geometries below never start a chunk with a record
		 * numbered 256k - 1 short of the last block.)
		 */
		last = (stats.arena_used - 1) / c;
		request = (last + 1 == chunks && chunks < max_chunks) ||
			  (i / TEST_REF_BLOCK + 1 == blocks &&
			   blocks < max_blocks);
		if (request) {
			chunks = max(chunks, min(last + 2, max_chunks));
			if (blocks)
				blocks = max(blocks,
					     min((i + 1) / TEST_REF_BLOCK + 2,
						 max_blocks));
		}
		EXPECT_EQ(stats.chunks, chunks);
		EXPECT_EQ(stats.chunks, min(max(2U, last + 2), max_chunks));
		EXPECT_EQ(stats.mem_allocated, mem_for(p, chunks, blocks));
		if (case_failed)
			break;
	}
	make_stack(entries, depth, n);
	EXPECT_EQ(stackdepot_lf_get_id(depot, entries, depth, &id), -ENOSPC);
	make_stack(entries, 1, n + 1);
	EXPECT_EQ(stackdepot_lf_get_id(depot, entries, 1, &id), -ENOSPC);
	sdlf_grow_flush(depot);
	stackdepot_lf_stats(depot, &stats);
	EXPECT_EQ(stats.records, n);
	EXPECT_EQ(stats.drops_full, 2);
	EXPECT_EQ(stats.drops_grow, 0);
	/* Every chunk the records may need is there, and no more. */
	EXPECT_EQ(stats.chunks, max_chunks);
	EXPECT_EQ(stats.mem_allocated, mem_for(p, max_chunks, max_blocks));
	for (i = 0; i < n; i++)
		expect_resolves(depot, ids[i], depth, i);
	free(entries);
	free(ids);
	put_depot(depot);
}

static void test_growth_to_cap(void)
{
	static const struct stackdepot_lf_params geometries[] = {
		/* 31 records a chunk; the directory is replaced twice. */
		{ 1024, TEST_DEPTH, 0, 0 },
		/* The same with four counter blocks */
		{ 1024, TEST_DEPTH, 0, STACKDEPOT_LF_COUNT_REFS },
		/* The deepest stacks: four chunks in all */
		{ 16, STACKDEPOT_LF_MAX_DEPTH, 0, 0 },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(geometries) && !case_failed; i++)
		growth_to_cap(&geometries[i]);
}

/*
 * A reset keeps the chunks and counter blocks: the next generation stores
 * the same stacks again without waiting for growth, and the lifetime hits
 * survive while the records' refs start again.
 */
static void test_reset_keeps_chunks(void)
{
	struct stackdepot_lf *depot = create_default();
	struct stackdepot_lf_stats before, after;
	stackdepot_lf_id_t ids[100];
	unsigned int i;

	for (i = 0; i < 100; i++)
		ids[i] = get_id(depot, TEST_DEPTH, i);
	for (i = 0; i < 10; i++)
		get_id(depot, TEST_DEPTH, i);
	stackdepot_lf_stats(depot, &before);
	/* 31 records a chunk: the last is in chunk 3, a spare behind it. */
	EXPECT_EQ(before.chunks, 5);
	EXPECT_EQ(before.chunk_ends, 3 * 8);
	EXPECT_EQ(before.hits, 10);

	stackdepot_lf_reset(depot);
	stackdepot_lf_stats(depot, &after);
	EXPECT_EQ(after.chunks, before.chunks);
	EXPECT_EQ(after.mem_allocated, before.mem_allocated);
	EXPECT_EQ(after.arena_used, 0);
	EXPECT_EQ(after.arena_lost, 0);
	EXPECT_EQ(after.chunk_ends, 0);
	EXPECT_EQ(after.mem_used, 0);
	EXPECT_EQ(after.records, 0);
	EXPECT_EQ(after.hits, before.hits);

	/* With growth held back, the same stacks all fit again. */
	sdlf_grow_pause(depot, true);
	for (i = 0; i < 100; i++)
		ids[i] = get_id(depot, TEST_DEPTH, i);
	for (i = 0; i < 100; i++) {
		expect_resolves(depot, ids[i], TEST_DEPTH, i);
		EXPECT_EQ(refs_of(depot, ids[i], TEST_DEPTH), 1);
	}
	stackdepot_lf_stats(depot, &after);
	EXPECT_EQ(after.drops_grow, 0);
	EXPECT_EQ(after.records, 100);
	EXPECT_EQ(after.inserts, 200);
	EXPECT_EQ(after.hits, before.hits);
	EXPECT_EQ(after.chunks, before.chunks);
	EXPECT_EQ(after.mem_allocated, before.mem_allocated);
	/* The same layout: the same chunk bytes, the same ends. */
	EXPECT_EQ(after.arena_used, before.arena_used);
	EXPECT_EQ(after.chunk_ends, before.chunk_ends);
	sdlf_grow_pause(depot, false);
	put_depot(depot);
}

/*
 * More chunks than the first chunk directory holds: growth replaces the
 * directory, and records of every chunk, old and new, still resolve.
 */
static void test_directory_growth(void)
{
	struct stackdepot_lf_params p = {
		.max_records = 1024,
		.max_depth = STACKDEPOT_LF_MAX_DEPTH,
		.expected_depth = STACKDEPOT_LF_MAX_DEPTH,
	};
	struct stackdepot_lf *depot = create_depot(&p);
	unsigned int depth = STACKDEPOT_LF_MAX_DEPTH, i, n;
	struct stackdepot_lf_stats stats;
	stackdepot_lf_id_t *ids;

	ASSERT_TRUE(depot);
	stackdepot_lf_stats(depot, &stats);
	/* Nine chunks and one record: past a directory of eight. */
	n = 9 * (stats.chunk_size / RS(depth)) + 1;
	ids = calloc(n, sizeof(*ids));
	ASSERT_TRUE(ids);
	for (i = 0; i < n; i++)
		ids[i] = get_id(depot, depth, i);
	stackdepot_lf_stats(depot, &stats);
	EXPECT_EQ(stats.chunks, 11);
	EXPECT_EQ(stats.drops_grow, 0);
	EXPECT_EQ(stats.mem_allocated, mem_for(&p, 11, 0));
	EXPECT_EQ(dir_for(&p, 11), 16);
	for (i = 0; i < n; i++)
		expect_resolves(depot, ids[i], depth, i);
	free(ids);
	put_depot(depot);
}

/*
 * Hit counters grow with the records, in blocks: counts stay exact across
 * blocks, and a reset keeps the lifetime hits while it clears the records'.
 */
static void test_ref_blocks(void)
{
	struct stackdepot_lf_params p = {
		.max_records = 1024,
		.max_depth = 8,
		.flags = STACKDEPOT_LF_COUNT_REFS,
	};
	struct stackdepot_lf *depot = create_depot(&p);
	struct stackdepot_lf_stats stats;
	stackdepot_lf_id_t ids[600];
	unsigned int i, n = 600;
	u64 counters;

	ASSERT_TRUE(depot);
	for (i = 0; i < n; i++)
		ids[i] = get_id(depot, 4, i);
	for (i = 0; i < n; i++) {
		EXPECT_EQ(ID(get_id(depot, 4, i)), ID(ids[i]));
		EXPECT_EQ(ID(get_id(depot, 4, i)), ID(ids[i]));
	}
	for (i = 0; i < n; i++)
		EXPECT_EQ(refs_of(depot, ids[i], 4), 3);
	stackdepot_lf_stats(depot, &stats);
	EXPECT_EQ(stats.hits, 2 * n);
	EXPECT_EQ(stats.inserts, n);
	EXPECT_EQ(stats.drops_grow, 0);
	/* Records 512 to 599 are in block 2: block 3 is the spare. */
	EXPECT_EQ(stats.mem_allocated,
		  mem_for(&p, stats.chunks, 4));
	/* Each record has one 4-byte counter per stripe of a block. */
	counters = stats.mem_used - stats.arena_used;
	EXPECT_EQ(counters, (u64)n * ref_block_bytes(&p) / TEST_REF_BLOCK);

	stackdepot_lf_reset(depot);
	get_id(depot, 4, 0);
	ids[0] = get_id(depot, 4, 0);
	EXPECT_EQ(refs_of(depot, ids[0], 4), 2);
	stackdepot_lf_stats(depot, &stats);
	EXPECT_EQ(stats.hits, 2 * n + 1);
	EXPECT_EQ(stats.inserts, n + 1);
	EXPECT_EQ(stats.mem_used - stats.arena_used, counters / n);
	EXPECT_EQ(stats.mem_allocated, mem_for(&p, stats.chunks, 4));
	put_depot(depot);
}

/*
 * Harness only: a record that has its chunk space but not its counter
 * block gives the space back and is refused as waiting for growth, also
 * when it had skipped the end of a chunk, which stays counted: the
 * identity must still hold. A counter block whose allocation fails leaves
 * the depot working, and the next request (the refusal's) adds it.
 */
static void test_ref_blocks_stalled(void)
{
	struct stackdepot_lf_params p = {
		.max_records = 1024,
		.max_depth = 16,
		.flags = STACKDEPOT_LF_COUNT_REFS,
	};
	struct stackdepot_lf *depot = create_depot(&p);
	stackdepot_lf_id_t ids[TEST_REF_BLOCK], id;
	struct stackdepot_lf_stats stats;
	unsigned int i, calls = 0;
	u64 c;

	ASSERT_TRUE(depot);
	stackdepot_lf_stats(depot, &stats);
	c = stats.chunk_size;
	ASSERT_EQ(c, 8192);
	/* One counter block, for the first 256 records, and no more. */
	sdlf_grow_pause(depot, true);
	/* 255 records of 32 bytes and one of 16: 16 bytes left in chunk 0 */
	for (i = 0; i < TEST_REF_BLOCK - 1; i++, calls++)
		ids[i] = get_id(depot, 3, i);
	ids[i] = get_id(depot, 1, i);
	calls++;
	stackdepot_lf_stats(depot, &stats);
	EXPECT_EQ(stats.arena_used, c - 16);
	EXPECT_EQ(stats.records, TEST_REF_BLOCK);

	/*
	 * The next record's counter block is not there: refused before it
	 * takes any chunk space, even one that would skip to chunk 1.
	 */
	id = stackdepot_lf_u32_to_id(0x1234);
	EXPECT_EQ(try_get_id(depot, 2, 1000, &id), -ENOSPC);
	calls++;
	EXPECT_EQ(ID(id), 0x1234);
	stackdepot_lf_stats(depot, &stats);
	EXPECT_EQ(stats.drops_grow, 1);
	EXPECT_EQ(stats.arena_used, c - 16);
	EXPECT_EQ(stats.chunk_ends, 0);
	EXPECT_EQ(stats.arena_lost, 0);
	EXPECT_EQ(stats.records, TEST_REF_BLOCK);
	expect_arena_adds_up(depot);
	/* Nor one that would fit in what is left of chunk 0. */
	EXPECT_EQ(try_get_id(depot, 1, 1001, &id), -ENOSPC);
	calls++;
	stackdepot_lf_stats(depot, &stats);
	EXPECT_EQ(stats.drops_grow, 2);
	EXPECT_EQ(stats.arena_used, c - 16);
	EXPECT_EQ(stats.chunk_ends, 0);
	/* Known stacks still hit and count. */
	for (i = 0; i < TEST_REF_BLOCK; i += 51, calls++)
		EXPECT_EQ(ID(get_id(depot, i < TEST_REF_BLOCK - 1 ? 3 : 1, i)),
			  ID(ids[i]));
	for (i = 0; i < TEST_REF_BLOCK; i++)
		EXPECT_EQ(refs_of(depot, ids[i],
				  i < TEST_REF_BLOCK - 1 ? 3 : 1),
			  i % 51 ? 1 : 2);
	expect_arena_adds_up(depot);

	/*
	 * The allocation of the block fails. The stall must be in a chunk
	 * that is not the last, or the insert would ask for growth before
	 * it looks for its block, and might find it: start over in chunk 0.
	 */
	stackdepot_lf_reset(depot);
	for (i = 0; i < TEST_REF_BLOCK; i++, calls++)
		ids[i] = get_id(depot, 1, i);
	sdlf_fail_alloc_at = 1;
	sdlf_grow_pause(depot, false);
	sdlf_grow_flush(depot);
	EXPECT_EQ(sdlf_fail_alloc_at, 0);
	stackdepot_lf_stats(depot, &stats);
	EXPECT_EQ(stats.mem_allocated, mem_for(&p, 2, 1));
	EXPECT_EQ(try_get_id(depot, 1, 1000, &id), -ENOSPC);
	calls++;
	/* That refusal asked again: the blocks are there now. */
	stackdepot_lf_stats(depot, &stats);
	EXPECT_EQ(stats.drops_grow, 3);
	EXPECT_EQ(stats.arena_used, TEST_REF_BLOCK * RS(1));
	EXPECT_EQ(stats.mem_allocated, mem_for(&p, 2, 3));
	id = get_id(depot, 1, 1000);
	calls++;
	expect_resolves(depot, id, 1, 1000);
	EXPECT_EQ(refs_of(depot, id, 1), 1);
	stackdepot_lf_stats(depot, &stats);
	EXPECT_EQ(stats.arena_used, (TEST_REF_BLOCK + 1) * RS(1));
	EXPECT_EQ(stats.chunk_ends, 0);
	EXPECT_EQ(stats.records, TEST_REF_BLOCK + 1);
	EXPECT_EQ(stats.chunks, 2);
	EXPECT_EQ(calls_counted(&stats), calls);
	for (i = 0; i < TEST_REF_BLOCK; i++)
		expect_resolves(depot, ids[i], 1, i);
	put_depot(depot);
}

/*
 * Insert new stacks of @depth frames from *@nr on, letting growth run,
 * until the next one would go to chunk @chunk; returns false on failure.
 */
static bool fill_up_to_chunk(struct stackdepot_lf *depot, unsigned int depth,
			     u32 *nr, unsigned int chunk)
{
	struct stackdepot_lf_stats stats;

	for (;;) {
		stackdepot_lf_stats(depot, &stats);
		if (stats.arena_used / stats.chunk_size >= chunk ||
		    (stats.arena_used / stats.chunk_size == chunk - 1 &&
		     stats.arena_used % stats.chunk_size + RS(depth) >
		     stats.chunk_size))
			return true;
		if (!EXPECT_NE(ID(get_id(depot, depth, (*nr)++)), 0))
			return false;
	}
}

/*
 * Harness only: growth whose allocation fails, of a chunk, of a new
 * chunk directory, or of a chunk after its new directory, adds nothing
 * (or only the directory) and leaves the depot working, refusing what
 * needs the missing chunk as waiting for growth; the next request
 * recovers.
 */
static void test_growth_enomem(void)
{
	struct stackdepot_lf_params p = {
		.max_records = 1024,
		.max_depth = TEST_DEPTH,
	};
	struct stackdepot_lf *depot = create_depot(&p);
	struct stackdepot_lf_stats stats;
	unsigned int i, drops = 0;
	stackdepot_lf_id_t id, first;
	u32 nr = 0;
	u64 mem;

	ASSERT_TRUE(depot);
	/* Both chunks used up while growth is held back. */
	sdlf_grow_pause(depot, true);
	first = get_id(depot, TEST_DEPTH, nr++);
	ASSERT_TRUE(fill_up_to_chunk(depot, TEST_DEPTH, &nr, 2));
	EXPECT_EQ(try_get_id(depot, TEST_DEPTH, nr, &id), -ENOSPC);
	drops++;

	/* The chunk allocation fails. */
	sdlf_fail_alloc_at = 1;
	sdlf_grow_pause(depot, false);
	sdlf_grow_flush(depot);
	EXPECT_EQ(sdlf_fail_alloc_at, 0);
	stackdepot_lf_stats(depot, &stats);
	EXPECT_EQ(stats.chunks, 2);
	EXPECT_EQ(stats.mem_allocated, mem_for(&p, 2, 0));
	/* Still working: known stacks hit, new ones wait for growth ... */
	EXPECT_EQ(ID(get_id(depot, TEST_DEPTH, 0)), ID(first));
	EXPECT_EQ(try_get_id(depot, TEST_DEPTH, nr, &id), -ENOSPC);
	drops++;
	/* ... which that refusal asked for, and which works this time. */
	stackdepot_lf_stats(depot, &stats);
	EXPECT_EQ(stats.chunks, 3);
	EXPECT_EQ(stats.drops_grow, drops);
	id = get_id(depot, TEST_DEPTH, nr);
	expect_resolves(depot, id, TEST_DEPTH, nr++);

	/* The directory of 8 is full; replacing it fails. */
	ASSERT_TRUE(fill_up_to_chunk(depot, TEST_DEPTH, &nr, 7));
	stackdepot_lf_stats(depot, &stats);
	EXPECT_EQ(stats.chunks, 8);
	mem = stats.mem_allocated;
	EXPECT_EQ(mem, mem_for(&p, 8, 0));
	sdlf_fail_alloc_at = 1;
	/* The first record of chunk 7, the last, asks for chunk 8. */
	id = get_id(depot, TEST_DEPTH, nr);
	expect_resolves(depot, id, TEST_DEPTH, nr++);
	EXPECT_EQ(sdlf_fail_alloc_at, 0);
	stackdepot_lf_stats(depot, &stats);
	EXPECT_EQ(stats.chunks, 8);
	EXPECT_EQ(stats.mem_allocated, mem);
	/* The next record of chunk 7 asks again: a directory of 16. */
	id = get_id(depot, TEST_DEPTH, nr);
	expect_resolves(depot, id, TEST_DEPTH, nr++);
	stackdepot_lf_stats(depot, &stats);
	EXPECT_EQ(stats.chunks, 9);
	EXPECT_EQ(stats.mem_allocated, mem_for(&p, 9, 0));

	/* A directory of 16 full: the new one is allocated, the chunk not. */
	ASSERT_TRUE(fill_up_to_chunk(depot, TEST_DEPTH, &nr, 15));
	stackdepot_lf_stats(depot, &stats);
	EXPECT_EQ(stats.chunks, 16);
	mem = stats.mem_allocated;
	sdlf_fail_alloc_at = 2;
	id = get_id(depot, TEST_DEPTH, nr);
	expect_resolves(depot, id, TEST_DEPTH, nr++);
	EXPECT_EQ(sdlf_fail_alloc_at, 0);
	stackdepot_lf_stats(depot, &stats);
	EXPECT_EQ(stats.chunks, 16);
	EXPECT_EQ(stats.mem_allocated, mem + (32 - 16) * sizeof(void *));
	/* The next request adds the chunk, into the directory there is. */
	id = get_id(depot, TEST_DEPTH, nr);
	expect_resolves(depot, id, TEST_DEPTH, nr++);
	stackdepot_lf_stats(depot, &stats);
	EXPECT_EQ(stats.chunks, 17);
	EXPECT_EQ(stats.mem_allocated, mem_for(&p, 17, 0));
	EXPECT_EQ(stats.drops_grow, drops);
	EXPECT_EQ(stats.drops_full, 0);
	EXPECT_EQ(stats.records, nr);
	for (i = 0; i < nr; i++) {
		make_stack(want_buf, TEST_DEPTH, i);
		EXPECT_EQ(stackdepot_lf_get_id(depot, want_buf, TEST_DEPTH,
					       &id), 0);
		expect_resolves(depot, id, TEST_DEPTH, i);
	}
	put_depot(depot);
}

static struct stackdepot_lf *race_depot;
static unsigned int race_depth;
static int race_ret;

/*
 * Replaces sdlf_slot_publish() once: before the caller publishes, the
 * same stack is inserted by a nested call, which builds its record after
 * the caller's in the arena and publishes it first.
 */
static bool race_publish(struct stackdepot_lf *depot, u32 pos, u32 val)
{
	stackdepot_lf_id_t id;

	sdlf_stub_deactivate();
	make_stack(want_buf, race_depth, 7);
	race_ret = stackdepot_lf_get_id(race_depot, want_buf, race_depth, &id);
	return sdlf_slot_publish(depot, pos, val);
}

static void test_lost_race_accounting(void)
{
	struct stackdepot_lf *depot = create_default();
	struct stackdepot_lf_stats stats;
	struct stackdepot_lf_info info;
	stackdepot_lf_id_t a, b;

	race_depot = depot;
	race_depth = 11;
	race_ret = -1;
	get_id(depot, 5, 1);
	sdlf_stub_activate((void *)sdlf_slot_publish, (void *)race_publish);
	a = get_id(depot, race_depth, 7);
	sdlf_stub_deactivate();
	EXPECT_EQ(race_ret, 0);
	b = get_id(depot, race_depth, 7);
	EXPECT_EQ(ID(a), ID(b));
	expect_resolves(depot, a, race_depth, 7);

	stackdepot_lf_stats(depot, &stats);
	EXPECT_EQ(stats.records, 2);
	EXPECT_EQ(stats.lost_races, 1);
	EXPECT_EQ(stats.inserts, 2);
	EXPECT_EQ(stats.hits, 2);
	/* The loser's record could not be given back: exactly it is lost. */
	EXPECT_EQ(stats.arena_lost, ALIGN(RS(race_depth), 8));
	EXPECT_EQ(stats.arena_used, ALIGN(RS(5), 8) + 2 * ALIGN(RS(race_depth), 8));
	EXPECT_EQ(stats.chunk_ends, 0);
	EXPECT_EQ(stats.arena_used - stats.arena_lost - stats.chunk_ends,
		  record_bytes(depot, NULL));
	EXPECT_EQ(stackdepot_lf_lookup(depot, a, got_buf, ARRAY_SIZE(got_buf),
				       &info), race_depth);
	EXPECT_EQ(info.refs, 3);

	/* A reset forgets the loss with the records. */
	stackdepot_lf_reset(depot);
	stackdepot_lf_stats(depot, &stats);
	EXPECT_EQ(stats.arena_lost, 0);
	EXPECT_EQ(stats.arena_used, 0);
	EXPECT_EQ(stats.chunk_ends, 0);
	put_depot(depot);
}

/*
 * A caller that grace periods do not wait for (sdlf_invisible, as on a CPU
 * that RCU regards as offline) must be refused up front. Were it let in,
 * the stub would hold it between building a record and publishing it while
 * a reset runs, and it would publish into the next generation a record
 * whose arena bytes that generation reuses: the checks of the new
 * generation below catch that.
 */
static struct {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct stackdepot_lf *depot;
	bool built, go, done;
	int ret;
} inv = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.cond = PTHREAD_COND_INITIALIZER,
};

static bool invisible_publish(struct stackdepot_lf *depot, u32 pos, u32 val)
{
	pthread_mutex_lock(&inv.lock);
	inv.built = true;
	pthread_cond_broadcast(&inv.cond);
	while (!inv.go)
		pthread_cond_wait(&inv.cond, &inv.lock);
	pthread_mutex_unlock(&inv.lock);
	return sdlf_slot_publish(depot, pos, val);
}

static void *invisible_thread(void *arg)
{
	unsigned long entries[TEST_DEPTH];
	stackdepot_lf_id_t id;

	sdlf_invisible = true;
	make_stack(entries, 9, 500);
	inv.ret = stackdepot_lf_get_id(inv.depot, entries, 9, &id);
	sdlf_invisible = false;
	pthread_mutex_lock(&inv.lock);
	inv.done = true;
	pthread_cond_broadcast(&inv.cond);
	pthread_mutex_unlock(&inv.lock);
	return NULL;
}

static void test_invisible_caller(void)
{
	struct stackdepot_lf *depot = create_default();
	struct stackdepot_lf_iter iter;
	struct stackdepot_lf_info info;
	struct stackdepot_lf_stats stats;
	unsigned int i, seen = 0, nr;
	stackdepot_lf_id_t ids[8];
	pthread_t tid;
	int ret;

	inv.depot = depot;
	inv.built = false;
	inv.go = false;
	inv.done = false;
	get_id(depot, 9, 1);
	sdlf_stub_activate((void *)sdlf_slot_publish,
			   (void *)invisible_publish);
	ASSERT_EQ(pthread_create(&tid, NULL, invisible_thread, NULL), 0);
	pthread_mutex_lock(&inv.lock);
	while (!inv.built && !inv.done)
		pthread_cond_wait(&inv.cond, &inv.lock);
	pthread_mutex_unlock(&inv.lock);
	sdlf_stub_deactivate();
	stackdepot_lf_reset(depot);
	pthread_mutex_lock(&inv.lock);
	inv.go = true;
	pthread_cond_broadcast(&inv.cond);
	pthread_mutex_unlock(&inv.lock);
	pthread_join(tid, NULL);

	EXPECT_EQ(inv.ret, -EPERM);
	stackdepot_lf_stats(depot, &stats);
	EXPECT_EQ(stats.drops_context, 1);
	EXPECT_EQ(stats.records, 0);
	EXPECT_EQ(stats.inserts, 1);
	EXPECT_EQ(stats.hits, 0);
	for (i = 0; i < 8; i++)
		ids[i] = get_id(depot, 9, 600 + i);
	stackdepot_lf_iter_start(&iter, depot);
	while ((ret = stackdepot_lf_iter_next(&iter, got_buf,
					      ARRAY_SIZE(got_buf), &info)) > 0) {
		nr = stack_nr(got_buf);
		EXPECT_GE(nr, 600);
		EXPECT_GT(608, nr);
		seen++;
	}
	EXPECT_EQ(ret, 0);
	EXPECT_EQ(seen, 8);
	for (i = 0; i < 8; i++)
		expect_resolves(depot, ids[i], 9, 600 + i);
	stackdepot_lf_stats(depot, &stats);
	EXPECT_EQ(stats.records, 8);
	put_depot(depot);
}

/* get_id through an RCU-published pointer, as an owner that frees it does. */
static void test_get_id_rcu(void)
{
	struct stackdepot_lf *depot = create_default(), __rcu *ptr = NULL;
	struct stackdepot_lf_stats stats;
	stackdepot_lf_id_t id = 0, id2;

	make_stack(want_buf, 7, 3);
	EXPECT_EQ(stackdepot_lf_get_id_rcu(&ptr, want_buf, 7, &id), -ENODEV);
	EXPECT_EQ(ID(id), 0);
	rcu_assign_pointer(ptr, depot);
	EXPECT_EQ(stackdepot_lf_get_id_rcu(&ptr, want_buf, 0, &id), -EINVAL);
	EXPECT_EQ(stackdepot_lf_get_id_rcu(&ptr, want_buf, 7, &id), 0);
	id2 = get_id(depot, 7, 3);
	EXPECT_EQ(ID(id), ID(id2));
	expect_resolves(depot, id, 7, 3);
	make_stack(want_buf, TEST_DEPTH + 1, 4);
	EXPECT_EQ(stackdepot_lf_get_id_rcu(&ptr, want_buf, TEST_DEPTH + 1, &id),
		  -E2BIG);
	stackdepot_lf_stats(depot, &stats);
	EXPECT_EQ(stats.inserts, 1);
	EXPECT_EQ(stats.hits, 1);
	EXPECT_EQ(stats.drops_too_deep, 1);

	/*
	 * A caller that grace periods do not wait for may hold a pointer to
	 * a depot freed under it: refused, it must not touch it (ASan).
	 */
	put_depot(depot);
	sdlf_invisible = true;
	make_stack(want_buf, 7, 3);
	EXPECT_EQ(stackdepot_lf_get_id_rcu(&ptr, want_buf, 7, &id), -EPERM);
	sdlf_invisible = false;
}

static void test_reset(void)
{
	struct stackdepot_lf *depot = create_default();
	unsigned long entries[TEST_DEPTH];
	stackdepot_lf_id_t old[4], id;
	struct stackdepot_lf_stats stats, before;
	unsigned int i;

	u32 gen;

	for (i = 0; i < 4; i++)
		old[i] = get_id(depot, 9, i);
	gen = stackdepot_lf_generation(depot);
	stackdepot_lf_stats(depot, &before);
	stackdepot_lf_reset(depot);
	stackdepot_lf_stats(depot, &stats);
	EXPECT_GT(stats.generation, gen);
	EXPECT_EQ(stats.records, 0);
	EXPECT_EQ(stats.arena_used, 0);
	EXPECT_EQ(stats.chunk_ends, 0);
	EXPECT_EQ(stats.mem_used, 0);
	EXPECT_EQ(stats.resets, 1);
	/* The chunks stay for the next generation. */
	EXPECT_EQ(stats.chunks, before.chunks);
	EXPECT_EQ(stats.mem_allocated, before.mem_allocated);
	for (i = 0; i < 4; i++)
		EXPECT_EQ(stackdepot_lf_lookup(depot, old[i], entries,
					       TEST_DEPTH, NULL), -ESTALE);
	for (i = 0; i < 4; i++) {
		id = get_id(depot, 9, 10 + i);
		expect_resolves(depot, id, 9, 10 + i);
		EXPECT_EQ(stackdepot_lf_id_gen(depot, id), stats.generation);
	}
	id = get_id(depot, 9, 0);
	EXPECT_NE(ID(id), ID(old[0]));
	for (i = 0; i < 4; i++)
		EXPECT_EQ(stackdepot_lf_lookup(depot, old[i], entries,
					       TEST_DEPTH, NULL), -ESTALE);
	put_depot(depot);
}

/* Tags are system-wide: an id of one depot never resolves in another. */
static void test_ids_system_wide(void)
{
	struct stackdepot_lf_params small = {
		.max_records = 16,
		.max_depth = TEST_DEPTH,
	};
	struct stackdepot_lf *a = create_default(), *b = create_default();
	struct stackdepot_lf *c = create_depot(&small);
	stackdepot_lf_id_t ida, idb, idc;

	ASSERT_TRUE(c);
	ida = get_id(a, 6, 3);
	idb = get_id(b, 6, 3);
	idc = get_id(c, 6, 3);
	EXPECT_NE(ID(ida), ID(idb));
	EXPECT_EQ(ID(ida) & 2047, ID(idb) & 2047);
	EXPECT_EQ(stackdepot_lf_lookup(a, idb, got_buf, TEST_DEPTH, NULL), -ESTALE);
	EXPECT_EQ(stackdepot_lf_lookup(b, ida, got_buf, TEST_DEPTH, NULL), -ESTALE);
	EXPECT_EQ(stackdepot_lf_lookup(a, idc, got_buf, TEST_DEPTH, NULL), -ESTALE);
	EXPECT_EQ(stackdepot_lf_lookup(c, ida, got_buf, TEST_DEPTH, NULL), -ESTALE);
	stackdepot_lf_reset(a);
	stackdepot_lf_reset(b);
	ida = get_id(a, 6, 3);
	EXPECT_EQ(stackdepot_lf_lookup(b, ida, got_buf, TEST_DEPTH, NULL), -ESTALE);
	EXPECT_EQ(stackdepot_lf_lookup(c, ida, got_buf, TEST_DEPTH, NULL), -ESTALE);
	expect_resolves(a, ida, 6, 3);
	put_depot(a);
	put_depot(b);
	put_depot(c);
}

/*
 * The wrap of the id space, and a walk that must stay stale when the new
 * generation gets the walk's own range back.
 */
static void test_generation_wrap(void)
{
	struct stackdepot_lf *depot = create_default();
	struct stackdepot_lf_stats stats;
	struct stackdepot_lf_iter iter;
	struct stackdepot_lf_info info;
	u32 max_tag = (1U << (32 - 11)) - 1;
	stackdepot_lf_id_t last, id;
	u64 cursor;

	cursor = sdlf_ids_set_next((u64)max_tag << 11);
	stackdepot_lf_reset(depot);
	EXPECT_EQ(stackdepot_lf_generation(depot), max_tag);
	last = get_id(depot, 5, 1);
	EXPECT_EQ(stackdepot_lf_id_gen(depot, last), max_tag);
	EXPECT_EQ(ID(last) >> 11, max_tag);
	expect_resolves(depot, last, 5, 1);

	stackdepot_lf_reset(depot);
	stackdepot_lf_stats(depot, &stats);
	EXPECT_EQ(stats.generation, 1);
	EXPECT_EQ(stackdepot_lf_lookup(depot, last, got_buf, TEST_DEPTH, NULL),
		  -ESTALE);
	id = get_id(depot, 5, 1);
	EXPECT_EQ(stackdepot_lf_id_gen(depot, id), 1);
	EXPECT_GT(ID(id), 2047);
	expect_resolves(depot, id, 5, 1);

	stackdepot_lf_iter_start(&iter, depot);
	sdlf_ids_set_next(1ULL << 11);
	stackdepot_lf_reset(depot);
	EXPECT_EQ(stackdepot_lf_generation(depot), 1);
	get_id(depot, 5, 1);
	EXPECT_EQ(stackdepot_lf_iter_next(&iter, got_buf, TEST_DEPTH, &info),
		  -ESTALE);
	/* The documented bound: the earlier id of the range resolves. */
	EXPECT_EQ(stackdepot_lf_lookup(depot, id, got_buf, TEST_DEPTH, NULL), 5);
	put_depot(depot);
	sdlf_ids_set_next(cursor);
}

/*
 * The limits of a depot's size, now that there is no arena to cap: chunks
 * stay within 4 KiB and 64 KiB whatever depths they are sized for, the
 * largest depot can be created (ids of 20 index bits), and one record
 * more cannot.
 */
static void test_arena_limit(void)
{
	struct stackdepot_lf_params p = {
		.max_records = STACKDEPOT_LF_MAX_RECORDS,
		.max_depth = STACKDEPOT_LF_MAX_DEPTH,
		.expected_depth = STACKDEPOT_LF_MAX_DEPTH,
		.flags = STACKDEPOT_LF_COUNT_REFS,
	};
	struct stackdepot_lf_params small = {
		.max_records = 16,
		.max_depth = 1,
		.expected_depth = 1,
	};
	struct stackdepot_lf *depot;
	struct stackdepot_lf_stats stats;
	stackdepot_lf_id_t id;

	/* 32 records of 256 frames would take 64 KiB and more. */
	EXPECT_EQ(chunk_size_for(&p), 65536);
	EXPECT_GT(32 * RS(STACKDEPOT_LF_MAX_DEPTH), 65536);
	depot = create_depot(&p);
	ASSERT_TRUE(depot);
	stackdepot_lf_stats(depot, &stats);
	EXPECT_EQ(stats.chunk_size, 65536);
	EXPECT_EQ(stats.index_bits, 20);
	EXPECT_EQ(stats.table_slots, 1U << 20);
	id = get_id(depot, STACKDEPOT_LF_MAX_DEPTH, 1);
	EXPECT_EQ(ID(id) >> 20, stats.generation);
	expect_resolves(depot, id, STACKDEPOT_LF_MAX_DEPTH, 1);
	put_depot(depot);

	/* 32 records of one frame take 512 bytes: 4 KiB all the same. */
	depot = create_depot(&small);
	ASSERT_TRUE(depot);
	stackdepot_lf_stats(depot, &stats);
	EXPECT_EQ(stats.chunk_size, 4096);
	EXPECT_EQ(stats.index_bits, 5);
	put_depot(depot);

	p.max_records++;
	EXPECT_EQ(stackdepot_lf_mem_size(&p), 0);
	EXPECT_EQ(PTR_ERR_OR_ZERO(stackdepot_lf_create(&p)), -EINVAL);
	EXPECT_EQ(stackdepot_lf_mem_size(NULL), 0);
	EXPECT_EQ(PTR_ERR_OR_ZERO(stackdepot_lf_create(NULL)), -EINVAL);
}

/*
 * Only the table is sized by the capacity: a depot of twice the records
 * takes the table's growth more memory on creation, and nothing else;
 * expected_depth 0 is the default depth, or max_depth if that is less.
 */
static void test_mem_size(void)
{
	struct stackdepot_lf_params p = {
		.max_records = 1024,
		.max_depth = 64,
	};
	struct stackdepot_lf_params q;
	size_t small, big;

	small = stackdepot_lf_mem_size(&p);
	p.max_records = 2048;
	big = stackdepot_lf_mem_size(&p);
	/* 2048 slots more, 4 bytes each */
	EXPECT_EQ(big - small, 2048 * sizeof(u32));
	/* Deeper stacks: larger chunks, the same table. */
	p.max_depth = STACKDEPOT_LF_MAX_DEPTH;
	EXPECT_GT(stackdepot_lf_mem_size(&p), big);
	EXPECT_GT(big + 2 * 65536, stackdepot_lf_mem_size(&p));
	/* The largest depot: its 4 MiB table and little more. */
	p.max_records = STACKDEPOT_LF_MAX_RECORDS;
	p.flags = STACKDEPOT_LF_COUNT_REFS;
	EXPECT_GT(stackdepot_lf_mem_size(&p), 4U << 20);
	EXPECT_GT((4U << 20) + (256U << 10), stackdepot_lf_mem_size(&p));

	q = (struct stackdepot_lf_params){ 64, TEST_DEPTH, 0, 0 };
	p = q;
	p.expected_depth = STACKDEPOT_LF_DEFAULT_DEPTH;
	EXPECT_EQ(stackdepot_lf_mem_size(&p), stackdepot_lf_mem_size(&q));
	p.max_depth = 8;
	q.max_depth = 8;
	p.expected_depth = 8;
	EXPECT_EQ(stackdepot_lf_mem_size(&p), stackdepot_lf_mem_size(&q));
	/* Counter blocks add the table of blocks and one block. */
	p = q;
	p.flags = STACKDEPOT_LF_COUNT_REFS;
	EXPECT_GT(ref_block_bytes(&p), 0);
	EXPECT_EQ(ref_block_bytes(&p) % (TEST_REF_BLOCK * sizeof(u32)), 0);
}

static void test_iterator(void)
{
	struct stackdepot_lf *depot = create_default();
	unsigned long entries[TEST_DEPTH], want[TEST_DEPTH];
	struct stackdepot_lf_info info;
	struct stackdepot_lf_iter iter;
	stackdepot_lf_id_t ids[100];
	unsigned int seen[100] = { };
	unsigned int i, n = 0;
	int ret;

	for (i = 0; i < 100; i++)
		ids[i] = get_id(depot, 1 + i % TEST_DEPTH, i);

	stackdepot_lf_iter_start(&iter, depot);
	while ((ret = stackdepot_lf_iter_next(&iter, entries, TEST_DEPTH,
					      &info)) > 0) {
		for (i = 0; i < 100; i++)
			if (ID(ids[i]) == ID(info.id))
				break;
		ASSERT_TRUE(i < 100);
		seen[i]++;
		n++;
		EXPECT_EQ(ret, 1 + i % TEST_DEPTH);
		make_stack(want, ret, i);
		EXPECT_MEMEQ(entries, want, ret * sizeof(*want));
		EXPECT_EQ(info.refs, 1);
	}
	EXPECT_EQ(ret, 0);
	EXPECT_EQ(n, 100);
	for (i = 0; i < 100; i++)
		EXPECT_EQ(seen[i], 1);
	EXPECT_EQ(stackdepot_lf_iter_next(&iter, entries, TEST_DEPTH, &info), 0);

	stackdepot_lf_iter_start(&iter, depot);
	EXPECT_EQ(stackdepot_lf_iter_next(&iter, entries, 0, &info), -ENOSPC);
	EXPECT_GT(stackdepot_lf_iter_next(&iter, entries, TEST_DEPTH, &info), 0);

	stackdepot_lf_reset(depot);
	get_id(depot, 3, 1000);
	EXPECT_EQ(stackdepot_lf_iter_next(&iter, entries, TEST_DEPTH, &info),
		  -ESTALE);
	EXPECT_EQ(stackdepot_lf_iter_next(&iter, entries, TEST_DEPTH, &info),
		  -ESTALE);

	stackdepot_lf_iter_start(&iter, depot);
	EXPECT_EQ(stackdepot_lf_iter_next(&iter, entries, TEST_DEPTH, &info), 3);
	EXPECT_EQ(stackdepot_lf_id_gen(depot, info.id),
		  stackdepot_lf_generation(depot));
	EXPECT_EQ(stackdepot_lf_iter_next(&iter, entries, TEST_DEPTH, &info), 0);
	put_depot(depot);
}

static void test_stats_add_up(void)
{
	struct stackdepot_lf_params p = {
		.max_records = 32,
		.max_depth = 16,
	};
	struct stackdepot_lf *depot = create_depot(&p);
	struct sdlf_rng rng = { .state = 1 };
	unsigned long entries[20];
	struct stackdepot_lf_stats stats;
	unsigned int i, depth, calls = 0;
	stackdepot_lf_id_t id;

	ASSERT_TRUE(depot);
	for (i = 0; i < 2000; i++) {
		depth = 1 + sdlf_rng_below(&rng, 20);
		make_stack(entries, depth, sdlf_rng_below(&rng, 64));
		calls++;
		if (stackdepot_lf_get_id(depot, entries, depth, &id) == 0)
			EXPECT_EQ(stackdepot_lf_lookup(depot, id, entries,
						       ARRAY_SIZE(entries),
						       NULL), depth);
	}
	stackdepot_lf_stats(depot, &stats);
	EXPECT_EQ(calls_counted(&stats), calls);
	EXPECT_EQ(stats.inserts, stats.records);
	EXPECT_GT(stats.drops_too_deep, 0);
	EXPECT_GT(stats.drops_full, 0);
	EXPECT_GT(stats.hits, 0);
	/* 32 records of at most 136 bytes: the first chunk holds them all. */
	EXPECT_EQ(stats.drops_grow, 0);
	EXPECT_LE(stats.arena_used, stats.chunk_size);
	put_depot(depot);
}

/*
 * As the KUnit case: threads calling get_id on the same few stacks count
 * into per-thread copies of the hit counters; lookup must sum them all.
 */
#define REFS_THREADS	4
#define REFS_STACKS	4
#define REFS_CALLS	5000

static void *refs_thread(void *arg)
{
	struct stackdepot_lf *depot = arg;
	unsigned long entries[TEST_DEPTH];
	stackdepot_lf_id_t id;
	unsigned int i;
	long errors = 0;

	for (i = 0; i < REFS_CALLS * REFS_STACKS; i++) {
		make_stack(entries, 9, i % REFS_STACKS);
		errors += !!stackdepot_lf_get_id(depot, entries, 9, &id);
	}
	return (void *)errors;
}

static void test_refs_concurrent(void)
{
	struct stackdepot_lf *depot = create_default();
	pthread_t tid[REFS_THREADS];
	struct stackdepot_lf_stats stats;
	struct stackdepot_lf_info info;
	stackdepot_lf_id_t id;
	unsigned int i;
	void *errors;

	for (i = 0; i < REFS_THREADS; i++)
		ASSERT_EQ(pthread_create(&tid[i], NULL, refs_thread, depot), 0);
	for (i = 0; i < REFS_THREADS; i++) {
		ASSERT_EQ(pthread_join(tid[i], &errors), 0);
		EXPECT_EQ((long)errors, 0);
	}
	for (i = 0; i < REFS_STACKS; i++) {
		make_stack(want_buf, 9, i);
		ASSERT_EQ(stackdepot_lf_get_id(depot, want_buf, 9, &id), 0);
		ASSERT_EQ(stackdepot_lf_lookup(depot, id, got_buf, TEST_DEPTH,
					       &info), 9);
		/* The get_id above is one more call. */
		EXPECT_EQ(info.refs, REFS_THREADS * REFS_CALLS + 1);
	}
	stackdepot_lf_stats(depot, &stats);
	EXPECT_EQ(stats.inserts, REFS_STACKS);
	EXPECT_EQ(stats.records, REFS_STACKS);
	EXPECT_EQ(stats.hits + stats.inserts,
		  REFS_THREADS * REFS_CALLS * REFS_STACKS + REFS_STACKS);
	put_depot(depot);
}

#define RACE_THREADS	4
#define RACE_STACKS	200
#define RACE_ROUNDS	400

static struct {
	struct stackdepot_lf *depot;
	pthread_barrier_t start;
} races;

/* Every thread inserts the same new stacks in the same order. */
static void *races_thread(void *arg)
{
	unsigned long entries[TEST_DEPTH];
	stackdepot_lf_id_t id;
	long errors = 0;
	unsigned int i;

	pthread_barrier_wait(&races.start);
	for (i = 0; i < RACE_STACKS; i++) {
		make_stack(entries, 1 + i % TEST_DEPTH, i);
		errors += !!stackdepot_lf_get_id(races.depot, entries,
						  1 + i % TEST_DEPTH, &id);
	}
	return (void *)errors;
}

/*
 * Real lost races, not forced ones: after each round of threads racing to
 * insert the same stacks, the arena must add up exactly. Rounds go on
 * until 20 of them lost arena space to a race.
 */
static void test_lost_races_concurrent(void)
{
	struct stackdepot_lf_stats stats;
	unsigned int round, lost_rounds = 0;
	pthread_t tid[RACE_THREADS];
	void *errors;
	unsigned int i;
	u32 nr = 0;

	races.depot = create_default();
	/*
	 * A round takes four chunks and what races lose. Grow the depot to
	 * eight first, which resets keep, so that no round waits for growth:
	 * a refusal would fail the round.
	 */
	ASSERT_TRUE(fill_up_to_chunk(races.depot, TEST_DEPTH, &nr, 7));
	stackdepot_lf_stats(races.depot, &stats);
	EXPECT_EQ(stats.chunks, 8);
	stackdepot_lf_reset(races.depot);
	for (round = 0; round < RACE_ROUNDS && lost_rounds < 20; round++) {
		pthread_barrier_init(&races.start, NULL, RACE_THREADS);
		for (i = 0; i < RACE_THREADS; i++)
			ASSERT_EQ(pthread_create(&tid[i], NULL, races_thread,
						 NULL), 0);
		for (i = 0; i < RACE_THREADS; i++) {
			ASSERT_EQ(pthread_join(tid[i], &errors), 0);
			EXPECT_EQ((long)errors, 0);
		}
		pthread_barrier_destroy(&races.start);

		stackdepot_lf_stats(races.depot, &stats);
		EXPECT_EQ(stats.records, RACE_STACKS);
		EXPECT_EQ(stats.arena_used - stats.arena_lost -
			  stats.chunk_ends, record_bytes(races.depot, NULL));
		lost_rounds += !!stats.arena_lost;
		stackdepot_lf_reset(races.depot);
	}
	stackdepot_lf_stats(races.depot, &stats);
	printf("# lost_races_concurrent: %u rounds, %u with arena lost, %llu lost races\n",
	       round, lost_rounds, (unsigned long long)stats.lost_races);
	/* Without races the identity above proved nothing. */
	EXPECT_GT(lost_rounds, 0);
	EXPECT_EQ(stats.drops_grow, 0);
	put_depot(races.depot);
}

/*
 * Harness only: every allocation of create may fail, the first chunk's,
 * its spare's and the first counter block's included, and must return
 * -ENOMEM without leaks (ASan checks at exit).
 */
static void test_create_enomem(void)
{
	static const struct {
		struct stackdepot_lf_params p;
		unsigned int allocs;
	} cases[] = {
		/* depot, table, directory, statistics, two chunks */
		{ { 64, 8, 0, 0 }, 6 },
		/* and the table of counter blocks, and the first block */
		{ { 64, 8, 0, STACKDEPOT_LF_COUNT_REFS }, 8 },
	};
	struct stackdepot_lf *depot = NULL;
	unsigned int c, n;

	for (c = 0; c < ARRAY_SIZE(cases); c++) {
		for (n = 1; n < 16; n++) {
			sdlf_fail_alloc_at = n;
			depot = stackdepot_lf_create(&cases[c].p);
			if (!IS_ERR(depot))
				break;
			EXPECT_EQ(PTR_ERR(depot), -ENOMEM);
		}
		/* The failure was the create's, not left for later. */
		EXPECT_EQ(sdlf_fail_alloc_at, n > cases[c].allocs ? 1 : 0);
		sdlf_fail_alloc_at = 0;
		EXPECT_EQ(n, cases[c].allocs + 1);
		if (IS_ERR_OR_NULL(depot))
			continue;
		expect_resolves(depot, get_id(depot, 8, 1), 8, 1);
		put_depot(depot);
	}
}

struct test_case {
	const char *name;
	void (*fn)(void);
};

static const struct test_case cases[] = {
	{ "round_trip", test_round_trip },
	{ "same_and_different", test_same_and_different },
	{ "depth_limits", test_depth_limits },
	{ "invalid", test_invalid },
	{ "create_params", test_create_params },
	{ "collisions", test_collisions },
	{ "collisions_wrap", test_collisions_wrap },
	{ "fill_records", test_fill_records },
	{ "fill_arena", test_fill_arena },
	{ "chunk_ends", test_chunk_ends },
	{ "growth_stalled", test_growth_stalled },
	{ "growth_to_cap", test_growth_to_cap },
	{ "reset_keeps_chunks", test_reset_keeps_chunks },
	{ "directory_growth", test_directory_growth },
	{ "ref_blocks", test_ref_blocks },
	{ "ref_blocks_stalled", test_ref_blocks_stalled },
	{ "growth_enomem", test_growth_enomem },
	{ "lost_race_accounting", test_lost_race_accounting },
	{ "invisible_caller", test_invisible_caller },
	{ "get_id_rcu", test_get_id_rcu },
	{ "reset", test_reset },
	{ "ids_system_wide", test_ids_system_wide },
	{ "generation_wrap", test_generation_wrap },
	{ "arena_limit", test_arena_limit },
	{ "mem_size", test_mem_size },
	{ "iterator", test_iterator },
	{ "stats_add_up", test_stats_add_up },
	{ "refs_concurrent", test_refs_concurrent },
	{ "lost_races_concurrent", test_lost_races_concurrent },
	{ "create_enomem", test_create_enomem },
};

static bool run_case(const char *name, void (*fn)(void))
{
	cur_case = name;
	case_failed = 0;
	fn();
	/* Whatever a failed case left behind must not leak into the next. */
	sdlf_stub_deactivate();
	sdlf_fail_alloc_at = 0;
	if (case_failed)
		printf("FAIL harness:functional.%s\n", name);
	else
		printf("PASS harness:functional.%s\n", name);
	fflush(stdout);
	return !case_failed;
}

static void print_usage(const char *prog)
{
	fprintf(stderr,
		"usage: %s [-h] [CASE...]\n"
		"Runs the functional cases (all by default); prints one\n"
		"PASS/FAIL harness:functional.<case> line per case.\n", prog);
}

int main(int argc, char **argv)
{
	char name[128];
	unsigned int i, j, failed = 0, ran = 0;
	bool all = true;
	int opt;

	while ((opt = getopt(argc, argv, "h")) != -1) {
		print_usage(argv[0]);
		return opt == 'h' ? 0 : 2;
	}
	if (optind < argc)
		all = false;
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		bool want = all;
		int k;

		for (k = optind; k < argc; k++)
			want |= !strcmp(argv[k], cases[i].name);
		if (!want)
			continue;
		ran++;
		if (cases[i].fn != test_create_params) {
			failed += !run_case(cases[i].name, cases[i].fn);
			continue;
		}
		for (j = 0; j < ARRAY_SIZE(param_cases); j++) {
			cur_param = &param_cases[j];
			snprintf(name, sizeof(name), "create_params.%s",
				 param_cases[j].desc);
			failed += !run_case(name, test_create_params);
		}
	}
	if (!ran) {
		print_usage(argv[0]);
		return 2;
	}
	return failed ? 1 : 0;
}
