// SPDX-License-Identifier: GPL-2.0
/*
 * Functional tests of stackdepot_lf in userspace, one per case of
 * lib/tests/stackdepot_lf_kunit.c (minus the hard-IRQ and kthread stress
 * cases, which stress.c covers with real threads; refs_concurrent runs
 * threads of its own), plus allocation failure.
 * Prints "PASS harness:functional.<case>" or "FAIL ..." per case.
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
#define EXPECT_MEMEQ(a, b, n) do {					\
	if (memcmp((a), (b), (n)))					\
		FAIL_AT("%s and %s differ", #a, #b);			\
} while (0)
#define ASSERT_EQ(a, b) do { if (!EXPECT_EQ(a, b)) return; } while (0)
#define ASSERT_TRUE(c)	do { if (!EXPECT_NE(!!(c), 0)) return; } while (0)

#define RS(depth)	STACKDEPOT_LF_RECORD_SIZE(depth)
#define ID(id)		stackdepot_lf_id_to_u32(id)

static unsigned long want_buf[STACKDEPOT_LF_MAX_DEPTH];
static unsigned long got_buf[STACKDEPOT_LF_MAX_DEPTH];

static struct stackdepot_lf *create_default(void)
{
	struct stackdepot_lf_params p = {
		.max_records = 1024,
		.arena_size = 1024 * RS(TEST_DEPTH),
		.max_depth = TEST_DEPTH,
		.flags = STACKDEPOT_LF_COUNT_REFS,
	};
	struct stackdepot_lf *depot = stackdepot_lf_create(&p);

	if (IS_ERR_OR_NULL(depot)) {
		FAIL_AT("create: %ld", PTR_ERR(depot));
		abort();
	}
	return depot;
}

/* Id of synthetic stack @nr of @depth frames; 0 (and a failure) if none. */
static stackdepot_lf_id_t get_id(struct stackdepot_lf *depot,
				 unsigned int depth, u32 nr)
{
	stackdepot_lf_id_t id = 0;

	make_stack(want_buf, depth, nr);
	EXPECT_EQ(stackdepot_lf_get_id(depot, want_buf, depth, &id), 0);
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
	EXPECT_EQ(stats.arena_used, RS(12));
	EXPECT_EQ(stackdepot_lf_id_gen(depot, id), stats.generation);
	EXPECT_EQ(stackdepot_lf_generation(depot), stats.generation);
	stackdepot_lf_destroy(depot);
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
	stackdepot_lf_destroy(depot);
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
	stackdepot_lf_destroy(depot);
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

	stackdepot_lf_stats(depot, &stats);
	EXPECT_EQ(stats.hits + stats.inserts, 1);
	stackdepot_lf_destroy(depot);
}

struct param_case {
	const char *desc;
	struct stackdepot_lf_params p;
	int err;
};

static const struct param_case param_cases[] = {
	{ "minimum", { 16, RS(1), 1, 0, 0, NULL }, 0 },
	{ "odd_sizes", { 17, RS(5) * 3 + 3, 5, 3, 0, NULL }, 0 },
	{ "max_depth", { 64, RS(256) * 2, 256, 0, STACKDEPOT_LF_COUNT_REFS, NULL }, 0 },
	{ "too_few_records", { 15, RS(8) * 16, 8, 0, 0, NULL }, -EINVAL },
	{ "too_many_records", { STACKDEPOT_LF_MAX_RECORDS + 1, RS(8) * 16, 8, 0, 0, NULL },
	  -EINVAL },
	{ "zero_depth", { 64, RS(8) * 16, 0, 0, 0, NULL }, -EINVAL },
	{ "depth_too_big", { 64, RS(300) * 16, 257, 0, 0, NULL }, -EINVAL },
	{ "arena_below_one_record", { 64, RS(8) - 1, 8, 0, 0, NULL }, -EINVAL },
	{ "probe_too_long", { 64, RS(8) * 16, 8, STACKDEPOT_LF_MAX_PROBE + 1, 0, NULL },
	  -EINVAL },
	{ "unknown_flag", { 64, RS(8) * 16, 8, 0, 0x80, NULL }, -EINVAL },
	{ "arena_too_big", { 64, STACKDEPOT_LF_MAX_ARENA + 8, 8, 0, 0, NULL },
	  -EINVAL },
};

static const struct param_case *cur_param;

static void test_create_params(void)
{
	const struct param_case *c = cur_param;
	struct stackdepot_lf *depot = stackdepot_lf_create(&c->p);

	if (c->err) {
		EXPECT_EQ(PTR_ERR_OR_ZERO(depot), c->err);
		EXPECT_EQ(stackdepot_lf_mem_size(&c->p), 0);
		return;
	}
	ASSERT_TRUE(!IS_ERR_OR_NULL(depot));
	EXPECT_GE(stackdepot_lf_mem_size(&c->p), c->p.arena_size);
	expect_resolves(depot, get_id(depot, c->p.max_depth, 2),
			c->p.max_depth, 2);
	stackdepot_lf_destroy(depot);
}

static u32 constant_hash(const unsigned long *entries, unsigned int nr_entries)
{
	return 42;
}

static void test_collisions(void)
{
	struct stackdepot_lf_params p = {
		.max_records = 256,
		.arena_size = 256 * RS(TEST_DEPTH),
		.max_depth = TEST_DEPTH,
		.max_probe = 8,
		.hash = constant_hash,
	};
	struct stackdepot_lf *depot = stackdepot_lf_create(&p);
	unsigned long entries[TEST_DEPTH];
	struct stackdepot_lf_stats stats;
	stackdepot_lf_id_t ids[8], id;
	unsigned int i, j;

	ASSERT_TRUE(!IS_ERR_OR_NULL(depot));
	for (i = 0; i < 8; i++)
		ids[i] = get_id(depot, 10, 100 + i);
	for (i = 0; i < 8; i++) {
		for (j = 0; j < i; j++)
			EXPECT_NE(ID(ids[i]), ID(ids[j]));
		expect_resolves(depot, ids[i], 10, 100 + i);
		EXPECT_EQ(ID(ids[i]), ID(get_id(depot, 10, 100 + i)));
	}
	make_stack(entries, 10, 200);
	EXPECT_EQ(stackdepot_lf_get_id(depot, entries, 10, &id), -ENOSPC);
	stackdepot_lf_stats(depot, &stats);
	EXPECT_EQ(stats.drops_probe, 1);
	EXPECT_EQ(stats.records, 8);
	EXPECT_EQ(stats.arena_used, 8 * RS(10));
	for (i = 0; i < 8; i++)
		expect_resolves(depot, ids[i], 10, 100 + i);
	stackdepot_lf_destroy(depot);
}

static void test_fill_records(void)
{
	struct stackdepot_lf_params p = {
		.max_records = 16,
		.arena_size = 1024 * RS(TEST_DEPTH),
		.max_depth = TEST_DEPTH,
	};
	struct stackdepot_lf *depot = stackdepot_lf_create(&p);
	unsigned long entries[TEST_DEPTH];
	struct stackdepot_lf_stats stats;
	stackdepot_lf_id_t ids[16], id;
	unsigned int i;

	ASSERT_TRUE(!IS_ERR_OR_NULL(depot));
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
	EXPECT_EQ(stats.hits, 1);
	stackdepot_lf_destroy(depot);
}

static void test_fill_arena(void)
{
	struct stackdepot_lf_params p = {
		.max_records = 64,
		.arena_size = 3 * RS(20) + RS(4),
		.max_depth = TEST_DEPTH,
	};
	struct stackdepot_lf *depot = stackdepot_lf_create(&p);
	unsigned long entries[TEST_DEPTH];
	struct stackdepot_lf_stats stats;
	stackdepot_lf_id_t ids[3], id;
	unsigned int i;

	ASSERT_TRUE(!IS_ERR_OR_NULL(depot));
	for (i = 0; i < 3; i++)
		ids[i] = get_id(depot, 20, i);
	make_stack(entries, 20, 50);
	EXPECT_EQ(stackdepot_lf_get_id(depot, entries, 20, &id), -ENOSPC);
	id = get_id(depot, 4, 51);
	expect_resolves(depot, id, 4, 51);
	for (i = 0; i < 3; i++)
		expect_resolves(depot, ids[i], 20, i);
	stackdepot_lf_stats(depot, &stats);
	EXPECT_EQ(stats.arena_used, stats.arena_size);
	EXPECT_EQ(stats.drops_full, 1);
	EXPECT_EQ(stats.records, 4);
	stackdepot_lf_destroy(depot);
}

/*
 * Sum of the arena bytes of the records of the current generation, which
 * must equal arena_used - arena_lost whenever no get_id is running.
 */
static u64 record_bytes(struct stackdepot_lf *depot)
{
	struct stackdepot_lf_info info;
	struct stackdepot_lf_iter iter;
	u64 sum = 0;
	int ret;

	stackdepot_lf_iter_start(&iter, depot);
	while ((ret = stackdepot_lf_iter_next(&iter, got_buf,
					      ARRAY_SIZE(got_buf), &info)) > 0)
		sum += ALIGN(RS(info.depth), 8);
	EXPECT_EQ(ret, 0);
	return sum;
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
	get_id(depot, 5, 1);
	sdlf_stub_activate(sdlf_slot_publish, race_publish);
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
	EXPECT_EQ(stats.arena_used - stats.arena_lost, record_bytes(depot));
	EXPECT_EQ(stackdepot_lf_lookup(depot, a, got_buf, ARRAY_SIZE(got_buf),
				       &info), race_depth);
	EXPECT_EQ(info.refs, 3);

	/* A reset forgets the loss with the records. */
	stackdepot_lf_reset(depot);
	stackdepot_lf_stats(depot, &stats);
	EXPECT_EQ(stats.arena_lost, 0);
	EXPECT_EQ(stats.arena_used, 0);
	stackdepot_lf_destroy(depot);
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
	sdlf_stub_activate(sdlf_slot_publish, invisible_publish);
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
	EXPECT_EQ(stats.arena_used - stats.arena_lost, record_bytes(depot));
	stackdepot_lf_destroy(depot);
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
	stackdepot_lf_destroy(depot);
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
	struct stackdepot_lf_stats stats;
	unsigned int i;

	u32 gen;

	for (i = 0; i < 4; i++)
		old[i] = get_id(depot, 9, i);
	gen = stackdepot_lf_generation(depot);
	stackdepot_lf_reset(depot);
	stackdepot_lf_stats(depot, &stats);
	EXPECT_GT(stats.generation, gen);
	EXPECT_EQ(stats.records, 0);
	EXPECT_EQ(stats.arena_used, 0);
	EXPECT_EQ(stats.resets, 1);
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
	stackdepot_lf_destroy(depot);
}

/* Tags are system-wide: an id of one depot never resolves in another. */
static void test_ids_system_wide(void)
{
	struct stackdepot_lf_params small = {
		.max_records = 16,
		.arena_size = 16 * RS(TEST_DEPTH),
		.max_depth = TEST_DEPTH,
	};
	struct stackdepot_lf *a = create_default(), *b = create_default();
	struct stackdepot_lf *c = stackdepot_lf_create(&small);
	stackdepot_lf_id_t ida, idb, idc;

	ASSERT_TRUE(!IS_ERR_OR_NULL(c));
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
	stackdepot_lf_destroy(a);
	stackdepot_lf_destroy(b);
	stackdepot_lf_destroy(c);
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
	stackdepot_lf_destroy(depot);
	sdlf_ids_set_next(cursor);
}

static void test_arena_limit(void)
{
	struct stackdepot_lf_params p = {
		.max_records = 64,
		.arena_size = STACKDEPOT_LF_MAX_ARENA,
		.max_depth = 8,
	};

	EXPECT_EQ(STACKDEPOT_LF_MAX_ARENA % 8, 0);
	EXPECT_GT(stackdepot_lf_mem_size(&p), STACKDEPOT_LF_MAX_ARENA);
	p.arena_size += 8;
	EXPECT_EQ(stackdepot_lf_mem_size(&p), 0);
	EXPECT_EQ(STACKDEPOT_LF_MAX_ARENA, 4ULL << 30);
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
	stackdepot_lf_destroy(depot);
}

static void test_stats_add_up(void)
{
	struct stackdepot_lf_params p = {
		.max_records = 32,
		.arena_size = 32 * RS(16),
		.max_depth = 16,
	};
	struct stackdepot_lf *depot = stackdepot_lf_create(&p);
	struct sdlf_rng rng = { .state = 1 };
	unsigned long entries[20];
	struct stackdepot_lf_stats stats;
	unsigned int i, depth, calls = 0;
	stackdepot_lf_id_t id;

	ASSERT_TRUE(!IS_ERR_OR_NULL(depot));
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
	EXPECT_EQ(stats.hits + stats.inserts + stats.drops_full +
		  stats.drops_probe + stats.drops_too_deep + stats.drops_busy +
		  stats.drops_context, calls);
	EXPECT_EQ(stats.inserts, stats.records);
	EXPECT_GT(stats.drops_too_deep, 0);
	EXPECT_GT(stats.drops_full, 0);
	EXPECT_GT(stats.hits, 0);
	stackdepot_lf_destroy(depot);
}

/* Harness only: every allocation of create may fail, without leaks. */
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
	EXPECT_EQ(stats.hits + stats.inserts,
		  REFS_THREADS * REFS_CALLS * REFS_STACKS + REFS_STACKS);
	stackdepot_lf_destroy(depot);
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

	races.depot = create_default();
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
		EXPECT_EQ(stats.arena_used - stats.arena_lost,
			  record_bytes(races.depot));
		lost_rounds += !!stats.arena_lost;
		stackdepot_lf_reset(races.depot);
	}
	stackdepot_lf_stats(races.depot, &stats);
	printf("# lost_races_concurrent: %u rounds, %u with arena lost, %llu lost races\n",
	       round, lost_rounds, (unsigned long long)stats.lost_races);
	/* Without races the identity above proved nothing. */
	EXPECT_GT(lost_rounds, 0);
	stackdepot_lf_destroy(races.depot);
}

static void test_create_enomem(void)
{
	struct stackdepot_lf_params p = {
		.max_records = 64,
		.arena_size = 64 * RS(8),
		.max_depth = 8,
		.flags = STACKDEPOT_LF_COUNT_REFS,
	};
	struct stackdepot_lf *depot;
	unsigned int n;

	for (n = 1; n < 16; n++) {
		sdlf_fail_alloc_at = n;
		depot = stackdepot_lf_create(&p);
		if (!IS_ERR(depot))
			break;
		EXPECT_EQ(PTR_ERR(depot), -ENOMEM);
	}
	sdlf_fail_alloc_at = 0;
	/* create makes five allocations: the sixth attempt succeeds. */
	EXPECT_EQ(n, 6);
	if (!IS_ERR_OR_NULL(depot))
		expect_resolves(depot, get_id(depot, 8, 1), 8, 1);
	if (!IS_ERR(depot))
		stackdepot_lf_destroy(depot);
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
	{ "fill_records", test_fill_records },
	{ "fill_arena", test_fill_arena },
	{ "lost_race_accounting", test_lost_race_accounting },
	{ "invisible_caller", test_invisible_caller },
	{ "get_id_rcu", test_get_id_rcu },
	{ "reset", test_reset },
	{ "ids_system_wide", test_ids_system_wide },
	{ "generation_wrap", test_generation_wrap },
	{ "arena_limit", test_arena_limit },
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
