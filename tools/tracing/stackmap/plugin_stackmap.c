// SPDX-License-Identifier: GPL-2.0
/*
 * plugin_stackmap.so: libtraceevent plugin for ftrace's kernel_stack_id.
 *
 * trace-cmd report prints a kernel_stack_id event as "<stack_id 0x...>".
 * With a stack_map_bin of the traced instance, this plugin prints the
 * stack instead, one " => symbol+off/size" line per frame, symbolized with
 * the kallsyms that trace.dat carries. The map comes from the plugin
 * option (trace-cmd report -O stackmap:map=FILE) or, failing that, from
 * the STACKMAP_MAP environment variable. Without a map, or when the map
 * cannot be read, the id is printed unchanged; an id of another
 * generation or missing from the map is never resolved to another stack.
 *
 * Install: copy to ~/.local/lib/traceevent/plugins/ or point
 * TRACEEVENT_PLUGIN_DIR at the directory that holds it.
 */
#include <stdlib.h>
#include <string.h>

#include "stackevent.h"

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

static int stack_id_handler(struct trace_seq *s, struct tep_record *record,
			    struct tep_event *event, void *context)
{
	uint32_t id;

	if (stackevent_read_id(event, record, &id)) {
		trace_seq_puts(s, "<stack_id> [malformed]");
		return 0;
	}
	if (!stackmap_open()) {
		trace_seq_printf(s, "<stack_id 0x%08x>", id);
		return 0;
	}
	stackevent_print_mapped(s, event->tep, &stackmap.ix, id);
	return 0;
}

int TEP_PLUGIN_LOADER(struct tep_handle *tep)
{
	tep_plugin_add_options("stackmap", TEP_PLUGIN_OPTIONS);
	return tep_register_event_handler(tep, -1, STACKEVENT_SYSTEM, STACKEVENT_ID,
					  stack_id_handler, NULL);
}

void TEP_PLUGIN_UNLOADER(struct tep_handle *tep)
{
	tep_unregister_event_handler(tep, -1, STACKEVENT_SYSTEM, STACKEVENT_ID,
				     stack_id_handler, NULL);
	tep_plugin_remove_options(TEP_PLUGIN_OPTIONS);
	if (stackmap.ok)
		smap_index_close(&stackmap.ix);
	memset(&stackmap, 0, sizeof(stackmap));
}
