// SPDX-License-Identifier: GPL-2.0
/*
 * Memory in use at an instant, by allocation stack (inuse.h). One
 * replay machine serves the three questions: what is held after an op
 * (mem_inuse()), after which op a layer held most (mem_find_peak()),
 * and how much each stack held over time (mem_series()). The held
 * allocations of a layer are a hash table of their addresses, a page
 * per pfn; each op costs one lookup per object or page.
 */
#include <stdlib.h>
#include <string.h>

#include "inuse.h"

long mem_ops_add(struct mem_ops *ops, const struct mem_op *op)
{
	struct mem_op *v;
	size_t cap;

	if (ops->nr == ops->cap) {
		cap = ops->cap ? 2 * ops->cap : 1024;
		v = realloc(ops->v, cap * sizeof(*v));
		if (!v)
			return -1;
		ops->v = v;
		ops->cap = cap;
	}
	ops->v[ops->nr] = *op;
	return ops->nr++;
}

/*
 * libtracecmd hands a buffer's events over in time order, so the ops
 * come sorted, unless a CPU's clock went backwards: then a stable merge
 * sort puts them in order, ops of one time as they came.
 */
static void merge_sort(struct mem_op *v, struct mem_op *tmp, size_t n)
{
	size_t mid = n / 2, i = 0, j = mid, k = 0;

	if (n < 2)
		return;
	merge_sort(v, tmp, mid);
	merge_sort(v + mid, tmp, n - mid);
	if (v[mid - 1].ts <= v[mid].ts)
		return;
	while (i < mid && j < n)
		tmp[k++] = v[j].ts < v[i].ts ? v[j++] : v[i++];
	while (i < mid)
		tmp[k++] = v[i++];
	while (j < n)
		tmp[k++] = v[j++];
	memcpy(v, tmp, n * sizeof(*v));
}

/*
 * Ops of one time on several CPUs happened in no known order, but each
 * CPU's in its own: a CPU's free and another's allocation of the same
 * address at one nanosecond are a free, then the address given out
 * again. Order the ops of one time so, each CPU's kept in its order:
 * while some CPU's next op is a free, take it first.
 */
static void order_ties(struct mem_op *v, size_t n, struct mem_op *tmp)
{
	size_t i, k, taken = 0;
	bool *done = calloc(n, sizeof(*done));

	if (!done)
		return;
	while (taken < n) {
		size_t pick = n;

		/* The CPUs' next ops: the first not taken of each CPU. */
		for (i = 0; i < n && pick == n; i++) {
			if (done[i] || !v[i].is_free)
				continue;
			for (k = 0; k < i; k++)
				if (!done[k] && v[k].cpu == v[i].cpu)
					break;
			if (k == i)
				pick = i;
		}
		for (i = 0; pick == n && i < n; i++)
			if (!done[i])
				pick = i;
		done[pick] = true;
		tmp[taken++] = v[pick];
	}
	memcpy(v, tmp, n * sizeof(*v));
	free(done);
}

static void order_all_ties(struct mem_ops *ops, struct mem_op *tmp)
{
	size_t a, b, i;

	for (a = 0; a < ops->nr; a = b) {
		bool cpus = false;

		for (b = a + 1; b < ops->nr && ops->v[b].ts == ops->v[a].ts; b++)
			cpus |= ops->v[b].cpu != ops->v[a].cpu;
		for (i = a; cpus && i < b; i++)
			if (ops->v[i].is_free)
				break;
		if (cpus && i < b)
			order_ties(ops->v + a, b - a, tmp);
	}
}

void mem_ops_sort(struct mem_ops *ops)
{
	struct mem_op *tmp = malloc((ops->nr + 1) * sizeof(*tmp));
	size_t i, j;

	for (i = 1; i < ops->nr; i++)
		if (ops->v[i].ts < ops->v[i - 1].ts)
			break;
	if (tmp) {
		if (i < ops->nr)
			merge_sort(ops->v, tmp, ops->nr);
		order_all_ties(ops, tmp);
		free(tmp);
		return;
	}
	/* Out of memory: slower, in place, still stable; ties as they came. */
	for (; i < ops->nr; i++) {
		struct mem_op op = ops->v[i];

		for (j = i; j > 0 && ops->v[j - 1].ts > op.ts; j--)
			ops->v[j] = ops->v[j - 1];
		ops->v[j] = op;
	}
}

void mem_ops_free(struct mem_ops *ops)
{
	free(ops->v);
	memset(ops, 0, sizeof(*ops));
}

size_t mem_ops_find(const struct mem_ops *ops, uint64_t ts)
{
	size_t lo = 0, hi = ops->nr, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (ops->v[mid].ts < ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* A held object, or page. */
struct held {
	uint64_t addr;
	uint64_t ts;
	uint64_t bytes;
	uint32_t stack;
	uint32_t run;	/* the first page of an allocation: its pages */
	bool used;
};

/* The held objects of a layer: linear probing, deletion by shifting. */
struct held_tab {
	struct held *v;
	size_t nr, cap;
};

static size_t held_hash(uint64_t addr, size_t cap)
{
	addr ^= addr >> 33;
	addr *= 0xff51afd7ed558ccdULL;
	addr ^= addr >> 33;
	return addr & (cap - 1);
}

static struct held *held_find(struct held_tab *tab, uint64_t addr)
{
	size_t i;

	if (!tab->cap)
		return NULL;
	for (i = held_hash(addr, tab->cap); tab->v[i].used;
	     i = (i + 1) & (tab->cap - 1))
		if (tab->v[i].addr == addr)
			return &tab->v[i];
	return NULL;
}

static int held_grow(struct held_tab *tab)
{
	size_t cap = tab->cap ? 2 * tab->cap : 4096, i, j;
	struct held *v = calloc(cap, sizeof(*v));

	if (!v)
		return -1;
	for (i = 0; i < tab->cap; i++) {
		if (!tab->v[i].used)
			continue;
		for (j = held_hash(tab->v[i].addr, cap); v[j].used;
		     j = (j + 1) & (cap - 1))
			;
		v[j] = tab->v[i];
	}
	free(tab->v);
	tab->v = v;
	tab->cap = cap;
	return 0;
}

/* A new entry for @addr, which is not in @tab; NULL if out of memory. */
static struct held *held_insert(struct held_tab *tab, uint64_t addr)
{
	size_t i;

	if (2 * (tab->nr + 1) > tab->cap && held_grow(tab))
		return NULL;
	for (i = held_hash(addr, tab->cap); tab->v[i].used;
	     i = (i + 1) & (tab->cap - 1))
		;
	tab->nr++;
	tab->v[i].addr = addr;
	tab->v[i].used = true;
	return &tab->v[i];
}

static void held_remove(struct held_tab *tab, struct held *h)
{
	size_t mask = tab->cap - 1, i = h - tab->v, j = i, home;

	tab->nr--;
	for (;;) {
		tab->v[i].used = false;
		/* Move back the next entry that may not stay past the hole. */
		for (;;) {
			j = (j + 1) & mask;
			if (!tab->v[j].used)
				return;
			home = held_hash(tab->v[j].addr, tab->cap);
			if (i <= j ? (home <= i || home > j) :
				     (home <= i && home > j))
				break;
		}
		tab->v[i] = tab->v[j];
		i = j;
	}
}

/* The replay: what each layer holds, by stack, as the ops go by. */
struct replay {
	struct held_tab held[MEM_NR_LAYERS];
	uint32_t nr_stacks;
	/* What a stack holds now: [layer][stack], or NULL if not kept. */
	struct mem_use *use[MEM_NR_LAYERS];
	struct mem_layer_sum sum[MEM_NR_LAYERS];
};

static void replay_free(struct replay *r)
{
	int l;

	for (l = 0; l < MEM_NR_LAYERS; l++)
		free(r->held[l].v);
}

static void unhold(struct replay *r, int l, struct held *h)
{
	struct mem_use *u = r->use[l] ? &r->use[l][h->stack] : NULL;

	if (u) {
		u->inuse_objects--;
		u->inuse_bytes -= h->bytes;
	}
	r->sum[l].total.inuse_objects--;
	r->sum[l].total.inuse_bytes -= h->bytes;
	held_remove(&r->held[l], h);
}

/* One op: 0, or -1 if out of memory. */
static int replay_op(struct replay *r, const struct mem_op *op)
{
	struct mem_layer_sum *sum = &r->sum[op->layer];
	struct held_tab *tab = &r->held[op->layer];
	struct mem_use *u = NULL;
	uint32_t i, nr = op->nr;
	struct held *h;

	if (op->layer >= MEM_NR_LAYERS)
		return 0;
	if (!op->is_free && op->stack < r->nr_stacks && r->use[op->layer])
		u = &r->use[op->layer][op->stack];
	/* A free of the allocation that starts there, whatever its size. */
	if (!nr) {
		h = held_find(tab, op->addr);
		nr = h && h->run ? h->run : 1;
	}
	for (i = 0; i < nr; i++) {
		h = held_find(tab, op->addr + i);
		if (op->is_free) {
			if (h)
				unhold(r, op->layer, h);
			else
				sum->unknown_frees++;
			continue;
		}
		if (h) {
			sum->reused_objects++;
			sum->reused_bytes += h->bytes;
			unhold(r, op->layer, h);
		}
		h = held_insert(tab, op->addr + i);
		if (!h)
			return -1;
		h->ts = op->ts;
		h->bytes = op->bytes;
		h->run = i ? 0 : op->nr;
		h->stack = op->stack < r->nr_stacks ? op->stack : 0;
		sum->total.inuse_objects++;
		sum->total.inuse_bytes += op->bytes;
		sum->total.alloc_objects++;
		sum->total.alloc_bytes += op->bytes;
		if (u) {
			u->inuse_objects++;
			u->inuse_bytes += op->bytes;
			u->alloc_objects++;
			u->alloc_bytes += op->bytes;
		}
	}
	return 0;
}

void mem_inuse_free(struct mem_inuse *res)
{
	int l;

	for (l = 0; l < MEM_NR_LAYERS; l++) {
		free(res->use[l]);
		res->use[l] = NULL;
	}
}

/*
 * Of the gaps that began before the instant @at, the one that ends
 * last: memory allocated before its end may have been freed in a gap.
 */
static const struct mem_gap *last_gap(const struct mem_gap *gaps,
				      int nr_gaps, uint64_t at)
{
	const struct mem_gap *g = NULL;
	int i;

	for (i = 0; i < nr_gaps; i++)
		if (gaps[i].from < at && (!g || gaps[i].to > g->to))
			g = &gaps[i];
	return g;
}

int mem_inuse(const struct mem_ops *ops, size_t first, size_t last,
	      uint64_t at, uint32_t nr_stacks, const struct mem_gap *gaps,
	      int nr_gaps, struct mem_inuse *res)
{
	struct replay r = { .nr_stacks = nr_stacks };
	const struct mem_gap *gap;
	struct mem_use *u;
	size_t i;
	int l, ret = -1;

	memset(res, 0, sizeof(*res));
	res->nr_stacks = nr_stacks;
	for (l = 0; l < MEM_NR_LAYERS; l++) {
		r.use[l] = calloc(nr_stacks + 1, sizeof(*r.use[l]));
		if (!r.use[l])
			goto out;
		res->use[l] = r.use[l];
	}
	for (i = first; i < last; i++)
		if (replay_op(&r, &ops->v[i]))
			goto out;
	gap = last_gap(gaps, nr_gaps, at);
	for (l = 0; l < MEM_NR_LAYERS; l++) {
		res->sum[l] = r.sum[l];
		if (!gap)
			continue;
		/* Held, but maybe freed in the gap: unsure, in no stack. */
		for (i = 0; i < r.held[l].cap; i++) {
			struct held *h = &r.held[l].v[i];

			if (!h->used || h->ts >= gap->to)
				continue;
			u = &res->use[l][h->stack];
			u->inuse_objects--;
			u->inuse_bytes -= h->bytes;
			res->sum[l].total.inuse_objects--;
			res->sum[l].total.inuse_bytes -= h->bytes;
			res->sum[l].unsure_objects++;
			res->sum[l].unsure_bytes += h->bytes;
			res->sum[l].unsure_gap = *gap;
		}
	}
	ret = 0;
out:
	replay_free(&r);
	return ret;
}

int mem_find_peak(const struct mem_ops *ops, size_t first, size_t last,
		  enum mem_layer layer, struct mem_peak *peak)
{
	struct replay r = { 0 };
	const struct mem_use *t = &r.sum[layer].total;
	size_t i;

	memset(peak, 0, sizeof(*peak));
	for (i = first; i < last; i++) {
		if (ops->v[i].layer != layer)
			continue;
		if (replay_op(&r, &ops->v[i])) {
			replay_free(&r);
			return -1;
		}
		/* Ops of one time happen at once: no instant between them. */
		if (i + 1 < last && ops->v[i + 1].ts == ops->v[i].ts)
			continue;
		if (!t->inuse_bytes || (peak->found &&
					t->inuse_bytes <= peak->bytes))
			continue;
		peak->found = true;
		peak->index = i;
		peak->ts = ops->v[i].ts;
		peak->bytes = t->inuse_bytes;
		peak->objects = t->inuse_objects;
	}
	replay_free(&r);
	return 0;
}

static int series_add(struct mem_series *s, uint64_t t, int64_t v)
{
	void *p;
	size_t cap;

	if (s->nr && s->v[s->nr - 1] == v)
		return 0;
	/* A later value at the same time replaces the earlier. */
	if (s->nr && s->t[s->nr - 1] == t) {
		s->v[s->nr - 1] = v;
		if (s->nr > 1 && s->v[s->nr - 2] == v)
			s->nr--;
		return 0;
	}
	if (s->nr == s->cap) {
		cap = s->cap ? 2 * s->cap : 256;
		p = realloc(s->t, cap * sizeof(*s->t));
		if (!p)
			return -1;
		s->t = p;
		p = realloc(s->v, cap * sizeof(*s->v));
		if (!p)
			return -1;
		s->v = p;
		s->cap = cap;
	}
	s->t[s->nr] = t;
	s->v[s->nr++] = v;
	return 0;
}

void mem_series_free(struct mem_series *s, int nr)
{
	int i;

	for (i = 0; i < nr; i++) {
		free(s[i].t);
		free(s[i].v);
		memset(&s[i], 0, sizeof(s[i]));
	}
}

int mem_series(const struct mem_ops *ops, size_t first, size_t last,
	       enum mem_layer layer, uint32_t nr_stacks,
	       const uint32_t *stacks, int nr, struct mem_series *out)
{
	struct replay r = { .nr_stacks = nr_stacks };
	uint64_t start = first < last ? ops->v[first].ts : 0;
	int64_t others, v;
	size_t i;
	int k, ret = -1;

	memset(out, 0, (nr + 1) * sizeof(*out));
	r.use[layer] = calloc(nr_stacks + 1, sizeof(*r.use[layer]));
	if (!r.use[layer])
		return -1;
	for (k = 0; k <= nr; k++)
		if (series_add(&out[k], start, 0))
			goto out;
	for (i = first; i < last; i++) {
		const struct mem_op *op = &ops->v[i];

		if (op->layer != layer)
			continue;
		if (replay_op(&r, op))
			goto out;
		others = r.sum[layer].total.inuse_bytes;
		for (k = 0; k < nr; k++) {
			v = r.use[layer][stacks[k]].inuse_bytes;
			others -= v;
			if (series_add(&out[k], op->ts, v))
				goto out;
		}
		if (series_add(&out[nr], op->ts, others))
			goto out;
	}
	ret = 0;
out:
	free(r.use[layer]);
	replay_free(&r);
	if (ret)
		mem_series_free(out, nr + 1);
	return ret;
}
