// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the lock-free stack depot.
 *
 * Stacks are synthetic: make_stack() derives every frame from a stack
 * number, so a test can rebuild the stack any id should resolve to.
 */

#include <kunit/static_stub.h>
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/hrtimer.h>
#include <linux/kthread.h>
#include <linux/prandom.h>
#include <linux/sched.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/stackdepot_lf.h>
#include <linux/vmalloc.h>

#include "../stackdepot_lf/stackdepot_lf_internal.h"

#define TEST_DEPTH	32

static void make_stack(unsigned long *entries, unsigned int depth, u32 nr)
{
	unsigned int i;

	for (i = 0; i < depth; i++)
		entries[i] = 0x81000000UL + ((unsigned long)nr << 12) +
			     i * 16 + (depth & 0xf);
}

#define RS(depth)	STACKDEPOT_LF_RECORD_SIZE(depth)
/* Record numbers per block of hit counters, SDLF_REF_BLOCK */
#define TEST_REF_BLOCK	256

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
	size_t size = SZ_4K;

	while (size < want && size < SZ_64K)
		size <<= 1;
	return size;
}

/* ... as many as max_records of the deepest records need, and a spare ... */
static unsigned int max_chunks_for(const struct stackdepot_lf_params *p)
{
	return DIV_ROUND_UP(p->max_records,
			    chunk_size_for(p) / RS(p->max_depth)) + 1;
}

/* ... with a spare kept ready: half as many as in use, one at least ... */
static unsigned int spare_for(unsigned int in_use)
{
	return max(in_use / 2, 1U);
}

/*
 * ... starting with room for initial_records of the expected depth and
 * the spare past them, and a counter block per 256 of those, one at least
 * (with COUNT_REFS) ...
 */
static unsigned int initial_chunks_for(const struct stackdepot_lf_params *p)
{
	unsigned int depth = p->expected_depth ?:
			     min(STACKDEPOT_LF_DEFAULT_DEPTH, p->max_depth);
	unsigned int in_use = max_t(unsigned int, 1,
				    DIV_ROUND_UP(p->initial_records,
						 chunk_size_for(p) / RS(depth)));

	return min(in_use + spare_for(in_use), max_chunks_for(p));
}

static unsigned int initial_blocks_for(const struct stackdepot_lf_params *p)
{
	if (!(p->flags & STACKDEPOT_LF_COUNT_REFS))
		return 0;
	return max(DIV_ROUND_UP(p->initial_records, TEST_REF_BLOCK), 1U);
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

/* ... and, with COUNT_REFS, counter blocks, of this size. */
static size_t ref_block_bytes(const struct stackdepot_lf_params *p)
{
	struct stackdepot_lf_params q = *p;

	if (!(p->flags & STACKDEPOT_LF_COUNT_REFS))
		return 0;
	q.flags = 0;
	/* Less the table of block pointers, the initial blocks */
	return (stackdepot_lf_mem_size(p) - stackdepot_lf_mem_size(&q) -
		DIV_ROUND_UP(p->max_records, TEST_REF_BLOCK) * sizeof(void *)) /
	       initial_blocks_for(p);
}

/*
 * What a depot of @p with @chunks chunks and @blocks counter blocks has
 * allocated: the initial size and the growth.
 */
static u64 mem_for(const struct stackdepot_lf_params *p, unsigned int chunks,
		   unsigned int blocks)
{
	unsigned int c0 = initial_chunks_for(p);
	u64 mem = stackdepot_lf_mem_size(p);

	mem += (u64)(chunks - c0) * chunk_size_for(p);
	mem += (u64)(dir_for(p, chunks) - dir_for(p, c0)) * sizeof(void *);
	if (blocks)
		mem += (u64)(blocks - initial_blocks_for(p)) *
		       ref_block_bytes(p);
	return mem;
}

/* Every get_id call is counted exactly once, in one of these. */
static u64 calls_counted(const struct stackdepot_lf_stats *stats)
{
	return stats->hits + stats->inserts + stats->drops_full +
	       stats->drops_grow + stats->drops_probe + stats->drops_too_deep +
	       stats->drops_busy + stats->drops_context;
}

KUNIT_DEFINE_ACTION_WRAPPER(vfree_action, vfree, const void *);
KUNIT_DEFINE_ACTION_WRAPPER(kthread_stop_action, kthread_stop,
			    struct task_struct *);

/* Scratch buffers of the test thread (never of the stress kthreads). */
static unsigned long want_buf[STACKDEPOT_LF_MAX_DEPTH];
static unsigned long got_buf[STACKDEPOT_LF_MAX_DEPTH];

static void expect_arena_adds_up(struct kunit *test,
				 struct stackdepot_lf *depot);

struct depot_ref {
	struct kunit *test;
	struct stackdepot_lf *depot;
};

/* Every depot ends checked: the identity below, then it goes. */
static void put_depot(void *arg)
{
	struct depot_ref *ref = arg;

	expect_arena_adds_up(ref->test, ref->depot);
	stackdepot_lf_destroy(ref->depot);
}

/*
 * Take @depot, just created from @p, for the test: it is destroyed when
 * the test ends, and checked now against what create promises: the bytes
 * stackdepot_lf_mem_size() announced, the initial chunks of the documented
 * size, nothing used.
 */
static void keep_depot(struct kunit *test, struct stackdepot_lf *depot,
		       const struct stackdepot_lf_params *p)
{
	struct depot_ref *ref = kunit_kzalloc(test, sizeof(*ref), GFP_KERNEL);
	struct stackdepot_lf_stats stats;

	if (!ref)
		stackdepot_lf_destroy(depot);
	KUNIT_ASSERT_NOT_NULL(test, ref);
	ref->test = test;
	ref->depot = depot;
	KUNIT_ASSERT_EQ(test, 0, kunit_add_action_or_reset(test, put_depot,
							   ref));
	stackdepot_lf_stats(depot, &stats);
	KUNIT_EXPECT_EQ(test, stats.mem_allocated,
			(u64)stackdepot_lf_mem_size(p));
	KUNIT_EXPECT_EQ(test, stats.mem_allocated,
			mem_for(p, initial_chunks_for(p), initial_blocks_for(p)));
	KUNIT_EXPECT_EQ(test, stats.chunks, initial_chunks_for(p));
	KUNIT_EXPECT_EQ(test, (size_t)stats.chunk_size, chunk_size_for(p));
	KUNIT_EXPECT_EQ(test, stats.arena_used, 0ULL);
	KUNIT_EXPECT_EQ(test, stats.mem_used, 0ULL);
	KUNIT_EXPECT_EQ(test, stats.max_records, p->max_records);
	KUNIT_EXPECT_EQ(test, stats.max_depth, p->max_depth);
	KUNIT_EXPECT_EQ(test, stats.table_slots,
			(u32)roundup_pow_of_two(2 * p->max_records));
}

/* A depot of @p, checked and kept by keep_depot(); asserts success. */
static struct stackdepot_lf *create_depot(struct kunit *test,
					  const struct stackdepot_lf_params *p)
{
	struct stackdepot_lf *depot = stackdepot_lf_create(p);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, depot);
	keep_depot(test, depot, p);
	return depot;
}

static struct stackdepot_lf *create_default(struct kunit *test)
{
	struct stackdepot_lf_params p = {
		.max_records = 1024,
		.max_depth = TEST_DEPTH,
		.flags = STACKDEPOT_LF_COUNT_REFS,
	};

	return create_depot(test, &p);
}

/* Get the id of synthetic stack @nr of @depth frames; asserts success. */
static stackdepot_lf_id_t get_id(struct kunit *test, struct stackdepot_lf *depot,
				 unsigned int depth, u32 nr)
{
	stackdepot_lf_id_t id = 0;

	make_stack(want_buf, depth, nr);
	KUNIT_ASSERT_EQ(test, 0, stackdepot_lf_get_id(depot, want_buf, depth, &id));
	KUNIT_EXPECT_NE(test, 0U, stackdepot_lf_id_to_u32(id));
	return id;
}

/* get_id() and then let growth run, as a depot whose work keeps up. */
static stackdepot_lf_id_t get_id_grown(struct kunit *test,
				       struct stackdepot_lf *depot,
				       unsigned int depth, u32 nr)
{
	stackdepot_lf_id_t id = get_id(test, depot, depth, nr);

	sdlf_grow_flush(depot);
	return id;
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

/* The ref count of @id, which resolves to a record of @depth frames */
static unsigned int refs_of(struct kunit *test, struct stackdepot_lf *depot,
			    stackdepot_lf_id_t id, unsigned int depth)
{
	struct stackdepot_lf_info info = { };

	KUNIT_EXPECT_EQ(test, (int)depth,
			stackdepot_lf_lookup(depot, id, got_buf,
					     ARRAY_SIZE(got_buf), &info));
	return info.refs;
}

/* Assert that @id resolves to synthetic stack @nr of @depth frames. */
static void expect_resolves(struct kunit *test, struct stackdepot_lf *depot,
			    stackdepot_lf_id_t id, unsigned int depth, u32 nr)
{
	struct stackdepot_lf_info info;

	make_stack(want_buf, depth, nr);
	KUNIT_ASSERT_EQ(test, (int)depth,
			stackdepot_lf_lookup(depot, id, got_buf,
					     ARRAY_SIZE(got_buf), &info));
	KUNIT_EXPECT_MEMEQ(test, got_buf, want_buf, depth * sizeof(*want_buf));
	KUNIT_EXPECT_EQ(test, info.depth, depth);
	KUNIT_EXPECT_EQ(test, stackdepot_lf_id_to_u32(info.id),
			stackdepot_lf_id_to_u32(id));
}

static void test_round_trip(struct kunit *test)
{
	struct stackdepot_lf *depot = create_default(test);
	struct stackdepot_lf_stats stats;
	stackdepot_lf_id_t id;

	id = get_id(test, depot, 12, 1);
	expect_resolves(test, depot, id, 12, 1);

	stackdepot_lf_stats(depot, &stats);
	KUNIT_EXPECT_EQ(test, stats.records, 1U);
	KUNIT_EXPECT_EQ(test, stats.inserts, 1ULL);
	KUNIT_EXPECT_EQ(test, stats.hits, 0ULL);
	KUNIT_EXPECT_NE(test, stats.generation, 0U);
	KUNIT_EXPECT_EQ(test, stats.index_bits, 11U);
	KUNIT_EXPECT_EQ(test, stats.arena_used,
			(u64)STACKDEPOT_LF_RECORD_SIZE(12));
	KUNIT_EXPECT_EQ(test, stats.chunk_ends, 0ULL);
	KUNIT_EXPECT_EQ(test, stats.chunks, 2U);
	KUNIT_EXPECT_EQ(test, stackdepot_lf_id_gen(depot, id), stats.generation);
	KUNIT_EXPECT_EQ(test, stackdepot_lf_generation(depot), stats.generation);
}

static void test_same_and_different(struct kunit *test)
{
	struct stackdepot_lf *depot = create_default(test);
	unsigned long entries[TEST_DEPTH];
	stackdepot_lf_id_t a, b, c, d, e;
	struct stackdepot_lf_info info;

	a = get_id(test, depot, 16, 7);
	b = get_id(test, depot, 16, 7);
	c = get_id(test, depot, 16, 8);
	/* A prefix of stack 7 is a different stack. */
	make_stack(entries, 16, 7);
	KUNIT_ASSERT_EQ(test, 0, stackdepot_lf_get_id(depot, entries, 15, &d));
	/* So is stack 7 with one frame changed. */
	entries[9] ^= 0x40;
	KUNIT_ASSERT_EQ(test, 0, stackdepot_lf_get_id(depot, entries, 16, &e));

	KUNIT_EXPECT_EQ(test, stackdepot_lf_id_to_u32(a),
			stackdepot_lf_id_to_u32(b));
	KUNIT_EXPECT_NE(test, stackdepot_lf_id_to_u32(a),
			stackdepot_lf_id_to_u32(c));
	KUNIT_EXPECT_NE(test, stackdepot_lf_id_to_u32(a),
			stackdepot_lf_id_to_u32(d));
	KUNIT_EXPECT_NE(test, stackdepot_lf_id_to_u32(a),
			stackdepot_lf_id_to_u32(e));
	expect_resolves(test, depot, a, 16, 7);
	expect_resolves(test, depot, c, 16, 8);
	KUNIT_EXPECT_EQ(test, 15, stackdepot_lf_lookup(depot, d, entries,
						       TEST_DEPTH, &info));

	/* Two get_id calls returned a: ref 2. */
	KUNIT_EXPECT_EQ(test, 16, stackdepot_lf_lookup(depot, a, entries,
						       TEST_DEPTH, &info));
	KUNIT_EXPECT_EQ(test, info.refs, 2U);
}

static void test_depth_limits(struct kunit *test)
{
	struct stackdepot_lf *depot = create_default(test);
	unsigned long entries[TEST_DEPTH + 1];
	stackdepot_lf_id_t id, untouched = stackdepot_lf_u32_to_id(0x1234);
	struct stackdepot_lf_stats stats;

	id = get_id(test, depot, 1, 3);
	expect_resolves(test, depot, id, 1, 3);
	id = get_id(test, depot, TEST_DEPTH, 3);
	expect_resolves(test, depot, id, TEST_DEPTH, 3);

	/* Too deep: refused, never truncated, *id untouched. */
	make_stack(entries, TEST_DEPTH + 1, 3);
	id = untouched;
	KUNIT_EXPECT_EQ(test, -E2BIG, stackdepot_lf_get_id(depot, entries,
							   TEST_DEPTH + 1, &id));
	KUNIT_EXPECT_EQ(test, stackdepot_lf_id_to_u32(id), 0x1234U);
	stackdepot_lf_stats(depot, &stats);
	KUNIT_EXPECT_EQ(test, stats.drops_too_deep, 1ULL);
	KUNIT_EXPECT_EQ(test, stats.records, 2U);
}

static void test_invalid(struct kunit *test)
{
	struct stackdepot_lf *depot = create_default(test);
	unsigned long entries[TEST_DEPTH];
	struct stackdepot_lf_stats stats;
	stackdepot_lf_id_t id, good;
	u32 raw;

	make_stack(entries, 4, 1);
	KUNIT_EXPECT_EQ(test, -EINVAL, stackdepot_lf_get_id(NULL, entries, 4, &id));
	KUNIT_EXPECT_EQ(test, -EINVAL, stackdepot_lf_get_id(depot, entries, 0, &id));
	KUNIT_EXPECT_EQ(test, -EINVAL, stackdepot_lf_lookup(NULL, id, entries,
							    TEST_DEPTH, NULL));
	/* 0 is never an id; nor is anything in range 0, tag 0. */
	KUNIT_EXPECT_EQ(test, -EINVAL,
			stackdepot_lf_lookup(depot, stackdepot_lf_u32_to_id(0),
					     entries, TEST_DEPTH, NULL));
	KUNIT_EXPECT_EQ(test, -EINVAL,
			stackdepot_lf_lookup(depot, stackdepot_lf_u32_to_id(2047),
					     entries, TEST_DEPTH, NULL));
	KUNIT_EXPECT_EQ(test, 0U,
			stackdepot_lf_id_gen(depot, stackdepot_lf_u32_to_id(2047)));

	good = get_id(test, depot, 8, 1);
	/* A free slot of the current generation: no such record. */
	raw = stackdepot_lf_id_to_u32(good) ^ 1;
	KUNIT_EXPECT_EQ(test, -ENOENT,
			stackdepot_lf_lookup(depot, stackdepot_lf_u32_to_id(raw),
					     entries, TEST_DEPTH, NULL));
	/* The right slot with the next or the previous generation's tag. */
	raw = stackdepot_lf_id_to_u32(good) + 2048;
	KUNIT_EXPECT_EQ(test, -ESTALE,
			stackdepot_lf_lookup(depot, stackdepot_lf_u32_to_id(raw),
					     entries, TEST_DEPTH, NULL));
	raw = stackdepot_lf_id_to_u32(good) - 2048;
	KUNIT_EXPECT_EQ(test, raw > 2047 ? -ESTALE : -EINVAL,
			stackdepot_lf_lookup(depot, stackdepot_lf_u32_to_id(raw),
					     entries, TEST_DEPTH, NULL));
	/* Buffer too small: nothing copied. */
	memset(entries, 0, sizeof(entries));
	KUNIT_EXPECT_EQ(test, -ENOSPC,
			stackdepot_lf_lookup(depot, good, entries, 7, NULL));
	KUNIT_EXPECT_EQ(test, entries[0], 0UL);

	/* Invalid calls on a depot are not counted as get_id calls. */
	stackdepot_lf_stats(depot, &stats);
	KUNIT_EXPECT_EQ(test, stats.hits + stats.inserts, 1ULL);
}

struct param_case {
	const char *desc;
	struct stackdepot_lf_params p;
	int err;
};

static const struct param_case param_cases[] = {
	{ "minimum", { .max_records = 16, .max_depth = 1 }, 0 },
	{ "odd sizes",
	  { .max_records = 17, .max_depth = 5, .expected_depth = 3 }, 0 },
	{ "max depth",
	  { .max_records = 64, .max_depth = 256,
	    .flags = STACKDEPOT_LF_COUNT_REFS }, 0 },
	{ "expected depth is max",
	  { .max_records = 64, .max_depth = 256, .expected_depth = 256 }, 0 },
	{ "largest",
	  { .max_records = STACKDEPOT_LF_MAX_RECORDS, .max_depth = 256,
	    .expected_depth = 256, .flags = STACKDEPOT_LF_COUNT_REFS }, 0 },
	{ "initial room for every record",
	  { .max_records = 300, .max_depth = 40, .expected_depth = 12,
	    .flags = STACKDEPOT_LF_COUNT_REFS, .initial_records = 300 }, 0 },
	{ "too few records", { .max_records = 15, .max_depth = 8 }, -EINVAL },
	{ "too many records",
	  { .max_records = STACKDEPOT_LF_MAX_RECORDS + 1, .max_depth = 8 },
	  -EINVAL },
	{ "zero depth", { .max_records = 64 }, -EINVAL },
	{ "depth too big", { .max_records = 64, .max_depth = 257 }, -EINVAL },
	{ "expected depth above max",
	  { .max_records = 64, .max_depth = 8, .expected_depth = 9 }, -EINVAL },
	{ "unknown flag",
	  { .max_records = 64, .max_depth = 8, .flags = 0x80 }, -EINVAL },
	{ "initial room above capacity",
	  { .max_records = 64, .max_depth = 8, .initial_records = 65 },
	  -EINVAL },
};

KUNIT_ARRAY_PARAM_DESC(param_cases, param_cases, desc);

static void test_create_params(struct kunit *test)
{
	const struct param_case *c = test->param_value;
	struct stackdepot_lf *depot;
	struct stackdepot_lf_stats stats;

	if (c->err) {
		depot = stackdepot_lf_create(&c->p);
		KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(depot), (long)c->err);
		KUNIT_EXPECT_EQ(test, stackdepot_lf_mem_size(&c->p), (size_t)0);
		return;
	}
	/* create_depot() checks the size and geometry it promises. */
	depot = create_depot(test, &c->p);
	stackdepot_lf_stats(depot, &stats);
	/* Chunks hold at least four of the deepest records. */
	KUNIT_EXPECT_GE(test, (u64)stats.chunk_size,
			4 * (u64)RS(c->p.max_depth));
	/* A depot of any valid size stores its deepest stack. */
	expect_resolves(test, depot, get_id(test, depot, c->p.max_depth, 2),
			c->p.max_depth, 2);
}

static u32 constant_hash(const unsigned long *entries, unsigned int nr_entries)
{
	return 42;
}

/* The probe limit of the library, SDLF_MAX_PROBE */
#define TEST_PROBE	32

static void test_collisions(struct kunit *test)
{
	struct stackdepot_lf_params p = {
		.max_records = 256,
		.max_depth = TEST_DEPTH,
	};
	struct stackdepot_lf *depot = create_depot(test, &p);
	unsigned long entries[TEST_DEPTH];
	struct stackdepot_lf_stats stats;
	stackdepot_lf_id_t *ids, id;
	unsigned int i, j;

	ids = kunit_kcalloc(test, TEST_PROBE, sizeof(*ids), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ids);
	kunit_activate_static_stub(test, sdlf_hash, constant_hash);
	/* Every stack hashes alike: each still gets its own id and record. */
	for (i = 0; i < TEST_PROBE; i++)
		ids[i] = get_id(test, depot, 10, 100 + i);
	for (i = 0; i < TEST_PROBE; i++) {
		for (j = 0; j < i; j++)
			KUNIT_EXPECT_NE(test, stackdepot_lf_id_to_u32(ids[i]),
					stackdepot_lf_id_to_u32(ids[j]));
		expect_resolves(test, depot, ids[i], 10, 100 + i);
		/* And the same stack still finds its own record. */
		KUNIT_EXPECT_EQ(test, stackdepot_lf_id_to_u32(ids[i]),
				stackdepot_lf_id_to_u32(get_id(test, depot, 10,
							       100 + i)));
	}

	/* The probe limit is reached: refused in bounded time, counted. */
	make_stack(entries, 10, 200);
	KUNIT_EXPECT_EQ(test, -ENOSPC,
			stackdepot_lf_get_id(depot, entries, 10, &id));
	stackdepot_lf_stats(depot, &stats);
	KUNIT_EXPECT_EQ(test, stats.drops_probe, 1ULL);
	KUNIT_EXPECT_EQ(test, stats.records, TEST_PROBE);
	/* Nothing was left behind by the refused insert. */
	KUNIT_EXPECT_EQ(test, stats.arena_used, (u64)TEST_PROBE * RS(10));
	for (i = 0; i < TEST_PROBE; i++)
		expect_resolves(test, depot, ids[i], 10, 100 + i);
}

/*
 * Stacks that hash alike and differ in one frame only, whichever frame
 * and whatever the depth, are different stacks: every frame is compared.
 */
static void test_frame_compare(struct kunit *test)
{
	struct stackdepot_lf *depot = create_default(test);
	stackdepot_lf_id_t base, id;
	unsigned int depth, k;

	kunit_activate_static_stub(test, sdlf_hash, constant_hash);
	for (depth = 1; depth <= 5; depth++) {
		base = get_id(test, depot, depth, depth);
		for (k = 0; k < depth; k++) {
			make_stack(want_buf, depth, depth);
			want_buf[k] ^= 0x10;
			KUNIT_ASSERT_EQ(test, 0,
					stackdepot_lf_get_id(depot, want_buf,
							     depth, &id));
			KUNIT_EXPECT_NE(test, stackdepot_lf_id_to_u32(id),
					stackdepot_lf_id_to_u32(base));
		}
		expect_resolves(test, depot, base, depth, depth);
	}
	kunit_deactivate_static_stub(test, sdlf_hash);
}

static u32 last_slot_hash(const unsigned long *entries,
			  unsigned int nr_entries)
{
	return ~0U;
}

/*
 * A probe that starts in the last slot of the table goes on
 * from slot 0, and the limit counts the slots on both sides of the wrap.
 */
static void test_collisions_wrap(struct kunit *test)
{
	struct stackdepot_lf_params p = {
		.max_records = 64,
		.max_depth = TEST_DEPTH,
	};
	struct stackdepot_lf *depot = create_depot(test, &p);
	struct stackdepot_lf_stats stats;
	stackdepot_lf_id_t ids[TEST_PROBE], id;
	unsigned int i, mask;

	stackdepot_lf_stats(depot, &stats);
	KUNIT_ASSERT_EQ(test, stats.table_slots, 128);
	mask = stats.table_slots - 1;
	kunit_activate_static_stub(test, sdlf_hash, last_slot_hash);
	for (i = 0; i < TEST_PROBE; i++) {
		ids[i] = get_id_grown(test, depot, 3, i);
		KUNIT_EXPECT_EQ(test, stackdepot_lf_id_to_u32(ids[i]) & mask,
				(mask + i) & mask);
	}
	for (i = 0; i < TEST_PROBE; i++)
		KUNIT_EXPECT_EQ(test, stackdepot_lf_id_to_u32(ids[i]),
				stackdepot_lf_id_to_u32(get_id(test, depot, 3,
							       i)));
	/* 32 slots probed, none free: refused with room for 32 records. */
	KUNIT_EXPECT_EQ(test, try_get_id(depot, 3, 99, &id), -ENOSPC);
	kunit_deactivate_static_stub(test, sdlf_hash);
	stackdepot_lf_stats(depot, &stats);
	KUNIT_EXPECT_EQ(test, stats.drops_probe, 1);
	KUNIT_EXPECT_EQ(test, stats.drops_full, 0);
	KUNIT_EXPECT_EQ(test, stats.hits, TEST_PROBE);
	KUNIT_EXPECT_EQ(test, stats.records, TEST_PROBE);
	/* Hashed elsewhere, the same stack finds a free slot. */
	id = get_id_grown(test, depot, 3, 99);
	expect_resolves(test, depot, id, 3, 99);
	for (i = 0; i < TEST_PROBE; i++)
		expect_resolves(test, depot, ids[i], 3, i);
}

static void test_fill_records(struct kunit *test)
{
	struct stackdepot_lf_params p = {
		.max_records = 16,
		.max_depth = TEST_DEPTH,
	};
	struct stackdepot_lf *depot = create_depot(test, &p);
	unsigned long entries[TEST_DEPTH];
	struct stackdepot_lf_stats stats;
	stackdepot_lf_id_t ids[16], id;
	unsigned int i;

	for (i = 0; i < 16; i++)
		ids[i] = get_id(test, depot, 6, i);
	make_stack(entries, 6, 99);
	KUNIT_EXPECT_EQ(test, -ENOSPC,
			stackdepot_lf_get_id(depot, entries, 6, &id));
	/* Known stacks still hit when full. */
	KUNIT_EXPECT_EQ(test, stackdepot_lf_id_to_u32(ids[3]),
			stackdepot_lf_id_to_u32(get_id(test, depot, 6, 3)));
	for (i = 0; i < 16; i++)
		expect_resolves(test, depot, ids[i], 6, i);
	stackdepot_lf_stats(depot, &stats);
	KUNIT_EXPECT_EQ(test, stats.records, 16U);
	KUNIT_EXPECT_EQ(test, stats.drops_full, 1ULL);
	KUNIT_EXPECT_EQ(test, stats.drops_probe, 0ULL);
	KUNIT_EXPECT_EQ(test, stats.drops_grow, 0ULL);
	KUNIT_EXPECT_EQ(test, stats.hits, 1ULL);
	/* A full depot takes no chunk space for the stacks it refuses. */
	KUNIT_EXPECT_EQ(test, stats.arena_used, 16ULL * RS(6));
}

/*
 * Capacity is in records, not bytes: chunks are added until max_records
 * stacks of max_depth frames fit, so a depot that holds max_records
 * stacks refuses every new one as full, however small, while its known
 * stacks still hit; and it never refuses one for want of a chunk.
 */
static void test_fill_arena(struct kunit *test)
{
	struct stackdepot_lf_params p = {
		.max_records = 64,
		.max_depth = TEST_DEPTH,
		.expected_depth = 20,
	};
	struct stackdepot_lf *depot = create_depot(test, &p);
	unsigned long entries[TEST_DEPTH];
	struct stackdepot_lf_stats stats;
	stackdepot_lf_id_t ids[64], id;
	unsigned int i, per_chunk;

	stackdepot_lf_stats(depot, &stats);
	per_chunk = stats.chunk_size / RS(20);
	KUNIT_ASSERT_TRUE(test, per_chunk < 64 && 2 * per_chunk >= 64);
	for (i = 0; i < 64; i++)
		ids[i] = get_id_grown(test, depot, 20, i);
	make_stack(entries, 20, 50 + 64);
	KUNIT_EXPECT_EQ(test, stackdepot_lf_get_id(depot, entries, 20, &id), -ENOSPC);
	make_stack(entries, 4, 51 + 64);
	KUNIT_EXPECT_EQ(test, stackdepot_lf_get_id(depot, entries, 4, &id), -ENOSPC);
	KUNIT_EXPECT_EQ(test, stackdepot_lf_id_to_u32(ids[5]),
			stackdepot_lf_id_to_u32(get_id(test, depot, 20, 5)));
	for (i = 0; i < 64; i++)
		expect_resolves(test, depot, ids[i], 20, i);
	sdlf_grow_flush(depot);
	stackdepot_lf_stats(depot, &stats);
	KUNIT_EXPECT_EQ(test, stats.records, 64);
	KUNIT_EXPECT_EQ(test, stats.drops_full, 2);
	KUNIT_EXPECT_EQ(test, stats.drops_grow, 0);
	KUNIT_EXPECT_EQ(test, stats.hits, 1);
	/* Two chunks in use, the end of the first unused; and a spare. */
	KUNIT_EXPECT_EQ(test, stats.chunk_ends, stats.chunk_size - per_chunk * RS(20));
	KUNIT_EXPECT_EQ(test, stats.arena_used, stats.chunk_size +
		  (64 - per_chunk) * RS(20));
	KUNIT_EXPECT_EQ(test, stats.chunks, 3);
	KUNIT_EXPECT_LE(test, stats.chunks, max_chunks_for(&p));
	KUNIT_EXPECT_EQ(test, stats.mem_allocated, mem_for(&p, 3, 0));
}

/*
 * Sum of the chunk bytes of the records of the current generation, which
 * must equal arena_used - arena_lost - chunk_ends whenever no get_id is
 * running. *@records, if not NULL, gets the number of records walked.
 */
static u64 record_bytes(struct kunit *test, struct stackdepot_lf *depot,
			unsigned int *records)
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
	KUNIT_EXPECT_EQ(test, ret, 0);
	if (records)
		*records = n;
	return sum;
}

/*
 * The accounting identity of a quiescent depot: every chunk byte taken is
 * a record's, lost to a race, or a chunk end; the walk finds as many
 * records as the statistics count; and the usage is within what was
 * allocated. Every test checks it when its depot goes (put_depot()).
 */
static void expect_arena_adds_up(struct kunit *test,
				 struct stackdepot_lf *depot)
{
	struct stackdepot_lf_stats stats;
	unsigned int records;
	u64 bytes;

	sdlf_grow_flush(depot);
	stackdepot_lf_stats(depot, &stats);
	bytes = record_bytes(test, depot, &records);
	KUNIT_EXPECT_EQ(test, stats.arena_used - stats.arena_lost -
			stats.chunk_ends, bytes);
	KUNIT_EXPECT_EQ(test, records, stats.records);
	KUNIT_EXPECT_LE(test, stats.arena_used,
			(u64)stats.chunks * stats.chunk_size);
	KUNIT_EXPECT_GE(test, stats.mem_used, stats.arena_used);
	KUNIT_EXPECT_GE(test, stats.mem_allocated,
			(u64)stats.chunks * stats.chunk_size);
	KUNIT_EXPECT_EQ(test, stats.resetting, 0U);
}

/*
 * Insert stacks @first to @first + @n - 1 of @depth frames, letting growth
 * run after each one, as its work item does between bursts of new stacks.
 */
static void insert_grown(struct kunit *test, struct stackdepot_lf *depot,
			 stackdepot_lf_id_t *ids, unsigned int n,
			 unsigned int depth, u32 first)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		ids[i] = get_id(test, depot, depth, first + i);
		sdlf_grow_flush(depot);
	}
}

/* Depth of a record of 256 bytes: 31 frames on 64-bit, 62 on 32-bit. */
#define DEPTH_256	((256 - 8) / sizeof(unsigned long))

/*
 * Records never straddle chunks: one that ends a chunk exactly leaves
 * nothing unused, one that does not fit in what is left of a chunk goes
 * to the next, and the rest is counted in chunk_ends.
 */
static void test_chunk_ends(struct kunit *test)
{
	struct stackdepot_lf_params p = {
		.max_records = 128,
		.max_depth = 64,
	};
	struct stackdepot_lf *depot = create_depot(test, &p);
	struct stackdepot_lf_stats stats;
	stackdepot_lf_id_t *ids, deep;
	unsigned int i, per_chunk;

	KUNIT_ASSERT_EQ(test, RS(DEPTH_256), (size_t)256);
	stackdepot_lf_stats(depot, &stats);
	per_chunk = stats.chunk_size / 256;
	KUNIT_ASSERT_GE(test, per_chunk, 4U);
	ids = kunit_kcalloc(test, 2 * per_chunk, sizeof(*ids), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ids);

	/* Chunk 0, exactly. */
	insert_grown(test, depot, ids, per_chunk, DEPTH_256, 0);
	stackdepot_lf_stats(depot, &stats);
	KUNIT_EXPECT_EQ(test, stats.arena_used, (u64)stats.chunk_size);
	KUNIT_EXPECT_EQ(test, stats.chunk_ends, 0ULL);
	/* The spare chunk the next record goes to, and nothing more yet. */
	KUNIT_EXPECT_EQ(test, stats.chunks, 2U);

	/* Chunk 1 but its last 256 bytes; then a record 8 bytes too big. */
	insert_grown(test, depot, ids + per_chunk, per_chunk - 1, DEPTH_256,
		     per_chunk);
	deep = get_id(test, depot, DEPTH_256 + 8 / sizeof(unsigned long), 999);
	sdlf_grow_flush(depot);
	stackdepot_lf_stats(depot, &stats);
	KUNIT_EXPECT_EQ(test, stats.chunk_ends, 256ULL);
	KUNIT_EXPECT_EQ(test, stats.arena_used,
			2ULL * stats.chunk_size + RS(DEPTH_256 + 8 /
						     sizeof(unsigned long)));
	KUNIT_EXPECT_EQ(test, stats.chunks, 4U);
	KUNIT_EXPECT_EQ(test, stats.drops_grow, 0ULL);

	for (i = 0; i < 2 * per_chunk - 1; i++)
		expect_resolves(test, depot, ids[i], DEPTH_256, i);
	expect_resolves(test, depot, deep,
			DEPTH_256 + 8 / sizeof(unsigned long), 999);
	expect_arena_adds_up(test, depot);
}

/*
 * Growth stalled: once the chunks there are run out, new stacks are
 * refused and counted in drops_grow, stacks already stored still hit, and
 * inserts work again as soon as growth catches up.
 */
static void test_growth_stalled(struct kunit *test)
{
	struct stackdepot_lf_params p = {
		.max_records = 256,
		.max_depth = 64,
		.flags = STACKDEPOT_LF_COUNT_REFS,
	};
	struct stackdepot_lf *depot = create_depot(test, &p);
	unsigned long *entries;
	struct stackdepot_lf_stats stats;
	stackdepot_lf_id_t *ids, id;
	unsigned int i, per_chunk, calls = 0;
	u64 mem;

	/* Off the stack: 32-bit kernels allow frames of 1 KiB only. */
	entries = kunit_kcalloc(test, DEPTH_256, sizeof(*entries), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, entries);
	sdlf_grow_pause(depot, true);
	stackdepot_lf_stats(depot, &stats);
	per_chunk = stats.chunk_size / 256;
	mem = stats.mem_allocated;
	/* Both chunks a depot starts with. */
	per_chunk *= 2;
	ids = kunit_kcalloc(test, per_chunk, sizeof(*ids), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ids);
	for (i = 0; i < per_chunk; i++, calls++)
		ids[i] = get_id(test, depot, DEPTH_256, i);
	sdlf_grow_flush(depot);

	/* No chunk ready: refused, nothing stored, the caller keeps it. */
	make_stack(entries, DEPTH_256, 500);
	id = stackdepot_lf_u32_to_id(0x1234);
	KUNIT_EXPECT_EQ(test, -ENOSPC,
			stackdepot_lf_get_id(depot, entries, DEPTH_256, &id));
	calls++;
	KUNIT_EXPECT_EQ(test, stackdepot_lf_id_to_u32(id), 0x1234U);
	make_stack(entries, 3, 501);
	KUNIT_EXPECT_EQ(test, -ENOSPC,
			stackdepot_lf_get_id(depot, entries, 3, &id));
	calls++;
	/* Stored stacks still hit, and resolve. */
	for (i = 0; i < per_chunk; i++, calls++)
		KUNIT_EXPECT_EQ(test, stackdepot_lf_id_to_u32(ids[i]),
				stackdepot_lf_id_to_u32(get_id(test, depot,
							       DEPTH_256, i)));
	for (i = 0; i < per_chunk; i++)
		expect_resolves(test, depot, ids[i], DEPTH_256, i);

	sdlf_grow_flush(depot);
	stackdepot_lf_stats(depot, &stats);
	KUNIT_EXPECT_EQ(test, stats.drops_grow, 2ULL);
	KUNIT_EXPECT_EQ(test, stats.drops_full, 0ULL);
	KUNIT_EXPECT_EQ(test, stats.chunks, 2U);
	KUNIT_EXPECT_EQ(test, stats.mem_allocated, mem);
	KUNIT_EXPECT_EQ(test, stats.records, per_chunk);
	KUNIT_EXPECT_EQ(test, stats.inserts, (u64)per_chunk);
	KUNIT_EXPECT_EQ(test, stats.hits, (u64)per_chunk);
	KUNIT_EXPECT_EQ(test, calls_counted(&stats), (u64)calls);

	/* Growth catches up: the refused stack is stored now. */
	sdlf_grow_pause(depot, false);
	sdlf_grow_flush(depot);
	stackdepot_lf_stats(depot, &stats);
	KUNIT_EXPECT_EQ(test, stats.chunks, 3U);
	id = get_id(test, depot, DEPTH_256, 500);
	expect_resolves(test, depot, id, DEPTH_256, 500);
	/* It went to the last chunk: one more is added. */
	sdlf_grow_flush(depot);
	stackdepot_lf_stats(depot, &stats);
	KUNIT_EXPECT_EQ(test, stats.chunks, 4U);
	KUNIT_EXPECT_EQ(test, stats.mem_allocated,
			mem + 2ULL * stats.chunk_size);
	expect_arena_adds_up(test, depot);
}

/*
 * Growth keeps ahead in proportion: with 8 chunks in use it has 4 spare
 * ones ready, so a burst of new stacks filling 3 more chunks while growth
 * cannot run stores every one of them; then growth catches up to half
 * again as many chunks as the burst left in use.
 */
static void test_growth_keeps_ahead(struct kunit *test)
{
	struct stackdepot_lf_params p = {
		.max_records = 4096,
		.max_depth = 64,
		.expected_depth = 8,
		.flags = STACKDEPOT_LF_COUNT_REFS,
	};
	struct stackdepot_lf *depot = create_depot(test, &p);
	struct stackdepot_lf_stats stats;
	stackdepot_lf_id_t *ids;
	unsigned int i, per_chunk;

	stackdepot_lf_stats(depot, &stats);
	/* Records of 256 bytes: a whole number per chunk. */
	per_chunk = stats.chunk_size / RS(DEPTH_256);
	KUNIT_ASSERT_EQ(test, per_chunk * RS(DEPTH_256),
			(size_t)stats.chunk_size);
	ids = kunit_kcalloc(test, 11 * per_chunk, sizeof(*ids), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ids);

	insert_grown(test, depot, ids, 8 * per_chunk, DEPTH_256, 0);
	stackdepot_lf_stats(depot, &stats);
	KUNIT_EXPECT_EQ(test, stats.arena_used, 8ULL * stats.chunk_size);
	KUNIT_EXPECT_EQ(test, stats.chunks, 8U + 4U);

	sdlf_grow_pause(depot, true);
	for (i = 8 * per_chunk; i < 11 * per_chunk; i++)
		ids[i] = get_id(test, depot, DEPTH_256, i);
	stackdepot_lf_stats(depot, &stats);
	KUNIT_EXPECT_EQ(test, stats.drops_grow, 0ULL);
	KUNIT_EXPECT_EQ(test, stats.chunks, 12U);

	sdlf_grow_pause(depot, false);
	sdlf_grow_flush(depot);
	stackdepot_lf_stats(depot, &stats);
	KUNIT_EXPECT_EQ(test, stats.chunks, 11U + 5U);
	/* Fewer records than a counter block holds: it, and a spare. */
	KUNIT_ASSERT_LT(test, 11 * per_chunk, (unsigned int)TEST_REF_BLOCK);
	KUNIT_EXPECT_EQ(test, stats.mem_allocated, mem_for(&p, 16, 2));
	for (i = 0; i < 11 * per_chunk; i++)
		expect_resolves(test, depot, ids[i], DEPTH_256, i);
}

/*
 * The initial room: a depot created with room for 600 records of its
 * expected depth stores 600 such stacks, and counts a hit for each,
 * without growth ever running (as at boot, before work items run).
 */
static void test_initial_records(struct kunit *test)
{
	struct stackdepot_lf_params p = {
		.max_records = 2048,
		.max_depth = 64,
		.expected_depth = 12,
		.flags = STACKDEPOT_LF_COUNT_REFS,
		.initial_records = 600,
	};
	struct stackdepot_lf *depot = create_depot(test, &p);
	struct stackdepot_lf_stats stats;
	stackdepot_lf_id_t *ids;
	unsigned int i;

	ids = kunit_kcalloc(test, 600, sizeof(*ids), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ids);
	sdlf_grow_pause(depot, true);
	stackdepot_lf_stats(depot, &stats);
	/* keep_depot() checked the chunks; room for 600 and their spare. */
	KUNIT_EXPECT_GE(test, (u64)(stats.chunks - 1) *
			(stats.chunk_size / RS(12)), 600ULL);
	for (i = 0; i < 600; i++)
		ids[i] = get_id(test, depot, 12, i);
	for (i = 0; i < 600; i++)
		KUNIT_EXPECT_EQ(test, stackdepot_lf_id_to_u32(ids[i]),
				stackdepot_lf_id_to_u32(get_id(test, depot,
							       12, i)));
	stackdepot_lf_stats(depot, &stats);
	KUNIT_EXPECT_EQ(test, stats.drops_grow, 0ULL);
	KUNIT_EXPECT_EQ(test, stats.records, 600U);
	KUNIT_EXPECT_EQ(test, stats.hits, 600ULL);
	KUNIT_EXPECT_EQ(test, stats.chunks, initial_chunks_for(&p));
	for (i = 0; i < 600; i++)
		expect_resolves(test, depot, ids[i], 12, i);
	sdlf_grow_pause(depot, false);
}

/*
 * Growth up to the cap: a depot filled with its capacity of the deepest
 * stacks grows chunk by chunk, never past what they need, and then
 * refuses new stacks as full, not as waiting for growth.
 */
static void test_growth_to_cap(struct kunit *test)
{
	struct stackdepot_lf_params p = {
		.max_records = 16,
		.max_depth = STACKDEPOT_LF_MAX_DEPTH,
	};
	struct stackdepot_lf *depot = create_depot(test, &p);
	unsigned int depth = STACKDEPOT_LF_MAX_DEPTH, per_chunk, max_chunks;
	unsigned long *entries;
	struct stackdepot_lf_stats stats;
	stackdepot_lf_id_t ids[16], id;
	unsigned int i;

	entries = kunit_kcalloc(test, depth, sizeof(*entries), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, entries);
	stackdepot_lf_stats(depot, &stats);
	per_chunk = stats.chunk_size / RS(depth);
	/* The chunks the records need, and the spare growth keeps. */
	max_chunks = DIV_ROUND_UP(16, per_chunk) + 1;

	insert_grown(test, depot, ids, 16, depth, 0);
	make_stack(entries, depth, 99);
	KUNIT_EXPECT_EQ(test, -ENOSPC,
			stackdepot_lf_get_id(depot, entries, depth, &id));
	sdlf_grow_flush(depot);
	stackdepot_lf_stats(depot, &stats);
	KUNIT_EXPECT_EQ(test, stats.records, 16U);
	KUNIT_EXPECT_EQ(test, stats.drops_full, 1ULL);
	KUNIT_EXPECT_EQ(test, stats.drops_grow, 0ULL);
	KUNIT_EXPECT_LE(test, stats.chunks, max_chunks);
	KUNIT_EXPECT_GE(test, stats.chunks, max_chunks - 1);
	KUNIT_EXPECT_EQ(test, stats.mem_allocated,
			(u64)stackdepot_lf_mem_size(&p) +
			(u64)(stats.chunks - 2) * stats.chunk_size);
	for (i = 0; i < 16; i++)
		expect_resolves(test, depot, ids[i], depth, i);
	expect_arena_adds_up(test, depot);
}

/*
 * A reset keeps the chunks: the next generation stores the same stacks
 * again without waiting for growth.
 */
static void test_reset_keeps_chunks(struct kunit *test)
{
	struct stackdepot_lf_params p = {
		.max_records = 256,
		.max_depth = 64,
	};
	struct stackdepot_lf *depot = create_depot(test, &p);
	struct stackdepot_lf_stats before, after;
	stackdepot_lf_id_t *ids;
	unsigned int i, n;

	stackdepot_lf_stats(depot, &before);
	n = 3 * (before.chunk_size / 256);
	ids = kunit_kcalloc(test, n, sizeof(*ids), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ids);
	insert_grown(test, depot, ids, n, DEPTH_256, 0);
	stackdepot_lf_stats(depot, &before);
	KUNIT_EXPECT_EQ(test, before.chunks, 4U);

	stackdepot_lf_reset(depot);
	stackdepot_lf_stats(depot, &after);
	KUNIT_EXPECT_EQ(test, after.chunks, before.chunks);
	KUNIT_EXPECT_EQ(test, after.mem_allocated, before.mem_allocated);
	KUNIT_EXPECT_EQ(test, after.arena_used, 0ULL);
	KUNIT_EXPECT_EQ(test, after.chunk_ends, 0ULL);
	KUNIT_EXPECT_EQ(test, after.records, 0U);

	/* With growth held back, the same stacks all fit again. */
	sdlf_grow_pause(depot, true);
	for (i = 0; i < n; i++)
		ids[i] = get_id(test, depot, DEPTH_256, i);
	for (i = 0; i < n; i++)
		expect_resolves(test, depot, ids[i], DEPTH_256, i);
	stackdepot_lf_stats(depot, &after);
	KUNIT_EXPECT_EQ(test, after.drops_grow, 0ULL);
	KUNIT_EXPECT_EQ(test, after.records, n);
	expect_arena_adds_up(test, depot);
	sdlf_grow_pause(depot, false);
}

/*
 * More chunks than the first chunk directory holds: growth replaces the
 * directory, and records of every chunk still resolve.
 */
static void test_directory_growth(struct kunit *test)
{
	struct stackdepot_lf_params p = {
		.max_records = 1024,
		.max_depth = STACKDEPOT_LF_MAX_DEPTH,
		.expected_depth = STACKDEPOT_LF_MAX_DEPTH,
	};
	struct stackdepot_lf *depot = create_depot(test, &p);
	unsigned int depth = STACKDEPOT_LF_MAX_DEPTH, i, n;
	struct stackdepot_lf_stats stats;
	stackdepot_lf_id_t *ids;

	stackdepot_lf_stats(depot, &stats);
	/* Nine chunks and one record: past a directory of eight. */
	n = 9 * (stats.chunk_size / RS(depth)) + 1;
	ids = kunit_kcalloc(test, n, sizeof(*ids), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ids);
	insert_grown(test, depot, ids, n, depth, 0);
	stackdepot_lf_stats(depot, &stats);
	KUNIT_EXPECT_GE(test, stats.chunks, 10U);
	KUNIT_EXPECT_EQ(test, stats.drops_grow, 0ULL);
	for (i = 0; i < n; i++)
		expect_resolves(test, depot, ids[i], depth, i);
	expect_arena_adds_up(test, depot);
}

/*
 * Hit counters grow with the records, in blocks: counts stay exact across
 * blocks, and a reset keeps the lifetime hits while it clears the records'.
 */
static void test_ref_blocks(struct kunit *test)
{
	struct stackdepot_lf_params p = {
		.max_records = 1024,
		.max_depth = 8,
		.flags = STACKDEPOT_LF_COUNT_REFS,
	};
	struct stackdepot_lf *depot = create_depot(test, &p);
	struct stackdepot_lf_stats stats;
	stackdepot_lf_id_t *ids;
	unsigned int i, n = 600;
	u64 counters;

	ids = kunit_kcalloc(test, n, sizeof(*ids), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ids);
	insert_grown(test, depot, ids, n, 4, 0);
	for (i = 0; i < n; i++) {
		get_id(test, depot, 4, i);
		get_id(test, depot, 4, i);
	}
	for (i = 0; i < n; i++)
		KUNIT_EXPECT_EQ(test, refs_of(test, depot, ids[i], 4), 3U);
	stackdepot_lf_stats(depot, &stats);
	KUNIT_EXPECT_EQ(test, stats.hits, 2ULL * n);
	KUNIT_EXPECT_EQ(test, stats.inserts, (u64)n);
	KUNIT_EXPECT_EQ(test, stats.drops_grow, 0ULL);
	/*
	 * Each record has one long counter per stripe: as many stripes as
	 * possible CPUs, rounded up to a power of two, at most eight.
	 */
	counters = stats.mem_used - stats.arena_used;
	KUNIT_EXPECT_EQ(test, counters,
			(u64)sizeof(long) * n *
			min_t(u32, roundup_pow_of_two(nr_cpu_ids), 8));

	stackdepot_lf_reset(depot);
	get_id(test, depot, 4, 0);
	ids[0] = get_id(test, depot, 4, 0);
	KUNIT_EXPECT_EQ(test, refs_of(test, depot, ids[0], 4), 2U);
	stackdepot_lf_stats(depot, &stats);
	KUNIT_EXPECT_EQ(test, stats.hits, 2ULL * n + 1);
	KUNIT_EXPECT_EQ(test, stats.inserts, (u64)n + 1);
	KUNIT_EXPECT_EQ(test, stats.mem_used - stats.arena_used,
			counters / n);
}

#define RACE_DEPTH	11
#define RACE_NR		7

static struct stackdepot_lf *race_depot;
static int race_ret;

/*
 * Replaces sdlf_slot_publish() once: before the caller publishes, the
 * same stack is inserted by a nested call, which builds its record after
 * the caller's in the arena and publishes it first.
 */
static bool race_publish(struct stackdepot_lf *depot, u32 pos, u32 val)
{
	unsigned long entries[RACE_DEPTH];
	stackdepot_lf_id_t id;

	kunit_deactivate_static_stub(kunit_get_current_test(),
				     sdlf_slot_publish);
	make_stack(entries, RACE_DEPTH, RACE_NR);
	race_ret = stackdepot_lf_get_id(race_depot, entries, RACE_DEPTH, &id);
	return sdlf_slot_publish(depot, pos, val);
}

/*
 * Insert stack RACE_NR into @depot, which has one record, with a race
 * armed that a nested call of race_depot wins: the caller gets the
 * winner's id, and one lost race and one hit are counted. The second
 * call of the stack hits. Returns the id.
 */
static stackdepot_lf_id_t expect_lost_race(struct kunit *test,
					   struct stackdepot_lf *depot)
{
	struct stackdepot_lf_stats stats;
	stackdepot_lf_id_t a, b;

	race_depot = depot;
	race_ret = -1;
	a = get_id(test, depot, RACE_DEPTH, RACE_NR);
	KUNIT_EXPECT_EQ(test, race_ret, 0);
	b = get_id(test, depot, RACE_DEPTH, RACE_NR);
	KUNIT_EXPECT_EQ(test, stackdepot_lf_id_to_u32(a),
			stackdepot_lf_id_to_u32(b));
	expect_resolves(test, depot, a, RACE_DEPTH, RACE_NR);

	stackdepot_lf_stats(depot, &stats);
	KUNIT_EXPECT_EQ(test, stats.records, 2U);
	KUNIT_EXPECT_EQ(test, stats.lost_races, 1ULL);
	KUNIT_EXPECT_EQ(test, stats.inserts, 2ULL);
	KUNIT_EXPECT_EQ(test, stats.hits, 2ULL);
	return a;
}

static void test_lost_race_accounting(struct kunit *test)
{
	struct stackdepot_lf *depot = create_default(test);
	struct stackdepot_lf_stats stats;
	struct stackdepot_lf_info info;
	stackdepot_lf_id_t a;

	get_id(test, depot, 5, 1);
	kunit_activate_static_stub(test, sdlf_slot_publish, race_publish);
	a = expect_lost_race(test, depot);

	stackdepot_lf_stats(depot, &stats);
	/* The loser's record could not be given back: exactly it is lost. */
	KUNIT_EXPECT_EQ(test, stats.arena_lost, (u64)ALIGN(RS(RACE_DEPTH), 8));
	KUNIT_EXPECT_EQ(test, stats.arena_used,
			(u64)(ALIGN(RS(5), 8) + 2 * ALIGN(RS(RACE_DEPTH), 8)));
	KUNIT_EXPECT_EQ(test, stats.arena_used - stats.arena_lost -
			stats.chunk_ends, record_bytes(test, depot, NULL));
	KUNIT_EXPECT_EQ(test, RACE_DEPTH,
			stackdepot_lf_lookup(depot, a, got_buf,
					     ARRAY_SIZE(got_buf), &info));
	KUNIT_EXPECT_EQ(test, info.refs, 3U);

	/* A reset forgets the loss with the records. */
	stackdepot_lf_reset(depot);
	stackdepot_lf_stats(depot, &stats);
	KUNIT_EXPECT_EQ(test, stats.arena_lost, 0ULL);
	KUNIT_EXPECT_EQ(test, stats.arena_used, 0ULL);
}

/*
 * The record a lost race could not give back is kept for the next insert
 * on its CPU: a shallower stack takes its space and number, and only the
 * unused tail stays lost; a deeper one takes new space, leaving it kept.
 * A reset drops it with the records.
 */
static void test_lost_race_reused(struct kunit *test)
{
	struct stackdepot_lf *depot = create_default(test);
	struct stackdepot_lf *other = create_default(test);
	struct stackdepot_lf_stats stats;
	u64 used;

	/* The kept record is its CPU's: stay on one. */
	migrate_disable();
	get_id(test, depot, 5, 1);
	kunit_activate_static_stub(test, sdlf_slot_publish, race_publish);
	expect_lost_race(test, depot);
	stackdepot_lf_stats(depot, &stats);
	used = stats.arena_used;
	KUNIT_EXPECT_EQ(test, stats.arena_lost, (u64)ALIGN(RS(RACE_DEPTH), 8));

	/* Deeper than the kept record: new space, the kept one stays lost. */
	get_id(test, depot, RACE_DEPTH + 2, 2);
	stackdepot_lf_stats(depot, &stats);
	KUNIT_EXPECT_EQ(test, stats.arena_used,
			used + ALIGN(RS(RACE_DEPTH + 2), 8));
	KUNIT_EXPECT_EQ(test, stats.arena_lost, (u64)ALIGN(RS(RACE_DEPTH), 8));
	KUNIT_EXPECT_EQ(test, stats.records, 3U);
	used = stats.arena_used;

	/* Shallower: it takes the kept record's space and number. */
	get_id(test, depot, RACE_DEPTH - 4, 3);
	stackdepot_lf_stats(depot, &stats);
	KUNIT_EXPECT_EQ(test, stats.arena_used, used);
	KUNIT_EXPECT_EQ(test, stats.arena_lost,
			(u64)(ALIGN(RS(RACE_DEPTH), 8) -
			      ALIGN(RS(RACE_DEPTH - 4), 8)));
	KUNIT_EXPECT_EQ(test, stats.records, 4U);
	KUNIT_EXPECT_EQ(test, stats.arena_used - stats.arena_lost -
			stats.chunk_ends, record_bytes(test, depot, NULL));
	expect_resolves(test, depot, get_id(test, depot, RACE_DEPTH - 4, 3),
			RACE_DEPTH - 4, 3);
	expect_resolves(test, depot, get_id(test, depot, RACE_DEPTH + 2, 2),
			RACE_DEPTH + 2, 2);

	/* Kept for one insert only: the next one takes new space. */
	get_id(test, depot, 3, 4);
	stackdepot_lf_stats(depot, &stats);
	KUNIT_EXPECT_EQ(test, stats.arena_used, used + ALIGN(RS(3), 8));
	KUNIT_EXPECT_EQ(test, stats.records, 5U);

	/* A reset drops a kept record with the rest. */
	get_id(test, other, 5, 1);
	kunit_activate_static_stub(test, sdlf_slot_publish, race_publish);
	expect_lost_race(test, other);
	stackdepot_lf_reset(other);
	get_id(test, other, 3, 5);
	stackdepot_lf_stats(other, &stats);
	KUNIT_EXPECT_EQ(test, stats.arena_used, (u64)ALIGN(RS(3), 8));
	KUNIT_EXPECT_EQ(test, stats.arena_lost, 0ULL);
	KUNIT_EXPECT_EQ(test, stats.records, 1U);
	migrate_enable();
}

/* get_id through an RCU-published pointer, as an owner that frees it does. */
static void test_get_id_rcu(struct kunit *test)
{
	struct stackdepot_lf *depot = create_default(test), __rcu *ptr = NULL;
	unsigned long entries[TEST_DEPTH + 1];
	struct stackdepot_lf_stats stats;
	stackdepot_lf_id_t id = 0;
	bool first = false;

	make_stack(entries, 7, 3);
	KUNIT_EXPECT_EQ(test, -ENODEV,
			stackdepot_lf_get_id_rcu(&ptr, entries, 7, &id, NULL));
	KUNIT_EXPECT_EQ(test, 0U, stackdepot_lf_id_to_u32(id));
	rcu_assign_pointer(ptr, depot);
	KUNIT_EXPECT_EQ(test, -EINVAL,
			stackdepot_lf_get_id_rcu(&ptr, entries, 0, &id, &first));
	KUNIT_EXPECT_EQ(test, 0, stackdepot_lf_get_id_rcu(&ptr, entries, 7, &id,
							  &first));
	KUNIT_EXPECT_TRUE(test, first);
	KUNIT_EXPECT_EQ(test, stackdepot_lf_id_to_u32(id),
			stackdepot_lf_id_to_u32(get_id(test, depot, 7, 3)));
	expect_resolves(test, depot, id, 7, 3);
	make_stack(entries, TEST_DEPTH + 1, 4);
	KUNIT_EXPECT_EQ(test, -E2BIG,
			stackdepot_lf_get_id_rcu(&ptr, entries, TEST_DEPTH + 1,
						 &id, &first));
	/* Untouched on error. */
	KUNIT_EXPECT_TRUE(test, first);
	stackdepot_lf_stats(depot, &stats);
	KUNIT_EXPECT_EQ(test, stats.inserts, 1ULL);
	KUNIT_EXPECT_EQ(test, stats.hits, 1ULL);
	KUNIT_EXPECT_EQ(test, stats.drops_too_deep, 1ULL);
}

/*
 * get_id_rcu() of synthetic stack @nr of @depth frames through @ptr, asking
 * for the mark; asserts success and returns whether the call set it. The
 * answer starts true, so that a path that forgets to give one looks like
 * a second "first" (test_get_id_rcu() starts it false).
 */
static bool get_id_marked(struct kunit *test,
			  struct stackdepot_lf __rcu *const *ptr,
			  unsigned int depth, u32 nr, stackdepot_lf_id_t *id)
{
	bool first = true;

	make_stack(want_buf, depth, nr);
	KUNIT_ASSERT_EQ(test, 0, stackdepot_lf_get_id_rcu(ptr, want_buf, depth,
							  id, &first));
	return first;
}

/*
 * Marks: of the callers that ask, one per record is told it set the mark,
 * from the record's store to the next clearing of the marks or reset, on
 * the fast path (home slot) and the slow one (probed slots); callers that
 * do not ask leave the mark alone; a mark given back is set again, and
 * only a current id gives one back.
 */
static void test_marks(struct kunit *test)
{
	struct stackdepot_lf *depot = create_default(test), __rcu *ptr = NULL;
	stackdepot_lf_id_t ids[4], id;
	unsigned int i;

	rcu_assign_pointer(ptr, depot);
	/* Stored without asking: the first caller to ask sets the mark. */
	ids[0] = get_id(test, depot, 5, 1);
	KUNIT_EXPECT_TRUE(test, get_id_marked(test, &ptr, 5, 1, &id));
	KUNIT_EXPECT_EQ(test, stackdepot_lf_id_to_u32(id),
			stackdepot_lf_id_to_u32(ids[0]));
	KUNIT_EXPECT_FALSE(test, get_id_marked(test, &ptr, 5, 1, &id));
	/* Stored by a caller that asks. */
	KUNIT_EXPECT_TRUE(test, get_id_marked(test, &ptr, 6, 2, &ids[1]));
	KUNIT_EXPECT_FALSE(test, get_id_marked(test, &ptr, 6, 2, &id));

	/* Cleared: each is first once more, and only once. */
	stackdepot_lf_clear_marks(depot);
	stackdepot_lf_clear_marks(NULL);
	get_id(test, depot, 6, 2);
	KUNIT_EXPECT_TRUE(test, get_id_marked(test, &ptr, 6, 2, &id));
	KUNIT_EXPECT_TRUE(test, get_id_marked(test, &ptr, 5, 1, &id));
	KUNIT_EXPECT_FALSE(test, get_id_marked(test, &ptr, 5, 1, &id));
	KUNIT_EXPECT_FALSE(test, get_id_marked(test, &ptr, 6, 2, &id));

	/* Without CPU marks, the calling CPU's marks are all of them. */
	stackdepot_lf_clear_cpu_marks(depot);
	stackdepot_lf_clear_cpu_marks(NULL);
	KUNIT_EXPECT_TRUE(test, get_id_marked(test, &ptr, 5, 1, &id));
	KUNIT_EXPECT_TRUE(test, get_id_marked(test, &ptr, 6, 2, &id));

	/* Given back, a mark is set again by the next caller, once. */
	stackdepot_lf_unmark(depot, ids[1]);
	KUNIT_EXPECT_FALSE(test, get_id_marked(test, &ptr, 5, 1, &id));
	KUNIT_EXPECT_TRUE(test, get_id_marked(test, &ptr, 6, 2, &id));
	KUNIT_EXPECT_FALSE(test, get_id_marked(test, &ptr, 6, 2, &id));
	/* Nobody's ids give nothing back. */
	stackdepot_lf_unmark(NULL, ids[1]);
	stackdepot_lf_unmark(depot, stackdepot_lf_u32_to_id(0));
	stackdepot_lf_unmark(depot, stackdepot_lf_u32_to_id(U32_MAX));
	KUNIT_EXPECT_FALSE(test, get_id_marked(test, &ptr, 6, 2, &id));

	/* A reset clears them with the records. */
	stackdepot_lf_reset(depot);
	KUNIT_EXPECT_TRUE(test, get_id_marked(test, &ptr, 5, 1, &id));
	KUNIT_EXPECT_NE(test, stackdepot_lf_id_to_u32(id),
			stackdepot_lf_id_to_u32(ids[0]));
	KUNIT_EXPECT_FALSE(test, get_id_marked(test, &ptr, 5, 1, &id));
	/* An id of the old generation gives back nothing of the new. */
	stackdepot_lf_unmark(depot, ids[0]);
	KUNIT_EXPECT_FALSE(test, get_id_marked(test, &ptr, 5, 1, &id));

	/* Stacks that hash alike: marks follow the probed slots. */
	stackdepot_lf_reset(depot);
	kunit_activate_static_stub(test, sdlf_hash, constant_hash);
	for (i = 0; i < ARRAY_SIZE(ids); i++)
		KUNIT_EXPECT_TRUE(test, get_id_marked(test, &ptr, 10, 100 + i,
						      &ids[i]));
	for (i = 0; i < ARRAY_SIZE(ids); i++) {
		KUNIT_EXPECT_FALSE(test, get_id_marked(test, &ptr, 10, 100 + i,
						       &id));
		KUNIT_EXPECT_EQ(test, stackdepot_lf_id_to_u32(id),
				stackdepot_lf_id_to_u32(ids[i]));
	}
	stackdepot_lf_clear_marks(depot);
	for (i = ARRAY_SIZE(ids); i-- > 0; )
		KUNIT_EXPECT_TRUE(test, get_id_marked(test, &ptr, 10, 100 + i,
						      &id));
}

static bool race_first;

/*
 * race_publish() for a caller that asks for the mark: the nested call
 * that wins the race asks too, and is told it set the mark.
 */
static bool race_publish_marked(struct stackdepot_lf *depot, u32 pos, u32 val)
{
	struct stackdepot_lf __rcu *ptr = NULL;
	stackdepot_lf_id_t id;

	kunit_deactivate_static_stub(kunit_get_current_test(),
				     sdlf_slot_publish);
	rcu_assign_pointer(ptr, race_depot);
	make_stack(got_buf, RACE_DEPTH, RACE_NR);
	race_ret = stackdepot_lf_get_id_rcu(&ptr, got_buf, RACE_DEPTH, &id,
					    &race_first);
	return sdlf_slot_publish(depot, pos, val);
}

/* The loser of a publication race adopts the record, not its mark. */
static void test_marks_lost_race(struct kunit *test)
{
	struct stackdepot_lf *depot = create_default(test), __rcu *ptr = NULL;
	struct stackdepot_lf_stats stats;
	stackdepot_lf_id_t id;

	rcu_assign_pointer(ptr, depot);
	race_depot = depot;
	race_ret = -1;
	race_first = false;
	kunit_activate_static_stub(test, sdlf_slot_publish, race_publish_marked);
	KUNIT_EXPECT_FALSE(test, get_id_marked(test, &ptr, RACE_DEPTH, RACE_NR,
					       &id));
	KUNIT_EXPECT_EQ(test, race_ret, 0);
	KUNIT_EXPECT_TRUE(test, race_first);
	expect_resolves(test, depot, id, RACE_DEPTH, RACE_NR);
	stackdepot_lf_stats(depot, &stats);
	KUNIT_EXPECT_EQ(test, stats.lost_races, 1ULL);
	KUNIT_EXPECT_FALSE(test, get_id_marked(test, &ptr, RACE_DEPTH, RACE_NR,
					       &id));
}

static void test_reset(struct kunit *test)
{
	struct stackdepot_lf *depot = create_default(test);
	unsigned long entries[TEST_DEPTH];
	stackdepot_lf_id_t old[4], id;
	struct stackdepot_lf_stats stats;
	unsigned int i;

	u32 gen;

	for (i = 0; i < 4; i++)
		old[i] = get_id(test, depot, 9, i);
	gen = stackdepot_lf_generation(depot);
	stackdepot_lf_reset(depot);

	stackdepot_lf_stats(depot, &stats);
	KUNIT_EXPECT_GT(test, stats.generation, gen);
	KUNIT_EXPECT_EQ(test, stats.records, 0U);
	KUNIT_EXPECT_EQ(test, stats.arena_used, 0ULL);
	KUNIT_EXPECT_EQ(test, stats.mem_used, 0ULL);
	KUNIT_EXPECT_EQ(test, stats.resets, 1ULL);
	for (i = 0; i < 4; i++)
		KUNIT_EXPECT_EQ(test, -ESTALE,
				stackdepot_lf_lookup(depot, old[i], entries,
						     TEST_DEPTH, NULL));

	/*
	 * Insert other stacks first so that the old slots are reused by
	 * different stacks: the old ids must still not resolve to them.
	 */
	for (i = 0; i < 4; i++) {
		id = get_id(test, depot, 9, 10 + i);
		expect_resolves(test, depot, id, 9, 10 + i);
		KUNIT_EXPECT_EQ(test, stackdepot_lf_id_gen(depot, id),
				stats.generation);
	}
	id = get_id(test, depot, 9, 0);
	KUNIT_EXPECT_NE(test, stackdepot_lf_id_to_u32(id),
			stackdepot_lf_id_to_u32(old[0]));
	for (i = 0; i < 4; i++)
		KUNIT_EXPECT_EQ(test, -ESTALE,
				stackdepot_lf_lookup(depot, old[i], entries,
						     TEST_DEPTH, NULL));
}

/*
 * Generation tags are handed out system-wide: an id of one depot never
 * resolves in another, whatever their sizes and slots.
 */
static void test_ids_system_wide(struct kunit *test)
{
	struct stackdepot_lf_params small = {
		.max_records = 16,
		.max_depth = TEST_DEPTH,
	};
	struct stackdepot_lf *a = create_default(test);
	struct stackdepot_lf *b = create_default(test);
	struct stackdepot_lf *c = create_depot(test, &small);
	stackdepot_lf_id_t ida, idb, idc;

	/* The same stack, so the same slot in the two same-sized tables. */
	ida = get_id(test, a, 6, 3);
	idb = get_id(test, b, 6, 3);
	idc = get_id(test, c, 6, 3);
	KUNIT_EXPECT_NE(test, stackdepot_lf_id_to_u32(ida),
			stackdepot_lf_id_to_u32(idb));
	KUNIT_EXPECT_EQ(test, stackdepot_lf_id_to_u32(ida) & 2047,
			stackdepot_lf_id_to_u32(idb) & 2047);
	KUNIT_EXPECT_EQ(test, -ESTALE, stackdepot_lf_lookup(a, idb, got_buf,
							    TEST_DEPTH, NULL));
	KUNIT_EXPECT_EQ(test, -ESTALE, stackdepot_lf_lookup(b, ida, got_buf,
							    TEST_DEPTH, NULL));
	KUNIT_EXPECT_EQ(test, -ESTALE, stackdepot_lf_lookup(a, idc, got_buf,
							    TEST_DEPTH, NULL));
	KUNIT_EXPECT_EQ(test, -ESTALE, stackdepot_lf_lookup(c, ida, got_buf,
							    TEST_DEPTH, NULL));
	/* ...nor after the other depot was reset into new tags. */
	stackdepot_lf_reset(a);
	stackdepot_lf_reset(b);
	ida = get_id(test, a, 6, 3);
	KUNIT_EXPECT_EQ(test, -ESTALE, stackdepot_lf_lookup(b, ida, got_buf,
							    TEST_DEPTH, NULL));
	KUNIT_EXPECT_EQ(test, -ESTALE, stackdepot_lf_lookup(c, ida, got_buf,
							    TEST_DEPTH, NULL));
	expect_resolves(test, a, ida, 6, 3);
}

static void restore_ids_cursor(void *old)
{
	sdlf_ids_set_next(*(u64 *)old);
}

/*
 * Move the system-wide id cursor for this test only: the old one comes
 * back when the test ends, so that no range is handed out twice.
 */
static void set_ids_cursor(struct kunit *test, u64 next)
{
	u64 *old = kunit_kzalloc(test, sizeof(*old), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, old);
	*old = sdlf_ids_set_next(next);
	KUNIT_ASSERT_EQ(test, 0, kunit_add_action_or_reset(test,
							   restore_ids_cursor,
							   old));
}

/*
 * The id space wraps after its last range: the next generation takes the
 * first range (tag 1), never range 0, and a walk started before the reset
 * stays stale even when the new generation gets the walk's own range.
 */
static void test_generation_wrap(struct kunit *test)
{
	struct stackdepot_lf *depot = create_default(test);
	struct stackdepot_lf_stats stats;
	struct stackdepot_lf_iter iter;
	struct stackdepot_lf_info info;
	stackdepot_lf_id_t last, id;
	u32 max_tag = (1U << (32 - 11)) - 1;

	/* The last range of the 32-bit id space, for tables of 2^11 slots. */
	set_ids_cursor(test, (u64)max_tag << 11);
	stackdepot_lf_reset(depot);
	KUNIT_EXPECT_EQ(test, stackdepot_lf_generation(depot), max_tag);
	last = get_id(test, depot, 5, 1);
	KUNIT_EXPECT_EQ(test, stackdepot_lf_id_gen(depot, last), max_tag);
	KUNIT_EXPECT_EQ(test, stackdepot_lf_id_to_u32(last) >> 11, max_tag);
	expect_resolves(test, depot, last, 5, 1);

	stackdepot_lf_reset(depot);
	stackdepot_lf_stats(depot, &stats);
	KUNIT_EXPECT_EQ(test, stats.generation, 1U);
	KUNIT_EXPECT_EQ(test, -ESTALE, stackdepot_lf_lookup(depot, last, got_buf,
							    TEST_DEPTH, NULL));
	id = get_id(test, depot, 5, 1);
	KUNIT_EXPECT_EQ(test, stackdepot_lf_id_gen(depot, id), 1U);
	KUNIT_EXPECT_GT(test, stackdepot_lf_id_to_u32(id), 2047U);
	expect_resolves(test, depot, id, 5, 1);

	/*
	 * A reset never takes the range its depot holds, even with the
	 * cursor on it; once the depot's user released the ranges of its
	 * past generations, the reset after it hands the walk's own range
	 * out again.
	 */
	stackdepot_lf_iter_start(&iter, depot);
	set_ids_cursor(test, 1ULL << 11);
	stackdepot_lf_reset(depot);
	KUNIT_EXPECT_EQ(test, stackdepot_lf_generation(depot), 2U);
	stackdepot_lf_release_ids(depot);
	set_ids_cursor(test, 1ULL << 11);
	stackdepot_lf_reset(depot);
	KUNIT_EXPECT_EQ(test, stackdepot_lf_generation(depot), 1U);
	get_id(test, depot, 5, 1);
	KUNIT_EXPECT_EQ(test, -ESTALE,
			stackdepot_lf_iter_next(&iter, got_buf, TEST_DEPTH,
						&info));
	/*
	 * That is what releasing means: an id of the range's earlier
	 * generation resolves again, to the stack now stored in its slot.
	 */
	KUNIT_EXPECT_EQ(test, 5, stackdepot_lf_lookup(depot, id, got_buf,
						      TEST_DEPTH, NULL));
}

static unsigned int hashed;

static u32 counted_constant_hash(const unsigned long *entries,
				 unsigned int nr_entries)
{
	hashed++;
	return 42;
}

/*
 * The id of synthetic stack @nr of @depth frames, or 0: unlike get_id(),
 * no assertion ends the case, which may run with migration disabled.
 */
static u32 hint_get_id(struct kunit *test, struct stackdepot_lf *depot,
		       unsigned int depth, u32 nr)
{
	stackdepot_lf_id_t id = 0;

	make_stack(want_buf, depth, nr);
	KUNIT_EXPECT_EQ(test, 0, stackdepot_lf_get_id(depot, want_buf, depth,
						      &id));
	return stackdepot_lf_id_to_u32(id);
}

/*
 * A CPU's last stack is found again without hashing it. The hint is
 * checked, never trusted: a stack that differs in one frame or in depth,
 * or another stack the hint's slot holds, is hashed and gets an id of its
 * own; so does a stack whose hint, after the ids have gone round, names
 * a slot of the new generation.
 */
static void test_last_stack_hint(struct kunit *test)
{
	struct stackdepot_lf *depot = create_default(test);
	struct stackdepot_lf_stats stats;
	stackdepot_lf_id_t sid;
	u32 a, b, range;

	kunit_activate_static_stub(test, sdlf_hash, counted_constant_hash);
	/* The hint is per CPU: stay on one, with no assertion meanwhile. */
	migrate_disable();
	hashed = 0;
	a = hint_get_id(test, depot, 6, 1);
	KUNIT_EXPECT_EQ(test, hashed, 1U);
	KUNIT_EXPECT_EQ(test, hint_get_id(test, depot, 6, 1), a);
	KUNIT_EXPECT_EQ(test, hashed, 1U);

	/* One frame other than the middle one, or one frame fewer. */
	make_stack(want_buf, 6, 1);
	want_buf[0] ^= 0x10;
	KUNIT_EXPECT_EQ(test, 0, stackdepot_lf_get_id(depot, want_buf, 6, &sid));
	KUNIT_EXPECT_NE(test, stackdepot_lf_id_to_u32(sid), a);
	KUNIT_EXPECT_EQ(test, hashed, 2U);
	hint_get_id(test, depot, 6, 1);
	make_stack(want_buf, 6, 1);
	KUNIT_EXPECT_EQ(test, 0, stackdepot_lf_get_id(depot, want_buf, 5, &sid));
	KUNIT_EXPECT_NE(test, stackdepot_lf_id_to_u32(sid), a);
	KUNIT_EXPECT_EQ(test, hashed, 4U);
	/* Another stack leaves its hint; the first is found by its hash. */
	hint_get_id(test, depot, 6, 2);
	KUNIT_EXPECT_EQ(test, hint_get_id(test, depot, 6, 1), a);
	KUNIT_EXPECT_EQ(test, hashed, 6U);
	migrate_enable();
	KUNIT_EXPECT_EQ(test, refs_of(test, depot, stackdepot_lf_u32_to_id(a),
				      6), 4U);

	/*
	 * Two resets, the depot's past ranges released in between, bring the
	 * first generation's range back (the first cannot take the range its
	 * depot holds). On whichever CPU the case
	 * runs now, the hint names slot 42 of the old generation, or nothing: b's call
	 * finds that slot empty and stores b there, which makes b's id the
	 * hint, and a, compared with b, gets a slot of its own.
	 */
	range = a & ~0x7ffU;
	KUNIT_EXPECT_EQ(test, a - range, 42U);
	set_ids_cursor(test, range);
	stackdepot_lf_reset(depot);
	stackdepot_lf_release_ids(depot);
	set_ids_cursor(test, range);
	stackdepot_lf_reset(depot);
	KUNIT_EXPECT_EQ(test, stackdepot_lf_generation(depot), range >> 11);
	b = hint_get_id(test, depot, 6, 2);
	KUNIT_EXPECT_EQ(test, b, range + 42);
	a = hint_get_id(test, depot, 6, 1);
	KUNIT_EXPECT_EQ(test, a, range + 43);
	KUNIT_EXPECT_EQ(test, hashed, 8U);
	kunit_deactivate_static_stub(test, sdlf_hash);
	expect_resolves(test, depot, stackdepot_lf_u32_to_id(a), 6, 1);
	expect_resolves(test, depot, stackdepot_lf_u32_to_id(b), 6, 2);
	stackdepot_lf_stats(depot, &stats);
	KUNIT_EXPECT_EQ(test, stats.records, 2U);
}

/* A hash of every frame but the last: stacks that differ there collide. */
static u32 hash_but_last(const unsigned long *entries,
			 unsigned int nr_entries)
{
	u32 h = nr_entries;
	unsigned int i;

	for (i = 0; i + 1 < nr_entries; i++)
		h = (h ^ (u32)(entries[i] >> 4)) * 0x9e3779b1U;
	return h;
}

/* get_id of @depth frames of @entries; no assertion, as hint_get_id(). */
static u32 hint_get_id_of(struct kunit *test, struct stackdepot_lf *depot,
			  const unsigned long *entries, unsigned int depth)
{
	stackdepot_lf_id_t id = 0;

	KUNIT_EXPECT_EQ(test, 0, stackdepot_lf_get_id(depot, entries, depth,
						      &id));
	return stackdepot_lf_id_to_u32(id);
}

/* Expect @id to resolve to the @depth frames of @entries. */
static void expect_resolves_to(struct kunit *test, struct stackdepot_lf *depot,
			       u32 id, const unsigned long *entries,
			       unsigned int depth)
{
	KUNIT_ASSERT_EQ(test, (int)depth,
			stackdepot_lf_lookup(depot, stackdepot_lf_u32_to_id(id),
					     got_buf, ARRAY_SIZE(got_buf), NULL));
	KUNIT_EXPECT_MEMEQ(test, got_buf, entries, depth * sizeof(*entries));
}

#define HINT_EXTRA	3

/*
 * Stack @nr of @depth frames in @x, and in @y the same but its last frame.
 * Frames are 16 apart: the change stays inside the frame's own bits.
 */
static void make_pair(unsigned long *x, unsigned long *y, unsigned int depth,
		      u32 nr)
{
	make_stack(x, depth, nr);
	memcpy(y, x, depth * sizeof(*x));
	y[depth - 1] ^= 0x100;
}

/*
 * test_hint_last_frame() on a depot of @max_depth, hashing stacks apart
 * or, with @collide, alike but for their last frame.
 */
static void hint_last_frame(struct kunit *test, unsigned int max_depth,
			    bool collide, unsigned long *x, unsigned long *y,
			    u32 *ids)
{
	struct stackdepot_lf_params p = {
		.max_records = 1024,
		.max_depth = max_depth,
	};
	struct stackdepot_lf *depot = create_depot(test, &p);
	struct stackdepot_lf_stats stats;
	stackdepot_lf_id_t id;
	unsigned int depth;

	if (collide)
		kunit_activate_static_stub(test, sdlf_hash, hash_but_last);
	/* The hint is per CPU: stay on one, with no assertion meanwhile. */
	migrate_disable();
	for (depth = 1; depth <= max_depth; depth++) {
		make_pair(x, y, depth, 600 + depth);
		ids[2 * depth] = hint_get_id_of(test, depot, x, depth);
		ids[2 * depth + 1] = hint_get_id_of(test, depot, y, depth);
		if (ids[2 * depth] == ids[2 * depth + 1])
			KUNIT_FAIL(test, "depth %u of %u: one id for two stacks",
				   depth, max_depth);
		/* And back: the second one's hint does not take it either. */
		if (hint_get_id_of(test, depot, x, depth) != ids[2 * depth])
			KUNIT_FAIL(test, "depth %u of %u: another id", depth,
				   max_depth);
	}

	/* Cut at the maximum depth, from callers deeper than it. */
	make_stack(x, max_depth + HINT_EXTRA, 700);
	memcpy(y, x, (max_depth + HINT_EXTRA) * sizeof(*x));
	for (depth = max_depth; depth < max_depth + HINT_EXTRA; depth++)
		y[depth] ^= 0x100;
	ids[0] = hint_get_id_of(test, depot, x, max_depth);
	ids[1] = hint_get_id_of(test, depot, y, max_depth);
	KUNIT_EXPECT_EQ(test, ids[0], ids[1]);
	y[max_depth - 1] ^= 0x100;
	ids[1] = hint_get_id_of(test, depot, y, max_depth);
	KUNIT_EXPECT_NE(test, ids[0], ids[1]);
	KUNIT_EXPECT_EQ(test, ids[0], hint_get_id_of(test, depot, x, max_depth));
	migrate_enable();
	KUNIT_EXPECT_EQ(test, -E2BIG, stackdepot_lf_get_id(depot, x,
							   max_depth + 1, &id));
	if (collide)
		kunit_deactivate_static_stub(test, sdlf_hash);

	/* Each id resolves to its own stack. */
	expect_resolves_to(test, depot, ids[0], x, max_depth);
	expect_resolves_to(test, depot, ids[1], y, max_depth);
	for (depth = 1; depth <= max_depth; depth++) {
		make_pair(x, y, depth, 600 + depth);
		expect_resolves_to(test, depot, ids[2 * depth], x, depth);
		expect_resolves_to(test, depot, ids[2 * depth + 1], y, depth);
	}
	stackdepot_lf_stats(depot, &stats);
	KUNIT_EXPECT_EQ(test, stats.records, 2 * max_depth + 2);
}

/*
 * The hint never gives a stack another stack's id. Two stacks in a row on
 * one CPU that differ only in their last (outermost) frame, at every
 * depth up to the depot's maximum, odd and even, get ids of their own:
 * with their own hashes the second one's hint names the first one's slot,
 * and hashing alike but for that frame they also probe it. So do two
 * callers whose stacks, cut at the maximum depth, differ in the last frame
 * kept; two whose stacks differ only past the cut share an id.
 */
static void test_hint_last_frame(struct kunit *test)
{
	unsigned int n = TEST_DEPTH + HINT_EXTRA;
	unsigned long *x = kunit_kcalloc(test, n, sizeof(*x), GFP_KERNEL);
	unsigned long *y = kunit_kcalloc(test, n, sizeof(*y), GFP_KERNEL);
	u32 *ids = kunit_kcalloc(test, 2 * TEST_DEPTH + 2, sizeof(*ids),
				 GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, x);
	KUNIT_ASSERT_NOT_NULL(test, y);
	KUNIT_ASSERT_NOT_NULL(test, ids);
	hint_last_frame(test, TEST_DEPTH - 1, false, x, y, ids);
	hint_last_frame(test, TEST_DEPTH - 1, true, x, y, ids);
	hint_last_frame(test, TEST_DEPTH, false, x, y, ids);
	hint_last_frame(test, TEST_DEPTH, true, x, y, ids);
}

/*
 * Past the end of the id space the cursor skips the ranges that live
 * depots hold: a depot whose generations wrap never takes the range of
 * another live depot, whose ids would then resolve in it.
 */
static void test_ids_skip_live_ranges(struct kunit *test)
{
	u32 max_tag = (1U << (32 - 11)) - 1;
	stackdepot_lf_id_t ida, idb;
	struct stackdepot_lf *a, *b;

	/* @a takes the first free range; @b the last one of the space. */
	set_ids_cursor(test, 0);
	a = create_default(test);
	ida = get_id(test, a, 6, 3);
	set_ids_cursor(test, (u64)max_tag << 11);
	b = create_default(test);
	KUNIT_EXPECT_EQ(test, stackdepot_lf_generation(b), max_tag);

	/* The cursor wraps to the first range, which @a holds. */
	set_ids_cursor(test, 0);
	stackdepot_lf_reset(b);
	KUNIT_EXPECT_NE(test, stackdepot_lf_generation(b),
			stackdepot_lf_generation(a));
	/* The same stack: the same slot of the same size of table. */
	idb = get_id(test, b, 6, 3);
	KUNIT_EXPECT_NE(test, stackdepot_lf_id_to_u32(ida),
			stackdepot_lf_id_to_u32(idb));
	KUNIT_EXPECT_EQ(test, -ESTALE, stackdepot_lf_lookup(b, ida, got_buf,
							    TEST_DEPTH, NULL));
	KUNIT_EXPECT_EQ(test, -ESTALE, stackdepot_lf_lookup(a, idb, got_buf,
							    TEST_DEPTH, NULL));
	expect_resolves(test, a, ida, 6, 3);
	expect_resolves(test, b, idb, 6, 3);
}

static void restore_ids_space(void *old)
{
	sdlf_ids_set_space(*(u64 *)old);
}

/* Make the id space @space ids for this test only, as set_ids_cursor(). */
static void set_ids_space(struct kunit *test, u64 space)
{
	u64 *old = kunit_kzalloc(test, sizeof(*old), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, old);
	*old = sdlf_ids_set_space(space);
	KUNIT_ASSERT_EQ(test, 0, kunit_add_action_or_reset(test,
							   restore_ids_space,
							   old));
}

/* Expect @depot's generation @gen, and its ids to resolve there only. */
static void expect_ids_at(struct kunit *test, struct stackdepot_lf *depot,
			  u32 gen, struct stackdepot_lf *other, u64 space)
{
	struct stackdepot_lf_stats stats;
	stackdepot_lf_id_t id;

	stackdepot_lf_stats(depot, &stats);
	KUNIT_EXPECT_EQ(test, stats.generation, gen);
	id = get_id(test, depot, 7, 9);
	KUNIT_EXPECT_EQ(test, stackdepot_lf_id_to_u32(id) >> stats.index_bits,
			gen);
	KUNIT_EXPECT_LT(test, (u64)stackdepot_lf_id_to_u32(id), space);
	expect_resolves(test, depot, id, 7, 9);
	KUNIT_EXPECT_EQ(test, -ESTALE, stackdepot_lf_lookup(other, id, got_buf,
							    TEST_DEPTH, NULL));
}

/* A reset whose user then releases the ids of the depot's past generations */
static void reset_released(struct stackdepot_lf *depot)
{
	stackdepot_lf_reset(depot);
	stackdepot_lf_release_ids(depot);
}

#define WRAP_SPACE	BIT_ULL(14)
#define WRAP_BIG	2048U
#define WRAP_SMALL	32U

/*
 * Id ranges of depots of two sizes, around the wrap of the id space. A
 * generation that skips the range of a smaller live depot starts on the
 * next boundary of its own size: its ids resolve. A cursor that skips a
 * live depot holding the last range of the space wraps to the first
 * range, never to the end of the space (whose ids are state 0 in a
 * 32-bit space): in the real space, and for both sizes in one forced
 * small enough to wrap in a few ranges. The list of live depots stays
 * right through it: a destroyed depot's range is taken again, and live
 * ones are skipped. Each reset's user releases the depot's past ranges,
 * which would be held otherwise.
 */
static void test_ids_wrap_sizes(struct kunit *test)
{
	struct stackdepot_lf_params small = {
		.max_records = WRAP_SMALL / 2,
		.max_depth = TEST_DEPTH,
	};
	struct stackdepot_lf_params big = {
		.max_records = WRAP_BIG / 2,
		.max_depth = TEST_DEPTH,
	};
	u32 last_tag = (1U << (32 - 11)) - 1;
	struct stackdepot_lf *s, *s2, *b, *last;

	/* The real space: a depot holds the last range, the cursor on it. */
	set_ids_cursor(test, 5 * WRAP_BIG);
	b = create_depot(test, &big);
	set_ids_cursor(test, (u64)last_tag * WRAP_BIG);
	last = stackdepot_lf_create(&big);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, last);
	KUNIT_EXPECT_EQ(test, stackdepot_lf_generation(last), last_tag);
	set_ids_cursor(test, (u64)last_tag * WRAP_BIG);
	reset_released(b);
	expect_ids_at(test, b, 1, last, BIT_ULL(32));
	stackdepot_lf_destroy(last);
	set_ids_cursor(test, 5 * WRAP_BIG);
	reset_released(b);

	/*
	 * A small depot inside the first range of the big ones, not at its
	 * start: a big one skips it to the next boundary of its own size.
	 */
	set_ids_space(test, WRAP_SPACE);
	set_ids_cursor(test, WRAP_BIG + 2 * WRAP_SMALL);
	s = create_depot(test, &small);
	KUNIT_EXPECT_EQ(test, stackdepot_lf_generation(s),
			(WRAP_BIG + 2 * WRAP_SMALL) / WRAP_SMALL);
	set_ids_cursor(test, WRAP_BIG);
	reset_released(b);
	expect_ids_at(test, b, 2, s, WRAP_SPACE);
	expect_ids_at(test, s, (WRAP_BIG + 2 * WRAP_SMALL) / WRAP_SMALL, b,
		      WRAP_SPACE);

	/*
	 * A big depot on the last range: the cursor wraps past it to the
	 * first range, skips the small depot there and the range the depot
	 * holds itself, and lands on the third.
	 */
	set_ids_cursor(test, WRAP_SPACE - WRAP_BIG);
	last = stackdepot_lf_create(&big);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, last);
	KUNIT_EXPECT_EQ(test, stackdepot_lf_generation(last),
			(u32)(WRAP_SPACE / WRAP_BIG - 1));
	set_ids_cursor(test, WRAP_SPACE - WRAP_BIG);
	reset_released(b);
	expect_ids_at(test, b, 3, last, WRAP_SPACE);
	stackdepot_lf_destroy(last);

	/* A small depot on the last range, in the one freed: a small one wraps. */
	set_ids_cursor(test, WRAP_SPACE - WRAP_SMALL);
	s2 = create_depot(test, &small);
	KUNIT_EXPECT_EQ(test, stackdepot_lf_generation(s2),
			(u32)(WRAP_SPACE / WRAP_SMALL - 1));
	set_ids_cursor(test, WRAP_SPACE - WRAP_SMALL);
	reset_released(s);
	expect_ids_at(test, s, 1, s2, WRAP_SPACE);

	/* The ranges given up are free again; those held are skipped. */
	set_ids_cursor(test, WRAP_SPACE - WRAP_BIG);
	reset_released(b);
	expect_ids_at(test, b, 1, s2, WRAP_SPACE);
	set_ids_cursor(test, WRAP_SMALL);
	reset_released(s2);
	expect_ids_at(test, s2, 2, s, WRAP_SPACE);
}

/*
 * An id outlives its generation (a trace keeps it): its range comes back
 * only once the depot's user released it. In a space of seven ranges, a
 * depot that resets without releasing takes each range once, each new
 * generation storing another stack in the slot of its first id; then a
 * depot of its size cannot be created, and its next reset leaves it busy,
 * its callers refused, rather than give that id to a stack of a later
 * generation. Released, its ranges come back, the first one first; a
 * depot with a generation releases those before it and keeps its own,
 * and the ranges of other depots that its hull covered.
 */
static void test_ids_held_until_released(struct kunit *test)
{
	struct stackdepot_lf_params p = {
		.max_records = WRAP_BIG / 2,
		.max_depth = TEST_DEPTH,
	};
	struct stackdepot_lf *depot, *other;
	struct stackdepot_lf_stats stats;
	stackdepot_lf_id_t first, id;
	u32 gen, ranges = WRAP_SPACE / WRAP_BIG - 1;

	set_ids_space(test, WRAP_SPACE);
	set_ids_cursor(test, WRAP_BIG);
	depot = create_depot(test, &p);
	/* Every stack in slot 42. */
	kunit_activate_static_stub(test, sdlf_hash, constant_hash);
	first = get_id(test, depot, 6, 1);
	KUNIT_EXPECT_EQ(test, stackdepot_lf_id_to_u32(first), WRAP_BIG + 42);
	for (gen = 2; gen <= ranges; gen++) {
		stackdepot_lf_reset(depot);
		KUNIT_EXPECT_EQ(test, stackdepot_lf_generation(depot), gen);
		id = get_id(test, depot, 6, 100 + gen);
		KUNIT_EXPECT_EQ(test, stackdepot_lf_id_to_u32(id),
				gen * WRAP_BIG + 42);
		KUNIT_EXPECT_EQ(test, -ESTALE,
				stackdepot_lf_lookup(depot, first, got_buf,
						     TEST_DEPTH, NULL));
	}

	/* Every range held: the first id must not find stack 200. */
	stackdepot_lf_reset(depot);
	make_stack(want_buf, 6, 200);
	KUNIT_EXPECT_EQ(test, -EBUSY, stackdepot_lf_get_id(depot, want_buf, 6,
							   &id));
	KUNIT_EXPECT_EQ(test, -ESTALE, stackdepot_lf_lookup(depot, first,
							    got_buf,
							    TEST_DEPTH, NULL));
	stackdepot_lf_stats(depot, &stats);
	KUNIT_EXPECT_TRUE(test, stats.resetting);
	KUNIT_EXPECT_EQ(test, stats.resets, (u64)ranges);
	KUNIT_EXPECT_EQ(test, stats.records, 0U);
	KUNIT_EXPECT_EQ(test, stats.drops_busy, 1ULL);
	other = stackdepot_lf_create(&p);
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(other), -ENOSPC);
	if (!IS_ERR(other))
		stackdepot_lf_destroy(other);

	/* Released: the first range is the next generation's. */
	stackdepot_lf_release_ids(depot);
	stackdepot_lf_release_ids(NULL);
	KUNIT_EXPECT_EQ(test, stackdepot_lf_generation(depot), 1U);
	id = get_id(test, depot, 6, 200);
	KUNIT_EXPECT_EQ(test, stackdepot_lf_id_to_u32(id),
			stackdepot_lf_id_to_u32(first));
	expect_resolves(test, depot, id, 6, 200);

	/*
	 * Generation 2, and another depot at 3. A reset from the first
	 * range skips the depot's own hull and the other depot to 4; its
	 * hull then covers the other's range, which stays held by the
	 * other after the release, as does the range of generation 4.
	 */
	stackdepot_lf_reset(depot);
	KUNIT_EXPECT_EQ(test, stackdepot_lf_generation(depot), 2U);
	other = create_depot(test, &p);
	KUNIT_EXPECT_EQ(test, stackdepot_lf_generation(other), 3U);
	set_ids_cursor(test, WRAP_BIG);
	stackdepot_lf_reset(depot);
	KUNIT_EXPECT_EQ(test, stackdepot_lf_generation(depot), 4U);
	stackdepot_lf_release_ids(depot);
	set_ids_cursor(test, WRAP_BIG);
	stackdepot_lf_reset(depot);
	KUNIT_EXPECT_EQ(test, stackdepot_lf_generation(depot), 1U);
	set_ids_cursor(test, WRAP_BIG);
	stackdepot_lf_reset(depot);
	KUNIT_EXPECT_EQ(test, stackdepot_lf_generation(depot), 2U);
	KUNIT_EXPECT_EQ(test, stackdepot_lf_generation(other), 3U);
	kunit_deactivate_static_stub(test, sdlf_hash);
	expect_ids_at(test, depot, 2, other, WRAP_SPACE);
	expect_ids_at(test, other, 3, depot, WRAP_SPACE);
}

/*
 * The ids of a destroyed depot never resolve in a depot created after it:
 * ftrace replaces an instance's depot on every stack_map_size change while
 * the old ids stay in its ring buffer.
 */
static void test_ids_after_destroy(struct kunit *test)
{
	struct stackdepot_lf_params p = {
		.max_records = 1024,
		.max_depth = TEST_DEPTH,
	};
	stackdepot_lf_id_t ida, idb;
	struct stackdepot_lf *a, *b;
	int ret;

	a = stackdepot_lf_create(&p);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, a);
	ida = 0;
	ret = try_get_id(a, 4, 3, &ida);
	stackdepot_lf_destroy(a);
	KUNIT_ASSERT_EQ(test, ret, 0);

	b = create_depot(test, &p);
	idb = get_id(test, b, 4, 3);
	KUNIT_EXPECT_NE(test, stackdepot_lf_id_to_u32(ida),
			stackdepot_lf_id_to_u32(idb));
	KUNIT_EXPECT_EQ(test, -ESTALE, stackdepot_lf_lookup(b, ida, got_buf,
							    TEST_DEPTH, NULL));
	expect_resolves(test, b, idb, 4, 3);
}

/*
 * Only the table is sized by the capacity: a depot of twice the records
 * takes the table's growth more memory on creation, and nothing else.
 */
static void test_mem_size(struct kunit *test)
{
	struct stackdepot_lf_params p = {
		.max_records = 1024,
		.max_depth = 64,
	};
	size_t small, big;

	small = stackdepot_lf_mem_size(&p);
	p.max_records = 2048;
	big = stackdepot_lf_mem_size(&p);
	/* 2048 slots more, 4 bytes each and a mark bit */
	KUNIT_EXPECT_EQ(test, big - small, (size_t)2048 * sizeof(u32) + 2048 / 8);
	/* Deeper stacks: larger chunks, the same table. */
	p.max_depth = STACKDEPOT_LF_MAX_DEPTH;
	KUNIT_EXPECT_GT(test, stackdepot_lf_mem_size(&p), big);
	KUNIT_EXPECT_LT(test, stackdepot_lf_mem_size(&p), big + SZ_64K);
	/* The largest depot: its 4 MiB table and little more. */
	p.max_records = STACKDEPOT_LF_MAX_RECORDS;
	p.flags = STACKDEPOT_LF_COUNT_REFS;
	KUNIT_EXPECT_GT(test, stackdepot_lf_mem_size(&p), (size_t)SZ_4M);
	KUNIT_EXPECT_LT(test, stackdepot_lf_mem_size(&p),
			(size_t)SZ_4M + SZ_256K);
}

/*
 * The limits of a depot's size, now that there is no arena to cap: chunks
 * stay within 4 KiB and 64 KiB whatever depths they are sized for, the
 * largest depot can be created (ids of 20 index bits), and one record
 * more cannot.
 */
static void test_arena_limit(struct kunit *test)
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

	/* 32 records of 256 frames take more than 32 KiB. */
	KUNIT_EXPECT_GT(test, 32 * RS(STACKDEPOT_LF_MAX_DEPTH), (size_t)SZ_32K);
	depot = create_depot(test, &p);
	stackdepot_lf_stats(depot, &stats);
	KUNIT_EXPECT_EQ(test, stats.chunk_size, (u32)SZ_64K);
	KUNIT_EXPECT_EQ(test, stats.index_bits, 20);
	KUNIT_EXPECT_EQ(test, stats.table_slots, 1U << 20);
	id = get_id_grown(test, depot, STACKDEPOT_LF_MAX_DEPTH, 1);
	KUNIT_EXPECT_EQ(test, stackdepot_lf_id_to_u32(id) >> 20, stats.generation);
	expect_resolves(test, depot, id, STACKDEPOT_LF_MAX_DEPTH, 1);

	/* 32 records of one frame take 512 bytes: 4 KiB all the same. */
	depot = create_depot(test, &small);
	stackdepot_lf_stats(depot, &stats);
	KUNIT_EXPECT_EQ(test, stats.chunk_size, (u32)SZ_4K);
	KUNIT_EXPECT_EQ(test, stats.index_bits, 5);

	/* The split of ids is known before the depot is created. */
	KUNIT_EXPECT_EQ(test, stackdepot_lf_index_bits(&small), 5);
	p.max_records = 1000;
	KUNIT_EXPECT_EQ(test, stackdepot_lf_index_bits(&p), 11);
	p.max_records = 1024;
	KUNIT_EXPECT_EQ(test, stackdepot_lf_index_bits(&p), 11);
	p.max_records = STACKDEPOT_LF_MAX_RECORDS;
	KUNIT_EXPECT_EQ(test, stackdepot_lf_index_bits(&p), 20);

	p.max_records++;
	KUNIT_EXPECT_EQ(test, stackdepot_lf_index_bits(&p), 0);
	KUNIT_EXPECT_EQ(test, stackdepot_lf_index_bits(NULL), 0);
	KUNIT_EXPECT_EQ(test, stackdepot_lf_mem_size(&p), 0);
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(stackdepot_lf_create(&p)), -EINVAL);
	KUNIT_EXPECT_EQ(test, stackdepot_lf_mem_size(NULL), 0);
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(stackdepot_lf_create(NULL)), -EINVAL);
}

static void test_iterator(struct kunit *test)
{
	struct stackdepot_lf *depot = create_default(test);
	unsigned long entries[TEST_DEPTH], want[TEST_DEPTH];
	struct stackdepot_lf_info info;
	struct stackdepot_lf_iter iter;
	unsigned int i, n = 0, *seen;
	stackdepot_lf_id_t *ids;
	u32 first = 0;
	int ret;

	/* Off the stack: 32-bit kernels allow frames of 1 KiB only. */
	ids = kunit_kcalloc(test, 100, sizeof(*ids), GFP_KERNEL);
	seen = kunit_kcalloc(test, 100, sizeof(*seen), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ids);
	KUNIT_ASSERT_NOT_NULL(test, seen);
	for (i = 0; i < 100; i++) {
		ids[i] = get_id(test, depot, 1 + i % TEST_DEPTH, i);
		sdlf_grow_flush(depot);
	}

	stackdepot_lf_iter_start(&iter, depot);
	while ((ret = stackdepot_lf_iter_next(&iter, entries, TEST_DEPTH,
					      &info)) > 0) {
		for (i = 0; i < 100; i++)
			if (stackdepot_lf_id_to_u32(ids[i]) ==
			    stackdepot_lf_id_to_u32(info.id))
				break;
		KUNIT_ASSERT_LT(test, i, 100U);
		if (!n)
			first = stackdepot_lf_id_to_u32(info.id);
		seen[i]++;
		n++;
		KUNIT_EXPECT_EQ(test, ret, (int)(1 + i % TEST_DEPTH));
		make_stack(want, ret, i);
		KUNIT_EXPECT_MEMEQ(test, entries, want, ret * sizeof(*want));
		KUNIT_EXPECT_EQ(test, info.refs, 1U);
	}
	KUNIT_EXPECT_EQ(test, ret, 0);
	KUNIT_EXPECT_EQ(test, n, 100U);
	for (i = 0; i < 100; i++)
		KUNIT_EXPECT_EQ(test, seen[i], 1U);
	/* A finished walk stays finished. */
	KUNIT_EXPECT_EQ(test, 0, stackdepot_lf_iter_next(&iter, entries,
							 TEST_DEPTH, &info));

	/*
	 * A buffer too small for the next record does not advance the walk:
	 * the next call returns that record, the first of the walk.
	 */
	stackdepot_lf_iter_start(&iter, depot);
	KUNIT_EXPECT_EQ(test, -ENOSPC, stackdepot_lf_iter_next(&iter, entries,
							       0, &info));
	ret = stackdepot_lf_iter_next(&iter, entries, TEST_DEPTH, &info);
	KUNIT_EXPECT_GT(test, ret, 0);
	KUNIT_EXPECT_EQ(test, stackdepot_lf_id_to_u32(info.id), first);

	/*
	 * Without a buffer, a walk gives every record's id and depth, in the
	 * same order, and copies nothing; so does a lookup.
	 */
	stackdepot_lf_iter_start(&iter, depot);
	memset(seen, 0, 100 * sizeof(*seen));
	n = 0;
	while ((ret = stackdepot_lf_iter_next(&iter, NULL, 0, &info)) > 0) {
		for (i = 0; i < 100; i++)
			if (stackdepot_lf_id_to_u32(ids[i]) ==
			    stackdepot_lf_id_to_u32(info.id))
				break;
		KUNIT_ASSERT_LT(test, i, 100U);
		if (!n)
			KUNIT_EXPECT_EQ(test, stackdepot_lf_id_to_u32(info.id),
					first);
		seen[i]++;
		n++;
		KUNIT_EXPECT_EQ(test, ret, (int)(1 + i % TEST_DEPTH));
		KUNIT_EXPECT_EQ(test, info.depth, (u32)ret);
		KUNIT_EXPECT_EQ(test, stackdepot_lf_lookup(depot, info.id, NULL, 0,
							   NULL), ret);
	}
	KUNIT_EXPECT_EQ(test, ret, 0);
	KUNIT_EXPECT_EQ(test, n, 100U);
	for (i = 0; i < 100; i++)
		KUNIT_EXPECT_EQ(test, seen[i], 1U);

	/* A reset mid-walk: -ESTALE from then on, never the new generation. */
	stackdepot_lf_reset(depot);
	get_id(test, depot, 3, 1000);
	KUNIT_EXPECT_EQ(test, -ESTALE, stackdepot_lf_iter_next(&iter, entries,
							       TEST_DEPTH, &info));
	KUNIT_EXPECT_EQ(test, -ESTALE, stackdepot_lf_iter_next(&iter, entries,
							       TEST_DEPTH, &info));

	/* A new walk sees exactly the new generation. */
	stackdepot_lf_iter_start(&iter, depot);
	KUNIT_EXPECT_EQ(test, 3, stackdepot_lf_iter_next(&iter, entries,
							 TEST_DEPTH, &info));
	KUNIT_EXPECT_EQ(test, stackdepot_lf_id_gen(depot, info.id),
			stackdepot_lf_generation(depot));
	KUNIT_EXPECT_EQ(test, 0, stackdepot_lf_iter_next(&iter, entries,
							 TEST_DEPTH, &info));
}

static void test_stats_add_up(struct kunit *test)
{
	struct stackdepot_lf_params p = {
		.max_records = 32,
		.max_depth = 16,
	};
	struct stackdepot_lf *depot = create_depot(test, &p);
	unsigned long entries[20];
	struct stackdepot_lf_stats stats;
	struct rnd_state rnd;
	unsigned int i, calls = 0;
	stackdepot_lf_id_t id;

	prandom_seed_state(&rnd, 1);
	for (i = 0; i < 2000; i++) {
		unsigned int depth = 1 + prandom_u32_state(&rnd) % 20;

		make_stack(entries, depth, prandom_u32_state(&rnd) % 64);
		calls++;
		if (stackdepot_lf_get_id(depot, entries, depth, &id) == 0)
			KUNIT_EXPECT_EQ(test, depth,
					(unsigned int)stackdepot_lf_lookup(depot, id,
						entries, ARRAY_SIZE(entries), NULL));
	}
	stackdepot_lf_stats(depot, &stats);
	KUNIT_EXPECT_EQ(test, calls_counted(&stats), (u64)calls);
	KUNIT_EXPECT_EQ(test, stats.inserts, (u64)stats.records);
	KUNIT_EXPECT_GT(test, stats.drops_too_deep, 0ULL);
	KUNIT_EXPECT_GT(test, stats.drops_full, 0ULL);
	KUNIT_EXPECT_GT(test, stats.hits, 0ULL);
}

/* get_id and lookup from a hard-IRQ hrtimer callback. */
struct irq_ctx {
	struct hrtimer timer;
	struct completion done;
	struct stackdepot_lf *depot;
	stackdepot_lf_id_t id;
	int ret;
	int lookup;
	bool hardirq;
};

static enum hrtimer_restart irq_get_id(struct hrtimer *timer)
{
	struct irq_ctx *ctx = container_of(timer, struct irq_ctx, timer);
	unsigned long entries[TEST_DEPTH];

	ctx->hardirq = in_hardirq() && irqs_disabled();
	make_stack(entries, 11, 77);
	ctx->ret = stackdepot_lf_get_id(ctx->depot, entries, 11, &ctx->id);
	if (!ctx->ret)
		ctx->lookup = stackdepot_lf_lookup(ctx->depot, ctx->id, entries,
						   TEST_DEPTH, NULL);
	complete(&ctx->done);
	return HRTIMER_NORESTART;
}

KUNIT_DEFINE_ACTION_WRAPPER(hrtimer_cancel_action, hrtimer_cancel,
			    struct hrtimer *);

static void test_hardirq(struct kunit *test)
{
	struct irq_ctx *ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, ctx);
	ctx->depot = create_default(test);
	init_completion(&ctx->done);
	hrtimer_init(&ctx->timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_HARD);
	ctx->timer.function = irq_get_id;
	/* Cancelled however the test ends, before ctx is freed. */
	KUNIT_ASSERT_EQ(test, 0, kunit_add_action_or_reset(test,
							   hrtimer_cancel_action,
							   &ctx->timer));
	hrtimer_start(&ctx->timer, ns_to_ktime(1000), HRTIMER_MODE_REL_HARD);
	KUNIT_ASSERT_NE(test, 0UL,
			wait_for_completion_timeout(&ctx->done, 10 * HZ));
	kunit_release_action(test, hrtimer_cancel_action, &ctx->timer);

	KUNIT_EXPECT_TRUE(test, ctx->hardirq);
	KUNIT_ASSERT_EQ(test, ctx->ret, 0);
	KUNIT_EXPECT_EQ(test, ctx->lookup, 11);
	/* Process context finds the record the interrupt inserted. */
	KUNIT_EXPECT_EQ(test, stackdepot_lf_id_to_u32(ctx->id),
			stackdepot_lf_id_to_u32(get_id(test, ctx->depot, 11, 77)));
	expect_resolves(test, ctx->depot, ctx->id, 11, 77);
}

/*
 * Hit counts from many CPUs at once: one kthread per online CPU (at least
 * two) calls get_id on the same few stacks. Each CPU counts into its own
 * copy of the counters (or one it shares), and lookup sums them: the
 * count of every stack must be exactly the number of calls made for it.
 */
#define REFS_STACKS	4
#define REFS_CALLS	5000

struct refs_ctx {
	struct stackdepot_lf *depot;
	atomic_t errors;
	atomic_t done;
	struct completion all_done;
	unsigned int nthreads;
};

static int refs_thread(void *arg)
{
	struct refs_ctx *ctx = arg;
	unsigned long entries[TEST_DEPTH];
	stackdepot_lf_id_t id;
	unsigned int i;

	for (i = 0; i < REFS_CALLS * REFS_STACKS; i++) {
		make_stack(entries, 9, i % REFS_STACKS);
		if (stackdepot_lf_get_id(ctx->depot, entries, 9, &id))
			atomic_inc(&ctx->errors);
		if (i % 64 == 0)
			cond_resched();
	}
	if (atomic_inc_return(&ctx->done) == ctx->nthreads)
		complete(&ctx->all_done);
	while (!kthread_should_stop())
		schedule_timeout_interruptible(1);
	return 0;
}

/*
 * A kthread of the test, bound to @cpu if that is a CPU (otherwise it runs
 * anywhere), not yet woken; stopped when the test ends, however it ends,
 * so that no thread outlives the memory the test gave it. Asserts that it
 * could be created.
 */
static struct task_struct *start_kthread(struct kunit *test,
					 int (*fn)(void *data), void *data,
					 unsigned int cpu, const char *name)
{
	struct task_struct *task;

	if (cpu < nr_cpu_ids)
		task = kthread_create_on_cpu(fn, data, cpu, "sdlf/%u");
	else
		task = kthread_create(fn, data, "%s", name);
	KUNIT_ASSERT_FALSE(test, IS_ERR(task));
	KUNIT_ASSERT_EQ(test, 0, kunit_add_action_or_reset(test,
							   kthread_stop_action,
							   task));
	return task;
}

/* One CPU's worker of test_cpu_marks(): it runs @op when told to go. */
enum cpu_marks_op { CPU_MARKS_GET, CPU_MARKS_CLEAR, CPU_MARKS_UNMARK };

struct cpu_marks_worker {
	struct stackdepot_lf __rcu *depot;
	struct completion go;
	struct completion done;
	enum cpu_marks_op op;
	stackdepot_lf_id_t id;
	int ret;
	bool first;
};

/* Bound to its CPU: each call, and its answer, is that CPU's. */
static int cpu_marks_thread(void *arg)
{
	struct cpu_marks_worker *w = arg;
	struct stackdepot_lf *depot;
	unsigned long entries[8];

	make_stack(entries, ARRAY_SIZE(entries), 400);
	while (!kthread_should_stop()) {
		if (!wait_for_completion_timeout(&w->go, 1))
			continue;
		switch (w->op) {
		case CPU_MARKS_GET:
			w->first = true;
			w->ret = stackdepot_lf_get_id_rcu(&w->depot, entries,
							  ARRAY_SIZE(entries),
							  &w->id, &w->first);
			break;
		case CPU_MARKS_CLEAR:
			depot = rcu_dereference_protected(w->depot, true);
			stackdepot_lf_clear_cpu_marks(depot);
			break;
		case CPU_MARKS_UNMARK:
			depot = rcu_dereference_protected(w->depot, true);
			stackdepot_lf_unmark(depot, w->id);
			break;
		}
		complete(&w->done);
	}
	return 0;
}

/* Have @w run @op on its CPU; for CPU_MARKS_GET, whether it set the mark. */
static bool cpu_marks_do(struct kunit *test, struct cpu_marks_worker *w,
			 enum cpu_marks_op op)
{
	w->op = op;
	complete(&w->go);
	KUNIT_ASSERT_NE(test, 0UL, wait_for_completion_timeout(&w->done,
							       120 * HZ));
	if (op == CPU_MARKS_GET)
		KUNIT_ASSERT_EQ(test, 0, w->ret);
	return w->first;
}

/*
 * Marks of a depot created with STACKDEPOT_LF_CPU_MARKS: one caller per
 * record per CPU is told "first"; clearing a CPU's marks, and giving one
 * back, leave the other CPU's; clearing all marks, and reset, clear both.
 */
static void test_cpu_marks(struct kunit *test)
{
	struct stackdepot_lf_params p = {
		.max_records = 1024,
		.max_depth = TEST_DEPTH,
		.flags = STACKDEPOT_LF_CPU_MARKS,
	};
	struct cpu_marks_worker *w;
	struct task_struct *task;
	struct stackdepot_lf *depot;
	unsigned int i, cpu;

	if (num_online_cpus() < 2)
		kunit_skip(test, "needs two online CPUs");
	depot = create_depot(test, &p);
	w = kunit_kcalloc(test, 2, sizeof(*w), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, w);
	/* The first and the last: the highest online CPU's bitmap too. */
	cpu = cpumask_first(cpu_online_mask);
	for (i = 0; i < 2; i++) {
		rcu_assign_pointer(w[i].depot, depot);
		init_completion(&w[i].go);
		init_completion(&w[i].done);
		task = start_kthread(test, cpu_marks_thread, &w[i], cpu,
				     "sdlf_cpu_marks");
		wake_up_process(task);
		cpu = cpumask_last(cpu_online_mask);
	}

	KUNIT_EXPECT_TRUE(test, cpu_marks_do(test, &w[0], CPU_MARKS_GET));
	KUNIT_EXPECT_FALSE(test, cpu_marks_do(test, &w[0], CPU_MARKS_GET));
	/* The other CPU's first use of the same record is its own first. */
	KUNIT_EXPECT_TRUE(test, cpu_marks_do(test, &w[1], CPU_MARKS_GET));
	KUNIT_EXPECT_FALSE(test, cpu_marks_do(test, &w[1], CPU_MARKS_GET));
	KUNIT_EXPECT_EQ(test, stackdepot_lf_id_to_u32(w[0].id),
			stackdepot_lf_id_to_u32(w[1].id));

	/* One CPU's marks cleared: that CPU's only. */
	cpu_marks_do(test, &w[1], CPU_MARKS_CLEAR);
	KUNIT_EXPECT_FALSE(test, cpu_marks_do(test, &w[0], CPU_MARKS_GET));
	KUNIT_EXPECT_TRUE(test, cpu_marks_do(test, &w[1], CPU_MARKS_GET));
	KUNIT_EXPECT_FALSE(test, cpu_marks_do(test, &w[1], CPU_MARKS_GET));

	/* A mark given back: the giver's. */
	cpu_marks_do(test, &w[0], CPU_MARKS_UNMARK);
	KUNIT_EXPECT_FALSE(test, cpu_marks_do(test, &w[1], CPU_MARKS_GET));
	KUNIT_EXPECT_TRUE(test, cpu_marks_do(test, &w[0], CPU_MARKS_GET));
	KUNIT_EXPECT_FALSE(test, cpu_marks_do(test, &w[0], CPU_MARKS_GET));

	/* All of them, and a reset: every CPU's. */
	stackdepot_lf_clear_marks(depot);
	KUNIT_EXPECT_TRUE(test, cpu_marks_do(test, &w[0], CPU_MARKS_GET));
	KUNIT_EXPECT_TRUE(test, cpu_marks_do(test, &w[1], CPU_MARKS_GET));
	stackdepot_lf_reset(depot);
	KUNIT_EXPECT_TRUE(test, cpu_marks_do(test, &w[1], CPU_MARKS_GET));
	KUNIT_EXPECT_TRUE(test, cpu_marks_do(test, &w[0], CPU_MARKS_GET));
	KUNIT_EXPECT_FALSE(test, cpu_marks_do(test, &w[0], CPU_MARKS_GET));
	KUNIT_EXPECT_FALSE(test, cpu_marks_do(test, &w[1], CPU_MARKS_GET));
}

/*
 * What the per-CPU marks of a depot of the largest capacity cost: their
 * bytes per CPU, and the worst time, over CLEAR_COST_ROUNDS rounds, of
 * stackdepot_lf_clear_marks() and stackdepot_lf_clear_cpu_marks(), each
 * with CLEAR_COST_STACKS stacks marked on the calling CPU, and of the
 * first marked get_id after each, which may find work the clearing left.
 * Printed, never asserted: a time is the machine's.
 */
#define CLEAR_COST_STACKS	1024
#define CLEAR_COST_ROUNDS	80
#define CLEAR_COST_DEPTH	8
/* The capacity of ftrace's depots unless told otherwise */
#define CLEAR_COST_DEFAULT	16384

/* Mark every stack of the case on this CPU; returns the calls that failed. */
static unsigned int clear_cost_mark_all(struct stackdepot_lf __rcu **ptr)
{
	unsigned long entries[CLEAR_COST_DEPTH];
	unsigned int failed = 0;
	stackdepot_lf_id_t id;
	bool first;
	u32 i;

	for (i = 0; i < CLEAR_COST_STACKS; i++) {
		make_stack(entries, CLEAR_COST_DEPTH, 5000 + i);
		if (stackdepot_lf_get_id_rcu(ptr, entries, CLEAR_COST_DEPTH,
					     &id, &first))
			failed++;
	}
	return failed;
}

/* Nanoseconds of the first marked get_id of stack 5000; it must be first. */
static u64 clear_cost_first(struct stackdepot_lf __rcu **ptr,
			    unsigned int *wrong)
{
	unsigned long entries[CLEAR_COST_DEPTH];
	stackdepot_lf_id_t id;
	bool first = false;
	int ret;
	u64 t;

	make_stack(entries, CLEAR_COST_DEPTH, 5000);
	t = ktime_get_ns();
	ret = stackdepot_lf_get_id_rcu(ptr, entries, CLEAR_COST_DEPTH, &id,
				       &first);
	t = ktime_get_ns() - t;
	if (ret || !first)
		(*wrong)++;
	return t;
}

static void test_clear_marks_cost(struct kunit *test)
{
	struct stackdepot_lf_params p = {
		.max_records = STACKDEPOT_LF_MAX_RECORDS,
		.max_depth = TEST_DEPTH,
		.flags = STACKDEPOT_LF_CPU_MARKS,
	};
	struct stackdepot_lf_params q = {
		.max_records = CLEAR_COST_DEFAULT,
		.max_depth = TEST_DEPTH,
		.flags = STACKDEPOT_LF_CPU_MARKS,
	};
	u64 t, all = 0, all_next = 0, cpu = 0, cpu_next = 0;
	unsigned int r, failed = 0, wrong = 0;
	struct stackdepot_lf __rcu *ptr;
	struct stackdepot_lf *depot;
	u32 i;

	depot = create_depot(test, &q);
	kunit_info(test, "%u records (%u slots): marks %zu bytes per CPU\n",
		   q.max_records, 1U << stackdepot_lf_index_bits(&q),
		   stackdepot_lf_marks_bytes(depot) / nr_cpu_ids);
	depot = create_depot(test, &p);
	RCU_INIT_POINTER(ptr, depot);
	for (i = 0; i < CLEAR_COST_STACKS; i++)
		get_id_grown(test, depot, CLEAR_COST_DEPTH, 5000 + i);
	for (r = 0; r < CLEAR_COST_ROUNDS; r++) {
		/* The marks, the clearing and the next call on one CPU */
		migrate_disable();
		failed += clear_cost_mark_all(&ptr);
		t = ktime_get_ns();
		stackdepot_lf_clear_marks(depot);
		t = ktime_get_ns() - t;
		all = max(all, t);
		t = clear_cost_first(&ptr, &wrong);
		all_next = max(all_next, t);
		failed += clear_cost_mark_all(&ptr);
		t = ktime_get_ns();
		stackdepot_lf_clear_cpu_marks(depot);
		t = ktime_get_ns() - t;
		cpu = max(cpu, t);
		t = clear_cost_first(&ptr, &wrong);
		cpu_next = max(cpu_next, t);
		migrate_enable();
	}
	KUNIT_EXPECT_EQ(test, failed, 0U);
	KUNIT_EXPECT_EQ(test, wrong, 0U);
	kunit_info(test, "%u records (%u slots), %u CPUs: marks %zu bytes per CPU; worst of %u rounds with %u stacks marked: clear_marks %llu ns, its next get_id %llu ns; clear_cpu_marks %llu ns, its next get_id %llu ns\n",
		   p.max_records, 1U << stackdepot_lf_index_bits(&p), nr_cpu_ids,
		   stackdepot_lf_marks_bytes(depot) / nr_cpu_ids,
		   CLEAR_COST_ROUNDS, CLEAR_COST_STACKS, all, all_next, cpu,
		   cpu_next);
}

/*
 * Per-CPU marks are a cache of SDLF_MARK_SETS (512) sets of four u16
 * entries per CPU, fewer sets when the table has fewer than four slots
 * per set: an entry holds the slot's bits above its set's and, above
 * them, the epoch, from 1 to the last the bits left hold; a CPU wipes its
 * cache before it starts again at 1.
 */
static unsigned int mark_epochs_for(const struct stackdepot_lf_params *p)
{
	unsigned int bits = stackdepot_lf_index_bits(p);
	unsigned int sets = min(512U, 1U << (bits - 2));

	return (1U << (16 - (bits - ilog2(sets)))) - 1;
}

/*
 * get_id_rcu() of synthetic stack @nr of @depth frames, asking for the
 * mark: 1 if told "first", 0 if not, -1 on error. No assertion, for the
 * cases that run with migration off.
 */
static int mark_of(struct stackdepot_lf __rcu **ptr, unsigned int depth,
		   u32 nr)
{
	unsigned long entries[TEST_DEPTH];
	stackdepot_lf_id_t id;
	bool first = false;

	make_stack(entries, depth, nr);
	if (stackdepot_lf_get_id_rcu(ptr, entries, depth, &id, &first))
		return -1;
	return first;
}

#define EPOCHS_DEPTH	6

/*
 * Per-CPU marks across their epochs, on one CPU: an entry of an older
 * epoch never matches, neither in the cycle of epochs it was written in
 * (each clearing starts the next epoch) nor in the next cycle, where its
 * epoch comes round again: stack 1000 + e, marked in epoch e of the
 * first cycle, is "first" again in epoch e of the second. The clearings
 * alternate between every CPU's marks and this CPU's.
 */
static void test_cpu_marks_epochs(struct kunit *test)
{
	struct stackdepot_lf_params p = {
		.max_records = 65536,
		.max_depth = TEST_DEPTH,
		.flags = STACKDEPOT_LF_CPU_MARKS,
	};
	unsigned int epochs = mark_epochs_for(&p), e, cycle;
	unsigned int failed = 0, missed = 0, wrong = 0;
	struct stackdepot_lf __rcu *ptr;
	struct stackdepot_lf *depot;
	int r;

	depot = create_depot(test, &p);
	RCU_INIT_POINTER(ptr, depot);
	for (e = 1; e <= epochs; e++)
		get_id_grown(test, depot, EPOCHS_DEPTH, 1000 + e);
	migrate_disable();
	for (cycle = 0; cycle < 2; cycle++) {
		for (e = 1; e <= epochs; e++) {
			r = mark_of(&ptr, EPOCHS_DEPTH, 1000 + e);
			failed += r < 0;
			/* The harmful error: "not first" since the clearing */
			wrong += r == 0;
			r = mark_of(&ptr, EPOCHS_DEPTH, 1000 + e);
			failed += r < 0;
			/* A second call in a row finds the entry just written */
			missed += r == 1;
			if (e & 1)
				stackdepot_lf_clear_marks(depot);
			else
				stackdepot_lf_clear_cpu_marks(depot);
		}
	}
	migrate_enable();
	KUNIT_EXPECT_EQ(test, failed, 0U);
	KUNIT_EXPECT_EQ(test, wrong, 0U);
	KUNIT_EXPECT_EQ(test, missed, 0U);
	kunit_info(test, "%u epochs per cycle, two cycles\n", epochs);
}

/* What cpu_marks_rounds() counted: errors, and harmless extra "first"s. */
struct marks_rounds {
	unsigned int failed;	/* a get_id that failed */
	unsigned int wrong;	/* "not first" with no "first" before it */
	unsigned int extra;	/* "first" again since the clearing */
};

/*
 * Store @nr stacks of @depth frames (seeds @seed on) in a depot of @p,
 * then, for each of @rounds rounds, clear the marks (the CPU's in even
 * rounds, the depot's in odd ones) and ask for the mark of @calls stacks
 * drawn at random, after every stack once in order if @in_order, on one
 * CPU. A call told "not first" must follow a call of the same stack told
 * "first" since the clearing.
 */
static void cpu_marks_rounds(struct kunit *test,
			     const struct stackdepot_lf_params *p,
			     unsigned int nr, unsigned int depth,
			     u32 seed, unsigned int rounds,
			     unsigned int calls, bool in_order, u64 rnd_seed,
			     struct marks_rounds *res)
{
	unsigned int round, c, i, first = in_order ? nr : 0;
	struct stackdepot_lf __rcu *ptr;
	struct stackdepot_lf *depot;
	struct rnd_state rnd;
	bool *told;
	int r;

	*res = (struct marks_rounds){};
	told = kunit_kcalloc(test, nr, sizeof(*told), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, told);
	depot = create_depot(test, p);
	RCU_INIT_POINTER(ptr, depot);
	for (i = 0; i < nr; i++)
		get_id_grown(test, depot, depth, seed + i);
	prandom_seed_state(&rnd, rnd_seed);
	for (round = 0; round < rounds; round++) {
		memset(told, 0, nr * sizeof(*told));
		migrate_disable();
		if (round & 1)
			stackdepot_lf_clear_marks(depot);
		else
			stackdepot_lf_clear_cpu_marks(depot);
		for (c = 0; c < first + calls; c++) {
			i = c < first ? c : prandom_u32_state(&rnd) % nr;
			r = mark_of(&ptr, depth, seed + i);
			if (r < 0)
				res->failed++;
			else if (r)
				res->extra += told[i];
			else if (!told[i])
				res->wrong++;
			told[i] |= r == 1;
		}
		migrate_enable();
	}
}

#define COLLIDE_STACKS	4096
#define COLLIDE_CALLS	(8 * COLLIDE_STACKS)
#define COLLIDE_ROUNDS	4
#define COLLIDE_DEPTH	8

/*
 * Per-CPU marks that collide: COLLIDE_STACKS stacks in a table of 16384
 * slots, 32 slots per set of four entries, called in a random order on
 * one CPU, for a few rounds each after a clearing. A call told "not
 * first" must follow a call of the same stack told "first" since the
 * clearing: a collision may only evict, and the evicted stack is told
 * "first" again, an extra definition that is counted and printed.
 */
static void test_cpu_marks_collisions(struct kunit *test)
{
	struct stackdepot_lf_params p = {
		.max_records = 8192,
		.max_depth = TEST_DEPTH,
		.flags = STACKDEPOT_LF_CPU_MARKS,
	};
	struct marks_rounds res;

	cpu_marks_rounds(test, &p, COLLIDE_STACKS, COLLIDE_DEPTH, 20000,
			 COLLIDE_ROUNDS, COLLIDE_CALLS, false, 49, &res);
	KUNIT_EXPECT_EQ(test, res.failed, 0U);
	KUNIT_EXPECT_EQ(test, res.wrong, 0U);
	kunit_info(test, "%u rounds of %u calls of %u stacks: %u extra firsts (evicted)\n",
		   COLLIDE_ROUNDS, COLLIDE_CALLS, COLLIDE_STACKS, res.extra);
}

#define DENSE_DEPTH	9
#define DENSE_STACKS	2048	/* what the largest cache holds */
#define DENSE_CALLS	8192

/*
 * Per-CPU marks are keyed by record number, and record numbers are dense:
 * a depot of the largest table whose DENSE_STACKS stacks fill its CPU's
 * cache exactly (512 sets of four) evicts none of them, so that in
 * random order, after each kind of clearing, every stack is told "first"
 * once and only once. Keyed by slot, stacks spread over the 32768 slots
 * would crowd some sets and be told "first" again.
 */
static void test_cpu_marks_dense(struct kunit *test)
{
	struct stackdepot_lf_params p = {
		.max_records = 16384,
		.max_depth = TEST_DEPTH,
		.flags = STACKDEPOT_LF_CPU_MARKS,
	};
	struct marks_rounds res;

	/* Every stack once, then at random */
	cpu_marks_rounds(test, &p, DENSE_STACKS, DENSE_DEPTH, 40000, 2,
			 DENSE_CALLS, true, 2048, &res);
	KUNIT_EXPECT_EQ(test, res.failed, 0U);
	KUNIT_EXPECT_EQ(test, res.wrong, 0U);
	KUNIT_EXPECT_EQ(test, res.extra, 0U);
}

#define NEST_DEPTH	7

/* What the sdlf_mark_window() stub of test_cpu_marks_nested() runs. */
static struct {
	struct stackdepot_lf __rcu *ptr;
	u32 nr;		/* the nested call's stack */
	bool clear;	/* the nested context clears its CPU's marks first */
	int first;	/* the nested call's answer, as mark_of(); -2 not run */
} nest;

/* The sdlf_mark_window() stub, once: a nested context's calls. */
static void nest_window(struct stackdepot_lf *depot, u32 pos)
{
	kunit_deactivate_static_stub(kunit_get_current_test(),
				     sdlf_mark_window);
	if (nest.clear)
		stackdepot_lf_clear_cpu_marks(depot);
	nest.first = mark_of(&nest.ptr, NEST_DEPTH, nest.nr);
}

/* The caller's call of stack @nr with the nested one armed; as mark_of(). */
static int nest_call(struct kunit *test, u32 nr, u32 nested_nr, bool clear)
{
	nest.nr = nested_nr;
	nest.clear = clear;
	nest.first = -2;
	kunit_activate_static_stub(test, sdlf_mark_window, nest_window);
	return mark_of(&nest.ptr, NEST_DEPTH, nr);
}

/*
 * A call nested in its CPU's update of the marks by another, as an
 * interrupt or NMI would run it between the caller's lookup and its write
 * (the sdlf_mark_window() stub, on the same thread). The nested call of
 * the same stack is told "first", as the caller is: it could not look;
 * the next call is not. A nested call of a stack its CPU was told "first"
 * for in the current epoch is a hit that needs no section: "not first".
 * Nested in the start of a new epoch (the stub's other point), before
 * the caller stored it, a call of a stack marked before the clearing is
 * "first". A clearing of the CPU's marks by the nested
 * context counts for the next call. And, at each of a few counts of
 * clearings around the end of a cycle of epochs, the nested context
 * clears and calls with a new stack, which would start the next cycle
 * and wipe the cache were it let in: the entry the caller writes must not
 * survive into that cycle, where its epoch comes round again, so the
 * caller's stack is "first" in every epoch of the next cycle.
 */
static void test_cpu_marks_nested(struct kunit *test)
{
	struct stackdepot_lf_params p = {
		.max_records = 65536,
		.max_depth = TEST_DEPTH,
		.flags = STACKDEPOT_LF_CPU_MARKS,
	};
	unsigned int epochs = mark_epochs_for(&p), e, failed = 0, wrong = 0;
	struct stackdepot_lf *depot;
	int r, off;

	depot = create_depot(test, &p);
	RCU_INIT_POINTER(nest.ptr, depot);
	get_id_grown(test, depot, NEST_DEPTH, 3000);
	get_id_grown(test, depot, NEST_DEPTH, 3001);
	get_id_grown(test, depot, NEST_DEPTH, 3002);
	migrate_disable();
	/* The same stack: both first, the next call not. */
	r = nest_call(test, 3000, 3000, false);
	KUNIT_EXPECT_EQ(test, r, 1);
	KUNIT_EXPECT_EQ(test, nest.first, 1);
	KUNIT_EXPECT_EQ(test, mark_of(&nest.ptr, NEST_DEPTH, 3000), 0);
	/* A nested hit, in the caller's section: its CPU marked it. */
	r = nest_call(test, 3001, 3000, false);
	KUNIT_EXPECT_EQ(test, r, 1);
	KUNIT_EXPECT_EQ(test, nest.first, 0);
	/* Nested in the new epoch's start: marked only before the clearing. */
	stackdepot_lf_clear_cpu_marks(depot);
	r = nest_call(test, 3001, 3000, false);
	KUNIT_EXPECT_EQ(test, r, 1);
	KUNIT_EXPECT_EQ(test, nest.first, 1);
	KUNIT_EXPECT_EQ(test, mark_of(&nest.ptr, NEST_DEPTH, 3000), 1);
	KUNIT_EXPECT_EQ(test, mark_of(&nest.ptr, NEST_DEPTH, 3001), 0);
	stackdepot_lf_clear_cpu_marks(depot);
	KUNIT_EXPECT_EQ(test, mark_of(&nest.ptr, NEST_DEPTH, 3000), 1);
	/* A nested clearing: the caller's mark does not outlive it. */
	r = nest_call(test, 3001, 3002, true);
	KUNIT_EXPECT_EQ(test, r, 1);
	KUNIT_EXPECT_EQ(test, nest.first, 1);
	KUNIT_EXPECT_EQ(test, mark_of(&nest.ptr, NEST_DEPTH, 3001), 1);
	KUNIT_EXPECT_EQ(test, mark_of(&nest.ptr, NEST_DEPTH, 3002), 1);
	KUNIT_EXPECT_EQ(test, mark_of(&nest.ptr, NEST_DEPTH, 3000), 1);
	migrate_enable();

	for (off = -2; off <= 2; off++) {
		depot = create_depot(test, &p);
		RCU_INIT_POINTER(nest.ptr, depot);
		get_id_grown(test, depot, NEST_DEPTH, 3000);
		get_id_grown(test, depot, NEST_DEPTH, 3001);
		migrate_disable();
		/* To the last epoch of the cycle, give or take @off */
		for (e = 1; e < epochs + off; e++) {
			stackdepot_lf_clear_cpu_marks(depot);
			failed += mark_of(&nest.ptr, NEST_DEPTH, 3001) < 0;
		}
		failed += nest_call(test, 3000, 3001, true) != 1;
		failed += nest.first != 1;
		/* Stack 3000 only after a cycle: every epoch of it once */
		for (e = 1; e <= epochs + 2; e++) {
			stackdepot_lf_clear_cpu_marks(depot);
			failed += mark_of(&nest.ptr, NEST_DEPTH, 3001) < 0;
		}
		for (e = 1; e <= epochs + 2; e++) {
			r = mark_of(&nest.ptr, NEST_DEPTH, 3000);
			failed += r < 0;
			wrong += r == 0;
			stackdepot_lf_clear_cpu_marks(depot);
		}
		migrate_enable();
	}
	KUNIT_EXPECT_EQ(test, failed, 0U);
	KUNIT_EXPECT_EQ(test, wrong, 0U);
}

#define UNMARK_CPUS	8

/*
 * A mark given back on any CPU but the first is that CPU's: the giver is
 * told "first" again, once, and no other CPU is. The workers run on every
 * online CPU, up to UNMARK_CPUS of them, and each gives one back in turn,
 * while every CPU's marks are checked after each.
 */
static void test_cpu_unmark_other(struct kunit *test)
{
	struct stackdepot_lf_params p = {
		.max_records = 1024,
		.max_depth = TEST_DEPTH,
		.flags = STACKDEPOT_LF_CPU_MARKS,
	};
	struct cpu_marks_worker *w;
	struct task_struct *task;
	struct stackdepot_lf *depot;
	unsigned int i, k, n, cpu;
	bool giver;

	if (num_online_cpus() < 2)
		kunit_skip(test, "needs two online CPUs, to unmark on another than the first");
	depot = create_depot(test, &p);
	n = min(num_online_cpus(), UNMARK_CPUS);
	w = kunit_kcalloc(test, n, sizeof(*w), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, w);
	cpu = cpumask_first(cpu_online_mask);
	for (i = 0; i < n; i++) {
		rcu_assign_pointer(w[i].depot, depot);
		init_completion(&w[i].go);
		init_completion(&w[i].done);
		task = start_kthread(test, cpu_marks_thread, &w[i], cpu,
				     "sdlf_cpu_unmark");
		wake_up_process(task);
		cpu = cpumask_next(cpu, cpu_online_mask);
	}

	for (i = 0; i < n; i++)
		KUNIT_EXPECT_TRUE(test, cpu_marks_do(test, &w[i], CPU_MARKS_GET));
	/* The last CPU first: the first CPU's bitmap is the depot's first. */
	for (k = n; k-- > 0; ) {
		cpu_marks_do(test, &w[k], CPU_MARKS_UNMARK);
		for (i = 0; i < n; i++) {
			giver = i == k;
			if (cpu_marks_do(test, &w[i], CPU_MARKS_GET) != giver)
				KUNIT_FAIL(test, "unmarked by worker %u of %u: worker %u told %s",
					   k, n, i, giver ? "not first" : "first");
		}
		KUNIT_EXPECT_FALSE(test, cpu_marks_do(test, &w[k],
						      CPU_MARKS_GET));
	}
	for (i = 1; i < n; i++)
		KUNIT_EXPECT_EQ(test, stackdepot_lf_id_to_u32(w[0].id),
				stackdepot_lf_id_to_u32(w[i].id));
}

static void test_refs_concurrent(struct kunit *test)
{
	struct refs_ctx *ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);
	struct task_struct **tasks;
	struct stackdepot_lf_stats stats;
	struct stackdepot_lf_info info;
	unsigned int i, cpu, n = 0;

	KUNIT_ASSERT_NOT_NULL(test, ctx);
	ctx->depot = create_default(test);
	ctx->nthreads = max(num_online_cpus(), 2U);
	init_completion(&ctx->all_done);
	tasks = kunit_kcalloc(test, ctx->nthreads, sizeof(*tasks), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, tasks);

	/* One CPU: the second thread shares it. */
	cpu = cpumask_first(cpu_online_mask);
	for (n = 0; n < ctx->nthreads; n++) {
		tasks[n] = start_kthread(test, refs_thread, ctx, cpu, "sdlf_refs");
		cpu = cpumask_next(cpu, cpu_online_mask);
	}
	for (i = 0; i < n; i++)
		wake_up_process(tasks[i]);
	KUNIT_EXPECT_NE(test, 0UL,
			wait_for_completion_timeout(&ctx->all_done, 120 * HZ));
	for (i = 0; i < n; i++)
		kunit_release_action(test, kthread_stop_action, tasks[i]);

	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->errors), 0);
	for (i = 0; i < REFS_STACKS; i++) {
		stackdepot_lf_id_t id = get_id(test, ctx->depot, 9, i);

		/* get_id() above made one more call. */
		KUNIT_ASSERT_EQ(test, 9, stackdepot_lf_lookup(ctx->depot, id, got_buf,
							      ARRAY_SIZE(got_buf),
							      &info));
		KUNIT_EXPECT_EQ(test, info.refs, n * REFS_CALLS + 1);
	}
	stackdepot_lf_stats(ctx->depot, &stats);
	KUNIT_EXPECT_EQ(test, stats.inserts, (u64)REFS_STACKS);
	KUNIT_EXPECT_EQ(test, stats.hits + stats.inserts,
			(u64)n * REFS_CALLS * REFS_STACKS + REFS_STACKS);
	KUNIT_EXPECT_EQ(test, stats.records, (u32)REFS_STACKS);
}

/*
 * Marks under contention: threads on every CPU start together on the same
 * new stacks, so that they race to store each and to set its mark; of all
 * their calls, exactly one per stack is told it set the mark. A second
 * round runs while the test thread clears the marks over and over: every
 * stack is then told first at least once more, and once more only after
 * the last clearing. A third races on the cleared marks of stored stacks.
 */
#define MARKS_STACKS	64
#define MARKS_ROUNDS	200

struct marks_ctx {
	struct stackdepot_lf __rcu *depot;
	atomic_t first[MARKS_STACKS];
	atomic_t errors;
	atomic_t started;
	atomic_t done;
	struct completion all_done;
	unsigned int nthreads;
};

static int marks_thread(void *arg)
{
	struct marks_ctx *ctx = arg;
	unsigned long entries[TEST_DEPTH];
	stackdepot_lf_id_t id;
	unsigned int i, nr;
	bool first;

	/* Start together: the first calls race to store the stacks. */
	atomic_inc(&ctx->started);
	while (atomic_read(&ctx->started) < ctx->nthreads)
		cond_resched();
	for (i = 0; i < MARKS_ROUNDS * MARKS_STACKS; i++) {
		nr = i % MARKS_STACKS;
		make_stack(entries, 12, 300 + nr);
		first = false;
		if (stackdepot_lf_get_id_rcu(&ctx->depot, entries, 12, &id,
					     &first))
			atomic_inc(&ctx->errors);
		else if (first)
			atomic_inc(&ctx->first[nr]);
		if (i % 64 == 0)
			cond_resched();
	}
	if (atomic_inc_return(&ctx->done) == ctx->nthreads)
		complete(&ctx->all_done);
	while (!kthread_should_stop())
		schedule_timeout_interruptible(1);
	return 0;
}

/* Run ctx->nthreads marks_thread()s, one per CPU, clearing while @clear. */
static void marks_round(struct kunit *test, struct marks_ctx *ctx,
			struct stackdepot_lf *depot, bool clear)
{
	struct task_struct **tasks;
	unsigned int i, cpu;

	atomic_set(&ctx->started, 0);
	atomic_set(&ctx->done, 0);
	init_completion(&ctx->all_done);
	tasks = kunit_kcalloc(test, ctx->nthreads, sizeof(*tasks), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, tasks);
	cpu = cpumask_first(cpu_online_mask);
	for (i = 0; i < ctx->nthreads; i++) {
		tasks[i] = start_kthread(test, marks_thread, ctx, cpu,
					 "sdlf_marks");
		cpu = cpumask_next(cpu, cpu_online_mask);
	}
	for (i = 0; i < ctx->nthreads; i++)
		wake_up_process(tasks[i]);
	while (clear && atomic_read(&ctx->done) < ctx->nthreads) {
		stackdepot_lf_clear_marks(depot);
		usleep_range(50, 100);
	}
	KUNIT_EXPECT_NE(test, 0UL,
			wait_for_completion_timeout(&ctx->all_done, 120 * HZ));
	for (i = 0; i < ctx->nthreads; i++)
		kunit_release_action(test, kthread_stop_action, tasks[i]);
}

static void test_marks_concurrent(struct kunit *test)
{
	struct marks_ctx *ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);
	struct stackdepot_lf *depot;
	struct stackdepot_lf_stats stats;
	unsigned int i, once = 0, some = 0;
	stackdepot_lf_id_t id;

	KUNIT_ASSERT_NOT_NULL(test, ctx);
	depot = create_default(test);
	rcu_assign_pointer(ctx->depot, depot);
	/* One CPU: the second thread shares it. */
	ctx->nthreads = max(num_online_cpus(), 2U);

	marks_round(test, ctx, depot, false);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->errors), 0);
	for (i = 0; i < MARKS_STACKS; i++)
		once += atomic_read(&ctx->first[i]) == 1;
	KUNIT_EXPECT_EQ(test, once, MARKS_STACKS);
	stackdepot_lf_stats(depot, &stats);
	KUNIT_EXPECT_EQ(test, stats.records, (u32)MARKS_STACKS);

	for (i = 0; i < MARKS_STACKS; i++)
		atomic_set(&ctx->first[i], 0);
	marks_round(test, ctx, depot, true);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->errors), 0);
	for (i = 0; i < MARKS_STACKS; i++)
		some += atomic_read(&ctx->first[i]) >= 1;
	KUNIT_EXPECT_EQ(test, some, MARKS_STACKS);

	/*
	 * Stored stacks whose marks were cleared: the threads race on the
	 * marks alone, and again exactly one call per stack is told first
	 * (a stack its user would define twice otherwise).
	 */
	stackdepot_lf_clear_marks(depot);
	for (i = 0; i < MARKS_STACKS; i++)
		atomic_set(&ctx->first[i], 0);
	marks_round(test, ctx, depot, false);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->errors), 0);
	once = 0;
	for (i = 0; i < MARKS_STACKS; i++)
		once += atomic_read(&ctx->first[i]) == 1;
	KUNIT_EXPECT_EQ(test, once, MARKS_STACKS);

	stackdepot_lf_clear_marks(depot);
	for (i = 0; i < MARKS_STACKS; i++) {
		KUNIT_EXPECT_TRUE(test, get_id_marked(test, &ctx->depot, 12,
						      300 + i, &id));
		KUNIT_EXPECT_FALSE(test, get_id_marked(test, &ctx->depot, 12,
						       300 + i, &id));
	}
}

/*
 * Stress: inserter threads draw from an overlapping set of stacks while a
 * resetter empties the depot. Every id must resolve to the stack that
 * produced it or be stale, and no generation may give one stack two ids:
 * the first id seen for (generation, stack) is recorded and every later one
 * must match it.
 */
#define STRESS_STACKS	128
/* Generations of one stress run: the resetter stops before this many. */
#define STRESS_GENS	4096
#define STRESS_OPS	200000
#define STRESS_TIME	(HZ / 2)

struct stress {
	struct kunit *test;
	struct stackdepot_lf *depot;
	/* first id seen per generation (tag - @tag0) and stack */
	u32 *first;
	u32 tag0;
	atomic_t running;
	atomic_t errors;
	/*
	 * Resets started and finished: a lookup must resolve when no reset
	 * was under way from before its get_id to after it.
	 */
	atomic_t resets_begun;
	atomic_t resets_done;
	atomic_long_t calls;
	atomic_long_t ok;
	atomic_long_t stale;
	atomic_long_t dup;
	unsigned int resets;
};

struct stress_thread {
	struct stress *s;
	struct task_struct *task;
	u32 seed;
};

static int stress_insert(void *arg)
{
	struct stress_thread *t = arg;
	struct stress *s = t->s;
	unsigned long entries[TEST_DEPTH], got[TEST_DEPTH];
	unsigned long end = jiffies + STRESS_TIME;
	struct rnd_state rnd;
	unsigned int i;

	prandom_seed_state(&rnd, t->seed);
	for (i = 0; i < STRESS_OPS && time_before(jiffies, end); i++) {
		u32 nr = prandom_u32_state(&rnd) % STRESS_STACKS;
		unsigned int depth = 1 + nr % TEST_DEPTH;
		stackdepot_lf_id_t id;
		u32 raw, prev, gen, *first;
		int ret, done;

		make_stack(entries, depth, nr);
		atomic_long_inc(&s->calls);
		/* Pairs with the second atomic_inc_return() in stress_reset(). */
		done = atomic_read_acquire(&s->resets_done);
		if (stackdepot_lf_get_id(s->depot, entries, depth, &id))
			continue;
		atomic_long_inc(&s->ok);
		raw = stackdepot_lf_id_to_u32(id);
		/* One depot resets here: its tags go up one at a time. */
		gen = stackdepot_lf_id_gen(s->depot, id) - s->tag0;
		if (gen >= STRESS_GENS) {
			atomic_inc(&s->errors);
			continue;
		}
		first = &s->first[gen * STRESS_STACKS + nr];
		prev = cmpxchg(first, 0, raw);
		if (prev && prev != raw) {
			atomic_long_inc(&s->dup);
			atomic_inc(&s->errors);
		}

		ret = stackdepot_lf_lookup(s->depot, id, got, TEST_DEPTH, NULL);
		/*
		 * The lookup's loads, then the count of resets begun; pairs
		 * with the first atomic_inc_return() in stress_reset().
		 */
		smp_rmb();
		if (ret == -ESTALE &&
		    atomic_read(&s->resets_begun) != done) {
			atomic_long_inc(&s->stale);
		} else if (ret != depth ||
			   memcmp(got, entries, depth * sizeof(*got))) {
			atomic_inc(&s->errors);
		}
		if (i % 16 == 0)
			cond_resched();
	}
	atomic_dec(&s->running);
	while (!kthread_should_stop())
		schedule_timeout_interruptible(1);
	return 0;
}

static int stress_reset(void *arg)
{
	struct stress *s = arg;

	while (atomic_read(&s->running) && !kthread_should_stop() &&
	       s->resets < STRESS_GENS - 2) {
		usleep_range(500, 1000);
		/* Fully ordered: before the reset marks the depot busy... */
		atomic_inc_return(&s->resets_begun);
		stackdepot_lf_reset(s->depot);
		/* ...and after it published the new generation. */
		atomic_inc_return(&s->resets_done);
		s->resets++;
	}
	while (!kthread_should_stop())
		schedule_timeout_interruptible(1);
	return 0;
}

/*
 * Growth racing get_id on every CPU and resets: one kthread per online
 * CPU (at least two) stores ever new stacks into a depot of small chunks,
 * so that growth runs all along, while the resetter empties it at longer
 * and longer intervals, so that each generation needs more chunks than
 * the one before. Every id must resolve to its stack unless a reset ran
 * in between, and the chunk accounting must add up at the end.
 */
#define GROW_TIME	(HZ / 2)

struct grow_ctx {
	struct stackdepot_lf *depot;
	atomic_t running;
	atomic_t errors;
	atomic_t resets_begun;
	atomic_t resets_done;
	atomic_long_t calls;
};

struct grow_thread {
	struct grow_ctx *ctx;
	struct task_struct *task;
	u32 nr;
};

static int grow_insert(void *arg)
{
	struct grow_thread *t = arg;
	struct grow_ctx *ctx = t->ctx;
	unsigned long entries[TEST_DEPTH], got[TEST_DEPTH];
	unsigned long end = jiffies + GROW_TIME;
	u32 i;

	for (i = 0; time_before(jiffies, end); i++) {
		/* A new stack every call: thread and call in the number. */
		u32 nr = t->nr << 20 | (i & 0xfffff);
		unsigned int depth = 1 + i % TEST_DEPTH;
		stackdepot_lf_id_t id;
		int ret, done;

		make_stack(entries, depth, nr);
		atomic_long_inc(&ctx->calls);
		/* Pairs with the second atomic_inc_return() in grow_reset(). */
		done = atomic_read_acquire(&ctx->resets_done);
		ret = stackdepot_lf_get_id(ctx->depot, entries, depth, &id);
		if (ret == -ENOSPC) {
			/*
			 * Let growth run, as a workload that sleeps now and
			 * then does: on one CPU, a kthread that only calls
			 * cond_resched() may starve the work item.
			 */
			usleep_range(20, 50);
			continue;
		}
		if (ret)
			continue;
		ret = stackdepot_lf_lookup(ctx->depot, id, got, TEST_DEPTH, NULL);
		/* Pairs with the first atomic_inc_return() in grow_reset(). */
		smp_rmb();
		if (ret == -ESTALE && atomic_read(&ctx->resets_begun) != done)
			continue;
		if (ret != depth || memcmp(got, entries, depth * sizeof(*got)))
			atomic_inc(&ctx->errors);
		if (i % 16 == 0)
			cond_resched();
	}
	atomic_dec(&ctx->running);
	while (!kthread_should_stop())
		schedule_timeout_interruptible(1);
	return 0;
}

static int grow_reset(void *arg)
{
	struct grow_ctx *ctx = arg;
	unsigned int us = 500;

	do {
		usleep_range(us, 2 * us);
		us = min(2 * us, 64000U);
		/* Fully ordered: before the reset marks the depot busy... */
		atomic_inc_return(&ctx->resets_begun);
		stackdepot_lf_reset(ctx->depot);
		/* ...and after it published the new generation. */
		atomic_inc_return(&ctx->resets_done);
	} while (atomic_read(&ctx->running) && !kthread_should_stop());
	while (!kthread_should_stop())
		schedule_timeout_interruptible(1);
	return 0;
}

static void test_growth_concurrent(struct kunit *test)
{
	struct stackdepot_lf_params p = {
		.max_records = 16384,
		.max_depth = TEST_DEPTH,
		.expected_depth = 1,
		.flags = STACKDEPOT_LF_COUNT_REFS,
	};
	struct grow_ctx *ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);
	struct stackdepot_lf_stats stats;
	struct grow_thread *threads;
	struct task_struct *resetter;
	unsigned int i, n = 0, cpu, nthreads;

	KUNIT_ASSERT_NOT_NULL(test, ctx);
	nthreads = max(num_online_cpus(), 2U);
	threads = kunit_kcalloc(test, nthreads, sizeof(*threads), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, threads);
	ctx->depot = create_depot(test, &p);
	atomic_set(&ctx->running, nthreads);

	/* One CPU: the second thread shares it. */
	cpu = cpumask_first(cpu_online_mask);
	for (n = 0; n < nthreads; n++) {
		threads[n] = (struct grow_thread){ .ctx = ctx, .nr = n };
		threads[n].task = start_kthread(test, grow_insert, &threads[n],
						cpu, "sdlf_grow");
		cpu = cpumask_next(cpu, cpu_online_mask);
	}
	resetter = start_kthread(test, grow_reset, ctx, nr_cpu_ids,
				 "sdlf_grow_reset");
	for (i = 0; i < n; i++)
		wake_up_process(threads[i].task);
	wake_up_process(resetter);

	for (i = 0; i < 60 * 50 && atomic_read(&ctx->running); i++)
		msleep(20);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->running), 0);
	for (i = 0; i < n; i++)
		kunit_release_action(test, kthread_stop_action, threads[i].task);
	kunit_release_action(test, kthread_stop_action, resetter);
	sdlf_grow_flush(ctx->depot);

	stackdepot_lf_stats(ctx->depot, &stats);
	kunit_info(test, "%u threads: %ld calls, %llu inserts, %llu waiting for growth, %llu full, %u chunks, %llu resets\n",
		   n, atomic_long_read(&ctx->calls), stats.inserts,
		   stats.drops_grow, stats.drops_full, stats.chunks,
		   stats.resets);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->errors), 0);
	KUNIT_EXPECT_GT(test, stats.chunks, 2U);
	KUNIT_EXPECT_GT(test, stats.resets, 0ULL);
	KUNIT_EXPECT_EQ(test, calls_counted(&stats), (u64)atomic_long_read(&ctx->calls));
	/* The chunks added, and counter blocks and directories besides. */
	KUNIT_EXPECT_GE(test, stats.mem_allocated,
			(u64)stackdepot_lf_mem_size(&p) +
			(u64)(stats.chunks - 2) * stats.chunk_size);
	KUNIT_EXPECT_LE(test, stats.arena_used,
			(u64)stats.chunks * stats.chunk_size);
	expect_arena_adds_up(test, ctx->depot);
}

static const unsigned int stress_threads[] = { 2, 4, 8 };

static void stress_desc(const unsigned int *n, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%u inserters", *n);
}

KUNIT_ARRAY_PARAM(stress_threads, stress_threads, stress_desc);

static void test_stress(struct kunit *test)
{
	unsigned int nthreads = *(const unsigned int *)test->param_value;
	struct stackdepot_lf_params p = {
		/* Room for half the stacks: drops happen too. */
		.max_records = STRESS_STACKS / 2,
		.max_depth = TEST_DEPTH,
		/* Small chunks: growth runs while the inserters do. */
		.expected_depth = 1,
		.flags = STACKDEPOT_LF_COUNT_REFS,
	};
	struct stackdepot_lf_stats stats;
	struct stackdepot_lf_iter iter;
	struct stackdepot_lf_info info;
	unsigned long entries[TEST_DEPTH];
	struct stress_thread *threads;
	struct task_struct *resetter;
	u32 *seen_ids;
	struct stress *s;
	unsigned int i, n;
	int ret;

	s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);
	threads = kunit_kcalloc(test, nthreads, sizeof(*threads), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, s);
	KUNIT_ASSERT_NOT_NULL(test, threads);
	s->first = vzalloc(STRESS_GENS * STRESS_STACKS *
			   sizeof(u32));
	KUNIT_ASSERT_NOT_NULL(test, s->first);
	KUNIT_ASSERT_EQ(test, 0,
			kunit_add_action_or_reset(test, vfree_action, s->first));
	s->test = test;
	s->depot = create_depot(test, &p);
	s->tag0 = stackdepot_lf_generation(s->depot);
	atomic_set(&s->running, nthreads);

	for (i = 0; i < nthreads; i++) {
		threads[i].s = s;
		threads[i].seed = 1000 + i;
		threads[i].task = start_kthread(test, stress_insert, &threads[i],
						nr_cpu_ids, "sdlf_ins");
	}
	resetter = start_kthread(test, stress_reset, s, nr_cpu_ids,
				 "sdlf_reset");
	for (i = 0; i < nthreads; i++)
		wake_up_process(threads[i].task);
	wake_up_process(resetter);

	for (i = 0; i < 60 * 50 && atomic_read(&s->running); i++)
		msleep(20);
	KUNIT_EXPECT_EQ(test, atomic_read(&s->running), 0);
	for (i = 0; i < nthreads; i++)
		kunit_release_action(test, kthread_stop_action, threads[i].task);
	kunit_release_action(test, kthread_stop_action, resetter);

	KUNIT_EXPECT_EQ(test, atomic_long_read(&s->dup), 0L);
	KUNIT_EXPECT_EQ(test, atomic_read(&s->errors), 0);
	KUNIT_EXPECT_GT(test, atomic_long_read(&s->ok), 0L);
	/* Stats account for every call. */
	stackdepot_lf_stats(s->depot, &stats);
	kunit_info(test, "%u inserters: %ld calls, %ld ids, %ld stale, %u resets, %u chunks, %llu waiting for growth\n",
		   nthreads, atomic_long_read(&s->calls),
		   atomic_long_read(&s->ok), atomic_long_read(&s->stale),
		   s->resets, stats.chunks, stats.drops_grow);
	/* It grew past the two chunks it started with. */
	KUNIT_EXPECT_GT(test, stats.chunks, 2U);
	KUNIT_EXPECT_EQ(test, calls_counted(&stats), (u64)atomic_long_read(&s->calls));
	KUNIT_EXPECT_EQ(test, stats.hits + stats.inserts,
			(u64)atomic_long_read(&s->ok));
	KUNIT_EXPECT_EQ(test, stats.resets, (u64)s->resets);

	/* The final generation holds each stack at most once. */
	seen_ids = kunit_kcalloc(test, STRESS_STACKS, sizeof(u32), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, seen_ids);
	n = 0;
	stackdepot_lf_iter_start(&iter, s->depot);
	while ((ret = stackdepot_lf_iter_next(&iter, entries, TEST_DEPTH,
					      &info)) > 0) {
		u32 nr = (entries[0] - 0x81000000UL) >> 12;

		KUNIT_ASSERT_LT(test, nr, (u32)STRESS_STACKS);
		KUNIT_EXPECT_EQ(test, seen_ids[nr], 0U);
		seen_ids[nr] = stackdepot_lf_id_to_u32(info.id);
		n++;
	}
	KUNIT_EXPECT_EQ(test, ret, 0);
	KUNIT_EXPECT_EQ(test, n, stats.records);
	/* Lost races and chunk ends were counted exactly. */
	expect_arena_adds_up(test, s->depot);
}

static struct kunit_case stackdepot_lf_cases[] = {
	KUNIT_CASE(test_round_trip),
	KUNIT_CASE(test_same_and_different),
	KUNIT_CASE(test_depth_limits),
	KUNIT_CASE(test_invalid),
	KUNIT_CASE_PARAM(test_create_params, param_cases_gen_params),
	KUNIT_CASE(test_collisions),
	KUNIT_CASE(test_collisions_wrap),
	KUNIT_CASE(test_frame_compare),
	KUNIT_CASE(test_fill_records),
	KUNIT_CASE(test_fill_arena),
	KUNIT_CASE(test_chunk_ends),
	KUNIT_CASE(test_growth_stalled),
	KUNIT_CASE(test_growth_keeps_ahead),
	KUNIT_CASE(test_initial_records),
	KUNIT_CASE(test_growth_to_cap),
	KUNIT_CASE(test_reset_keeps_chunks),
	KUNIT_CASE(test_directory_growth),
	KUNIT_CASE(test_ref_blocks),
	KUNIT_CASE(test_lost_race_accounting),
	KUNIT_CASE(test_lost_race_reused),
	KUNIT_CASE(test_get_id_rcu),
	KUNIT_CASE(test_marks),
	KUNIT_CASE(test_cpu_marks),
	KUNIT_CASE(test_cpu_unmark_other),
	KUNIT_CASE(test_clear_marks_cost),
	KUNIT_CASE(test_cpu_marks_epochs),
	KUNIT_CASE(test_cpu_marks_collisions),
	KUNIT_CASE(test_cpu_marks_dense),
	KUNIT_CASE(test_cpu_marks_nested),
	KUNIT_CASE(test_marks_lost_race),
	KUNIT_CASE(test_reset),
	KUNIT_CASE(test_ids_system_wide),
	KUNIT_CASE(test_generation_wrap),
	KUNIT_CASE(test_last_stack_hint),
	KUNIT_CASE(test_hint_last_frame),
	KUNIT_CASE(test_ids_skip_live_ranges),
	KUNIT_CASE(test_ids_wrap_sizes),
	KUNIT_CASE(test_ids_held_until_released),
	KUNIT_CASE(test_ids_after_destroy),
	KUNIT_CASE(test_arena_limit),
	KUNIT_CASE(test_mem_size),
	KUNIT_CASE(test_iterator),
	KUNIT_CASE(test_stats_add_up),
	KUNIT_CASE(test_hardirq),
	KUNIT_CASE(test_refs_concurrent),
	KUNIT_CASE(test_marks_concurrent),
	KUNIT_CASE_ATTR(test_growth_concurrent, { .speed = KUNIT_SPEED_SLOW }),
	KUNIT_CASE_PARAM_ATTR(test_stress, stress_threads_gen_params,
			      { .speed = KUNIT_SPEED_SLOW }),
	{}
};

static struct kunit_suite stackdepot_lf_suite = {
	.name = "stackdepot_lf",
	.test_cases = stackdepot_lf_cases,
};

kunit_test_suite(stackdepot_lf_suite);

MODULE_DESCRIPTION("KUnit tests for the lock-free stack depot");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
