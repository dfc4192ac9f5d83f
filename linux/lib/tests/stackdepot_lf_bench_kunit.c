// SPDX-License-Identifier: GPL-2.0
/*
 * Benchmark of stackdepot_lf against the kernel's stack depot
 * (lib/stackdepot.c) and against the copy of a full stack that an id
 * replaces in the ring buffer.
 *
 * The workload is that of lib/tests/stackdepot_lf_bench.h, which userspace
 * benchmarks on the harness's shim share. Every round times each operation
 * once, in a fixed order, so that all of them see the same state of a
 * shared, noisy machine; a figure is the median over the rounds of ns per
 * call. The insert rounds come after the others, as they grow the stack
 * depot for good: its inserts find its buckets fuller each round (8192
 * more stacks a round), where stackdepot_lf is reset before each. Ratios
 * between rows of one run are what to compare; absolute times are not.
 *
 * Nothing here asserts a time. The cases assert that every call succeeded
 * and returned the id, handle or stack it should have, and print one
 * "op=... ns_per_call=..." line per operation, for scripts to collect.
 * The figures mean something only in a kernel without sanitizers; UML
 * runs kernel code at native speed:
 *
 *	./tools/testing/kunit/kunit.py run \
 *		--kconfig_add CONFIG_STACKDEPOT_LF_BENCH_KUNIT_TEST=y \
 *		'stackdepot_lf_bench'
 */

#include <kunit/test.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/moduleparam.h>
#include <linux/random.h>
#include <linux/sort.h>
#include <linux/stackdepot.h>
#include <linux/stackdepot_lf.h>
#include <linux/string.h>
#include <linux/vmalloc.h>

#include "stackdepot_lf_bench.h"
#include "../stackdepot_lf/stackdepot_lf_internal.h"

/*
 * Each round stores two sets of new stacks in the stack depot for good,
 * about 1.5 MiB; 51 rounds stay well below its limit of 8192 pools.
 */
#define BENCH_MAX_ROUNDS	51
/* Inserts between two stack depot pool refills; see time_sd_insert(). */
#define BENCH_NOALLOC_BATCH	32
/*
 * Rings for the copy baseline: one that stays in the cache, and one much
 * larger than it, as a trace buffer is, so that every copy writes lines
 * that are not cached.
 */
#define BENCH_RING_LONGS	(64 * 1024 / sizeof(unsigned long))
#define BENCH_BIG_RING_LONGS	(64 * 1024 * 1024 / sizeof(unsigned long))
/* The stack depot's record for @depth frames, as depot_alloc_stack() sizes it */
#define SD_RECORD_SIZE(depth) \
	ALIGN(offsetof(struct stack_record, entries) + \
	      (depth) * sizeof(unsigned long), 1 << DEPOT_STACK_ALIGN)

static unsigned int rounds = 15;
module_param(rounds, uint, 0444);
MODULE_PARM_DESC(rounds, "timed rounds per operation (1-51, default 15)");

static unsigned long long seed = 1;
module_param(seed, ullong, 0444);
MODULE_PARM_DESC(seed, "workload seed (default 1)");

enum bench_op {
	OP_COPY,
	OP_COPY_BIG,
	OP_LF_HIT,
	OP_LF_HIT_REFS,
	OP_SD_HIT,
	OP_LF_INSERT,
	OP_SD_INSERT,
	OP_SD_INSERT_NOALLOC,
	OP_LF_LOOKUP,
	OP_SD_FETCH,
	NR_OPS,
};

/* @ref: the stack depot operation the row is compared with. */
static const struct {
	const char *name;
	enum bench_op ref;
} bench_ops[NR_OPS] = {
	[OP_COPY]		= { "full_stack_copy",		OP_SD_HIT },
	[OP_COPY_BIG]		= { "full_stack_copy_64m_ring",	OP_SD_HIT },
	[OP_LF_HIT]		= { "lf_get_id_hit",		OP_SD_HIT },
	[OP_LF_HIT_REFS]	= { "lf_get_id_hit_refs",	OP_SD_HIT },
	[OP_SD_HIT]		= { "stack_depot_save_hit",	OP_SD_HIT },
	[OP_LF_INSERT]		= { "lf_get_id_insert",		OP_SD_INSERT },
	[OP_SD_INSERT]		= { "stack_depot_save_insert",	OP_SD_INSERT },
	[OP_SD_INSERT_NOALLOC]	= { "stack_depot_save_insert_noalloc",
				    OP_SD_INSERT },
	[OP_LF_LOOKUP]		= { "lf_lookup",		OP_SD_FETCH },
	[OP_SD_FETCH]		= { "stack_depot_fetch_copy",	OP_SD_FETCH },
};

struct bench {
	unsigned long *frames;		/* the workload's stacks */
	u32 *depth;
	u32 *seq;			/* the order of the calls */
	unsigned long *salted;		/* new copies of the stacks */
	u64 salt;			/* last salt used; never reused */
	u64 total_depth;
	stackdepot_lf_id_t *ids;
	stackdepot_lf_id_t *ids_refs;
	depot_stack_handle_t *handles;
	struct stackdepot_lf *lf, *lf_refs, *lf_insert;
	unsigned long *ring, *big_ring;
	unsigned long big_pos;		/* the big ring is walked across rounds */
	unsigned long buf[SDLF_BENCH_MAX_DEPTH];
	unsigned int errors;		/* calls that did not do their job */
	unsigned int noalloc_failed;
	/* Picoseconds per call, per operation and round */
	u64 ps[NR_OPS][BENCH_MAX_ROUNDS];
};

static inline unsigned long *stack_of(unsigned long *frames, u32 s)
{
	return frames + (size_t)s * SDLF_BENCH_MAX_DEPTH;
}

static u64 ps_per_call(u64 t0, unsigned long calls)
{
	return div64_u64((ktime_get_ns() - t0) * 1000, calls);
}

static u64 time_copy(struct bench *b, unsigned long *ring, size_t longs,
		     unsigned long *posp)
{
	unsigned long pos = *posp;
	u64 t0 = ktime_get_ns();
	unsigned int i;
	u32 s;

	/* What a TRACE_STACK event takes: a header word and the frames. */
	for (i = 0; i < SDLF_BENCH_SEQ; i++) {
		s = b->seq[i];
		if (pos + 1 + b->depth[s] > longs)
			pos = 0;
		ring[pos] = b->depth[s];
		memcpy(&ring[pos + 1], stack_of(b->frames, s),
		       b->depth[s] * sizeof(unsigned long));
		pos += 1 + b->depth[s];
	}
	*posp = pos;
	return ps_per_call(t0, SDLF_BENCH_SEQ);
}

/*
 * One loop per operation, alike on purpose: an indirect call per
 * operation (a retpoline, with mitigations) would cost about as much as
 * the cheapest operations timed.
 */
static u64 time_lf_hit(struct bench *b, struct stackdepot_lf *depot,
		       const stackdepot_lf_id_t *ids)
{
	u64 t0 = ktime_get_ns();
	stackdepot_lf_id_t id;
	unsigned int i;
	u32 s;

	for (i = 0; i < SDLF_BENCH_SEQ; i++) {
		s = b->seq[i];
		if (stackdepot_lf_get_id(depot, stack_of(b->frames, s),
					 b->depth[s], &id) || id != ids[s])
			b->errors++;
	}
	return ps_per_call(t0, SDLF_BENCH_SEQ);
}

static u64 time_sd_hit(struct bench *b)
{
	u64 t0 = ktime_get_ns();
	unsigned int i;
	u32 s;

	for (i = 0; i < SDLF_BENCH_SEQ; i++) {
		s = b->seq[i];
		if (stack_depot_save(stack_of(b->frames, s), b->depth[s],
				     GFP_KERNEL) != b->handles[s])
			b->errors++;
	}
	return ps_per_call(t0, SDLF_BENCH_SEQ);
}

static u64 time_lf_lookup(struct bench *b)
{
	u64 t0 = ktime_get_ns();
	unsigned int i;
	u32 s;

	for (i = 0; i < SDLF_BENCH_SEQ; i++) {
		s = b->seq[i];
		if (stackdepot_lf_lookup(b->lf, b->ids[s], b->buf,
					 ARRAY_SIZE(b->buf), NULL) != b->depth[s])
			b->errors++;
	}
	return ps_per_call(t0, SDLF_BENCH_SEQ);
}

static u64 time_sd_fetch(struct bench *b)
{
	u64 t0 = ktime_get_ns();
	unsigned long *entries;
	unsigned int i, n;
	u32 s;

	/* Copied out, as lookup does, so that both leave the same result. */
	for (i = 0; i < SDLF_BENCH_SEQ; i++) {
		s = b->seq[i];
		n = stack_depot_fetch(b->handles[s], &entries);
		if (n != b->depth[s]) {
			b->errors++;
			continue;
		}
		memcpy(b->buf, entries, n * sizeof(unsigned long));
	}
	return ps_per_call(t0, SDLF_BENCH_SEQ);
}

/*
 * Copies of all the stacks that neither depot has seen: the innermost
 * frame of each gets a salt of its own, never used before.
 */
static void make_salted(struct bench *b)
{
	u32 s;

	b->salt++;
	memcpy(b->salted, b->frames, (size_t)SDLF_BENCH_STACKS *
	       SDLF_BENCH_MAX_DEPTH * sizeof(unsigned long));
	for (s = 0; s < SDLF_BENCH_STACKS; s++)
		stack_of(b->salted, s)[0] ^= b->salt << 32;
}

/* Inserts into an empty depot of the same capacity as the others. */
static u64 time_lf_insert(struct bench *b)
{
	stackdepot_lf_id_t id;
	unsigned int s;
	u64 t0;

	stackdepot_lf_reset(b->lf_insert);
	t0 = ktime_get_ns();
	for (s = 0; s < SDLF_BENCH_STACKS; s++)
		if (stackdepot_lf_get_id(b->lf_insert, stack_of(b->salted, s),
					 b->depth[s], &id))
			b->errors++;
	return ps_per_call(t0, SDLF_BENCH_STACKS);
}

/*
 * Without STACK_DEPOT_FLAG_CAN_ALLOC, an insert succeeds only while the
 * current pool and the spare pool have room. Before every batch, one
 * untimed insert that may allocate refills the spare pool, and a batch
 * (at most BENCH_NOALLOC_BATCH records of SDLF_BENCH_MAX_DEPTH frames)
 * fits in one pool, so every timed insert can succeed.
 */
static u64 time_sd_insert(struct bench *b, bool can_alloc)
{
	depot_flags_t flags = can_alloc ? STACK_DEPOT_FLAG_CAN_ALLOC : 0;
	unsigned long primer;
	u64 ns = 0, t0;
	unsigned int s, end;

	BUILD_BUG_ON(BENCH_NOALLOC_BATCH * SD_RECORD_SIZE(SDLF_BENCH_MAX_DEPTH) >
		     DEPOT_POOL_SIZE);

	for (s = 0; s < SDLF_BENCH_STACKS; s = end) {
		end = can_alloc ? SDLF_BENCH_STACKS :
				  min(s + BENCH_NOALLOC_BATCH, SDLF_BENCH_STACKS);
		if (!can_alloc) {
			primer = SDLF_BENCH_TEXT ^ (b->salt << 32) ^ s;
			stack_depot_save(&primer, 1, GFP_KERNEL);
		}
		t0 = ktime_get_ns();
		for (; s < end; s++) {
			if (stack_depot_save_flags(stack_of(b->salted, s),
						   b->depth[s], GFP_KERNEL,
						   flags))
				continue;
			if (can_alloc)
				b->errors++;
			else
				b->noalloc_failed++;
		}
		ns += ktime_get_ns() - t0;
	}
	return div64_u64(ns * 1000, SDLF_BENCH_STACKS);
}

KUNIT_DEFINE_ACTION_WRAPPER(destroy_action, stackdepot_lf_destroy,
			    struct stackdepot_lf *);
KUNIT_DEFINE_ACTION_WRAPPER(vfree_action, vfree, const void *);

static void *bench_vzalloc(struct kunit *test, size_t size)
{
	void *p = vzalloc(size);

	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_ASSERT_EQ(test, 0, kunit_add_action_or_reset(test, vfree_action, p));
	return p;
}

static struct stackdepot_lf *bench_depot(struct kunit *test, unsigned int flags)
{
	struct stackdepot_lf_params params = {
		.max_records	= 2 * SDLF_BENCH_STACKS,
		.max_depth	= SDLF_BENCH_MAX_DEPTH,
		.flags		= flags,
	};
	struct stackdepot_lf *depot = stackdepot_lf_create(&params);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, depot);
	KUNIT_ASSERT_EQ(test, 0, kunit_add_action_or_reset(test, destroy_action,
							   depot));
	return depot;
}

/*
 * Build the workload and store every stack once in each depot. The stack
 * depot is global and never forgets: a second case finds the stacks the
 * first one stored, with the same handles.
 */
static int bench_init(struct kunit *test)
{
	size_t frames = (size_t)SDLF_BENCH_STACKS * SDLF_BENCH_MAX_DEPTH *
			sizeof(unsigned long);
	struct stackdepot_lf_info info;
	struct bench *b;
	u32 s;

	KUNIT_ASSERT_GE(test, rounds, 1U);
	KUNIT_ASSERT_LE(test, rounds, BENCH_MAX_ROUNDS);
	KUNIT_ASSERT_EQ(test, 0, stack_depot_init());

	b = bench_vzalloc(test, sizeof(*b));
	b->frames = bench_vzalloc(test, frames);
	b->salted = bench_vzalloc(test, frames);
	b->depth = bench_vzalloc(test, SDLF_BENCH_STACKS * sizeof(u32));
	b->seq = bench_vzalloc(test, SDLF_BENCH_SEQ * sizeof(u32));
	b->ids = bench_vzalloc(test, SDLF_BENCH_STACKS * sizeof(*b->ids));
	b->ids_refs = bench_vzalloc(test, SDLF_BENCH_STACKS * sizeof(*b->ids));
	b->handles = bench_vzalloc(test, SDLF_BENCH_STACKS * sizeof(*b->handles));
	b->ring = bench_vzalloc(test, BENCH_RING_LONGS * sizeof(unsigned long));
	b->big_ring = bench_vzalloc(test, BENCH_BIG_RING_LONGS * sizeof(unsigned long));

	b->total_depth = sdlf_bench_make_stacks(seed, b->frames, b->depth);
	sdlf_bench_make_seq(seed, bench_vzalloc(test, SDLF_BENCH_STACKS * sizeof(u64)),
			    b->seq);
	/* Salts of earlier cases are in the stack depot already. */
	b->salt = (u64)(get_random_u32() & 0xfffff) << 12;

	b->lf = bench_depot(test, 0);
	b->lf_refs = bench_depot(test, STACKDEPOT_LF_COUNT_REFS);
	b->lf_insert = bench_depot(test, 0);
	for (s = 0; s < SDLF_BENCH_STACKS; s++) {
		unsigned long *entries = stack_of(b->frames, s);

		stackdepot_lf_id_t id;

		/* Each depot has generation tags of its own, so its own ids. */
		KUNIT_ASSERT_EQ(test, 0, stackdepot_lf_get_id(b->lf, entries,
							      b->depth[s],
							      &b->ids[s]));
		KUNIT_ASSERT_EQ(test, 0, stackdepot_lf_get_id(b->lf_refs, entries,
							      b->depth[s],
							      &b->ids_refs[s]));
		/*
		 * The insert benchmark resets its depot, which keeps the
		 * chunks: grow it to the workload's size once, untimed.
		 */
		KUNIT_ASSERT_EQ(test, 0, stackdepot_lf_get_id(b->lf_insert,
							      entries,
							      b->depth[s],
							      &id));
		/* Growth runs between bursts, not inside the timed loops. */
		sdlf_grow_flush(b->lf);
		sdlf_grow_flush(b->lf_refs);
		sdlf_grow_flush(b->lf_insert);
		b->handles[s] = stack_depot_save(entries, b->depth[s], GFP_KERNEL);
		KUNIT_ASSERT_NE(test, 0U, b->handles[s]);
	}
	/* Every stack of the workload is distinct and resolves to itself. */
	for (s = 0; s < SDLF_BENCH_STACKS; s++) {
		KUNIT_ASSERT_EQ(test, (int)b->depth[s],
				stackdepot_lf_lookup(b->lf, b->ids[s], b->buf,
						     ARRAY_SIZE(b->buf), &info));
		KUNIT_ASSERT_MEMEQ(test, b->buf, stack_of(b->frames, s),
				   b->depth[s] * sizeof(unsigned long));
	}
	test->priv = b;
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/* Median over the rounds, in picoseconds per call. */
static u64 bench_median(struct bench *b, enum bench_op op)
{
	sort(b->ps[op], rounds, sizeof(u64), cmp_u64, NULL);
	return b->ps[op][rounds / 2];
}

static void bench_print_ps(char *buf, size_t size, u64 ps)
{
	snprintf(buf, size, "%llu.%03llu", ps / 1000, ps % 1000);
}

static void test_bench_ops(struct kunit *test)
{
	struct bench *b = test->priv;
	u64 median[NR_OPS];
	char ns[24], ratio[24];
	unsigned int r, op;
	unsigned long pos;

	for (r = 0; r < rounds; r++) {
		pos = 0;
		b->ps[OP_COPY][r] = time_copy(b, b->ring, BENCH_RING_LONGS, &pos);
		b->ps[OP_COPY_BIG][r] = time_copy(b, b->big_ring,
						  BENCH_BIG_RING_LONGS, &b->big_pos);
		b->ps[OP_LF_HIT][r] = time_lf_hit(b, b->lf, b->ids);
		b->ps[OP_LF_HIT_REFS][r] = time_lf_hit(b, b->lf_refs,
						       b->ids_refs);
		b->ps[OP_SD_HIT][r] = time_sd_hit(b);
		b->ps[OP_LF_LOOKUP][r] = time_lf_lookup(b);
		b->ps[OP_SD_FETCH][r] = time_sd_fetch(b);
	}
	/*
	 * Inserts last: the stack depot keeps what they store for good, and
	 * its hits slow down as its buckets fill, so hits are timed while
	 * both depots hold the same stacks.
	 */
	for (r = 0; r < rounds; r++) {
		make_salted(b);
		b->ps[OP_LF_INSERT][r] = time_lf_insert(b);
		b->ps[OP_SD_INSERT][r] = time_sd_insert(b, true);
		make_salted(b);
		b->ps[OP_SD_INSERT_NOALLOC][r] = time_sd_insert(b, false);
	}
	KUNIT_EXPECT_EQ(test, b->errors, 0U);
	KUNIT_EXPECT_EQ(test, b->noalloc_failed, 0U);

	for (op = 0; op < NR_OPS; op++)
		median[op] = max(bench_median(b, op), 1ULL);
	kunit_info(test, "stacks=%u mean_depth=%llu.%02llu calls=%u rounds=%u seed=%llu\n",
		   SDLF_BENCH_STACKS, b->total_depth / SDLF_BENCH_STACKS,
		   b->total_depth * 100 / SDLF_BENCH_STACKS % 100,
		   SDLF_BENCH_SEQ, rounds, seed);
	for (op = 0; op < NR_OPS; op++) {
		bench_print_ps(ns, sizeof(ns), median[op]);
		bench_print_ps(ratio, sizeof(ratio),
			       div64_u64(median[op] * 1000,
					 median[bench_ops[op].ref]));
		kunit_info(test, "op=%s ns_per_call=%s vs=%s ratio=%s\n",
			   bench_ops[op].name, ns, bench_ops[bench_ops[op].ref].name,
			   ratio);
	}
}

static void test_bench_memory(struct kunit *test)
{
	struct bench *b = test->priv;
	struct stackdepot_lf_stats stats;
	u64 sd_bytes = 0, target;
	u32 s;

	stackdepot_lf_stats(b->lf, &stats);
	KUNIT_ASSERT_EQ(test, stats.records, SDLF_BENCH_STACKS);
	for (s = 0; s < SDLF_BENCH_STACKS; s++)
		sd_bytes += SD_RECORD_SIZE(b->depth[s]);

	/*
	 * A record is an 8-byte header and 8 bytes a frame; allow 8 bytes a
	 * stack of slack, so 16 + 8 x depth.
	 */
	target = 16 * SDLF_BENCH_STACKS + 8 * b->total_depth;
	KUNIT_EXPECT_LE(test, stats.arena_used, target);
	KUNIT_EXPECT_EQ(test, stats.arena_lost, 0ULL);

	kunit_info(test, "stacks=%u frames=%llu\n", SDLF_BENCH_STACKS,
		   b->total_depth);
	kunit_info(test, "mem=lf_record bytes=%llu per_stack=%llu\n",
		   stats.arena_used, div64_u64(stats.arena_used, SDLF_BENCH_STACKS));
	kunit_info(test, "mem=lf_target bytes=%llu per_stack=%llu\n",
		   target, div64_u64(target, SDLF_BENCH_STACKS));
	kunit_info(test, "mem=stack_depot_record bytes=%llu per_stack=%llu\n",
		   sd_bytes, div64_u64(sd_bytes, SDLF_BENCH_STACKS));
	kunit_info(test, "mem=fixed_64_frames bytes=%zu per_stack=%zu\n",
		   SDLF_BENCH_STACKS * STACKDEPOT_LF_RECORD_SIZE(64),
		   STACKDEPOT_LF_RECORD_SIZE(64));
	/* Everything the depot allocated, table and counters included. */
	kunit_info(test, "mem=lf_total_at_2x_capacity bytes=%llu per_stack=%llu\n",
		   stats.mem_allocated,
		   div64_u64(stats.mem_allocated, SDLF_BENCH_STACKS));
}

/* Print one point of the memory curve of @depot. */
static void bench_growth_point(struct kunit *test, struct stackdepot_lf *depot)
{
	struct stackdepot_lf_stats st;

	stackdepot_lf_stats(depot, &st);
	kunit_info(test, "growth=curve stacks=%u mem_used=%llu mem_allocated=%llu chunks=%u\n",
		   st.records, st.mem_used, st.mem_allocated, st.chunks);
}

/*
 * Every stack of the workload once, back to back into a new depot of
 * @params, growth queued but not waited for: print what it stored.
 */
static void bench_burst(struct kunit *test,
			const struct stackdepot_lf_params *params,
			const char *name)
{
	struct bench *b = test->priv;
	struct stackdepot_lf *depot;
	struct stackdepot_lf_stats st;
	stackdepot_lf_id_t id;
	u32 s;

	depot = stackdepot_lf_create(params);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, depot);
	KUNIT_ASSERT_EQ(test, 0, kunit_add_action_or_reset(test, destroy_action,
							   depot));
	for (s = 0; s < SDLF_BENCH_STACKS; s++)
		if (stackdepot_lf_get_id(depot, stack_of(b->frames, s),
					 b->depth[s], &id))
			continue;
	stackdepot_lf_stats(depot, &st);
	kunit_info(test, "growth=%s stacks=%u initial=%u inserts=%llu drops_grow=%llu drops_full=%llu chunks=%u mem_allocated=%llu\n",
		   name, SDLF_BENCH_STACKS, params->initial_records, st.inserts,
		   st.drops_grow, st.drops_full, st.chunks, st.mem_allocated);
	KUNIT_EXPECT_EQ(test, st.inserts + st.drops_grow + st.drops_full +
			st.drops_probe, (u64)SDLF_BENCH_STACKS);
}

/*
 * Memory against stacks stored, from empty to the cap, in a depot of the
 * workload's capacity with hit counters (as the ftrace adapter makes
 * them); then the same stacks arriving back to back, faster than growth
 * adds chunks. In UML, irq_work runs from the next timer tick.
 */
static void test_bench_growth(struct kunit *test)
{
	struct stackdepot_lf_params params = {
		.max_records	= SDLF_BENCH_STACKS,
		.max_depth	= SDLF_BENCH_MAX_DEPTH,
		.flags		= STACKDEPOT_LF_COUNT_REFS,
	};
	struct bench *b = test->priv;
	struct stackdepot_lf *depot;
	struct stackdepot_lf_stats st;
	stackdepot_lf_id_t id;
	u64 need = 0;
	u32 s;

	depot = stackdepot_lf_create(&params);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, depot);
	KUNIT_ASSERT_EQ(test, 0, kunit_add_action_or_reset(test, destroy_action,
							   depot));
	bench_growth_point(test, depot);
	for (s = 0; s < SDLF_BENCH_STACKS; s++) {
		KUNIT_ASSERT_EQ(test, 0, stackdepot_lf_get_id(depot,
							      stack_of(b->frames, s),
							      b->depth[s], &id));
		sdlf_grow_flush(depot);
		need += 16 + 8 * b->depth[s];
		if ((s + 1) % 256 == 0)
			bench_growth_point(test, depot);
	}
	stackdepot_lf_stats(depot, &st);
	KUNIT_EXPECT_EQ(test, st.records, SDLF_BENCH_STACKS);
	kunit_info(test, "growth=full stacks=%u need=%llu table=%llu mem_used=%llu mem_allocated=%llu\n",
		   st.records, need, (u64)st.table_slots * sizeof(u32),
		   st.mem_used, st.mem_allocated);

	/* A burst: every stack new, growth queued but not waited for. */
	bench_burst(test, &params, "burst");
	/*
	 * The same burst into a depot made with room for an eighth of its
	 * capacity, as ftrace makes one at boot: what that room holds, at
	 * what memory.
	 */
	params.initial_records = SDLF_BENCH_STACKS / 8;
	bench_burst(test, &params, "burst-room");
}

static struct kunit_case stackdepot_lf_bench_cases[] = {
	KUNIT_CASE_SLOW(test_bench_ops),
	KUNIT_CASE_SLOW(test_bench_memory),
	KUNIT_CASE_SLOW(test_bench_growth),
	{}
};

static struct kunit_suite stackdepot_lf_bench_suite = {
	.name = "stackdepot_lf_bench",
	.init = bench_init,
	.test_cases = stackdepot_lf_bench_cases,
};

kunit_test_suite(stackdepot_lf_bench_suite);

MODULE_DESCRIPTION("Benchmark of stackdepot_lf against stackdepot");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
