// SPDX-License-Identifier: GPL-2.0
/*
 * plugin_stackmap.so: libtraceevent plugin for ftrace's kernel_stack_id
 * and kernel_stack_def.
 *
 * trace-cmd report prints a kernel_stack_id event as "<stack_id 0x...>".
 * This plugin prints the stack instead, one " => symbol+off/size" line
 * per frame, symbolized with the kallsyms that trace.dat carries. The
 * stack comes from the kernel_stack_def events of the trace: each one
 * read so far teaches the stack of its id (a later one of the same id
 * replaces it), and a kernel_stack_id of exactly that id prints it.
 * An id not defined so far is looked up in the stack_map_bin of the
 * traced instance, if one was given: the plugin option (trace-cmd
 * report -O stackmap:map=FILE) or, failing that, the STACKMAP_MAP
 * environment variable. Without a definition or a map, or when the map
 * cannot be read, the id is printed with " [no definition read yet:
 * ...]" after it (tracetext.h), which tells it from an id printed
 * without the plugin; an id of another generation or missing from the
 * map is never resolved to another stack.
 *
 * The plugin reads the events in the order trace-cmd gives them, by
 * time: an id stamped before its definition (one written by "emit", or
 * by another CPU on kernels that defined a stack on one CPU only) stays
 * unresolved; "stackmap report" reads the trace twice and resolves it.
 * When the plugin is unloaded, one line on stderr counts the ids it
 * printed without a definition, if any, and says so. The definitions
 * learned are kept per trace (per tep_handle), in memory that grows with
 * the distinct ids defined.
 *
 * Install: copy to ~/.local/lib/traceevent/plugins/ or point
 * TRACEEVENT_PLUGIN_DIR at the directory that holds it.
 */
#include <stdlib.h>
#include <string.h>

#include "stackevent.h"
#include "tracetext.h"

#define PLUGIN_EXPORT __attribute__((visibility("default")))

int TEP_PLUGIN_LOADER(struct tep_handle *tep) PLUGIN_EXPORT;
void TEP_PLUGIN_UNLOADER(struct tep_handle *tep) PLUGIN_EXPORT;

PLUGIN_EXPORT struct tep_plugin_option TEP_PLUGIN_OPTIONS[] = {
	{
		.name = "map",
		.plugin_alias = "stackmap",
		.description = "stack_map_bin file to resolve stack ids with (else $STACKMAP_MAP)",
		/* A default value makes libtraceevent take a string, not a bool. */
		.value = "",
	},
	{
		.name = NULL,
	}
};

static struct tep_plugin_option *map_option = &TEP_PLUGIN_OPTIONS[0];

/* The map is opened on the first event, once every option is set. */
static struct {
	bool tried;
	bool ok;
	struct smap_index ix;
} stackmap;

static bool stackmap_open(void)
{
	const char *path = map_option->value;
	struct smap_error err;
	FILE *f;

	if (stackmap.tried)
		return stackmap.ok;
	stackmap.tried = true;
	if (!path || !*path)
		path = getenv("STACKMAP_MAP");
	if (!path || !*path)
		return false;
	f = smap_open_seekable(path, &err);
	if (!f || smap_index_open(&stackmap.ix, f, &err)) {
		fprintf(stderr, "plugin_stackmap: %s: %s; printing stack ids unresolved\n",
			path, err.msg);
		return false;
	}
	stackmap.ok = true;
	return true;
}

/* What the plugin learned from the definitions of one trace. */
struct plugin_trace {
	struct plugin_trace *next;
	struct tep_handle *tep;
	struct smap_deftab defs;
	unsigned long nr_undefined;	/* ids printed without definition */
};

/* The traces the plugin is loaded for; one in trace-cmd report -i FILE. */
static struct plugin_trace *traces;

static int stack_def_handler(struct trace_seq *s, struct tep_record *record,
			     struct tep_event *event, void *context)
{
	struct plugin_trace *pt = context;
	struct smap_error err;
	struct smap_def def;

	if (stackevent_read_def(event, record, &def, &err)) {
		stackevent_print_def(s, &def, true);
		return 0;
	}
	/* Out of memory: the id prints as if it had no definition. */
	smap_deftab_set(&pt->defs, &def);
	stackevent_print_def(s, &def, false);
	return 0;
}

static int stack_id_handler(struct trace_seq *s, struct tep_record *record,
			    struct tep_event *event, void *context)
{
	struct plugin_trace *pt = context;
	const struct smap_stack *st;
	uint32_t id;

	if (stackevent_read_id(event, record, &id)) {
		trace_seq_puts(s, "<stack_id> [malformed]");
		return 0;
	}
	st = smap_deftab_find(&pt->defs, id, record->ts);
	if (st) {
		stackevent_print_stack(s, event->tep, st->addrs, st->depth);
		return 0;
	}
	/* Its definition may come later: not the same as no plugin. */
	if (!stackmap_open()) {
		trace_seq_printf(s, "<stack_id 0x%08x>" STACK_ID_NOT_YET, id);
		pt->nr_undefined++;
		return 0;
	}
	if (stackevent_print_mapped(s, event->tep, &stackmap.ix, id) !=
	    SMAP_FOUND)
		pt->nr_undefined++;
	return 0;
}

int TEP_PLUGIN_LOADER(struct tep_handle *tep)
{
	struct plugin_trace *pt = calloc(1, sizeof(*pt));

	if (!pt)
		return -1;
	pt->tep = tep;
	pt->next = traces;
	traces = pt;
	tep_plugin_add_options("stackmap", TEP_PLUGIN_OPTIONS);
	tep_register_event_handler(tep, -1, STACKEVENT_SYSTEM, STACKEVENT_DEF,
				   stack_def_handler, pt);
	return tep_register_event_handler(tep, -1, STACKEVENT_SYSTEM,
					  STACKEVENT_ID, stack_id_handler, pt);
}

void TEP_PLUGIN_UNLOADER(struct tep_handle *tep)
{
	struct plugin_trace **p, *pt;

	for (p = &traces; *p && (*p)->tep != tep; p = &(*p)->next)
		;
	pt = *p;
	tep_plugin_remove_options(TEP_PLUGIN_OPTIONS);
	if (!pt)
		return;
	*p = pt->next;
	/* One line per trace, once its events are printed. */
	if (pt->nr_undefined)
		fprintf(stderr,
			"plugin_stackmap: %lu stack ids had no definition when printed; \"stackmap report FILE\" reads the file twice and resolves ids whose definition comes later\n",
			pt->nr_undefined);
	tep_unregister_event_handler(tep, -1, STACKEVENT_SYSTEM, STACKEVENT_DEF,
				     stack_def_handler, pt);
	tep_unregister_event_handler(tep, -1, STACKEVENT_SYSTEM, STACKEVENT_ID,
				     stack_id_handler, pt);
	smap_deftab_free(&pt->defs);
	free(pt);
	if (traces)
		return;
	/* The map is the process's, as the options are. */
	if (stackmap.ok)
		smap_index_close(&stackmap.ix);
	memset(&stackmap, 0, sizeof(stackmap));
}
