/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libstackmap: the library that reads the ftrace stack_map_bin stream:
 * decoder, id index and symbolizer.
 *
 * The format is defined by <linux/trace_stackmap.h>, of which the decoder
 * uses the copy in tools/include/uapi (check-headers.sh keeps it equal to
 * the kernel's), and described in Documentation/trace/ftrace-stackmap.rst.
 * This header is the contract between the decoder (decode.c), the id index
 * (mapindex.c), the symbolizer (ksyms.c) and their users: the CLI and the
 * fuzz target.
 *
 * Conventions: every function that can fail fills a caller-provided
 * struct smap_error with a one-line message that starts with the byte
 * offset of the bad field or item ("offset 48: ...") and returns -1.
 */
#ifndef _LIBSTACKMAP_H
#define _LIBSTACKMAP_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <linux/trace_stackmap.h>

/* Frame in the ftrace trampoline; not an address. */
#define SMAP_TRAMPOLINE		0x7fffffffULL
/*
 * Ids: the low index_bits bits index the record, the high 32 - index_bits
 * bits tag the generation. A depot of 2^k slots splits at k, and its
 * header says so. The kernel's tables have 2^5 to 2^20 slots.
 */
#define SMAP_MIN_INDEX_BITS	5
#define SMAP_MAX_INDEX_BITS	20
/*
 * Bounds this decoder puts on fields the format leaves open, so that the
 * memory it needs per record stays bounded (8 bytes * SMAP_MAX_DEPTH).
 * The kernel writes max_depth 128 and record_size 16.
 */
#define SMAP_MAX_DEPTH		65536U
#define SMAP_MAX_RECORD_SIZE	65536U

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

struct smap_error {
	char msg[256];
};

/* Fill @err with "offset @off: " and the message. */
void smap_err(struct smap_error *err, uint64_t off, const char *fmt, ...);

/**
 * struct smap_header - decoded stack_map_bin header, in host byte order
 * @index_bits: where the stream splits its ids
 * @big_endian: the stream was written by a big-endian kernel
 * @swap: the stream's byte order differs from the host's
 */
struct smap_header {
	uint32_t magic;
	uint16_t version;
	uint16_t header_size;
	uint32_t generation;
	uint32_t nr_records;
	uint32_t flags;
	uint32_t max_depth;
	uint32_t record_size;
	uint32_t index_bits;
	bool big_endian;
	bool swap;
};

/*
 * The parts of an id under the split of a checked header; never under a
 * fixed one, which would tell another generation's id for this one's.
 */
static inline uint32_t smap_id_gen(const struct smap_header *hdr, uint32_t id)
{
	return id >> hdr->index_bits;
}

static inline uint32_t smap_id_index(const struct smap_header *hdr,
				     uint32_t id)
{
	return id & ((1U << hdr->index_bits) - 1);
}

/* The number of slot indexes, and so of ids per generation. */
static inline uint32_t smap_nr_slots(const struct smap_header *hdr)
{
	return 1U << hdr->index_bits;
}

/* The largest generation tag of the split. */
static inline uint32_t smap_gen_max(const struct smap_header *hdr)
{
	return (1U << (32 - hdr->index_bits)) - 1;
}

/**
 * struct smap_record - one decoded record
 * @offset: byte offset of the record in the stream
 * @addrs: @depth addresses, innermost first; owned by the decoder and
 *	valid until the next call of smap_decoder_next()
 */
struct smap_record {
	uint64_t offset;
	uint32_t id;
	uint32_t depth;
	uint32_t refs;
	uint32_t reserved;
	const uint64_t *addrs;
};

/**
 * struct smap_decoder - streaming, validating decoder
 *
 * Memory use is bounded: one record's addresses and a bitmap of the ids
 * seen (one bit per slot index, at most 128 KiB), whatever the size of
 * the stream.
 */
struct smap_decoder {
	FILE *f;
	uint64_t off;
	struct smap_header hdr;
	uint32_t nr_read;
	bool done;
	uint64_t *addrs;
	uint8_t *raw;
	uint8_t *seen;
};

int smap_decoder_init(struct smap_decoder *d, FILE *f, struct smap_error *err);
int smap_decoder_next(struct smap_decoder *d, struct smap_record *rec,
		      struct smap_error *err);
void smap_decoder_fini(struct smap_decoder *d);
void smap_decode_record(const struct smap_header *hdr, const uint8_t *raw,
			struct smap_record *rec);
int smap_decode_addrs(const struct smap_header *hdr, const uint8_t *raw,
		      uint32_t depth, uint64_t *addrs);

FILE *smap_open_seekable(const char *path, struct smap_error *err);

/* Id index: random access to the records of a validated stream. */
enum smap_lookup {
	SMAP_FOUND,
	SMAP_STALE,	/* id of another generation */
	SMAP_UNKNOWN,	/* right generation, not in the map */
};

struct smap_index {
	FILE *f;
	struct smap_header hdr;
	uint64_t *off;		/* record offset + 1 per id index, 0: none */
	uint64_t *addrs;
	uint8_t *raw;
};

int smap_index_open(struct smap_index *ix, FILE *f, struct smap_error *err);
/* Calls @fn for every record, in stream order. */
int smap_index_foreach(struct smap_index *ix,
		       int (*fn)(void *ctx, const struct smap_record *rec),
		       void *ctx, struct smap_error *err);
enum smap_lookup smap_index_lookup(struct smap_index *ix, uint32_t id,
				   struct smap_record *rec);
void smap_index_close(struct smap_index *ix);

/* Symbols from a saved /proc/kallsyms. */
struct ksym {
	uint64_t addr;
	uint64_t size;		/* to the next symbol; 0 if last */
	uint32_t name;		/* offsets in the string pool */
	uint32_t mod;		/* 0: core kernel */
};

struct ksyms {
	struct ksym *syms;
	size_t nr;
	char *pool;
	size_t pool_len;
	uint64_t kretprobe_tramp;
};

int ksyms_load(struct ksyms *ks, const char *path, struct smap_error *err);
void ksyms_free(struct ksyms *ks);

/* How to print a frame. */
enum smap_sym_style {
	SMAP_SYM_PS,	/* %pS, as the stack_map file: "0x%lx" if unknown */
	SMAP_SYM_TRACE,	/* seq_print_ip_sym(), as the trace file */
};

#define SMAP_SYM_OFFSET	0x1	/* sym-offset trace option */
#define SMAP_SYM_ADDR	0x2	/* sym-addr trace option */

void smap_format_frame(char *buf, size_t len, const struct ksyms *ks,
		       uint64_t ip, enum smap_sym_style style,
		       unsigned int flags);

#endif /* _LIBSTACKMAP_H */
