// SPDX-License-Identifier: GPL-2.0
/*
 * stackmap_bin - guest-side checker of the stack_map_bin ABI
 *
 *   stackmap_bin dump [--nosyslog] FILE
 *	validate the stream strictly and print it: a header line
 *	"generation G records N flags 0xF max_depth D index_bits K", then
 *	per record "stack_id 0x%08x depth D refs R" and its addresses.
 *	Versions 1 (ids split at bit 20) and 2 (split at index_bits) are
 *	read. With --nosyslog, CAP_SYSLOG is dropped before the open, so the
 *	reader is one that /proc/kallsyms would show zeros to.
 *   stackmap_bin reset-mid FILE MAPFILE
 *	read the header only, reset through MAPFILE, read again: must fail
 *	with ESTALE.
 *   stackmap_bin eof-after FILE MAPFILE
 *	read to the end, reset through MAPFILE, read again: must give EOF.
 *
 * Exit status: 0 on success, 1 on a check that failed, 2 on bad usage.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/types.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define FSMB_MAGIC	0x46534D42u
#define FSMB_VERSION	2
/* Version 1 had no index_bits and split every id at bit 20. */
#define FSMB_V1_INDEX_BITS	20
#define FSMB_MIN_INDEX_BITS	5
#define FSMB_MAX_INDEX_BITS	20

struct fsmb_header {
	__u32 magic;
	__u16 version;
	__u16 header_size;
	__u32 generation;
	__u32 nr_records;
	__u32 flags;
	__u32 max_depth;
	__u32 record_size;
	__u32 index_bits;	/* version 1: reserved, 0 */
};

struct fsmb_record {
	__u32 id;
	__u32 depth;
	__u32 refs;
	__u32 reserved;
};

static int fail(const char *fmt, unsigned long long off, const char *what)
{
	fprintf(stderr, "stackmap_bin: ");
	fprintf(stderr, fmt, off, what);
	fputc('\n', stderr);
	return 1;
}

/* Read exactly @len bytes unless EOF comes first; returns bytes read. */
static ssize_t read_full(int fd, void *buf, size_t len)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = read(fd, (char *)buf + done, len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (n == 0)
			break;
		done += n;
	}
	return done;
}

static int drop_syslog(void)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2];

	if (syscall(SYS_capget, &hdr, data))
		return -1;
	data[CAP_SYSLOG / 32].effective &= ~(1u << (CAP_SYSLOG % 32));
	data[CAP_SYSLOG / 32].permitted &= ~(1u << (CAP_SYSLOG % 32));
	return syscall(SYS_capset, &hdr, data);
}

static int dump(const char *path)
{
	static __u8 seen[(1u << FSMB_MAX_INDEX_BITS) / 8];
	static __u64 addrs[4096];
	unsigned long long off = 0;
	struct fsmb_header h;
	struct fsmb_record r;
	__u32 i, j, bits, idx;
	char extra;
	int fd;

	fd = open(path, O_RDONLY);
	if (fd < 0) {
		perror(path);
		return 1;
	}
	if (read_full(fd, &h, sizeof(h)) != sizeof(h))
		return fail("offset %llu: truncated header%s", off, "");
	if (h.magic != FSMB_MAGIC)
		return fail("offset %llu: bad magic%s", off, "");
	if (h.version < 1 || h.version > FSMB_VERSION)
		return fail("offset %llu: unknown version%s", 4, "");
	if (h.header_size != sizeof(h) || h.record_size != sizeof(r))
		return fail("offset %llu: unexpected %s", 6, "header or record size");
	if (h.version == 1 && h.index_bits)
		return fail("offset %llu: nonzero %s", 28, "reserved field");
	bits = h.version == 1 ? FSMB_V1_INDEX_BITS : h.index_bits;
	if (bits < FSMB_MIN_INDEX_BITS || bits > FSMB_MAX_INDEX_BITS)
		return fail("offset %llu: bad %s", 28, "index_bits");
	if (h.generation >> (32 - bits) || (!h.generation && h.nr_records))
		return fail("offset %llu: bad %s", 8, "generation");
	if (!h.max_depth || h.max_depth > 4096)
		return fail("offset %llu: bad %s", 20, "max_depth");
	off = sizeof(h);
	printf("generation %u records %u flags 0x%x max_depth %u index_bits %u\n",
	       h.generation, h.nr_records, h.flags, h.max_depth, bits);
	for (i = 0; i < h.nr_records; i++) {
		if (read_full(fd, &r, sizeof(r)) != sizeof(r))
			return fail("offset %llu: truncated %s", off, "record header");
		/* The tag under this stream's split, never a fixed one. */
		if (r.id >> bits != h.generation)
			return fail("offset %llu: %s", off,
				    "id of another generation");
		idx = r.id & ((1u << bits) - 1);
		if (seen[idx / 8] & (1u << (idx % 8)))
			return fail("offset %llu: %s", off, "duplicate id");
		seen[idx / 8] |= 1u << (idx % 8);
		if (!r.depth || r.depth > h.max_depth)
			return fail("offset %llu: bad %s", off + 4, "depth");
		if (r.reserved)
			return fail("offset %llu: nonzero %s", off + 12,
				    "reserved field");
		if (read_full(fd, addrs, r.depth * 8ul) != (ssize_t)(r.depth * 8ul))
			return fail("offset %llu: truncated %s", off, "record");
		printf("stack_id 0x%08x depth %u refs %u\n", r.id, r.depth, r.refs);
		for (j = 0; j < r.depth; j++)
			printf("  [%u] 0x%016llx\n", j, (unsigned long long)addrs[j]);
		off += sizeof(r) + r.depth * 8ul;
	}
	if (read(fd, &extra, 1) != 0)
		return fail("offset %llu: %s after the last record", off,
			    "trailing bytes");
	close(fd);
	return 0;
}

static int reset_map(const char *map)
{
	int fd = open(map, O_WRONLY);

	if (fd < 0 || write(fd, "reset\n", 6) != 6) {
		perror(map);
		return -1;
	}
	return close(fd);
}

static int reset_mid(const char *path, const char *map)
{
	struct fsmb_header h;
	char buf[64];
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY);
	if (fd < 0 || read_full(fd, &h, sizeof(h)) != sizeof(h)) {
		perror(path);
		return 1;
	}
	if (!h.nr_records) {
		fprintf(stderr, "stackmap_bin: no records to walk\n");
		return 1;
	}
	if (reset_map(map))
		return 1;
	n = read(fd, buf, sizeof(buf));
	if (n >= 0 || errno != ESTALE) {
		fprintf(stderr, "stackmap_bin: read after reset gave %zd (%s), want ESTALE\n",
			n, n < 0 ? strerror(errno) : "data");
		return 1;
	}
	printf("ESTALE\n");
	return 0;
}

static int eof_after(const char *path, const char *map)
{
	char buf[4096];
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY);
	if (fd < 0) {
		perror(path);
		return 1;
	}
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		;
	if (n < 0) {
		perror("read");
		return 1;
	}
	if (reset_map(map))
		return 1;
	n = read(fd, buf, sizeof(buf));
	if (n != 0) {
		fprintf(stderr, "stackmap_bin: read after a finished walk gave %zd, want EOF\n",
			n);
		return 1;
	}
	printf("EOF\n");
	return 0;
}

static int print_usage(void)
{
	fprintf(stderr,
		"usage: stackmap_bin dump [--nosyslog] FILE\n"
		"       stackmap_bin reset-mid FILE MAPFILE\n"
		"       stackmap_bin eof-after FILE MAPFILE\n");
	return 2;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "dump"))
		return dump(argv[2]);
	if (argc == 4 && !strcmp(argv[1], "dump") &&
	    !strcmp(argv[2], "--nosyslog")) {
		if (drop_syslog()) {
			perror("capset");
			return 1;
		}
		return dump(argv[3]);
	}
	if (argc == 4 && !strcmp(argv[1], "reset-mid"))
		return reset_mid(argv[2], argv[3]);
	if (argc == 4 && !strcmp(argv[1], "eof-after"))
		return eof_after(argv[2], argv[3]);
	return print_usage();
}
