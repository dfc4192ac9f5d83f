// SPDX-License-Identifier: GPL-2.0
/*
 * The pprof writer (pprof.h). The protobuf wire format is small enough
 * to write by hand: a field is a key (its number << 3 | its wire type)
 * and a value, a varint (type 0) or a length-delimited byte string (type
 * 2) for strings, embedded messages and packed repeated numbers. The
 * numbers of the fields are those of profile.proto:
 *
 *   Profile:   sample_type 1, sample 2, location 4, function 5,
 *              string_table 6, time_nanos 9, duration_nanos 10,
 *              period_type 11, period 12, comment 13,
 *              default_sample_type 14
 *   ValueType: type 1, unit 2 (indexes in the string table)
 *   Sample:    location_id 1 (packed), value 2 (packed)
 *   Location:  id 1, address 3, line 4
 *   Line:      function_id 1
 *   Function:  id 1, name 2, system_name 3
 *
 * The string table starts with "", as the format requires.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "pprof.h"

enum { WIRE_VARINT = 0, WIRE_LEN = 2 };

#define PPROF_CHUNK	(1024U * 1024)

/* A growing buffer of encoded bytes; @fail once an allocation failed. */
struct pbuf {
	uint8_t *p;
	size_t len, cap;
	bool fail;
};

static void pb_put(struct pbuf *b, const void *data, size_t len)
{
	size_t cap;
	uint8_t *p;

	if (b->fail)
		return;
	if (b->len + len > b->cap) {
		cap = b->cap ? b->cap : 256;
		while (cap < b->len + len)
			cap *= 2;
		p = realloc(b->p, cap);
		if (!p) {
			b->fail = true;
			return;
		}
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->len, data, len);
	b->len += len;
}

static void pb_varint(struct pbuf *b, uint64_t v)
{
	uint8_t buf[10];
	size_t n = 0;

	do {
		buf[n] = v & 0x7f;
		v >>= 7;
		if (v)
			buf[n] |= 0x80;
		n++;
	} while (v);
	pb_put(b, buf, n);
}

/* A varint field; a zero, the default, is left out. */
static void pb_uint(struct pbuf *b, unsigned int field, uint64_t v)
{
	if (!v)
		return;
	pb_varint(b, field << 3 | WIRE_VARINT);
	pb_varint(b, v);
}

static void pb_bytes(struct pbuf *b, unsigned int field, const void *data,
		     size_t len)
{
	pb_varint(b, field << 3 | WIRE_LEN);
	pb_varint(b, len);
	pb_put(b, data, len);
}

/* An embedded message, then emptied for the next one. */
static void pb_msg(struct pbuf *b, unsigned int field, struct pbuf *msg)
{
	if (msg->fail)
		b->fail = true;
	pb_bytes(b, field, msg->p, msg->len);
	msg->len = 0;
}

/*
 * Distinct byte strings, numbered from 0 in the order met: the string
 * table, the functions (by name) and the locations (by address and
 * function). Open addressing, grown at half full.
 */
struct intern {
	char **keys;		/* the NUL-terminated key after its length */
	size_t *slots;		/* index + 1, 0: free */
	size_t nr, cap;
};

static uint64_t hash_bytes(const void *data, size_t len)
{
	const uint8_t *p = data;
	uint64_t h = 0xcbf29ce484222325ULL;

	while (len--) {
		h ^= *p++;
		h *= 0x100000001b3ULL;
	}
	return h;
}

static bool key_is(const char *key, const void *data, size_t len)
{
	size_t klen;

	memcpy(&klen, key, sizeof(klen));
	return klen == len && !memcmp(key + sizeof(klen), data, len);
}

static size_t *intern_slot(const struct intern *t, size_t *slots, size_t cap,
			   const void *data, size_t len)
{
	size_t i = hash_bytes(data, len) & (cap - 1);

	while (slots[i] && !key_is(t->keys[slots[i] - 1], data, len))
		i = (i + 1) & (cap - 1);
	return &slots[i];
}

static int intern_grow(struct intern *t)
{
	size_t cap = t->cap ? t->cap * 2 : 64, i, klen;
	size_t *slots = calloc(cap, sizeof(*slots));
	char **keys = realloc(t->keys, cap / 2 * sizeof(*keys));

	if (!slots || !keys) {
		free(slots);
		if (keys)
			t->keys = keys;
		return -1;
	}
	t->keys = keys;
	for (i = 0; i < t->nr; i++) {
		memcpy(&klen, keys[i], sizeof(klen));
		*intern_slot(t, slots, cap, keys[i] + sizeof(klen), klen) =
			i + 1;
	}
	free(t->slots);
	t->slots = slots;
	t->cap = cap;
	return 0;
}

/* The index of @data; *@added if new. -1 if out of memory. */
static int64_t intern(struct intern *t, const void *data, size_t len,
		      bool *added)
{
	size_t *slot;
	char *key;

	*added = false;
	if (t->cap) {
		slot = intern_slot(t, t->slots, t->cap, data, len);
		if (*slot)
			return *slot - 1;
	}
	if (2 * (t->nr + 1) > t->cap && intern_grow(t))
		return -1;
	key = malloc(sizeof(len) + len + 1);
	if (!key)
		return -1;
	memcpy(key, &len, sizeof(len));
	memcpy(key + sizeof(len), data, len);
	key[sizeof(len) + len] = '\0';
	t->keys[t->nr] = key;
	*intern_slot(t, t->slots, t->cap, data, len) = ++t->nr;
	*added = true;
	return t->nr - 1;
}

static void intern_free(struct intern *t)
{
	size_t i;

	for (i = 0; i < t->nr; i++)
		free(t->keys[i]);
	free(t->keys);
	free(t->slots);
	memset(t, 0, sizeof(*t));
}

struct pprof {
	struct intern strings, functions, locations;
	struct pbuf sample_types, samples, locs, funcs, msg, line;
	int64_t period_type, period_unit, period;
	int64_t time_nanos, duration_nanos;
	int64_t default_type;
	struct pbuf comments;
	size_t nr_types;
	bool fail;
};

/* The index of @s in the string table; -1 if out of memory. */
static int64_t string_index(struct pprof *pp, const char *s)
{
	bool added;

	return intern(&pp->strings, s, strlen(s), &added);
}

struct pprof *pprof_new(void)
{
	struct pprof *pp = calloc(1, sizeof(*pp));

	if (pp && string_index(pp, "")) {
		pprof_free(pp);
		return NULL;
	}
	return pp;
}

void pprof_free(struct pprof *pp)
{
	if (!pp)
		return;
	intern_free(&pp->strings);
	intern_free(&pp->functions);
	intern_free(&pp->locations);
	free(pp->sample_types.p);
	free(pp->samples.p);
	free(pp->locs.p);
	free(pp->funcs.p);
	free(pp->msg.p);
	free(pp->line.p);
	free(pp->comments.p);
	free(pp);
}

int pprof_add_sample_type(struct pprof *pp, const char *type,
			  const char *unit)
{
	int64_t t = string_index(pp, type), u = string_index(pp, unit);

	if (t < 0 || u < 0)
		return -1;
	pb_uint(&pp->msg, 1, t);
	pb_uint(&pp->msg, 2, u);
	pb_msg(&pp->sample_types, 1, &pp->msg);
	pp->nr_types++;
	return pp->sample_types.fail ? -1 : 0;
}

int pprof_set_period(struct pprof *pp, const char *type, const char *unit,
		     int64_t period)
{
	pp->period_type = string_index(pp, type);
	pp->period_unit = string_index(pp, unit);
	pp->period = period;
	return pp->period_type < 0 || pp->period_unit < 0 ? -1 : 0;
}

void pprof_set_time(struct pprof *pp, int64_t time_nanos,
		    int64_t duration_nanos)
{
	pp->time_nanos = time_nanos;
	pp->duration_nanos = duration_nanos;
}

int pprof_add_comment(struct pprof *pp, const char *comment)
{
	int64_t s = string_index(pp, comment);

	if (s < 0)
		return -1;
	/* Unpacked: go tool pprof reads a repeated int64 either way. */
	pb_uint(&pp->comments, 13, s);
	return pp->comments.fail ? -1 : 0;
}

int pprof_add_comment_lines(struct pprof *pp, char *text)
{
	char *line, *save;

	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		if (pprof_add_comment(pp, line))
			return -1;
	return 0;
}

int pprof_set_default_sample_type(struct pprof *pp, const char *type)
{
	pp->default_type = string_index(pp, type);
	return pp->default_type < 0 ? -1 : 0;
}

static uint64_t function_id(struct pprof *pp, const char *name)
{
	int64_t id, s;
	bool added;

	id = intern(&pp->functions, name, strlen(name), &added);
	if (id < 0)
		return 0;
	if (added) {
		s = string_index(pp, name);
		if (s < 0)
			return 0;
		pb_uint(&pp->msg, 1, id + 1);
		pb_uint(&pp->msg, 2, s);
		pb_uint(&pp->msg, 3, s);
		pb_msg(&pp->funcs, 5, &pp->msg);
	}
	return id + 1;
}

uint64_t pprof_location(struct pprof *pp, uint64_t addr, const char *name)
{
	uint64_t key[2], fn = function_id(pp, name);
	int64_t id;
	bool added;

	if (!fn)
		return 0;
	key[0] = addr;
	key[1] = fn;
	id = intern(&pp->locations, key, sizeof(key), &added);
	if (id < 0)
		return 0;
	if (added) {
		pb_uint(&pp->line, 1, fn);
		pb_uint(&pp->msg, 1, id + 1);
		pb_uint(&pp->msg, 3, addr);
		pb_msg(&pp->msg, 4, &pp->line);
		pb_msg(&pp->locs, 4, &pp->msg);
	}
	return pp->locs.fail ? 0 : id + 1;
}

int pprof_add_sample(struct pprof *pp, const uint64_t *locs, size_t nr_locs,
		     const int64_t *values, size_t nr_values)
{
	size_t i;

	/* Packed: one length-delimited field of varints each. */
	for (i = 0; i < nr_locs; i++)
		pb_varint(&pp->line, locs[i]);
	pb_msg(&pp->msg, 1, &pp->line);
	for (i = 0; i < nr_values; i++)
		pb_varint(&pp->line, (uint64_t)values[i]);
	pb_msg(&pp->msg, 2, &pp->line);
	pb_msg(&pp->samples, 2, &pp->msg);
	return pp->samples.fail ? -1 : 0;
}

/* The whole Profile message into @out. */
static void encode(struct pprof *pp, struct pbuf *out)
{
	size_t i, len;

	pb_put(out, pp->sample_types.p, pp->sample_types.len);
	pb_put(out, pp->samples.p, pp->samples.len);
	pb_put(out, pp->locs.p, pp->locs.len);
	pb_put(out, pp->funcs.p, pp->funcs.len);
	for (i = 0; i < pp->strings.nr; i++) {
		memcpy(&len, pp->strings.keys[i], sizeof(len));
		pb_bytes(out, 6, pp->strings.keys[i] + sizeof(len), len);
	}
	pb_uint(out, 9, pp->time_nanos);
	pb_uint(out, 10, pp->duration_nanos);
	pb_uint(&pp->msg, 1, pp->period_type);
	pb_uint(&pp->msg, 2, pp->period_unit);
	pb_msg(out, 11, &pp->msg);
	pb_uint(out, 12, pp->period);
	pb_put(out, pp->comments.p, pp->comments.len);
	pb_uint(out, 14, pp->default_type);
	if (pp->comments.fail || pp->sample_types.fail || pp->samples.fail || pp->locs.fail ||
	    pp->funcs.fail || pp->msg.fail || pp->line.fail)
		out->fail = true;
}

int pprof_write(struct pprof *pp, int fd)
{
	struct pbuf out = { };
	size_t off, n = 0;
	gzFile gz;
	int ret = -1, gz_fd;

	encode(pp, &out);
	if (out.fail) {
		free(out.p);
		errno = ENOMEM;
		return -1;
	}
	/* gzclose() closes the fd it was given: the caller keeps @fd. */
	gz_fd = dup(fd);
	if (gz_fd < 0) {
		free(out.p);
		return -1;
	}
	gz = gzdopen(gz_fd, "wb");
	if (!gz) {
		free(out.p);
		close(gz_fd);
		errno = errno ?: ENOMEM;
		return -1;
	}
	errno = 0;
	/* gzwrite() takes an unsigned int's worth at a time. */
	for (off = 0; off < out.len; off += n) {
		n = out.len - off < PPROF_CHUNK ? out.len - off : PPROF_CHUNK;
		if (gzwrite(gz, out.p + off, n) != (int)n)
			break;
	}
	if (off >= out.len)
		ret = 0;
	if (gzclose(gz) != Z_OK)
		ret = -1;
	if (ret && !errno)
		errno = EIO;
	free(out.p);
	return ret;
}
