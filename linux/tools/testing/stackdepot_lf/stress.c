// SPDX-License-Identifier: GPL-2.0
/*
 * Multi-thread stress of stackdepot_lf, meant to run under ThreadSanitizer
 * and under ASan/UBSan.
 *
 * The run is a sequence of phases, each on a new depot that starts with
 * its two chunks, so that growth races the inserters every time, not only
 * at the start of the run: the harness's worker thread adds chunks,
 * counter blocks and chunk directories while the threads insert. The
 * geometry of each phase (chunk size, ref counting) is drawn from the
 * seed. In each phase, inserter threads draw overlapping stacks from a
 * seeded generator, get their ids and look them up again, along with ids
 * seen earlier and random ids; a resetter empties the depot at random
 * intervals, a walker iterates it, and a staller holds growth back for
 * random spells, so that inserts are refused for want of a chunk or a
 * counter block and growth then catches up all at once.
 *
 * Invariants, checked during and after each phase:
 * - an id only resolves to the stack that produced it, and does resolve
 *   unless a reset ran or was running since its get_id (the resetter
 *   counts resets in an epoch, odd while one runs; a lookup may be -ESTALE
 *   only if the epoch moved or was odd);
 * - no generation holds two records of one stack: the first id seen for a
 *   (generation, stack) pair is recorded and every later one must match;
 * - the counters add up: hits + inserts + drops = calls, hits + inserts =
 *   ids returned, resets as done;
 * - the chunk bytes add up: arena_used - arena_lost - chunk_ends is the
 *   size of the records a final walk sees, as many as stats.records;
 * - a caller that grace periods do not wait for is refused with -EPERM,
 *   and drops_context counts exactly those;
 * - a final reset keeps the chunks and the lifetime hits.
 * Half the stacks share a weak hash (a stub of sdlf_hash()) to force long
 * probe chains.
 */
#include <getopt.h>
#include <sched.h>
#include <stdarg.h>
#include <unistd.h>

#include "util.h"

#define STRESS_STACKS	1024
#define STRESS_DEPTH	TEST_DEPTH
#define RING_IDS	64
/* Generations of one phase: its resetter stops before this many. */
#define STRESS_GENS	4096

struct stress {
	struct stackdepot_lf *depot;
	struct stackdepot_lf_params p;
	u64 seed;
	u64 deadline;
	unsigned long ops;
	unsigned int depth[STRESS_STACKS];
	/* first id seen per generation (tag - @tag0) and stack */
	u32 *first;
	u32 tag0;
	int running;
	/* Resets begun and ended, twice over: odd while one runs. */
	unsigned long epoch;
	unsigned long errors;
	unsigned long resets;
	unsigned long walks;
	unsigned long walks_stale;
	unsigned long pauses;
	u64 record_bytes;	/* of the final walk */
};

struct stress_thread {
	struct stress *s;
	pthread_t tid;
	unsigned int nr;
	unsigned long calls;
	unsigned long ok;
	unsigned long stale;
	unsigned long lookups;
	unsigned long invisible;
	unsigned long refused;	/* -ENOSPC */
};

/* Sums over the phases, for the report */
struct stress_totals {
	unsigned long phases, calls, ok, lookups, stale, resets, walks;
	unsigned long walks_stale, pauses, busy, grown;
	u64 hits, inserts, lost_races, drops_full, drops_grow, drops_probe;
	u64 drops_too_deep, drops_busy, max_chunks;
};

static void stress_error(struct stress *s, const char *fmt, ...)
	__printf(2, 3);

static void stress_error(struct stress *s, const char *fmt, ...)
{
	va_list ap;

	if (__atomic_fetch_add(&s->errors, 1, __ATOMIC_RELAXED) >= 10)
		return;
	va_start(ap, fmt);
	fprintf(stderr, "stress: seed %llu: ", (unsigned long long)s->seed);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

static u32 stress_hash(const unsigned long *entries, unsigned int nr_entries)
{
	u32 nr = stack_nr(entries);
	u64 h = 0x9e3779b97f4a7c15ULL * (entries[nr_entries - 1] + nr_entries);

	/* Odd stacks collide in 16 buckets; even ones spread out. */
	return nr & 1 ? nr & 15 : (u32)(h >> 32);
}

/*
 * The reset epoch. The resetter's seq_cst read-modify-writes and fence
 * come before the reset's stores to the generation state: a caller that
 * saw any of those stores (acquire) sees the epoch moved when it loads it
 * afterwards.
 */
static unsigned long epoch_now(struct stress *s)
{
	return __atomic_load_n(&s->epoch, __ATOMIC_ACQUIRE);
}

/* No reset ran, or was running, from @before to @after. */
static bool epoch_still(unsigned long before, unsigned long after)
{
	return !(before & 1) && before == after;
}

/* The id @raw of generation @gen is the one for stack @nr, or the first. */
static void check_first(struct stress *s, u32 raw, u32 nr)
{
	u32 gen = stackdepot_lf_id_gen(s->depot, stackdepot_lf_u32_to_id(raw));
	u32 *first, prev = 0;

	/* The only depot of the process: its tags go up one at a time. */
	if (gen - s->tag0 >= STRESS_GENS) {
		stress_error(s, "id %#x has tag %u, the first was %u", raw, gen,
			     s->tag0);
		return;
	}
	first = &s->first[(gen - s->tag0) * STRESS_STACKS + nr];

	if (!__atomic_compare_exchange_n(first, &prev, raw, false,
					 __ATOMIC_RELAXED, __ATOMIC_RELAXED) &&
	    prev != raw)
		stress_error(s, "stack %u has ids %#x and %#x in generation %u",
			     nr, prev, raw, gen);
}

/* A record copied out of the depot under @raw must be a stack we made. */
static void check_record(struct stress *s, u32 raw, const unsigned long *got,
			 int depth)
{
	unsigned long want[STRESS_DEPTH];
	u32 nr = stack_nr(got);

	if (nr >= STRESS_STACKS || depth != (int)s->depth[nr]) {
		stress_error(s, "id %#x resolves to garbage (depth %d)", raw,
			     depth);
		return;
	}
	make_stack(want, depth, nr);
	if (memcmp(want, got, depth * sizeof(*got))) {
		stress_error(s, "id %#x resolves to a corrupt stack %u", raw, nr);
		return;
	}
	check_first(s, raw, nr);
}

/*
 * Look up @raw, issued for stack @nr by a get_id that started in reset
 * epoch @epoch: it must resolve to the stack, or be stale if a reset ran
 * since.
 */
static void check_lookup(struct stress_thread *t, u32 raw, u32 nr,
			 unsigned long epoch)
{
	struct stress *s = t->s;
	unsigned long got[STRESS_DEPTH], want[STRESS_DEPTH];
	unsigned int depth = s->depth[nr];
	int ret;

	ret = stackdepot_lf_lookup(s->depot, stackdepot_lf_u32_to_id(raw), got,
				   STRESS_DEPTH, NULL);
	t->lookups++;
	if (ret == -ESTALE) {
		if (epoch_still(epoch, epoch_now(s)))
			stress_error(s, "id %#x of stack %u stale, no reset since",
				     raw, nr);
		t->stale++;
		return;
	}
	make_stack(want, depth, nr);
	if (ret != (int)depth || memcmp(got, want, depth * sizeof(*got)))
		stress_error(s, "id %#x of stack %u: lookup returned %d", raw,
			     nr, ret);
}

static void *stress_insert(void *arg)
{
	struct stress_thread *t = arg;
	struct stress *s = t->s;
	struct sdlf_rng rng = { .state = s->seed * 1000003 + t->nr };
	unsigned long entries[STRESS_DEPTH + 8], got[STRESS_DEPTH];
	u32 ring_raw[RING_IDS] = { }, ring_nr[RING_IDS];
	unsigned long ring_epoch[RING_IDS], epoch, i;
	unsigned int depth, action;
	stackdepot_lf_id_t id;
	u32 nr, raw, gen = 0, sweep = 0;
	int ret;

	for (i = 0; i < s->ops; i++) {
		if (!(i & 255) && sdlf_now_ns() > s->deadline)
			break;
		action = sdlf_rng_below(&rng, 10);
		if (action == 0) {
			/* An id seen earlier, perhaps in another generation. */
			u32 slot = sdlf_rng_below(&rng, RING_IDS);

			if (ring_raw[slot])
				check_lookup(t, ring_raw[slot], ring_nr[slot],
					     ring_epoch[slot]);
			continue;
		}
		if (action == 1) {
			/* Anything: must fail cleanly or be a real record. */
			raw = (u32)sdlf_rng_next(&rng);
			if (ring_raw[0] && (raw & 1))
				raw = (ring_raw[0] & ~0x3ffU) | (raw & 0x3ff);
			ret = stackdepot_lf_lookup(s->depot,
						   stackdepot_lf_u32_to_id(raw),
						   got, STRESS_DEPTH, NULL);
			if (ret > 0)
				check_record(s, raw, got, ret);
			else if (ret != -EINVAL && ret != -ESTALE &&
				 ret != -ENOENT)
				stress_error(s, "lookup of %#x returned %d",
					     raw, ret);
			continue;
		}

		/*
		 * Half the time, sweep the stacks in the same order as the
		 * other threads from the start of each generation, so that
		 * they race to insert the same new stacks.
		 */
		if (action < 6)
			nr = sdlf_rng_below(&rng, STRESS_STACKS);
		else
			nr = sweep++ % STRESS_STACKS;
		depth = s->depth[nr];
		make_stack(entries, depth, nr);
		t->calls++;
		if (!(i % 97)) {
			/* A caller that grace periods do not wait for. */
			sdlf_invisible = true;
			ret = stackdepot_lf_get_id(s->depot, entries, depth, &id);
			sdlf_invisible = false;
			if (ret != -EPERM)
				stress_error(s, "invisible get_id returned %d",
					     ret);
			t->invisible++;
			continue;
		}
		epoch = epoch_now(s);
		ret = stackdepot_lf_get_id(s->depot, entries, depth, &id);
		if (ret == -EBUSY) {
			if (epoch_still(epoch, epoch_now(s)))
				stress_error(s, "get_id of stack %u: -EBUSY with no reset running",
					     nr);
			/* Let the resetter's grace period end. */
			sched_yield();
			sweep = 0;
			continue;
		}
		if (ret) {
			/*
			 * -ENOSPC: full, probe exhausted, or no chunk or
			 * counter block added yet.
			 */
			if (ret == -E2BIG ? depth <= STRESS_DEPTH :
			    ret != -ENOSPC)
				stress_error(s, "get_id of stack %u returned %d",
					     nr, ret);
			t->refused += ret == -ENOSPC;
			continue;
		}
		t->ok++;
		raw = stackdepot_lf_id_to_u32(id);
		if (depth > STRESS_DEPTH || !stackdepot_lf_id_gen(s->depot, id)) {
			stress_error(s, "get_id of stack %u gave id %#x", nr, raw);
			continue;
		}
		if (stackdepot_lf_id_gen(s->depot, id) != gen) {
			gen = stackdepot_lf_id_gen(s->depot, id);
			sweep = 0;
		}
		check_first(s, raw, nr);
		check_lookup(t, raw, nr, epoch);
		ring_raw[i % RING_IDS] = raw;
		ring_nr[i % RING_IDS] = nr;
		ring_epoch[i % RING_IDS] = epoch;
	}
	__atomic_fetch_sub(&s->running, 1, __ATOMIC_RELEASE);
	return NULL;
}

/*
 * Walk the depot once; -ESTALE is fine only if a reset ran or was running
 * during the walk.
 */
static int stress_walk(struct stress *s, unsigned int *seen, bool final)
{
	unsigned long entries[STRESS_DEPTH], epoch = epoch_now(s);
	struct stackdepot_lf_info info;
	struct stackdepot_lf_iter iter;
	unsigned int n = 0;
	u32 nr;
	int ret;

	stackdepot_lf_iter_start(&iter, s->depot);
	while ((ret = stackdepot_lf_iter_next(&iter, entries, STRESS_DEPTH,
					      &info)) > 0) {
		check_record(s, stackdepot_lf_id_to_u32(info.id), entries, ret);
		if (final)
			s->record_bytes += STACKDEPOT_LF_RECORD_SIZE(ret);
		nr = stack_nr(entries);
		if (seen && nr < STRESS_STACKS && seen[nr]++)
			stress_error(s, "walk returned stack %u twice", nr);
		n++;
	}
	if (ret == -ESTALE && !final &&
	    !epoch_still(epoch, epoch_now(s))) {
		s->walks_stale++;
		sched_yield();
		return -1;
	}
	if (ret)
		stress_error(s, "walk ended with %d", ret);
	s->walks++;
	return n;
}

static void *stress_walker(void *arg)
{
	struct stress *s = arg;
	unsigned int seen[STRESS_STACKS];

	while (__atomic_load_n(&s->running, __ATOMIC_ACQUIRE)) {
		memset(seen, 0, sizeof(seen));
		stress_walk(s, seen, false);
	}
	return NULL;
}

static void *stress_resetter(void *arg)
{
	struct stress *s = arg;
	struct sdlf_rng rng = { .state = ~s->seed ^ s->tag0 };

	while (__atomic_load_n(&s->running, __ATOMIC_ACQUIRE) &&
	       s->resets < STRESS_GENS - 2) {
		usleep(sdlf_rng_below(&rng, 2000));
		/* See epoch_now(): the fence orders it before the reset. */
		__atomic_fetch_add(&s->epoch, 1, __ATOMIC_SEQ_CST);
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		stackdepot_lf_reset(s->depot);
		__atomic_fetch_add(&s->epoch, 1, __ATOMIC_SEQ_CST);
		s->resets++;
	}
	return NULL;
}

/* Hold growth back for random spells, as a machine slow to run it would. */
static void *stress_staller(void *arg)
{
	struct stress *s = arg;
	struct sdlf_rng rng = { .state = s->seed ^ 0x5a11 ^ s->tag0 };

	while (__atomic_load_n(&s->running, __ATOMIC_ACQUIRE)) {
		usleep(sdlf_rng_below(&rng, 3000));
		sdlf_grow_pause(s->depot, true);
		s->pauses++;
		usleep(sdlf_rng_below(&rng, 1500));
		/* Growth catches up with what was asked for meanwhile. */
		sdlf_grow_pause(s->depot, false);
	}
	return NULL;
}

static void print_usage(const char *prog)
{
	fprintf(stderr,
		"usage: %s [-s SEED] [-t THREADS] [-d MSEC] [-p MSEC] [-n OPS]\n"
		"  -s SEED     replay a run (default: from the clock; printed)\n"
		"  -t THREADS  inserter threads (default: 2 x CPUs, at least 4)\n"
		"  -d MSEC     time bound (default 3000)\n"
		"  -p MSEC     time of a phase, on a new depot (default 100)\n"
		"  -n OPS      operations per inserter and phase (default 1000000)\n",
		prog);
}

/*
 * One phase: a new depot of random geometry, every thread on it until
 * @deadline, then the checks of the quiescent depot.
 */
static void stress_phase(struct stress *s, struct stress_thread *threads,
			 unsigned int nthreads, struct sdlf_rng *rng,
			 u64 deadline, struct stress_totals *tot)
{
	unsigned long calls = 0, ok = 0, invisible = 0;
	struct stackdepot_lf_stats stats, after;
	unsigned int seen[STRESS_STACKS] = { };
	pthread_t resetter, walker, staller;
	unsigned int i, max_chunks;
	int n;

	s->p = (struct stackdepot_lf_params){
		/*
		 * A quarter to half as many records as stacks: full depots,
		 * and one or two counter blocks.
		 */
		.max_records = STRESS_STACKS / 4 +
			       sdlf_rng_below(rng, STRESS_STACKS / 4 + 1),
		.max_depth = STRESS_DEPTH,
		/* 0, or chunks of 4 KiB to 16 KiB */
		.expected_depth = sdlf_rng_below(rng, STRESS_DEPTH + 1),
		.flags = sdlf_rng_below(rng, 4) ? STACKDEPOT_LF_COUNT_REFS : 0,
	};
	s->depot = stackdepot_lf_create(&s->p);
	if (IS_ERR(s->depot)) {
		stress_error(s, "create: %ld", PTR_ERR(s->depot));
		s->depot = NULL;
		return;
	}
	s->tag0 = stackdepot_lf_generation(s->depot);
	s->resets = 0;
	s->walks = 0;
	s->walks_stale = 0;
	s->pauses = 0;
	s->record_bytes = 0;
	s->deadline = deadline;
	s->running = nthreads;
	for (i = 0; i < nthreads; i++) {
		memset(&threads[i], 0, sizeof(threads[i]));
		threads[i].s = s;
		threads[i].nr = i + tot->phases * nthreads;
		if (pthread_create(&threads[i].tid, NULL, stress_insert,
				   &threads[i]))
			abort();
	}
	if (pthread_create(&resetter, NULL, stress_resetter, s) ||
	    pthread_create(&walker, NULL, stress_walker, s) ||
	    pthread_create(&staller, NULL, stress_staller, s))
		abort();
	for (i = 0; i < nthreads; i++) {
		pthread_join(threads[i].tid, NULL);
		calls += threads[i].calls;
		ok += threads[i].ok;
		invisible += threads[i].invisible;
		tot->lookups += threads[i].lookups;
		tot->stale += threads[i].stale;
	}
	pthread_join(resetter, NULL);
	pthread_join(walker, NULL);
	pthread_join(staller, NULL);
	/* Quiescent from here on, once growth asked for has run. */
	sdlf_grow_flush(s->depot);

	stackdepot_lf_stats(s->depot, &stats);
	if (stats.hits + stats.inserts + stats.drops_full + stats.drops_grow +
	    stats.drops_probe + stats.drops_too_deep + stats.drops_busy +
	    stats.drops_context != calls)
		stress_error(s, "stats do not add up to %lu calls", calls);
	if (stats.drops_context != invisible)
		stress_error(s, "drops_context %llu, %lu calls refused",
			     (unsigned long long)stats.drops_context, invisible);
	if (stats.hits + stats.inserts != ok)
		stress_error(s, "hits + inserts %llu != %lu ids",
			     (unsigned long long)(stats.hits + stats.inserts),
			     ok);
	if (stats.resets != s->resets)
		stress_error(s, "%llu resets counted, %lu done",
			     (unsigned long long)stats.resets, s->resets);
	/* Enough for max_records of the deepest records, and a spare */
	max_chunks = stats.chunk_size /
		     STACKDEPOT_LF_RECORD_SIZE(s->p.max_depth);
	max_chunks = DIV_ROUND_UP(s->p.max_records, max_chunks) + 1;
	if (stats.records > stats.max_records || stats.chunks > max_chunks ||
	    stats.chunks < 2 ||
	    stats.arena_used > (u64)stats.chunks * stats.chunk_size)
		stress_error(s, "over capacity: %u records, %u chunks of %u, %llu bytes used",
			     stats.records, stats.chunks, max_chunks,
			     (unsigned long long)stats.arena_used);
	if (stats.mem_allocated < stackdepot_lf_mem_size(&s->p) +
	    (u64)(stats.chunks - 2) * stats.chunk_size)
		stress_error(s, "%llu bytes allocated for %u chunks",
			     (unsigned long long)stats.mem_allocated,
			     stats.chunks);
	n = stress_walk(s, seen, true);
	if (n != (int)stats.records)
		stress_error(s, "walk saw %d records, stats say %u", n,
			     stats.records);
	/* Lost races and chunk ends were counted exactly: the bytes add up. */
	if (stats.arena_used - stats.arena_lost - stats.chunk_ends !=
	    s->record_bytes)
		stress_error(s, "arena used %llu - lost %llu - chunk ends %llu != %llu in records",
			     (unsigned long long)stats.arena_used,
			     (unsigned long long)stats.arena_lost,
			     (unsigned long long)stats.chunk_ends,
			     (unsigned long long)s->record_bytes);

	/* A last reset keeps the chunks, and the hits counted so far. */
	stackdepot_lf_reset(s->depot);
	stackdepot_lf_stats(s->depot, &after);
	if (after.hits != stats.hits || after.chunks != stats.chunks ||
	    after.mem_allocated != stats.mem_allocated || after.arena_used ||
	    after.chunk_ends || after.arena_lost || after.records)
		stress_error(s, "reset: hits %llu (%llu), chunks %u (%u), or records",
			     (unsigned long long)after.hits,
			     (unsigned long long)stats.hits, after.chunks,
			     stats.chunks);

	tot->phases++;
	tot->calls += calls;
	tot->ok += ok;
	tot->resets += s->resets;
	tot->walks += s->walks;
	tot->walks_stale += s->walks_stale;
	tot->pauses += s->pauses;
	/* Enough calls to outgrow two chunks many times over */
	if (calls >= 10000) {
		tot->busy++;
		tot->grown += stats.chunks > 2;
	}
	tot->max_chunks = max(tot->max_chunks, (u64)stats.chunks);
	tot->hits += stats.hits;
	tot->inserts += stats.inserts;
	tot->lost_races += stats.lost_races;
	tot->drops_full += stats.drops_full;
	tot->drops_grow += stats.drops_grow;
	tot->drops_probe += stats.drops_probe;
	tot->drops_too_deep += stats.drops_too_deep;
	tot->drops_busy += stats.drops_busy;

	stackdepot_lf_destroy(s->depot);
	s->depot = NULL;
	/* The generations of the next depot index the table afresh. */
	memset(s->first, 0, min(s->resets + 2, (unsigned long)STRESS_GENS) *
	       STRESS_STACKS * sizeof(u32));
}

int main(int argc, char **argv)
{
	u64 seed = sdlf_clock_seed(), msec = 3000, phase_ms = 100;
	u64 ops = 1000000, val, end, now;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned int nthreads = cpus * 2 < 4 ? 4 : cpus * 2;
	struct stress_thread *threads;
	struct stress_totals tot = { };
	struct sdlf_rng rng;
	struct stress s = { };
	unsigned int i;
	int opt;

	while ((opt = getopt(argc, argv, "s:t:d:p:n:h")) != -1) {
		if (opt == 'h') {
			print_usage(argv[0]);
			return 0;
		}
		if (opt == '?' || sdlf_parse_u64(optarg, &val)) {
			print_usage(argv[0]);
			return 2;
		}
		if (opt == 's') {
			seed = val;
		} else if (opt == 't') {
			/* Room for the resetter, walker, staller and main. */
			if (!val || val > SDLF_MAX_THREADS - 4) {
				print_usage(argv[0]);
				return 2;
			}
			nthreads = val;
		} else if (opt == 'd') {
			msec = val;
		} else if (opt == 'p') {
			if (!val) {
				print_usage(argv[0]);
				return 2;
			}
			phase_ms = val;
		} else {
			ops = val;
		}
	}
	if (optind != argc) {
		print_usage(argv[0]);
		return 2;
	}

	printf("stress: seed %llu, %u inserters, %llu ms in phases of %llu ms, %llu ops each,",
	       (unsigned long long)seed, nthreads, (unsigned long long)msec,
	       (unsigned long long)phase_ms, (unsigned long long)ops);
	printf(" RCU read side: %s\n", sdlf_rcu_mode());
	fflush(stdout);
	s.seed = seed;
	s.ops = ops;
	rng.state = seed;
	for (i = 0; i < STRESS_STACKS; i++)
		s.depth[i] = 1 + sdlf_rng_below(&rng, STRESS_DEPTH + 4);
	s.first = calloc((size_t)STRESS_GENS * STRESS_STACKS, sizeof(u32));
	threads = calloc(nthreads, sizeof(*threads));
	if (!s.first || !threads) {
		fprintf(stderr, "stress: setup failed\n");
		return 1;
	}
	/* Global, and set before any thread runs: see harness.h. */
	sdlf_stub_activate((void *)sdlf_hash, (void *)stress_hash);

	now = sdlf_now_ns();
	end = now + msec * 1000000ULL;
	do {
		stress_phase(&s, threads, nthreads, &rng,
			     min(now + phase_ms * 1000000ULL, end), &tot);
		now = sdlf_now_ns();
	} while (now < end && !s.errors);
	sdlf_stub_deactivate();

	/* A busy phase outgrows its first two chunks in a few ms. */
	if (tot.grown * 2 < tot.busy)
		stress_error(&s, "only %lu of %lu busy phases grew", tot.grown,
			     tot.busy);

	printf("stress: %lu phases, %lu of %lu busy grew (<= %llu chunks), %lu pauses\n",
	       tot.phases, tot.grown, tot.busy,
	       (unsigned long long)tot.max_chunks, tot.pauses);
	printf("stress: %lu calls, %lu ids, %lu lookups (%lu stale)\n",
	       tot.calls, tot.ok, tot.lookups, tot.stale);
	printf("stress: %lu resets, %lu walks (%lu stale)\n", tot.resets,
	       tot.walks, tot.walks_stale);
	printf("stress: hits %llu inserts %llu lost_races %llu\n",
	       (unsigned long long)tot.hits, (unsigned long long)tot.inserts,
	       (unsigned long long)tot.lost_races);
	printf("stress: drops full %llu grow %llu probe %llu too_deep %llu busy %llu\n",
	       (unsigned long long)tot.drops_full,
	       (unsigned long long)tot.drops_grow,
	       (unsigned long long)tot.drops_probe,
	       (unsigned long long)tot.drops_too_deep,
	       (unsigned long long)tot.drops_busy);
	free(threads);
	free(s.first);
	if (s.errors) {
		printf("stress: FAILED with %lu errors (seed %llu)\n", s.errors,
		       (unsigned long long)seed);
		return 1;
	}
	printf("stress: ok\n");
	return 0;
}
