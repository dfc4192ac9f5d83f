// SPDX-License-Identifier: GPL-2.0
/*
 * The KUnit suite of lib/tests/stackdepot_lf_kunit.c, compiled here
 * through the KUnit shim (include/kunit/, kunit.c), so that each of its
 * cases runs on real threads under ASan/UBSan and under ThreadSanitizer;
 * and, in a suite of their own built on its helpers, the cases that only
 * userspace can run, because they need the harness's knobs:
 * sdlf_fail_alloc_at (an allocation of the library fails),
 * sdlf_invisible (a caller that grace periods do not wait for),
 * sdlf_cmpxchg_hook (code run before a cmpxchg of the library) and
 * sdlf_test_bit_hook (code run between a caller's test of a mark and its
 * setting of it), or threads racing often enough to lose chunk space.
 */
#include "../../../lib/tests/stackdepot_lf_kunit.c"

/* From util.h, whose make_stack() the suite above defines too. */
u64 sdlf_now_ns(void);

static void restore_fail_alloc(void *unused)
{
	sdlf_fail_alloc_at = 0;
}

/* Make the @n-th allocation from now fail, for this test only. */
static void fail_alloc_at(struct kunit *test, unsigned int n)
{
	sdlf_fail_alloc_at = n;
	kunit_remove_action(test, restore_fail_alloc, NULL);
	KUNIT_ASSERT_EQ(test, 0, kunit_add_action_or_reset(test,
							   restore_fail_alloc,
							   NULL));
}

/*
 * Harness only: every allocation of create may fail, the first chunk's,
 * its spare's and the first counter block's included, and must return
 * -ENOMEM without leaks (ASan checks at exit).
 */
static void test_create_enomem(struct kunit *test)
{
	static const struct {
		struct stackdepot_lf_params p;
		unsigned int allocs;
	} cases[] = {
		/* depot, table, marks, directory, statistics, two chunks */
		{ { .max_records = 64, .max_depth = 8 }, 7 },
		/* and the table of counter blocks, and the first block */
		{ { .max_records = 64, .max_depth = 8,
		    .flags = STACKDEPOT_LF_COUNT_REFS }, 9 },
	};
	struct stackdepot_lf *depot = NULL;
	unsigned int c, n;

	for (c = 0; c < ARRAY_SIZE(cases); c++) {
		for (n = 1; n < 16; n++) {
			fail_alloc_at(test, n);
			depot = stackdepot_lf_create(&cases[c].p);
			if (!IS_ERR(depot))
				break;
			KUNIT_EXPECT_EQ(test, PTR_ERR(depot), -ENOMEM);
		}
		/* The failure was the create's, not left for later. */
		KUNIT_EXPECT_EQ(test, sdlf_fail_alloc_at,
				(unsigned int)(n > cases[c].allocs));
		fail_alloc_at(test, 0);
		KUNIT_EXPECT_EQ(test, n, cases[c].allocs + 1);
		if (IS_ERR_OR_NULL(depot))
			continue;
		keep_depot(test, depot, &cases[c].p);
		expect_resolves(test, depot, get_id(test, depot, 8, 1), 8, 1);
	}
}

/*
 * Insert new stacks of @depth frames from *@nr on, letting growth run,
 * until the next one would go to chunk @chunk; false if one failed.
 */
static bool fill_up_to_chunk(struct kunit *test, struct stackdepot_lf *depot,
			     unsigned int depth, u32 *nr, unsigned int chunk)
{
	struct stackdepot_lf_stats stats;
	stackdepot_lf_id_t id;

	for (;;) {
		stackdepot_lf_stats(depot, &stats);
		if (stats.arena_used / stats.chunk_size >= chunk ||
		    (stats.arena_used / stats.chunk_size == chunk - 1 &&
		     stats.arena_used % stats.chunk_size + RS(depth) >
		     stats.chunk_size))
			return true;
		if (try_get_id(depot, depth, (*nr)++, &id))
			return false;
	}
}

/* Insert new stack *@nr of TEST_DEPTH frames, check it, and count it. */
static void insert_next(struct kunit *test, struct stackdepot_lf *depot,
			u32 *nr)
{
	stackdepot_lf_id_t id = get_id_grown(test, depot, TEST_DEPTH, *nr);

	expect_resolves(test, depot, id, TEST_DEPTH, (*nr)++);
}

/*
 * Harness only: growth whose allocation fails, of a chunk, of a new
 * chunk directory, or of a chunk after its new directory, adds nothing
 * (or only the directory) and leaves the depot working, refusing what
 * needs the missing chunk as waiting for growth; the next request
 * recovers.
 */
static void test_growth_enomem(struct kunit *test)
{
	struct stackdepot_lf_params p = {
		.max_records = 1024,
		.max_depth = TEST_DEPTH,
	};
	struct stackdepot_lf *depot = create_depot(test, &p);
	struct stackdepot_lf_stats stats;
	unsigned int i, drops = 0;
	stackdepot_lf_id_t id, first;
	u32 nr = 0;
	u64 mem;

	/* Both chunks used up while growth is held back. */
	sdlf_grow_pause(depot, true);
	first = get_id_grown(test, depot, TEST_DEPTH, nr++);
	KUNIT_ASSERT_TRUE(test, fill_up_to_chunk(test, depot, TEST_DEPTH, &nr,
						 2));
	KUNIT_EXPECT_EQ(test, try_get_id(depot, TEST_DEPTH, nr, &id), -ENOSPC);
	drops++;

	/* The chunk allocation fails. */
	fail_alloc_at(test, 1);
	sdlf_grow_pause(depot, false);
	sdlf_grow_flush(depot);
	KUNIT_EXPECT_EQ(test, sdlf_fail_alloc_at, 0U);
	stackdepot_lf_stats(depot, &stats);
	KUNIT_EXPECT_EQ(test, stats.chunks, 2);
	KUNIT_EXPECT_EQ(test, stats.mem_allocated, mem_for(&p, 2, 0));
	/* Still working: known stacks hit, new ones wait for growth ... */
	KUNIT_EXPECT_EQ(test, stackdepot_lf_id_to_u32(first),
			stackdepot_lf_id_to_u32(get_id(test, depot, TEST_DEPTH,
						       0)));
	KUNIT_EXPECT_EQ(test, try_get_id(depot, TEST_DEPTH, nr, &id), -ENOSPC);
	drops++;
	/* ... which that refusal asked for, and which works this time. */
	stackdepot_lf_stats(depot, &stats);
	KUNIT_EXPECT_EQ(test, stats.chunks, 3);
	KUNIT_EXPECT_EQ(test, stats.drops_grow, drops);
	insert_next(test, depot, &nr);

	/*
	 * Five chunks in use and the spare of two: growth wants nine once
	 * the sixth is used, past the directory of 8, whose replacement
	 * fails after the eighth chunk was added.
	 */
	KUNIT_ASSERT_TRUE(test, fill_up_to_chunk(test, depot, TEST_DEPTH, &nr,
						 5));
	stackdepot_lf_stats(depot, &stats);
	KUNIT_EXPECT_EQ(test, stats.chunks, 7);
	KUNIT_EXPECT_EQ(test, stats.mem_allocated, mem_for(&p, 7, 0));
	fail_alloc_at(test, 2);
	insert_next(test, depot, &nr);
	KUNIT_EXPECT_EQ(test, sdlf_fail_alloc_at, 0U);
	stackdepot_lf_stats(depot, &stats);
	KUNIT_EXPECT_EQ(test, stats.chunks, 8);
	KUNIT_EXPECT_EQ(test, stats.mem_allocated, mem_for(&p, 8, 0));
	/* The next record of chunk 5 asks again: a directory of 16. */
	insert_next(test, depot, &nr);
	stackdepot_lf_stats(depot, &stats);
	KUNIT_EXPECT_EQ(test, stats.chunks, 9);
	KUNIT_EXPECT_EQ(test, stats.mem_allocated, mem_for(&p, 9, 0));

	/*
	 * Eleven in use, the directory of 16 full: the twelfth asks for
	 * 18; the new directory is allocated, the chunk not.
	 */
	KUNIT_ASSERT_TRUE(test, fill_up_to_chunk(test, depot, TEST_DEPTH, &nr,
						 11));
	stackdepot_lf_stats(depot, &stats);
	KUNIT_EXPECT_EQ(test, stats.chunks, 16);
	mem = stats.mem_allocated;
	fail_alloc_at(test, 2);
	insert_next(test, depot, &nr);
	KUNIT_EXPECT_EQ(test, sdlf_fail_alloc_at, 0U);
	stackdepot_lf_stats(depot, &stats);
	KUNIT_EXPECT_EQ(test, stats.chunks, 16);
	KUNIT_EXPECT_EQ(test, stats.mem_allocated,
			mem + (32 - 16) * sizeof(void *));
	/* The next request adds the chunks, into the directory there is. */
	insert_next(test, depot, &nr);
	stackdepot_lf_stats(depot, &stats);
	KUNIT_EXPECT_EQ(test, stats.chunks, 18);
	KUNIT_EXPECT_EQ(test, stats.mem_allocated, mem_for(&p, 18, 0));
	KUNIT_EXPECT_EQ(test, stats.drops_grow, drops);
	KUNIT_EXPECT_EQ(test, stats.drops_full, 0);
	KUNIT_EXPECT_EQ(test, stats.records, nr);
	for (i = 0; i < nr; i++) {
		make_stack(want_buf, TEST_DEPTH, i);
		KUNIT_EXPECT_EQ(test, 0,
				stackdepot_lf_get_id(depot, want_buf,
						     TEST_DEPTH, &id));
		expect_resolves(test, depot, id, TEST_DEPTH, i);
	}
}

static void system_running(void *unused)
{
	system_state = SYSTEM_RUNNING;
}

/*
 * Harness only: while the system boots (system_state SYSTEM_BOOTING, when
 * no interrupt can be raised yet nor a work item run) get_id queues no
 * growth, and what the initial room cannot hold is refused as waiting for
 * growth; the first insert after boot asks, and growth catches up.
 */
static void test_boot_no_growth(struct kunit *test)
{
	struct stackdepot_lf_params p = {
		.max_records = 1024,
		.max_depth = TEST_DEPTH,
		.expected_depth = TEST_DEPTH,
		.initial_records = 100,
	};
	struct stackdepot_lf *depot = create_depot(test, &p);
	struct stackdepot_lf_stats stats;
	unsigned int chunks;
	stackdepot_lf_id_t id;
	u32 nr = 0;

	stackdepot_lf_stats(depot, &stats);
	chunks = stats.chunks;
	system_state = SYSTEM_BOOTING;
	KUNIT_ASSERT_EQ(test, 0, kunit_add_action_or_reset(test,
							   system_running,
							   NULL));
	/* try_get_id() flushes growth after each call: nothing to run. */
	while (!try_get_id(depot, TEST_DEPTH, nr, &id))
		nr++;
	stackdepot_lf_stats(depot, &stats);
	KUNIT_EXPECT_GE(test, nr, 100U);
	KUNIT_EXPECT_EQ(test, stats.records, nr);
	KUNIT_EXPECT_EQ(test, stats.drops_grow, 1ULL);
	KUNIT_EXPECT_EQ(test, stats.chunks, chunks);
	/* Every chunk full but for the end the next record does not fit. */
	KUNIT_EXPECT_GT(test, stats.arena_used + RS(TEST_DEPTH),
			(u64)chunks * stats.chunk_size);

	system_state = SYSTEM_RUNNING;
	KUNIT_EXPECT_EQ(test, try_get_id(depot, TEST_DEPTH, nr, &id), -ENOSPC);
	stackdepot_lf_stats(depot, &stats);
	KUNIT_EXPECT_EQ(test, stats.chunks,
			chunks + max(chunks / 2, 1U));
	insert_next(test, depot, &nr);
}

/*
 * Harness only: a record that has its chunk space but not its counter
 * block gives the space back and is refused as waiting for growth, also
 * when it had skipped the end of a chunk, which stays counted: the
 * identity must still hold. A counter block whose allocation fails leaves
 * the depot working, and the next request (the refusal's) adds it.
 */
static void test_ref_blocks_stalled(struct kunit *test)
{
	struct stackdepot_lf_params p = {
		.max_records = 1024,
		.max_depth = 16,
		.flags = STACKDEPOT_LF_COUNT_REFS,
	};
	struct stackdepot_lf *depot = create_depot(test, &p);
	stackdepot_lf_id_t ids[TEST_REF_BLOCK], id;
	struct stackdepot_lf_stats stats;
	unsigned int i, depth, calls = 0;
	u64 c;

	stackdepot_lf_stats(depot, &stats);
	c = stats.chunk_size;
	KUNIT_ASSERT_EQ(test, c, 8192);
	/* One counter block, for the first 256 records, and no more. */
	sdlf_grow_pause(depot, true);
	/* 255 records of 32 bytes and one of 16: 16 bytes left in chunk 0 */
	for (i = 0; i < TEST_REF_BLOCK - 1; i++, calls++)
		ids[i] = get_id_grown(test, depot, 3, i);
	ids[i] = get_id_grown(test, depot, 1, i);
	calls++;
	stackdepot_lf_stats(depot, &stats);
	KUNIT_EXPECT_EQ(test, stats.arena_used, c - 16);
	KUNIT_EXPECT_EQ(test, stats.records, TEST_REF_BLOCK);

	/*
	 * The next record's counter block is not there: refused before it
	 * takes any chunk space, even one that would skip to chunk 1.
	 */
	id = stackdepot_lf_u32_to_id(0x1234);
	KUNIT_EXPECT_EQ(test, try_get_id(depot, 2, 1000, &id), -ENOSPC);
	calls++;
	KUNIT_EXPECT_EQ(test, stackdepot_lf_id_to_u32(id), 0x1234);
	stackdepot_lf_stats(depot, &stats);
	KUNIT_EXPECT_EQ(test, stats.drops_grow, 1);
	KUNIT_EXPECT_EQ(test, stats.arena_used, c - 16);
	KUNIT_EXPECT_EQ(test, stats.chunk_ends, 0);
	KUNIT_EXPECT_EQ(test, stats.arena_lost, 0);
	KUNIT_EXPECT_EQ(test, stats.records, TEST_REF_BLOCK);
	expect_arena_adds_up(test, depot);
	/* Nor one that would fit in what is left of chunk 0. */
	KUNIT_EXPECT_EQ(test, try_get_id(depot, 1, 1001, &id), -ENOSPC);
	calls++;
	stackdepot_lf_stats(depot, &stats);
	KUNIT_EXPECT_EQ(test, stats.drops_grow, 2);
	KUNIT_EXPECT_EQ(test, stats.arena_used, c - 16);
	KUNIT_EXPECT_EQ(test, stats.chunk_ends, 0);
	/* Known stacks still hit and count. */
	for (i = 0; i < TEST_REF_BLOCK; i += 51, calls++) {
		depth = i < TEST_REF_BLOCK - 1 ? 3 : 1;
		KUNIT_EXPECT_EQ(test, stackdepot_lf_id_to_u32(ids[i]),
				stackdepot_lf_id_to_u32(get_id(test, depot,
							       depth, i)));
	}
	for (i = 0; i < TEST_REF_BLOCK; i++) {
		depth = i < TEST_REF_BLOCK - 1 ? 3 : 1;
		KUNIT_EXPECT_EQ(test, refs_of(test, depot, ids[i], depth),
				i % 51 ? 1U : 2U);
	}
	expect_arena_adds_up(test, depot);

	/*
	 * The allocation of the block fails. The stall must be in a chunk
	 * that is not the last, or the insert would ask for growth before
	 * it looks for its block, and might find it: start over in chunk 0.
	 */
	stackdepot_lf_reset(depot);
	for (i = 0; i < TEST_REF_BLOCK; i++, calls++)
		ids[i] = get_id_grown(test, depot, 1, i);
	fail_alloc_at(test, 1);
	sdlf_grow_pause(depot, false);
	sdlf_grow_flush(depot);
	KUNIT_EXPECT_EQ(test, sdlf_fail_alloc_at, 0U);
	stackdepot_lf_stats(depot, &stats);
	KUNIT_EXPECT_EQ(test, stats.mem_allocated, mem_for(&p, 2, 1));
	KUNIT_EXPECT_EQ(test, try_get_id(depot, 1, 1000, &id), -ENOSPC);
	calls++;
	/* That refusal asked again: the blocks are there now. */
	stackdepot_lf_stats(depot, &stats);
	KUNIT_EXPECT_EQ(test, stats.drops_grow, 3);
	KUNIT_EXPECT_EQ(test, stats.arena_used, TEST_REF_BLOCK * RS(1));
	KUNIT_EXPECT_EQ(test, stats.mem_allocated, mem_for(&p, 2, 3));
	id = get_id_grown(test, depot, 1, 1000);
	calls++;
	expect_resolves(test, depot, id, 1, 1000);
	KUNIT_EXPECT_EQ(test, refs_of(test, depot, id, 1), 1);
	stackdepot_lf_stats(depot, &stats);
	KUNIT_EXPECT_EQ(test, stats.arena_used, (TEST_REF_BLOCK + 1) * RS(1));
	KUNIT_EXPECT_EQ(test, stats.chunk_ends, 0);
	KUNIT_EXPECT_EQ(test, stats.records, TEST_REF_BLOCK + 1);
	KUNIT_EXPECT_EQ(test, stats.chunks, 2);
	KUNIT_EXPECT_EQ(test, calls_counted(&stats), calls);
	for (i = 0; i < TEST_REF_BLOCK; i++)
		expect_resolves(test, depot, ids[i], 1, i);
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

static int invisible_thread(void *arg)
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
	return 0;
}

/*
 * The marked path of get_id_rcu refuses such a caller too, as its user
 * (ftrace) reaches it, and sets no mark for it: the next caller that
 * grace periods wait for is the one told first.
 */
static void test_invisible_caller_marked(struct kunit *test)
{
	struct stackdepot_lf *depot = create_default(test);
	struct stackdepot_lf __rcu *ptr;
	unsigned long entries[TEST_DEPTH];
	struct stackdepot_lf_stats stats;
	stackdepot_lf_id_t id = 0;
	bool first = false;
	int ret;

	RCU_INIT_POINTER(ptr, depot);
	get_id_grown(test, depot, 9, 700);
	make_stack(entries, 9, 700);
	sdlf_invisible = true;
	ret = stackdepot_lf_get_id_rcu(&ptr, entries, 9, &id, &first);
	sdlf_invisible = false;
	KUNIT_EXPECT_EQ(test, ret, -EPERM);
	KUNIT_EXPECT_FALSE(test, first);
	/* Refused before it loads the pointer: its user counts it. */
	stackdepot_lf_stats(depot, &stats);
	KUNIT_EXPECT_EQ(test, stats.drops_context, 0);

	KUNIT_EXPECT_EQ(test, 0, stackdepot_lf_get_id_rcu(&ptr, entries, 9,
							  &id, &first));
	KUNIT_EXPECT_TRUE(test, first);
	expect_resolves(test, depot, id, 9, 700);
}

static void test_invisible_caller(struct kunit *test)
{
	struct stackdepot_lf *depot = create_default(test);
	struct stackdepot_lf_iter iter;
	struct stackdepot_lf_info info;
	struct stackdepot_lf_stats stats;
	unsigned int i, seen = 0, nr;
	stackdepot_lf_id_t ids[8];
	struct task_struct *task;
	int ret;

	inv.depot = depot;
	inv.built = false;
	inv.go = false;
	inv.done = false;
	get_id_grown(test, depot, 9, 1);
	kunit_activate_static_stub(test, sdlf_slot_publish, invisible_publish);
	task = start_kthread(test, invisible_thread, NULL, nr_cpu_ids,
			     "sdlf_invisible");
	wake_up_process(task);
	pthread_mutex_lock(&inv.lock);
	while (!inv.built && !inv.done)
		pthread_cond_wait(&inv.cond, &inv.lock);
	pthread_mutex_unlock(&inv.lock);
	kunit_deactivate_static_stub(test, sdlf_slot_publish);
	stackdepot_lf_reset(depot);
	pthread_mutex_lock(&inv.lock);
	inv.go = true;
	pthread_cond_broadcast(&inv.cond);
	pthread_mutex_unlock(&inv.lock);
	kunit_release_action(test, kthread_stop_action, task);

	KUNIT_EXPECT_EQ(test, inv.ret, -EPERM);
	stackdepot_lf_stats(depot, &stats);
	KUNIT_EXPECT_EQ(test, stats.drops_context, 1);
	KUNIT_EXPECT_EQ(test, stats.records, 0);
	KUNIT_EXPECT_EQ(test, stats.inserts, 1);
	KUNIT_EXPECT_EQ(test, stats.hits, 0);
	for (i = 0; i < 8; i++)
		ids[i] = get_id_grown(test, depot, 9, 600 + i);
	stackdepot_lf_iter_start(&iter, depot);
	while ((ret = stackdepot_lf_iter_next(&iter, got_buf,
					      ARRAY_SIZE(got_buf), &info)) > 0) {
		nr = (got_buf[0] - 0x81000000UL) >> 12;
		KUNIT_EXPECT_GE(test, nr, 600U);
		KUNIT_EXPECT_LT(test, nr, 608U);
		seen++;
	}
	KUNIT_EXPECT_EQ(test, ret, 0);
	KUNIT_EXPECT_EQ(test, seen, 8);
	for (i = 0; i < 8; i++)
		expect_resolves(test, depot, ids[i], 9, 600 + i);
	stackdepot_lf_stats(depot, &stats);
	KUNIT_EXPECT_EQ(test, stats.records, 8);
}

#define RACE_THREADS	4
#define RACE_STACKS	200
#define RACE_ROUNDS	400

static struct {
	struct stackdepot_lf *depot;
	pthread_barrier_t start;
	atomic_t errors;
	atomic_t done;
} races;

/* Every thread inserts the same new stacks in the same order. */
static int races_thread(void *arg)
{
	unsigned long entries[TEST_DEPTH];
	stackdepot_lf_id_t id;
	unsigned int i;

	pthread_barrier_wait(&races.start);
	for (i = 0; i < RACE_STACKS; i++) {
		make_stack(entries, 1 + i % TEST_DEPTH, i);
		if (stackdepot_lf_get_id(races.depot, entries,
					 1 + i % TEST_DEPTH, &id))
			atomic_inc(&races.errors);
	}
	atomic_inc_return(&races.done);
	/* A kthread stopped before it runs would not run at all. */
	while (!kthread_should_stop())
		schedule_timeout_interruptible(1);
	return 0;
}

/*
 * Real lost races, not forced ones: after each round of threads racing to
 * insert the same stacks, the arena must add up exactly. Rounds go on
 * until 20 of them lost arena space to a race.
 */
static void test_lost_races_concurrent(struct kunit *test)
{
	struct stackdepot_lf_stats stats;
	unsigned int round, lost_rounds = 0;
	struct task_struct *tasks[RACE_THREADS];
	unsigned int i;
	u32 nr = 0;

	races.depot = create_default(test);
	atomic_set(&races.errors, 0);
	/*
	 * A round takes four chunks and what races lose. Grow the depot to
	 * eight or more first, which resets keep, so that no round waits
	 * for growth: a refusal would fail the round.
	 */
	KUNIT_ASSERT_TRUE(test, fill_up_to_chunk(test, races.depot,
						 TEST_DEPTH, &nr, 6));
	stackdepot_lf_stats(races.depot, &stats);
	KUNIT_EXPECT_GE(test, stats.chunks, 8);
	stackdepot_lf_reset(races.depot);
	for (round = 0; round < RACE_ROUNDS && lost_rounds < 20; round++) {
		pthread_barrier_init(&races.start, NULL, RACE_THREADS);
		atomic_set(&races.done, 0);
		for (i = 0; i < RACE_THREADS; i++)
			tasks[i] = start_kthread(test, races_thread, NULL,
						 nr_cpu_ids, "sdlf_race");
		for (i = 0; i < RACE_THREADS; i++)
			wake_up_process(tasks[i]);
		while (atomic_read_acquire(&races.done) < RACE_THREADS)
			schedule_timeout_interruptible(1);
		for (i = 0; i < RACE_THREADS; i++)
			kunit_release_action(test, kthread_stop_action,
					     tasks[i]);
		pthread_barrier_destroy(&races.start);
		KUNIT_EXPECT_EQ(test, atomic_read(&races.errors), 0);

		stackdepot_lf_stats(races.depot, &stats);
		KUNIT_EXPECT_EQ(test, stats.records, RACE_STACKS);
		KUNIT_EXPECT_EQ(test, stats.arena_used - stats.arena_lost -
				stats.chunk_ends,
				record_bytes(test, races.depot, NULL));
		lost_rounds += !!stats.arena_lost;
		stackdepot_lf_reset(races.depot);
	}
	stackdepot_lf_stats(races.depot, &stats);
	kunit_info(test, "%u rounds, %u with arena lost, %llu lost races",
		   round, lost_rounds, stats.lost_races);
	/* Without races the identity above proved nothing. */
	KUNIT_EXPECT_GT(test, lost_rounds, 0);
	KUNIT_EXPECT_EQ(test, stats.drops_grow, 0);
}

static void clear_cmpxchg_hook(void *unused)
{
	__atomic_store_n(&sdlf_cmpxchg_hook, NULL, __ATOMIC_RELAXED);
}

/*
 * The cmpxchg hook, once: the same stack is inserted by a nested call
 * before the caller's first cmpxchg, the one that reserves its chunk
 * space, so that the winner's record lies before the loser's.
 */
static void race_before_cmpxchg(void *counter)
{
	unsigned long entries[RACE_DEPTH];
	stackdepot_lf_id_t id;

	clear_cmpxchg_hook(NULL);
	make_stack(entries, RACE_DEPTH, RACE_NR);
	race_ret = stackdepot_lf_get_id(race_depot, entries, RACE_DEPTH, &id);
}

/*
 * A lost race whose loser gives everything back: it reserves its chunk
 * space and its record number after the winner's, finds the winner's
 * record published in the slot, and returns both, which nobody took after
 * it. A hit and a lost race are counted, nothing is lost, and the depot
 * is as if the loser had come after the winner: its capacity is whole.
 */
static void test_lost_race_given_back(struct kunit *test)
{
	struct stackdepot_lf_params p = {
		.max_records = 16,
		.max_depth = TEST_DEPTH,
		.flags = STACKDEPOT_LF_COUNT_REFS,
	};
	struct stackdepot_lf *depot = create_depot(test, &p);
	struct stackdepot_lf_stats stats;
	stackdepot_lf_id_t a, id;
	unsigned int i;

	get_id(test, depot, 5, 1);
	KUNIT_ASSERT_EQ(test, 0, kunit_add_action_or_reset(test,
							   clear_cmpxchg_hook,
							   NULL));
	/* Pairs with the acquire in sdlf_cmpxchg_hook_run(). */
	__atomic_store_n(&sdlf_cmpxchg_hook, race_before_cmpxchg,
			 __ATOMIC_RELEASE);
	a = expect_lost_race(test, depot);
	KUNIT_EXPECT_TRUE(test, !sdlf_cmpxchg_hook);

	stackdepot_lf_stats(depot, &stats);
	KUNIT_EXPECT_EQ(test, stats.arena_lost, 0ULL);
	KUNIT_EXPECT_EQ(test, stats.chunk_ends, 0ULL);
	KUNIT_EXPECT_EQ(test, stats.arena_used,
			(u64)(ALIGN(RS(5), 8) + ALIGN(RS(RACE_DEPTH), 8)));
	KUNIT_EXPECT_EQ(test, refs_of(test, depot, a, RACE_DEPTH), 3U);
	/* The bytes given back are taken again by the next record ... */
	get_id(test, depot, 6, 2);
	stackdepot_lf_stats(depot, &stats);
	KUNIT_EXPECT_EQ(test, stats.records, 3U);
	KUNIT_EXPECT_EQ(test, stats.arena_used,
			(u64)(ALIGN(RS(5), 8) + ALIGN(RS(RACE_DEPTH), 8) +
			      ALIGN(RS(6), 8)));
	/* ... and the number too: the depot still holds max_records. */
	for (i = 3; i < p.max_records; i++)
		get_id_grown(test, depot, 6, 100 + i);
	KUNIT_EXPECT_EQ(test, -ENOSPC, try_get_id(depot, 6, 99, &id));
	stackdepot_lf_stats(depot, &stats);
	KUNIT_EXPECT_EQ(test, stats.records, p.max_records);
	KUNIT_EXPECT_EQ(test, stats.drops_full, 1ULL);
}

/*
 * stackdepot_lf_clear_marks() against a get_id setting a mark, as ftrace
 * uses them: the clearer stores (ftrace swaps its buffers), then clears;
 * the caller sets the stack's mark, then loads what the clearer stored,
 * and trusts its mark only if it saw the old value. Store buffering must
 * not let both miss each other: a caller that saw the old value leaves no
 * mark behind. The test thread clears and one thread calls get_id; each
 * round starts both at once and delays the clearer by a spin that varies
 * from round to round, so that the clearing's load of the mark's word
 * meets the caller's test_and_set_bit(). This checks the barrier before
 * the clearing; the one after it orders the clearer's later accesses,
 * which nothing here reads. Store buffering is rare: on this project's
 * x86_64 machine, without the barriers of clear_marks, half of the runs
 * of this test fail; under ThreadSanitizer, which serializes the threads,
 * it only checks the protocol. Each round is a ping-pong of two spinning
 * threads, which a loaded machine (or TSan) slows by orders of magnitude:
 * the rounds stop after SB_SECONDS too, well within the case's timeout.
 */
#define SB_ROUNDS	2000000
#define SB_SECONDS	40

static struct {
	struct stackdepot_lf __rcu *depot;
	unsigned long entries[TEST_DEPTH];
	int swapped;		/* the clearer's store */
	int round;		/* the caller starts a round when it changes */
	int done;		/* the last round the caller finished */
	int stop;
	bool first;		/* the caller set the mark... */
	int seen;		/* ...and saw this value of swapped */
	pthread_t caller;
} sb;

static void sb_spin(unsigned int n)
{
	while (n--)
		__asm__ __volatile__("" ::: "memory");
}

static void *sb_caller(void *unused)
{
	stackdepot_lf_id_t id;
	int round = 0;

	for (;;) {
		while (__atomic_load_n(&sb.round, __ATOMIC_ACQUIRE) == round)
			if (__atomic_load_n(&sb.stop, __ATOMIC_ACQUIRE))
				return NULL;
		round++;
		sb.first = false;
		if (stackdepot_lf_get_id_rcu(&sb.depot, sb.entries, TEST_DEPTH,
					     &id, &sb.first))
			sb.first = false;
		sb.seen = READ_ONCE(sb.swapped);
		__atomic_store_n(&sb.done, round, __ATOMIC_RELEASE);
	}
}

/* Also when an assertion ends the case: no thread left spinning. */
static void sb_stop(void *unused)
{
	__atomic_store_n(&sb.stop, 1, __ATOMIC_RELEASE);
	pthread_join(sb.caller, NULL);
}

static void test_clear_marks_ordered(struct kunit *test)
{
	struct stackdepot_lf *depot = create_default(test);
	unsigned int round, missed = 0, trusted = 0;
	u64 deadline = sdlf_now_ns() + SB_SECONDS * 1000000000ULL;
	stackdepot_lf_id_t id;
	bool first;
	int ret;

	rcu_assign_pointer(sb.depot, depot);
	make_stack(sb.entries, TEST_DEPTH, 1);
	sb.round = 0;
	sb.done = 0;
	sb.stop = 0;
	KUNIT_ASSERT_EQ(test, 0, pthread_create(&sb.caller, NULL, sb_caller,
						NULL));
	KUNIT_ASSERT_EQ(test, 0, kunit_add_action_or_reset(test, sb_stop,
							   NULL));
	for (round = 1; round <= SB_ROUNDS; round++) {
		if (!(round % 4096) && sdlf_now_ns() > deadline)
			break;
		stackdepot_lf_clear_marks(depot);
		WRITE_ONCE(sb.swapped, 0);
		__atomic_store_n(&sb.round, round, __ATOMIC_RELEASE);
		sb_spin(round % 2048);
		WRITE_ONCE(sb.swapped, 1);
		stackdepot_lf_clear_marks(depot);
		while (__atomic_load_n(&sb.done, __ATOMIC_ACQUIRE) != round)
			;
		if (!sb.first || sb.seen)
			continue;
		trusted++;
		/* The caller saw no swap: the clearing must have seen its mark. */
		first = false;
		ret = stackdepot_lf_get_id_rcu(&sb.depot, sb.entries, TEST_DEPTH,
					       &id, &first);
		KUNIT_ASSERT_EQ(test, ret, 0);
		if (!first)
			missed++;
	}
	kunit_release_action(test, sb_stop, NULL);
	kunit_info(test, "%u rounds, %u with the caller first, %u marks missed",
		   round - 1, trusted, missed);
	KUNIT_EXPECT_EQ(test, missed, 0);
}

/*
 * Callers racing on one clear mark: exactly one is told "first", however
 * late the other comes between a caller's test of the mark and its
 * setting of it, where the window of the real race is a few instructions
 * wide. The test_bit() hook runs the other caller there, once: nested on
 * the caller's CPU, as an interrupt would, or on another CPU, a thread
 * the caller waits for (with marks shared: per-CPU marks make each CPU's
 * first its own). Both on a record the caller stores and on one stored
 * before, its mark cleared; with marks shared and per CPU. Per-CPU marks
 * are a cache the CPU updates in a section a nested call stays out of:
 * the sdlf_mark_window() stub runs the nested call between the caller's
 * lookup and its write, and both are told "first" (the nested one
 * because it could not look), the next caller "not first".
 */
#define MARK_RACE_DEPTH	10

static struct {
	struct stackdepot_lf __rcu *depot;
	struct task_struct *task;	/* the other CPU, or NULL: nested */
	struct completion done;
	u32 nr;
	int ret;
	bool first;
	stackdepot_lf_id_t id;
} mr;

static void clear_test_bit_hook(void *unused)
{
	__atomic_store_n(&sdlf_test_bit_hook, NULL, __ATOMIC_RELAXED);
}

/* The other caller: get_id_rcu() of stack mr.nr, asking for the mark. */
static void mark_race_call(void)
{
	unsigned long entries[MARK_RACE_DEPTH];

	make_stack(entries, MARK_RACE_DEPTH, mr.nr);
	mr.first = false;
	mr.ret = stackdepot_lf_get_id_rcu(&mr.depot, entries, MARK_RACE_DEPTH,
					  &mr.id, &mr.first);
}

static int mark_race_thread(void *arg)
{
	mark_race_call();
	complete(&mr.done);
	while (!kthread_should_stop())
		schedule_timeout_interruptible(1);
	return 0;
}

/* The test_bit() hook, once: the other caller runs to its end. */
static void mark_race_hook(const unsigned long *addr, unsigned long nr)
{
	clear_test_bit_hook(NULL);
	if (!mr.task) {
		mark_race_call();
		return;
	}
	wake_up_process(mr.task);
	/* No assertion here: mark_race() finds mr.ret unset. */
	wait_for_completion_timeout(&mr.done, 120 * HZ);
}

/* The sdlf_mark_window() stub: the nested call, once. */
static void mark_race_window(struct stackdepot_lf *depot, u32 pos)
{
	kunit_deactivate_static_stub(kunit_get_current_test(),
				     sdlf_mark_window);
	mark_race_call();
}

/* One race of the caller and the other on stack @nr of @depot. */
static void mark_race(struct kunit *test, struct stackdepot_lf *depot,
		      bool other_cpu, u32 nr, const char *what)
{
	bool cpu_marks = strstr(what, "CPU marks");
	struct stackdepot_lf __rcu *ptr;
	stackdepot_lf_id_t id;
	bool first;

	RCU_INIT_POINTER(ptr, depot);
	RCU_INIT_POINTER(mr.depot, depot);
	mr.nr = nr;
	mr.ret = -1;
	mr.task = NULL;
	if (other_cpu) {
		init_completion(&mr.done);
		mr.task = start_kthread(test, mark_race_thread, NULL, 1,
					"sdlf_mark_race");
	}
	if (cpu_marks) {
		kunit_activate_static_stub(test, sdlf_mark_window,
					   mark_race_window);
	} else {
		/* Pairs with the acquire in sdlf_test_bit_hook_run(). */
		__atomic_store_n(&sdlf_test_bit_hook, mark_race_hook,
				 __ATOMIC_RELEASE);
	}
	first = get_id_marked(test, &ptr, MARK_RACE_DEPTH, nr, &id);
	KUNIT_EXPECT_TRUE(test, !sdlf_test_bit_hook);
	kunit_deactivate_static_stub(test, sdlf_mark_window);
	KUNIT_EXPECT_EQ(test, mr.ret, 0);
	KUNIT_EXPECT_EQ(test, stackdepot_lf_id_to_u32(id),
			stackdepot_lf_id_to_u32(mr.id));
	if (cpu_marks && !(first && mr.first))
		KUNIT_FAIL(test, "%s, nested: caller %s, nested %s, want both first",
			   what, first ? "first" : "not first",
			   mr.first ? "first" : "not first");
	else if (!cpu_marks && first + mr.first != 1)
		KUNIT_FAIL(test, "%s, other caller %s: %d callers told first",
			   what, other_cpu ? "on another CPU" : "nested",
			   first + mr.first);
	KUNIT_EXPECT_FALSE(test, get_id_marked(test, &ptr, MARK_RACE_DEPTH,
					       nr, &id));
	if (mr.task)
		kunit_release_action(test, kthread_stop_action, mr.task);
}

static void test_mark_race_window(struct kunit *test)
{
	struct stackdepot_lf_params p = {
		.max_records = 64,
		.max_depth = TEST_DEPTH,
	};
	struct stackdepot_lf *depot;
	unsigned int cpu_marks, other_cpu;

	KUNIT_ASSERT_EQ(test, 0, kunit_add_action_or_reset(test,
							   clear_test_bit_hook,
							   NULL));
	for (cpu_marks = 0; cpu_marks < 2; cpu_marks++) {
		p.flags = cpu_marks ? STACKDEPOT_LF_CPU_MARKS : 0;
		depot = create_depot(test, &p);
		for (other_cpu = 0; other_cpu < 2 - cpu_marks; other_cpu++) {
			mark_race(test, depot, other_cpu, 800 + other_cpu,
				  cpu_marks ? "new record, CPU marks" :
				  "new record");
			get_id(test, depot, MARK_RACE_DEPTH, 810 + other_cpu);
			mark_race(test, depot, other_cpu, 810 + other_cpu,
				  cpu_marks ? "stored record, CPU marks" :
				  "stored record");
			stackdepot_lf_clear_marks(depot);
			mark_race(test, depot, other_cpu, 800 + other_cpu,
				  cpu_marks ? "cleared mark, CPU marks" :
				  "cleared mark");
		}
	}
}

static struct kunit_case stackdepot_lf_harness_cases[] = {
	KUNIT_CASE(test_create_enomem),
	KUNIT_CASE(test_growth_enomem),
	KUNIT_CASE(test_boot_no_growth),
	KUNIT_CASE(test_ref_blocks_stalled),
	KUNIT_CASE(test_invisible_caller),
	KUNIT_CASE(test_invisible_caller_marked),
	KUNIT_CASE(test_lost_race_given_back),
	KUNIT_CASE(test_lost_races_concurrent),
	KUNIT_CASE(test_clear_marks_ordered),
	KUNIT_CASE(test_mark_race_window),
	{}
};

static struct kunit_suite stackdepot_lf_harness_suite = {
	.name = "stackdepot_lf_harness",
	.test_cases = stackdepot_lf_harness_cases,
};

kunit_test_suite(stackdepot_lf_harness_suite);
