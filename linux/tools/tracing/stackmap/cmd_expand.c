// SPDX-License-Identifier: GPL-2.0
/*
 * "expand": replace the stack ids of trace text with their stacks.
 *
 * The trace is read one line at a time (tracetext.c); memory is bounded
 * by the longest line and the map index. It is read twice (a pipe
 * through a temporary file): a trace with boot markers (a boot-mapped
 * instance) has ids of several boots, which a map, not saying which
 * boot it is from, must resolve none of.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "tracetext.h"

static const char expand_help[] =
	"Usage: stackmap expand --map FILE [options] [TRACE|-]\n"
	"\n"
	"Copy trace or trace_pipe text, replacing each \"<stack_id 0x...>\" with\n"
	"\"<stack trace>\" and \" => symbol\" lines, exactly as the kernel prints a\n"
	"full stack. An id of another generation is left as it is and marked\n"
	"\" [stale]\", an id missing from the map \" [unknown]\". In a trace with\n"
	"boot markers (\"<stack_boot 0x... flags 0x...>\", a boot-mapped\n"
	"instance), no id is resolved (\" [of a boot-marked trace]\"): the map\n"
	"does not say which boot it is from.\n"
	"\n"
	"  -m, --map FILE       the stack_map_bin the ids were issued by\n"
	"  -k, --kallsyms FILE  symbolize with a saved /proc/kallsyms; else\n"
	"                       addresses are printed as the kernel prints an\n"
	"                       address that has no symbol\n"
	"      --sym-offset     \"symbol+off/size\", as the sym-offset trace option\n"
	"      --sym-addr       append \" <address>\", as the sym-addr trace option\n"
	"  -h, --help           this text\n";

int cmd_expand(int argc, char **argv)
{
	unsigned long nr_stale = 0, nr_unknown = 0, nr_marked = 0;
	struct trace_inputs t;
	bool boot_marked;
	struct smap_record rec;
	size_t cap = 0;
	char *line = NULL;
	char sym[512];
	int ret;
	FILE *in;

	ret = open_trace_inputs(&t, argc, argv, "expand", expand_help);
	if (ret)
		return ret;
	in = open_trace_scanned(t.o.trace, &boot_marked);
	if (!in) {
		ret = EXIT_FAILURE;
		goto out;
	}
	if (boot_marked)
		warn_map_boot_marked(t.o.map);
	while (getline(&line, &cap, in) > 0) {
		const char *tag, *end;
		uint32_t id, i;

		tag = find_stack_id(line, &id, &end);
		if (!tag) {
			fputs(line, stdout);
			continue;
		}
		if (boot_marked) {
			nr_marked++;
			fwrite(line, 1, end - line, stdout);
			/* Report's or the plugin's mark says more. */
			if (skip_undefined_mark(end) == end)
				fputs(STACK_ID_BOOT_MARKED, stdout);
			fputs(end, stdout);
			continue;
		}
		switch (smap_index_lookup(&t.ix, id, &rec)) {
		case SMAP_FOUND:
			/* The plugin's or report's "no definition" is moot. */
			end = skip_undefined_mark(end);
			fwrite(line, 1, tag - line, stdout);
			fputs(STACK_TRACE_TAG, stdout);
			fputs(end, stdout);
			if (!strchr(end, '\n'))
				putchar('\n');
			for (i = 0; i < rec.depth; i++) {
				smap_format_frame(sym, sizeof(sym), t.ks,
						  rec.addrs[i], SMAP_SYM_TRACE,
						  t.o.sym_flags);
				printf(FRAME_TAG "%s\n", sym);
			}
			continue;
		case SMAP_STALE:
			nr_stale++;
			fwrite(line, 1, end - line, stdout);
			fputs(" [stale]", stdout);
			break;
		case SMAP_UNKNOWN:
			nr_unknown++;
			fwrite(line, 1, end - line, stdout);
			fputs(" [unknown]", stdout);
			break;
		}
		fputs(end, stdout);
	}
	if (ferror(in)) {
		fprintf(stderr, "stackmap: %s: %s\n",
			t.o.trace ? t.o.trace : "-", strerror(errno));
		ret = EXIT_FAILURE;
	}
	if (nr_marked)
		fprintf(stderr,
			"stackmap: %lu stack ids of a boot-marked trace left unexpanded\n",
			nr_marked);
	if (nr_stale || nr_unknown)
		fprintf(stderr,
			"stackmap: %lu stale and %lu unknown stack ids left unexpanded (map generation %u)\n",
			nr_stale, nr_unknown, t.ix.hdr.generation);
	free(line);
	if (in != stdin)
		fclose(in);
out:
	close_trace_inputs(&t);
	return ret;
}
