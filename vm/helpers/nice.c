// SPDX-License-Identifier: GPL-2.0
/*
 * nice - run a command at another niceness, for the guest
 *
 *   nice [-n N] COMMAND [ARG]...
 *
 * Debian's static busybox has no nice applet, and the inter-event hist
 * selftests (trigger-onchange-action-hist.tc, ...) change ping's priority
 * with it. N defaults to 10, as coreutils' nice does.
 * Exit status: that of COMMAND; 125 on bad usage or a failed nice(),
 * 127 if COMMAND cannot be run.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long inc = 10;
	char *end;
	int i = 1;

	if (i + 1 < argc && !strcmp(argv[i], "-n")) {
		errno = 0;
		inc = strtol(argv[i + 1], &end, 10);
		if (errno || *end || end == argv[i + 1]) {
			fprintf(stderr, "nice: bad niceness '%s'\n", argv[i + 1]);
			return 125;
		}
		i += 2;
	}
	if (i >= argc) {
		fprintf(stderr, "usage: nice [-n N] COMMAND [ARG]...\n");
		return 125;
	}
	errno = 0;
	if (nice((int)inc) == -1 && errno) {
		perror("nice");
		return 125;
	}
	execvp(argv[i], argv + i);
	fprintf(stderr, "nice: %s: %s\n", argv[i], strerror(errno));
	return 127;
}
