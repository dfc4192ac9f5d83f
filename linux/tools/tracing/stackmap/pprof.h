/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A writer of pprof profiles: the perftools.profiles.Profile message of
 * profile.proto (github.com/google/pprof, proto/profile.proto), encoded
 * by hand and gzipped, as "go tool pprof" reads it. Only what a profile
 * of kernel stacks needs: sample types, samples of locations and values,
 * locations with an address and one line of a function, functions with
 * a name, the string table, the time, duration and period, comments
 * and the default sample type. Calls nothing
 * of the CLI; zlib for the gzip.
 */
#ifndef _STACKMAP_PPROF_H
#define _STACKMAP_PPROF_H

#include <stddef.h>
#include <stdint.h>

struct pprof;

struct pprof *pprof_new(void);
void pprof_free(struct pprof *pp);

/* Each call adds a value to every sample: "events"/"count", ... */
int pprof_add_sample_type(struct pprof *pp, const char *type,
			  const char *unit);
/* The period's type and unit, and the period. */
int pprof_set_period(struct pprof *pp, const char *type, const char *unit,
		     int64_t period);
/* A time of 0 is none: go tool pprof then prints no "Time:". */
void pprof_set_time(struct pprof *pp, int64_t time_nanos,
		    int64_t duration_nanos);
/* A line that go tool pprof -comments prints: 0, or -1 if out of memory. */
int pprof_add_comment(struct pprof *pp, const char *comment);
/* Each line of @text (which it splits in place) as a comment. */
int pprof_add_comment_lines(struct pprof *pp, char *text);
/* The sample type go tool pprof shows without -sample_index. */
int pprof_set_default_sample_type(struct pprof *pp, const char *type);
/*
 * The id of the location of @addr in function @name, made on first use:
 * each distinct (address, name) is one location, each name one function.
 * 0 if out of memory.
 */
uint64_t pprof_location(struct pprof *pp, uint64_t addr, const char *name);
/*
 * A sample: @nr_locs location ids, the leaf first, and one value per
 * sample type. 0, or -1 if out of memory.
 */
int pprof_add_sample(struct pprof *pp, const uint64_t *locs, size_t nr_locs,
		     const int64_t *values, size_t nr_values);
/*
 * Write the profile, gzipped, to @fd, which stays open: 0, or -1 with
 * errno set.
 */
int pprof_write(struct pprof *pp, int fd);

#endif /* _STACKMAP_PPROF_H */
