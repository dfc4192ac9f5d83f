// SPDX-License-Identifier: GPL-2.0
/*
 * Multi-thread stress of stackdepot_lf, meant to run under ThreadSanitizer
 * and under ASan/UBSan.
 *
 * Inserter threads draw overlapping stacks from a seeded generator, get
 * their ids and look them up again, along with ids seen earlier and random
 * ids; a resetter empties the depot at random intervals and a walker
 * iterates it. Invariants, checked during and after the run:
 * - an id only resolves to the stack that produced it, or to -ESTALE;
 * - no generation holds two records of one stack: the first id seen for a
 *   (generation, stack) pair is recorded and every later one must match;
 * - the counters add up: hits + inserts + drops = calls;
 * - a caller that grace periods do not wait for is refused with -EPERM.
 * Half the stacks share a weak hash to force long probe chains.
 */
#include <getopt.h>
#include <sched.h>
#include <stdarg.h>
#include <unistd.h>

#include "util.h"

#define STRESS_STACKS	512
#define STRESS_DEPTH	TEST_DEPTH
#define RING_IDS	64
/* Generations of one run: the resetter stops before this many. */
#define STRESS_GENS	4096

struct stress {
	struct stackdepot_lf *depot;
	u64 seed;
	u64 deadline;
	unsigned long ops;
	unsigned int depth[STRESS_STACKS];
	/* first id seen per generation (tag - @tag0) and stack */
	u32 *first;
	u32 tag0;
	int running;
	unsigned long errors;
	unsigned long resets;
	unsigned long walks;
	unsigned long walks_stale;
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

/* Look up @raw, issued for stack @nr; it must resolve to it or be stale. */
static void check_lookup(struct stress_thread *t, u32 raw, u32 nr)
{
	struct stress *s = t->s;
	unsigned long got[STRESS_DEPTH], want[STRESS_DEPTH];
	unsigned int depth = s->depth[nr];
	int ret;

	ret = stackdepot_lf_lookup(s->depot, stackdepot_lf_u32_to_id(raw), got,
				   STRESS_DEPTH, NULL);
	t->lookups++;
	if (ret == -ESTALE) {
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
	unsigned long i;
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
				check_lookup(t, ring_raw[slot], ring_nr[slot]);
			continue;
		}
		if (action == 1) {
			/* Anything: must fail cleanly or be a real record. */
			raw = (u32)sdlf_rng_next(&rng);
			if (ring_raw[0] && (raw & 1))
				raw = (ring_raw[0] & ~0xfffU) | (raw & 0xfff);
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
		ret = stackdepot_lf_get_id(s->depot, entries, depth, &id);
		if (ret == -EBUSY) {
			/* Let the resetter's grace period end. */
			sched_yield();
			sweep = 0;
			continue;
		}
		if (ret) {
			if (ret == -E2BIG ? depth <= STRESS_DEPTH :
			    ret != -ENOSPC)
				stress_error(s, "get_id of stack %u returned %d",
					     nr, ret);
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
		check_lookup(t, raw, nr);
		ring_raw[i % RING_IDS] = raw;
		ring_nr[i % RING_IDS] = nr;
	}
	__atomic_fetch_sub(&s->running, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* Walk the depot once; -ESTALE is fine while a resetter runs. */
static int stress_walk(struct stress *s, unsigned int *seen, bool final)
{
	unsigned long entries[STRESS_DEPTH];
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
	if (ret == -ESTALE && !final) {
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
	struct sdlf_rng rng = { .state = ~s->seed };

	while (__atomic_load_n(&s->running, __ATOMIC_ACQUIRE) &&
	       s->resets < STRESS_GENS - 2) {
		usleep(sdlf_rng_below(&rng, 2000));
		stackdepot_lf_reset(s->depot);
		s->resets++;
	}
	return NULL;
}

static void print_usage(const char *prog)
{
	fprintf(stderr,
		"usage: %s [-s SEED] [-t THREADS] [-d MSEC] [-n OPS]\n"
		"  -s SEED     replay a run (default: from the clock; printed)\n"
		"  -t THREADS  inserter threads (default: 2 x CPUs, at least 4)\n"
		"  -d MSEC     time bound (default 3000)\n"
		"  -n OPS      operations per inserter (default 1000000)\n",
		prog);
}

int main(int argc, char **argv)
{
	struct stackdepot_lf_params p = {
		.max_records = STRESS_STACKS / 2,
		/* Room for fewer stacks than the budget: both drops happen. */
		.arena_size = STRESS_STACKS / 3 * STACKDEPOT_LF_RECORD_SIZE(16),
		.max_depth = STRESS_DEPTH,
		.max_probe = 24,
		.flags = STACKDEPOT_LF_COUNT_REFS,
		.hash = stress_hash,
	};
	u64 seed = sdlf_clock_seed(), msec = 3000, ops = 1000000, val;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned int nthreads = cpus * 2 < 4 ? 4 : cpus * 2;
	unsigned long calls = 0, ok = 0, stale = 0, lookups = 0, invisible = 0;
	struct stackdepot_lf_stats stats;
	unsigned int seen[STRESS_STACKS] = { };
	struct stress_thread *threads;
	pthread_t resetter, walker;
	struct sdlf_rng rng;
	struct stress s = { };
	unsigned int i;
	int opt, n;

	while ((opt = getopt(argc, argv, "s:t:d:n:h")) != -1) {
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
			if (!val || val > SDLF_MAX_THREADS - 4) {
				print_usage(argv[0]);
				return 2;
			}
			nthreads = val;
		} else if (opt == 'd') {
			msec = val;
		} else {
			ops = val;
		}
	}
	if (optind != argc) {
		print_usage(argv[0]);
		return 2;
	}

	printf("stress: seed %llu, %u inserters, %llu ms, %llu ops each\n",
	       (unsigned long long)seed, nthreads, (unsigned long long)msec,
	       (unsigned long long)ops);
	fflush(stdout);
	s.seed = seed;
	s.ops = ops;
	rng.state = seed;
	for (i = 0; i < STRESS_STACKS; i++)
		s.depth[i] = 1 + sdlf_rng_below(&rng, STRESS_DEPTH + 4);
	s.first = calloc((size_t)STRESS_GENS * STRESS_STACKS,
			 sizeof(u32));
	threads = calloc(nthreads, sizeof(*threads));
	s.depot = stackdepot_lf_create(&p);
	if (!s.first || !threads || IS_ERR(s.depot)) {
		fprintf(stderr, "stress: setup failed\n");
		return 1;
	}
	s.tag0 = stackdepot_lf_generation(s.depot);

	s.running = nthreads;
	s.deadline = sdlf_now_ns() + msec * 1000000ULL;
	for (i = 0; i < nthreads; i++) {
		threads[i].s = &s;
		threads[i].nr = i;
		if (pthread_create(&threads[i].tid, NULL, stress_insert,
				   &threads[i]))
			abort();
	}
	if (pthread_create(&resetter, NULL, stress_resetter, &s) ||
	    pthread_create(&walker, NULL, stress_walker, &s))
		abort();
	for (i = 0; i < nthreads; i++) {
		pthread_join(threads[i].tid, NULL);
		calls += threads[i].calls;
		ok += threads[i].ok;
		stale += threads[i].stale;
		lookups += threads[i].lookups;
		invisible += threads[i].invisible;
	}
	pthread_join(resetter, NULL);
	pthread_join(walker, NULL);

	stackdepot_lf_stats(s.depot, &stats);
	if (stats.hits + stats.inserts + stats.drops_full + stats.drops_probe +
	    stats.drops_too_deep + stats.drops_busy + stats.drops_context !=
	    calls)
		stress_error(&s, "stats do not add up to %lu calls", calls);
	if (stats.drops_context != invisible)
		stress_error(&s, "drops_context %llu, %lu calls refused",
			     (unsigned long long)stats.drops_context, invisible);
	if (stats.hits + stats.inserts != ok)
		stress_error(&s, "hits + inserts %llu != %lu ids",
			     (unsigned long long)(stats.hits + stats.inserts),
			     ok);
	if (stats.resets != s.resets)
		stress_error(&s, "%llu resets counted, %lu done",
			     (unsigned long long)stats.resets, s.resets);
	if (stats.arena_used > stats.arena_size ||
	    stats.records > stats.max_records)
		stress_error(&s, "over capacity");
	n = stress_walk(&s, seen, true);
	if (n != (int)stats.records)
		stress_error(&s, "walk saw %d records, stats say %u", n,
			     stats.records);
	/* Lost races were counted exactly: the arena adds up. */
	if (stats.arena_used - stats.arena_lost != s.record_bytes)
		stress_error(&s, "arena used %llu - lost %llu != %llu in records",
			     (unsigned long long)stats.arena_used,
			     (unsigned long long)stats.arena_lost,
			     (unsigned long long)s.record_bytes);

	printf("stress: %lu calls, %lu ids, %lu lookups (%lu stale)\n",
	       calls, ok, lookups, stale);
	printf("stress: %lu resets, %lu walks (%lu stale)\n", s.resets,
	       s.walks, s.walks_stale);
	printf("stress: hits %llu inserts %llu lost_races %llu\n",
	       (unsigned long long)stats.hits, (unsigned long long)stats.inserts,
	       (unsigned long long)stats.lost_races);
	printf("stress: drops full %llu probe %llu too_deep %llu busy %llu\n",
	       (unsigned long long)stats.drops_full,
	       (unsigned long long)stats.drops_probe,
	       (unsigned long long)stats.drops_too_deep,
	       (unsigned long long)stats.drops_busy);
	stackdepot_lf_destroy(s.depot);
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
