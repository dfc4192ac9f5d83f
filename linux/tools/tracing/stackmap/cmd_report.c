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
 * by "emit", or by another CPU on kernels that defined a stack on one
 * CPU only). Each buffer, the top one and
 * each instance, has its own definitions: an id never resolves through
 * another buffer's; nor, in a boot-mapped buffer, through another
 * boot's (tracedat.c).
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "tracedat.h"
#include "tracetext.h"

static const char report_help[] =
	"Usage: stackmap report [options] TRACE.DAT\n"
	"\n"
	"Print the events of a trace.dat as \"trace-cmd report\" does, each\n"
	"kernel_stack_id with its stack, from the kernel_stack_def definitions the\n"
	"trace carries (options/stackmap-defs): the one of that id in force at its\n"
	"time (the latest at or before it, else the first after it). Each buffer,\n"
	"the top one and each instance, resolves ids with its own definitions.\n"
	"An id with no definition prints as \"<stack_id 0x...> [no definition in\n"
	"the trace]\" (\"in its buffer]\" in a file with instances). Counts go to\n"
	"stderr.\n"
	"\n"
	"A boot-mapped instance keeps the last boot's events, and its\n"
	"kernel_stack_boot markers tell on each CPU which boot's ids follow: an id\n"
	"resolves only with the definitions of its own boot, and one whose boot\n"
	"cannot be told is marked as such (\" [of an earlier boot: ...]\").\n"
	"\n"
	"  -m, --map FILE   resolve ids with no definition with this stack_map_bin;\n"
	"                   an id of another generation is marked \" [stale]\", one\n"
	"                   missing from the map \" [unknown]\"; never the ids of a\n"
	"                   buffer with boot markers (a map does not say which boot\n"
	"                   it is from)\n"
	"      --hide-defs  do not print the kernel_stack_def events\n"
	TD_DELTA_HELP
	"  -h, --help       this text\n";

struct report {
	struct tracedat td;
	const char *map;
	bool hide_defs;
	struct smap_index ix;
	unsigned long nr_resolved, nr_mapped, nr_unresolved;
};

static void print_stack_id(struct report *r, struct td_buffer *b,
			   struct trace_seq *s, struct tep_event *event,
			   struct tep_record *record)
{
	const struct smap_stack *st;
	struct smap_boot boot;
	uint32_t id;

	if (stackevent_read_id(event, record, &id)) {
		trace_seq_puts(s, "<stack_id> [malformed]");
		r->nr_unresolved++;
		return;
	}
	st = td_find_stack(b, record, id, &boot);
	if (st) {
		stackevent_print_stack(s, event->tep, st->addrs, st->depth);
		r->nr_resolved++;
		return;
	}
	/* A map does not say which boot it is from. */
	if (!r->map || boot.state != SMAP_BOOT_NONE) {
		/* Not the plugin's "not read yet": report read it all. */
		trace_seq_printf(s, "<stack_id 0x%08x>%s", id,
				 td_unresolved_mark(&r->td, boot));
		r->nr_unresolved++;
	} else if (stackevent_print_mapped(s, event->tep, &r->ix, id) ==
		   SMAP_FOUND) {
		r->nr_mapped++;
	} else {
		r->nr_unresolved++;
	}
}

static void print_boot(struct trace_seq *s, struct tep_event *event,
		       struct tep_record *record)
{
	uint32_t token, flags;
	struct smap_error err;
	bool bad;

	bad = stackevent_read_boot(event, record, &token, &flags, &err);
	stackevent_print_boot(s, token, flags, bad);
}

/* Pass 2: print an event as trace-cmd report does (trace-read.c). */
static int print_record(struct tracecmd_input *handle,
			struct tep_record *record, int cpu, void *data)
{
	struct td_buffer *b = tracecmd_get_private(handle);
	struct tep_handle *tep = tracecmd_get_tep(handle);
	struct tep_event *event = tep_find_event_by_record(tep, record);
	const char *name = event ? event->name : "(NULL)";
	int len = strlen(name);
	struct report *r = data;
	struct smap_error err;
	struct smap_def def;
	struct trace_seq s;

	if (r->hide_defs && td_is_event(event, STACKEVENT_DEF))
		return 0;
	trace_seq_init(&s);
	/* Buffer names, if the file has instances; none for the top one. */
	if (r->td.nr_bufs > 1)
		trace_seq_printf(&s, "%*s%s", r->td.name_width, b->name,
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
			td_in_seconds(handle) ? " %6.1000d:" : "%12d:",
			TEP_PRINT_TIME);
	/* The event names padded to 20 columns. */
	trace_seq_printf(&s, " %s: %*s", name, len < 20 ? 20 - len : 0, "");
	if (td_is_event(event, STACKEVENT_ID))
		print_stack_id(r, b, &s, event, record);
	else if (td_is_event(event, STACKEVENT_DEF))
		stackevent_print_def(&s, &def,
				     stackevent_read_def(event, record, &def,
							 &err));
	else if (td_is_event(event, STACKEVENT_BOOT))
		print_boot(&s, event, record);
	else
		tep_print_event(tep, &s, record, "%s", TEP_PRINT_INFO);
	if (s.len && s.buffer[s.len - 1] == '\n')
		s.len--;
	fwrite(s.buffer, 1, s.len, stdout);
	putchar('\n');
	trace_seq_destroy(&s);
	return 0;
}

static void parse_report_opts(int argc, char **argv, struct report *r)
{
	enum { OPT_TEXT_DELTA = 256, OPT_LAST_BOOT_INFO };
	static const struct option opts[] = {
		{ "map", required_argument, NULL, 'm' },
		{ "hide-defs", no_argument, NULL, 'D' },
		{ "text-delta", required_argument, NULL, OPT_TEXT_DELTA },
		{ "last-boot-info", required_argument, NULL,
		  OPT_LAST_BOOT_INFO },
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
		case OPT_TEXT_DELTA:
			td_parse_delta(&r->td, "stackmap report", "--text-delta",
				       optarg);
			break;
		case OPT_LAST_BOOT_INFO:
			td_parse_delta(&r->td, "stackmap report",
				       "--last-boot-info", optarg);
			break;
		default:
			check_opt(c, "report", report_help);
		}
	}
	if (optind != argc - 1) {
		fputs("stackmap report: expected one TRACE.DAT\n", stderr);
		die_usage("report");
	}
	r->td.path = argv[optind];
}

static int print(struct report *r)
{
	struct tracecmd_input **h = td_open(&r->td);
	int ret = 0;

	if (!h)
		return -1;
	printf("cpus=%d\n", tep_get_cpus(tracecmd_get_tep(h[0])));
	if (tracecmd_iterate_events_multi(h, r->td.nr_bufs, print_record, r) < 0)
		ret = -1;
	td_close(h, r->td.nr_bufs);
	return ret;
}

int cmd_report(int argc, char **argv)
{
	struct report r;
	int ret = EXIT_FAILURE;

	memset(&r, 0, sizeof(r));
	parse_report_opts(argc, argv, &r);
	if (r.map && open_map(r.map, &r.ix))
		return EXIT_FAILURE;
	if (td_check_readable(r.td.path) || td_learn(&r.td))
		goto out;
	if (r.map && r.td.marked)
		warn_map_boot_marked(r.map);
	if (print(&r))
		goto out;
	fprintf(stderr,
		"stackmap: %lu stack ids resolved (%lu by the map), %lu unresolved; %lu definitions read, %lu malformed\n",
		r.nr_resolved + r.nr_mapped, r.nr_mapped, r.nr_unresolved,
		r.td.nr_defs, r.td.nr_malformed);
	ret = 0;
out:
	td_free(&r.td);
	if (r.map)
		smap_index_close(&r.ix);
	return ret;
}
