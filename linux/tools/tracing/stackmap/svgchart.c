// SPDX-License-Identifier: GPL-2.0
/*
 * The SVG chart writer (svgchart.h). The picture, top to bottom:
 *
 *   title (bold), note                      centred
 *   peak label, beside the top of the peak's red line
 *   plot: grid, bands, lost spans, peak line, axes; y labels on its left
 *   time axis labels; legend caption (left) and axis title (right)
 *   legend: one row a series
 *
 * Only the plot's height depends on the chart (on the legend's rows).
 * The bands are drawn column by column of pixels (columns()), each one
 * path with crisp edges, so that their colours stay unblended and one
 * pixel wide steps stay sharp. Numbers are printed with fixed precision,
 * so the same chart always writes the same bytes.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "svgchart.h"

#define W		SVG_CHART_WIDTH
#define H		SVG_CHART_HEIGHT
#define TITLE_Y		24
#define NOTE_Y		42
#define PEAK_LABEL_Y	62
#define PLOT_X		80
#define PLOT_Y		72
#define PLOT_W		(W - PLOT_X - 24)
/* Below the plot: tick labels, then the caption row. */
#define AXIS_H		44
#define LEGEND_ROW	16
#define LEGEND_X	24
#define BOTTOM		8
#define TITLE_MAX	90
#define NOTE_MAX	140
#define SPAN_LABEL_MAX	40
/* Below it, a float is taken for its nearest integer. */
#define EPSILON		(1.0 / 1000000000)
/* The width of a digit of the 12 pixel font, a little more. */
#define DIGIT_W		8

#define PEAK_COLOUR	"#ff0000"
#define OTHER_COLOUR	"#bab0ac"
/* Not red, nor near it: the peak line's colour is its own. */
static const char * const palette[] = {
	"#4e79a7", "#f28e2b", "#59a14f", "#b07aa1", "#76b7b2",
	"#edc948", "#9c755f", "#ff9da7", "#86bcb6", "#8cd17d",
};

static const uint64_t NSEC_PER_SEC = 1000000000ULL;

void svg_chart_geometry(const struct svg_chart *c, struct svg_geometry *g)
{
	int rows = c->nr_series;

	if (rows < 0)
		rows = 0;
	if (rows > SVG_CHART_MAX_SERIES)
		rows = SVG_CHART_MAX_SERIES;
	g->plot_x = PLOT_X;
	g->plot_y = PLOT_Y;
	g->plot_w = PLOT_W;
	g->plot_h = H - PLOT_Y - AXIS_H - rows * LEGEND_ROW - BOTTOM;
}

double svg_chart_x(const struct svg_chart *c, uint64_t t)
{
	uint64_t span = c->t1 > c->t0 ? c->t1 - c->t0 : 1;

	if (t <= c->t0)
		return PLOT_X;
	if (t >= c->t0 + span)
		return PLOT_X + PLOT_W;
	return PLOT_X + (double)(t - c->t0) * PLOT_W / (double)span;
}

/* The column of pixels of the plot that @t falls into. */
static int column_of(const struct svg_chart *c, uint64_t t)
{
	int col = (int)(svg_chart_x(c, t) - PLOT_X);

	return col < PLOT_W ? col : PLOT_W - 1;
}

static int64_t clamp_v(int64_t v)
{
	return v > 0 ? v : 0;
}

/* The index of the first point of @s after @t. */
static size_t first_after(const struct svg_series *s, uint64_t t)
{
	size_t lo = 0, hi = s->nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->t[mid] <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int64_t value_at(const struct svg_series *s, uint64_t t)
{
	size_t i = first_after(s, t);

	return i ? clamp_v(s->v[i - 1]) : 0;
}

/*
 * Fill @cols (PLOT_W rows of nr_series values) with the values of the
 * series at the instant of each column where their total is highest:
 * a sweep over the points of all series in time order, the points of
 * one instant taken together. Return the highest total.
 */
static int64_t columns(const struct svg_chart *c, int64_t *cols)
{
	int n = c->nr_series, k, col;
	size_t idx[SVG_CHART_MAX_SERIES];
	int64_t cur[SVG_CHART_MAX_SERIES];
	int64_t top = 0;

	for (k = 0; k < n; k++) {
		idx[k] = first_after(&c->series[k], c->t0);
		cur[k] = idx[k] ? clamp_v(c->series[k].v[idx[k] - 1]) : 0;
	}
	for (col = 0; col < PLOT_W; col++) {
		int64_t *best = cols + (size_t)col * n;
		int64_t best_total = 0, total;

		for (k = 0; k < n; k++)
			best_total += cur[k];
		memcpy(best, cur, n * sizeof(*cur));
		for (;;) {
			uint64_t next = 0;
			bool any = false;

			for (k = 0; k < n; k++) {
				const struct svg_series *s = &c->series[k];

				if (idx[k] == s->nr ||
				    (any && s->t[idx[k]] >= next))
					continue;
				next = s->t[idx[k]];
				any = true;
			}
			if (!any || next > c->t1 || column_of(c, next) > col)
				break;
			total = 0;
			for (k = 0; k < n; k++) {
				const struct svg_series *s = &c->series[k];

				while (idx[k] < s->nr && s->t[idx[k]] == next)
					cur[k] = clamp_v(s->v[idx[k]++]);
				total += cur[k];
			}
			if (total > best_total) {
				best_total = total;
				memcpy(best, cur, n * sizeof(*cur));
			}
		}
		if (best_total > top)
			top = best_total;
	}
	return top;
}

/*
 * Whether @s starts with a well-formed UTF-8 sequence of a character XML
 * allows (no surrogates, no U+FFFE or U+FFFF): its length, else 0.
 */
static int utf8_len(const unsigned char *s)
{
	unsigned char lo = 0x80, hi = 0xbf;
	int len, i;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4;
	else
		return 0;
	if (s[0] == 0xe0)
		lo = 0xa0;
	else if (s[0] == 0xed)
		hi = 0x9f;
	else if (s[0] == 0xf0)
		lo = 0x90;
	else if (s[0] == 0xf4)
		hi = 0x8f;
	for (i = 1; i < len; i++) {
		if (s[i] < lo || s[i] > hi)
			return 0;
		lo = 0x80;
		hi = 0xbf;
	}
	if (s[0] == 0xef && s[1] == 0xbf && (s[2] == 0xbe || s[2] == 0xbf))
		return 0;
	return len;
}

/*
 * @s as XML character data or attribute value, cut to @max characters
 * (and "..."): markup characters as entities, control characters and
 * bytes that are no UTF-8 character XML allows as '?'.
 */
static void put_text(FILE *f, const char *s, int max)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	int nr;

	for (nr = 0; *p; nr++) {
		int len;

		if (nr == max) {
			fputs("...", f);
			return;
		}
		switch (*p) {
		case '&':
			fputs("&amp;", f);
			break;
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '"':
			fputs("&quot;", f);
			break;
		case '\'':
			fputs("&apos;", f);
			break;
		default:
			len = utf8_len(p);
			if (*p < 0x20 || *p == 0x7f || !len) {
				fputc('?', f);
			} else {
				fwrite(p, 1, len, f);
				p += len;
				continue;
			}
		}
		p++;
	}
}

/* The unit of a value: its divisor and its name. */
struct vunit {
	double div;
	const char *name;	/* "" for none */
	bool bytes;
};

static struct vunit value_unit(const struct svg_chart *c, int64_t v)
{
	static const char * const names[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	struct vunit u = { 1, "", false };
	int i = 0;

	if (!c->unit || strcmp(c->unit, "bytes"))
		return u;
	u.bytes = true;
	while (i < 4 && v >= (int64_t)1 << (10 * (i + 1)))
		i++;
	u.div = (double)((int64_t)1 << (10 * i));
	u.name = names[i];
	return u;
}

/*
 * A value as the legend and the peak label print it: "15.6 MiB", "12
 * objects" (or "12" without @unit: bytes always have theirs).
 */
static void format_value(const struct svg_chart *c, int64_t v, bool unit,
			 char *buf, size_t size)
{
	struct vunit u = value_unit(c, v);

	if (!u.bytes)
		snprintf(buf, size, "%" PRId64 "%s%s", v,
			 unit && c->unit ? " " : "",
			 unit && c->unit ? c->unit : "");
	else if (u.div == 1)
		snprintf(buf, size, "%" PRId64 " B", v);
	else
		snprintf(buf, size, "%.1f %s", v / u.div, u.name);
}

/*
 * An instant as the peak label prints it: seconds to the microsecond,
 * rounded as trace-cmd report prints the event's time, so that the
 * time copied from the label selects the event.
 */
static void format_time(const struct svg_chart *c, uint64_t t, char *buf,
			size_t size)
{
	if (c->raw)
		snprintf(buf, size, "%" PRIu64, t);
	else
		snprintf(buf, size, "%" PRIu64 ".%06" PRIu64 " s",
			 (t / 1000 + t % 1000 / 500) / 1000000,
			 (t / 1000 + t % 1000 / 500) % 1000000);
}

/* The value axis: ticks of 1, 2 or 5 times a power of ten of a unit. */
struct yaxis {
	struct vunit u;
	double step;		/* in the unit */
	int nr_steps;
	int decimals;
	int y0, h;		/* pixels: the plot's bottom, its height */
};

static void value_axis(const struct svg_chart *c, int64_t top,
		       const struct svg_geometry *g, struct yaxis *a)
{
	static const double nice[] = { 1, 2, 5, 10 };
	double vmax, raw, mag = 1, s;
	int i;

	a->u = value_unit(c, top);
	vmax = top / a->u.div;
	if (vmax <= 0)
		vmax = 1;
	raw = vmax / 5;
	while (mag * 10 <= raw)
		mag *= 10;
	while (mag > raw)
		mag /= 10;
	for (i = 0; i < 4; i++) {
		a->step = nice[i] * mag;
		if (a->step >= raw)
			break;
	}
	/* Whole bytes and objects. */
	if (a->u.div == 1 && a->step < 1)
		a->step = 1;
	a->nr_steps = (int)(vmax / a->step - EPSILON) + 1;
	a->decimals = 0;
	for (s = a->step; s < 1 - EPSILON && a->decimals < 6; s *= 10)
		a->decimals++;
	a->y0 = g->plot_y + g->plot_h;
	a->h = g->plot_h;
}

static double value_y(const struct yaxis *a, int64_t v)
{
	return a->y0 - v / a->u.div / (a->step * a->nr_steps) * a->h;
}

/* Tenths of a pixel, as paths print y. */
static long tenths(double y)
{
	return (long)(y * 10 + 0.5);
}

static void put_tenths(FILE *f, long t)
{
	fprintf(f, "%ld.%ld", t / 10, t % 10);
}

/*
 * The band of series @k: the steps of the top of the stack up to it,
 * left to right, then those of the stack below it, right to left.
 */
static void put_band(FILE *f, const struct svg_chart *c, const int64_t *cols,
		     const struct yaxis *a, int k, const char *colour)
{
	int n = c->nr_series, col;
	long top[PLOT_W], bottom[PLOT_W];
	long last;

	for (col = 0; col < PLOT_W; col++) {
		const int64_t *v = cols + (size_t)col * n;
		int64_t below = 0;
		int i;

		for (i = 0; i < k; i++)
			below += v[i];
		bottom[col] = tenths(value_y(a, below));
		top[col] = tenths(value_y(a, below + v[k]));
	}
	fprintf(f, "<path fill=\"%s\" d=\"M%d ", colour, PLOT_X);
	put_tenths(f, top[0]);
	last = top[0];
	for (col = 1; col < PLOT_W; col++) {
		if (top[col] == last)
			continue;
		fprintf(f, "H%dV", PLOT_X + col);
		put_tenths(f, top[col]);
		last = top[col];
	}
	fprintf(f, "H%dV", PLOT_X + PLOT_W);
	put_tenths(f, bottom[PLOT_W - 1]);
	last = bottom[PLOT_W - 1];
	for (col = PLOT_W - 2; col >= 0; col--) {
		if (bottom[col] == last)
			continue;
		fprintf(f, "H%dV", PLOT_X + col + 1);
		put_tenths(f, bottom[col]);
		last = bottom[col];
	}
	fprintf(f, "H%dZ\"><title>", PLOT_X);
	put_text(f, c->series[k].name, SVG_CHART_NAME_MAX);
	fputs("</title></path>\n", f);
}

static void put_value_axis(FILE *f, const struct svg_chart *c,
			   const struct yaxis *a, const struct svg_geometry *g)
{
	int i;

	for (i = 0; i <= a->nr_steps; i++) {
		double v = i * a->step;
		double y = a->y0 - (double)i / a->nr_steps * a->h;
		long ty = tenths(y);

		fprintf(f, "<line x1=\"%d\" x2=\"%d\" y1=\"", g->plot_x - 4,
			g->plot_x + g->plot_w);
		put_tenths(f, ty);
		fputs("\" y2=\"", f);
		put_tenths(f, ty);
		fprintf(f, "\" stroke=\"%s\"/>\n", i ? "#e4e4e4" : "#000000");
		fprintf(f, "<text x=\"%d\" y=\"", g->plot_x - 7);
		put_tenths(f, ty + 40);
		if (i == 0)
			fputs("\" text-anchor=\"end\">0</text>\n", f);
		else
			fprintf(f, "\" text-anchor=\"end\">%.*f%s%s</text>\n",
				a->decimals, v, *a->u.name ? " " : "",
				a->u.name);
	}
}

/* Time ticks: 1, 2 or 5 times a power of ten, 7 at most. */
static void put_time_axis(FILE *f, const struct svg_chart *c,
			  const struct svg_geometry *g)
{
	static const uint64_t nice[] = { 1, 2, 5 };
	uint64_t span = c->t1 > c->t0 ? c->t1 - c->t0 : 1;
	uint64_t raw = span / 6 ? span / 6 : 1, mag = 1, step = 1, t;
	int i, digits = 0, decimals;
	int bottom = g->plot_y + g->plot_h;
	char label[32];
	double half;

	for (;;) {
		for (i = 0; i < 3; i++) {
			step = nice[i] * mag;
			if (step >= raw)
				break;
		}
		if (step >= raw || mag > UINT64_MAX / 100)
			break;
		mag *= 10;
		digits++;
	}
	decimals = 9 - digits;
	if (decimals < 1)
		decimals = 1;
	t = c->t0 % step ? c->t0 + (step - c->t0 % step) : c->t0;
	for (; t >= c->t0 && t <= c->t1; t += step) {
		double x = svg_chart_x(c, t);
		uint64_t div = 1;

		fprintf(f,
			"<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\" stroke=\"#e4e4e4\"/>\n",
			x, x, g->plot_y, bottom);
		fprintf(f,
			"<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\" stroke=\"#000000\"/>\n",
			x, x, bottom, bottom + 4);
		if (c->raw) {
			snprintf(label, sizeof(label), "%" PRIu64, t);
		} else {
			for (i = decimals; i < 9; i++)
				div *= 10;
			snprintf(label, sizeof(label), "%" PRIu64 ".%0*" PRIu64,
				 t / NSEC_PER_SEC, decimals,
				 t % NSEC_PER_SEC / div);
		}
		/* The last label, if long, ends at the picture's edge. */
		half = strlen(label) * DIGIT_W / 2;
		fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>\n",
			x + half > W - 2 ? W - 2 - half : x, bottom + 17,
			label);
		if (t > UINT64_MAX - step)
			break;
	}
	fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s</text>\n",
		g->plot_x + g->plot_w, bottom + 34,
		c->raw ? "time (raw timestamps)" : "time (s)");
}

static void put_lost(FILE *f, const struct svg_chart *c,
		     const struct svg_geometry *g)
{
	int i;

	for (i = 0; i < c->nr_lost; i++) {
		const struct svg_span *s = &c->lost[i];
		double x0, x1;

		if (s->to <= s->from || s->to <= c->t0 || s->from >= c->t1)
			continue;
		x0 = svg_chart_x(c, s->from);
		x1 = svg_chart_x(c, s->to);
		if (x1 - x0 < 1)
			x1 = x0 + 1;
		fprintf(f,
			"<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"#606060\" fill-opacity=\"0.35\"><title>",
			x0, g->plot_y, x1 - x0, g->plot_h);
		put_text(f, s->label ? s->label : "lost", NOTE_MAX);
		fputs("</title></rect>\n", f);
		if (!s->label)
			continue;
		fprintf(f, "<text x=\"%.1f\" y=\"%d\" font-size=\"11\" fill=\"#303030\">",
			x0 + 3, g->plot_y + 13);
		put_text(f, s->label, SPAN_LABEL_MAX);
		fputs("</text>\n", f);
	}
}

/*
 * The peak's line, drawn before the bands: it shows above the top edge,
 * and the bands at the peak, however narrow, show in front of it.
 */
static void put_peak_line(FILE *f, const struct svg_chart *c,
			  const struct svg_geometry *g)
{
	long px = (long)(svg_chart_x(c, c->peak_t) + 0.5);

	fprintf(f,
		"<line x1=\"%ld\" x2=\"%ld\" y1=\"%d\" y2=\"%d\" stroke=\"%s\" stroke-width=\"2\"/>\n",
		px, px, PEAK_LABEL_Y - 12, g->plot_y + g->plot_h, PEAK_COLOUR);
}

/* What the marked instant is called: the peak, unless the chart says. */
static const char *peak_name(const struct svg_chart *c)
{
	return c->peak_name ? c->peak_name : "peak";
}

/* Its label, beside the line's top, on the side with more room. */
static void put_peak_label(FILE *f, const struct svg_chart *c,
			   const struct svg_geometry *g)
{
	char when[48], what[48];
	double x = svg_chart_x(c, c->peak_t);
	long px = (long)(x + 0.5);
	bool right = x < g->plot_x + g->plot_w / 2;

	format_time(c, c->peak_t, when, sizeof(when));
	format_value(c, c->peak_v, true, what, sizeof(what));
	fprintf(f,
		"<text x=\"%ld\" y=\"%d\" text-anchor=\"%s\" font-weight=\"bold\">",
		right ? px + 5 : px - 5, PEAK_LABEL_Y,
		right ? "start" : "end");
	put_text(f, peak_name(c), SPAN_LABEL_MAX);
	fprintf(f, " %s: %s</text>\n", when, what);
}

static void put_legend(FILE *f, const struct svg_chart *c,
		       const struct svg_geometry *g)
{
	int top = g->plot_y + g->plot_h + AXIS_H;
	uint64_t at = c->has_peak ? c->peak_t : c->t1;
	char buf[48];
	int k;

	/* "objects at the peak": the legend's values are bare numbers. */
	fprintf(f, "<text x=\"%d\" y=\"%d\">", LEGEND_X, top - 10);
	if (c->unit && strcmp(c->unit, "bytes")) {
		put_text(f, c->unit, SPAN_LABEL_MAX);
		fputc(' ', f);
	}
	fputs("at the ", f);
	put_text(f, c->has_peak ? peak_name(c) : "end", SPAN_LABEL_MAX);
	fputs(", heaviest first:</text>\n", f);
	for (k = 0; k < c->nr_series; k++) {
		const struct svg_series *s = &c->series[k];
		bool other = c->has_other && k == c->nr_series - 1;
		int y = top + k * LEGEND_ROW;

		format_value(c, value_at(s, at), false, buf, sizeof(buf));
		fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\"/>\n",
			LEGEND_X, y + 2,
			other ? OTHER_COLOUR : palette[k % 10]);
		fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s</text>\n",
			LEGEND_X + 100, y + 12, buf);
		fprintf(f, "<text x=\"%d\" y=\"%d\">", LEGEND_X + 108, y + 12);
		put_text(f, s->name, SVG_CHART_NAME_MAX);
		fputs("</text>\n", f);
	}
}

int svg_chart_write(FILE *f, const struct svg_chart *c)
{
	struct svg_geometry g;
	struct yaxis a;
	int64_t *cols = NULL, top;
	int k;

	if (c->nr_series < 0 || c->nr_series > SVG_CHART_MAX_SERIES ||
	    c->nr_lost < 0 || c->t1 <= c->t0) {
		errno = EINVAL;
		return -1;
	}
	if (c->nr_series) {
		cols = calloc((size_t)PLOT_W * c->nr_series, sizeof(*cols));
		if (!cols)
			return -1;
	}
	svg_chart_geometry(c, &g);
	top = c->nr_series ? columns(c, cols) : 0;
	if (c->has_peak && c->peak_v > top)
		top = c->peak_v;
	value_axis(c, top, &g, &a);

	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"DejaVu Sans, Liberation Sans, Arial, sans-serif\" font-size=\"12\" fill=\"#202020\">\n", W, H, W, H);
	fputs("<title>", f);
	put_text(f, c->title, TITLE_MAX);
	fputs("</title>\n", f);
	fprintf(f, "<rect width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>\n",
		W, H);
	fprintf(f,
		"<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" font-size=\"16\" font-weight=\"bold\">",
		W / 2, TITLE_Y);
	put_text(f, c->title, TITLE_MAX);
	fputs("</text>\n", f);
	if (c->note) {
		fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">",
			W / 2, NOTE_Y);
		put_text(f, c->note, NOTE_MAX);
		fputs("</text>\n", f);
	}

	fputs("<g id=\"grid\" shape-rendering=\"crispEdges\">\n", f);
	put_value_axis(f, c, &a, &g);
	put_time_axis(f, c, &g);
	fputs("</g>\n", f);
	if (c->has_peak) {
		fputs("<g id=\"peak\" shape-rendering=\"crispEdges\">\n", f);
		put_peak_line(f, c, &g);
		fputs("</g>\n", f);
	}
	fputs("<g id=\"bands\" shape-rendering=\"crispEdges\">\n", f);
	for (k = 0; k < c->nr_series; k++)
		put_band(f, c, cols, &a, k,
			 c->has_other && k == c->nr_series - 1 ?
			 OTHER_COLOUR : palette[k % 10]);
	fputs("</g>\n<g id=\"lost\" shape-rendering=\"crispEdges\">\n", f);
	put_lost(f, c, &g);
	fputs("</g>\n<g id=\"axes\" shape-rendering=\"crispEdges\" stroke=\"#000000\">\n", f);
	fprintf(f, "<line x1=\"%d\" x2=\"%d\" y1=\"%d\" y2=\"%d\"/>\n",
		g.plot_x, g.plot_x, g.plot_y, g.plot_y + g.plot_h);
	fprintf(f, "<line x1=\"%d\" x2=\"%d\" y1=\"%d\" y2=\"%d\"/>\n",
		g.plot_x, g.plot_x + g.plot_w, g.plot_y + g.plot_h,
		g.plot_y + g.plot_h);
	fputs("</g>\n", f);
	if (c->has_peak)
		put_peak_label(f, c, &g);
	fputs("<g id=\"legend\" shape-rendering=\"crispEdges\">\n", f);
	put_legend(f, c, &g);
	fputs("</g>\n</svg>\n", f);
	free(cols);
	if (fflush(f) || ferror(f)) {
		if (!errno)
			errno = EIO;
		return -1;
	}
	return 0;
}
