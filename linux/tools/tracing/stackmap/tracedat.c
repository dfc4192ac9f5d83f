// SPDX-License-Identifier: GPL-2.0
/*
 * A trace.dat through libtracecmd: opening its buffers, and the first
 * pass of report and profile, which learns the definitions of each
 * buffer. Each buffer, the top one and each instance, has its own
 * definitions: an id never resolves through another buffer's. In a
 * buffer with boot markers (a boot-mapped instance), each boot has its
 * own too, and a record's boot is what bootseg.c says: a definition met
 * before its CPU's first marker waits for the end of the pass.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "cli.h"
#include "tracedat.h"

int td_page_size(struct tracecmd_input *handle)
{
	return tracecmd_page_size(handle);
}

bool td_in_seconds(struct tracecmd_input *handle)
{
	return tracecmd_get_flags(handle) & TD_FL_IN_USECS;
}

bool td_is_event(struct tep_event *event, const char *name)
{
	return event && !strcmp(event->system, STACKEVENT_SYSTEM) &&
	       !strcmp(event->name, name);
}

int td_check_readable(const char *path)
{
	int fd = open(path, O_RDONLY);

	if (fd < 0) {
		fprintf(stderr, "stackmap: %s: %s\n", path, strerror(errno));
		return -1;
	}
	close(fd);
	return 0;
}

/*
 * Why libtracecmd could not open @path: a file that starts as a
 * trace-cmd data file does (its magic, then a version in digits) is
 * one cut short or corrupt, and is named so, with its version and its
 * size; libtracecmd says no more.
 */
static void report_unreadable(const char *path)
{
	static const char magic[] = "\027\010\104tracing";
	size_t n, v = sizeof(magic) - 1;
	struct stat st = { 0 };
	char head[32] = "";
	int fd;

	/* Zeros past what was read: no magic in a file shorter than it. */
	fd = open(path, O_RDONLY);
	if (fd >= 0) {
		if (!fstat(fd, &st) && S_ISREG(st.st_mode) &&
		    read(fd, head, sizeof(head) - 1) < 0)
			head[0] = '\0';
		close(fd);
	}
	n = strspn(head + v, "0123456789");
	if (memcmp(head, magic, v) || !n || head[v + n]) {
		fprintf(stderr,
			"stackmap: %s: not a trace-cmd data file that libtracecmd can read\n",
			path);
		return;
	}
	fprintf(stderr,
		"stackmap: %s: libtracecmd cannot read this trace-cmd data file (version %s, %lld bytes): truncated or corrupt\n",
		path, head + v, (long long)st.st_size);
}

/* Where @record's CPU retained events, and where it lost some. */
static int learn_span(struct td_buffer *b, struct tep_record *record)
{
	struct td_cpu *c;
	struct td_gap *g;
	void *v;

	if (record->cpu < 0)
		return 0;
	if (record->cpu >= b->nr_cpus) {
		v = realloc(b->cpus, (record->cpu + 1) * sizeof(*b->cpus));
		if (!v)
			return -1;
		b->cpus = v;
		memset(b->cpus + b->nr_cpus, 0,
		       (record->cpu + 1 - b->nr_cpus) * sizeof(*b->cpus));
		b->nr_cpus = record->cpu + 1;
	}
	c = &b->cpus[record->cpu];
	if (record->missed_events) {
		g = realloc(c->gaps, (c->nr_gaps + 1) * sizeof(*g));
		if (!g)
			return -1;
		c->gaps = g;
		g += c->nr_gaps++;
		g->from = c->nr_records ? c->last_ts : 0;
		g->to = record->ts;
		g->missed = record->missed_events;
	}
	if (!c->nr_records++)
		c->first_ts = record->ts;
	c->last_ts = record->ts;
	return 0;
}

/* The trace's first and last times, and @record's CPU's span. */
static int learn_times(struct tracedat *td, struct td_buffer *b,
		       struct tep_record *record)
{
	if (!td->nr_records++ || record->ts < td->first_ts)
		td->first_ts = record->ts;
	if (record->ts > td->last_ts)
		td->last_ts = record->ts;
	if (learn_span(b, record)) {
		fprintf(stderr, "stackmap: %s: %s\n", td->path,
			strerror(ENOMEM));
		return -1;
	}
	return 0;
}

/* The time of @record as trace-cmd report prints it. */
static void format_when(struct tracecmd_input *handle,
			struct tep_record *record, char *when, size_t len)
{
	if (td_in_seconds(handle))
		snprintf(when, len, "%llu.%09llu", record->ts / 1000000000,
			 record->ts % 1000000000);
	else
		snprintf(when, len, "%llu", record->ts);
}

/* Name the first malformed record of @what, with its buffer and CPU. */
static void name_malformed(struct tracedat *td, struct td_buffer *b,
			   struct tracecmd_input *handle,
			   struct tep_record *record, const char *what,
			   const struct smap_error *err)
{
	char when[32];

	format_when(handle, record, when, sizeof(when));
	/* Each buffer has its CPU 0, so an instance is named. */
	fprintf(stderr, "stackmap: %s: malformed %s (%s%s%sCPU %d, time %s): %s\n",
		td->path, what, *b->name ? "instance " : "", b->name,
		*b->name ? ", " : "", record->cpu, when, err->msg);
}

struct smap_boot td_boot(const struct td_buffer *b,
			 const struct tep_record *rec)
{
	return smap_boots_find(&b->boots,
			       rec->cpu < 0 ? UINT32_MAX : (uint32_t)rec->cpu,
			       rec->offset);
}

void td_relocate(const struct tracedat *td, struct tep_handle *tep,
		 struct smap_boot boot, uint64_t *addrs, uint32_t n)
{
	if (td->has_delta && boot.state == SMAP_BOOT_TOKEN)
		smap_relocate(addrs, n, td->text_delta,
			      stackevent_long_size(tep));
}

/* Learn @def of @boot, met at @ts. 0, or -1 out of memory. */
static int learn_def(struct tracedat *td, struct tep_handle *tep,
		     struct td_buffer *b, struct smap_boot boot,
		     struct smap_def *def, uint64_t ts)
{
	uint32_t key;

	/* Of a boot that cannot be told: it teaches nothing. */
	if (!smap_boot_key(boot, &key))
		return 0;
	td_relocate(td, tep, boot, def->addrs, def->depth);
	return smap_deftab_add(&b->defs, key, def, ts);
}

/* Keep @def of @record until the buffer's markers are all known. */
static int keep_early(struct td_buffer *b, struct tep_record *record,
		      const struct smap_def *def)
{
	struct td_early_def *e;

	if (b->nr_early == b->cap_early) {
		size_t cap = b->cap_early ? 2 * b->cap_early : 64;

		e = realloc(b->early, cap * sizeof(*e));
		if (!e)
			return -1;
		b->early = e;
		b->cap_early = cap;
	}
	e = &b->early[b->nr_early];
	e->addrs = malloc(def->depth * sizeof(e->addrs[0]));
	if (!e->addrs)
		return -1;
	memcpy(e->addrs, def->addrs, def->depth * sizeof(e->addrs[0]));
	e->pos = record->offset;
	e->ts = record->ts;
	e->cpu = record->cpu;
	e->id = def->id;
	e->depth = def->depth;
	b->nr_early++;
	return 0;
}

/* The buffer is read: learn the definitions kept for its markers. */
static int learn_early(struct tracedat *td, struct tep_handle *tep,
		       struct td_buffer *b)
{
	struct smap_def def;
	int ret = 0;
	size_t i;

	smap_boots_done(&b->boots);
	if (smap_boots_marked(&b->boots))
		td->marked = true;
	for (i = 0; i < b->nr_early; i++) {
		struct td_early_def *e = &b->early[i];

		def.id = e->id;
		def.depth = e->depth;
		memcpy(def.addrs, e->addrs, e->depth * sizeof(def.addrs[0]));
		if (!ret)
			ret = learn_def(td, tep, b,
					smap_boots_find(&b->boots, e->cpu,
							e->pos),
					&def, e->ts);
		free(e->addrs);
	}
	free(b->early);
	b->early = NULL;
	b->nr_early = 0;
	b->cap_early = 0;
	return ret;
}

/* A record of a stack, which follows the event it is the stack of. */
static bool is_stack(struct tep_event *event)
{
	return td_is_event(event, STACKEVENT_ID) ||
	       td_is_event(event, STACKEVENT_DEF) ||
	       td_is_event(event, STACKEVENT_FULL) ||
	       td_is_event(event, STACKEVENT_USER);
}

static int learn_boot(struct tracedat *td, struct td_buffer *b,
		      struct tracecmd_input *handle, struct tep_event *event,
		      struct tep_record *record)
{
	uint32_t token, flags;
	struct smap_error err;
	struct td_cpu *c;
	uint64_t pos;

	if (stackevent_read_boot(event, record, &token, &flags, &err)) {
		if (!td->nr_bad_marks++)
			name_malformed(td, b, handle, record, STACKEVENT_BOOT,
				       &err);
		token = 0;
	}
	/* The event the marker went before the stack of is of its boot. */
	c = &b->cpus[record->cpu];
	pos = c->event_open ? c->event_pos : record->offset;
	return smap_boots_mark(&b->boots, record->cpu, pos, token, flags);
}

static int learn_record(struct tracecmd_input *handle,
			struct tep_record *record, int cpu, void *data)
{
	struct td_buffer *b = tracecmd_get_private(handle);
	struct tep_handle *tep = tracecmd_get_tep(handle);
	struct tep_event *event = tep_find_event_by_record(tep, record);
	struct tracedat *td = data;
	struct smap_error err;
	struct smap_def def;
	int ret;

	if (learn_times(td, b, record))
		return -1;
	if (record->cpu < 0)
		return 0;
	if (td_is_event(event, STACKEVENT_BOOT)) {
		ret = learn_boot(td, b, handle, event, record);
		b->cpus[record->cpu].event_open = false;
		goto out;
	}
	/* learn_span() made room for the CPU. */
	b->cpus[record->cpu].event_open = !is_stack(event);
	b->cpus[record->cpu].event_pos = record->offset;
	if (!td_is_event(event, STACKEVENT_DEF))
		return 0;
	if (stackevent_read_def(event, record, &def, &err)) {
		/* The first tells what is wrong; the count, how often. */
		if (!td->nr_malformed++)
			name_malformed(td, b, handle, record, STACKEVENT_DEF,
				       &err);
		return 0;
	}
	td->nr_defs++;
	if ((uint32_t)record->cpu >= b->boots.nr_cpus ||
	    !b->boots.cpus[record->cpu].nr)
		ret = keep_early(b, record, &def);
	else
		ret = learn_def(td, tep, b, td_boot(b, record), &def,
				record->ts);
out:
	if (ret) {
		fprintf(stderr, "stackmap: %s: %s\n", td->path,
			strerror(errno));
		return -1;
	}
	return 0;
}

/* The buffers, named as trace-cmd report names them before each event. */
static int make_buffers(struct tracedat *td, struct tracecmd_input *top)
{
	int i, n = tracecmd_buffer_instances(top) + 1;
	const char *name;

	td->bufs = calloc(n, sizeof(*td->bufs));
	if (!td->bufs)
		return -1;
	td->nr_bufs = n;
	for (i = 0; i < n; i++) {
		name = i ? tracecmd_buffer_instance_name(top, i - 1) : NULL;
		td->bufs[i].name = strdup(name ? name : "");
		if (!td->bufs[i].name)
			return -1;
		if ((int)strlen(name ? name : "") > td->name_width)
			td->name_width = strlen(name);
	}
	return 0;
}

void td_close(struct tracecmd_input **h, int n)
{
	/* The instances first: each holds a reference to the top buffer. */
	while (--n > 0)
		tracecmd_close(h[n]);
	tracecmd_close(h[0]);
	free(h);
}

struct tracecmd_input **td_open(struct tracedat *td)
{
	struct tracecmd_input **h, *top;
	int i, n;

	top = tracecmd_open_head(td->path, 0);
	if (!top) {
		report_unreadable(td->path);
		return NULL;
	}
	/*
	 * Not tracecmd_open(): libtracecmd 3.1.6 crashes closing a handle
	 * whose data failed to load (a truncated file), so such a handle
	 * is left open, to the exit that follows.
	 */
	if (tracecmd_init_data(top) < 0) {
		fprintf(stderr, "stackmap: %s: cannot read the trace data\n",
			td->path);
		return NULL;
	}
	n = tracecmd_buffer_instances(top) + 1;
	if (!td->bufs && make_buffers(td, top))
		goto nomem;
	if (n != td->nr_bufs) {
		fprintf(stderr, "stackmap: %s: changed while read\n", td->path);
		goto fail;
	}
	h = calloc(n, sizeof(*h));
	if (!h)
		goto nomem;
	h[0] = top;
	for (i = 1; i < n; i++) {
		h[i] = tracecmd_buffer_instance_handle(top, i - 1);
		if (!h[i]) {
			fprintf(stderr, "stackmap: %s: cannot read buffer %s\n",
				td->path, td->bufs[i].name);
			td_close(h, i);
			return NULL;
		}
	}
	for (i = 0; i < n; i++)
		tracecmd_set_private(h[i], &td->bufs[i]);
	return h;

nomem:
	fprintf(stderr, "stackmap: %s: %s\n", td->path, strerror(ENOMEM));
fail:
	tracecmd_close(top);
	return NULL;
}

int td_learn(struct tracedat *td)
{
	struct tracecmd_input **h = td_open(td);
	int i, ret = 0;

	if (!h)
		return -1;
	for (i = 0; i < td->nr_bufs && !ret; i++) {
		if (tracecmd_iterate_events(h[i], NULL, 0, learn_record,
					    td) < 0)
			ret = -1;
		else if (learn_early(td, tracecmd_get_tep(h[i]), &td->bufs[i]))
			ret = -1;
	}
	td_close(h, td->nr_bufs);
	if (!ret && td->marked && !td->has_delta)
		fprintf(stderr,
			"stackmap: %s: boot-marked trace and no text delta given (--text-delta, --last-boot-info): frames are symbolized as if the kernel text had not moved\n",
			td->path);
	return ret;
}

bool td_in_boot(const struct td_buffer *b, const struct tep_record *rec,
		uint32_t token)
{
	struct smap_boot boot = td_boot(b, rec);

	return boot.state == SMAP_BOOT_TOKEN && boot.token == token;
}

unsigned int td_boot_tokens(const struct td_buffer *b, char *buf, size_t len)
{
	uint32_t seen[TD_MAX_TOKENS], token, cpu, i;
	unsigned int n = 0, k;
	int w;

	*buf = 0;
	for (cpu = 0; cpu < b->boots.nr_cpus; cpu++) {
		for (i = 0; i < b->boots.cpus[cpu].nr; i++) {
			token = b->boots.cpus[cpu].segs[i].token;
			for (k = 0; k < n && k < TD_MAX_TOKENS; k++)
				if (seen[k] == token)
					break;
			/* A malformed marker has no token to choose. */
			if (!token || k < n)
				continue;
			if (n < TD_MAX_TOKENS)
				seen[n] = token;
			w = snprintf(buf, len, "%s0x%08x", n ? ", " : "", token);
			n++;
			if (w > 0 && (size_t)w < len) {
				buf += w;
				len -= w;
			}
		}
	}
	return n;
}

struct respan {
	struct tracedat *td;
	uint32_t token;
};

static int respan_record(struct tracecmd_input *handle,
			 struct tep_record *record, int cpu, void *data)
{
	struct td_buffer *b = tracecmd_get_private(handle);
	struct respan *rs = data;
	struct tracedat *td = rs->td;

	if (!td_in_boot(b, record, rs->token))
		return 0;
	if (learn_times(td, b, record))
		return -1;
	return 0;
}

int td_respan(struct tracedat *td, uint32_t token)
{
	struct respan rs = { td, token };
	struct tracecmd_input **h;
	int i, cpu, ret = 0;

	for (i = 0; i < td->nr_bufs; i++) {
		for (cpu = 0; cpu < td->bufs[i].nr_cpus; cpu++) {
			free(td->bufs[i].cpus[cpu].gaps);
			memset(&td->bufs[i].cpus[cpu], 0,
			       sizeof(td->bufs[i].cpus[cpu]));
		}
	}
	td->nr_records = 0;
	td->first_ts = 0;
	td->last_ts = 0;
	h = td_open(td);
	if (!h)
		return -1;
	for (i = 0; i < td->nr_bufs && !ret; i++)
		if (tracecmd_iterate_events(h[i], NULL, 0, respan_record,
					    &rs) < 0)
			ret = -1;
	td_close(h, td->nr_bufs);
	return ret;
}

const struct smap_stack *td_find_stack(const struct td_buffer *b,
				       const struct tep_record *rec,
				       uint32_t id, struct smap_boot *boot)
{
	uint32_t key;

	*boot = td_boot(b, rec);
	if (!smap_boot_key(*boot, &key))
		return NULL;
	return smap_deftab_find(&b->defs, key, id, rec->ts);
}

const char *td_unresolved_mark(const struct tracedat *td,
			       struct smap_boot boot)
{
	switch (boot.state) {
	case SMAP_BOOT_NONE:
		return td->nr_bufs > 1 ? STACK_ID_UNDEFINED_BUF :
		       STACK_ID_UNDEFINED;
	case SMAP_BOOT_TOKEN:
		return STACK_ID_UNDEFINED_BOOT;
	case SMAP_BOOT_EARLIER:
		return STACK_ID_EARLIER_BOOT;
	case SMAP_BOOT_NO_MARK:
		return STACK_ID_NO_MARK;
	default:
		return STACK_ID_BAD_MARK;
	}
}

void td_parse_delta(struct tracedat *td, const char *who, const char *opt,
		    const char *arg)
{
	bool is_delta = !strcmp(opt, "--text-delta");
	struct smap_error err;
	int ret;

	if (td->has_delta) {
		fprintf(stderr,
			"%s: --text-delta and --last-boot-info exclude each other\n",
			who);
		exit(EXIT_USAGE);
	}
	if (is_delta)
		ret = smap_parse_delta(arg, &td->text_delta, &err);
	else
		ret = smap_read_last_boot_info(arg, &td->text_delta, &err);
	if (ret) {
		fprintf(stderr, "%s: %s %s%s%s: %s\n", who, opt,
			is_delta ? "'" : "", arg, is_delta ? "'" : "",
			err.msg);
		exit(EXIT_USAGE);
	}
	td->has_delta = true;
}

void td_free(struct tracedat *td)
{
	int i;

	for (i = 0; i < td->nr_bufs; i++) {
		smap_deftab_free(&td->bufs[i].defs);
		smap_boots_free(&td->bufs[i].boots);
		while (td->bufs[i].nr_early--)
			free(td->bufs[i].early[td->bufs[i].nr_early].addrs);
		free(td->bufs[i].early);
		while (td->bufs[i].nr_cpus--)
			free(td->bufs[i].cpus[td->bufs[i].nr_cpus].gaps);
		free(td->bufs[i].cpus);
		free(td->bufs[i].name);
	}
	free(td->bufs);
	td->bufs = NULL;
	td->nr_bufs = 0;
}
