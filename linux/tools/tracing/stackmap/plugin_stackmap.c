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
 * A boot-mapped instance keeps the last boot's events before this
 * boot's, on each CPU, with ids that restart at each boot; its
 * kernel_stack_boot markers say which boot's ids follow on their CPU
 * (bootseg.c). Each CPU's events come in their buffer order, so an id
 * after its CPU's marker resolves only with that boot's definitions,
 * and never with the map, which does not say which boot it is from.
 * Until a CPU's first marker is read, its ids resolve as in a trace
 * without markers if no CPU has shown one yet (the plugin cannot look
 * ahead: "stackmap report" does), and are left unresolved if one has.
 * The frames of a marked part are the last boot's, moved onto this
 * boot's symbols by the text delta of the option text_delta (else
 * $STACKMAP_TEXT_DELTA), which the kernel's last_boot_info gives.
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
		.name = "text_delta",
		.plugin_alias = "stackmap",
		.description = "text delta of a boot-mapped trace (else $STACKMAP_TEXT_DELTA)",
		.value = "",
	},
	{
		.name = NULL,
	}
};

static struct tep_plugin_option *map_option = &TEP_PLUGIN_OPTIONS[0];
static struct tep_plugin_option *delta_option = &TEP_PLUGIN_OPTIONS[1];

/* The text delta, read on first use as the map is. */
static struct {
	bool tried;
	bool ok;
	int64_t delta;
} text_delta;

static bool text_delta_get(int64_t *delta)
{
	const char *s = delta_option->value;
	struct smap_error err;

	if (!text_delta.tried) {
		text_delta.tried = true;
		if (!s || !*s)
			s = getenv("STACKMAP_TEXT_DELTA");
		if (s && *s && smap_parse_delta(s, &text_delta.delta, &err))
			fprintf(stderr, "plugin_stackmap: text delta '%s': %s\n",
				s, err.msg);
		else if (s && *s)
			text_delta.ok = true;
	}
	*delta = text_delta.delta;
	return text_delta.ok;
}

/* The map is opened on the first event, once every option is set. */
static struct {
	bool tried;
	bool ok;
	bool refused;	/* said that it serves no boot-marked id */
	struct smap_index ix;
} stackmap;

/* The map's path: the option, else $STACKMAP_MAP; NULL if none. */
static const char *map_path(void)
{
	const char *path = map_option->value;

	if (!path || !*path)
		path = getenv("STACKMAP_MAP");
	return path && *path ? path : NULL;
}

static bool stackmap_open(void)
{
	const char *path = map_path();
	struct smap_error err;
	FILE *f;

	if (stackmap.tried)
		return stackmap.ok;
	stackmap.tried = true;
	if (!path)
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
	struct smap_boots boots;	/* the boot markers read so far */
	unsigned long nr_undefined;	/* ids printed without definition */
};

static struct smap_boot record_boot(struct plugin_trace *pt,
				    struct tep_record *record)
{
	return smap_boots_find(&pt->boots, record->cpu < 0 ? UINT32_MAX :
			       (uint32_t)record->cpu, record->offset);
}

static int stack_boot_handler(struct trace_seq *s, struct tep_record *record,
			      struct tep_event *event, void *context)
{
	struct plugin_trace *pt = context;
	uint32_t token, flags;
	struct smap_error err;
	int64_t delta;
	bool bad;

	bad = stackevent_read_boot(event, record, &token, &flags, &err);
	stackevent_print_boot(s, token, flags, bad);
	if (record->cpu < 0)
		return 0;
	if (!smap_boots_marked(&pt->boots) && !text_delta_get(&delta))
		fprintf(stderr,
			"plugin_stackmap: boot-marked trace and no text delta given (-O stackmap:text_delta=N, STACKMAP_TEXT_DELTA): frames are symbolized as if the kernel text had not moved\n");
	/* Out of memory: the CPU's ids stay of the boot before. */
	smap_boots_mark(&pt->boots, record->cpu, record->offset,
			bad ? 0 : token, flags);
	return 0;
}

/* The traces the plugin is loaded for; one in trace-cmd report -i FILE. */
static struct plugin_trace *traces;

static int stack_def_handler(struct trace_seq *s, struct tep_record *record,
			     struct tep_event *event, void *context)
{
	struct plugin_trace *pt = context;
	struct smap_boot boot;
	struct smap_error err;
	struct smap_def def;
	int64_t delta;
	uint32_t key;

	if (stackevent_read_def(event, record, &def, &err)) {
		stackevent_print_def(s, &def, true);
		return 0;
	}
	stackevent_print_def(s, &def, false);
	boot = record_boot(pt, record);
	/* Of a boot that cannot be told: it teaches nothing. */
	if (!smap_boot_key(boot, &key))
		return 0;
	if (boot.state == SMAP_BOOT_TOKEN && text_delta_get(&delta))
		smap_relocate(def.addrs, def.depth, delta,
			      stackevent_long_size(event->tep));
	/* Out of memory: the id prints as if it had no definition. */
	smap_deftab_set(&pt->defs, key, &def);
	return 0;
}

/* The mark of an id of a boot-marked buffer that nothing resolved. */
static const char *boot_mark(struct smap_boot boot)
{
	switch (boot.state) {
	case SMAP_BOOT_TOKEN:
		/* Its definition may come later. */
		return STACK_ID_NOT_YET;
	case SMAP_BOOT_PENDING:
		return STACK_ID_MARK_NOT_YET;
	case SMAP_BOOT_EARLIER:
		return STACK_ID_EARLIER_BOOT;
	case SMAP_BOOT_NO_MARK:
		return STACK_ID_NO_MARK;
	default:
		return STACK_ID_BAD_MARK;
	}
}

static int stack_id_handler(struct trace_seq *s, struct tep_record *record,
			    struct tep_event *event, void *context)
{
	struct plugin_trace *pt = context;
	const struct smap_stack *st;
	struct smap_boot boot;
	uint32_t id, key;

	if (stackevent_read_id(event, record, &id)) {
		trace_seq_puts(s, "<stack_id> [malformed]");
		return 0;
	}
	boot = record_boot(pt, record);
	st = smap_boot_key(boot, &key) ?
	     smap_deftab_find(&pt->defs, key, id, record->ts) : NULL;
	if (st) {
		stackevent_print_stack(s, event->tep, st->addrs, st->depth);
		return 0;
	}
	if (boot.state != SMAP_BOOT_NONE) {
		/* A map does not say which boot it is from. */
		if (stackmap_open() && !stackmap.refused) {
			stackmap.refused = true;
			fprintf(stderr,
				"plugin_stackmap: %s: not used for the stack ids of boot-marked buffers: a map does not say which boot it is from\n",
				map_path());
		}
		trace_seq_printf(s, "<stack_id 0x%08x>%s", id,
				 boot_mark(boot));
		pt->nr_undefined++;
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
	tep_register_event_handler(tep, -1, STACKEVENT_SYSTEM, STACKEVENT_BOOT,
				   stack_boot_handler, pt);
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
	tep_unregister_event_handler(tep, -1, STACKEVENT_SYSTEM,
				     STACKEVENT_BOOT, stack_boot_handler, pt);
	smap_deftab_free(&pt->defs);
	smap_boots_free(&pt->boots);
	free(pt);
	if (traces)
		return;
	/* The map is the process's, as the options are. */
	if (stackmap.ok)
		smap_index_close(&stackmap.ix);
	memset(&stackmap, 0, sizeof(stackmap));
	memset(&text_delta, 0, sizeof(text_delta));
}
