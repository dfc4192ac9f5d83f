/* SPDX-License-Identifier: GPL-2.0 */
/* The helpers the stackmap subcommands share, in cli.c. */
#ifndef _STACKMAP_CLI_H
#define _STACKMAP_CLI_H

#include "libstackmap.h"

/* Exit statuses: 1 for bad input or a failed operation, 2 for bad usage. */
#define EXIT_USAGE	2

void die_usage(const char *cmd);
int check_opt(int c, const char *cmd, const char *help);
int report(const char *what, const struct smap_error *err);
int load_kallsyms(struct ksyms *ks, const char *path, struct ksyms **out);

/* Say on stderr that the map @name was read without its addresses. */
void warn_hidden_addrs(const char *name, const struct smap_header *hdr);
/*
 * Index the map at @path (warning if its addresses are hidden): 0, or
 * the exit status with the error reported.
 */
int open_map(const char *path, struct smap_index *ix);

/* The options of expand and fold, the commands that read trace text. */
struct trace_opts {
	const char *map;
	const char *kallsyms;
	const char *trace;	/* NULL: stdin */
	unsigned int sym_flags;	/* SMAP_SYM_* */
};

/* What expand and fold resolve the ids of a trace with. */
struct trace_inputs {
	struct trace_opts o;
	struct ksyms *ks;	/* NULL: no --kallsyms */
	struct smap_index ix;
	struct ksyms ksbuf;
};

/*
 * Parse the options of @cmd (exits on bad usage or --help), load its
 * kallsyms and index its map. Returns 0, or the exit status with the
 * error reported and nothing left to close.
 */
int open_trace_inputs(struct trace_inputs *t, int argc, char **argv,
		      const char *cmd, const char *help);
void close_trace_inputs(struct trace_inputs *t);
FILE *open_trace(const char *path);
/*
 * open_trace(), and whether the trace text holds a boot marker, which
 * it reads first: a pipe through a temporary file. NULL: error
 * reported.
 */
FILE *open_trace_scanned(const char *path, bool *boot_marked);
/*
 * Say once on stderr that the map @map resolves no stack id of a trace
 * with boot markers: it does not say which boot it is from.
 */
void warn_map_boot_marked(const char *map);

#endif /* _STACKMAP_CLI_H */
