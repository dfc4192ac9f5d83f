// SPDX-License-Identifier: GPL-2.0
/*
 * Reading trace text, for expand and fold: stack ids, comms and full
 * stacks, and the folded-stack counts fold gathers from them.
 *
 * The text is the output of the trace or trace_pipe file (or of trace-cmd
 * report), read one line at a time; memory is bounded by the longest
 * line and, for fold, the distinct stacks.
 */
#include "tracetext.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "libstackmap.h"

/* The "<stack_id 0x...>" token of @line, or NULL; sets @id and @end. */
const char *find_stack_id(const char *line, uint32_t *id, const char **end)
{
	const char *p = strstr(line, STACK_ID_TAG), *q;
	uint64_t v = 0;

	if (!p)
		return NULL;
	for (q = p + strlen(STACK_ID_TAG); isxdigit((unsigned char)*q); q++) {
		v = v * 16 + (isdigit((unsigned char)*q) ? *q - '0' :
			      (tolower((unsigned char)*q) - 'a' + 10));
		if (v > UINT32_MAX)
			return NULL;
	}
	if (*q != '>' || q == p + strlen(STACK_ID_TAG))
		return NULL;
	*id = v;
	*end = q + 1;
	return p;
}

/* Hex digits at *@p, and @end after them: false if there are none. */
static bool skip_hex(const char **p, char end)
{
	const char *q = *p;

	while (isxdigit((unsigned char)*q))
		q++;
	if (q == *p || *q != end)
		return false;
	*p = q + 1;
	return true;
}

bool is_stack_boot(const char *line)
{
	const char *p = strstr(line, STACK_BOOT_TAG);

	if (!p)
		return false;
	p += strlen(STACK_BOOT_TAG);
	if (!skip_hex(&p, ' ') || strncmp(p, "flags 0x", 8))
		return false;
	p += 8;
	return skip_hex(&p, '>');
}

const char *skip_undefined_mark(const char *end)
{
	static const char * const marks[] = {
		STACK_ID_NOT_YET, STACK_ID_UNDEFINED, STACK_ID_UNDEFINED_BUF,
		STACK_ID_UNDEFINED_BOOT, STACK_ID_EARLIER_BOOT,
		STACK_ID_NO_MARK, STACK_ID_BAD_MARK, STACK_ID_MARK_NOT_YET,
		STACK_ID_BOOT_MARKED,
	};
	size_t i, len;

	for (i = 0; i < ARRAY_SIZE(marks); i++) {
		len = strlen(marks[i]);
		if (!strncmp(end, marks[i], len))
			return end + len;
	}
	return end;
}

/*
 * The comm of a line with a context prefix: "  comm-pid [cpu]" or, with
 * record-tgid, "  comm-pid (tgid) [cpu]". A comm may hold '-' and spaces,
 * so take the leftmost "-digits" that is followed by the cpu field.
 */
bool parse_comm(const char *line, char *comm, size_t len)
{
	const char *start = line + strspn(line, " "), *p, *q;

	for (p = strchr(start, '-'); p; p = strchr(p + 1, '-')) {
		q = p + 1;
		if (p == start || !isdigit((unsigned char)*q))
			continue;
		q += strspn(q, "0123456789");
		if (*q != ' ')
			continue;
		q += strspn(q, " ");
		if (*q == '(') {
			q = strchr(q, ')');
			if (!q)
				return false;
			q += 1 + strspn(q + 1, " ");
		}
		if (*q != '[' || !isdigit((unsigned char)q[1]))
			continue;
		q += 1 + strspn(q + 1, "0123456789");
		if (*q != ']')
			continue;
		if ((size_t)(p - start) >= len)
			return false;
		memcpy(comm, start, p - start);
		comm[p - start] = '\0';
		return true;
	}
	return false;
}

static uint64_t hash_str(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	return h;
}

static int counts_grow(struct counts *c)
{
	struct counts old = *c;
	size_t i;

	c->cap = old.cap ? old.cap * 2 : 1024;
	c->nr = 0;
	c->keys = calloc(c->cap, sizeof(*c->keys));
	c->vals = calloc(c->cap, sizeof(*c->vals));
	if (!c->keys || !c->vals)
		return -1;
	for (i = 0; i < old.cap; i++) {
		if (!old.keys[i])
			continue;
		if (counts_add(c, old.keys[i], old.vals[i]))
			return -1;
		free(old.keys[i]);
	}
	free(old.keys);
	free(old.vals);
	return 0;
}

int counts_add(struct counts *c, const char *key, uint64_t n)
{
	size_t i;

	if (2 * (c->nr + 1) > c->cap && counts_grow(c))
		return -1;
	for (i = hash_str(key) & (c->cap - 1); c->keys[i];
	     i = (i + 1) & (c->cap - 1)) {
		if (!strcmp(c->keys[i], key)) {
			c->vals[i] += n;
			return 0;
		}
	}
	c->keys[i] = strdup(key);
	if (!c->keys[i])
		return -1;
	c->vals[i] = n;
	c->nr++;
	return 0;
}

void counts_free(struct counts *c)
{
	size_t i;

	for (i = 0; i < c->cap; i++)
		free(c->keys[i]);
	free(c->keys);
	free(c->vals);
	memset(c, 0, sizeof(*c));
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void counts_print(struct counts *c)
{
	size_t i, j = 0;
	char **keys = malloc(sizeof(*keys) * (c->nr + 1));

	if (!keys)
		return;
	for (i = 0; i < c->cap; i++)
		if (c->keys[i])
			keys[j++] = c->keys[i];
	qsort(keys, j, sizeof(*keys), cmp_str);
	for (i = 0; i < j; i++) {
		size_t k;

		/* Find the count of the key again: keys are unique. */
		for (k = hash_str(keys[i]) & (c->cap - 1);
		     strcmp(c->keys[k], keys[i]); k = (k + 1) & (c->cap - 1))
			;
		printf("%s %llu\n", keys[i], (unsigned long long)c->vals[k]);
	}
	free(keys);
}

int fold_append(struct fold_buf *b, const char *sep, const char *s,
		size_t len)
{
	size_t need = b->len + strlen(sep) + len + 1;

	if (need > b->cap) {
		char *p = realloc(b->s, need * 2);

		if (!p)
			return -1;
		b->s = p;
		b->cap = need * 2;
	}
	b->len += sprintf(b->s + b->len, "%s%.*s", sep, (int)len, s);
	return 0;
}

/* Frame names: ';' separates frames, so it may not appear in one. */
static size_t fold_frame_len(const char *frame, unsigned int flags)
{
	size_t len = strcspn(frame, "\n");

	if (!(flags & SMAP_SYM_OFFSET)) {
		const char *off = strstr(frame, "+0x");

		if (off && (size_t)(off - frame) < len)
			len = off - frame;
	}
	return len;
}

/*
 * The task of a stack: the kernel prints the stack's line with the
 * context of its event, but the event line before it may be another
 * CPU's, in a trace that merges CPUs by time. A line without a context
 * keeps @comm, the task of the event line before it.
 */
static void stack_comm(const char *line, char *comm, size_t len)
{
	char line_comm[256];

	if (parse_comm(line, line_comm, sizeof(line_comm)))
		snprintf(comm, len, "%s", line_comm);
}

/* Events of the trace: ids are counted as "comm\x01id" until the end. */
int fold_trace(FILE *in, struct counts *ids, struct counts *full,
	       unsigned int flags, bool *boot_marked)
{
	char comm[256] = "[unknown]", line_comm[256];
	struct fold_buf frames = { };
	bool in_stack = false;
	size_t cap = 0;
	char *line = NULL;
	int ret = 0;

	while (!ret && getline(&line, &cap, in) > 0) {
		const char *tag, *end;
		char key[300];
		uint32_t id;

		if (in_stack && !strncmp(line, FRAME_TAG, strlen(FRAME_TAG))) {
			const char *f = line + strlen(FRAME_TAG);
			size_t len = fold_frame_len(f, flags);
			struct fold_buf tmp = { };

			/* Frames come innermost first: prepend. */
			ret = fold_append(&tmp, "", f, len);
			if (!ret && frames.len)
				ret = fold_append(&tmp, ";", frames.s,
						  frames.len);
			free(frames.s);
			frames = tmp;
			continue;
		}
		if (in_stack) {
			struct fold_buf key_buf = { };

			in_stack = false;
			ret = fold_append(&key_buf, "", comm, strlen(comm));
			if (!ret && frames.len)
				ret = fold_append(&key_buf, ";", frames.s,
						  frames.len);
			if (!ret)
				ret = counts_add(full, key_buf.s, 1);
			free(key_buf.s);
			frames.len = 0;
			if (ret)
				break;
		}
		if (line[0] == '#')
			continue;
		if (is_stack_boot(line))
			*boot_marked = true;
		tag = find_stack_id(line, &id, &end);
		if (tag) {
			stack_comm(line, comm, sizeof(comm));
			snprintf(key, sizeof(key), "%s\x01%08x", comm, id);
			ret = counts_add(ids, key, 1);
			continue;
		}
		if (strstr(line, STACK_TRACE_TAG)) {
			stack_comm(line, comm, sizeof(comm));
			in_stack = true;
			frames.len = 0;
			continue;
		}
		if (parse_comm(line, line_comm, sizeof(line_comm)))
			snprintf(comm, sizeof(comm), "%s", line_comm);
		else
			snprintf(comm, sizeof(comm), "[unknown]");
	}
	if (!ret && in_stack) {
		struct fold_buf key_buf = { };

		ret = fold_append(&key_buf, "", comm, strlen(comm));
		if (!ret && frames.len)
			ret = fold_append(&key_buf, ";", frames.s, frames.len);
		if (!ret)
			ret = counts_add(full, key_buf.s, 1);
		free(key_buf.s);
	}
	free(frames.s);
	free(line);
	return ret;
}
