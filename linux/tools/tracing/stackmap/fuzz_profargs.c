// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the arguments "stackmap profile" parses
 * (profargs.c), linked as the CLI links them: times and durations,
 * counts, event and weight specs, the window they make, and the bytes of
 * a page allocation. The first byte picks which window options are
 * given, and whether the clock counts nanoseconds; the rest is split at
 * NULs into the values, the last two the edges of the trace.
 */
#include <stdlib.h>
#include <string.h>

#include "profargs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* An accepted time prints back to itself, up to trailing zeros. */
static void check_time(const char *s)
{
	struct smap_error err;
	char buf[32], *dot;
	uint64_t ns, again;

	if (!prof_parse_stamp(s, &ns, &err) &&
	    (!*s || strspn(s, "0123456789") != strlen(s)))
		abort();
	if (prof_parse_time(s, &ns, &err)) {
		if (!err.msg[0])
			abort();
		return;
	}
	prof_format_time(buf, sizeof(buf), ns);
	if (prof_parse_time(buf, &again, &err) || again != ns)
		abort();
	dot = strchr(s, '.');
	if (strncmp(buf, s, dot ? (size_t)(dot - s) : strlen(s)) &&
	    strspn(s, "0") == 0)
		abort();
}

static void check_specs(const char *s)
{
	struct prof_event_spec ev;
	struct smap_error err;
	unsigned long n;
	char buf[2 * PROF_MAX_NAME + 1];

	if (!prof_parse_event(s, &ev, &err)) {
		snprintf(buf, sizeof(buf), "%s:%s", ev.sys, ev.name);
		if (strcmp(buf, s) || !ev.sys[0] || !ev.name[0])
			abort();
	}
	if (!prof_parse_weight(s, &err) &&
	    (!*s || strlen(s) >= PROF_MAX_NAME || strchr(s, ':')))
		abort();
	if (!prof_parse_count(s, &n, &err) && (!n || n > PROF_MAX_TOP))
		abort();
}

static void check_window(uint8_t flags, const uint64_t *v)
{
	struct prof_window w = {
		.has_from = flags & 1, .has_to = flags & 2,
		.has_last = flags & 4, .has_at = flags & 8,
		.from = v[0], .to = v[1], .last = v[2], .at = v[3],
		.raw = flags & 16,
	};
	uint64_t first = v[4], last = v[5], from, to, bytes;
	struct smap_error err;

	if (first > last)
		return;
	if (prof_window_resolve(&w, first, last, &from, &to, &err))
		return;
	if (prof_window_check(&w, &err) || from > to)
		abort();
	if (w.has_from && from != w.from)
		abort();
	if (w.has_to && to != w.to)
		abort();
	if (w.has_last && (to != (w.has_at ? w.at : last) ||
			   to - from > w.last))
		abort();
	if (!prof_page_bytes(v[0], v[1], &bytes) &&
	    (v[1] >= 63 || bytes >> v[1] != v[0] || bytes > INT64_MAX))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t v[6] = { };
	char *s, *p;
	size_t i;

	if (!size)
		return 0;
	s = malloc(size);
	if (!s)
		return 0;
	memcpy(s, data + 1, size - 1);
	s[size - 1] = '\0';
	/* Each string, and each as a time into the window's values. */
	for (p = s, i = 0; p < s + size; p += strlen(p) + 1, i++) {
		struct smap_error err;

		check_time(p);
		check_specs(p);
		if (i < ARRAY_SIZE(v) && prof_parse_time(p, &v[i], &err))
			v[i] = strtoull(p, NULL, 0);
	}
	check_window(data[0], v);
	free(s);
	return 0;
}
