/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A writer of SVG charts of values over time: a stacked area chart of
 * step functions, one band per series, so that the top edge is the total,
 * with the instant of the total's peak marked. Written for the bytes a
 * profile finds in use by allocation stack; calls nothing of the CLI, and
 * nothing beyond libc.
 *
 * The picture is SVG_CHART_WIDTH x SVG_CHART_HEIGHT user units, and the
 * <svg> element says so in width and height too, so a browser shows one
 * unit as one pixel. Top to bottom: the title, the note, the peak's label,
 * the plot, the time axis, the legend (one row a series: its colour, its
 * value at the peak, its name). The peak is a vertical line of pure red
 * (#ff0000), a colour nothing else in the picture uses; the spans the
 * trace lost are shaded grey across the plot.
 *
 * Each column of pixels of the plot shows the series' values at the one
 * instant of the column where their total is highest (the first such
 * instant), so that however many points fall into a column, and however
 * short a peak is, the top edge reaches it; the file grows with the
 * plot's width, not with the number of points. The output depends only on
 * the input: the same chart gives the same bytes.
 */
#ifndef _STACKMAP_SVGCHART_H
#define _STACKMAP_SVGCHART_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define SVG_CHART_WIDTH		960
#define SVG_CHART_HEIGHT	540
/* The legend has room for this many rows: svg_chart_write() takes no more. */
#define SVG_CHART_MAX_SERIES	10
/* Longer names are cut, at a character, and end in "...". */
#define SVG_CHART_NAME_MAX	110

/*
 * A step function: @v[i] from @t[i] until @t[i + 1], and @v[nr - 1] from
 * @t[nr - 1] on; 0 before @t[0]. @t ascending (equal times: the last one
 * counts), @v >= 0 (a negative value counts as 0).
 */
struct svg_series {
	const char *name;	/* e.g. "pipe_write <- vfs_write" */
	size_t nr;		/* points */
	const uint64_t *t;	/* times in ns (or raw, see svg_chart.raw) */
	const int64_t *v;
};

/* A span of time the trace lost, [@from, @to), shaded and labelled. */
struct svg_span {
	uint64_t from, to;
	const char *label;	/* e.g. "cpu1 lost events", or NULL */
};

struct svg_chart {
	const char *title;	/* e.g. "peak.dat: page layer in use" */
	const char *unit;	/* "bytes" (axis in KiB, MiB, ...) or other */
	uint64_t t0, t1;	/* the time axis, t0 < t1 */
	bool raw;		/* times are raw timestamps, not ns */
	/* Stacked bottom up in this order: the heaviest first. */
	const struct svg_series *series;
	int nr_series;		/* 0 to SVG_CHART_MAX_SERIES */
	bool has_other;		/* the last series: the others, grey */
	bool has_peak;
	uint64_t peak_t;	/* the peak's instant */
	int64_t peak_v;		/* the total at it */
	const char *peak_name;	/* its label's word: "peak" if NULL */
	const char *note;	/* a line under the title, or NULL */
	const struct svg_span *lost;
	int nr_lost;
};

/* Where the plot is, in pixels from the picture's top left corner. */
struct svg_geometry {
	int plot_x, plot_y;	/* top left corner */
	int plot_w, plot_h;	/* one column of pixels per plot_w */
};

/* The plot's place in the picture of @c (it depends on nr_series). */
void svg_chart_geometry(const struct svg_chart *c, struct svg_geometry *g);

/*
 * The x coordinate of time @t (clamped to the axis): the peak's line is
 * drawn 2 pixels wide centred on svg_chart_x(c, c->peak_t) rounded to
 * the nearest integer, covering the two columns of pixels either side.
 */
double svg_chart_x(const struct svg_chart *c, uint64_t t);

/*
 * Write the chart to @f as an SVG document: 0, or -1 with errno set
 * (EINVAL for a chart out of the limits above, ENOMEM, or the error of a
 * write to @f, which is flushed but not closed).
 */
int svg_chart_write(FILE *f, const struct svg_chart *c);

#endif /* _STACKMAP_SVGCHART_H */
