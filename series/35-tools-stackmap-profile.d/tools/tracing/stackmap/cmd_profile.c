// SPDX-License-Identifier: GPL-2.0
/*
 * "profile": which stacks the events of a trace.dat come from, summed by
 * count and by the fields given as weights, in a time window; e.g. which
 * stacks allocated the memory behind a peak, from kmem events traced with
 * options/stackmap.
 *
 * The kernel writes the stack of an event right after it on the same
 * CPU: a kernel_stack_id (its definition, if new, between the two), or
 * the full kernel_stack when the depot is full. The file is read twice
 * through libtracecmd, as report reads it (tracedat.c): the first pass
 * learns every buffer's definitions, the second pairs each event with
 * the stack that follows it on its CPU and resolves an id with the
 * definition in force at the time of the id.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "profargs.h"
#include "tracedat.h"

/* The full stack an event falls back to when the depot is full. */
#define STACKEVENT_FULL		"kernel_stack"
/* Frames kept of a full stack: a ring-buffer page of 4-byte longs. */
#define PROF_MAX_DEPTH		1024U
#define PROF_DEFAULT_TOP	10UL

static const char profile_help[] =
	"Usage: stackmap profile [options] TRACE.DAT\n"
	"\n"
	"Sum the events of a trace.dat by the kernel stack each was traced with\n"
	"(a kernel_stack_id resolved by the definitions in the trace, or a full\n"
	"kernel_stack), by count and by weights, in a time window. An id without\n"
	"definition counts as the stack \"[unresolved stack_id 0x...]\", and is\n"
	"named on stderr.\n"
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
	"  -h, --help            this text\n"
	"\n"
	"Bad usage or input (an unknown option or event, a field that an event\n"
	"lacks, a malformed number, an empty window, a trace without stacks):\n"
	"one line on stderr, exit status 2, and nothing written.\n";

enum prof_output { PROF_TOP, PROF_FOLDED };

/* The options that take a time, in the order of profile's time_args. */
static const char * const time_opts[] = { "--from", "--to", "--last", "--at" };

/* An event type of the trace, as the options make it count. */
struct prof_type {
	struct tep_event *event;
	bool selected;		/* by --event, or by default */
	int missing;		/* the first weight it lacks, or -1 */
	bool carried_stack;	/* an event of it was followed by a stack */
	enum prof_bytes bytes;
	struct tep_format_field *fields[PROF_MAX_WEIGHTS];
};

/* What the stack of a pending event does. */
enum prof_fate {
	PROF_IGNORED,		/* not selected, or outside the window */
	PROF_COUNTS,		/* counts, with its weights */
	PROF_UNWEIGHED,		/* selected by default, lacks a weight */
	PROF_BAD,		/* its record ends before a weight */
};

/* The last event of a CPU, waiting for its stack. */
struct prof_pending {
	struct prof_type *type;	/* NULL: none */
	enum prof_fate fate;
	int64_t w[PROF_MAX_WEIGHTS];
};

/* A distinct stack and its sums. */
struct prof_stack {
	uint64_t hash;
	uint32_t depth;
	bool unresolved;	/* an id without definition: @id, no frames */
	bool malformed;		/* a kernel_stack_id without an id */
	uint32_t id;
	uint64_t events;
	int64_t w[PROF_MAX_WEIGHTS];
	uint64_t *addrs;	/* innermost first */
};

struct profile {
	struct tracedat td;
	struct prof_event_spec events[PROF_MAX_EVENTS];
	int nr_events;
	const char *weights[PROF_MAX_WEIGHTS];
	int nr_weights;
	struct prof_window win;
	const char *time_args[4];	/* as given, by time_opts[] */
	enum prof_output output;
	bool output_set;
	unsigned long top;
	uint64_t from, to;
	uint64_t page_size;

	struct prof_type **types;	/* each its own: pending points to it */
	int nr_types;
	struct prof_pending *pending;	/* [buffer * nr_cpus + cpu] */
	int nr_cpus;
	struct prof_stack **stacks;	/* open addressing, NULL: free */
	size_t nr_stacks, cap;
	uint64_t addrs[PROF_MAX_DEPTH];

	unsigned long long nr_stack_events, nr_samples, nr_unresolved;
	unsigned long long nr_no_stack, nr_unweighed, nr_bad;
	uint32_t first_unresolved;
	struct prof_type *first_unweighed;
	uint64_t total_events;
	int64_t total_w[PROF_MAX_WEIGHTS];
};

/* Bad usage or input: one line, and exit status 2 as the value. */
#define bad(fmt, ...)							\
	(fprintf(stderr, "stackmap: profile: " fmt "\n", ##__VA_ARGS__),	\
	 EXIT_USAGE)

static void nomem(void)
{
	fprintf(stderr, "stackmap: profile: %s\n", strerror(ENOMEM));
}

static void set_output(struct profile *p, enum prof_output out)
{
	if (p->output_set && p->output != out)
		exit(bad("--top and --folded exclude each other"));
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
			    &p->win.at };
	struct smap_error err;
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
	return 0;
}

static void parse_profile_opts(int argc, char **argv, struct profile *p)
{
	enum { OPT_FROM = 256, OPT_TO, OPT_LAST, OPT_AT };
	static const struct option opts[] = {
		{ "event", required_argument, NULL, 'e' },
		{ "weight", required_argument, NULL, 'w' },
		{ "from", required_argument, NULL, OPT_FROM },
		{ "to", required_argument, NULL, OPT_TO },
		{ "last", required_argument, NULL, OPT_LAST },
		{ "at", required_argument, NULL, OPT_AT },
		{ "top", required_argument, NULL, 'n' },
		{ "folded", no_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	struct smap_error err;
	int c;

	p->top = PROF_DEFAULT_TOP;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":e:w:n:fh", opts, NULL)) != -1) {
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
}

/* A field that holds one number, up to 8 bytes. */
static bool is_numeric(struct tep_format_field *f)
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
		if (!is_numeric(f)) {
			f = NULL;
			if (t->missing < 0)
				t->missing = i;
		}
		t->fields[i] = f;
	}
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
	/* By default, every event but the stacks' own. */
	t->selected = !p->nr_events && !is_stack_event(ev);
	return t;
}

static struct prof_type *find_type(struct profile *p, struct tep_event *ev)
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
		t = find_type(p, ev);
		if (!t) {
			nomem();
			return EXIT_FAILURE;
		}
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
static bool read_field(struct tep_format_field *f, struct tep_record *rec,
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
		if (!read_field(t->fields[i], rec, &w[i]))
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

	if (!size || !is_numeric(size) || !caller || caller->offset < 0 ||
	    !read_field(size, rec, &n) || n <= 0)
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
		     (uint64_t)key->id << 1 ^ (uint64_t)key->malformed << 33;
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
	       a->malformed == b->malformed &&
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

/* Count the pending event with the stack @key (its frames, or an id). */
static int add_sample(struct profile *p, struct prof_stack *key,
		      const struct prof_pending *pend)
{
	struct prof_stack **slot, *st;
	int i;

	key->hash = hash_stack(key);
	if (2 * (p->nr_stacks + 1) > p->cap && grow_stacks(p))
		return -1;
	slot = stack_slot(p->stacks, p->cap, key);
	st = *slot;
	if (!st) {
		st = calloc(1, sizeof(*st) + key->depth * sizeof(st->addrs[0]));
		if (!st)
			return -1;
		*st = *key;
		st->addrs = (uint64_t *)(st + 1);
		memcpy(st->addrs, key->addrs, key->depth * sizeof(st->addrs[0]));
		*slot = st;
		p->nr_stacks++;
	}
	st->events++;
	p->total_events++;
	for (i = 0; i < p->nr_weights; i++) {
		st->w[i] += pend->w[i];
		p->total_w[i] += pend->w[i];
	}
	p->nr_samples++;
	return 0;
}

/* The stack that follows the pending event of a CPU. */
static int take_stack(struct profile *p, struct td_buffer *b,
		      struct prof_pending *pend, struct tep_event *ev,
		      struct tep_record *rec)
{
	const struct smap_stack *st;
	struct prof_stack key;
	uint32_t id;

	memset(&key, 0, sizeof(key));
	key.addrs = p->addrs;
	if (td_is_event(ev, STACKEVENT_FULL)) {
		key.depth = read_full_stack(p, ev, rec);
		return add_sample(p, &key, pend);
	}
	if (stackevent_read_id(ev, rec, &id)) {
		key.malformed = true;
		key.unresolved = true;
	} else {
		st = smap_deftab_find(&b->defs, 0, id, rec->ts);
		if (st) {
			key.depth = st->depth;
			memcpy(p->addrs, st->addrs,
			       st->depth * sizeof(st->addrs[0]));
		} else {
			key.unresolved = true;
			key.id = id;
		}
	}
	if (key.unresolved && !p->nr_unresolved++)
		p->first_unresolved = key.id;
	return add_sample(p, &key, pend);
}

/*
 * An event that met no stack before the next event of its CPU: counted
 * if --event selected it (by default, only events with stacks are).
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
		if (take_stack(p, b, pend, ev, record)) {
			nomem();
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

/* Pass 2: pair each event with the stack that follows it on its CPU. */
static int profile_record(struct tracecmd_input *handle,
			  struct tep_record *record, int cpu, void *data)
{
	struct td_buffer *b = tracecmd_get_private(handle);
	struct tep_handle *tep = tracecmd_get_tep(handle);
	struct tep_event *ev = tep_find_event_by_record(tep, record);
	struct profile *p = data;
	struct prof_pending *pend;
	struct prof_type *t;

	/* record->cpu: libtracecmd's @cpu may count all buffers' CPUs. */
	if (record->cpu < 0 || record->cpu >= p->nr_cpus)
		return 0;
	pend = &p->pending[(b - p->td.bufs) * p->nr_cpus + record->cpu];
	if (td_is_event(ev, STACKEVENT_DEF))
		return 0;
	if (td_is_event(ev, STACKEVENT_ID) ||
	    td_is_event(ev, STACKEVENT_FULL)) {
		p->nr_stack_events++;
		if (!pend->type)
			return 0;
		return pending_stack(p, b, pend, ev, record);
	}
	drop_pending(p, pend);
	if (!ev)
		return 0;
	t = find_type(p, ev);
	if (!t) {
		nomem();
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
static void format_frame(char *buf, size_t len, struct tep_handle *tep,
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
static bool frameless(const struct prof_stack *st, char *buf, size_t len)
{
	if (st->malformed)
		snprintf(buf, len, "[malformed stack_id]");
	else if (st->unresolved)
		snprintf(buf, len, "[unresolved stack_id 0x%08x]", st->id);
	else if (!st->depth)
		snprintf(buf, len, "[empty stack]");
	else
		return false;
	return true;
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
		nomem();
		return EXIT_FAILURE;
	}
	prof_window_format(&p->win, from, sizeof(from), p->from);
	prof_window_format(&p->win, to, sizeof(to), p->to);
	prof_window_format(&p->win, len, sizeof(len), p->to - p->from);
	printf("# %s: %s to %s (%s%s): %llu events, %zu stacks\n",
	       p->td.path, from, to, len, p->win.raw ? "" : " s",
	       (unsigned long long)p->total_events, p->nr_stacks);
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
		if (frameless(st, sym, sizeof(sym))) {
			printf("  %s\n", sym);
			continue;
		}
		/* Top frames first: from the leaf to the root. */
		for (f = 0; f < st->depth; f++) {
			format_frame(sym, sizeof(sym), tep, st->addrs[f], true);
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
static char *fold_stack(struct tep_handle *tep, const struct prof_stack *st)
{
	char sym[512], *s = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&s, &len);
	uint32_t i;

	if (!f)
		return NULL;
	if (frameless(st, sym, sizeof(sym)))
		fputs(sym, f);
	for (i = st->depth; i-- > 0;) {
		format_frame(sym, sizeof(sym), tep, st->addrs[i], false);
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
		nomem();
		return EXIT_FAILURE;
	}
	for (i = 0; i < p->cap; i++) {
		if (!p->stacks[i])
			continue;
		v[n].value = value_of(p, p->stacks[i]);
		v[n].s = fold_stack(tep, p->stacks[i]);
		if (!v[n++].s) {
			nomem();
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
	if (!p->nr_samples) {
		prof_window_format(&p->win, from, sizeof(from), p->from);
		prof_window_format(&p->win, to, sizeof(to), p->to);
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
	switch (p->output) {
	case PROF_FOLDED:
		return print_folded(p, tep);
	default:
		return print_top(p, tep);
	}
}

/* Pass 2, the checks and the output, with the trace open. */
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
	ret = parse_window(p, td_in_seconds(h[0]));
	if (ret)
		goto out;
	if (prof_window_resolve(&p->win, p->td.first_ts, p->td.last_ts,
				&p->from, &p->to, &err)) {
		ret = bad("%s", err.msg);
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
	if (!p->pending) {
		nomem();
		goto out;
	}
	for (i = 0; i < p->td.nr_bufs; i++)
		if (tracecmd_iterate_events(h[i], NULL, 0, profile_record,
					    p) < 0)
			goto out;
	for (i = 0; i < p->td.nr_bufs * p->nr_cpus; i++)
		drop_pending(p, &p->pending[i]);
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
		nomem();
		return EXIT_FAILURE;
	}
	parse_profile_opts(argc, argv, p);
	if (!td_check_readable(p->td.path) && !td_learn(&p->td))
		ret = profile(p);
	td_free(&p->td);
	for (i = 0; i < p->cap; i++)
		free(p->stacks[i]);
	free(p->stacks);
	for (i = 0; i < (size_t)p->nr_types; i++)
		free(p->types[i]);
	free(p->types);
	free(p->pending);
	free(p);
	return ret;
}
