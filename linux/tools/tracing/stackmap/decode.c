// SPDX-License-Identifier: GPL-2.0
/*
 * Streaming decoder of stack_map_bin.
 *
 * The stream is read front to back, exactly once, through a FILE; nothing
 * is kept of a record once the next one is read, so a map of any size
 * decodes in bounded memory. Every field the format constrains is checked
 * before it is used, and the first violation ends the stream with a
 * message naming its byte offset: a consumer never gets a stack that the
 * kernel did not write.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "libstackmap.h"

#define HDR_OFF(field)	offsetof(struct trace_stackmap_bin_header, field)
#define REC_OFF(field)	offsetof(struct trace_stackmap_bin_record, field)
#define HDR_SIZE	sizeof(struct trace_stackmap_bin_header)
#define REC_SIZE	sizeof(struct trace_stackmap_bin_record)

/*
 * What the rules below take from <linux/trace_stackmap.h>: the rules of
 * version 1, whose header ends with index_bits, and fields read at their
 * width by get16() and get32(). A change of the ABI must stop the build
 * here, not be read by old rules.
 */
#define FIELD_SIZE(type, field)	sizeof(((struct type *)0)->field)
#define ASSERT_FIELD(type, field, size)					\
	_Static_assert(FIELD_SIZE(type, field) == (size),		\
		       #type "." #field " is read as " #size " bytes")

_Static_assert(TRACE_STACKMAP_BIN_VERSION == 1,
	       "new stack_map_bin version: teach smap_check_header() its rules");
ASSERT_FIELD(trace_stackmap_bin_header, magic, 4);
ASSERT_FIELD(trace_stackmap_bin_header, version, 2);
ASSERT_FIELD(trace_stackmap_bin_header, header_size, 2);
ASSERT_FIELD(trace_stackmap_bin_header, generation, 4);
ASSERT_FIELD(trace_stackmap_bin_header, nr_records, 4);
ASSERT_FIELD(trace_stackmap_bin_header, flags, 4);
ASSERT_FIELD(trace_stackmap_bin_header, max_depth, 4);
ASSERT_FIELD(trace_stackmap_bin_header, record_size, 4);
ASSERT_FIELD(trace_stackmap_bin_header, index_bits, 4);
_Static_assert(HDR_OFF(index_bits) +
	       FIELD_SIZE(trace_stackmap_bin_header, index_bits) == HDR_SIZE,
	       "the header of version 1 ends with index_bits");
ASSERT_FIELD(trace_stackmap_bin_record, id, 4);
ASSERT_FIELD(trace_stackmap_bin_record, depth, 4);
ASSERT_FIELD(trace_stackmap_bin_record, refs, 4);
ASSERT_FIELD(trace_stackmap_bin_record, reserved, 4);
_Static_assert(REC_OFF(reserved) +
	       FIELD_SIZE(trace_stackmap_bin_record, reserved) == REC_SIZE,
	       "the record header ends with reserved");

void smap_err(struct smap_error *err, uint64_t off, const char *fmt, ...)
{
	int n;
	va_list ap;

	n = snprintf(err->msg, sizeof(err->msg), "offset %llu: ",
		     (unsigned long long)off);
	va_start(ap, fmt);
	vsnprintf(err->msg + n, sizeof(err->msg) - n, fmt, ap);
	va_end(ap);
}

static uint16_t get16(const struct smap_header *hdr, const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return hdr->swap ? __builtin_bswap16(v) : v;
}

static uint32_t get32(const struct smap_header *hdr, const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return hdr->swap ? __builtin_bswap32(v) : v;
}

static uint64_t get64(const struct smap_header *hdr, const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return hdr->swap ? __builtin_bswap64(v) : v;
}

/* Read up to @len bytes; returns how many were read (short only at EOF). */
static size_t smap_read(struct smap_decoder *d, void *buf, size_t len)
{
	size_t n = fread(buf, 1, len, d->f);

	d->off += n;
	return n;
}

/* A short read is an I/O error (e.g. ESTALE after a reset), not an EOF. */
static bool smap_io_error(struct smap_decoder *d, struct smap_error *err)
{
	if (!ferror(d->f))
		return false;
	smap_err(err, d->off, "read error: %s", strerror(errno));
	return true;
}

/* Skip @len bytes the decoder does not use; false if the stream ends. */
static bool smap_skip(struct smap_decoder *d, uint64_t len)
{
	uint8_t buf[512];

	while (len) {
		size_t chunk = len < sizeof(buf) ? len : sizeof(buf);

		if (smap_read(d, buf, chunk) != chunk)
			return false;
		len -= chunk;
	}
	return true;
}

/*
 * index_bits is checked before the generation, which must fit in the
 * split.
 */
static int smap_check_header(struct smap_header *hdr, struct smap_error *err)
{
	if (hdr->version != TRACE_STACKMAP_BIN_VERSION) {
		smap_err(err, HDR_OFF(version),
			 "unsupported %sversion %u (this decoder reads version %d only)",
			 hdr->version > TRACE_STACKMAP_BIN_VERSION ? "newer " : "",
			 hdr->version, TRACE_STACKMAP_BIN_VERSION);
		return -1;
	}
	if (hdr->header_size < HDR_SIZE) {
		smap_err(err, HDR_OFF(header_size),
			 "header_size %u is smaller than %zu",
			 hdr->header_size, HDR_SIZE);
		return -1;
	}
	if (hdr->index_bits < SMAP_MIN_INDEX_BITS ||
	    hdr->index_bits > SMAP_MAX_INDEX_BITS) {
		smap_err(err, HDR_OFF(index_bits),
			 "index_bits %u is out of range %d..%d", hdr->index_bits,
			 SMAP_MIN_INDEX_BITS, SMAP_MAX_INDEX_BITS);
		return -1;
	}
	if (hdr->generation > smap_gen_max(hdr)) {
		smap_err(err, HDR_OFF(generation),
			 "generation %u is above %u, the largest tag of index_bits %u",
			 hdr->generation, smap_gen_max(hdr), hdr->index_bits);
		return -1;
	}
	if (hdr->generation == 0 && hdr->nr_records) {
		smap_err(err, HDR_OFF(nr_records),
			 "%u records in generation 0 (no depot)",
			 hdr->nr_records);
		return -1;
	}
	if (hdr->flags & ~TRACE_STACKMAP_BIN_ADDRS) {
		smap_err(err, HDR_OFF(flags), "unknown flags 0x%x", hdr->flags);
		return -1;
	}
	if (hdr->max_depth == 0 || hdr->max_depth > SMAP_MAX_DEPTH) {
		smap_err(err, HDR_OFF(max_depth),
			 "max_depth %u is out of range 1..%u",
			 hdr->max_depth, SMAP_MAX_DEPTH);
		return -1;
	}
	if (hdr->record_size < REC_SIZE ||
	    hdr->record_size > SMAP_MAX_RECORD_SIZE) {
		smap_err(err, HDR_OFF(record_size),
			 "record_size %u is out of range %zu..%u",
			 hdr->record_size, REC_SIZE, SMAP_MAX_RECORD_SIZE);
		return -1;
	}
	return 0;
}

/**
 * smap_decoder_init() - read and check the header of a stream
 * @d: the decoder
 * @f: the stream, positioned at its first byte
 * @err: the error, if any
 *
 * Return: 0, or -1 with @err set.
 */
int smap_decoder_init(struct smap_decoder *d, FILE *f, struct smap_error *err)
{
	struct smap_header *hdr = &d->hdr;
	uint8_t buf[HDR_SIZE];
	uint32_t magic;
	size_t n;

	memset(d, 0, sizeof(*d));
	d->f = f;
	n = smap_read(d, buf, sizeof(buf));
	if (n < HDR_OFF(magic) + sizeof(magic)) {
		if (smap_io_error(d, err))
			return -1;
		smap_err(err, 0, "truncated header (%zu of %zu bytes)", n,
			 HDR_SIZE);
		return -1;
	}
	/* In the writer's byte order: it tells which that is. */
	memcpy(&magic, buf + HDR_OFF(magic), sizeof(magic));
	if (magic == TRACE_STACKMAP_BIN_MAGIC) {
		hdr->swap = false;
	} else if (magic == __builtin_bswap32(TRACE_STACKMAP_BIN_MAGIC)) {
		hdr->swap = true;
	} else {
		smap_err(err, HDR_OFF(magic),
			 "bad magic %02x %02x %02x %02x (not a stack_map_bin stream)",
			 buf[0], buf[1], buf[2], buf[3]);
		return -1;
	}
	hdr->big_endian = (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__) != hdr->swap;
	if (n < sizeof(buf)) {
		if (smap_io_error(d, err))
			return -1;
		smap_err(err, 0, "truncated header (%zu of %zu bytes)", n,
			 HDR_SIZE);
		return -1;
	}
	hdr->magic = TRACE_STACKMAP_BIN_MAGIC;
	hdr->version = get16(hdr, buf + HDR_OFF(version));
	hdr->header_size = get16(hdr, buf + HDR_OFF(header_size));
	hdr->generation = get32(hdr, buf + HDR_OFF(generation));
	hdr->nr_records = get32(hdr, buf + HDR_OFF(nr_records));
	hdr->flags = get32(hdr, buf + HDR_OFF(flags));
	hdr->max_depth = get32(hdr, buf + HDR_OFF(max_depth));
	hdr->record_size = get32(hdr, buf + HDR_OFF(record_size));
	hdr->index_bits = get32(hdr, buf + HDR_OFF(index_bits));
	if (smap_check_header(hdr, err))
		return -1;
	if (!smap_skip(d, hdr->header_size - HDR_SIZE)) {
		if (smap_io_error(d, err))
			return -1;
		smap_err(err, 0, "truncated header (%llu of %u bytes)",
			 (unsigned long long)d->off, hdr->header_size);
		return -1;
	}

	d->addrs = malloc(sizeof(*d->addrs) * hdr->max_depth);
	d->raw = malloc(sizeof(uint64_t) * hdr->max_depth);
	d->seen = calloc(1, smap_nr_slots(hdr) / 8);
	if (!d->addrs || !d->raw || !d->seen) {
		smap_err(err, d->off, "out of memory");
		return -1;
	}
	return 0;
}

/**
 * smap_decode_record() - convert a raw record header to host byte order
 * @hdr: header of the stream
 * @raw: the first sizeof(struct trace_stackmap_bin_record) bytes of the
 *	record, as stored
 * @rec: the result; @rec->offset and @rec->addrs are left alone
 */
void smap_decode_record(const struct smap_header *hdr, const uint8_t *raw,
			struct smap_record *rec)
{
	rec->id = get32(hdr, raw + REC_OFF(id));
	rec->depth = get32(hdr, raw + REC_OFF(depth));
	rec->refs = get32(hdr, raw + REC_OFF(refs));
	rec->reserved = get32(hdr, raw + REC_OFF(reserved));
}

/**
 * smap_decode_addrs() - convert raw addresses to host byte order
 * @hdr: header of the stream
 * @raw: @depth addresses as stored
 * @depth: their number
 * @addrs: the result
 *
 * Return: 0.
 */
int smap_decode_addrs(const struct smap_header *hdr, const uint8_t *raw,
		      uint32_t depth, uint64_t *addrs)
{
	uint32_t i;

	for (i = 0; i < depth; i++)
		addrs[i] = get64(hdr, raw + 8 * i);
	return 0;
}

/**
 * smap_decoder_next() - read and check the next record
 * @d: the decoder
 * @rec: the record read
 * @err: the error, if any
 *
 * After the last announced record, checks that the stream ends there.
 *
 * Return: 1 with @rec filled, 0 at the end of a valid stream, -1 with
 * @err set.
 */
int smap_decoder_next(struct smap_decoder *d, struct smap_record *rec,
		      struct smap_error *err)
{
	const struct smap_header *hdr = &d->hdr;
	uint8_t buf[REC_SIZE];
	uint64_t start = d->off;
	uint32_t idx;
	size_t n;

	if (d->done)
		return 0;
	if (d->nr_read == hdr->nr_records) {
		n = smap_read(d, buf, 1);
		if (!n && smap_io_error(d, err))
			return -1;
		if (n) {
			smap_err(err, start, "trailing data after the last of %u records",
				 hdr->nr_records);
			return -1;
		}
		d->done = true;
		return 0;
	}

	n = smap_read(d, buf, sizeof(buf));
	if (n < sizeof(buf) && smap_io_error(d, err))
		return -1;
	if (n == 0) {
		smap_err(err, start, "record count mismatch: header announces %u records, stream ends after %u",
			 hdr->nr_records, d->nr_read);
		return -1;
	}
	if (n < sizeof(buf)) {
		smap_err(err, start, "truncated record %u (%zu of %u header bytes)",
			 d->nr_read, n, hdr->record_size);
		return -1;
	}
	rec->offset = start;
	smap_decode_record(hdr, buf, rec);

	/* Also catches an index that does not fit in index_bits. */
	if (smap_id_gen(hdr, rec->id) != hdr->generation) {
		smap_err(err, start, "record %u: id 0x%08x has generation %u (index_bits %u), the header %u",
			 d->nr_read, rec->id, smap_id_gen(hdr, rec->id),
			 hdr->index_bits, hdr->generation);
		return -1;
	}
	idx = smap_id_index(hdr, rec->id);
	if (d->seen[idx / 8] & (1U << (idx % 8))) {
		smap_err(err, start, "record %u: duplicate id 0x%08x",
			 d->nr_read, rec->id);
		return -1;
	}
	d->seen[idx / 8] |= 1U << (idx % 8);
	if (rec->depth == 0 || rec->depth > hdr->max_depth) {
		smap_err(err, start + REC_OFF(depth),
			 "record %u (id 0x%08x): depth %u is out of range 1..%u",
			 d->nr_read, rec->id, rec->depth, hdr->max_depth);
		return -1;
	}
	if (rec->reserved) {
		smap_err(err, start + REC_OFF(reserved),
			 "record %u (id 0x%08x): reserved field is 0x%x, not 0",
			 d->nr_read, rec->id, rec->reserved);
		return -1;
	}
	if (!smap_skip(d, hdr->record_size - REC_SIZE)) {
		if (smap_io_error(d, err))
			return -1;
		smap_err(err, start, "truncated record %u (id 0x%08x): record header ends early",
			 d->nr_read, rec->id);
		return -1;
	}
	n = smap_read(d, d->raw, 8ULL * rec->depth);
	if (n < 8ULL * rec->depth) {
		if (smap_io_error(d, err))
			return -1;
		smap_err(err, start, "truncated record %u (id 0x%08x): %zu of %u address bytes",
			 d->nr_read, rec->id, n, 8 * rec->depth);
		return -1;
	}
	smap_decode_addrs(hdr, d->raw, rec->depth, d->addrs);
	rec->addrs = d->addrs;
	d->nr_read++;
	return 1;
}

void smap_decoder_fini(struct smap_decoder *d)
{
	free(d->addrs);
	free(d->raw);
	free(d->seen);
	d->addrs = NULL;
	d->raw = NULL;
	d->seen = NULL;
}

/**
 * smap_open_seekable() - open a map for random access
 * @path: a file, or "-" for stdin
 * @err: the error, if any
 *
 * A regular file of non-zero size is opened as is. Anything else (a pipe,
 * stdin, tracefs's stack_map_bin, which cannot be seeked and reports size
 * 0) is copied once into an unlinked temporary file, in bounded memory.
 *
 * Return: the stream, positioned at its start, or NULL with @err set.
 */
FILE *smap_open_seekable(const char *path, struct smap_error *err)
{
	bool is_stdin = !strcmp(path, "-");
	FILE *in, *tmp;
	char buf[65536];
	struct stat st;
	size_t n;

	in = is_stdin ? stdin : fopen(path, "rb");
	if (!in) {
		snprintf(err->msg, sizeof(err->msg), "%s", strerror(errno));
		return NULL;
	}
	if (!fstat(fileno(in), &st) && S_ISREG(st.st_mode) && st.st_size > 0 &&
	    lseek(fileno(in), 0, SEEK_CUR) == 0)
		return in;

	tmp = tmpfile();
	if (!tmp) {
		snprintf(err->msg, sizeof(err->msg),
			 "cannot create a temporary file: %s", strerror(errno));
		goto out_close;
	}
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0) {
		if (fwrite(buf, 1, n, tmp) != n) {
			snprintf(err->msg, sizeof(err->msg),
				 "cannot spool to a temporary file: %s",
				 strerror(errno));
			fclose(tmp);
			tmp = NULL;
			goto out_close;
		}
	}
	if (ferror(in)) {
		snprintf(err->msg, sizeof(err->msg), "read error: %s",
			 strerror(errno));
		fclose(tmp);
		tmp = NULL;
		goto out_close;
	}
	rewind(tmp);
out_close:
	if (!is_stdin)
		fclose(in);
	return tmp;
}
