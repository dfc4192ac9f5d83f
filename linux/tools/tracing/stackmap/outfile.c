// SPDX-License-Identifier: GPL-2.0
/*
 * An output file that keeps what its path is (outfile.h): a regular
 * file through a temporary file and a rename, a device or FIFO written
 * through, the rest refused.
 */
#include "outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* As the kernel's MAXSYMLINKS: open() gives ELOOP past it too. */
#define OUTFILE_MAX_LINKS	40

static int fail(struct smap_outfile *o, const char *msg)
{
	fprintf(stderr, "%s: %s: %s\n", o->prefix, o->path, msg);
	return -1;
}

static int fail_errno(struct smap_outfile *o, const char *what, int err)
{
	fprintf(stderr, "%s: %s: %s%s%s\n", o->prefix, o->path, what,
		*what ? ": " : "", strerror(err));
	return -1;
}

/*
 * The name open(O_CREAT) would create for @path, which does not exist:
 * @path itself, or the missing end of its chain of symlinks. NULL with
 * errno set on error.
 */
static char *dangling_target(const char *path)
{
	char *cur = strdup(path), *link, *dir, *next;
	struct stat st;
	ssize_t len;
	int i;

	for (i = 0; cur; i++) {
		if (lstat(cur, &st)) {
			if (errno == ENOENT)
				return cur;
			break;
		}
		if (!S_ISLNK(st.st_mode))
			return cur;
		if (i == OUTFILE_MAX_LINKS) {
			free(cur);
			errno = ELOOP;
			return NULL;
		}
		link = malloc(PATH_MAX);
		len = link ? readlink(cur, link, PATH_MAX - 1) : -1;
		if (len < 0) {
			free(link);
			free(cur);
			return NULL;
		}
		link[len] = '\0';
		next = NULL;
		dir = dirname(cur);
		if (link[0] == '/')
			next = strdup(link);
		else if (asprintf(&next, "%s/%s", dir, link) < 0)
			next = NULL;
		free(link);
		free(cur);
		cur = next;
	}
	free(cur);
	return NULL;
}

/* Write through a device or FIFO, never waiting for a FIFO's reader. */
static int open_through(struct smap_outfile *o, const struct stat *st)
{
	struct stat now;
	int flags;

	if (S_ISSOCK(st->st_mode))
		return fail(o, "a socket, which open() cannot write to");
	o->fd = open(o->path, O_WRONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (o->fd < 0) {
		if (errno == ENXIO && S_ISFIFO(st->st_mode))
			return fail(o, "a FIFO that no process reads (ENXIO)");
		return fail_errno(o, "", errno);
	}
	/* What was opened is what was checked: never a regular file. */
	if (fstat(o->fd, &now) ||
	    (now.st_mode & S_IFMT) != (st->st_mode & S_IFMT)) {
		close(o->fd);
		o->fd = -1;
		return fail(o, "changed while being opened");
	}
	flags = fcntl(o->fd, F_GETFL);
	if (flags < 0 || fcntl(o->fd, F_SETFL, flags & ~O_NONBLOCK)) {
		fail_errno(o, "", errno);
		close(o->fd);
		o->fd = -1;
		return -1;
	}
	return 0;
}

/* A temporary file beside @o->target, as open(O_CREAT, 0666) makes one. */
static int open_beside(struct smap_outfile *o)
{
	char *dir_buf = strdup(o->target), *base_buf = strdup(o->target);
	mode_t mask;
	int ret = -1;

	if (!dir_buf || !base_buf ||
	    asprintf(&o->tmp, "%s/.%s.XXXXXX", dirname(dir_buf),
		     basename(base_buf)) < 0) {
		o->tmp = NULL;
		fail_errno(o, "", ENOMEM);
		goto out;
	}
	o->fd = mkostemp(o->tmp, O_CLOEXEC);
	if (o->fd < 0) {
		fail_errno(o, "cannot create a temporary file beside it",
			   errno);
		goto out;
	}
	/* Not mkstemp()'s 0600. */
	mask = umask(0);
	umask(mask);
	if (fchmod(o->fd, 0666 & ~mask)) {
		fail_errno(o, o->tmp, errno);
		close(o->fd);
		unlink(o->tmp);
		goto out;
	}
	ret = 0;
out:
	free(dir_buf);
	free(base_buf);
	return ret;
}

static void outfile_free(struct smap_outfile *o)
{
	free(o->target);
	free(o->tmp);
	o->target = NULL;
	o->tmp = NULL;
	o->fd = -1;
}

int smap_outfile_open(struct smap_outfile *o, const char *path,
		      const char *prefix)
{
	struct stat st;
	int ret;

	memset(o, 0, sizeof(*o));
	o->path = path;
	o->prefix = prefix;
	o->fd = -1;
	/* stat() follows the links as open() does, /proc's magic ones too. */
	if (stat(path, &st)) {
		if (errno != ENOENT)
			return fail_errno(o, "", errno);
		o->target = dangling_target(path);
	} else if (S_ISREG(st.st_mode)) {
		if (st.st_nlink > 1) {
			fprintf(stderr,
				"%s: %s: a file with %lu hard links: not replaced, which would part it from its other names (remove it, or write elsewhere)\n",
				prefix, path, (unsigned long)st.st_nlink);
			return -1;
		}
		o->target = realpath(path, NULL);
	} else if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode) ||
		   S_ISSOCK(st.st_mode)) {
		return open_through(o, &st);
	} else if (S_ISDIR(st.st_mode)) {
		return fail_errno(o, "", EISDIR);
	} else {
		return fail(o, "not a regular file, character device or FIFO");
	}
	if (!o->target)
		return fail_errno(o, "", errno);
	ret = open_beside(o);
	if (ret)
		outfile_free(o);
	return ret;
}

int smap_outfile_fd(const struct smap_outfile *o)
{
	return o->fd;
}

int smap_outfile_commit(struct smap_outfile *o)
{
	int ret = 0;

	if (!o->tmp) {
		/* A write error may show only now (NFS and the like). */
		if (close(o->fd))
			ret = fail_errno(o, "", errno);
		outfile_free(o);
		return ret;
	}
	/* On disk before the rename: whole after a crash, or the old one. */
	if (fsync(o->fd) && errno != EINVAL)
		ret = fail_errno(o, "", errno);
	if (close(o->fd) && !ret)
		ret = fail_errno(o, "", errno);
	if (!ret && rename(o->tmp, o->target))
		ret = fail_errno(o, "", errno);
	if (ret)
		unlink(o->tmp);
	outfile_free(o);
	return ret;
}

void smap_outfile_abort(struct smap_outfile *o)
{
	if (o->fd >= 0)
		close(o->fd);
	if (o->tmp)
		unlink(o->tmp);
	outfile_free(o);
}
