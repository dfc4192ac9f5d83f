// SPDX-License-Identifier: GPL-2.0
/*
 * The stacks learned from kernel_stack_def records, by id.
 *
 * An open-addressing hash table (linear probing, grown at half full)
 * of the boot token and the whole 32-bit id. Each id keeps all its definitions, sorted by
 * timestamp: the same id can be defined again with other frames once
 * the 32-bit id space wraps, and then the definition that applies to an
 * id entry is the one in force at its time. Each clear of the buffer
 * writes every definition again; a definition with the frames of one
 * next to it in time shares them, so the frames are kept once per
 * distinct stack and a repeated definition costs its place in time
 * only. None is dropped: one added later, out of time order, between
 * two that repeat each other, would change what applies after it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "libstackmap.h"

#define DEFTAB_MIN_SLOTS	64U
#define DEFTAB_MAX_SLOTS	0x80000000U

static uint32_t deftab_hash(uint32_t boot, uint32_t id)
{
	id = (id ^ boot * 0x85ebca6bU) * 0x9e3779b1U;
	return id ^ id >> 16;
}

static struct smap_deftab_entry *deftab_slot(const struct smap_deftab *t,
					     uint32_t boot, uint32_t id)
{
	uint32_t mask = t->nr_slots - 1, i = deftab_hash(boot, id) & mask;

	while (t->slots[i].defs &&
	       (t->slots[i].id != id || t->slots[i].boot != boot))
		i = (i + 1) & mask;
	return &t->slots[i];
}

static int deftab_grow(struct smap_deftab *t)
{
	struct smap_deftab old = *t;
	uint32_t i;

	if (t->nr_slots >= DEFTAB_MAX_SLOTS) {
		errno = ENOMEM;
		return -1;
	}
	t->nr_slots = t->nr_slots ? t->nr_slots * 2 : DEFTAB_MIN_SLOTS;
	t->slots = calloc(t->nr_slots, sizeof(*t->slots));
	if (!t->slots) {
		*t = old;
		return -1;
	}
	for (i = 0; i < old.nr_slots; i++)
		if (old.slots[i].defs)
			*deftab_slot(t, old.slots[i].boot,
				     old.slots[i].id) = old.slots[i];
	free(old.slots);
	return 0;
}

/*
 * The entry of @id in @boot, a new one if it has none; NULL if out of
 * memory.
 */
static struct smap_deftab_entry *deftab_entry(struct smap_deftab *t,
					      uint32_t boot, uint32_t id)
{
	struct smap_deftab_entry *e;

	if (t->nr_slots) {
		e = deftab_slot(t, boot, id);
		if (e->defs)
			return e;
	}
	if ((uint64_t)(t->nr_ids + 1) * 2 > t->nr_slots && deftab_grow(t))
		return NULL;
	e = deftab_slot(t, boot, id);
	e->defs = calloc(1, sizeof(*e->defs));
	if (!e->defs)
		return NULL;
	e->boot = boot;
	e->id = id;
	e->nr = 0;
	e->cap = 1;
	t->nr_ids++;
	return e;
}

static struct smap_stack *stack_new(const struct smap_def *def)
{
	struct smap_stack *st;

	st = malloc(sizeof(*st) + def->depth * sizeof(st->addrs[0]));
	if (!st)
		return NULL;
	st->refs = 1;
	st->depth = def->depth;
	memcpy(st->addrs, def->addrs, def->depth * sizeof(st->addrs[0]));
	return st;
}

static void stack_put(struct smap_deftab *t, struct smap_stack *st)
{
	if (--st->refs)
		return;
	free(st);
	t->nr_stacks--;
}

static bool stack_same(const struct smap_stack *st, const struct smap_def *def)
{
	return st->depth == def->depth &&
	       !memcmp(st->addrs, def->addrs,
		       def->depth * sizeof(st->addrs[0]));
}

int smap_deftab_set(struct smap_deftab *t, uint32_t boot,
		    const struct smap_def *def)
{
	struct smap_deftab_entry *e;
	struct smap_stack *st;
	uint32_t i;

	st = stack_new(def);
	if (!st)
		return -1;
	e = deftab_entry(t, boot, def->id);
	if (!e) {
		free(st);
		return -1;
	}
	for (i = 0; i < e->nr; i++)
		stack_put(t, e->defs[i].stack);
	t->nr_defs -= e->nr;
	e->defs[0].ts = 0;
	e->defs[0].stack = st;
	e->nr = 1;
	t->nr_defs++;
	t->nr_stacks++;
	return 0;
}

/* The index of the first definition of @e after @ts. */
static uint32_t first_after(const struct smap_deftab_entry *e, uint64_t ts)
{
	uint32_t lo = 0, hi = e->nr;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (e->defs[mid].ts <= ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int smap_deftab_add(struct smap_deftab *t, uint32_t boot,
		    const struct smap_def *def, uint64_t ts)
{
	struct smap_deftab_entry *e;
	struct smap_stack *st = NULL;
	uint32_t at;

	e = deftab_entry(t, boot, def->id);
	if (!e)
		return -1;
	if (e->nr == e->cap) {
		struct smap_deftab_def *d;

		if (e->cap > UINT32_MAX / 2) {
			errno = ENOMEM;
			return -1;
		}
		d = realloc(e->defs, 2 * e->cap * sizeof(*d));
		if (!d)
			return -1;
		e->defs = d;
		e->cap *= 2;
	}
	at = first_after(e, ts);
	if (at && stack_same(e->defs[at - 1].stack, def))
		st = e->defs[at - 1].stack;
	else if (at < e->nr && stack_same(e->defs[at].stack, def))
		st = e->defs[at].stack;
	if (st) {
		st->refs++;
	} else {
		st = stack_new(def);
		if (!st)
			return -1;
		t->nr_stacks++;
	}
	memmove(e->defs + at + 1, e->defs + at,
		(e->nr - at) * sizeof(e->defs[0]));
	e->defs[at].ts = ts;
	e->defs[at].stack = st;
	e->nr++;
	t->nr_defs++;
	return 0;
}

const struct smap_stack *smap_deftab_find(const struct smap_deftab *t,
					  uint32_t boot, uint32_t id,
					  uint64_t ts)
{
	const struct smap_deftab_entry *e;
	uint32_t at;

	if (!t->nr_slots)
		return NULL;
	e = deftab_slot(t, boot, id);
	if (!e->defs || !e->nr)
		return NULL;
	at = first_after(e, ts);
	return e->defs[at ? at - 1 : 0].stack;
}

void smap_deftab_free(struct smap_deftab *t)
{
	uint32_t i, j;

	for (i = 0; i < t->nr_slots; i++) {
		for (j = 0; j < t->slots[i].nr; j++)
			stack_put(t, t->slots[i].defs[j].stack);
		free(t->slots[i].defs);
	}
	free(t->slots);
	memset(t, 0, sizeof(*t));
}
