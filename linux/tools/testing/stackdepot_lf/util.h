/* SPDX-License-Identifier: GPL-2.0 */
/* Helpers shared by the harness programs: PRNG, stacks, option parsing. */
#ifndef _SDLF_UTIL_H
#define _SDLF_UTIL_H

#include <stdio.h>

#include "harness.h"

#ifndef __printf
#define __printf(a, b)	__attribute__((__format__(printf, a, b)))
#endif

/* Depth of the stacks most tests use, as in the KUnit suite. */
#define TEST_DEPTH	32

struct sdlf_rng {
	u64 state;
};

/* splitmix64: tiny, seedable with any value, good enough for tests. */
static inline u64 sdlf_rng_next(struct sdlf_rng *rng)
{
	u64 z = (rng->state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static inline u32 sdlf_rng_below(struct sdlf_rng *rng, u32 n)
{
	return (u32)(((sdlf_rng_next(rng) >> 32) * n) >> 32);
}

/*
 * Synthetic stack @nr of @depth frames, as in the KUnit suite: the stack
 * number can be read back from entries[0] with stack_nr().
 */
static inline void make_stack(unsigned long *entries, unsigned int depth,
			      u32 nr)
{
	unsigned int i;

	for (i = 0; i < depth; i++)
		entries[i] = 0x81000000UL + ((unsigned long)nr << 12) +
			     i * 16 + (depth & 0xf);
}

static inline u32 stack_nr(const unsigned long *entries)
{
	return (entries[0] - 0x81000000UL) >> 12;
}

/* Strict decimal or 0x-hex parse of an option argument; 0 on success. */
int sdlf_parse_u64(const char *arg, u64 *val);
/* Seed from the clock, for runs that were not given -s. */
u64 sdlf_clock_seed(void);
u64 sdlf_now_ns(void);

#endif /* _SDLF_UTIL_H */
