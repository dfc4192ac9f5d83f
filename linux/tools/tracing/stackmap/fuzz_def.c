// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the kernel_stack_def decoder and the table of
 * definitions.
 *
 * Input: one byte of layout flags (bit 0: 4-byte longs, bit 1: big
 * endian), the offsets of id, depth and caller[], then records, each a
 * length byte, a time step byte (-3..4 in its low 3 bits, the boot, 0..2,
 * in the others) and that many bytes. Every record must either decode
 * within its bytes, or be rejected with a message naming an offset
 * inside it. What the decoded ones teach the table must answer every
 * lookup as a plain list of all of them does: the latest definition of
 * the id in the boot at or before the time, else the first after it
 * (smap_deftab_add()); the one read last (smap_deftab_set()); never one
 * of another boot.
 */
#include <stdlib.h>
#include <string.h>

#include "libstackmap.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_DEFS	64

/* Every definition decoded, in input order: the model of the table. */
static struct {
	uint64_t ts;
	uint32_t boot;
	struct smap_def def;
} model[MAX_DEFS];

static void check_offset(const struct smap_error *err, size_t size)
{
	unsigned long long off;

	if (sscanf(err->msg, "offset %llu:", &off) != 1 || off > size)
		abort();
}

/* Read the record back, byte by byte, the other way round. */
static void check_decoded(const struct smap_def_layout *lay,
			  const uint8_t *rec, size_t len,
			  const struct smap_def *def)
{
	uint32_t i, b;
	uint64_t v;

	if (!def->depth || def->depth > SMAP_DEF_MAX_DEPTH ||
	    lay->caller_off + (uint64_t)def->depth * lay->long_size > len)
		abort();
	for (i = 0; i < def->depth; i++) {
		const uint8_t *p = rec + lay->caller_off + i * lay->long_size;

		v = 0;
		for (b = 0; b < lay->long_size; b++)
			v |= (uint64_t)p[lay->big_endian ?
					 lay->long_size - 1 - b : b] << (8 * b);
		if (v != def->addrs[i])
			abort();
	}
}

static bool same(const struct smap_stack *st, const struct smap_def *def)
{
	return st && st->depth == def->depth &&
	       !memcmp(st->addrs, def->addrs, def->depth * sizeof(def->addrs[0]));
}

/* The definition of @id of @boot at @ts by the time rule, from the model. */
static const struct smap_def *model_find(int nr, uint32_t boot, uint32_t id,
					 uint64_t ts)
{
	int i, best = -1, first = -1;

	for (i = 0; i < nr; i++) {
		if (model[i].def.id != id || model[i].boot != boot)
			continue;
		/* Ties in time: the one read last is the latest. */
		if (model[i].ts <= ts &&
		    (best < 0 || model[i].ts >= model[best].ts))
			best = i;
		if (first < 0 || model[i].ts < model[first].ts)
			first = i;
	}
	if (best < 0)
		best = first;
	return best < 0 ? NULL : &model[best].def;
}

/* The definition of @id of @boot read last. */
static const struct smap_def *model_last(int nr, uint32_t boot, uint32_t id)
{
	while (nr-- > 0)
		if (model[nr].def.id == id && model[nr].boot == boot)
			return &model[nr].def;
	return NULL;
}

static void check_find(const struct smap_deftab *t, int nr, uint32_t boot,
		       uint32_t id, uint64_t ts)
{
	const struct smap_def *want = model_find(nr, boot, id, ts);
	const struct smap_stack *got = smap_deftab_find(t, boot, id, ts);

	if (want ? !same(got, want) : !!got)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct smap_deftab all = { 0 }, last = { 0 };
	struct smap_def_layout lay;
	struct smap_error err;
	struct smap_def def;
	uint64_t ts = 1000;
	size_t pos = 4;
	int nr = 0, i;

	if (size < 4)
		return 0;
	lay.long_size = data[0] & 1 ? 4 : 8;
	lay.big_endian = data[0] & 2;
	lay.id_off = data[1] % 64;
	lay.depth_off = data[2] % 64;
	lay.caller_off = data[3] % 64;
	while (pos + 2 <= size && nr < MAX_DEFS) {
		size_t len = data[pos];
		const uint8_t *rec = data + pos + 2;
		uint32_t boot = (data[pos + 1] >> 3) % 3;

		/* Forward, and back as across CPUs, and ties. */
		ts = ts + data[pos + 1] % 8 - 3;
		pos += 2;
		if (len > size - pos)
			len = size - pos;
		pos += len;
		if (smap_def_decode(&lay, rec, len, &def, &err)) {
			check_offset(&err, len);
			continue;
		}
		check_decoded(&lay, rec, len, &def);
		if (smap_deftab_add(&all, boot, &def, ts) ||
		    smap_deftab_set(&last, boot, &def))
			abort();
		model[nr].ts = ts;
		model[nr].boot = boot;
		model[nr++].def = def;
	}
	for (i = 0; i < nr; i++) {
		uint32_t id = model[i].def.id, boot = model[i].boot;

		check_find(&all, nr, boot, id, model[i].ts);
		check_find(&all, nr, boot, id, model[i].ts - 1);
		check_find(&all, nr, boot, id, model[i].ts + 1);
		check_find(&all, nr, boot, id, 0);
		check_find(&all, nr, boot, id, UINT64_MAX);
		check_find(&all, nr, boot, id ^ 1, model[i].ts);
		check_find(&all, nr, (boot + 1) % 3, id, model[i].ts);
		/* The last definition of the id, whatever the time. */
		if (!same(smap_deftab_find(&last, boot, id, 0),
			  model_last(nr, boot, id)))
			abort();
	}
	if (all.nr_defs != (uint64_t)nr || all.nr_stacks > all.nr_defs ||
	    last.nr_ids != all.nr_ids || last.nr_defs != last.nr_ids ||
	    last.nr_stacks != last.nr_ids)
		abort();
	smap_deftab_free(&all);
	smap_deftab_free(&last);
	return 0;
}
