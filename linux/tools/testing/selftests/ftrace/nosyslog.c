// SPDX-License-Identifier: GPL-2.0
/*
 * nosyslog - run a command without CAP_SYSLOG
 *
 *   nosyslog COMMAND [ARG...]
 *
 * COMMAND runs with every capability of the caller but CAP_SYSLOG, so as
 * root it can still open the tracefs files, but it is a reader that
 * /proc/kallsyms shows zero addresses to (unless kptr_restrict is 0 and
 * perf_event_paranoid at most 1). CAP_SYSLOG leaves the bounding set too:
 * root would get it back at exec otherwise.
 *
 * Exit status: that of COMMAND; 1 if CAP_SYSLOG could not be dropped or
 * COMMAND not run, 2 on bad usage.
 */
#include <errno.h>
#include <linux/capability.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

static int drop_syslog(void)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];
	unsigned int word = CAP_SYSLOG / 32, bit = 1U << (CAP_SYSLOG % 32);

	if (prctl(PR_CAPBSET_DROP, CAP_SYSLOG, 0, 0, 0)) {
		perror("nosyslog: PR_CAPBSET_DROP");
		return -1;
	}
	if (syscall(SYS_capget, &hdr, data)) {
		perror("nosyslog: capget");
		return -1;
	}
	data[word].effective &= ~bit;
	data[word].permitted &= ~bit;
	data[word].inheritable &= ~bit;
	if (syscall(SYS_capset, &hdr, data)) {
		perror("nosyslog: capset");
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: nosyslog COMMAND [ARG...]\n");
		return 2;
	}
	if (drop_syslog())
		return 1;
	execvp(argv[1], argv + 1);
	fprintf(stderr, "nosyslog: %s: %s\n", argv[1], strerror(errno));
	return 1;
}
