/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The arguments of "stackmap profile" that are parsed rather than taken
 * as they are: trace times and durations, event and weight specs, counts,
 * the time window they make, and the bytes an allocation event stands
 * for. Shared by the command and its fuzz target; calls nothing else.
 */
#ifndef _STACKMAP_PROFARGS_H
#define _STACKMAP_PROFARGS_H

#include <stdbool.h>
#include <stdint.h>

#include "libstackmap.h"

#define PROF_MAX_EVENTS		64
#define PROF_MAX_WEIGHTS	16
#define PROF_MAX_NAME		64	/* with the NUL */
#define PROF_MAX_TOP		1000000UL

/* The pseudo-field of the bytes allocated, for several events at once. */
#define PROF_BYTES		"bytes"

/*
 * A time of the trace, or a duration, in seconds: digits, and at most
 * nine after a point ("12345.000001", as trace-cmd report prints times).
 * 0 and the nanoseconds, or -1 with the reason in @err.
 */
int prof_parse_time(const char *s, uint64_t *ns, struct smap_error *err);
/*
 * The half of the last digit of a time as given, in nanoseconds, so
 * that a time copied from trace-cmd report selects the events it
 * printed so: report rounds a time to the nearest microsecond (so
 * 5.779780 is any time from 5.779779500 to 5.779780499), and a time
 * with fewer digits is read as those microseconds. 500 for up to six
 * digits after the point, 0 for more (the nanoseconds of report -t).
 */
uint64_t prof_time_slack(const char *s);
/*
 * A timestamp as it is, for a trace clock that does not count
 * nanoseconds (counter, x86-tsc, ...): digits only.
 */
int prof_parse_stamp(const char *s, uint64_t *ts, struct smap_error *err);
/* A count of 1 to PROF_MAX_TOP, in decimal. */
int prof_parse_count(const char *s, unsigned long *n,
		     struct smap_error *err);

/* An event given as SYS:NAME, each part a C identifier (or digits). */
struct prof_event_spec {
	char sys[PROF_MAX_NAME];
	char name[PROF_MAX_NAME];
};

int prof_parse_event(const char *s, struct prof_event_spec *ev,
		     struct smap_error *err);
/* A weight: a field name (a C identifier), or PROF_BYTES. */
int prof_parse_weight(const char *s, struct smap_error *err);
/* The unit of a weight in a profile: "bytes" for bytes and bytes_*. */
const char *prof_weight_unit(const char *weight);

/**
 * struct prof_window - the time window the options ask for
 * @from, @to: --from and --to, if has_from, has_to
 * @last: --last, a duration, if has_last
 * @at: --at, where the --last window ends, if has_at
 * @raw: the times are timestamps of a clock that does not count
 *	nanoseconds, not nanoseconds (printed as they are)
 */
struct prof_window {
	bool has_from, has_to, has_last, has_at;
	uint64_t from, to, last, at;
	bool raw;
};

/*
 * Check the options of @w against each other, before the trace is read:
 * 0, or -1 for --from after --to, --last with --from or --to, --at
 * without --last.
 */
int prof_window_check(const struct prof_window *w, struct smap_error *err);
/*
 * The window [*from, *to], both edges included, for a trace whose
 * events run from @first to @last: --from and --to default to the
 * trace's edges; --last takes the seconds before --at, else before
 * @last. 0, or -1 as prof_window_check().
 */
int prof_window_resolve(const struct prof_window *w, uint64_t first,
			uint64_t last, uint64_t *from, uint64_t *to,
			struct smap_error *err);

/* What the bytes of an event are, by its system and name. */
enum prof_bytes {
	PROF_BYTES_NONE,	/* it has none */
	PROF_BYTES_ALLOC,	/* its bytes_alloc field (slab, kmalloc) */
	PROF_BYTES_PAGES,	/* page size << its order (mm_page_alloc) */
};

enum prof_bytes prof_bytes_kind(const char *sys, const char *name);

/* What an event does to the memory of a layer, for profile --inuse. */
enum prof_mem {
	PROF_MEM_NONE,
	PROF_MEM_SLAB_ALLOC,	/* kmalloc(_node), kmem_cache_alloc: ptr */
	PROF_MEM_SLAB_FREE,	/* kfree, kmem_cache_free: ptr */
	PROF_MEM_PAGE_ALLOC,	/* mm_page_alloc: pfn, order */
	PROF_MEM_PAGE_FREE,	/* mm_page_free: pfn, order */
	PROF_MEM_PAGE_FREE_BATCHED,	/* mm_page_free_batched: pfn */
};

enum prof_mem prof_mem_kind(const char *sys, const char *name);

/* The allocator layers, as inuse.h numbers them. */
#define PROF_LAYER_SLAB	0
#define PROF_LAYER_PAGE	1
/* --layer slab|page: 0 and the layer, or -1. */
int prof_parse_layer(const char *s, int *layer, struct smap_error *err);
/* "slab" or "page". */
const char *prof_layer_name(int layer);
/* @page_size << @order: 0, or -1 if it does not fit in 63 bits. */
int prof_page_bytes(uint64_t page_size, uint64_t order, uint64_t *bytes);

/* "S.FFFFFFFFF" of @ns into @buf, as the window is printed. */
void prof_format_time(char *buf, size_t len, uint64_t ns);
/* @t as prof_format_time(), or as it is for a raw window. */
void prof_window_format(const struct prof_window *w, char *buf, size_t len,
			uint64_t t);

#endif /* _STACKMAP_PROFARGS_H */
