/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The stackmap subcommands, which main() dispatches to; each takes the
 * arguments from its own name on and returns the process exit status.
 */
#ifndef _STACKMAP_COMMANDS_H
#define _STACKMAP_COMMANDS_H

int cmd_dump(int argc, char **argv);

#endif /* _STACKMAP_COMMANDS_H */
