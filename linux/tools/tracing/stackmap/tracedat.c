// SPDX-License-Identifier: GPL-2.0
/*
 * A trace.dat through libtracecmd: opening its buffers, and the first
 * pass of report and profile, which learns the definitions of each
 * buffer. Each buffer, the top one and each instance, has its own
 * definitions: an id never resolves through another buffer's.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

static int learn_record(struct tracecmd_input *handle,
			struct tep_record *record, int cpu, void *data)
{
	struct td_buffer *b = tracecmd_get_private(handle);
	struct tep_handle *tep = tracecmd_get_tep(handle);
	struct tep_event *event = tep_find_event_by_record(tep, record);
	struct tracedat *td = data;
	struct smap_error err;
	struct smap_def def;
	char when[32];

	if (!td->nr_records++ || record->ts < td->first_ts)
		td->first_ts = record->ts;
	if (record->ts > td->last_ts)
		td->last_ts = record->ts;
	if (learn_span(b, record)) {
		fprintf(stderr, "stackmap: %s: %s\n", td->path,
			strerror(ENOMEM));
		return -1;
	}
	if (!td_is_event(event, STACKEVENT_DEF))
		return 0;
	if (stackevent_read_def(event, record, &def, &err)) {
		/*
		 * The first tells what is wrong; the count, how often. Each
		 * buffer has its CPU 0, so an instance is named.
		 */
		if (td->nr_malformed++)
			return 0;
		if (td_in_seconds(handle))
			snprintf(when, sizeof(when), "%llu.%09llu",
				 record->ts / 1000000000,
				 record->ts % 1000000000);
		else
			snprintf(when, sizeof(when), "%llu", record->ts);
		fprintf(stderr,
			"stackmap: %s: malformed kernel_stack_def (%s%s%sCPU %d, time %s): %s\n",
			td->path, *b->name ? "instance " : "", b->name,
			*b->name ? ", " : "", record->cpu, when, err.msg);
		return 0;
	}
	td->nr_defs++;
	if (smap_deftab_add(&b->defs, &def, record->ts)) {
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
		fprintf(stderr,
			"stackmap: %s: not a trace-cmd data file that libtracecmd can read\n",
			td->path);
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
	for (i = 0; i < td->nr_bufs && !ret; i++)
		if (tracecmd_iterate_events(h[i], NULL, 0, learn_record,
					    td) < 0)
			ret = -1;
	td_close(h, td->nr_bufs);
	return ret;
}

void td_free(struct tracedat *td)
{
	int i;

	for (i = 0; i < td->nr_bufs; i++) {
		smap_deftab_free(&td->bufs[i].defs);
		while (td->bufs[i].nr_cpus--)
			free(td->bufs[i].cpus[td->bufs[i].nr_cpus].gaps);
		free(td->bufs[i].cpus);
		free(td->bufs[i].name);
	}
	free(td->bufs);
	td->bufs = NULL;
	td->nr_bufs = 0;
}
