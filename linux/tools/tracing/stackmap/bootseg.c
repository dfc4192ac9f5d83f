// SPDX-License-Identifier: GPL-2.0
/*
 * The boot of each record of a boot-mapped buffer, by the
 * kernel_stack_boot markers of its CPU; and the text delta that moves
 * the last boot's frames onto this boot's symbols.
 *
 * A buffer kept across a reboot holds, on each CPU, the last boot's
 * events and then this boot's, and ids restart at each boot: the same
 * id is another stack in each. On each CPU, the events after a marker
 * up to the next are of the marker's boot. What comes before a CPU's
 * first marker is of an earlier boot whose marker was lost if that
 * marker is FIRST (nothing of a depot comes before its FIRST marker on
 * a CPU), else of that marker's boot. A CPU without markers is of the
 * buffer's boot if it holds one, else of none that can be told. Every
 * reader asks here, so that the rules live in one place; an id of no
 * boot that can be told never resolves, which is the point: no id of
 * one boot resolves to another boot's stack.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "libstackmap.h"

static struct smap_boot_cpu *boots_cpu(struct smap_boots *b, uint32_t cpu)
{
	struct smap_boot_cpu *c;

	if (cpu >= b->nr_cpus) {
		if (cpu >= 65536) {
			errno = ENOMEM;
			return NULL;
		}
		c = realloc(b->cpus, (cpu + 1) * sizeof(*c));
		if (!c)
			return NULL;
		memset(c + b->nr_cpus, 0, (cpu + 1 - b->nr_cpus) * sizeof(*c));
		b->cpus = c;
		b->nr_cpus = cpu + 1;
	}
	return &b->cpus[cpu];
}

/* The index of the first segment of @c after @pos. */
static uint32_t seg_after(const struct smap_boot_cpu *c, uint64_t pos)
{
	uint32_t lo = 0, hi = c->nr;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (c->segs[mid].pos <= pos)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int smap_boots_mark(struct smap_boots *b, uint32_t cpu, uint64_t pos,
		    uint32_t token, uint32_t flags)
{
	struct smap_boot_cpu *c = boots_cpu(b, cpu);
	struct smap_boot_seg *s;
	uint32_t at;

	if (!c)
		return -1;
	if (c->nr == c->cap) {
		if (c->cap > UINT32_MAX / 2) {
			errno = ENOMEM;
			return -1;
		}
		s = realloc(c->segs, (c->cap ? 2 * c->cap : 4) * sizeof(*s));
		if (!s)
			return -1;
		c->segs = s;
		c->cap = c->cap ? 2 * c->cap : 4;
	}
	/* In order, but for a one-pass reader that meets several buffers. */
	at = seg_after(c, pos);
	memmove(c->segs + at + 1, c->segs + at,
		(c->nr - at) * sizeof(c->segs[0]));
	c->segs[at].pos = pos;
	c->segs[at].token = token;
	c->segs[at].flags = flags;
	c->nr++;
	if (!b->nr_tokens) {
		b->token = token;
		b->nr_tokens = 1;
	} else if (!token || token != b->token) {
		b->nr_tokens = 2;
	}
	return 0;
}

void smap_boots_done(struct smap_boots *b)
{
	b->done = true;
}

static struct smap_boot boot_of(const struct smap_boot_seg *s)
{
	struct smap_boot boot = { SMAP_BOOT_TOKEN, s->token };

	if (!s->token)
		boot.state = SMAP_BOOT_BAD_MARK;
	return boot;
}

struct smap_boot smap_boots_find(const struct smap_boots *b, uint32_t cpu,
				 uint64_t pos)
{
	struct smap_boot boot = { SMAP_BOOT_NONE, 0 };
	const struct smap_boot_cpu *c;
	uint32_t at;

	if (!b->nr_tokens)
		return boot;
	c = cpu < b->nr_cpus ? &b->cpus[cpu] : NULL;
	if (c && c->nr) {
		at = seg_after(c, pos);
		if (at)
			return boot_of(&c->segs[at - 1]);
		/* Before the CPU's first marker. */
		boot = boot_of(&c->segs[0]);
		if (boot.state == SMAP_BOOT_TOKEN &&
		    (c->segs[0].flags & SMAP_BOOT_FIRST))
			boot.state = SMAP_BOOT_EARLIER;
		return boot;
	}
	if (!b->done) {
		boot.state = SMAP_BOOT_PENDING;
	} else if (b->nr_tokens == 1 && b->token) {
		boot.state = SMAP_BOOT_TOKEN;
		boot.token = b->token;
	} else {
		boot.state = SMAP_BOOT_NO_MARK;
	}
	return boot;
}

bool smap_boot_key(struct smap_boot boot, uint32_t *key)
{
	switch (boot.state) {
	case SMAP_BOOT_NONE:
		*key = 0;
		return true;
	case SMAP_BOOT_TOKEN:
		*key = boot.token;
		return true;
	default:
		return false;
	}
}

void smap_boots_free(struct smap_boots *b)
{
	uint32_t i;

	for (i = 0; i < b->nr_cpus; i++)
		free(b->cpus[i].segs);
	free(b->cpus);
	memset(b, 0, sizeof(*b));
}

int smap_parse_delta(const char *s, int64_t *delta, struct smap_error *err)
{
	const char *p = s;
	uint64_t v = 0, max;
	bool neg = false;
	unsigned int base = 10, d;

	if (*p == '-' || *p == '+')
		neg = *p++ == '-';
	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
		base = 16;
		p += 2;
	}
	max = neg ? (uint64_t)INT64_MAX + 1 : INT64_MAX;
	if (!*p)
		goto bad;
	for (; *p; p++) {
		if (*p >= '0' && *p <= '9')
			d = *p - '0';
		else if (base == 16 && *p >= 'a' && *p <= 'f')
			d = *p - 'a' + 10;
		else if (base == 16 && *p >= 'A' && *p <= 'F')
			d = *p - 'A' + 10;
		else
			goto bad;
		if (v > (max - d) / base) {
			snprintf(err->msg, sizeof(err->msg), "out of range");
			return -1;
		}
		v = v * base + d;
	}
	*delta = neg ? (int64_t)(0 - v) : (int64_t)v;
	return 0;
bad:
	snprintf(err->msg, sizeof(err->msg),
		 "not a signed decimal or 0x hex number");
	return -1;
}

int smap_read_last_boot_info(const char *path, int64_t *delta,
			     struct smap_error *err)
{
	static const char tag[] = "text delta:";
	FILE *f = fopen(path, "r");
	char line[256], *p, *end;
	struct smap_error why;
	int ret = -1;

	if (!f) {
		snprintf(err->msg, sizeof(err->msg), "%s", strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, tag, strlen(tag)))
			continue;
		p = line + strlen(tag);
		p += strspn(p, " \t");
		end = p + strcspn(p, "\n");
		*end = '\0';
		ret = smap_parse_delta(p, delta, &why);
		if (ret)
			snprintf(err->msg, sizeof(err->msg),
				 "\"text delta:\" '%.64s': %.100s", p,
				 why.msg);
		goto out;
	}
	if (ferror(f))
		snprintf(err->msg, sizeof(err->msg), "%s", strerror(errno));
	else
		snprintf(err->msg, sizeof(err->msg),
			 "no \"text delta:\" line (the buffer is not of the last boot)");
out:
	fclose(f);
	return ret;
}

void smap_relocate(uint64_t *addrs, uint32_t n, int64_t delta,
		   uint32_t long_size)
{
	uint64_t mask = long_size < 8 ? 0xffffffffULL : UINT64_MAX;
	uint32_t i;

	for (i = 0; i < n; i++)
		if (addrs[i] && addrs[i] != SMAP_TRAMPOLINE)
			addrs[i] = (addrs[i] + (uint64_t)delta) & mask;
}
