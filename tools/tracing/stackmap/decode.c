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
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "stackmap.h"

static void smap_err(struct smap_error *err, uint64_t off, const char *fmt, ...)
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
 * @word28 is the last u32 of the header: reserved (0) in version 1,
 * index_bits in version 2. It sets @hdr->index_bits, so it is checked
 * before the generation, which must fit in the split.
 */
static int smap_check_header(struct smap_header *hdr, uint32_t word28,
			     struct smap_error *err)
{
	if (hdr->version == 0 || hdr->version > SMAP_VERSION) {
		smap_err(err, 4, "unsupported version %u (this decoder reads versions 1 to %d)",
			 hdr->version, SMAP_VERSION);
		return -1;
	}
	if (hdr->header_size < SMAP_HEADER_SIZE) {
		smap_err(err, 6, "header_size %u is smaller than %d",
			 hdr->header_size, SMAP_HEADER_SIZE);
		return -1;
	}
	if (hdr->version == 1 && word28) {
		smap_err(err, 28, "reserved field is 0x%x, not 0", word28);
		return -1;
	}
	if (hdr->version >= 2 && (word28 < SMAP_MIN_INDEX_BITS ||
				  word28 > SMAP_MAX_INDEX_BITS)) {
		smap_err(err, 28, "index_bits %u is out of range %d..%d",
			 word28, SMAP_MIN_INDEX_BITS, SMAP_MAX_INDEX_BITS);
		return -1;
	}
	hdr->index_bits = hdr->version == 1 ? SMAP_V1_INDEX_BITS : word28;
	if (hdr->generation > smap_gen_max(hdr)) {
		smap_err(err, 8, "generation %u is above %u, the largest tag of index_bits %u",
			 hdr->generation, smap_gen_max(hdr), hdr->index_bits);
		return -1;
	}
	if (hdr->generation == 0 && hdr->nr_records) {
		smap_err(err, 12, "%u records in generation 0 (no depot)",
			 hdr->nr_records);
		return -1;
	}
	if (hdr->flags & ~SMAP_FLAG_ADDRS) {
		smap_err(err, 16, "unknown flags 0x%x", hdr->flags);
		return -1;
	}
	if (hdr->max_depth == 0 || hdr->max_depth > SMAP_MAX_DEPTH) {
		smap_err(err, 20, "max_depth %u is out of range 1..%u",
			 hdr->max_depth, SMAP_MAX_DEPTH);
		return -1;
	}
	if (hdr->record_size < SMAP_RECORD_SIZE ||
	    hdr->record_size > SMAP_MAX_RECORD_SIZE) {
		smap_err(err, 24, "record_size %u is out of range %d..%u",
			 hdr->record_size, SMAP_RECORD_SIZE,
			 SMAP_MAX_RECORD_SIZE);
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
	uint8_t buf[SMAP_HEADER_SIZE];
	uint32_t magic;
	size_t n;

	memset(d, 0, sizeof(*d));
	d->f = f;
	n = smap_read(d, buf, sizeof(buf));
	if (n < 4) {
		if (smap_io_error(d, err))
			return -1;
		smap_err(err, 0, "truncated header (%zu of %d bytes)", n,
			 SMAP_HEADER_SIZE);
		return -1;
	}
	memcpy(&magic, buf, sizeof(magic));
	if (magic == SMAP_MAGIC) {
		hdr->swap = false;
	} else if (magic == __builtin_bswap32(SMAP_MAGIC)) {
		hdr->swap = true;
	} else {
		smap_err(err, 0, "bad magic %02x %02x %02x %02x (not a stack_map_bin stream)",
			 buf[0], buf[1], buf[2], buf[3]);
		return -1;
	}
	hdr->big_endian = (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__) != hdr->swap;
	if (n < sizeof(buf)) {
		if (smap_io_error(d, err))
			return -1;
		smap_err(err, 0, "truncated header (%zu of %d bytes)", n,
			 SMAP_HEADER_SIZE);
		return -1;
	}
	hdr->magic = SMAP_MAGIC;
	hdr->version = get16(hdr, buf + 4);
	hdr->header_size = get16(hdr, buf + 6);
	hdr->generation = get32(hdr, buf + 8);
	hdr->nr_records = get32(hdr, buf + 12);
	hdr->flags = get32(hdr, buf + 16);
	hdr->max_depth = get32(hdr, buf + 20);
	hdr->record_size = get32(hdr, buf + 24);
	if (smap_check_header(hdr, get32(hdr, buf + 28), err))
		return -1;
	if (!smap_skip(d, hdr->header_size - SMAP_HEADER_SIZE)) {
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
	uint8_t buf[SMAP_RECORD_SIZE];
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
	rec->id = get32(hdr, buf);
	rec->depth = get32(hdr, buf + 4);
	rec->refs = get32(hdr, buf + 8);
	rec->reserved = get32(hdr, buf + 12);

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
		smap_err(err, start + 4, "record %u (id 0x%08x): depth %u is out of range 1..%u",
			 d->nr_read, rec->id, rec->depth, hdr->max_depth);
		return -1;
	}
	if (rec->reserved) {
		smap_err(err, start + 12, "record %u (id 0x%08x): reserved field is 0x%x, not 0",
			 d->nr_read, rec->id, rec->reserved);
		return -1;
	}
	if (!smap_skip(d, hdr->record_size - SMAP_RECORD_SIZE)) {
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
