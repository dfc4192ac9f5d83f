// SPDX-License-Identifier: GPL-2.0
/*
 * The helpers the stackmap subcommands share: usage errors, error
 * reports and warnings. They call the library and nothing of the
 * commands.
 */
#include "cli.h"

#include <stdlib.h>

void die_usage(const char *cmd)
{
	fprintf(stderr, "Try 'stackmap %s --help'.\n", cmd);
	exit(EXIT_USAGE);
}

int report(const char *what, const struct smap_error *err)
{
	fprintf(stderr, "stackmap: %s: %s\n", what, err->msg);
	return EXIT_FAILURE;
}

int load_kallsyms(struct ksyms *ks, const char *path, struct ksyms **out)
{
	struct smap_error err;

	*out = NULL;
	if (!path)
		return 0;
	if (ksyms_load(ks, path, &err))
		return report(path, &err);
	*out = ks;
	return 0;
}

/* Handle --help and the option errors shared by every command. */
int check_opt(int c, const char *cmd, const char *help)
{
	if (c == 'h') {
		fputs(help, stdout);
		exit(EXIT_SUCCESS);
	}
	die_usage(cmd);
	return 0;
}

void warn_hidden_addrs(const char *name, const struct smap_header *hdr)
{
	if (!(hdr->flags & TRACE_STACKMAP_BIN_ADDRS) && hdr->nr_records)
		fprintf(stderr,
			"stackmap: %s: addresses are hidden (flags bit 0 clear): read stack_map_bin with CAP_SYSLOG\n",
			name);
}
