// SPDX-License-Identifier: GPL-2.0
/*
 * Id index over a validated stack_map_bin stream.
 *
 * expand, fold and the trace-cmd plugin look stacks up by id in arbitrary
 * order. Rather than loading the map, the index keeps one file offset per
 * possible id index (2^index_bits slots: at most 8 MiB of address space,
 * only touched where records exist) and reads a record back when it is
 * asked for. The stream must be seekable: see smap_open_seekable().
 */
#include <stdlib.h>
#include <string.h>

#include "libstackmap.h"

/**
 * smap_index_open() - validate a stream and index its records
 * @ix: the index
 * @f: a seekable stream at its start; owned by @ix from now on
 * @err: the error, if any
 *
 * Return: 0, or -1 with @err set; the stream is closed either way on error.
 */
int smap_index_open(struct smap_index *ix, FILE *f, struct smap_error *err)
{
	struct smap_decoder d;
	struct smap_record rec;
	int ret;

	memset(ix, 0, sizeof(*ix));
	ix->f = f;
	if (smap_decoder_init(&d, f, err))
		goto fail;
	ix->hdr = d.hdr;
	ix->off = calloc(smap_nr_slots(&d.hdr), sizeof(*ix->off));
	ix->addrs = malloc(sizeof(*ix->addrs) * d.hdr.max_depth);
	ix->raw = malloc(sizeof(uint64_t) * d.hdr.max_depth);
	if (!ix->off || !ix->addrs || !ix->raw) {
		snprintf(err->msg, sizeof(err->msg), "out of memory");
		goto fail;
	}
	while ((ret = smap_decoder_next(&d, &rec, err)) > 0)
		ix->off[smap_id_index(&d.hdr, rec.id)] = rec.offset + 1;
	if (ret < 0)
		goto fail;
	smap_decoder_fini(&d);
	return 0;
fail:
	smap_decoder_fini(&d);
	smap_index_close(ix);
	return -1;
}

/* Read the record at @off back; the stream was validated when indexed. */
static int smap_index_read(struct smap_index *ix, uint64_t off,
			   struct smap_record *rec)
{
	const struct smap_header *hdr = &ix->hdr;
	uint8_t buf[sizeof(struct trace_stackmap_bin_record)];

	if (fseeko(ix->f, off, SEEK_SET) ||
	    fread(buf, 1, sizeof(buf), ix->f) != sizeof(buf))
		return -1;
	smap_decode_record(hdr, buf, rec);
	/* The file may have changed since it was validated. */
	if (rec->depth == 0 || rec->depth > hdr->max_depth)
		return -1;
	if (fseeko(ix->f, off + hdr->record_size, SEEK_SET) ||
	    fread(ix->raw, 8, rec->depth, ix->f) != rec->depth)
		return -1;
	smap_decode_addrs(hdr, ix->raw, rec->depth, ix->addrs);
	rec->offset = off;
	rec->addrs = ix->addrs;
	return 0;
}

/**
 * smap_index_lookup() - find the stack of an id
 * @ix: the index
 * @id: the id, as printed in the trace
 * @rec: the record, valid until the next call
 *
 * An id never resolves to the stack of another id: an id whose generation
 * tag, under the map's split, is not the map's is stale, whatever its
 * index.
 *
 * Return: %SMAP_FOUND, %SMAP_STALE or %SMAP_UNKNOWN.
 */
enum smap_lookup smap_index_lookup(struct smap_index *ix, uint32_t id,
				   struct smap_record *rec)
{
	uint64_t off;

	if (smap_id_gen(&ix->hdr, id) != ix->hdr.generation)
		return SMAP_STALE;
	off = ix->off[smap_id_index(&ix->hdr, id)];
	if (!off || smap_index_read(ix, off - 1, rec) || rec->id != id)
		return SMAP_UNKNOWN;
	return SMAP_FOUND;
}

/**
 * smap_index_foreach() - walk the records in stream order
 * @ix: the index
 * @fn: called for each record; a non-zero return stops the walk
 * @ctx: passed to @fn
 * @err: the error, if any
 *
 * Return: 0, the non-zero value of @fn, or -1 with @err set.
 */
int smap_index_foreach(struct smap_index *ix,
		       int (*fn)(void *ctx, const struct smap_record *rec),
		       void *ctx, struct smap_error *err)
{
	struct smap_decoder d;
	struct smap_record rec;
	int ret;

	rewind(ix->f);
	if (smap_decoder_init(&d, ix->f, err)) {
		smap_decoder_fini(&d);
		return -1;
	}
	while ((ret = smap_decoder_next(&d, &rec, err)) > 0) {
		ret = fn(ctx, &rec);
		if (ret)
			break;
	}
	smap_decoder_fini(&d);
	return ret;
}

void smap_index_close(struct smap_index *ix)
{
	if (ix->f)
		fclose(ix->f);
	free(ix->off);
	free(ix->addrs);
	free(ix->raw);
	memset(ix, 0, sizeof(*ix));
}
