// SPDX-License-Identifier: GPL-2.0
/*
 * peak - the memory peak of `make run`'s flight recorder
 *
 *   peak N HOLD_MS
 *	Opens N pipes and writes one page into each, which pipe_write()
 *	allocates: about 4 KiB of page memory and 1 KiB of kmalloc'ed
 *	pipe buffers per pipe, from one known kernel path. Writes a line
 *	to trace_marker at the peak, holds the pipes HOLD_MS milliseconds,
 *	then closes them all.
 *
 * Prints "start=<ns> peak=<ns> close=<ns> end=<ns> pipes=<N>",
 * CLOCK_MONOTONIC times of the first pipe, of the last page written, of
 * the first close and of the last: the times of a trace taken with
 * trace_clock=mono.
 * Exit status: 0 on success, 1 if a system call failed, 2 on bad usage.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static int fail(const char *what)
{
	fprintf(stderr, "peak: %s: %s\n", what, strerror(errno));
	return 1;
}

static void mark(unsigned long n)
{
	char line[64];
	int fd, len;

	fd = open("/sys/kernel/tracing/trace_marker", O_WRONLY);
	if (fd < 0)
		return;
	len = snprintf(line, sizeof(line), "peak: %lu pipes full\n", n);
	if (write(fd, line, len) != len)
		fprintf(stderr, "peak: trace_marker: %s\n", strerror(errno));
	close(fd);
}

int main(int argc, char **argv)
{
	unsigned long long start, peak, closing, end;
	static char page[4096];
	unsigned long n, i, hold;
	struct rlimit rl;
	char *e1, *e2;
	int *fds;

	if (argc != 3)
		goto usage;
	errno = 0;
	n = strtoul(argv[1], &e1, 10);
	hold = strtoul(argv[2], &e2, 10);
	if (errno || *e1 || *e2 || !n || n > 1000000 || hold > 600000)
		goto usage;
	fds = calloc(2 * n, sizeof(*fds));
	if (!fds)
		return fail("calloc");
	rl.rlim_cur = rl.rlim_max = 2 * n + 64;
	if (setrlimit(RLIMIT_NOFILE, &rl))
		return fail("setrlimit RLIMIT_NOFILE");
	memset(page, 'p', sizeof(page));

	start = now_ns();
	for (i = 0; i < n; i++) {
		if (pipe(fds + 2 * i))
			return fail("pipe");
		if (write(fds[2 * i + 1], page, sizeof(page)) != sizeof(page))
			return fail("write");
	}
	peak = now_ns();
	mark(n);
	usleep(hold * 1000);
	closing = now_ns();
	for (i = 0; i < 2 * n; i++)
		close(fds[i]);
	end = now_ns();
	printf("start=%llu peak=%llu close=%llu end=%llu pipes=%lu\n", start,
	       peak, closing, end, n);
	return 0;
usage:
	fprintf(stderr, "usage: peak N HOLD_MS\n");
	return 2;
}
