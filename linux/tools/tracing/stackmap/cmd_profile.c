// SPDX-License-Identifier: GPL-2.0
/*
 * "profile": which stacks the events of a trace.dat come from, summed by
 * count and by the fields given as weights, in a time window; e.g. which
 * stacks allocated the memory behind a peak, from kmem events traced with
 * options/stackmap.
 *
 * The kernel writes the stack of an event after it on the same CPU, in
 * the same context: a kernel_stack_id (its definition, if new, between
 * the two), or the full kernel_stack when the depot is full; an
 * interrupt's events may come in between (prof_take()). The file is
 * read twice through libtracecmd, as report reads it (tracedat.c): the
 * first pass learns every buffer's definitions, the second pairs each
 * event with its stack and resolves an id with the definition in force
 * at the time of the id.
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "outfile.h"
#include "profile.h"

#define PROF_DEFAULT_TOP	10UL

static const char profile_help[] =
	"Usage: stackmap profile [options] TRACE.DAT\n"
	"\n"
	"Which kernel stacks hold the memory at an instant, or at the peak\n"
	"(--inuse T|peak: allocations not yet freed, slab objects and pages\n"
	"apart); or the events of a window summed by stack, by count and by\n"
	"weights. An event's stack is the kernel_stack_id the kernel wrote for\n"
	"it, resolved by the definitions in the trace, or its full kernel_stack;\n"
	"an id without definition counts as the stack\n"
	"\"[unresolved stack_id 0x...]\", and is named on stderr. In a boot-mapped\n"
	"buffer (kernel_stack_boot markers), an id resolves only with the\n"
	"definitions of its own boot.\n"
	"\n"
	"  -e, --event SYS:NAME  count this event (repeatable); default: every\n"
	"                        event followed by a stack that has every weight\n"
	"  -w, --weight FIELD    sum this numeric field too (repeatable, a column\n"
	"                        each); \"bytes\" is bytes_alloc of kmem:kmalloc,\n"
	"                        kmalloc_node and kmem_cache_alloc and the page\n"
	"                        size << order of kmem:mm_page_alloc\n"
	"      --from T          the window starts at time T (seconds, as trace-cmd\n"
	"                        report prints them: 12345.000001; a timestamp for\n"
	"                        a clock that does not count nanoseconds), included\n"
	"      --to T            the window ends at T, included\n"
	"      --last S          the window is the S seconds before the end of the\n"
	"                        trace, or before --at T\n"
	"      --at T            where the --last window ends\n"
	"  -n, --top N           the N heaviest stacks (by the first weight, else\n"
	"                        by count) as a table; the default, with N 10\n"
	"  -f, --folded          one line per stack, \"root;...;leaf value\", the\n"
	"                        value the first weight, else the count\n"
	"  -o, --pprof FILE      write a gzipped pprof profile.proto to FILE (with\n"
	"                        --inuse, a heap profile of one layer)\n"
	"      --svg FILE        --inuse: draw the bytes the heaviest stacks of\n"
	"                        one layer held over the replay, the peak marked\n"
	"  -l, --layer L         slab (kmalloc, kmem_cache_alloc objects) or page\n"
	"                        (mm_page_alloc pages): only the events of that\n"
	"                        allocator layer; the two are never summed, and\n"
	"                        --weight bytes over both asks for one\n"
	"  -i, --inuse T|peak    the memory held at T, or at the peak of the\n"
	"                        layer (of --layer, else page): allocations not\n"
	"                        freed by then, matched by address to the frees\n"
	"                        (kfree, kmem_cache_free; mm_page_free, or\n"
	"                        mm_page_free_batched without it), by\n"
	"                        allocation stack, one table per layer; replayed\n"
	"                        from --from, by default from the oldest time\n"
	"                        that every CPU still holds, up to --to\n"
	"      --instance NAME   --inuse: replay that instance's buffer, not the\n"
	"                        top one\n"
	"      --all-frames      keep the tracepoint's own frames at the top of\n"
	"                        each stack (trace_event_raw_event_*, ...)\n"
	"      --boot TOKEN      of a boot-mapped buffer that holds several boots'\n"
	"                        events, which it needs: only those of the boot\n"
	"                        whose kernel_stack_boot markers have TOKEN (their\n"
	"                        times and addresses do not compare with the\n"
	"                        others'); buffers without markers are left out\n"
	TD_DELTA_HELP
	"  -h, --help            this text\n"
	"\n"
	"Times given as trace-cmd report prints them (six digits, rounded to the\n"
	"microsecond) select the events it printed so. A window or instant that a\n"
	"CPU's buffer lost part of is warned of on stderr, CPU by CPU.\n"
	"\n"
	"Bad usage or input (an unknown option or event, a field that an event\n"
	"lacks, a malformed number, an empty window, a trace without stacks):\n"
	"one line on stderr, exit status 2, and nothing written.\n";

/* The options that take a time, in the order of profile's time_args. */
static const char * const time_opts[] = {
	"--from", "--to", "--last", "--at", "--inuse",
};

void prof_nomem(void)
{
	fprintf(stderr, "stackmap: profile: %s\n", strerror(ENOMEM));
}

static void set_output(struct profile *p, enum prof_output out)
{
	if (p->output_set && p->output != out)
		exit(bad("--top, --folded, --pprof and --svg exclude each other"));
	p->output = out;
	p->output_set = true;
}

/*
 * A time option: its syntax now, its value once the trace tells whether
 * its clock counts nanoseconds (parse_window()).
 */
static void parse_time_opt(struct profile *p, int i, const char *arg,
			   bool *has)
{
	struct smap_error err, err_stamp;
	uint64_t t;

	if (prof_parse_time(arg, &t, &err) &&
	    prof_parse_stamp(arg, &t, &err_stamp))
		exit(bad("%s '%s': %s", time_opts[i], arg, err.msg));
	p->time_args[i] = arg;
	*has = true;
}

/*
 * The times of the window in the trace's units: nanoseconds from
 * seconds, or, for a clock that does not count nanoseconds (counter,
 * x86-tsc, ...), timestamps as they are, as trace-cmd report prints
 * them both. 0, or the exit status with the error reported.
 */
static int parse_window(struct profile *p, bool in_seconds)
{
	uint64_t *val[] = { &p->win.from, &p->win.to, &p->win.last,
			    &p->win.at, &p->inuse_at };
	struct smap_error err;
	uint64_t slack;
	int i, ret;

	p->win.raw = !in_seconds;
	for (i = 0; i < (int)ARRAY_SIZE(val); i++) {
		if (!p->time_args[i])
			continue;
		if (in_seconds)
			ret = prof_parse_time(p->time_args[i], val[i], &err);
		else
			ret = prof_parse_stamp(p->time_args[i], val[i], &err);
		if (ret)
			return bad("%s '%s': %s", time_opts[i], p->time_args[i],
				   err.msg);
	}
	if (!in_seconds)
		return 0;
	/* The events trace-cmd report printed at those times, not --last. */
	if (p->time_args[0]) {
		slack = prof_time_slack(p->time_args[0]);
		p->win.from = p->win.from > slack ? p->win.from - slack : 0;
	}
	for (i = 1; i < (int)ARRAY_SIZE(val); i++) {
		if (!p->time_args[i] || i == 2)
			continue;
		slack = prof_time_slack(p->time_args[i]);
		if (slack && *val[i] <= UINT64_MAX - slack)
			*val[i] += slack - 1;
	}
	return 0;
}

/* A marker's token, as trace-cmd report prints it: 0x1 to 0xffffffff. */
static int parse_token(const char *s, uint32_t *token)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (!*s || *end || errno || !v || v > UINT32_MAX || *s == '-')
		return -1;
	*token = v;
	return 0;
}

static void parse_profile_opts(int argc, char **argv, struct profile *p)
{
	enum { OPT_FROM = 256, OPT_TO, OPT_LAST, OPT_AT, OPT_SVG, OPT_INSTANCE,
	       OPT_ALL_FRAMES, OPT_TEXT_DELTA, OPT_LAST_BOOT_INFO, OPT_BOOT };
	static const struct option opts[] = {
		{ "event", required_argument, NULL, 'e' },
		{ "weight", required_argument, NULL, 'w' },
		{ "from", required_argument, NULL, OPT_FROM },
		{ "to", required_argument, NULL, OPT_TO },
		{ "last", required_argument, NULL, OPT_LAST },
		{ "at", required_argument, NULL, OPT_AT },
		{ "top", required_argument, NULL, 'n' },
		{ "folded", no_argument, NULL, 'f' },
		{ "pprof", required_argument, NULL, 'o' },
		{ "svg", required_argument, NULL, OPT_SVG },
		{ "layer", required_argument, NULL, 'l' },
		{ "inuse", required_argument, NULL, 'i' },
		{ "instance", required_argument, NULL, OPT_INSTANCE },
		{ "all-frames", no_argument, NULL, OPT_ALL_FRAMES },
		{ "text-delta", required_argument, NULL, OPT_TEXT_DELTA },
		{ "last-boot-info", required_argument, NULL,
		  OPT_LAST_BOOT_INFO },
		{ "boot", required_argument, NULL, OPT_BOOT },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	struct smap_error err;
	int c;

	p->top = PROF_DEFAULT_TOP;
	p->layer = -1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":e:w:n:fo:l:i:h", opts,
				NULL)) != -1) {
		switch (c) {
		case 'e':
			if (p->nr_events == PROF_MAX_EVENTS)
				exit(bad("more than %d --event", PROF_MAX_EVENTS));
			if (prof_parse_event(optarg, &p->events[p->nr_events],
					     &err))
				exit(bad("--event '%s': %s", optarg, err.msg));
			p->nr_events++;
			break;
		case 'w':
			if (p->nr_weights == PROF_MAX_WEIGHTS)
				exit(bad("more than %d --weight",
					 PROF_MAX_WEIGHTS));
			if (prof_parse_weight(optarg, &err))
				exit(bad("--weight '%s': %s", optarg, err.msg));
			p->weights[p->nr_weights++] = optarg;
			break;
		case OPT_FROM:
			parse_time_opt(p, 0, optarg, &p->win.has_from);
			break;
		case OPT_TO:
			parse_time_opt(p, 1, optarg, &p->win.has_to);
			break;
		case OPT_LAST:
			parse_time_opt(p, 2, optarg, &p->win.has_last);
			break;
		case OPT_AT:
			parse_time_opt(p, 3, optarg, &p->win.has_at);
			break;
		case 'n':
			if (prof_parse_count(optarg, &p->top, &err))
				exit(bad("--top '%s': %s", optarg, err.msg));
			set_output(p, PROF_TOP);
			break;
		case 'f':
			set_output(p, PROF_FOLDED);
			break;
		case 'o':
			if (!*optarg)
				exit(bad("--pprof: empty file name"));
			p->pprof = optarg;
			set_output(p, PROF_PPROF);
			break;
		case OPT_SVG:
			if (!*optarg)
				exit(bad("--svg: empty file name"));
			p->svg = optarg;
			set_output(p, PROF_SVG);
			break;
		case 'l':
			if (p->layer >= 0)
				exit(bad("--layer given twice"));
			if (prof_parse_layer(optarg, &p->layer, &err))
				exit(bad("--layer '%s': %s", optarg, err.msg));
			break;
		case 'i':
			if (p->inuse)
				exit(bad("--inuse given twice"));
			p->inuse = true;
			if (!strcmp(optarg, "peak"))
				p->inuse_peak = true;
			else
				parse_time_opt(p, 4, optarg, &p->inuse);
			break;
		case OPT_INSTANCE:
			p->instance = optarg;
			break;
		case OPT_ALL_FRAMES:
			p->all_frames = true;
			break;
		case OPT_TEXT_DELTA:
			td_parse_delta(&p->td, "stackmap: profile",
				       "--text-delta", optarg);
			break;
		case OPT_LAST_BOOT_INFO:
			td_parse_delta(&p->td, "stackmap: profile",
				       "--last-boot-info", optarg);
			break;
		case OPT_BOOT:
			if (parse_token(optarg, &p->boot))
				exit(bad("--boot '%s': %s", optarg,
					 "not a boot marker's token (0x1 to 0xffffffff)"));
			p->has_boot = true;
			break;
		case 'h':
			fputs(profile_help, stdout);
			exit(EXIT_SUCCESS);
		case ':':
			exit(bad("option '%s' needs an argument",
				 argv[optind - 1]));
		default:
			exit(bad("unknown option '%s'", argv[optind - 1]));
		}
	}
	if (optind != argc - 1)
		exit(bad("expected one TRACE.DAT"));
	p->td.path = argv[optind];
	if (prof_window_check(&p->win, &err))
		exit(bad("%s", err.msg));
	if (p->inuse && (p->nr_events || p->nr_weights))
		exit(bad("--inuse takes no --event or --weight: it counts objects and bytes"));
	if (p->inuse && p->win.has_last)
		exit(bad("--inuse replays from --from to --to: no --last"));
	if (!p->inuse && (p->svg || p->instance))
		exit(bad("%s needs --inuse", p->svg ? "--svg" : "--instance"));
}

/* A field that holds one number, up to 8 bytes. */
bool prof_is_numeric(struct tep_format_field *f)
{
	return f && f->offset >= 0 &&
	       !(f->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_STRING |
			     TEP_FIELD_IS_DYNAMIC | TEP_FIELD_IS_RELATIVE)) &&
	       (f->size == 1 || f->size == 2 || f->size == 4 || f->size == 8);
}

static bool is_stack_event(struct tep_event *event)
{
	return td_is_event(event, STACKEVENT_ID) ||
	       td_is_event(event, STACKEVENT_FULL) ||
	       td_is_event(event, STACKEVENT_DEF);
}

/* Find the fields of the weights in @t->event; @t->missing, the first not. */
static void find_fields(struct profile *p, struct prof_type *t)
{
	struct tep_event *ev = t->event;
	struct tep_format_field *f;
	int i;

	t->missing = -1;
	t->bytes = prof_bytes_kind(ev->system, ev->name);
	for (i = 0; i < p->nr_weights; i++) {
		if (strcmp(p->weights[i], PROF_BYTES))
			f = tep_find_any_field(ev, p->weights[i]);
		else if (t->bytes == PROF_BYTES_ALLOC)
			f = tep_find_field(ev, "bytes_alloc");
		else if (t->bytes == PROF_BYTES_PAGES)
			f = tep_find_field(ev, "order");
		else
			f = NULL;
		if (!prof_is_numeric(f)) {
			f = NULL;
			if (t->missing < 0)
				t->missing = i;
		}
		t->fields[i] = f;
	}
}

/* The layer of an event's bytes, or -1. */
static int layer_of(enum prof_bytes bytes)
{
	if (bytes == PROF_BYTES_ALLOC)
		return PROF_LAYER_SLAB;
	if (bytes == PROF_BYTES_PAGES)
		return PROF_LAYER_PAGE;
	return -1;
}

static struct prof_type *new_type(struct profile *p, struct tep_event *ev)
{
	struct prof_type **v, *t;

	v = realloc(p->types, (p->nr_types + 1) * sizeof(*v));
	if (!v)
		return NULL;
	p->types = v;
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	p->types[p->nr_types++] = t;
	t->event = ev;
	find_fields(p, t);
	/* By default, every event but the stacks' own, of --layer if set. */
	t->selected = !p->nr_events && !is_stack_event(ev) &&
		      (p->layer < 0 || layer_of(t->bytes) == p->layer);
	t->mem = prof_mem_kind(ev->system, ev->name);
	return t;
}

struct prof_type *prof_find_type(struct profile *p, struct tep_event *ev)
{
	int i;

	for (i = 0; i < p->nr_types; i++)
		if (p->types[i]->event == ev)
			return p->types[i];
	return new_type(p, ev);
}

/*
 * The events of --event, each of which must be in the trace and have
 * every weight: 0, or the exit status with the error reported.
 */
static int select_events(struct profile *p, struct tep_handle *tep)
{
	struct prof_type *t;
	struct tep_event *ev;
	int i, w, nr_have;

	for (i = 0; i < p->nr_events; i++) {
		ev = tep_find_event_by_name(tep, p->events[i].sys,
					    p->events[i].name);
		if (!ev)
			return bad("%s: no event %s:%s in the trace",
				   p->td.path, p->events[i].sys,
				   p->events[i].name);
		if (is_stack_event(ev))
			return bad("--event %s:%s: the stacks themselves cannot be counted",
				   ev->system, ev->name);
		t = prof_find_type(p, ev);
		if (!t) {
			prof_nomem();
			return EXIT_FAILURE;
		}
		if (p->layer >= 0 && layer_of(t->bytes) != p->layer)
			return bad("--event %s:%s is no allocation of the %s layer",
				   ev->system, ev->name,
				   prof_layer_name(p->layer));
		t->selected = true;
	}
	/* By default, check_result() does once it knows the stacks. */
	for (w = 0; p->nr_events && w < p->nr_weights; w++) {
		nr_have = 0;
		for (i = 0; i < p->nr_types; i++)
			nr_have += !!p->types[i]->fields[w];
		if (!nr_have)
			return bad("no selected event has the field %s",
				   p->weights[w]);
	}
	for (i = 0; i < p->nr_types; i++) {
		t = p->types[i];
		if (t->missing >= 0)
			return bad("event %s:%s has no field %s", t->event->system,
				   t->event->name, p->weights[t->missing]);
	}
	return 0;
}

/* Read a numeric field of @rec; false if the record ends before it. */
bool prof_read_field(struct tep_format_field *f, struct tep_record *rec,
		     int64_t *v)
{
	unsigned long long u;
	int bits = f->size * 8;

	if (rec->size < 0 || (int64_t)f->offset + f->size > rec->size)
		return false;
	u = tep_read_number(f->event->tep, (char *)rec->data + f->offset,
			    f->size);
	if ((f->flags & TEP_FIELD_IS_SIGNED) && bits < 64 &&
	    (u >> (bits - 1)) & 1)
		u |= ~0ULL << bits;
	*v = (int64_t)u;
	return true;
}

/* The weights of an event of @t: false for a record too short for them. */
static bool weigh(struct profile *p, struct prof_type *t,
		  struct tep_record *rec, int64_t *w)
{
	uint64_t bytes;
	int i;

	for (i = 0; i < p->nr_weights; i++) {
		if (!prof_read_field(t->fields[i], rec, &w[i]))
			return false;
		if (t->bytes != PROF_BYTES_PAGES ||
		    strcmp(p->weights[i], PROF_BYTES))
			continue;
		if (w[i] < 0 ||
		    prof_page_bytes(p->page_size, w[i], &bytes))
			return false;
		w[i] = bytes;
	}
	return true;
}

/*
 * The frames of a kernel_stack record: its "size" field counts them, in
 * caller[], each a long of the traced kernel (the array's element).
 */
static uint32_t read_full_stack(struct profile *p, struct tep_event *ev,
				struct tep_record *rec)
{
	struct tep_format_field *size = tep_find_field(ev, "size");
	struct tep_format_field *caller = tep_find_field(ev, "caller");
	unsigned int ls;
	int64_t n, room;
	uint32_t i;

	if (!size || !prof_is_numeric(size) || !caller || caller->offset < 0 ||
	    !prof_read_field(size, rec, &n) || n <= 0)
		return 0;
	ls = caller->elementsize;
	if (ls != 4 && ls != 8)
		ls = tep_get_long_size(ev->tep);
	room = ((int64_t)rec->size - caller->offset) / ls;
	if (n > room)
		n = room;
	if (n > PROF_MAX_DEPTH)
		n = PROF_MAX_DEPTH;
	for (i = 0; i < n; i++)
		p->addrs[i] = tep_read_number(ev->tep, (char *)rec->data +
					      caller->offset + i * ls, ls);
	return n;
}

static uint64_t hash_stack(const struct prof_stack *key)
{
	uint64_t h = 0xcbf29ce484222325ULL ^ key->unresolved ^
		     (uint64_t)key->id << 1 ^ (uint64_t)key->malformed << 33 ^
		     (uint64_t)key->none << 34;
	uint32_t i;

	for (i = 0; i < key->depth; i++) {
		h ^= key->addrs[i];
		h *= 0x100000001b3ULL;
	}
	return h ^ h >> 29;
}

static bool same_stack(const struct prof_stack *a, const struct prof_stack *b)
{
	return a->hash == b->hash && a->depth == b->depth &&
	       a->unresolved == b->unresolved && a->id == b->id &&
	       a->malformed == b->malformed && a->none == b->none &&
	       !memcmp(a->addrs, b->addrs, a->depth * sizeof(a->addrs[0]));
}

static struct prof_stack **stack_slot(struct prof_stack **tab, size_t cap,
				      const struct prof_stack *key)
{
	size_t i = key->hash & (cap - 1);

	while (tab[i] && !same_stack(tab[i], key))
		i = (i + 1) & (cap - 1);
	return &tab[i];
}

static int grow_stacks(struct profile *p)
{
	size_t cap = p->cap ? p->cap * 2 : 256, i;
	struct prof_stack **tab = calloc(cap, sizeof(*tab));

	if (!tab)
		return -1;
	for (i = 0; i < p->cap; i++)
		if (p->stacks[i])
			*stack_slot(tab, cap, p->stacks[i]) = p->stacks[i];
	free(p->stacks);
	p->stacks = tab;
	p->cap = cap;
	return 0;
}

struct prof_stack *prof_intern(struct profile *p, struct prof_stack *key)
{
	struct prof_stack **slot, *st, **v;

	key->hash = hash_stack(key);
	if (2 * (p->nr_stacks + 1) > p->cap && grow_stacks(p))
		return NULL;
	slot = stack_slot(p->stacks, p->cap, key);
	if (*slot)
		return *slot;
	v = realloc(p->by_idx, (p->nr_stacks + 1) * sizeof(*v));
	if (!v)
		return NULL;
	p->by_idx = v;
	st = calloc(1, sizeof(*st) + key->depth * sizeof(st->addrs[0]));
	if (!st)
		return NULL;
	*st = *key;
	st->addrs = (uint64_t *)(st + 1);
	memcpy(st->addrs, key->addrs, key->depth * sizeof(st->addrs[0]));
	st->idx = p->nr_stacks;
	v[st->idx] = st;
	*slot = st;
	p->nr_stacks++;
	return st;
}

/* Count the pending event with the stack @key (its frames, or an id). */
static int add_sample(struct profile *p, struct prof_stack *key,
		      const struct prof_pending *pend)
{
	struct prof_stack *st = prof_intern(p, key);
	int i;

	if (!st)
		return -1;
	st->events++;
	p->total_events++;
	for (i = 0; i < p->nr_weights; i++) {
		st->w[i] += pend->w[i];
		p->total_w[i] += pend->w[i];
	}
	p->nr_samples++;
	return 0;
}

/*
 * The frames the tracepoint itself adds on top of the stack of the
 * code it traces: the event's trace_<event>() where the compiler kept
 * it out of line, its trace_event_raw_event_*() and what recorded the
 * stack. The allocator, or its caller, is the leaf.
 */
static bool is_tracing_frame(struct tep_handle *tep, uint64_t ip,
			     const char *event)
{
	static const char * const prefixes[] = {
		"trace_event_raw_event_", "perf_trace_", "__traceiter_",
		"__bpf_trace_", "trace_event_buffer_", "trace_buffer_unlock",
		"__ftrace_trace_stack", "ftrace_trace_stack", "__trace_stack",
	};
	unsigned long long start;
	unsigned long size;
	const char *name;
	size_t i;

	if (!tep_find_function_info(tep, ip, &name, &start, &size))
		return false;
	if (event && !strncmp(name, "trace_", 6) && !strcmp(name + 6, event))
		return true;
	for (i = 0; i < ARRAY_SIZE(prefixes); i++)
		if (!strncmp(name, prefixes[i], strlen(prefixes[i])))
			return true;
	return false;
}

static void trim_stack(struct profile *p, struct tep_handle *tep,
		       struct prof_stack *key, const char *event)
{
	uint32_t n = 0;

	if (p->all_frames)
		return;
	while (n + 1 < key->depth &&
	       is_tracing_frame(tep, key->addrs[n], event))
		n++;
	if (!n)
		return;
	memmove(key->addrs, key->addrs + n,
		(key->depth - n) * sizeof(key->addrs[0]));
	key->depth -= n;
}

void prof_stack_key(struct profile *p, struct td_buffer *b,
		    struct tep_event *ev, struct tep_record *rec,
		    const char *event, struct prof_stack *key)
{
	const struct smap_stack *st;
	struct smap_boot boot;
	uint32_t id;

	memset(key, 0, sizeof(*key));
	key->addrs = p->addrs;
	if (td_is_event(ev, STACKEVENT_FULL)) {
		key->depth = read_full_stack(p, ev, rec);
		/* The frames of a boot-marked buffer are of the last boot. */
		td_relocate(&p->td, ev->tep, td_boot(b, rec), key->addrs,
			    key->depth);
		trim_stack(p, ev->tep, key, event);
		return;
	}
	if (stackevent_read_id(ev, rec, &id)) {
		key->malformed = true;
		key->unresolved = true;
	} else {
		st = td_find_stack(b, rec, id, &boot);
		if (st) {
			key->depth = st->depth;
			memcpy(p->addrs, st->addrs,
			       st->depth * sizeof(st->addrs[0]));
			trim_stack(p, ev->tep, key, event);
		} else {
			key->unresolved = true;
			key->id = id;
		}
	}
	if (key->unresolved && !p->nr_unresolved++)
		p->first_unresolved = key->id;
}

/* The stack that follows the pending event of a CPU. */
static int take_stack(struct profile *p, struct td_buffer *b,
		      struct prof_type *t, struct prof_pending *pend,
		      struct tep_event *ev, struct tep_record *rec)
{
	struct prof_stack key;

	p->buf_counted[b - p->td.bufs] = true;
	prof_stack_key(p, b, ev, rec, t->event->name, &key);
	return add_sample(p, &key, pend);
}

/*
 * An event that got no stack: counted if --event selected it (by
 * default, only events with stacks are).
 */
static void drop_pending(struct profile *p, struct prof_pending *pend)
{
	if (pend->type && pend->fate == PROF_COUNTS && p->nr_events)
		p->nr_no_stack++;
	pend->type = NULL;
}

/* The stack of the pending event: count it, or what was left out. */
static int pending_stack(struct profile *p, struct td_buffer *b,
			 struct prof_pending *pend, struct tep_event *ev,
			 struct tep_record *record)
{
	struct prof_type *t = pend->type;

	pend->type = NULL;
	t->carried_stack = true;
	switch (pend->fate) {
	case PROF_COUNTS:
		t->counted = true;
		if (take_stack(p, b, t, pend, ev, record)) {
			prof_nomem();
			return -1;
		}
		break;
	case PROF_UNWEIGHED:
		if (!p->nr_unweighed++)
			p->first_unweighed = t;
		break;
	case PROF_BAD:
		p->nr_bad++;
		break;
	default:
		break;
	}
	return 0;
}

uint64_t prof_context(struct tep_handle *tep, struct tep_record *rec)
{
	const uint8_t *d = rec->data;

	/* common_flags and common_preempt_count, as every event has them. */
	if (rec->size < 4)
		return 0;
	return d[2] | d[3] << 8 | (uint64_t)(uint32_t)tep_data_pid(tep, rec) << 16;
}

struct prof_pending *prof_push(struct profile *p, struct prof_cpu *c,
			       uint64_t ctx, prof_drop_fn drop)
{
	struct prof_pending *pend;

	if (c->nr == PROF_NEST) {
		if (drop)
			drop(p, &c->v[0]);
		memmove(c->v, c->v + 1, (PROF_NEST - 1) * sizeof(c->v[0]));
		c->nr--;
	}
	pend = &c->v[c->nr++];
	memset(pend, 0, sizeof(*pend));
	pend->op = -1;
	pend->ctx = ctx;
	return pend;
}

struct prof_pending *prof_take(struct profile *p, struct prof_cpu *c,
			       uint64_t ctx, prof_drop_fn drop)
{
	int i = c->nr;

	while (i > 0 && c->v[i - 1].ctx != ctx)
		i--;
	if (!i)
		return NULL;
	while (drop && c->nr > i)
		drop(p, &c->v[--c->nr]);
	c->nr = i - 1;
	return &c->v[i - 1];
}

void prof_clear(struct profile *p, struct prof_cpu *c, prof_drop_fn drop)
{
	while (drop && c->nr > 0)
		drop(p, &c->v[--c->nr]);
	c->nr = 0;
}

/* Pass 2: pair each event with the stack that the kernel wrote for it. */
static int profile_record(struct tracecmd_input *handle,
			  struct tep_record *record, int cpu, void *data)
{
	struct td_buffer *b = tracecmd_get_private(handle);
	struct tep_handle *tep = tracecmd_get_tep(handle);
	struct tep_event *ev = tep_find_event_by_record(tep, record);
	struct profile *p = data;
	struct prof_pending *pend;
	struct prof_type *t;
	struct prof_cpu *c;
	uint64_t ctx;

	/* record->cpu: libtracecmd's @cpu may count all buffers' CPUs. */
	if (record->cpu < 0 || record->cpu >= p->nr_cpus)
		return 0;
	c = &p->pending[(b - p->td.bufs) * p->nr_cpus + record->cpu];
	if (record->missed_events)
		prof_clear(p, c, drop_pending);
	if (p->has_boot && !td_in_boot(b, record, p->boot))
		return 0;
	/* A marker may come between an event and its stack: none of its own. */
	if (td_is_event(ev, STACKEVENT_DEF) ||
	    td_is_event(ev, STACKEVENT_USER) ||
	    td_is_event(ev, STACKEVENT_BOOT))
		return 0;
	ctx = prof_context(tep, record);
	if (td_is_event(ev, STACKEVENT_ID) ||
	    td_is_event(ev, STACKEVENT_FULL)) {
		p->nr_stack_events++;
		pend = prof_take(p, c, ctx, drop_pending);
		if (!pend || !pend->type)
			return 0;
		return pending_stack(p, b, pend, ev, record);
	}
	pend = prof_push(p, c, ctx, drop_pending);
	if (!ev)
		return 0;
	t = prof_find_type(p, ev);
	if (!t) {
		prof_nomem();
		return -1;
	}
	pend->type = t;
	if (!t->selected || record->ts < p->from || record->ts > p->to)
		pend->fate = PROF_IGNORED;
	else if (t->missing >= 0)
		/* By default only: --event checked its events' fields. */
		pend->fate = PROF_UNWEIGHED;
	else if (!weigh(p, t, record, pend->w))
		pend->fate = PROF_BAD;
	else
		pend->fate = PROF_COUNTS;
	return 0;
}

/* "name+0xoff/0xsize" with @offset, else "name", as the plugin prints. */
void prof_format_frame(char *buf, size_t len, struct tep_handle *tep,
		       uint64_t ip, bool offset)
{
	unsigned long long start;
	unsigned long size;
	const char *name;

	if (ip == SMAP_TRAMPOLINE)
		snprintf(buf, len, "[FTRACE TRAMPOLINE]");
	else if (!ip || !tep_find_function_info(tep, ip, &name, &start, &size))
		snprintf(buf, len, "0x%llx", (unsigned long long)ip);
	else if (!offset)
		snprintf(buf, len, "%s", name);
	else if (size)
		snprintf(buf, len, "%s+0x%llx/0x%lx", name, ip - start, size);
	else
		snprintf(buf, len, "%s+0x%llx", name, ip - start);
}

/* A stack without frames: an id without definition, or none at all. */
bool prof_frameless(const struct prof_stack *st, char *buf, size_t len)
{
	if (st->malformed)
		snprintf(buf, len, "[malformed stack_id]");
	else if (st->unresolved)
		snprintf(buf, len, "[unresolved stack_id 0x%08x]", st->id);
	else if (st->none)
		snprintf(buf, len, "[no stack]");
	else if (!st->depth)
		snprintf(buf, len, "[empty stack]");
	else
		return false;
	return true;
}

/* The buffers a window is read from: --inuse replays one. */
static bool buffer_read(const struct profile *p, int i)
{
	return !p->inuse || i == p->buf;
}

static void buffer_cpu_name(const struct profile *p, int i, int cpu,
			    char *buf, size_t len)
{
	const char *name = p->td.bufs[i].name;

	snprintf(buf, len, "%s%s%scpu%d", *name ? "instance " : "", name,
		 *name ? " " : "", cpu);
}

void prof_print_spans(struct profile *p, FILE *f, const char *prefix,
		      uint64_t from, uint64_t to)
{
	char who[128], a[32], b[32];
	const struct td_cpu *c;
	int i, cpu, g;

	for (i = 0; i < p->td.nr_bufs; i++) {
		if (!buffer_read(p, i))
			continue;
		for (cpu = 0; cpu < p->td.bufs[i].nr_cpus; cpu++) {
			c = &p->td.bufs[i].cpus[cpu];
			if (!c->nr_records)
				continue;
			buffer_cpu_name(p, i, cpu, who, sizeof(who));
			prof_window_format(&p->win, a, sizeof(a), c->first_ts);
			prof_window_format(&p->win, b, sizeof(b), c->last_ts);
			fprintf(f, "%s%s: %llu events from %s to %s%s", prefix,
				who, c->nr_records, a, b,
				p->win.raw ? "" : " s");
			for (g = 0; g < c->nr_gaps; g++)
				if (!c->gaps[g].from)
					fprintf(f, ", lost what came before");
			g = c->nr_gaps - (c->nr_gaps && !c->gaps[0].from);
			if (g)
				fprintf(f, ", dropped events %d time%s", g,
					g > 1 ? "s" : "");
			fputc('\n', f);
		}
	}
}

/* One warning on stderr, and among the pprof's comments. */
static int warn(struct pprof *pp, const char *fmt, ...)
{
	char *msg;
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = vasprintf(&msg, fmt, ap);
	va_end(ap);
	if (ret < 0)
		return -1;
	fprintf(stderr, "stackmap: profile: warning: %s\n", msg);
	ret = pp ? pprof_add_comment(pp, msg) : 0;
	free(msg);
	return ret;
}

int prof_warn_losses(struct profile *p, struct pprof *pp, uint64_t from,
		     uint64_t to)
{
	char who[128], a[32], b[32], d[32], e[32];
	const struct td_gap *g;
	const struct td_cpu *c;
	int i, cpu, k, ret = 0;

	for (i = 0; i < p->td.nr_bufs; i++) {
		if (!buffer_read(p, i))
			continue;
		for (cpu = 0; cpu < p->td.bufs[i].nr_cpus; cpu++) {
			c = &p->td.bufs[i].cpus[cpu];
			buffer_cpu_name(p, i, cpu, who, sizeof(who));
			for (k = 0; k < c->nr_gaps; k++) {
				g = &c->gaps[k];
				if (g->to <= from || (g->from && g->from >= to))
					continue;
				prof_window_format(&p->win, a, sizeof(a),
						   g->from ? g->from : from);
				prof_window_format(&p->win, b, sizeof(b), g->to);
				/* The part the window covers, not past its end. */
				prof_window_format(&p->win, e, sizeof(e),
						   g->to < to ? g->to : to);
				prof_window_format(&p->win, d, sizeof(d),
						   (g->to < to ? g->to : to) -
						   (g->from > from ? g->from : from));
				if (!g->from)
					ret |= warn(pp,
						    "%s lost its events before %s: its part of the window from %s to %s (%s%s) is missing",
						    who, b, a, e, d,
						    p->win.raw ? "" : " s");
				else if (g->missed > 0)
					ret |= warn(pp, "%s dropped %lld events between %s and %s",
						    who, g->missed, a, b);
				else
					ret |= warn(pp, "%s dropped events between %s and %s",
						    who, a, b);
			}
		}
	}
	return ret;
}

/*
 * The window sums every buffer's events: where two buffers recorded
 * one event (two instances tracing the same allocations), it counts
 * twice. Said when more than one buffer counted.
 */
static int warn_buffers(struct profile *p, struct pprof *pp)
{
	char names[256] = "";
	size_t len = 0;
	int i, n = 0;

	for (i = 0; p->buf_counted && i < p->td.nr_bufs; i++) {
		if (!p->buf_counted[i])
			continue;
		if (len < sizeof(names))
			len += snprintf(names + len, sizeof(names) - len,
					"%s%s%s", n ? ", " : "",
					i ? "instance " : "the top one",
					p->td.bufs[i].name);
		n++;
	}
	if (n < 2)
		return 0;
	return warn(pp,
		    "the window counts the events of %d buffers (%s): an event that two of them recorded counts twice",
		    n, names);
}

/*
 * An edge of the window (@i: 0 --from, 1 --to) as the user gave it,
 * not widened to the events trace-cmd report printed at it; else @t.
 */
static void window_edge(const struct profile *p, int i, uint64_t t,
			char *buf, size_t len)
{
	if (p->time_args[i] && !p->win.raw)
		snprintf(buf, len, "%s", p->time_args[i]);
	else
		prof_window_format(&p->win, buf, len, t);
}

/* The value a stack is ranked and folded by. */
static int64_t value_of(const struct profile *p, const struct prof_stack *st)
{
	return p->nr_weights ? st->w[0] : (int64_t)st->events;
}

static const struct profile *sort_profile;

static int cmp_stacks(const void *a, const void *b)
{
	const struct prof_stack *x = *(struct prof_stack * const *)a;
	const struct prof_stack *y = *(struct prof_stack * const *)b;
	int64_t vx = value_of(sort_profile, x), vy = value_of(sort_profile, y);
	uint32_t i;

	if (vx != vy)
		return vx > vy ? -1 : 1;
	if (x->events != y->events)
		return x->events > y->events ? -1 : 1;
	if (x->unresolved != y->unresolved)
		return x->unresolved ? 1 : -1;
	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	for (i = 0; i < x->depth && i < y->depth; i++)
		if (x->addrs[i] != y->addrs[i])
			return x->addrs[i] < y->addrs[i] ? -1 : 1;
	return x->depth < y->depth ? -1 : x->depth > y->depth;
}

/* The stacks, heaviest first; NULL if out of memory. */
static struct prof_stack **sorted_stacks(struct profile *p)
{
	struct prof_stack **v = malloc((p->nr_stacks + 1) * sizeof(*v));
	size_t i, n = 0;

	if (!v)
		return NULL;
	for (i = 0; i < p->cap; i++)
		if (p->stacks[i])
			v[n++] = p->stacks[i];
	sort_profile = p;
	qsort(v, n, sizeof(*v), cmp_stacks);
	return v;
}

static int digits(int64_t v)
{
	char buf[32];

	return snprintf(buf, sizeof(buf), "%lld", (long long)v);
}

static int print_top(struct profile *p, struct tep_handle *tep)
{
	struct prof_stack **v = sorted_stacks(p), *st;
	int64_t total = p->nr_weights ? p->total_w[0] : (int64_t)p->total_events;
	int wrank, wev, ww[PROF_MAX_WEIGHTS], indent, i;
	char from[32], to[32], len[32], sym[512];
	size_t n = p->nr_stacks < p->top ? p->nr_stacks : p->top, r;
	uint32_t f;

	if (!v) {
		prof_nomem();
		return EXIT_FAILURE;
	}
	window_edge(p, 0, p->from, from, sizeof(from));
	window_edge(p, 1, p->to, to, sizeof(to));
	prof_window_format(&p->win, len, sizeof(len), p->to - p->from);
	printf("# %s: %s to %s (%s%s): %llu events, %zu stacks\n",
	       p->td.path, from, to, len, p->win.raw ? "" : " s",
	       (unsigned long long)p->total_events, p->nr_stacks);
	prof_print_spans(p, stdout, "# ", p->from, p->to);
	wrank = digits(n) > 4 ? digits(n) : 4;
	wev = digits(p->total_events) > 6 ? digits(p->total_events) : 6;
	printf("%*s  %*s", wrank, "rank", wev, "events");
	indent = wrank + 2 + wev + 2;
	for (i = 0; i < p->nr_weights; i++) {
		ww[i] = strlen(p->weights[i]);
		for (r = 0; r < n; r++)
			if (digits(v[r]->w[i]) > ww[i])
				ww[i] = digits(v[r]->w[i]);
		printf("  %*s", ww[i], p->weights[i]);
		indent += ww[i] + 2;
	}
	printf("   share  stack\n");
	indent += 8;
	for (r = 0; r < n; r++) {
		st = v[r];
		printf("%*zu  %*llu", wrank, r + 1, wev,
		       (unsigned long long)st->events);
		for (i = 0; i < p->nr_weights; i++)
			printf("  %*lld", ww[i], (long long)st->w[i]);
		if (total > 0)
			printf("  %5.1f%%", 100.0 * value_of(p, st) / total);
		else
			printf("  %6s", "-");
		if (prof_frameless(st, sym, sizeof(sym))) {
			printf("  %s\n", sym);
			continue;
		}
		/* Top frames first: from the leaf to the root. */
		for (f = 0; f < st->depth; f++) {
			prof_format_frame(sym, sizeof(sym), tep, st->addrs[f], true);
			printf("%*s%s\n", f ? indent : 2, "", sym);
		}
	}
	free(v);
	return 0;
}

struct folded {
	char *s;
	int64_t value;
};

static int cmp_folded(const void *a, const void *b)
{
	return strcmp(((const struct folded *)a)->s,
		      ((const struct folded *)b)->s);
}

/* "root;...;leaf", names only; NULL if out of memory. */
char *prof_fold_stack(struct tep_handle *tep, const struct prof_stack *st)
{
	char sym[512], *s = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&s, &len);
	uint32_t i;

	if (!f)
		return NULL;
	if (prof_frameless(st, sym, sizeof(sym)))
		fputs(sym, f);
	for (i = st->depth; i-- > 0;) {
		prof_format_frame(sym, sizeof(sym), tep, st->addrs[i], false);
		fprintf(f, "%s%s", i + 1 < st->depth ? ";" : "", sym);
	}
	if (fclose(f)) {
		free(s);
		return NULL;
	}
	return s;
}

/* Equal names from different addresses make one line. */
static int print_folded(struct profile *p, struct tep_handle *tep)
{
	struct folded *v = calloc(p->nr_stacks + 1, sizeof(*v));
	size_t i, n = 0, j;
	int ret = 0;

	if (!v) {
		prof_nomem();
		return EXIT_FAILURE;
	}
	for (i = 0; i < p->cap; i++) {
		if (!p->stacks[i])
			continue;
		v[n].value = value_of(p, p->stacks[i]);
		v[n].s = prof_fold_stack(tep, p->stacks[i]);
		if (!v[n++].s) {
			prof_nomem();
			ret = EXIT_FAILURE;
			goto out;
		}
	}
	qsort(v, n, sizeof(*v), cmp_folded);
	for (i = 0; i < n; i = j) {
		int64_t sum = 0;

		for (j = i; j < n && !strcmp(v[j].s, v[i].s); j++)
			sum += v[j].value;
		printf("%s %lld\n", v[i].s, (long long)sum);
	}
out:
	for (i = 0; i < n; i++)
		free(v[i].s);
	free(v);
	return ret;
}

int prof_pprof_comments(struct profile *p, struct pprof *pp,
			const char *what, uint64_t from, uint64_t to)
{
	char a[32], b[32], *text = NULL;
	size_t len = 0;
	FILE *f;
	int ret = -1;

	prof_window_format(&p->win, a, sizeof(a), from);
	prof_window_format(&p->win, b, sizeof(b), to);
	f = open_memstream(&text, &len);
	if (!f)
		return -1;
	fprintf(f, "%s: %s from %s to %s%s (trace clock)\n", p->td.path, what,
		a, b, p->win.raw ? "" : " s");
	prof_print_spans(p, f, "", from, to);
	if (fclose(f))
		goto out;
	if (pprof_add_comment_lines(pp, text))
		goto out;
	ret = prof_warn_losses(p, pp, from, to);
	if (!ret)
		ret = warn_buffers(p, pp);
out:
	free(text);
	return ret;
}

uint32_t prof_pprof_locations(struct pprof *pp, struct tep_handle *tep,
			      const struct prof_stack *st, uint64_t *locs)
{
	uint32_t f, n = st->depth;
	char sym[512];

	if (prof_frameless(st, sym, sizeof(sym))) {
		locs[0] = pprof_location(pp, 0, sym);
		n = 1;
	}
	for (f = 0; f < st->depth; f++) {
		prof_format_frame(sym, sizeof(sym), tep, st->addrs[f], false);
		locs[f] = pprof_location(pp, st->addrs[f], sym);
	}
	for (f = 0; f < n; f++)
		if (!locs[f])
			return 0;
	return n;
}

/* The samples of the profile, one per stack, the leaf first. */
static int fill_pprof(struct profile *p, struct tep_handle *tep,
		      struct pprof *pp)
{
	struct prof_stack **v = sorted_stacks(p), *st;
	int64_t values[1 + PROF_MAX_WEIGHTS];
	uint64_t *locs = NULL;
	uint32_t n;
	size_t r;
	int i, ret = -1;

	if (!v)
		return -1;
	if (pprof_add_sample_type(pp, "events", "count") ||
	    pprof_set_period(pp, "events", "count", 1))
		goto out;
	for (i = 0; i < p->nr_weights; i++)
		if (pprof_add_sample_type(pp, p->weights[i],
					  prof_weight_unit(p->weights[i])))
			goto out;
	/*
	 * The trace clock counts from boot, not from the epoch: no time,
	 * which go tool pprof would print as a day of 1970; the window's
	 * length, and its times in the comments.
	 */
	pprof_set_time(pp, 0, p->win.raw ? 0 : p->to - p->from);
	if (prof_pprof_comments(p, pp, "window", p->from, p->to))
		goto out;
	locs = malloc(PROF_MAX_DEPTH * sizeof(*locs));
	if (!locs)
		goto out;
	for (r = 0; r < p->nr_stacks; r++) {
		st = v[r];
		n = prof_pprof_locations(pp, tep, st, locs);
		if (!n)
			goto out;
		values[0] = st->events;
		for (i = 0; i < p->nr_weights; i++)
			values[i + 1] = st->w[i];
		if (pprof_add_sample(pp, locs, n, values, p->nr_weights + 1))
			goto out;
	}
	ret = 0;
out:
	free(locs);
	free(v);
	return ret;
}

/*
 * Write the profile to --pprof FILE as outfile.h does: a regular file
 * whole or untouched, a device or FIFO written through, never replaced.
 */
int prof_write_pprof(struct profile *p, struct tep_handle *tep)
{
	struct pprof *pp = pprof_new();
	struct smap_outfile out;
	int ret = EXIT_FAILURE;

	if (!pp || p->fill(p, tep, pp)) {
		prof_nomem();
		goto out;
	}
	if (smap_outfile_open(&out, p->pprof, "stackmap: profile"))
		goto out;
	if (pprof_write(pp, smap_outfile_fd(&out))) {
		fprintf(stderr, "stackmap: profile: %s: %s\n", p->pprof,
			strerror(errno));
		smap_outfile_abort(&out);
		goto out;
	}
	if (!smap_outfile_commit(&out))
		ret = 0;
out:
	pprof_free(pp);
	return ret;
}

/* What the trace gave, checked once it is read: 0, or the exit status. */
static int check_result(struct profile *p)
{
	char from[32], to[32];
	int i, w, nr_have;

	if (!p->nr_stack_events)
		return bad("%s: no stacks in the trace (kernel_stack_id or kernel_stack events)",
			   p->td.path);
	for (w = 0; !p->nr_events && w < p->nr_weights; w++) {
		nr_have = 0;
		for (i = 0; i < p->nr_types; i++)
			nr_have += p->types[i]->carried_stack &&
				   p->types[i]->fields[w];
		if (!nr_have)
			return bad("no event with a stack has the field %s",
				   p->weights[w]);
	}
	for (w = 0; p->layer < 0 && w < p->nr_weights; w++) {
		bool layers[2] = { false, false };

		if (strcmp(p->weights[w], PROF_BYTES))
			continue;
		for (i = 0; i < p->nr_types; i++)
			if (p->types[i]->counted &&
			    layer_of(p->types[i]->bytes) >= 0)
				layers[layer_of(p->types[i]->bytes)] = true;
		if (layers[PROF_LAYER_SLAB] && layers[PROF_LAYER_PAGE])
			return bad("%s",
				   "--weight bytes would add slab objects to the pages they are carved from: choose --layer slab or --layer page");
	}
	if (!p->nr_samples) {
		window_edge(p, 0, p->from, from, sizeof(from));
		window_edge(p, 1, p->to, to, sizeof(to));
		return bad("empty window: no selected event with a stack from %s to %s",
			   from, to);
	}
	return 0;
}

/* What was left out, or counted without frames, goes to stderr. */
static void report_leftovers(struct profile *p)
{
	struct prof_type *t = p->first_unweighed;

	if (p->nr_unresolved)
		fprintf(stderr,
			"stackmap: profile: events with a stack id without definition: %llu (the first 0x%08x), each counted as the stack [unresolved stack_id ID]\n",
			p->nr_unresolved, p->first_unresolved);
	if (p->nr_unweighed)
		fprintf(stderr,
			"stackmap: profile: events with a stack left out for lack of a weight: %llu (the first %s:%s, without %s)\n",
			p->nr_unweighed, t->event->system, t->event->name,
			p->weights[t->missing]);
	if (p->nr_bad)
		fprintf(stderr,
			"stackmap: profile: events left out whose record ends before a weight, or with an order too large: %llu\n",
			p->nr_bad);
	if (p->nr_no_stack)
		fprintf(stderr,
			"stackmap: profile: selected events without a stack, left out: %llu\n",
			p->nr_no_stack);
}

static int output(struct profile *p, struct tep_handle *tep)
{
	if (p->output == PROF_PPROF)
		return prof_write_pprof(p, tep);
	if (prof_warn_losses(p, NULL, p->from, p->to) ||
	    warn_buffers(p, NULL)) {
		prof_nomem();
		return EXIT_FAILURE;
	}
	if (p->output == PROF_FOLDED)
		return print_folded(p, tep);
	return print_top(p, tep);
}

/* Pass 2, the checks and the output, with the trace open. */
/*
 * The boots of a boot-mapped buffer do not compare: their clocks and
 * addresses restart. One boot at a time: --boot, which a buffer that
 * holds several needs; with it, the spans are that boot's.
 */
static int pick_boot(struct profile *p)
{
	char tokens[160];
	bool found = false;
	unsigned int n;
	int i;

	for (i = 0; i < p->td.nr_bufs; i++) {
		n = td_boot_tokens(&p->td.bufs[i], tokens, sizeof(tokens));
		if (n > 1 && !p->has_boot)
			return bad("%s: %s%s%sholds the events of %u boots %s %s): %s",
				   p->td.path, *p->td.bufs[i].name ? "instance " : "",
				   p->td.bufs[i].name,
				   *p->td.bufs[i].name ? " " : "", n,
				   "(kernel_stack_boot markers", tokens,
				   "their times and addresses do not compare; choose one with --boot TOKEN");
		for (n = 0; n < p->td.bufs[i].boots.nr_cpus && !found; n++) {
			const struct smap_boot_cpu *c = &p->td.bufs[i].boots.cpus[n];
			unsigned int k;

			for (k = 0; k < c->nr && !found; k++)
				found = p->has_boot && c->segs[k].token == p->boot;
		}
	}
	if (!p->has_boot)
		return 0;
	if (!found) {
		tokens[0] = 0;
		for (i = 0; i < p->td.nr_bufs && !tokens[0]; i++)
			td_boot_tokens(&p->td.bufs[i], tokens, sizeof(tokens));
		return bad("--boot 0x%08x: no such boot in %s (kernel_stack_boot markers %s)",
			   p->boot, p->td.path, *tokens ? tokens : "none");
	}
	if (td_respan(&p->td, p->boot))
		return EXIT_FAILURE;
	return 0;
}

/*
 * A window that ends before it starts, named by its edges as the user
 * gave them: the widened ones (the events trace-cmd report printed at
 * them) are not what was typed.
 */
static int check_edges(struct profile *p)
{
	char a[48], b[48];

	if (!p->win.has_from ||
	    p->win.from <= (p->win.has_to ? p->win.to : p->td.last_ts))
		return 0;
	window_edge(p, 0, p->win.from, a, sizeof(a));
	window_edge(p, 1, p->win.has_to ? p->win.to : p->td.last_ts, b,
		    sizeof(b));
	if (p->win.has_to)
		return bad("--from %s is after --to %s", a, b);
	return bad("empty window: from %s to %s", a, b);
}

static int profile(struct profile *p)
{
	struct tracecmd_input **h = td_open(&p->td);
	struct smap_error err;
	struct tep_handle *tep;
	int i, ret = EXIT_FAILURE;

	if (!h)
		return EXIT_FAILURE;
	tep = tracecmd_get_tep(h[0]);
	p->page_size = td_page_size(h[0]);
	ret = pick_boot(p);
	if (ret)
		goto out;
	ret = parse_window(p, td_in_seconds(h[0]));
	if (ret)
		goto out;
	ret = check_edges(p);
	if (ret)
		goto out;
	if (prof_window_resolve(&p->win, p->td.first_ts, p->td.last_ts,
				&p->from, &p->to, &err)) {
		ret = bad("%s", err.msg);
		goto out;
	}
	/* A window that starts before the trace starts where it does. */
	if (p->from < p->td.first_ts && p->to >= p->td.first_ts)
		p->from = p->td.first_ts;
	if (p->inuse) {
		ret = prof_inuse(p, h);
		goto out;
	}
	ret = select_events(p, tep);
	if (ret)
		goto out;
	ret = EXIT_FAILURE;
	p->nr_cpus = tep_get_cpus(tep);
	for (i = 1; i < p->td.nr_bufs; i++)
		if (tep_get_cpus(tracecmd_get_tep(h[i])) > p->nr_cpus)
			p->nr_cpus = tep_get_cpus(tracecmd_get_tep(h[i]));
	p->pending = calloc((size_t)p->td.nr_bufs * (p->nr_cpus + 1),
			    sizeof(*p->pending));
	p->buf_counted = calloc(p->td.nr_bufs, sizeof(*p->buf_counted));
	if (!p->pending || !p->buf_counted) {
		prof_nomem();
		goto out;
	}
	for (i = 0; i < p->td.nr_bufs; i++)
		if (tracecmd_iterate_events(h[i], NULL, 0, profile_record,
					    p) < 0)
			goto out;
	for (i = 0; i < p->td.nr_bufs * p->nr_cpus; i++)
		prof_clear(p, &p->pending[i], drop_pending);
	ret = check_result(p);
	if (ret)
		goto out;
	ret = output(p, tep);
	if (!ret)
		report_leftovers(p);
out:
	td_close(h, p->td.nr_bufs);
	return ret;
}

int cmd_profile(int argc, char **argv)
{
	struct profile *p = calloc(1, sizeof(*p));
	int ret = EXIT_FAILURE;
	size_t i;

	if (!p) {
		prof_nomem();
		return EXIT_FAILURE;
	}
	p->fill = fill_pprof;
	parse_profile_opts(argc, argv, p);
	if (!td_check_readable(p->td.path) && !td_learn(&p->td))
		ret = profile(p);
	td_free(&p->td);
	for (i = 0; i < p->cap; i++)
		free(p->stacks[i]);
	free(p->stacks);
	free(p->by_idx);
	mem_ops_free(&p->ops);
	for (i = 0; i < (size_t)p->nr_types; i++)
		free(p->types[i]);
	free(p->types);
	free(p->pending);
	free(p->buf_counted);
	free(p);
	return ret;
}
