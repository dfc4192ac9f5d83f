// SPDX-License-Identifier: GPL-2.0
#include <time.h>

#include "util.h"

int sdlf_parse_u64(const char *arg, u64 *val)
{
	unsigned long long v;
	char *end;

	if (!arg || !*arg || *arg == '-' || *arg == '+')
		return -EINVAL;
	errno = 0;
	v = strtoull(arg, &end, 0);
	if (errno || *end)
		return -EINVAL;
	*val = v;
	return 0;
}

u64 sdlf_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

u64 sdlf_clock_seed(void)
{
	struct sdlf_rng rng = { .state = sdlf_now_ns() };

	return sdlf_rng_next(&rng) & 0xffffffffULL;
}
