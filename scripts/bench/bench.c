// SPDX-License-Identifier: GPL-2.0
/*
 * Benchmark of stackdepot_lf against the full-stack copy an id replaces.
 *
 * Workload: lib/tests/stackdepot_lf_bench.h, the same as the KUnit
 * benchmark's: a few thousand distinct kernel-like stacks (depth 8-30, outer
 * frames shared as in real call chains) drawn with Zipf popularity from a
 * fixed seed. For 1..N threads it times get_id hits (with and without
 * reference counting, and through the RCU-published pointer the ftrace
 * adapter uses, with and without asking for the record's mark, which is
 * set), get_id inserts, lookups and, as the baseline, a
 * memcpy() of the frames into a ring buffer, and a hit on one 4-frame
 * stack; it prints the median ns per operation per thread and the ratio
 * to the baseline. With valgrind installed it also counts instructions per
 * operation in the single-thread case, from two callgrind runs of
 * different lengths: all of them, and those of the library alone (the
 * depot call without the shim's read side, which in the kernel is
 * preempt_disable()). Last, it measures what lost publication races
 * waste: the share of the arena that two threads storing the same new
 * stacks in step leave unused (see race_waste()). The Makefile builds the
 * library for this program as the kernel would: gcc -O2 without SSE, so
 * without vectorised loops.
 *
 * It runs on the shim of the library's userspace harness
 * (tools/testing/stackdepot_lf in the overlay), but is this project's
 * benchmark driver, not part of the harness the patch series ships.
 */
#include <getopt.h>
#include <time.h>
#include <unistd.h>

#include "util.h"
#include "lib/tests/stackdepot_lf_bench.h"

#define BENCH_STACKS	SDLF_BENCH_STACKS
#define BENCH_MAX_DEPTH	SDLF_BENCH_MAX_DEPTH
#define BENCH_SEQ	SDLF_BENCH_SEQ
#define BENCH_RING	(64 * 1024 / sizeof(unsigned long))
#define BENCH_MAX_THR	16
#define BENCH_MAX_REPS	99
#define JSON_ROW	"    {\"op\": \"%s\", \"threads\": %u, \"ns_per_op\": %.2f, " \
			"\"ratio_to_baseline\": %.3f, \"instr_per_op\": %llu, " \
			"\"lib_instr_per_op\": %llu}%s\n"

enum bench_op {
	OP_BASELINE,
	OP_HIT,
	OP_HIT_REFS,
	OP_INSERT,
	OP_LOOKUP,
	OP_RCU,
	OP_HIT4,
	OP_HIT_RCU,
	OP_HIT_MARKED,
	OP_FLOOR,
	OP_FLOOR4,
	OP_HIT_LAST,
	NR_OPS,
};

static const char *const op_names[NR_OPS] = {
	"memcpy_baseline", "get_id_hit", "get_id_hit_refs", "get_id_insert",
	"lookup", "shim_rcu_pair", "get_id_hit_4_frames", "get_id_rcu_hit",
	"get_id_rcu_hit_marked", "floor_hash_compare", "floor_4_frames",
	"get_id_rcu_hit_last",
};

/* The library function each op calls, for its own instruction count */
static const char *const op_fn[NR_OPS] = {
	[OP_HIT] = "stackdepot_lf_get_id",
	[OP_HIT_REFS] = "stackdepot_lf_get_id",
	[OP_INSERT] = "stackdepot_lf_get_id",
	[OP_LOOKUP] = "stackdepot_lf_lookup",
	[OP_HIT4] = "stackdepot_lf_get_id",
	[OP_HIT_RCU] = "stackdepot_lf_get_id_rcu",
	[OP_HIT_MARKED] = "stackdepot_lf_get_id_rcu",
	[OP_FLOOR] = "bench_floor",
	[OP_FLOOR4] = "bench_floor",
	[OP_HIT_LAST] = "stackdepot_lf_get_id_rcu",
};

/* floor.c: a hash and one compare of the frames, and nothing else. */
u32 bench_floor(const unsigned long *entries, const unsigned long *stored,
		unsigned int nr_entries);

/* A 4-frame kernel-like stack, for the shortest hit the adapter makes. */
static unsigned long stack4[4] = {
	0xffffffff81234560UL, 0xffffffff81345670UL,
	0xffffffff81456780UL, 0xffffffff81567890UL,
};

static unsigned long *stacks[BENCH_STACKS];
/* A copy of each stack elsewhere, as a depot's record holds it. */
static unsigned long *copies[BENCH_STACKS], copy4[4];
static u32 depths[BENCH_STACKS];
/* A stack of the workload's mean depth, for OP_HIT_LAST */
static u32 mean_stack;
static u32 seq[BENCH_SEQ];
static stackdepot_lf_id_t ids[BENCH_STACKS], id4;
static struct stackdepot_lf *depot, *depot_refs;
/* depot_refs, published as the ftrace adapter publishes its depot */
static struct stackdepot_lf __rcu *depot_refs_rcu;
static unsigned long ops = 200000;
static pthread_barrier_t barrier;
static int sink;
/* The read side the callgrind runs had: see sdlf_rcu_mode(). */
static char grind_mode[16];

struct bench_thread {
	pthread_t tid;
	unsigned int nr, nthreads;
	enum bench_op op;
	u64 ns;
	unsigned long done;
};

/* The KUnit benchmark's workload, bit for bit: see stackdepot_lf_bench.h. */
static void build_workload(u64 seed)
{
	static unsigned long frames[BENCH_STACKS * BENCH_MAX_DEPTH];
	static unsigned long stored[BENCH_STACKS * BENCH_MAX_DEPTH];
	static u64 cdf[BENCH_STACKS];
	unsigned long sum = 0;
	unsigned int i;

	sdlf_bench_make_stacks(seed, frames, depths);
	memcpy(stored, frames, sizeof(stored));
	memcpy(copy4, stack4, sizeof(copy4));
	for (i = 0; i < BENCH_STACKS; i++) {
		stacks[i] = frames + i * BENCH_MAX_DEPTH;
		copies[i] = stored + i * BENCH_MAX_DEPTH;
	}
	sdlf_bench_make_seq(seed, cdf, seq);

	/* The first stack whose depth is nearest the mean */
	for (i = 0; i < BENCH_STACKS; i++)
		sum += depths[i];
	for (i = 0; i < BENCH_STACKS; i++)
		if (labs((long)depths[i] * BENCH_STACKS - (long)sum) <
		    labs((long)depths[mean_stack] * BENCH_STACKS - (long)sum))
			mean_stack = i;
}

static struct stackdepot_lf *bench_depot(unsigned int flags)
{
	struct stackdepot_lf_params p = {
		.max_records = 2 * BENCH_STACKS,
		.max_depth = 64,
		.flags = flags,
	};
	struct stackdepot_lf *d = stackdepot_lf_create(&p);

	if (IS_ERR(d))
		abort();
	return d;
}

static void populate(struct stackdepot_lf *d, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (stackdepot_lf_get_id(d, stacks[i], depths[i], &ids[i]))
			abort();
		/* Growth runs between bursts of new stacks, untimed. */
		sdlf_grow_flush(d);
	}
	if (d != depot_refs)
		return;
	if (stackdepot_lf_get_id(d, stack4, 4, &id4))
		abort();
	/* Mark every record, as the adapter's first calls do. */
	rcu_assign_pointer(depot_refs_rcu, d);
	for (i = 0; i < n; i++) {
		bool first;

		if (stackdepot_lf_get_id_rcu(&depot_refs_rcu, stacks[i],
					     depths[i], &ids[i], &first))
			abort();
	}
}

/* Run @op for @n operations starting at @start; returns ops done. */
static unsigned long run_op(enum bench_op op, unsigned int start,
			    unsigned long n, unsigned int stride)
{
	static __thread unsigned long ring[BENCH_RING + BENCH_MAX_DEPTH];
	unsigned long buf[64];
	unsigned long i, pos = 0;
	stackdepot_lf_id_t id;
	bool first = false;
	u32 s;
	int acc = 0;

	for (i = 0; i < n; i++) {
		s = seq[(start + i) % BENCH_SEQ];
		switch (op) {
		case OP_BASELINE:
			memcpy(&ring[pos], stacks[s], depths[s] * sizeof(long));
			/*
			 * Nothing reads the ring: without this the compiler
			 * may drop the copy and time an empty loop.
			 */
			__asm__ __volatile__("" : : "r"(&ring[pos]) : "memory");
			pos += depths[s];
			if (pos >= BENCH_RING)
				pos = 0;
			break;
		case OP_HIT:
			acc += stackdepot_lf_get_id(depot, stacks[s], depths[s],
						    &id);
			break;
		case OP_HIT_REFS:
			acc += stackdepot_lf_get_id(depot_refs, stacks[s],
						    depths[s], &id);
			break;
		case OP_INSERT:
			s = start + i * stride;
			acc += stackdepot_lf_get_id(depot, stacks[s], depths[s],
						    &id);
			break;
		case OP_LOOKUP:
			acc += stackdepot_lf_lookup(depot, ids[s], buf, 64, NULL);
			break;
		case OP_HIT4:
			acc += stackdepot_lf_get_id(depot_refs, stack4, 4, &id);
			break;
		case OP_HIT_RCU:
			acc += stackdepot_lf_get_id_rcu(&depot_refs_rcu, stacks[s],
							depths[s], &id, NULL);
			break;
		case OP_HIT_MARKED:
			acc += stackdepot_lf_get_id_rcu(&depot_refs_rcu, stacks[s],
							depths[s], &id, &first);
			acc += first;
			break;
		case OP_FLOOR:
			acc += bench_floor(stacks[s], copies[s], depths[s]);
			break;
		case OP_FLOOR4:
			acc += bench_floor(stack4, copy4, 4);
			break;
		case OP_HIT_LAST:
			/* The CPU's last stack again, as events of one site */
			acc += stackdepot_lf_get_id_rcu(&depot_refs_rcu,
							stacks[mean_stack],
							depths[mean_stack],
							&id, &first);
			acc += first;
			break;
		default:
			sdlf_read_lock();
			sdlf_read_unlock();
			break;
		}
	}
	__atomic_fetch_add(&sink, acc, __ATOMIC_RELAXED);
	return n;
}

/*
 * CPU time of the calling thread: the machine is shared, and wall time
 * would charge a run for the time it spent preempted.
 */
static u64 thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void *bench_thread(void *arg)
{
	struct bench_thread *t = arg;
	unsigned long n = ops;
	unsigned int start = t->nr * (BENCH_SEQ / BENCH_MAX_THR), stride = 1;
	u64 t0;

	if (t->op == OP_INSERT) {
		/* Thread t inserts stacks t, t + T, ...: all new, no overlap. */
		n = (BENCH_STACKS - t->nr + t->nthreads - 1) / t->nthreads;
		start = t->nr;
		stride = t->nthreads;
	}
	pthread_barrier_wait(&barrier);
	t0 = thread_cpu_ns();
	t->done = run_op(t->op, start, n, stride);
	t->ns = thread_cpu_ns() - t0;
	return NULL;
}

/* ns per operation per thread: the slowest thread's time over its ops. */
static double measure(enum bench_op op, unsigned int nthreads)
{
	struct bench_thread t[BENCH_MAX_THR] = { };
	unsigned int i, rounds = op == OP_INSERT ? 8 : 1, r;
	double worst = 0, total = 0;

	for (r = 0; r < rounds; r++) {
		if (op == OP_INSERT)
			stackdepot_lf_reset(depot);
		pthread_barrier_init(&barrier, NULL, nthreads);
		for (i = 0; i < nthreads; i++) {
			t[i] = (struct bench_thread){ .nr = i, .nthreads = nthreads,
						      .op = op };
			if (pthread_create(&t[i].tid, NULL, bench_thread, &t[i]))
				abort();
		}
		worst = 0;
		for (i = 0; i < nthreads; i++) {
			pthread_join(t[i].tid, NULL);
			if ((double)t[i].ns / t[i].done > worst)
				worst = (double)t[i].ns / t[i].done;
		}
		pthread_barrier_destroy(&barrier);
		total += worst;
	}
	if (op == OP_INSERT) {
		/* Leave the full set behind for the other ops. */
		stackdepot_lf_reset(depot);
		populate(depot, BENCH_STACKS);
	}
	return total / rounds;
}

/*
 * What lost races waste: two threads store the same RACE_STACKS new
 * stacks, in the same order and in step (neither starts a stack before
 * the other reached it), into an empty depot with room for all of them,
 * so that they race for most stacks. Outer frames are shared, as in real
 * call chains; every stack has a call site of its own.
 */
#define RACE_STACKS	20000
#define RACE_MIN_DEPTH	4
#define RACE_MAX_DEPTH	64

static unsigned long race_frames[RACE_STACKS][RACE_MAX_DEPTH];
static u32 race_depths[RACE_STACKS];
static struct stackdepot_lf *race_depot;
static unsigned int race_pos[2];

static void *race_thread(void *arg)
{
	unsigned int me = (unsigned long)arg, i, spins;
	stackdepot_lf_id_t id;

	pthread_barrier_wait(&barrier);
	for (i = 0; i < RACE_STACKS; i++) {
		__atomic_store_n(&race_pos[me], i, __ATOMIC_RELEASE);
		/* Spin, but yield a CPU a busy machine may not have to spare. */
		for (spins = 0;
		     __atomic_load_n(&race_pos[!me], __ATOMIC_ACQUIRE) < i;
		     spins++)
			if (spins > 1000)
				sched_yield();
		if (stackdepot_lf_get_id(race_depot, race_frames[i],
					 race_depths[i], &id))
			abort();
	}
	__atomic_store_n(&race_pos[me], RACE_STACKS, __ATOMIC_RELEASE);
	return NULL;
}

/* Print and return the share of the arena lost races left unused. */
static double race_waste(u64 seed)
{
	struct stackdepot_lf_params p = {
		.max_records = 2 * RACE_STACKS,
		.max_depth = RACE_MAX_DEPTH,
		.initial_records = 2 * RACE_STACKS,
	};
	struct stackdepot_lf_stats st;
	pthread_t tid[2];
	u64 state = seed;
	unsigned int i, j;
	double share;

	for (i = 0; i < RACE_STACKS; i++) {
		state = state * 6364136223846793005ULL + 1442695040888963407ULL;
		race_depths[i] = RACE_MIN_DEPTH +
				 (state >> 33) % (RACE_MAX_DEPTH - RACE_MIN_DEPTH + 1);
		for (j = 0; j < race_depths[i]; j++)
			race_frames[i][race_depths[i] - 1 - j] =
				0xffffffff81000000UL + (j + 1) * 0x1000 +
				((i >> (j / 4)) & 0xff) * 16;
		race_frames[i][0] = 0xffffffff82000000UL + i * 16UL;
	}
	race_depot = stackdepot_lf_create(&p);
	if (IS_ERR(race_depot))
		abort();
	pthread_barrier_init(&barrier, NULL, 2);
	for (i = 0; i < 2; i++)
		if (pthread_create(&tid[i], NULL, race_thread,
				   (void *)(unsigned long)i))
			abort();
	for (i = 0; i < 2; i++)
		pthread_join(tid[i], NULL);
	pthread_barrier_destroy(&barrier);
	stackdepot_lf_stats(race_depot, &st);
	if (st.records != RACE_STACKS || st.drops_grow || st.drops_full)
		abort();
	share = st.arena_used ? 100.0 * st.arena_lost / st.arena_used : 0;
	printf("lost races: 2 threads storing the same %u new stacks (depth %u-%u):\n",
	       RACE_STACKS, RACE_MIN_DEPTH, RACE_MAX_DEPTH);
	printf("  %llu lost races, %llu of %llu arena bytes lost (%.2f%%)\n",
	       (unsigned long long)st.lost_races,
	       (unsigned long long)st.arena_lost,
	       (unsigned long long)st.arena_used, share);
	stackdepot_lf_destroy(race_depot);
	return share;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/*
 * Instructions executed by "bench -C op -n n" under callgrind, or 0; with
 * @fn, only those inside @fn, not counting the shim's read side, whose
 * functions toggle the collection off while they run.
 */
static u64 callgrind_instr(const char *exe, u64 seed, enum bench_op op,
			   unsigned long n, const char *fn)
{
	char cmd[1024], line[512], toggle[256] = "";
	unsigned long long v = 0;
	FILE *f;
	char *p;

	if (fn)
		snprintf(toggle, sizeof(toggle), "--toggle-collect=%s %s %s", fn,
			 "--toggle-collect=sdlf_read_lock",
			 "--toggle-collect=sdlf_read_unlock");
	snprintf(cmd, sizeof(cmd),
		 "valgrind --tool=callgrind --callgrind-out-file=/dev/null %s '%s' -C %d -n %lu -s %llu 2>&1",
		 toggle, exe, op, n,
		 (unsigned long long)seed);
	f = popen(cmd, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		p = strstr(line, "Collected :");
		if (p)
			v = strtoull(p + strlen("Collected :"), NULL, 10);
		p = strstr(line, "harness rcu mode: ");
		if (p)
			sscanf(p + strlen("harness rcu mode: "), "%15s", grind_mode);
	}
	pclose(f);
	return v;
}

static void print_usage(const char *prog)
{
	fprintf(stderr,
		"usage: %s [-s SEED] [-t THREADS] [-r REPS] [-n OPS] [-j JSON] [-G]\n"
		"  -s SEED     workload seed (default 1)\n"
		"  -t THREADS  measure 1..THREADS threads (default: CPUs)\n"
		"  -r REPS     repetitions, median reported (default 5)\n"
		"  -n OPS      operations per thread and run (default 200000)\n"
		"  -j JSON     also write the results to this file\n"
		"  -G          skip the callgrind instruction counts\n", prog);
}

int main(int argc, char **argv)
{
	static const enum bench_op table_ops[] = {
		OP_BASELINE, OP_FLOOR, OP_HIT, OP_HIT_REFS, OP_FLOOR4, OP_HIT4,
		OP_HIT_RCU, OP_HIT_MARKED, OP_HIT_LAST, OP_INSERT, OP_LOOKUP,
		OP_RCU,
	};
	double ns[NR_OPS][BENCH_MAX_THR + 1], runs[BENCH_MAX_REPS];
	u64 seed = 1, val, reps = 5, maxthr = sysconf(_SC_NPROCESSORS_ONLN);
	u64 instr[NR_OPS] = { }, lib_instr[NR_OPS] = { };
	long cg_op = -1;
	bool grind = true;
	const char *json = NULL;
	char exe[512];
	ssize_t len;
	unsigned int i, k, r, thr;
	double mean_depth = 0, lost_share;
	FILE *jf = NULL;
	int opt;

	while ((opt = getopt(argc, argv, "s:t:r:n:j:C:Gh")) != -1) {
		if (opt == 'h') {
			print_usage(argv[0]);
			return 0;
		}
		if (opt == 'G') {
			grind = false;
			continue;
		}
		if (opt == 'j') {
			json = optarg;
			continue;
		}
		if (opt == '?' || sdlf_parse_u64(optarg, &val)) {
			print_usage(argv[0]);
			return 2;
		}
		if ((opt == 't' && (!val || val > BENCH_MAX_THR)) ||
		    (opt == 'r' && (!val || val > BENCH_MAX_REPS)) ||
		    (opt == 'n' && !val) || (opt == 'C' && val >= NR_OPS)) {
			print_usage(argv[0]);
			return 2;
		}
		if (opt == 's')
			seed = val;
		else if (opt == 't')
			maxthr = val;
		else if (opt == 'r')
			reps = val;
		else if (opt == 'n')
			ops = val;
		else
			cg_op = val;
	}
	if (optind != argc) {
		print_usage(argv[0]);
		return 2;
	}
	if (maxthr > BENCH_MAX_THR)
		maxthr = BENCH_MAX_THR;

	build_workload(seed);
	depot = bench_depot(0);
	/* As the ftrace adapter creates its depot. */
	depot_refs = bench_depot(STACKDEPOT_LF_COUNT_REFS |
				 STACKDEPOT_LF_CPU_MARKS);

	if (cg_op >= 0) {
		/* One single-thread run for callgrind; setup is the same. */
		if (cg_op == OP_INSERT) {
			if (ops > BENCH_STACKS)
				ops = BENCH_STACKS;
		} else {
			populate(depot, BENCH_STACKS);
			populate(depot_refs, BENCH_STACKS);
		}
		run_op(cg_op, 0, ops, 1);
		printf("harness rcu mode: %s\n", sdlf_rcu_mode());
		return 0;
	}

	populate(depot, BENCH_STACKS);
	populate(depot_refs, BENCH_STACKS);
	for (i = 0; i < BENCH_STACKS; i++)
		mean_depth += depths[i];
	mean_depth /= BENCH_STACKS;

	for (k = 0; k < ARRAY_SIZE(table_ops); k++) {
		for (thr = 1; thr <= maxthr; thr++) {
			for (r = 0; r < reps; r++)
				runs[r] = measure(table_ops[k], thr);
			qsort(runs, reps, sizeof(runs[0]), cmp_double);
			ns[table_ops[k]][thr] = runs[reps / 2];
		}
	}
	len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (grind && len > 0) {
		exe[len] = 0;
		for (k = 0; k < ARRAY_SIZE(table_ops); k++) {
			enum bench_op op = table_ops[k];
			unsigned long n1 = op == OP_INSERT ? 1024 : 10000;
			unsigned long n2 = op == OP_INSERT ? 3072 : 30000;
			u64 a = callgrind_instr(exe, seed, op, n1, NULL);
			u64 b = callgrind_instr(exe, seed, op, n2, NULL);

			instr[op] = a && b > a ? (b - a) / (n2 - n1) : 0;
			if (!op_fn[op])
				continue;
			a = callgrind_instr(exe, seed, op, n1, op_fn[op]);
			b = callgrind_instr(exe, seed, op, n2, op_fn[op]);
			lib_instr[op] = a && b > a ? (b - a) / (n2 - n1) : 0;
		}
	}

	printf("stackdepot_lf bench: %u stacks, depth %u-%u (mean %.1f), ",
	       BENCH_STACKS, SDLF_BENCH_MIN_DEPTH, BENCH_MAX_DEPTH, mean_depth);
	printf("Zipf s=1, seed %llu\n", (unsigned long long)seed);
	printf("ns/op per thread, median of %llu runs of %lu ops ",
	       (unsigned long long)reps, ops);
	printf("(inserts: %u new stacks x 8 rounds); (x) = ratio to %s\n",
	       BENCH_STACKS, op_names[OP_BASELINE]);
	printf("%-20s", "op");
	for (thr = 1; thr <= maxthr; thr++)
		printf("  %10u thr%s", thr, thr > 1 ? "s" : " ");
	printf("  %9s  %9s\n", "instr/op", "lib instr");
	for (k = 0; k < ARRAY_SIZE(table_ops); k++) {
		enum bench_op op = table_ops[k];

		printf("%-20s", op_names[op]);
		for (thr = 1; thr <= maxthr; thr++)
			printf("  %6.1f (%4.2fx)", ns[op][thr],
			       ns[op][thr] / ns[OP_BASELINE][thr]);
		if (instr[op])
			printf("  %9llu", (unsigned long long)instr[op]);
		else
			printf("  %9s", "-");
		if (lib_instr[op])
			printf("  %9llu\n", (unsigned long long)lib_instr[op]);
		else
			printf("  %9s\n", "-");
	}
	printf("harness RCU read side: %.1f ns per lock/unlock pair (%s mode",
	       ns[OP_RCU][1], sdlf_rcu_mode());
	if (grind_mode[0] && strcmp(grind_mode, sdlf_rcu_mode()))
		printf(", %s under callgrind", grind_mode);
	printf("):\nthe shim_rcu_pair row (its loop included), in every depot op's\n");
	printf("ns and instr/op above, not in lib instr; the kernel's read side,\n");
	printf("preempt_disable(), is a per-CPU increment and a compiler barrier.\n");
	lost_share = race_waste(seed);

	if (json)
		jf = fopen(json, "w");
	if (json && !jf) {
		perror(json);
		return 1;
	}
	if (jf) {
		fprintf(jf, "{\n  \"seed\": %llu,\n  \"stacks\": %u,\n",
			(unsigned long long)seed, BENCH_STACKS);
		fprintf(jf, "  \"mean_depth\": %.2f,\n  \"reps\": %llu,\n",
			mean_depth, (unsigned long long)reps);
		fprintf(jf, "  \"rcu_mode\": \"%s\",\n", sdlf_rcu_mode());
		fprintf(jf, "  \"rcu_mode_callgrind\": \"%s\",\n", grind_mode);
		fprintf(jf, "  \"race_arena_lost_percent\": %.3f,\n", lost_share);
		fprintf(jf, "  \"ops\": %lu,\n  \"results\": [\n", ops);
		for (k = 0; k < ARRAY_SIZE(table_ops); k++) {
			enum bench_op op = table_ops[k];

			for (thr = 1; thr <= maxthr; thr++)
				fprintf(jf, JSON_ROW, op_names[op], thr, ns[op][thr],
					ns[op][thr] / ns[OP_BASELINE][thr],
					thr == 1 ? (unsigned long long)instr[op] : 0ULL,
					thr == 1 ? (unsigned long long)lib_instr[op] : 0ULL,
					k == ARRAY_SIZE(table_ops) - 1 &&
					thr == maxthr ? "" : ",");
		}
		fprintf(jf, "  ]\n}\n");
		fclose(jf);
	}
	stackdepot_lf_destroy(depot);
	stackdepot_lf_destroy(depot_refs);
	return 0;
}
