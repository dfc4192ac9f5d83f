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

#endif /* _STACKMAP_CLI_H */
