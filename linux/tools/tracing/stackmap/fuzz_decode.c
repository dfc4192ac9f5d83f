// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the stack_map_bin decoder and the id index.
 *
 * Any input must either decode or be rejected with a message that names
 * an offset inside the input; the index built over a stream the decoder
 * accepted must resolve every record's id to that very record, and the
 * same id with another generation tag, under the stream's split, to none.
 */
#include <stdlib.h>
#include <string.h>

#include "libstackmap.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_offset(const struct smap_error *err, size_t size)
{
	unsigned long long off;

	if (sscanf(err->msg, "offset %llu:", &off) != 1 || off > size)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct smap_record rec, found;
	struct smap_decoder d;
	struct smap_index ix;
	struct smap_error err;
	uint32_t ids[64];
	unsigned int nr_ids = 0, i;
	char sym[512];
	int ret;
	FILE *f;

	if (!size)
		return 0;
	f = fmemopen((void *)data, size, "rb");
	if (!f)
		return 0;
	ret = smap_decoder_init(&d, f, &err);
	while (!ret && (ret = smap_decoder_next(&d, &rec, &err)) > 0) {
		for (i = 0; i < rec.depth; i++)
			smap_format_frame(sym, sizeof(sym), NULL, rec.addrs[i],
					  SMAP_SYM_TRACE, SMAP_SYM_OFFSET);
		if (nr_ids < 64)
			ids[nr_ids++] = rec.id;
		ret = 0;
	}
	smap_decoder_fini(&d);
	if (ret < 0) {
		check_offset(&err, size);
		fclose(f);
		return 0;
	}

	rewind(f);
	if (smap_index_open(&ix, f, &err))
		abort();	/* the decoder accepted this stream */
	for (i = 0; i < nr_ids; i++) {
		if (smap_index_lookup(&ix, ids[i], &found) != SMAP_FOUND ||
		    found.id != ids[i])
			abort();
		if (smap_index_lookup(&ix, ids[i] ^ (1U << ix.hdr.index_bits),
				      &found) != SMAP_STALE)
			abort();
	}
	smap_index_close(&ix);
	return 0;
}
