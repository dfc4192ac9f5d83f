/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An output file named by the user (profile --pprof FILE), written so
 * that what FILE is survives: a regular file is replaced whole or left
 * untouched, what is not a regular file is never replaced by one.
 *
 *   missing, or a regular file with one link
 *	the content goes to a temporary file beside it (".NAME.XXXXXX",
 *	mode 0666 under the umask, as open(O_CREAT) makes a new file), and
 *	commit renames it over FILE: FILE is whole or untouched. The
 *	mode and owner of a replaced file are not kept.
 *   a symbolic link
 *	followed: the temporary file goes beside the final target and
 *	the rename replaces the target, so the link stays a link; a
 *	dangling link gets its target created, as open(O_CREAT) would.
 *   a regular file with several hard links
 *	refused: a rename would part it from its other names, and
 *	writing in place would leave it half-written on a failure.
 *   a character device, a FIFO
 *	written through (open(O_WRONLY), no truncation): /dev/null stays
 *	a device. A FIFO without a reader is an error (ENXIO), not a wait:
 *	it is opened with O_NONBLOCK, cleared once open. A failure after
 *	the open may leave part of the content written.
 *   a socket, a directory, anything else
 *	refused (open() cannot write to a socket).
 *
 * Errors go to stderr as one line, "PREFIX: PATH: reason".
 */
#ifndef _STACKMAP_OUTFILE_H
#define _STACKMAP_OUTFILE_H

struct smap_outfile {
	const char *path;	/* as given, for messages */
	const char *prefix;
	char *target;		/* the file renamed over; NULL: written through */
	char *tmp;		/* the temporary file beside @target */
	int fd;
};

/*
 * Open @path for its whole new content: 0 and an fd to write it to
 * (smap_outfile_fd()), or -1 with the error reported.
 */
int smap_outfile_open(struct smap_outfile *o, const char *path,
		      const char *prefix);
int smap_outfile_fd(const struct smap_outfile *o);
/*
 * Make the content visible (the rename, or the close of a device or
 * FIFO): 0, or -1 with the error reported. The fd is closed either way.
 */
int smap_outfile_commit(struct smap_outfile *o);
/* Drop the content: the fd is closed, a regular file left untouched. */
void smap_outfile_abort(struct smap_outfile *o);

#endif /* _STACKMAP_OUTFILE_H */
