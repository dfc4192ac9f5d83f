// SPDX-License-Identifier: GPL-2.0
/*
 * tracebench - guest-side workloads for the tracing-overhead benchmark
 *
 *   tracebench getppid N
 *	N getppid() system calls: one fixed kernel stack, the hot path of a
 *	function tracer filtered on __x64_sys_getppid.
 *   tracebench mix N
 *	N rounds of file, pipe, mmap and /proc system calls: slab
 *	allocations from a few dozen different kernel stacks.
 *
 * Prints "ns=<elapsed CLOCK_MONOTONIC nanoseconds> calls=<N>" on success.
 * Exit status: 0 on success, 1 if a system call failed, 2 on bad usage.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
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
	fprintf(stderr, "tracebench: %s: %s\n", what, strerror(errno));
	return 1;
}

static int run_getppid(unsigned long n)
{
	unsigned long i;

	for (i = 0; i < n; i++)
		syscall(SYS_getppid);
	return 0;
}

static int run_mix(unsigned long n)
{
	char path[64], buf[256];
	unsigned long i;
	int fd, p[2];
	void *m;

	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "/tmp/tracebench.%lu", i % 8);
		fd = open(path, O_CREAT | O_RDWR | O_TRUNC, 0600);
		if (fd < 0)
			return fail("open");
		if (write(fd, path, sizeof(path)) != sizeof(path))
			return fail("write");
		close(fd);
		if (unlink(path))
			return fail("unlink");

		if (pipe(p))
			return fail("pipe");
		if (write(p[1], buf, sizeof(buf)) != sizeof(buf))
			return fail("pipe write");
		close(p[0]);
		close(p[1]);

		m = mmap(NULL, 1 << 16, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (m == MAP_FAILED)
			return fail("mmap");
		memset(m, 1, 4096);
		munmap(m, 1 << 16);

		fd = open("/proc/self/stat", O_RDONLY);
		if (fd < 0)
			return fail("open /proc/self/stat");
		if (read(fd, buf, sizeof(buf)) < 0)
			return fail("read /proc/self/stat");
		close(fd);
	}
	return 0;
}

int main(int argc, char **argv)
{
	unsigned long long t0, t1;
	unsigned long n;
	char *end;
	int ret;

	if (argc != 3)
		goto usage;
	errno = 0;
	n = strtoul(argv[2], &end, 10);
	if (errno || *end || !n)
		goto usage;

	t0 = now_ns();
	if (!strcmp(argv[1], "getppid"))
		ret = run_getppid(n);
	else if (!strcmp(argv[1], "mix"))
		ret = run_mix(n);
	else
		goto usage;
	t1 = now_ns();
	if (ret)
		return ret;
	printf("ns=%llu calls=%lu\n", t1 - t0, n);
	return 0;
usage:
	fprintf(stderr, "usage: tracebench getppid|mix N (N > 0)\n");
	return 2;
}
