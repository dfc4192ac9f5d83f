// SPDX-License-Identifier: GPL-2.0
/*
 * "report": print a trace.dat as trace-cmd report does, with the stacks
 * of its kernel_stack_id entries taken from the kernel_stack_def
 * definitions the trace carries.
 *
 * The file is read twice through libtracecmd. The first pass learns
 * every definition of each buffer, with its time; the second prints the
 * events in trace-cmd report's order and format, resolving each id
 * with the definition of that id in force at its time, so an id
 * resolves even where its definition comes later in time order (written
 * by another CPU that stamped it later). Each buffer, the top one and
 * each instance, has its own definitions: an id never resolves through
 * another buffer's.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <trace-cmd.h>

#include "cli.h"
#include "commands.h"
#include "stackevent.h"

static const char report_help[] =
	"Usage: stackmap report [options] TRACE.DAT\n"
	"\n"
	"Print the events of a trace.dat as \"trace-cmd report\" does, each\n"
	"kernel_stack_id with its stack, from the kernel_stack_def definitions the\n"
	"trace carries (options/stackmap-defs): the one of that id in force at its\n"
	"time (the latest at or before it, else the first after it). Each buffer,\n"
	"the top one and each instance, resolves ids with its own definitions.\n"
	"An id with no definition is left as it is, \"<stack_id 0x...>\". Counts\n"
	"go to stderr.\n"
	"\n"
	"  -m, --map FILE   resolve ids with no definition with this stack_map_bin;\n"
	"                   an id of another generation is marked \" [stale]\", one\n"
	"                   missing from the map \" [unknown]\"\n"
	"      --hide-defs  do not print the kernel_stack_def events\n"
	"  -h, --help       this text\n";

/* One buffer of the trace: the top one (name "") or an instance. */
struct report_buffer {
	char *name;
	struct smap_deftab defs;
};

struct report {
	const char *path;
	const char *map;
	bool hide_defs;
	struct smap_index ix;
	struct report_buffer *bufs;
	int nr_bufs;
	int name_width;		/* of the longest instance name */
	unsigned long nr_resolved, nr_mapped, nr_unresolved;
	unsigned long nr_defs, nr_malformed;
};

/*
 * libtracecmd sets this flag of a handle whose trace clock counts
 * nanoseconds (local, global, mono, ...), and trace-cmd report prints
 * the times of those in seconds, those of the others (counter, boot,
 * x86-tsc, ...) as they are. libtracecmd 3.1.6 exports
 * tracecmd_get_flags() but declares it, and the flag, only in a header
 * it does not install.
 */
#define REPORT_FL_IN_USECS	0x4UL	/* its TRACECMD_FL_IN_USECS, bit 2 */
unsigned long tracecmd_get_flags(struct tracecmd_input *handle);

static bool in_seconds(struct tracecmd_input *handle)
{
	return tracecmd_get_flags(handle) & REPORT_FL_IN_USECS;
}

static bool is_event(struct tep_event *event, const char *name)
{
	return event && !strcmp(event->system, STACKEVENT_SYSTEM) &&
	       !strcmp(event->name, name);
}

/* Pass 1: learn the definitions of a buffer. */
static int learn_record(struct tracecmd_input *handle,
			struct tep_record *record, int cpu, void *data)
{
	struct report_buffer *b = tracecmd_get_private(handle);
	struct tep_handle *tep = tracecmd_get_tep(handle);
	struct tep_event *event = tep_find_event_by_record(tep, record);
	struct report *r = data;
	struct smap_error err;
	struct smap_def def;
	char when[32];

	if (!is_event(event, STACKEVENT_DEF))
		return 0;
	if (stackevent_read_def(event, record, &def, &err)) {
		/*
		 * The first tells what is wrong; the count, how often. Each
		 * buffer has its CPU 0, so an instance is named.
		 */
		if (r->nr_malformed++)
			return 0;
		if (in_seconds(handle))
			snprintf(when, sizeof(when), "%llu.%09llu",
				 record->ts / 1000000000,
				 record->ts % 1000000000);
		else
			snprintf(when, sizeof(when), "%llu", record->ts);
		fprintf(stderr,
			"stackmap: %s: malformed kernel_stack_def (%s%s%sCPU %d, time %s): %s\n",
			r->path, *b->name ? "instance " : "", b->name,
			*b->name ? ", " : "", record->cpu, when, err.msg);
		return 0;
	}
	r->nr_defs++;
	if (smap_deftab_add(&b->defs, &def, record->ts)) {
		fprintf(stderr, "stackmap: %s: %s\n", r->path, strerror(errno));
		return -1;
	}
	return 0;
}

static void print_stack_id(struct report *r, struct report_buffer *b,
			   struct trace_seq *s, struct tep_event *event,
			   struct tep_record *record)
{
	const struct smap_stack *st;
	uint32_t id;

	if (stackevent_read_id(event, record, &id)) {
		trace_seq_puts(s, "<stack_id> [malformed]");
		r->nr_unresolved++;
		return;
	}
	st = smap_deftab_find(&b->defs, id, record->ts);
	if (st) {
		stackevent_print_stack(s, event->tep, st->addrs, st->depth);
		r->nr_resolved++;
		return;
	}
	if (!r->map) {
		trace_seq_printf(s, "<stack_id 0x%08x>", id);
		r->nr_unresolved++;
	} else if (stackevent_print_mapped(s, event->tep, &r->ix, id) ==
		   SMAP_FOUND) {
		r->nr_mapped++;
	} else {
		r->nr_unresolved++;
	}
}

/* Pass 2: print an event as trace-cmd report does (trace-read.c). */
static int print_record(struct tracecmd_input *handle,
			struct tep_record *record, int cpu, void *data)
{
	struct report_buffer *b = tracecmd_get_private(handle);
	struct tep_handle *tep = tracecmd_get_tep(handle);
	struct tep_event *event = tep_find_event_by_record(tep, record);
	const char *name = event ? event->name : "(NULL)";
	int len = strlen(name);
	struct report *r = data;
	struct smap_error err;
	struct smap_def def;
	struct trace_seq s;

	if (r->hide_defs && is_event(event, STACKEVENT_DEF))
		return 0;
	trace_seq_init(&s);
	/* Buffer names, if the file has instances; none for the top one. */
	if (r->nr_bufs > 1)
		trace_seq_printf(&s, "%*s%s", r->name_width, b->name,
				 *b->name ? ": " : "  ");
	/*
	 * record->cpu, not @cpu: tracecmd_iterate_events_multi() of
	 * libtracecmd 3.1.6 passes the CPU's index among all the buffers'.
	 */
	if (record->missed_events > 0)
		trace_seq_printf(&s, "CPU:%d [%lld EVENTS DROPPED]\n",
				 record->cpu, record->missed_events);
	else if (record->missed_events < 0)
		trace_seq_printf(&s, "CPU:%d [EVENTS DROPPED]\n", record->cpu);
	tep_print_event(tep, &s, record, "%16s-%-5d [%03d]", TEP_PRINT_COMM,
			TEP_PRINT_PID, TEP_PRINT_CPU);
	tep_print_event(tep, &s, record,
			in_seconds(handle) ? " %6.1000d:" : "%12d:",
			TEP_PRINT_TIME);
	/* The event names padded to 20 columns. */
	trace_seq_printf(&s, " %s: %*s", name, len < 20 ? 20 - len : 0, "");
	if (is_event(event, STACKEVENT_ID))
		print_stack_id(r, b, &s, event, record);
	else if (is_event(event, STACKEVENT_DEF))
		stackevent_print_def(&s, &def,
				     stackevent_read_def(event, record, &def,
							 &err));
	else
		tep_print_event(tep, &s, record, "%s", TEP_PRINT_INFO);
	if (s.len && s.buffer[s.len - 1] == '\n')
		s.len--;
	fwrite(s.buffer, 1, s.len, stdout);
	putchar('\n');
	trace_seq_destroy(&s);
	return 0;
}

/* The buffers, named as trace-cmd report names them before each event. */
static int make_buffers(struct report *r, struct tracecmd_input *top)
{
	int i, n = tracecmd_buffer_instances(top) + 1;
	const char *name;

	r->bufs = calloc(n, sizeof(*r->bufs));
	if (!r->bufs)
		return -1;
	r->nr_bufs = n;
	for (i = 0; i < n; i++) {
		name = i ? tracecmd_buffer_instance_name(top, i - 1) : NULL;
		r->bufs[i].name = strdup(name ? name : "");
		if (!r->bufs[i].name)
			return -1;
		if ((int)strlen(name ? name : "") > r->name_width)
			r->name_width = strlen(name);
	}
	return 0;
}

static void close_buffers(struct tracecmd_input **h, int n)
{
	/* The instances first: each holds a reference to the top buffer. */
	while (--n > 0)
		tracecmd_close(h[n]);
	tracecmd_close(h[0]);
	free(h);
}

/*
 * Open the trace and its instance buffers: [0] is the top buffer, the
 * others the instances, each with its report_buffer as private data.
 * The first call makes the report_buffers. NULL: error reported.
 */
static struct tracecmd_input **open_buffers(struct report *r)
{
	struct tracecmd_input **h, *top;
	int i, n;

	top = tracecmd_open_head(r->path, 0);
	if (!top) {
		fprintf(stderr,
			"stackmap: %s: not a trace-cmd data file that libtracecmd can read\n",
			r->path);
		return NULL;
	}
	/*
	 * Not tracecmd_open(): libtracecmd 3.1.6 crashes closing a handle
	 * whose data failed to load (a truncated file), so such a handle
	 * is left open, to the exit that follows.
	 */
	if (tracecmd_init_data(top) < 0) {
		fprintf(stderr, "stackmap: %s: cannot read the trace data\n",
			r->path);
		return NULL;
	}
	n = tracecmd_buffer_instances(top) + 1;
	if (!r->bufs && make_buffers(r, top))
		goto nomem;
	if (n != r->nr_bufs) {
		fprintf(stderr, "stackmap: %s: changed while read\n", r->path);
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
				r->path, r->bufs[i].name);
			close_buffers(h, i);
			return NULL;
		}
	}
	for (i = 0; i < n; i++)
		tracecmd_set_private(h[i], &r->bufs[i]);
	return h;

nomem:
	fprintf(stderr, "stackmap: %s: %s\n", r->path, strerror(ENOMEM));
fail:
	tracecmd_close(top);
	return NULL;
}

static void parse_report_opts(int argc, char **argv, struct report *r)
{
	static const struct option opts[] = {
		{ "map", required_argument, NULL, 'm' },
		{ "hide-defs", no_argument, NULL, 'D' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	int c;

	while ((c = getopt_long(argc, argv, "m:h", opts, NULL)) != -1) {
		switch (c) {
		case 'm':
			r->map = optarg;
			break;
		case 'D':
			r->hide_defs = true;
			break;
		default:
			check_opt(c, "report", report_help);
		}
	}
	if (optind != argc - 1) {
		fputs("stackmap report: expected one TRACE.DAT\n", stderr);
		die_usage("report");
	}
	r->path = argv[optind];
}

/* Name a file that cannot be opened at all as open() does. */
static int check_readable(const char *path)
{
	int fd = open(path, O_RDONLY);

	if (fd < 0) {
		fprintf(stderr, "stackmap: %s: %s\n", path, strerror(errno));
		return -1;
	}
	close(fd);
	return 0;
}

static int learn(struct report *r)
{
	struct tracecmd_input **h = open_buffers(r);
	int i, ret = 0;

	if (!h)
		return -1;
	for (i = 0; i < r->nr_bufs && !ret; i++)
		if (tracecmd_iterate_events(h[i], NULL, 0, learn_record, r) < 0)
			ret = -1;
	close_buffers(h, r->nr_bufs);
	return ret;
}

static int print(struct report *r)
{
	struct tracecmd_input **h = open_buffers(r);
	int ret = 0;

	if (!h)
		return -1;
	printf("cpus=%d\n", tep_get_cpus(tracecmd_get_tep(h[0])));
	if (tracecmd_iterate_events_multi(h, r->nr_bufs, print_record, r) < 0)
		ret = -1;
	close_buffers(h, r->nr_bufs);
	return ret;
}

int cmd_report(int argc, char **argv)
{
	struct report r;
	int i, ret = EXIT_FAILURE;

	memset(&r, 0, sizeof(r));
	parse_report_opts(argc, argv, &r);
	if (r.map && open_map(r.map, &r.ix))
		return EXIT_FAILURE;
	if (check_readable(r.path) || learn(&r) || print(&r))
		goto out;
	fprintf(stderr,
		"stackmap: %lu stack ids resolved (%lu by the map), %lu unresolved; %lu definitions read, %lu malformed\n",
		r.nr_resolved + r.nr_mapped, r.nr_mapped, r.nr_unresolved,
		r.nr_defs, r.nr_malformed);
	ret = 0;
out:
	for (i = 0; i < r.nr_bufs; i++) {
		smap_deftab_free(&r.bufs[i].defs);
		free(r.bufs[i].name);
	}
	free(r.bufs);
	if (r.map)
		smap_index_close(&r.ix);
	return ret;
}
