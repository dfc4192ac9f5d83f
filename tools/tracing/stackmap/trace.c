// SPDX-License-Identifier: GPL-2.0
/*
 * "expand" and "fold": the subcommands that read trace text.
 *
 * Both read the output of the trace or trace_pipe file (or of trace-cmd
 * report) one line at a time; memory is bounded by the longest line, the
 * map index and, for fold, the distinct stacks.
 *
 * A stack id appears as "<stack_id 0x%08x>" (kernel_stack_id's print
 * format), at the end of a line that has the usual context prefix
 * ("comm-pid [cpu] flags timestamp: ") unless context-info is off.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define STACK_ID_TAG	"<stack_id 0x"
#define STACK_TRACE_TAG	"<stack trace>"
#define FRAME_TAG	" => "

/* The "<stack_id 0x...>" token of @line, or NULL; sets @id and @end. */
static const char *find_stack_id(const char *line, uint32_t *id,
				 const char **end)
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

/*
 * The comm of a line with a context prefix: "  comm-pid [cpu]" or, with
 * record-tgid, "  comm-pid (tgid) [cpu]". A comm may hold '-' and spaces,
 * so take the leftmost "-digits" that is followed by the cpu field.
 */
static bool parse_comm(const char *line, char *comm, size_t len)
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

struct trace_opts {
	const char *map;
	const char *kallsyms;
	const char *trace;
	unsigned int sym_flags;
};

static void parse_trace_opts(int argc, char **argv, const char *cmd,
			     const char *help, struct trace_opts *o)
{
	static const struct option opts[] = {
		{ "map", required_argument, NULL, 'm' },
		{ "kallsyms", required_argument, NULL, 'k' },
		{ "sym-offset", no_argument, NULL, 'O' },
		{ "sym-addr", no_argument, NULL, 'A' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	int c;

	memset(o, 0, sizeof(*o));
	while ((c = getopt_long(argc, argv, "m:k:h", opts, NULL)) != -1) {
		switch (c) {
		case 'm':
			o->map = optarg;
			break;
		case 'k':
			o->kallsyms = optarg;
			break;
		case 'O':
			o->sym_flags |= SMAP_SYM_OFFSET;
			break;
		case 'A':
			if (strcmp(cmd, "expand"))
				die_usage(cmd);
			o->sym_flags |= SMAP_SYM_ADDR;
			break;
		case 'h':
			fputs(help, stdout);
			exit(EXIT_SUCCESS);
		default:
			die_usage(cmd);
		}
	}
	if (optind < argc - 1) {
		fprintf(stderr, "stackmap %s: expected at most one TRACE\n",
			cmd);
		die_usage(cmd);
	}
	if (!o->map) {
		fprintf(stderr, "stackmap %s: --map FILE is required\n", cmd);
		die_usage(cmd);
	}
	o->trace = optind < argc ? argv[optind] : NULL;
}

static int open_map(const struct trace_opts *o, struct smap_index *ix)
{
	struct smap_error err;
	FILE *f;

	f = smap_open_seekable(o->map, &err);
	if (!f)
		return report(o->map, &err);
	if (smap_index_open(ix, f, &err))
		return report(o->map, &err);
	if (!(ix->hdr.flags & TRACE_STACKMAP_BIN_ADDRS) && ix->hdr.nr_records)
		fprintf(stderr,
			"stackmap: %s: addresses are hidden (flags bit 0 clear): read stack_map_bin with CAP_SYSLOG\n",
			o->map);
	return 0;
}

static FILE *open_trace(const char *path)
{
	FILE *f;

	if (!path || !strcmp(path, "-"))
		return stdin;
	f = fopen(path, "r");
	if (!f)
		fprintf(stderr, "stackmap: %s: %s\n", path, strerror(errno));
	return f;
}

/* expand */

static const char expand_help[] =
	"Usage: stackmap expand --map FILE [options] [TRACE|-]\n"
	"\n"
	"Copy trace or trace_pipe text, replacing each \"<stack_id 0x...>\" with\n"
	"\"<stack trace>\" and \" => symbol\" lines, exactly as the kernel prints a\n"
	"full stack. An id of another generation is left as it is and marked\n"
	"\" [stale]\", an id missing from the map \" [unknown]\".\n"
	"\n"
	"  -m, --map FILE       the stack_map_bin the ids were issued by\n"
	"  -k, --kallsyms FILE  symbolize with a saved /proc/kallsyms; else\n"
	"                       addresses are printed as the kernel prints an\n"
	"                       address that has no symbol\n"
	"      --sym-offset     \"symbol+off/size\", as the sym-offset trace option\n"
	"      --sym-addr       append \" <address>\", as the sym-addr trace option\n"
	"  -h, --help           this text\n";

int cmd_expand(int argc, char **argv)
{
	unsigned long nr_stale = 0, nr_unknown = 0;
	struct ksyms ksbuf, *ks;
	struct smap_index ix;
	struct smap_record rec;
	struct trace_opts o;
	size_t cap = 0;
	char *line = NULL;
	char sym[512];
	int ret;
	FILE *in;

	parse_trace_opts(argc, argv, "expand", expand_help, &o);
	ret = load_kallsyms(&ksbuf, o.kallsyms, &ks);
	if (ret)
		return ret;
	ret = open_map(&o, &ix);
	if (ret)
		goto out_ks;
	in = open_trace(o.trace);
	if (!in) {
		ret = EXIT_FAILURE;
		goto out_ix;
	}
	while (getline(&line, &cap, in) > 0) {
		const char *tag, *end;
		uint32_t id, i;

		tag = find_stack_id(line, &id, &end);
		if (!tag) {
			fputs(line, stdout);
			continue;
		}
		switch (smap_index_lookup(&ix, id, &rec)) {
		case SMAP_FOUND:
			fwrite(line, 1, tag - line, stdout);
			fputs(STACK_TRACE_TAG, stdout);
			fputs(end, stdout);
			if (!strchr(end, '\n'))
				putchar('\n');
			for (i = 0; i < rec.depth; i++) {
				smap_format_frame(sym, sizeof(sym), ks,
						  rec.addrs[i], SMAP_SYM_TRACE,
						  o.sym_flags);
				printf(FRAME_TAG "%s\n", sym);
			}
			continue;
		case SMAP_STALE:
			nr_stale++;
			fwrite(line, 1, end - line, stdout);
			fputs(" [stale]", stdout);
			break;
		case SMAP_UNKNOWN:
			nr_unknown++;
			fwrite(line, 1, end - line, stdout);
			fputs(" [unknown]", stdout);
			break;
		}
		fputs(end, stdout);
	}
	if (ferror(in)) {
		fprintf(stderr, "stackmap: %s: %s\n", o.trace ? o.trace : "-",
			strerror(errno));
		ret = EXIT_FAILURE;
	}
	if (nr_stale || nr_unknown)
		fprintf(stderr,
			"stackmap: %lu stale and %lu unknown stack ids left unexpanded (map generation %u)\n",
			nr_stale, nr_unknown, ix.hdr.generation);
	free(line);
	if (in != stdin)
		fclose(in);
out_ix:
	smap_index_close(&ix);
out_ks:
	if (ks)
		ksyms_free(ks);
	return ret;
}

/* fold */

/* A string -> count table; open addressing, grows at half full. */
struct counts {
	char **keys;
	uint64_t *vals;
	size_t nr, cap;
};

static uint64_t hash_str(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	return h;
}

static int counts_add(struct counts *c, const char *key, uint64_t n);

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

static int counts_add(struct counts *c, const char *key, uint64_t n)
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

static void counts_free(struct counts *c)
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

static void counts_print(struct counts *c)
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

/* A growing string for one folded stack. */
struct fold_buf {
	char *s;
	size_t len, cap;
};

static int fold_append(struct fold_buf *b, const char *sep, const char *s,
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

static int fold_record(struct fold_buf *b, const char *comm,
		       const struct smap_record *rec, const struct ksyms *ks,
		       unsigned int flags)
{
	char sym[512];
	uint32_t i;
	int ret = 0;

	b->len = 0;
	if (comm)
		ret = fold_append(b, "", comm, strlen(comm));
	for (i = rec->depth; i-- > 0 && !ret;) {
		smap_format_frame(sym, sizeof(sym), ks, rec->addrs[i],
				  SMAP_SYM_TRACE, flags & SMAP_SYM_OFFSET);
		ret = fold_append(b, b->len ? ";" : "", sym, strlen(sym));
	}
	return ret;
}

struct fold_map_ctx {
	struct counts *counts;
	struct fold_buf *buf;
	const struct ksyms *ks;
	unsigned int flags;
};

static int fold_map_record(void *arg, const struct smap_record *rec)
{
	struct fold_map_ctx *ctx = arg;

	if (!rec->refs)
		return 0;
	if (fold_record(ctx->buf, NULL, rec, ctx->ks, ctx->flags) ||
	    counts_add(ctx->counts, ctx->buf->s, rec->refs))
		return -2;
	return 0;
}

/* Events of the trace: ids are counted as "comm\x01id" until the end. */
static int fold_trace(FILE *in, struct counts *ids, struct counts *full,
		      unsigned int flags)
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
		tag = find_stack_id(line, &id, &end);
		if (tag) {
			/* The event line before the id names the task. */
			if (!strcmp(comm, "[unknown]") &&
			    parse_comm(line, line_comm, sizeof(line_comm)))
				snprintf(comm, sizeof(comm), "%s", line_comm);
			snprintf(key, sizeof(key), "%s\x01%08x", comm, id);
			ret = counts_add(ids, key, 1);
			continue;
		}
		if (strstr(line, STACK_TRACE_TAG)) {
			if (!strcmp(comm, "[unknown]") &&
			    parse_comm(line, line_comm, sizeof(line_comm)))
				snprintf(comm, sizeof(comm), "%s", line_comm);
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

static const char fold_help[] =
	"Usage: stackmap fold --map FILE [options] [TRACE|-]\n"
	"\n"
	"Print folded stacks (\"comm;root;...;leaf count\") for flamegraph.pl and\n"
	"speedscope. With TRACE, count its events: stack ids and full \"<stack\n"
	"trace>\" stacks alike, under the comm of the event line before them;\n"
	"stale and unknown ids count as \"comm;[stale stack_id]\" and\n"
	"\"comm;[unknown stack_id]\". Without TRACE, count each stack of the\n"
	"map by its ref count, without a comm.\n"
	"\n"
	"  -m, --map FILE       the stack_map_bin\n"
	"  -k, --kallsyms FILE  symbolize with a saved /proc/kallsyms\n"
	"      --sym-offset     keep \"+off/size\" in frame names\n"
	"  -h, --help           this text\n";

int cmd_fold(int argc, char **argv)
{
	struct counts ids = { }, out = { };
	struct fold_buf buf = { };
	struct ksyms ksbuf, *ks;
	struct smap_index ix;
	struct smap_error err;
	struct trace_opts o;
	size_t i;
	int ret;
	FILE *in;

	parse_trace_opts(argc, argv, "fold", fold_help, &o);
	ret = load_kallsyms(&ksbuf, o.kallsyms, &ks);
	if (ret)
		return ret;
	ret = open_map(&o, &ix);
	if (ret)
		goto out_ks;

	if (!o.trace) {
		struct fold_map_ctx ctx = {
			.counts = &out, .buf = &buf, .ks = ks,
			.flags = o.sym_flags,
		};

		ret = smap_index_foreach(&ix, fold_map_record, &ctx, &err);
		if (ret == -1) {
			ret = report(o.map, &err);
			goto out;
		}
		goto print;
	}

	in = open_trace(o.trace);
	if (!in) {
		ret = EXIT_FAILURE;
		goto out;
	}
	ret = fold_trace(in, &ids, &out, o.sym_flags);
	if (!ret && ferror(in)) {
		fprintf(stderr, "stackmap: %s: %s\n", o.trace,
			strerror(errno));
		ret = EXIT_FAILURE;
		goto out_in;
	}
	/* Resolve each (comm, id) once and merge equal folded stacks. */
	for (i = 0; !ret && i < ids.cap; i++) {
		struct smap_record rec;
		char *sep, comm[256];
		uint32_t id;

		if (!ids.keys[i])
			continue;
		sep = strrchr(ids.keys[i], '\x01');
		snprintf(comm, sizeof(comm), "%.*s",
			 (int)(sep - ids.keys[i]), ids.keys[i]);
		id = strtoul(sep + 1, NULL, 16);
		switch (smap_index_lookup(&ix, id, &rec)) {
		case SMAP_FOUND:
			ret = fold_record(&buf, comm, &rec, ks, o.sym_flags);
			break;
		case SMAP_STALE:
			buf.len = 0;
			ret = fold_append(&buf, "", comm, strlen(comm));
			ret = ret ?: fold_append(&buf, ";", "[stale stack_id]", 16);
			break;
		case SMAP_UNKNOWN:
			buf.len = 0;
			ret = fold_append(&buf, "", comm, strlen(comm));
			ret = ret ?: fold_append(&buf, ";", "[unknown stack_id]", 18);
			break;
		}
		ret = ret ?: counts_add(&out, buf.s, ids.vals[i]);
	}
out_in:
	if (in != stdin)
		fclose(in);
print:
	if (ret) {
		if (ret != EXIT_FAILURE)
			fprintf(stderr, "stackmap: out of memory\n");
		ret = EXIT_FAILURE;
	} else {
		counts_print(&out);
	}
out:
	free(buf.s);
	counts_free(&ids);
	counts_free(&out);
	smap_index_close(&ix);
out_ks:
	if (ks)
		ksyms_free(ks);
	return ret;
}
