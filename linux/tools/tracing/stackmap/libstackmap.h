/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libstackmap: the library that reads the ftrace stack_map_bin stream:
 * decoder, id index and symbolizer; and the kernel_stack_def records
 * of a trace: their decoder and the table of what they define.
 *
 * The format is defined by <linux/trace_stackmap.h>, of which the decoder
 * uses the copy in tools/include/uapi (check-headers.sh keeps it equal to
 * the kernel's), and described in Documentation/trace/ftrace-stackmap.rst.
 * This header is the contract between the decoder (decode.c), the id index
 * (mapindex.c), the symbolizer (ksyms.c), the definition decoder
 * (stackdef.c) and table (deftab.c), and their users: the CLI, the fuzz
 * targets and plugin_stackmap.so.
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

/*
 * kernel_stack_def: the definition of a stack id, which the kernel writes
 * into the ring buffer before the first kernel_stack_id entry that uses
 * the id, so that a trace resolves its ids without a map. stackdef.c
 * decodes one record; deftab.c keeps what was learned, by id.
 */
#define SMAP_DEF_MAX_DEPTH	128U

/**
 * struct smap_def_layout - where a kernel_stack_def record has its fields
 * @id_off: offset of the u32 id, from the event's format (never fixed)
 * @depth_off: offset of the u32 depth
 * @caller_off: offset of the frames, caller[]
 * @long_size: the traced kernel's long, 4 or 8 bytes: the size of a frame
 * @big_endian: the traced kernel's byte order
 */
struct smap_def_layout {
	uint32_t id_off;
	uint32_t depth_off;
	uint32_t caller_off;
	uint32_t long_size;
	bool big_endian;
};

/* A decoded definition: @depth frames, innermost first. */
struct smap_def {
	uint32_t id;
	uint32_t depth;
	uint64_t addrs[SMAP_DEF_MAX_DEPTH];
};

/*
 * Decode the @size bytes of a record: 0, or -1 for a malformed one (a
 * field past the end of the record, depth 0 or above SMAP_DEF_MAX_DEPTH,
 * fewer bytes than @depth frames), with the offset in the record named
 * in @err. Even then @def has the id and depth the record holds, or 0
 * for a field it does not hold; its frames are never set.
 */
int smap_def_decode(const struct smap_def_layout *lay, const void *data,
		    size_t size, struct smap_def *def, struct smap_error *err);

/**
 * struct smap_stack - a stack learned from definitions
 * @refs: the definitions that teach it
 * @addrs: @depth frames, innermost first
 */
struct smap_stack {
	uint32_t refs;
	uint32_t depth;
	uint64_t addrs[];
};

/* A definition of an id: its time, and the stack it teaches. */
struct smap_deftab_def {
	uint64_t ts;
	struct smap_stack *stack;
};

struct smap_deftab_entry {
	uint32_t boot;
	uint32_t id;
	uint32_t nr;
	uint32_t cap;
	struct smap_deftab_def *defs;	/* by time; NULL: free slot */
};

/**
 * struct smap_deftab - the definitions learned from a trace, by id
 *
 * Keyed by the boot token and the whole 32-bit id: an id resolves only
 * through definitions of that very id in the same boot's depot (token
 * 0: a trace without boot markers), never through those of another
 * generation's id with the same slot index, nor another boot's. A
 * zeroed struct is an empty table. Memory grows with what is learned:
 * 16 bytes per definition, and the frames of each stack, once for the
 * definitions of an id next to each other in time that repeat them.
 */
struct smap_deftab {
	struct smap_deftab_entry *slots;
	uint32_t nr_slots;		/* 0 or a power of 2 */
	uint32_t nr_ids;
	uint64_t nr_defs;
	uint64_t nr_stacks;
};

/*
 * Learn @def as the only definition of its id, replacing what was known
 * (a one-pass reader such as the plugin: the latest definition applies).
 * Returns 0, or -1 with errno set (ENOMEM), having learned nothing.
 */
int smap_deftab_set(struct smap_deftab *t, uint32_t boot,
		    const struct smap_def *def);
/*
 * Add @def, met at time @ts, to the definitions of its id in @boot (a
 * reader that has the whole trace), in any order of time. Returns as
 * smap_deftab_set().
 */
int smap_deftab_add(struct smap_deftab *t, uint32_t boot,
		    const struct smap_def *def, uint64_t ts);
/*
 * The definition of @id in @boot that applies at time @ts (a time of
 * that boot's clock): the latest at or before @ts, else the first after
 * it; NULL if @id has none there.
 */
const struct smap_stack *smap_deftab_find(const struct smap_deftab *t,
					  uint32_t boot, uint32_t id,
					  uint64_t ts);
void smap_deftab_free(struct smap_deftab *t);

/*
 * kernel_stack_boot: in a boot-mapped (persistent) instance, the buffer
 * keeps the last boot's events, and stack ids restart at each boot. The
 * kernel writes a marker on a CPU before the first id or definition of
 * a depot there (flags SMAP_BOOT_FIRST), and again each time that CPU's
 * definitions are written again after a loss. bootseg.c gives each
 * record of a buffer the boot its stack ids are of, by the markers of
 * its CPU (struct smap_boots); it is the one place that does.
 */
#define SMAP_BOOT_FIRST		0x1U

/**
 * enum smap_boot_state - what a record's place says of its boot
 * @SMAP_BOOT_NONE: the buffer has no markers: as ever, token 0
 * @SMAP_BOOT_TOKEN: of the depot of the boot's token
 * @SMAP_BOOT_EARLIER: before its CPU's FIRST marker: of an earlier
 *	boot whose marker the buffer lost
 * @SMAP_BOOT_NO_MARK: its CPU has no marker, and the buffer holds
 *	several boots
 * @SMAP_BOOT_BAD_MARK: after a malformed marker, or before the first
 *	marker of its CPU if that one is malformed
 * @SMAP_BOOT_PENDING: one pass: its CPU's first marker is not read
 *	yet, though another CPU's is
 */
enum smap_boot_state {
	SMAP_BOOT_NONE,
	SMAP_BOOT_TOKEN,
	SMAP_BOOT_EARLIER,
	SMAP_BOOT_NO_MARK,
	SMAP_BOOT_BAD_MARK,
	SMAP_BOOT_PENDING,
};

struct smap_boot {
	enum smap_boot_state state;
	uint32_t token;		/* SMAP_BOOT_TOKEN only */
};

/* A marker: from @pos on, up to its CPU's next marker. */
struct smap_boot_seg {
	uint64_t pos;
	uint32_t token;		/* 0: a malformed marker */
	uint32_t flags;
};

struct smap_boot_cpu {
	struct smap_boot_seg *segs;	/* by position */
	uint32_t nr, cap;
};

/**
 * struct smap_boots - the boot markers of one buffer, CPU by CPU
 * @token: the buffer's boot, if @nr_tokens is 1
 * @nr_tokens: the distinct boots of its markers, 2 for two or more
 *	(a malformed marker counts as one more)
 * @done: every record was met (smap_boots_done()); before, a record
 *	before its CPU's first marker is SMAP_BOOT_PENDING
 *
 * Positions are any numbers that grow in each CPU's buffer order: a
 * record's file offset in trace.dat, a line's number in trace text.
 * A zeroed struct is a buffer with no marker met.
 */
struct smap_boots {
	struct smap_boot_cpu *cpus;
	uint32_t nr_cpus;
	uint32_t token;
	uint32_t nr_tokens;
	bool done;
};

/*
 * A marker of @cpu at @pos, of the depot of @token (0: the record is
 * malformed). 0, or -1 with errno set (ENOMEM).
 */
int smap_boots_mark(struct smap_boots *b, uint32_t cpu, uint64_t pos,
		    uint32_t token, uint32_t flags);
/* Every marker was met: the rules for what precedes them now apply. */
void smap_boots_done(struct smap_boots *b);
static inline bool smap_boots_marked(const struct smap_boots *b)
{
	return b->nr_tokens;
}

/* The boot of the stack ids and definitions of @cpu at @pos. */
struct smap_boot smap_boots_find(const struct smap_boots *b, uint32_t cpu,
				 uint64_t pos);
/*
 * The deftab key of @boot: its token, or 0 for SMAP_BOOT_NONE; false if
 * its ids resolve through no definition.
 */
bool smap_boot_key(struct smap_boot boot, uint32_t *key);
void smap_boots_free(struct smap_boots *b);

/*
 * The text delta of a boot-mapped trace: this boot's kernel text minus
 * the last boot's, which the frames of its definitions need added. A
 * signed decimal or 0x hex number: 0, or -1 with the reason in @err
 * (which names no offset: these read no stream).
 */
int smap_parse_delta(const char *s, int64_t *delta, struct smap_error *err);
/*
 * The "text delta:" line of the kernel's instances/NAME/last_boot_info,
 * saved in the file @path: 0, or -1 with the reason in @err.
 */
int smap_read_last_boot_info(const char *path, int64_t *delta,
			     struct smap_error *err);
/*
 * Add @delta to @n frames of a kernel whose long is @long_size bytes;
 * the trampoline mark and 0 are not addresses.
 */
void smap_relocate(uint64_t *addrs, uint32_t n, int64_t delta,
		   uint32_t long_size);

#endif /* _LIBSTACKMAP_H */
