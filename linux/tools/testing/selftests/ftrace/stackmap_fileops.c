// SPDX-License-Identifier: GPL-2.0
/*
 * stackmap_fileops - every open mode of every stackmap file, no oops
 *
 *   stackmap_fileops DIR
 *	for each file the stackmap adds to DIR (the tracefs top level or an
 *	instance), in each access mode alone, with O_APPEND and with
 *	O_TRUNC: open, lseek (SEEK_SET, SEEK_CUR, SEEK_END), read, write,
 *	poll and close, and check each result against what the file
 *	documents. All of it twice: as root, then without CAP_DAC_OVERRIDE,
 *	where the read-only files must refuse write opens with EACCES.
 *
 * Each file and mode runs in its own child: a kernel oops kills the
 * child, which is reported with the call it was in, and the rest runs.
 * Prints one line per unexpected result, then a summary line.
 * Exit status: 0 if every result was expected, 1 if not, 2 on bad usage.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define ANY		(-1L)	/* any result >= 0 */

struct sm_file {
	const char *name;
	bool writable;		/* TRACE_MODE_WRITE, else TRACE_MODE_READ */
	bool seekable;		/* else nonseekable_open(): ESPIPE */
	const char *bad;	/* a write the file refuses with EINVAL */
	const char *good;	/* a valid write; NULL: its current content */
	bool busy_when_on;	/* the valid write is EBUSY with stackmap on */
};

static const struct sm_file files[] = {
	{ "stack_map",			true,  true,  "bogus\n",   "reset\n" },
	{ "stack_map_stat",		false, true,  "0\n" },
	{ "stack_map_bin",		false, false, "0\n" },
	{ "stack_map_size",		true,  true,  "garbage\n", NULL, true },
	{ "stack_map_redefine",		true,  true,  "101\n" },
	{ "options/stackmap-expand",	true,  true,  "2\n" },
	{ "options/stackmap-defs",	true,  true,  "2\n" },
};

static const int accmodes[] = { O_RDONLY, O_WRONLY, O_RDWR };
static const int extras[] = { 0, O_APPEND, O_TRUNC };

struct combo {
	const char *dir;
	const struct sm_file *f;
	const char *good;	/* the valid write to use */
	bool stackmap_on;
	bool nodac;		/* CAP_DAC_OVERRIDE dropped */
	int flags;
	char mode[32];
};

/* What a call must give: a value (exact, or ANY), or -1 with @err. */
struct want {
	bool ok;
	long val;
	int err;
};

#define WANT_VAL(v)	((struct want){ .ok = true, .val = (v) })
#define WANT_ERR(e)	((struct want){ .err = (e) })
#define WANT_VAL_OR(v, e) ((struct want){ .ok = true, .val = (v), .err = (e) })

/* Shared with the parent: the call a child is in, should it die there. */
static char *current_op;
static int unexpected;

static const char *errname(int e)
{
	static char buf[16];

	switch (e) {
	case EACCES: return "EACCES";
	case EBADF: return "EBADF";
	case EBUSY: return "EBUSY";
	case EFAULT: return "EFAULT";
	case EINVAL: return "EINVAL";
	case ENODEV: return "ENODEV";
	case ENOMEM: return "ENOMEM";
	case EPERM: return "EPERM";
	case ESPIPE: return "ESPIPE";
	case ESTALE: return "ESTALE";
	}
	snprintf(buf, sizeof(buf), "errno %d", e);
	return buf;
}

static void describe(char *buf, size_t len, struct want w)
{
	int n = 0;

	if (w.ok && w.val == ANY)
		n = snprintf(buf, len, ">= 0");
	else if (w.ok)
		n = snprintf(buf, len, "%ld", w.val);
	if (w.err)
		snprintf(buf + n, len - n, "%s%s", n ? " or " : "",
			 errname(w.err));
}

static void enter(const char *op)
{
	snprintf(current_op, 64, "%s", op);
}

static void report(const struct combo *c, const char *what)
{
	printf("UNEXPECTED %s/%s %s%s%s: %s\n", c->dir, c->f->name, c->mode,
	       c->nodac ? " nodac" : "", c->stackmap_on ? " stackmap=1" : "",
	       what);
}

static bool check(const struct combo *c, const char *op, long r, int e,
		  struct want w)
{
	char got[32], want[48], what[160];

	if (r >= 0 && w.ok && (w.val == ANY || r == w.val))
		return true;
	if (r < 0 && w.err && e == w.err)
		return true;
	if (r >= 0)
		snprintf(got, sizeof(got), "%ld", r);
	else
		snprintf(got, sizeof(got), "%s", errname(e));
	describe(want, sizeof(want), w);
	snprintf(what, sizeof(what), "%s: got %s, want %s", op, got, want);
	report(c, what);
	unexpected++;
	return false;
}

static int drop_dac_override(void)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2];
	unsigned int bit = 1u << (CAP_DAC_OVERRIDE % 32);

	if (syscall(SYS_capget, &hdr, data))
		return -1;
	data[CAP_DAC_OVERRIDE / 32].effective &= ~bit;
	return syscall(SYS_capset, &hdr, data);
}

static void run_lseek(const struct combo *c, int fd, int whence,
		      const char *op, struct want seekable)
{
	long r;

	enter(op);
	r = lseek(fd, 0, whence);
	check(c, op, r, errno, c->f->seekable ? seekable : WANT_ERR(ESPIPE));
}

/* The calls on one open file; returns the number of unexpected results. */
static int run_combo(const struct combo *c)
{
	const struct sm_file *f = c->f;
	int acc = c->flags & O_ACCMODE;
	bool rd = acc != O_WRONLY, wr = acc != O_RDONLY;
	struct pollfd pfd;
	char path[256], buf[4096];
	long r;
	int fd;

	if (c->nodac && drop_dac_override()) {
		perror("capset");
		return 1;
	}
	snprintf(path, sizeof(path), "%s/%s", c->dir, f->name);

	enter("open");
	fd = open(path, c->flags);
	/* Root may open any file for writing; the file refuses the write. */
	if (!f->writable && c->nodac && (wr || (c->flags & O_TRUNC))) {
		check(c, "open", fd, errno, WANT_ERR(EACCES));
		if (fd >= 0)
			close(fd);
		return unexpected;
	}
	if (!check(c, "open", fd, errno, WANT_VAL(ANY)))
		return unexpected;

	/* seq_lseek() refuses SEEK_END; default_llseek() gives i_size, 0. */
	run_lseek(c, fd, SEEK_SET, "lseek(0, SEEK_SET)", WANT_VAL(0));
	run_lseek(c, fd, SEEK_CUR, "lseek(0, SEEK_CUR)", WANT_VAL(0));
	run_lseek(c, fd, SEEK_END, "lseek(0, SEEK_END)",
		  WANT_VAL_OR(0, EINVAL));
	run_lseek(c, fd, SEEK_SET, "lseek(0, SEEK_SET) again", WANT_VAL(0));

	enter("read");
	r = read(fd, buf, sizeof(buf));
	check(c, "read", r, errno, rd ? WANT_VAL(ANY) : WANT_ERR(EBADF));
	run_lseek(c, fd, SEEK_CUR, "lseek(0, SEEK_CUR) after read",
		  WANT_VAL(ANY));

	enter("write (invalid)");
	r = write(fd, f->bad, strlen(f->bad));
	check(c, "write (invalid)", r, errno,
	      wr ? WANT_ERR(EINVAL) : WANT_ERR(EBADF));
	if (f->writable) {
		struct want w = WANT_VAL(strlen(c->good));

		if (!wr)
			w = WANT_ERR(EBADF);
		else if (f->busy_when_on && c->stackmap_on)
			w = WANT_ERR(EBUSY);
		enter("write (valid)");
		r = write(fd, c->good, strlen(c->good));
		check(c, "write (valid)", r, errno, w);
	}
	run_lseek(c, fd, SEEK_CUR, "lseek(0, SEEK_CUR) after write",
		  WANT_VAL(ANY));
	run_lseek(c, fd, SEEK_SET, "lseek(0, SEEK_SET) after write",
		  WANT_VAL(0));

	enter("poll");
	pfd = (struct pollfd){ .fd = fd, .events = POLLIN | POLLOUT };
	r = poll(&pfd, 1, 0);
	if (check(c, "poll", r, errno, WANT_VAL(ANY)) &&
	    (pfd.revents & (POLLERR | POLLNVAL))) {
		report(c, "poll: POLLERR or POLLNVAL in revents");
		unexpected++;
	}

	enter("close");
	r = close(fd);
	check(c, "close", r, errno, WANT_VAL(0));
	return unexpected;
}

/* The current content of @path, to write back as a valid value. */
static char *content(const char *dir, const char *name)
{
	char path[256], buf[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_RDONLY);
	if (fd < 0) {
		perror(path);
		exit(2);
	}
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0) {
		fprintf(stderr, "%s: nothing to read\n", path);
		exit(2);
	}
	buf[n] = '\0';
	return strdup(buf);
}

static int spawn(struct combo *c)
{
	int status;
	pid_t pid;

	fflush(stdout);
	current_op[0] = '\0';
	pid = fork();
	if (pid < 0) {
		perror("fork");
		exit(2);
	}
	if (!pid)
		exit(run_combo(c) ? 1 : 0);
	if (waitpid(pid, &status, 0) < 0) {
		perror("waitpid");
		exit(2);
	}
	if (WIFSIGNALED(status)) {
		char what[128];

		snprintf(what, sizeof(what),
			 "killed by signal %d in %s (a kernel oops?)",
			 WTERMSIG(status), current_op);
		report(c, what);
		return 1;
	}
	return WEXITSTATUS(status) != 0;
}

int main(int argc, char **argv)
{
	static const char * const accnames[] = { "O_RDONLY", "O_WRONLY", "O_RDWR" };
	static const char * const extranames[] = { "", "|O_APPEND", "|O_TRUNC" };
	unsigned int i, a, x, pass, combos = 0, bad = 0;
	struct combo c = { 0 };

	if (argc != 2) {
		fprintf(stderr, "usage: %s DIR\n", argv[0]);
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	current_op = mmap(NULL, 64, PROT_READ | PROT_WRITE,
			  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (current_op == MAP_FAILED) {
		perror("mmap");
		return 2;
	}
	c.dir = argv[1];
	c.stackmap_on = content(c.dir, "options/stackmap")[0] == '1';

	for (pass = 0; pass < 2; pass++) {
		c.nodac = pass;
		for (i = 0; i < ARRAY_SIZE(files); i++) {
			c.f = &files[i];
			c.good = c.f->good;
			if (c.f->writable && !c.good)
				c.good = content(c.dir, c.f->name);
			for (a = 0; a < ARRAY_SIZE(accmodes); a++) {
				for (x = 0; x < ARRAY_SIZE(extras); x++) {
					c.flags = accmodes[a] | extras[x];
					snprintf(c.mode, sizeof(c.mode), "%s%s",
						 accnames[a], extranames[x]);
					bad += spawn(&c);
					combos++;
				}
			}
		}
	}
	printf("stackmap_fileops: %s: %u file/mode combinations, %u with unexpected results\n",
	       c.dir, combos, bad);
	return bad ? 1 : 0;
}
