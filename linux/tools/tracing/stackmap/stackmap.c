// SPDX-License-Identifier: GPL-2.0
/*
 * stackmap: decode the ftrace stack map (Documentation/trace/ftrace-stackmap.rst).
 *
 * This file holds main(), which dispatches to the subcommands; each is
 * in a file of its own, cmd_<name>.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "commands.h"

static void usage(FILE *out)
{
	fputs("Usage: stackmap COMMAND [options]\n"
	      "\n"
	      "Commands:\n"
	      "  dump      decode a stack_map_bin stream as text or JSON, or\n"
	      "            check it and print its header\n"
	      "  expand    replace the stack ids of a trace with their stacks\n"
	      "  fold      folded stacks for flame graphs\n"
	      "  profile   the memory each stack of a trace.dat holds at an\n"
	      "            instant or at the peak (--inuse), or its events in a\n"
	      "            window, by stack: table, folded, pprof or SVG\n"
	      "  report    print a trace.dat with the stacks its definitions give\n"
	      "  snapshot  save the map, kallsyms and trace of a live system\n"
	      "\n"
	      "Run \"stackmap COMMAND --help\" for the options of a command.\n",
	      out);
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		int (*fn)(int argc, char **argv);
	} cmds[] = {
		{ "dump", cmd_dump },
		{ "expand", cmd_expand },
		{ "fold", cmd_fold },
		{ "profile", cmd_profile },
		{ "report", cmd_report },
		{ "snapshot", cmd_snapshot },
	};
	size_t i;
	int ret;

	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") ||
	    !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	for (i = 0; i < ARRAY_SIZE(cmds); i++) {
		if (strcmp(argv[1], cmds[i].name))
			continue;
		ret = cmds[i].fn(argc - 1, argv + 1);
		if (fflush(stdout) || ferror(stdout)) {
			fprintf(stderr, "stackmap: write error: %s\n",
				strerror(errno));
			return EXIT_FAILURE;
		}
		return ret;
	}
	fprintf(stderr, "stackmap: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return EXIT_USAGE;
}
