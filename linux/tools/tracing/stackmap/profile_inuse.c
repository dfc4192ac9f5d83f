// SPDX-License-Identifier: GPL-2.0
/*
 * "stackmap profile --inuse T|peak": the memory each allocation stack
 * held at an instant, as a heap profiler's in-use view answers it.
 *
 * The allocations (kmalloc, kmem_cache_alloc; mm_page_alloc) and frees
 * (kfree, kmem_cache_free; mm_page_free) of one buffer become ops,
 * each allocation with the stack the kernel wrote after it on its CPU,
 * and inuse.c replays them in time order, matching each free to its
 * allocation by address. The replay starts where every CPU still holds
 * its events (a CPU that lost its oldest events would otherwise hide
 * the frees of what others allocated), unless --from says otherwise.
 *
 * 6.12 traces mm_page_free for every page it frees; free_unref_folios()
 * then traces mm_page_free_batched for the same page: when both are in
 * the trace the batched one is the duplicate, and only a trace without
 * mm_page_free takes it as the free (of one page, its only field).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "outfile.h"
#include "profile.h"
#include "svgchart.h"

/* Stacks drawn in the --svg picture; the others are one band. */
#define INUSE_SVG_STACKS	8
/* ZERO_SIZE_PTR and NULL: no object, though kfree() traces them. */
#define INUSE_NO_OBJECT		16

struct inuse {
	struct profile *p;
	struct tep_handle *tep;
	uint32_t no_stack;	/* the index of "[no stack]" */
	int layer;		/* of the peak, --folded, --pprof, --svg */
	size_t first, end;	/* the replay: ops[first, end) */
	size_t last;		/* what is held after ops[last - 1] */
	uint64_t from, at;
	struct mem_peak peak;
	struct mem_gap *gaps;
	int nr_gaps;
	struct mem_inuse res;
};

/* The fields of an allocation or free event; false if it lacks one. */
static bool mem_fields(struct prof_type *t)
{
	struct tep_event *ev = t->event;

	if (t->addr)
		return true;
	switch (t->mem) {
	case PROF_MEM_SLAB_ALLOC:
		t->size = tep_find_field(ev, "bytes_alloc");
		fallthrough;
	case PROF_MEM_SLAB_FREE:
		t->addr = tep_find_field(ev, "ptr");
		break;
	case PROF_MEM_PAGE_ALLOC:
	case PROF_MEM_PAGE_FREE:
		t->size = tep_find_field(ev, "order");
		fallthrough;
	case PROF_MEM_PAGE_FREE_BATCHED:
		t->addr = tep_find_field(ev, "pfn");
		break;
	default:
		return false;
	}
	if (!prof_is_numeric(t->addr) ||
	    (t->size && !prof_is_numeric(t->size)) ||
	    ((t->mem == PROF_MEM_SLAB_ALLOC || t->mem == PROF_MEM_PAGE_ALLOC ||
	      t->mem == PROF_MEM_PAGE_FREE) && !t->size)) {
		t->addr = NULL;
		return false;
	}
	return true;
}

/* A field's all-ones value: the pfn of a failed page allocation. */
static bool all_ones(const struct tep_format_field *f, int64_t v)
{
	uint64_t mask = f->size >= 8 ? UINT64_MAX : (1ULL << 8 * f->size) - 1;

	return ((uint64_t)v & mask) == mask;
}

/* The op of a memory event: 1 and @op, 0 for none, -1 if malformed. */
static int make_op(struct inuse *in, struct prof_type *t,
		   struct tep_record *rec, struct mem_op *op)
{
	int64_t addr, size = 0;

	if (!mem_fields(t) || !prof_read_field(t->addr, rec, &addr) ||
	    (t->size && !prof_read_field(t->size, rec, &size)))
		return -1;
	memset(op, 0, sizeof(*op));
	op->ts = rec->ts;
	op->cpu = rec->cpu;
	op->addr = addr;
	op->nr = 1;
	op->stack = in->no_stack;
	switch (t->mem) {
	case PROF_MEM_SLAB_ALLOC:
	case PROF_MEM_SLAB_FREE:
		if ((uint64_t)addr <= INUSE_NO_OBJECT)
			return 0;
		if (size < 0)
			return -1;
		op->layer = MEM_SLAB;
		op->is_free = t->mem == PROF_MEM_SLAB_FREE;
		op->bytes = size;
		return 1;
	default:
		break;
	}
	if (all_ones(t->addr, addr))
		return 0;
	if (size < 0 || size > MEM_MAX_ORDER)
		return -1;
	op->layer = MEM_PAGE;
	op->nr = 1U << size;
	op->bytes = in->p->page_size;
	op->is_free = t->mem != PROF_MEM_PAGE_ALLOC;
	/*
	 * Kept apart until the trace tells whether it is a duplicate; it
	 * frees the allocation that starts at its pfn (free_unref_folios()
	 * frees folios of any order it keeps per CPU).
	 */
	if (t->mem == PROF_MEM_PAGE_FREE_BATCHED) {
		op->layer = MEM_NR_LAYERS;
		op->nr = 0;
	}
	if (t->mem == PROF_MEM_PAGE_FREE)
		in->p->has_page_free = true;
	return 1;
}

/* The collection pass: the ops of the buffer, with their stacks. */
static int inuse_record(struct tracecmd_input *handle,
			struct tep_record *record, int cpu, void *data)
{
	struct td_buffer *b = tracecmd_get_private(handle);
	struct tep_event *ev = tep_find_event_by_record(tracecmd_get_tep(handle),
							record);
	struct inuse *in = data;
	struct profile *p = in->p;
	struct prof_pending *pend;
	struct prof_stack key, *st;
	struct prof_type *t;
	struct prof_cpu *c;
	struct mem_op op;
	uint64_t ctx;
	long idx;
	int ret;

	if (record->cpu < 0 || record->cpu >= p->nr_cpus)
		return 0;
	c = &p->pending[record->cpu];
	if (record->missed_events)
		prof_clear(p, c, NULL);
	if (p->has_boot && !td_in_boot(b, record, p->boot))
		return 0;
	/* A marker may come between an event and its stack: none of its own. */
	if (td_is_event(ev, STACKEVENT_DEF) ||
	    td_is_event(ev, STACKEVENT_USER) ||
	    td_is_event(ev, STACKEVENT_BOOT))
		return 0;
	ctx = prof_context(in->tep, record);
	if (td_is_event(ev, STACKEVENT_ID) ||
	    td_is_event(ev, STACKEVENT_FULL)) {
		p->nr_stack_events++;
		pend = prof_take(p, c, ctx, NULL);
		if (!pend || pend->op < 0)
			return 0;
		prof_stack_key(p, b, ev, record, pend->type->event->name,
			       &key);
		st = prof_intern(p, &key);
		if (!st)
			goto nomem;
		p->ops.v[pend->op].stack = st->idx;
		return 0;
	}
	/*
	 * Every event waits for its stack, so that a stack goes to its
	 * own event; an allocation that meets none keeps "[no stack]".
	 */
	pend = prof_push(p, c, ctx, NULL);
	if (!ev || !prof_mem_kind(ev->system, ev->name))
		return 0;
	t = prof_find_type(p, ev);
	if (!t)
		goto nomem;
	ret = make_op(in, t, record, &op);
	if (ret < 0)
		p->nr_mem_bad++;
	if (ret <= 0)
		return 0;
	idx = mem_ops_add(&p->ops, &op);
	if (idx < 0)
		goto nomem;
	if (op.layer < MEM_NR_LAYERS)
		p->has_layer[op.layer] = true;
	if (op.layer < MEM_NR_LAYERS && !op.is_free)
		p->has_alloc[op.layer] = true;
	if (!op.is_free) {
		pend->op = idx;
		pend->type = t;
	}
	return 0;
nomem:
	prof_nomem();
	return -1;
}

/* Keep the batched frees of a trace without mm_page_free, drop others. */
static void settle_batched(struct profile *p)
{
	size_t i;

	for (i = 0; i < p->ops.nr; i++) {
		if (p->ops.v[i].layer != MEM_NR_LAYERS)
			continue;
		if (p->has_page_free) {
			p->nr_batched_dropped++;
		} else {
			p->ops.v[i].layer = MEM_PAGE;
			p->has_layer[MEM_PAGE] = true;
		}
	}
}

/*
 * Where the replay starts by default: the latest first event of the
 * CPUs that lost what came before it.
 */
static uint64_t held_by_all(const struct td_buffer *b, uint64_t first)
{
	uint64_t start = UINT64_MAX;
	int cpu;

	/* The buffer's own first event, not the first of all buffers. */
	for (cpu = 0; cpu < b->nr_cpus; cpu++)
		if (b->cpus[cpu].nr_records && b->cpus[cpu].first_ts < start)
			start = b->cpus[cpu].first_ts;
	if (start == UINT64_MAX || start < first)
		start = first;

	for (cpu = 0; cpu < b->nr_cpus; cpu++) {
		const struct td_cpu *c = &b->cpus[cpu];

		if (c->nr_gaps && !c->gaps[0].from && c->first_ts > start)
			start = c->first_ts;
	}
	return start;
}

static int make_gaps(struct inuse *in, const struct td_buffer *b)
{
	int cpu, k, n = 0;

	for (cpu = 0; cpu < b->nr_cpus; cpu++)
		n += b->cpus[cpu].nr_gaps;
	in->gaps = calloc(n + 1, sizeof(*in->gaps));
	if (!in->gaps)
		return -1;
	for (cpu = 0; cpu < b->nr_cpus; cpu++) {
		for (k = 0; k < b->cpus[cpu].nr_gaps; k++) {
			in->gaps[in->nr_gaps].from = b->cpus[cpu].gaps[k].from;
			in->gaps[in->nr_gaps].to = b->cpus[cpu].gaps[k].to;
			in->gaps[in->nr_gaps++].cpu = cpu;
		}
	}
	return 0;
}

static const char *unit_of(int layer)
{
	return layer == MEM_PAGE ? "pages" : "objects";
}

static const struct inuse *sort_inuse;

static int cmp_inuse(const void *a, const void *b)
{
	const struct mem_use *u = sort_inuse->res.use[sort_inuse->layer];
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	if (u[x].inuse_bytes != u[y].inuse_bytes)
		return u[x].inuse_bytes > u[y].inuse_bytes ? -1 : 1;
	if (u[x].inuse_objects != u[y].inuse_objects)
		return u[x].inuse_objects > u[y].inuse_objects ? -1 : 1;
	if (u[x].alloc_bytes != u[y].alloc_bytes)
		return u[x].alloc_bytes > u[y].alloc_bytes ? -1 : 1;
	return x < y ? -1 : x > y;
}

/*
 * The stacks of @layer that held or allocated memory, heaviest at the
 * instant first: how many into *@v, or -1 if out of memory.
 */
static long ranked(struct inuse *in, int layer, uint32_t **v)
{
	const struct mem_use *u = in->res.use[layer];
	uint32_t i;
	long n = 0;

	*v = malloc((in->res.nr_stacks + 1) * sizeof(**v));
	if (!*v)
		return -1;
	for (i = 0; i < in->res.nr_stacks; i++)
		if (u[i].inuse_objects || u[i].alloc_objects)
			(*v)[n++] = i;
	sort_inuse = in;
	in->layer = layer;
	qsort(*v, n, sizeof(**v), cmp_inuse);
	return n;
}

static int digits(uint64_t v)
{
	char buf[32];

	return snprintf(buf, sizeof(buf), "%llu", (unsigned long long)v);
}

static void fmt_time(const struct profile *p, char *buf, size_t len,
		     uint64_t t)
{
	prof_window_format(&p->win, buf, len, t);
	if (!p->win.raw)
		strncat(buf, " s", len - strlen(buf) - 1);
}

/* The replay's start as the user gave it (--from), or where it is. */
static const char *start_of(const struct inuse *in, char *buf, size_t len)
{
	if (in->p->win.has_from && !in->p->win.raw)
		snprintf(buf, len, "%s s", in->p->time_args[0]);
	else
		fmt_time(in->p, buf, len, in->from);
	return buf;
}

/*
 * The instant as the user gave it (the events trace-cmd report printed
 * at that time are in), or the peak's time.
 */
static const char *instant(const struct inuse *in, char *buf, size_t len)
{
	if (in->p->inuse_peak)
		fmt_time(in->p, buf, len, in->at);
	else
		snprintf(buf, len, "%s%s", in->p->time_args[4],
			 in->p->win.raw ? "" : " s");
	return buf;
}

/* What the layer's figures leave out, one line each, into @f. */
static void print_apart(struct inuse *in, int layer, FILE *f,
			const char *prefix)
{
	const struct mem_layer_sum *s = &in->res.sum[layer];
	const char *unit = unit_of(layer);
	char a[40], b[40], c[40];

	start_of(in, a, sizeof(a));
	if (s->unknown_frees)
		fprintf(f,
			"%s%s layer, not in the table: frees of %s that no allocation since %s holds (allocated before it, or by a path the kernel does not trace): %llu\n",
			prefix, prof_layer_name(layer), unit, a,
			(unsigned long long)s->unknown_frees);
	if (s->reused_objects)
		fprintf(f,
			"%s%s layer, not in the table: %s allocated again at their address before a free of it (their free is not in the trace): %llu (%llu bytes)\n",
			prefix, prof_layer_name(layer), unit,
			(unsigned long long)s->reused_objects,
			(unsigned long long)s->reused_bytes);
	if (s->unsure_objects) {
		fmt_time(in->p, b, sizeof(b), s->unsure_gap.to);
		if (s->unsure_gap.from)
			prof_window_format(&in->p->win, c, sizeof(c),
					   s->unsure_gap.from);
		fprintf(f,
			"%s%s layer, not in the table: %s held but allocated before cpu%d %s%s%s %s (their free may be in what it lost): %llu (%llu bytes)\n",
			prefix, prof_layer_name(layer), unit,
			s->unsure_gap.cpu,
			s->unsure_gap.from ? "dropped events from " :
					     "lost its events before",
			s->unsure_gap.from ? c : "",
			s->unsure_gap.from ? " to" : "", b,
			(unsigned long long)s->unsure_objects,
			(unsigned long long)s->unsure_bytes);
	}
}

static double share(uint64_t part, uint64_t total)
{
	return total ? 100.0 * part / total : 0.0;
}

static void print_layer(struct inuse *in, int layer)
{
	const struct mem_layer_sum *s = &in->res.sum[layer];
	const struct mem_use *u;
	const char *unit = unit_of(layer);
	int wrank, wobj, wbytes, indent;
	char at[48], from[40], sym[512];
	struct prof_stack *st;
	uint64_t objects, bytes;
	long n, r, held;
	uint32_t *v, f;

	instant(in, at, sizeof(at));
	start_of(in, from, sizeof(from));
	if (!in->p->has_layer[layer]) {
		printf("%s layer: no allocations or frees of it in the trace\n",
		       prof_layer_name(layer));
		return;
	}
	n = ranked(in, layer, &v);
	if (n < 0) {
		prof_nomem();
		return;
	}
	u = in->res.use[layer];
	fprintf(stdout,
		"%s layer: %llu %s (%llu bytes) held at %s; %llu %s (%llu bytes) allocated from %s",
		prof_layer_name(layer),
		(unsigned long long)s->total.inuse_objects, unit,
		(unsigned long long)s->total.inuse_bytes, at,
		(unsigned long long)s->total.alloc_objects, unit,
		(unsigned long long)s->total.alloc_bytes, from);
	/* Held for sure, and what may be held: never one figure. */
	if (s->unsure_objects)
		printf("; %llu %s (%llu bytes) more may be held (below)",
		       (unsigned long long)s->unsure_objects, unit,
		       (unsigned long long)s->unsure_bytes);
	putchar('\n');
	/* Only the stacks that hold something, at most --top of them. */
	for (held = 0; held < n && u[v[held]].inuse_objects; held++)
		;
	n = held < (long)in->p->top ? held : (long)in->p->top;
	wrank = digits(n) > 4 ? digits(n) : 4;
	wobj = digits(s->total.inuse_objects) > 7 ?
	       digits(s->total.inuse_objects) : 7;
	wbytes = digits(s->total.inuse_bytes) > 5 ?
		 digits(s->total.inuse_bytes) : 5;
	if (n)
		printf("%*s  %*s  %*s   share  stack\n", wrank, "rank", wobj,
		       unit, wbytes, "bytes");
	indent = wrank + 2 + wobj + 2 + wbytes + 2 + 8;
	for (r = 0; r < n; r++) {
		st = in->p->by_idx[v[r]];
		printf("%*ld  %*llu  %*llu  %5.1f%%", wrank, r + 1, wobj,
		       (unsigned long long)u[v[r]].inuse_objects, wbytes,
		       (unsigned long long)u[v[r]].inuse_bytes,
		       share(u[v[r]].inuse_bytes, s->total.inuse_bytes));
		if (prof_frameless(st, sym, sizeof(sym))) {
			printf("  %s\n", sym);
			continue;
		}
		for (f = 0; f < st->depth; f++) {
			prof_format_frame(sym, sizeof(sym), in->tep,
					  st->addrs[f], true);
			printf("%*s%s\n", f ? indent : 2, "", sym);
		}
	}
	/* The rest in one row, so that the rows add up to the total. */
	for (r = n, objects = bytes = 0; r < held; r++) {
		objects += u[v[r]].inuse_objects;
		bytes += u[v[r]].inuse_bytes;
	}
	if (held > n)
		printf("%*s  %*llu  %*llu  %5.1f%%  (%ld other stacks)\n",
		       wrank, "-", wobj, (unsigned long long)objects, wbytes,
		       (unsigned long long)bytes,
		       share(bytes, s->total.inuse_bytes), held - n);
	print_apart(in, layer, stdout, "# ");
	free(v);
}

static void print_header(struct inuse *in, FILE *f, const char *prefix)
{
	char at[48], from[40];

	start_of(in, from, sizeof(from));
	fprintf(f, "%s%s: in use at %s", prefix, in->p->td.path,
		instant(in, at, sizeof(at)));
	if (in->p->inuse_peak)
		fprintf(f, ", the peak of the %s layer: %llu bytes in %llu %s",
			prof_layer_name(in->layer),
			(unsigned long long)in->peak.bytes,
			(unsigned long long)in->peak.objects,
			unit_of(in->layer));
	fprintf(f, "; replayed from %s%s%s\n", from,
		in->p->instance ? ", instance " : "",
		in->p->instance ? in->p->instance : "");
}

static int print_inuse_top(struct inuse *in)
{
	int layer = in->layer;

	print_header(in, stdout, "# ");
	prof_print_spans(in->p, stdout, "# ", in->from, in->at);
	if (in->p->layer >= 0) {
		print_layer(in, in->p->layer);
		return 0;
	}
	/* Pages first: the memory every other layer is carved from. */
	print_layer(in, MEM_PAGE);
	print_layer(in, MEM_SLAB);
	in->layer = layer;
	return 0;
}

static int print_inuse_folded(struct inuse *in)
{
	const struct mem_use *u;
	uint32_t *v;
	long n, r;
	char *s;

	n = ranked(in, in->layer, &v);
	if (n < 0) {
		prof_nomem();
		return EXIT_FAILURE;
	}
	u = in->res.use[in->layer];
	for (r = 0; r < n; r++) {
		if (!u[v[r]].inuse_bytes)
			continue;
		s = prof_fold_stack(in->tep, in->p->by_idx[v[r]]);
		if (!s) {
			free(v);
			prof_nomem();
			return EXIT_FAILURE;
		}
		printf("%s %llu\n", s, (unsigned long long)u[v[r]].inuse_bytes);
		free(s);
	}
	free(v);
	print_apart(in, in->layer, stderr, "stackmap: profile: ");
	return 0;
}

static struct inuse *fill_inuse;

/* The heap profile: Go's four sample types, of one layer. */
static int fill_inuse_pprof(struct profile *p, struct tep_handle *tep,
			    struct pprof *pp)
{
	struct inuse *in = fill_inuse;
	const struct mem_use *u;
	uint64_t *locs = NULL;
	char *text = NULL;
	int64_t values[4];
	size_t len = 0;
	uint32_t *v, n;
	long nr, r;
	int ret = -1;
	FILE *f;

	nr = ranked(in, in->layer, &v);
	if (nr < 0)
		return -1;
	u = in->res.use[in->layer];
	if (pprof_add_sample_type(pp, "alloc_objects", "count") ||
	    pprof_add_sample_type(pp, "alloc_space", "bytes") ||
	    pprof_add_sample_type(pp, "inuse_objects", "count") ||
	    pprof_add_sample_type(pp, "inuse_space", "bytes") ||
	    pprof_set_default_sample_type(pp, "inuse_space") ||
	    pprof_set_period(pp, "space", "bytes", 1))
		goto out;
	pprof_set_time(pp, 0, p->win.raw ? 0 : in->at - in->from);
	f = open_memstream(&text, &len);
	if (!f)
		goto out;
	print_header(in, f, "");
	fprintf(f,
		"%s layer: alloc_* count what was allocated from the replay's start, inuse_* what was held at the instant; %s counts %s\n",
		prof_layer_name(in->layer), prof_layer_name(in->layer),
		unit_of(in->layer));
	print_apart(in, in->layer, f, "");
	if (fclose(f))
		goto out;
	if (pprof_add_comment_lines(pp, text))
		goto out;
	if (prof_pprof_comments(p, pp, "replay", in->from, in->at))
		goto out;
	locs = malloc(PROF_MAX_DEPTH * sizeof(*locs));
	if (!locs)
		goto out;
	for (r = 0; r < nr; r++) {
		n = prof_pprof_locations(pp, tep, p->by_idx[v[r]], locs);
		if (!n)
			goto out;
		values[0] = u[v[r]].alloc_objects;
		values[1] = u[v[r]].alloc_bytes;
		values[2] = u[v[r]].inuse_objects;
		values[3] = u[v[r]].inuse_bytes;
		if (pprof_add_sample(pp, locs, n, values, 4))
			goto out;
	}
	ret = 0;
out:
	free(text);
	free(locs);
	free(v);
	return ret;
}

/* The allocators' own functions, which every stack of a layer shares. */
static bool is_allocator(const char *name)
{
	static const char * const prefixes[] = {
		"__alloc_pages", "alloc_pages", "__folio_alloc", "folio_alloc",
		"alloc_slab_page", "allocate_slab", "new_slab", "___slab_alloc",
		"__slab_alloc", "slab_alloc", "kmem_cache_alloc", "__kmalloc",
		"kmalloc", "__kvmalloc", "kvmalloc", "get_page_from_freelist",
		"rmqueue", "__do_kmalloc", "___kmalloc_large", "__kmalloc_large",
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(prefixes); i++)
		if (!strncmp(name, prefixes[i], strlen(prefixes[i])))
			return true;
	return false;
}

/*
 * A stack for a legend: the leaf, the allocator's function its caller
 * called, and the first two callers outside the allocator, which tell
 * the stacks of one layer apart.
 */
static char *legend_name(struct inuse *in, const struct prof_stack *st)
{
	char sym[512], *s = NULL;
	uint32_t i, j, last;
	size_t len = 0;
	FILE *f = open_memstream(&s, &len);

	if (!f)
		return NULL;
	if (prof_frameless(st, sym, sizeof(sym)))
		fputs(sym, f);
	for (j = 1; j < st->depth; j++) {
		prof_format_frame(sym, sizeof(sym), in->tep, st->addrs[j],
				  false);
		if (!is_allocator(sym))
			break;
	}
	last = j + 2 < st->depth ? j + 2 : st->depth;
	for (i = 0; i < last; i++) {
		if (i && i + 1 < j) {
			if (i == 1)
				fputs(" <- ...", f);
			continue;
		}
		prof_format_frame(sym, sizeof(sym), in->tep, st->addrs[i],
				  false);
		fprintf(f, "%s%s", i ? " <- " : "", sym);
	}
	if (fclose(f)) {
		free(s);
		return NULL;
	}
	return s;
}

static int write_svg(struct inuse *in)
{
	struct mem_series series[INUSE_SVG_STACKS + 1];
	struct svg_series ss[INUSE_SVG_STACKS + 1];
	struct svg_span lost[64];
	char *names[INUSE_SVG_STACKS + 1] = { NULL };
	char title[512], note[256], at[48];
	struct svg_chart c = { 0 };
	struct smap_outfile out;
	uint32_t *v, top[INUSE_SVG_STACKS];
	int k, nr = 0, fd, err, ret = EXIT_FAILURE;
	long n, r;
	FILE *f;

	memset(series, 0, sizeof(series));
	n = ranked(in, in->layer, &v);
	if (n < 0) {
		prof_nomem();
		return EXIT_FAILURE;
	}
	for (r = 0; r < n && nr < INUSE_SVG_STACKS; r++)
		if (in->res.use[in->layer][v[r]].inuse_bytes)
			top[nr++] = v[r];
	free(v);
	if (mem_series(&in->p->ops, in->first, in->end, in->layer,
		       in->res.nr_stacks, top, nr, series))
		goto nomem;
	for (k = 0; k <= nr; k++) {
		names[k] = k < nr ? legend_name(in, in->p->by_idx[top[k]]) :
				    strdup("other stacks");
		if (!names[k])
			goto nomem;
		ss[k].name = names[k];
		ss[k].nr = series[k].nr;
		ss[k].t = series[k].t;
		ss[k].v = series[k].v;
	}
	instant(in, at, sizeof(at));
	snprintf(title, sizeof(title), "%s: %s layer, bytes in use by allocation stack",
		 in->p->td.path, prof_layer_name(in->layer));
	c.title = title;
	c.unit = "bytes";
	c.t0 = in->from;
	c.t1 = in->end > in->first ? in->p->ops.v[in->end - 1].ts : in->at;
	if (c.t1 <= c.t0)
		c.t1 = c.t0 + 1;
	c.raw = in->p->win.raw;
	c.series = ss;
	c.nr_series = nr + 1;
	c.has_other = true;
	c.has_peak = true;
	c.peak_t = in->at;
	/* --inuse T marks T, which is no peak. */
	c.peak_name = in->p->inuse_peak ? NULL : "instant";
	c.peak_v = in->res.sum[in->layer].total.inuse_bytes +
		   in->res.sum[in->layer].unsure_bytes;
	snprintf(note, sizeof(note), "%s %s: %llu bytes in use",
		 in->p->inuse_peak ? "peak at" : "instant", at,
		 (unsigned long long)c.peak_v);
	c.note = note;
	for (k = 0; k < in->nr_gaps && c.nr_lost < (int)ARRAY_SIZE(lost); k++) {
		const struct mem_gap *g = &in->gaps[k];

		if (g->to <= c.t0 || (g->from && g->from >= c.t1))
			continue;
		lost[c.nr_lost].from = g->from > c.t0 ? g->from : c.t0;
		lost[c.nr_lost].to = g->to;
		lost[c.nr_lost++].label = "lost";
	}
	c.lost = lost;
	if (smap_outfile_open(&out, in->p->svg, "stackmap: profile"))
		goto free;
	/* A stream of its own: the outfile keeps its descriptor. */
	fd = dup(smap_outfile_fd(&out));
	f = fd < 0 ? NULL : fdopen(fd, "w");
	if (!f && fd >= 0)
		close(fd);
	err = !f || svg_chart_write(f, &c) ? errno ?: EIO : 0;
	if (f && fclose(f) && !err)
		err = errno ?: EIO;
	if (err) {
		fprintf(stderr, "stackmap: profile: %s: %s\n", in->p->svg,
			strerror(err));
		smap_outfile_abort(&out);
		goto free;
	}
	if (!smap_outfile_commit(&out))
		ret = 0;
	goto free;
nomem:
	prof_nomem();
free:
	for (k = 0; k <= INUSE_SVG_STACKS; k++)
		free(names[k]);
	mem_series_free(series, nr + 1);
	return ret;
}

/* The options that need one layer, when the trace has both. */
static int check_layer(struct inuse *in)
{
	static const char * const what[] = {
		[PROF_FOLDED] = "--folded", [PROF_PPROF] = "--pprof",
		[PROF_SVG] = "--svg",
	};
	struct profile *p = in->p;

	if (p->layer >= 0) {
		in->layer = p->layer;
		return 0;
	}
	/* The pages, which hold everything else, if the trace has any. */
	in->layer = p->has_alloc[MEM_PAGE] || !p->has_alloc[MEM_SLAB] ?
		    MEM_PAGE : MEM_SLAB;
	if (p->output == PROF_TOP || !p->has_alloc[MEM_PAGE] ||
	    !p->has_alloc[MEM_SLAB])
		return 0;
	return bad("%s: %s", what[p->output],
		   "the trace holds slab objects and the pages they are carved from, never added up: choose --layer slab or --layer page");
}

/* The instant: --inuse T, or the peak of the layer. */
static int find_instant(struct inuse *in)
{
	struct profile *p = in->p;
	uint64_t slack, given;
	char a[40], b[48];

	start_of(in, a, sizeof(a));
	if (p->inuse_peak) {
		if (mem_find_peak(&p->ops, in->first, in->end, in->layer,
				  &in->peak)) {
			prof_nomem();
			return EXIT_FAILURE;
		}
		if (!in->peak.found) {
			fmt_time(p, b, sizeof(b), p->to);
			return bad("no memory of the %s layer held from %s to %s",
				   prof_layer_name(in->layer), a, b);
		}
		in->at = in->peak.ts;
		in->last = in->peak.index + 1;
		return 0;
	}
	in->at = p->inuse_at;
	/* The time as given, before the events printed at it are taken in. */
	slack = p->win.raw ? 0 : prof_time_slack(p->time_args[4]);
	given = slack ? in->at - (slack - 1) : in->at;
	if (in->at < in->from)
		return bad("--inuse %s is before the replay's start, %s",
			   instant(in, b, sizeof(b)), a);
	if (given > p->to) {
		fmt_time(p, a, sizeof(a), p->to);
		return bad("--inuse %s is after the replay's end, %s",
			   instant(in, b, sizeof(b)), a);
	}
	if (in->at > p->to)
		in->at = p->to;
	in->last = mem_ops_find(&p->ops, in->at + 1);
	if (in->at == UINT64_MAX)
		in->last = p->ops.nr;
	return 0;
}

static int pick_buffer(struct profile *p)
{
	int i;

	p->buf = 0;
	if (!p->instance)
		return 0;
	for (i = 1; i < p->td.nr_bufs; i++)
		if (!strcmp(p->td.bufs[i].name, p->instance)) {
			p->buf = i;
			return 0;
		}
	return bad("%s: no instance %s in the trace", p->td.path, p->instance);
}

/*
 * Memory allocated before the replay started is in none of its
 * figures; frees of it show that there was some: then a peak is only
 * the highest the replay saw. Warned of on stderr, for each layer
 * whose figures are shown; a pprof has the count among its comments
 * (print_apart()).
 */
static void warn_unseen(struct inuse *in, int layer)
{
	const struct mem_layer_sum *s = &in->res.sum[layer];
	char from[40];

	if (!s->unknown_frees)
		return;
	start_of(in, from, sizeof(from));
	fprintf(stderr,
		"stackmap: profile: warning: the replay, from %s, saw %llu frees of %s allocated before it (or by a path the kernel does not trace): more was held than its figures show%s\n",
		from, (unsigned long long)s->unknown_frees, unit_of(layer),
		in->p->inuse_peak && layer == in->layer ?
		", and the peak may lie before it" : "");
}

/*
 * A layer whose frees are not in the trace (a recording of its
 * allocation events alone): what the replay holds at an instant is
 * what was allocated, and nothing tells what was given back.
 */
static void warn_no_frees(struct inuse *in, int layer)
{
	static const char * const frees[] = {
		[MEM_SLAB] = "kfree, kmem_cache_free",
		[MEM_PAGE] = "mm_page_free, mm_page_free_batched",
	};
	const struct mem_ops *ops = &in->p->ops;
	char from[40];
	size_t i;

	if (!in->p->has_alloc[layer])
		return;
	for (i = 0; i < ops->nr; i++)
		if (ops->v[i].layer == layer && ops->v[i].is_free)
			return;
	start_of(in, from, sizeof(from));
	fprintf(stderr,
		"stackmap: profile: warning: the trace has no frees of the %s layer (%s): what it shows held is all that was allocated since %s, freed or not\n",
		prof_layer_name(layer), frees[layer], from);
}

/* What was left out of every figure, on stderr. */
static void report_inuse_leftovers(struct profile *p)
{
	if (p->nr_unresolved)
		fprintf(stderr,
			"stackmap: profile: allocations with a stack id without definition: %llu (the first 0x%08x), each counted as the stack [unresolved stack_id ID]\n",
			p->nr_unresolved, p->first_unresolved);
	if (p->nr_mem_bad)
		fprintf(stderr,
			"stackmap: profile: allocation or free events left out, their record too short or their order too large: %llu\n",
			p->nr_mem_bad);
	if (p->nr_batched_dropped)
		fprintf(stderr,
			"stackmap: profile: mm_page_free_batched events not counted, each a second event of a page mm_page_free freed: %llu\n",
			p->nr_batched_dropped);
}

int prof_inuse(struct profile *p, struct tracecmd_input **h)
{
	struct inuse in = { .p = p };
	struct prof_stack key = { 0 }, *st;
	struct td_buffer *b;
	int ret;

	ret = pick_buffer(p);
	if (ret)
		return ret;
	b = &p->td.bufs[p->buf];
	in.tep = tracecmd_get_tep(h[p->buf]);
	p->nr_cpus = tep_get_cpus(in.tep);
	p->pending = calloc(p->nr_cpus + 1, sizeof(*p->pending));
	key.none = true;
	key.addrs = p->addrs;
	st = p->pending ? prof_intern(p, &key) : NULL;
	if (!st) {
		prof_nomem();
		return EXIT_FAILURE;
	}
	in.no_stack = st->idx;
	if (tracecmd_iterate_events(h[p->buf], NULL, 0, inuse_record,
				    &in) < 0)
		return EXIT_FAILURE;
	settle_batched(p);
	mem_ops_sort(&p->ops);
	if (!p->has_layer[MEM_SLAB] && !p->has_layer[MEM_PAGE])
		return bad("%s: %s", p->td.path,
			   "no allocation or free events of kmem in the trace (kmalloc, kmem_cache_alloc, kfree, kmem_cache_free, mm_page_alloc, mm_page_free)");
	if (p->layer >= 0 && !p->has_layer[p->layer])
		return bad("%s: no allocation or free events of the %s layer in the trace",
			   p->td.path, prof_layer_name(p->layer));
	ret = check_layer(&in);
	if (ret)
		return ret;
	in.from = p->win.has_from ? p->from :
		  held_by_all(b, p->from > p->td.first_ts ? p->from :
				 p->td.first_ts);
	if (in.from > p->to)
		return bad("empty replay: every CPU holds its events only from after --to");
	in.first = mem_ops_find(&p->ops, in.from);
	in.end = p->to == UINT64_MAX ? p->ops.nr :
		 mem_ops_find(&p->ops, p->to + 1);
	ret = find_instant(&in);
	if (ret)
		return ret;
	if (make_gaps(&in, b) ||
	    mem_inuse(&p->ops, in.first, in.last, in.at, p->nr_stacks,
		      in.gaps, in.nr_gaps, &in.res)) {
		prof_nomem();
		ret = EXIT_FAILURE;
		goto out;
	}
	ret = EXIT_FAILURE;
	switch (p->output) {
	case PROF_PPROF:
		fill_inuse = &in;
		p->fill = fill_inuse_pprof;
		ret = prof_write_pprof(p, in.tep);
		break;
	case PROF_SVG:
		if (prof_warn_losses(p, NULL, in.from, in.at))
			break;
		ret = write_svg(&in);
		break;
	case PROF_FOLDED:
		if (prof_warn_losses(p, NULL, in.from, in.at))
			break;
		ret = print_inuse_folded(&in);
		break;
	default:
		if (prof_warn_losses(p, NULL, in.from, in.at))
			break;
		ret = print_inuse_top(&in);
		break;
	}
	if (!ret) {
		/* The table without --layer shows both layers, pages first. */
		if (p->output == PROF_TOP && p->layer < 0) {
			warn_no_frees(&in, MEM_PAGE);
			warn_unseen(&in, MEM_PAGE);
			warn_no_frees(&in, MEM_SLAB);
			warn_unseen(&in, MEM_SLAB);
		} else {
			warn_no_frees(&in, in.layer);
			warn_unseen(&in, in.layer);
		}
		report_inuse_leftovers(p);
	}
out:
	mem_inuse_free(&in.res);
	free(in.gaps);
	return ret;
}
