// SPDX-License-Identifier: GPL-2.0
/*
 * The parsed arguments of "stackmap profile" (profargs.h). Strict: a
 * number is digits only (no sign, space, exponent or hex), and every
 * value that does not fit is an error, never wrapped or clamped.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "profargs.h"

#define NSEC_PER_SEC	1000000000ULL

static int fail(struct smap_error *err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return -1;
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* Digits of @s into @v up to the first non-digit; false on overflow. */
static bool parse_digits(const char **s, uint64_t *v, int *nr)
{
	*v = 0;
	*nr = 0;
	for (; is_digit(**s); (*s)++, (*nr)++) {
		if (__builtin_mul_overflow(*v, 10, v) ||
		    __builtin_add_overflow(*v, **s - '0', v))
			return false;
	}
	return true;
}

int prof_parse_time(const char *s, uint64_t *ns, struct smap_error *err)
{
	uint64_t sec, frac = 0;
	int nr, nr_frac = 0;

	if (!parse_digits(&s, &sec, &nr))
		return fail(err, "too large");
	if (!nr)
		return fail(err, "not a time in seconds (S or S.FFFFFFFFF)");
	if (*s == '.') {
		s++;
		if (!parse_digits(&s, &frac, &nr_frac) || nr_frac > 9)
			return fail(err, "more than 9 digits after the point");
		if (!nr_frac)
			return fail(err, "no digits after the point");
	}
	if (*s)
		return fail(err, "not a time in seconds (S or S.FFFFFFFFF)");
	for (; nr_frac < 9; nr_frac++)
		frac *= 10;
	if (__builtin_mul_overflow(sec, NSEC_PER_SEC, ns) ||
	    __builtin_add_overflow(*ns, frac, ns))
		return fail(err, "too large");
	return 0;
}

uint64_t prof_time_slack(const char *s)
{
	const char *point = strchr(s, '.');

	return point && strlen(point + 1) > 6 ? 0 : 500;
}

int prof_parse_stamp(const char *s, uint64_t *ts, struct smap_error *err)
{
	int nr;

	if (!parse_digits(&s, ts, &nr))
		return fail(err, "too large");
	if (!nr || *s)
		return fail(err,
			    "not a timestamp (digits): the trace clock does not count nanoseconds");
	return 0;
}

int prof_parse_count(const char *s, unsigned long *n, struct smap_error *err)
{
	uint64_t v;
	int nr;

	if (!parse_digits(&s, &v, &nr) || (!*s && v > PROF_MAX_TOP))
		return fail(err, "not a count from 1 to %lu", PROF_MAX_TOP);
	if (!nr || *s || !v)
		return fail(err, "not a count from 1 to %lu", PROF_MAX_TOP);
	*n = v;
	return 0;
}

static bool is_ident_char(char c, bool first)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
	       (!first && is_digit(c));
}

/*
 * The length of the name at @s, up to @end or the end of @s: letters,
 * digits and _, and a digit first only if @digit_first; 0 if none.
 */
static size_t name_len(const char *s, char end, bool digit_first)
{
	size_t n;

	for (n = 0; s[n] && s[n] != end; n++)
		if (!is_ident_char(s[n], !n && !digit_first))
			return 0;
	return n;
}

int prof_parse_event(const char *s, struct prof_event_spec *ev,
		     struct smap_error *err)
{
	const char *colon = strchr(s, ':');
	size_t nsys, nname;

	if (!colon)
		return fail(err, "not SYS:NAME");
	/* A system may start with a digit (9p), and so may a name. */
	nsys = name_len(s, ':', true);
	nname = name_len(colon + 1, '\0', true);
	if (!nsys || nsys != (size_t)(colon - s) || !nname ||
	    colon[1 + nname])
		return fail(err, "not SYS:NAME (letters, digits and _)");
	if (nsys >= PROF_MAX_NAME || nname >= PROF_MAX_NAME)
		return fail(err, "longer than %d characters",
			    PROF_MAX_NAME - 1);
	memcpy(ev->sys, s, nsys);
	ev->sys[nsys] = '\0';
	memcpy(ev->name, colon + 1, nname);
	ev->name[nname] = '\0';
	return 0;
}

int prof_parse_weight(const char *s, struct smap_error *err)
{
	size_t n = name_len(s, '\0', false);

	if (!n || s[n])
		return fail(err, "not a field name (letters, digits and _)");
	if (n >= PROF_MAX_NAME)
		return fail(err, "longer than %d characters",
			    PROF_MAX_NAME - 1);
	return 0;
}

const char *prof_weight_unit(const char *weight)
{
	if (!strcmp(weight, PROF_BYTES) || !strncmp(weight, "bytes_", 6))
		return "bytes";
	return "count";
}

int prof_window_check(const struct prof_window *w, struct smap_error *err)
{
	if (w->has_last && (w->has_from || w->has_to))
		return fail(err, "--last cannot be combined with --from or --to");
	if (w->has_at && !w->has_last)
		return fail(err, "--at needs --last");
	if (w->has_from && w->has_to && w->from > w->to) {
		char from[32], to[32];

		prof_window_format(w, from, sizeof(from), w->from);
		prof_window_format(w, to, sizeof(to), w->to);
		return fail(err, "--from %s is after --to %s", from, to);
	}
	return 0;
}

int prof_window_resolve(const struct prof_window *w, uint64_t first,
			uint64_t last, uint64_t *from, uint64_t *to,
			struct smap_error *err)
{
	uint64_t end;

	if (prof_window_check(w, err))
		return -1;
	if (w->has_last) {
		end = w->has_at ? w->at : last;
		*from = end > w->last ? end - w->last : 0;
		*to = end;
		return 0;
	}
	*from = w->has_from ? w->from : first;
	*to = w->has_to ? w->to : last;
	if (*from > *to) {
		char a[32], b[32];

		prof_window_format(w, a, sizeof(a), *from);
		prof_window_format(w, b, sizeof(b), *to);
		return fail(err, "empty window: from %s to %s", a, b);
	}
	return 0;
}

enum prof_bytes prof_bytes_kind(const char *sys, const char *name)
{
	static const char * const alloc[] = {
		"kmem_cache_alloc", "kmalloc", "kmalloc_node",
	};
	size_t i;

	if (strcmp(sys, "kmem"))
		return PROF_BYTES_NONE;
	for (i = 0; i < ARRAY_SIZE(alloc); i++)
		if (!strcmp(name, alloc[i]))
			return PROF_BYTES_ALLOC;
	if (!strcmp(name, "mm_page_alloc"))
		return PROF_BYTES_PAGES;
	return PROF_BYTES_NONE;
}

enum prof_mem prof_mem_kind(const char *sys, const char *name)
{
	static const struct {
		const char *name;
		enum prof_mem kind;
	} kinds[] = {
		{ "kmem_cache_alloc", PROF_MEM_SLAB_ALLOC },
		{ "kmalloc", PROF_MEM_SLAB_ALLOC },
		{ "kmalloc_node", PROF_MEM_SLAB_ALLOC },
		{ "kfree", PROF_MEM_SLAB_FREE },
		{ "kmem_cache_free", PROF_MEM_SLAB_FREE },
		{ "mm_page_alloc", PROF_MEM_PAGE_ALLOC },
		{ "mm_page_free", PROF_MEM_PAGE_FREE },
		{ "mm_page_free_batched", PROF_MEM_PAGE_FREE_BATCHED },
	};
	size_t i;

	if (strcmp(sys, "kmem"))
		return PROF_MEM_NONE;
	for (i = 0; i < ARRAY_SIZE(kinds); i++)
		if (!strcmp(name, kinds[i].name))
			return kinds[i].kind;
	return PROF_MEM_NONE;
}

int prof_parse_layer(const char *s, int *layer, struct smap_error *err)
{
	if (!strcmp(s, "slab"))
		*layer = PROF_LAYER_SLAB;
	else if (!strcmp(s, "page"))
		*layer = PROF_LAYER_PAGE;
	else
		return fail(err, "not a layer: slab (objects) or page (pages)");
	return 0;
}

const char *prof_layer_name(int layer)
{
	return layer == PROF_LAYER_PAGE ? "page" : "slab";
}

int prof_page_bytes(uint64_t page_size, uint64_t order, uint64_t *bytes)
{
	if (order >= 63 || page_size > (UINT64_MAX >> 1) >> order)
		return -1;
	*bytes = page_size << order;
	return 0;
}

void prof_format_time(char *buf, size_t len, uint64_t ns)
{
	snprintf(buf, len, "%llu.%09llu",
		 (unsigned long long)(ns / NSEC_PER_SEC),
		 (unsigned long long)(ns % NSEC_PER_SEC));
}

void prof_window_format(const struct prof_window *w, char *buf, size_t len,
			uint64_t t)
{
	if (w->raw)
		snprintf(buf, len, "%llu", (unsigned long long)t);
	else
		prof_format_time(buf, len, t);
}
