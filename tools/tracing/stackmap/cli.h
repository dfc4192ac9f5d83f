/* SPDX-License-Identifier: GPL-2.0 */
/* What the stackmap subcommands share. */
#ifndef _STACKMAP_CLI_H
#define _STACKMAP_CLI_H

#include "libstackmap.h"

/* Exit statuses: 1 for bad input or a failed operation, 2 for bad usage. */
#define EXIT_USAGE	2

void die_usage(const char *cmd);
int report(const char *what, const struct smap_error *err);
int load_kallsyms(struct ksyms *ks, const char *path, struct ksyms **out);

#endif /* _STACKMAP_CLI_H */
