// SPDX-License-Identifier: GPL-2.0-only
/*
 * The floor of exact deduplication. Whatever else a depot does with a
 * stack it is given, it hashes the frames and compares them once with the
 * stored copy the hash led to; a full stack event copies them instead.
 * bench_floor() does those two and nothing else, with the library's own
 * hash and the word compare of sdlf_record_match(), and is built with the
 * library, with the kernel's flags (see the Makefile), so that its
 * instruction count is the least any exact get_id could cost.
 */
#include "harness.h"

u32 bench_floor(const unsigned long *entries, const unsigned long *stored,
		unsigned int nr_entries);

u32 bench_floor(const unsigned long *entries, const unsigned long *stored,
		unsigned int nr_entries)
{
	u32 hash = sdlf_hash(entries, nr_entries);
	unsigned long diff = 0;
	size_t i = nr_entries & 1;

	if (i)
		diff = stored[0] ^ entries[0];
	for (; i < nr_entries; i += 2)
		diff |= (stored[i] ^ entries[i]) |
			(stored[i + 1] ^ entries[i + 1]);
	return diff ? 0 : hash;
}
