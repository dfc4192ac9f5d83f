/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The stackmap subcommands, which main() dispatches to; each takes the
 * arguments from its own name on and returns the process exit status.
 */
#ifndef _STACKMAP_COMMANDS_H
#define _STACKMAP_COMMANDS_H

#include <stdio.h>

int cmd_dump(int argc, char **argv);
int cmd_expand(int argc, char **argv);
int cmd_fold(int argc, char **argv);
int cmd_snapshot(int argc, char **argv);

#ifdef HAVE_LIBTRACECMD
int cmd_report(int argc, char **argv);
int cmd_profile(int argc, char **argv);
#else
/* A static build (STATIC=1), or a host without libtracecmd-dev. */
static inline int cmd_report(int argc, char **argv)
{
	fputs("stackmap report: built without libtracecmd\n", stderr);
	return 1;
}

static inline int cmd_profile(int argc, char **argv)
{
	fputs("stackmap profile: built without libtracecmd\n", stderr);
	return 1;
}
#endif

#endif /* _STACKMAP_COMMANDS_H */
