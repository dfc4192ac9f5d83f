/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The workload of the stackdepot_lf benchmarks, written once for the KUnit
 * benchmark (lib/tests/stackdepot_lf_bench_kunit.c) and for userspace
 * benchmarks built on the harness's shim (tools/testing/stackdepot_lf),
 * so that they time the very same stacks.
 *
 * SDLF_BENCH_STACKS distinct kernel-like stacks of SDLF_BENCH_MIN_DEPTH to
 * SDLF_BENCH_MAX_DEPTH frames: the inner frames come from a pool of
 * SDLF_BENCH_FUNCS functions, the outer third from a few (syscall entry
 * and such), as in real call chains. The order of the calls follows a
 * Zipf law (s = 1): stack i is drawn with weight 1 / (i + 1). Everything
 * derives from one seed with integer arithmetic only, so the kernel and
 * userspace builds generate bit-identical workloads.
 *
 * The includer provides u32, u64 and unsigned long arrays; nothing here
 * allocates.
 */
#ifndef _STACKDEPOT_LF_BENCH_H
#define _STACKDEPOT_LF_BENCH_H

#define SDLF_BENCH_STACKS	4096U
#define SDLF_BENCH_MIN_DEPTH	8U
#define SDLF_BENCH_MAX_DEPTH	30U
#define SDLF_BENCH_FUNCS	2048U
/* Length of the call sequence; a power of two. */
#define SDLF_BENCH_SEQ		65536U
#define SDLF_BENCH_TEXT		0xffffffff81000000UL

/* splitmix64 */
static inline u64 sdlf_bench_rng(u64 *state)
{
	u64 z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static inline u32 sdlf_bench_below(u64 *state, u32 n)
{
	return (u32)(((sdlf_bench_rng(state) >> 32) * n) >> 32);
}

/* Entry address of function @f of the pool. */
static inline unsigned long sdlf_bench_func(u64 seed, u32 f)
{
	u64 state = seed ^ ((u64)f << 32);

	return SDLF_BENCH_TEXT + sdlf_bench_below(&state, 1U << 22) * 16UL;
}

/*
 * Fill @frames (SDLF_BENCH_STACKS rows of SDLF_BENCH_MAX_DEPTH entries,
 * stack i in row i) and @depth. Returns the sum of the depths.
 */
static inline u64 sdlf_bench_make_stacks(u64 seed, unsigned long *frames,
					 u32 *depth)
{
	u64 state = seed, total = 0;
	unsigned int i, j, shared;
	u32 f;

	for (i = 0; i < SDLF_BENCH_STACKS; i++) {
		unsigned long *entries = frames + i * SDLF_BENCH_MAX_DEPTH;

		depth[i] = SDLF_BENCH_MIN_DEPTH +
			   sdlf_bench_below(&state, SDLF_BENCH_MAX_DEPTH -
						    SDLF_BENCH_MIN_DEPTH + 1);
		shared = depth[i] / 3;
		for (j = 0; j < depth[i]; j++) {
			if (j >= depth[i] - shared)
				f = (depth[i] - j) * 7 + sdlf_bench_below(&state, 4);
			else
				f = sdlf_bench_below(&state, SDLF_BENCH_FUNCS);
			entries[j] = sdlf_bench_func(seed, f % SDLF_BENCH_FUNCS) +
				     sdlf_bench_below(&state, 64) * 4;
		}
		/* A call site of its own makes every stack distinct. */
		entries[0] = SDLF_BENCH_TEXT + (1UL << 26) + i * 64UL +
			     sdlf_bench_below(&state, 16) * 4;
		total += depth[i];
	}
	return total;
}

/*
 * Fill @seq with SDLF_BENCH_SEQ stack numbers drawn with Zipf popularity;
 * @cdf is scratch space for SDLF_BENCH_STACKS values.
 */
static inline void sdlf_bench_make_seq(u64 seed, u64 *cdf, u32 *seq)
{
	u64 state = ~seed, sum = 0, x;
	unsigned int i, lo, hi, mid;

	for (i = 0; i < SDLF_BENCH_STACKS; i++) {
		sum += (1ULL << 32) / (i + 1);
		cdf[i] = sum;
	}
	for (i = 0; i < SDLF_BENCH_SEQ; i++) {
		x = sdlf_bench_rng(&state) % sum;
		lo = 0;
		hi = SDLF_BENCH_STACKS - 1;
		while (lo < hi) {
			mid = (lo + hi) / 2;
			if (cdf[mid] <= x)
				lo = mid + 1;
			else
				hi = mid;
		}
		seq[i] = lo;
	}
}

#endif /* _STACKDEPOT_LF_BENCH_H */
