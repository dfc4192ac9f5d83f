// SPDX-License-Identifier: GPL-2.0
/*
 * Decoder of one kernel_stack_def record.
 *
 * The caller finds the record and the layout of its fields, through
 * libtraceevent or otherwise; this file only reads bytes, so that the
 * plugin and "stackmap report" read a definition alike and a fuzz target
 * can check it without a trace. A record is read only within its @size
 * bytes, and one that does not hold all its frames teaches nothing.
 */
#include "libstackmap.h"

/* A @size-byte number of the traced kernel at @p, whatever the host. */
static uint64_t def_read(const struct smap_def_layout *lay, const uint8_t *p,
			 unsigned int size)
{
	uint64_t v = 0;
	unsigned int i;

	for (i = 0; i < size; i++) {
		if (lay->big_endian)
			v = v << 8 | p[i];
		else
			v |= (uint64_t)p[i] << (8 * i);
	}
	return v;
}

int smap_def_decode(const struct smap_def_layout *lay, const void *data,
		    size_t size, struct smap_def *def, struct smap_error *err)
{
	const uint8_t *p = data;
	uint64_t end;
	uint32_t i;

	def->id = 0;
	def->depth = 0;
	if (lay->long_size != 4 && lay->long_size != 8) {
		smap_err(err, 0, "long size %u: not 4 or 8", lay->long_size);
		return -1;
	}
	if ((uint64_t)lay->id_off + 4 > size) {
		smap_err(err, size, "record ends before the id (offset %u)",
			 lay->id_off);
		return -1;
	}
	def->id = def_read(lay, p + lay->id_off, 4);
	if ((uint64_t)lay->depth_off + 4 > size) {
		smap_err(err, size, "record ends before the depth (offset %u)",
			 lay->depth_off);
		return -1;
	}
	def->depth = def_read(lay, p + lay->depth_off, 4);
	if (!def->depth || def->depth > SMAP_DEF_MAX_DEPTH) {
		smap_err(err, lay->depth_off, "depth %u: not 1..%u", def->depth,
			 SMAP_DEF_MAX_DEPTH);
		return -1;
	}
	end = lay->caller_off + (uint64_t)def->depth * lay->long_size;
	if (end > size) {
		smap_err(err, size, "record ends before frame %llu of %u",
			 size < lay->caller_off ? 0ULL :
			 (unsigned long long)(size - lay->caller_off) /
			 lay->long_size, def->depth);
		return -1;
	}
	for (i = 0; i < def->depth; i++)
		def->addrs[i] = def_read(lay, p + lay->caller_off +
					 (size_t)i * lay->long_size,
					 lay->long_size);
	return 0;
}
