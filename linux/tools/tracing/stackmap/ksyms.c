// SPDX-License-Identifier: GPL-2.0
/*
 * Symbolizer over a saved /proc/kallsyms.
 *
 * The kernel prints a frame with sprint_symbol() (%pS in stack_map) or
 * seq_print_ip_sym() (the trace file). Both find the symbol at or below
 * the address, taking the first of several aliases in kallsyms order, and
 * give it the size up to the next higher symbol. Doing the same on the
 * sorted list of /proc/kallsyms reproduces their output; module symbols
 * are an approximation, as their sizes come from the module's own table.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "libstackmap.h"

static int ksym_cmp(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* Equal addresses: keep file order, which is the kernel's order. */
	return x->name < y->name ? -1 : x->name > y->name;
}

static uint32_t ksyms_intern(struct ksyms *ks, size_t *cap, const char *s,
			     size_t len)
{
	uint32_t at = ks->pool_len;

	if (ks->pool_len + len + 1 > *cap) {
		size_t ncap = *cap ? *cap * 2 : 1 << 20;
		char *p;

		while (ncap < ks->pool_len + len + 1)
			ncap *= 2;
		p = realloc(ks->pool, ncap);
		if (!p)
			return UINT32_MAX;
		ks->pool = p;
		*cap = ncap;
	}
	memcpy(ks->pool + at, s, len);
	ks->pool[at + len] = '\0';
	ks->pool_len += len + 1;
	return at;
}

/* Parse "addr type name[\t[module]]"; false if the line is malformed. */
static bool ksyms_parse(char *line, uint64_t *addr, char **name,
			size_t *name_len, char **mod, size_t *mod_len)
{
	char *end;

	errno = 0;
	*addr = strtoull(line, &end, 16);
	if (errno || end == line || *end != ' ')
		return false;
	line = end + 1;
	if (!*line || line[1] != ' ')
		return false;
	line += 2;
	*name = line;
	*name_len = strcspn(line, " \t\n");
	if (!*name_len)
		return false;
	line += *name_len;
	line += strspn(line, " \t");
	*mod = NULL;
	*mod_len = 0;
	if (*line == '[') {
		*mod = line + 1;
		*mod_len = strcspn(*mod, "]\n");
	}
	return true;
}

/**
 * ksyms_load() - read a saved /proc/kallsyms
 * @ks: the symbols
 * @path: the file
 * @err: the error, if any
 *
 * Return: 0, or -1 with @err set: unreadable, malformed, or all addresses
 * zero (saved by a reader kptr_restrict hides them from).
 */
int ksyms_load(struct ksyms *ks, const char *path, struct smap_error *err)
{
	size_t cap = 0, pool_cap = 0, len = 0, lineno = 0, i;
	char *line = NULL;
	bool nonzero = false;
	FILE *f;

	memset(ks, 0, sizeof(*ks));
	f = fopen(path, "r");
	if (!f) {
		snprintf(err->msg, sizeof(err->msg), "%s", strerror(errno));
		return -1;
	}
	/* Offset 0 of the pool is "", the name of the core kernel module. */
	if (ksyms_intern(ks, &pool_cap, "", 0) == UINT32_MAX)
		goto nomem;
	while (getline(&line, &len, f) > 0) {
		char *name, *mod;
		size_t name_len, mod_len;
		struct ksym *s;
		uint64_t addr;

		lineno++;
		if (!ksyms_parse(line, &addr, &name, &name_len, &mod, &mod_len)) {
			snprintf(err->msg, sizeof(err->msg),
				 "line %zu: not a kallsyms line", lineno);
			goto fail;
		}
		if (ks->nr == cap) {
			cap = cap ? cap * 2 : 65536;
			s = realloc(ks->syms, cap * sizeof(*s));
			if (!s)
				goto nomem;
			ks->syms = s;
		}
		s = &ks->syms[ks->nr++];
		s->addr = addr;
		s->size = 0;
		s->name = ksyms_intern(ks, &pool_cap, name, name_len);
		s->mod = mod ? ksyms_intern(ks, &pool_cap, mod, mod_len) : 0;
		if (s->name == UINT32_MAX || s->mod == UINT32_MAX)
			goto nomem;
		nonzero |= addr != 0;
		if (!mod && name_len == 22 &&
		    !memcmp(name, "__kretprobe_trampoline", 22))
			ks->kretprobe_tramp = addr;
	}
	if (ferror(f)) {
		snprintf(err->msg, sizeof(err->msg), "read error: %s",
			 strerror(errno));
		goto fail;
	}
	if (!nonzero) {
		snprintf(err->msg, sizeof(err->msg),
			 "no symbol addresses (saved without CAP_SYSLOG or with kptr_restrict?)");
		goto fail;
	}
	qsort(ks->syms, ks->nr, sizeof(*ks->syms), ksym_cmp);
	/*
	 * A symbol ends where the next one starts, but not across the end of
	 * the kernel's or a module's symbols: the kernel knows where those
	 * end and we do not, so an address past the last symbol of one stays
	 * unresolved rather than being given to it.
	 */
	for (i = ks->nr; i-- > 0;) {
		struct ksym *s = &ks->syms[i], *next = s + 1;

		if (i + 1 == ks->nr)
			continue;
		if (next->addr == s->addr)
			s->size = next->size;
		else if (!strcmp(ks->pool + next->mod, ks->pool + s->mod))
			s->size = next->addr - s->addr;
	}
	free(line);
	fclose(f);
	return 0;
nomem:
	snprintf(err->msg, sizeof(err->msg), "out of memory");
fail:
	free(line);
	fclose(f);
	ksyms_free(ks);
	return -1;
}

void ksyms_free(struct ksyms *ks)
{
	free(ks->syms);
	free(ks->pool);
	memset(ks, 0, sizeof(*ks));
}

/* The first symbol of the highest address <= @ip that covers @ip. */
static const struct ksym *ksyms_find(const struct ksyms *ks, uint64_t ip)
{
	size_t lo = 0, hi = ks ? ks->nr : 0;
	const struct ksym *s;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ks->syms[mid].addr <= ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	s = &ks->syms[lo - 1];
	while (s > ks->syms && s[-1].addr == s->addr)
		s--;
	if (ip - s->addr >= s->size)
		return NULL;
	return s;
}

/* "0x" and @v in hex, at least @digits digits; the dump hot path. */
static int put_hex(char *buf, size_t len, uint64_t v, int digits)
{
	static const char hex[] = "0123456789abcdef";
	char tmp[16];
	int n = 0, i;

	do {
		tmp[n++] = hex[v & 0xf];
		v >>= 4;
	} while (v || n < digits);
	if ((size_t)n + 3 > len)
		return snprintf(buf, len, "0x");
	buf[0] = '0';
	buf[1] = 'x';
	for (i = 0; i < n; i++)
		buf[2 + i] = tmp[n - 1 - i];
	buf[2 + n] = '\0';
	return n + 2;
}

/**
 * smap_format_frame() - print one frame as the kernel does
 * @buf: the result, NUL-terminated
 * @len: size of @buf
 * @ks: the symbols, or NULL
 * @ip: the address
 * @style: %SMAP_SYM_PS (%pS) or %SMAP_SYM_TRACE (seq_print_ip_sym())
 * @flags: %SMAP_SYM_OFFSET and %SMAP_SYM_ADDR, for %SMAP_SYM_TRACE
 */
void smap_format_frame(char *buf, size_t len, const struct ksyms *ks,
		       uint64_t ip, enum smap_sym_style style,
		       unsigned int flags)
{
	const struct ksym *s;
	int n;

	if (ip == SMAP_TRAMPOLINE) {
		snprintf(buf, len, "[FTRACE TRAMPOLINE]");
		return;
	}
	if (style == SMAP_SYM_TRACE && !ip) {
		snprintf(buf, len, "0");
		return;
	}
	if (style == SMAP_SYM_PS)
		flags = SMAP_SYM_OFFSET;

	s = ksyms_find(ks, ip);
	if (style == SMAP_SYM_TRACE && ks && ks->kretprobe_tramp == ip && ip)
		n = snprintf(buf, len, "[unknown/kretprobe'd]");
	else if (!s)
		n = put_hex(buf, len, ip, style == SMAP_SYM_PS ? 1 : 8);
	else if (!(flags & SMAP_SYM_OFFSET))
		n = snprintf(buf, len, "%s", ks->pool + s->name);
	else if (s->mod)
		n = snprintf(buf, len, "%s+0x%llx/0x%llx [%s]",
			     ks->pool + s->name,
			     (unsigned long long)(ip - s->addr),
			     (unsigned long long)s->size, ks->pool + s->mod);
	else
		n = snprintf(buf, len, "%s+0x%llx/0x%llx", ks->pool + s->name,
			     (unsigned long long)(ip - s->addr),
			     (unsigned long long)s->size);
	if (n < 0 || (size_t)n >= len)
		return;
	if (style == SMAP_SYM_TRACE && (flags & SMAP_SYM_ADDR))
		snprintf(buf + n, len - n, " <%016llx>",
			 (unsigned long long)ip);
}
