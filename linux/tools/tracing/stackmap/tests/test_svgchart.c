// SPDX-License-Identifier: GPL-2.0
/*
 * Test driver of svgchart.c, run by tests/svg_tests.py: writes a chart of
 * fixed data to argv[1] and prints, one "key value" a line, what the
 * picture must show:
 *
 *   peak_x X           svg_chart_x() of the peak: the red line's centre
 *   plot X Y W H       the plot's geometry
 *   points N           the points of all series
 *   write_full R E     svg_chart_write() to /dev/full: -1 and ENOSPC
 *   too_many R E       with SVG_CHART_MAX_SERIES + 1 series: -1 and EINVAL
 *
 * The data, from 12 s to 14 s: three stacks and the other stacks, whose
 * total peaks at 12.8 s at 15.6 MiB (8 + 4 + 2.5 + 1.1 MiB), everywhere
 * else below 10 MiB. The peak of the first series lasts 20 us, a
 * hundredth of a column of pixels, among 100000 points. The trace lost
 * 13.30 s to 13.45 s. Names with '<', '&', '>' and '"', and one too long
 * for the legend.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../svgchart.h"

#define MiB		(1024 * 1024)
#define T0		12000000000ULL
#define PEAK_T		12800000000ULL
#define NR_A		100000
#define NR_B		1000
#define NR_C		40
#define NR_O		200

static uint64_t ta[NR_A], tb[NR_B], tc[NR_C], to[NR_O];
static int64_t va[NR_A], vb[NR_B], vc[NR_C], vo[NR_O];

static void fill(void)
{
	int i;

	/* Every 20 us, 2 to 3 MiB; 8 MiB for the 20 us from the peak. */
	for (i = 0; i < NR_A; i++) {
		ta[i] = T0 + i * 20000ULL;
		va[i] = 2 * MiB + (int64_t)(i * 7919 % 1000) * 1024;
	}
	va[40000] = 8 * MiB;
	/* Every 2 ms, 1 to 3 MiB; 4 MiB from the peak for 2 ms. */
	for (i = 0; i < NR_B; i++) {
		tb[i] = T0 + i * 2000000ULL;
		vb[i] = 1 * MiB + (int64_t)(i * 37 % 100) * 20 * 1024;
	}
	vb[400] = 4 * MiB;
	/* Every 50 ms, 0.5 to 2 MiB, 2.5 MiB from the peak. */
	for (i = 0; i < NR_C; i++) {
		tc[i] = T0 + i * 50000000ULL;
		vc[i] = MiB / 2 + (int64_t)(i * 13 % 16) * MiB / 10;
	}
	vc[16] = 5 * MiB / 2;
	/* Every 10 ms, up to 1 MiB, 1.1 MiB from the peak. */
	for (i = 0; i < NR_O; i++) {
		to[i] = T0 + i * 10000000ULL;
		vo[i] = (int64_t)(i * 11 % 20) * MiB / 20;
	}
	vo[80] = 1153434;
}

static const struct svg_series series[] = {
	{ "kmalloc_reserve <- __alloc_skb <- tcp_stream_alloc_skb <- tcp_sendmsg_locked",
	  NR_A, ta, va },
	{ "alloc_pages_mpol <- pipe_write & co <- vfs_write <- ksys_write",
	  NR_B, tb, vb },
	{
		"kmem_cache_alloc <- \"<dentry>\" <- d_alloc_parallel <- __lookup_slow <- walk_component <- link_path_walk <- path_lookupat <- filename_lookup <- vfs_statx",
		NR_C, tc, vc
	},
	{ "other stacks", NR_O, to, vo },
};

static const struct svg_span lost[] = {
	{ 13300000000ULL, 13450000000ULL, "cpu1 lost events" },
};

int main(int argc, char **argv)
{
	struct svg_chart c = {
		.title = "peak.dat: slab & page layer <in use>",
		.unit = "bytes",
		.t0 = T0,
		.t1 = T0 + 2000000000ULL,
		.series = series,
		.nr_series = 4,
		.has_other = true,
		.has_peak = true,
		.peak_t = PEAK_T,
		.peak_v = 8 * MiB + 4 * MiB + 5 * MiB / 2 + 1153434,
		.note = "cpu1 holds only from 12.100 s; 1 span lost",
		.lost = lost,
		.nr_lost = 1,
	};
	struct svg_series many[SVG_CHART_MAX_SERIES + 1];
	struct svg_chart bad = c;
	struct svg_geometry g;
	FILE *f;
	int ret, i;

	if (argc != 2) {
		fprintf(stderr, "usage: test_svgchart OUT.svg\n");
		return 2;
	}
	fill();
	f = fopen(argv[1], "w");
	if (!f || svg_chart_write(f, &c) || fclose(f)) {
		perror(argv[1]);
		return 1;
	}
	svg_chart_geometry(&c, &g);
	printf("peak_x %.2f\n", svg_chart_x(&c, c.peak_t));
	printf("plot %d %d %d %d\n", g.plot_x, g.plot_y, g.plot_w, g.plot_h);
	printf("points %d\n", NR_A + NR_B + NR_C + NR_O);

	f = fopen("/dev/full", "w");
	if (!f) {
		perror("/dev/full");
		return 1;
	}
	errno = 0;
	ret = svg_chart_write(f, &c);
	printf("write_full %d %s\n", ret, strerror(errno));
	fclose(f);

	for (i = 0; i <= SVG_CHART_MAX_SERIES; i++)
		many[i] = series[0];
	bad.series = many;
	bad.nr_series = SVG_CHART_MAX_SERIES + 1;
	errno = 0;
	ret = svg_chart_write(stdout, &bad);
	printf("too_many %d %s\n", ret, strerror(errno));
	return 0;
}
