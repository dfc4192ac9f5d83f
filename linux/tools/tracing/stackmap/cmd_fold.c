// SPDX-License-Identifier: GPL-2.0
/*
 * "fold": folded stacks for flame graphs, from trace text or the map.
 *
 * The trace is read one line at a time (tracetext.c); memory is bounded
 * by the longest line, the map index and the distinct stacks.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "tracetext.h"

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

static const char fold_help[] =
	"Usage: stackmap fold --map FILE [options] [TRACE|-]\n"
	"\n"
	"Print folded stacks (\"comm;root;...;leaf count\") for flamegraph.pl and\n"
	"speedscope. With TRACE, count its events: stack ids and full \"<stack\n"
	"trace>\" stacks alike, under the comm of their own line (else of the\n"
	"event line before them); stale and unknown ids count as\n"
	"\"comm;[stale stack_id]\" and \"comm;[unknown stack_id]\", and every id\n"
	"of a trace with boot markers (a boot-mapped instance) as\n"
	"\"comm;[boot-marked stack_id]\": the map does not say which boot it is\n"
	"from. Without TRACE, count each stack of the map by its ref count,\n"
	"without a comm.\n"
	"\n"
	"  -m, --map FILE       the stack_map_bin\n"
	"  -k, --kallsyms FILE  symbolize with a saved /proc/kallsyms\n"
	"      --sym-offset     keep \"+off/size\" in frame names\n"
	"  -h, --help           this text\n";

int cmd_fold(int argc, char **argv)
{
	struct counts ids = { }, out = { };
	struct fold_buf buf = { };
	struct trace_inputs t;
	bool boot_marked = false;
	struct smap_error err;
	size_t i;
	int ret;
	FILE *in;

	ret = open_trace_inputs(&t, argc, argv, "fold", fold_help);
	if (ret)
		return ret;

	if (!t.o.trace) {
		struct fold_map_ctx ctx = {
			.counts = &out, .buf = &buf, .ks = t.ks,
			.flags = t.o.sym_flags,
		};

		ret = smap_index_foreach(&t.ix, fold_map_record, &ctx, &err);
		if (ret == -1) {
			ret = report(t.o.map, &err);
			goto out;
		}
		goto print;
	}

	in = open_trace(t.o.trace);
	if (!in) {
		ret = EXIT_FAILURE;
		goto out;
	}
	ret = fold_trace(in, &ids, &out, t.o.sym_flags, &boot_marked);
	if (!ret && boot_marked)
		warn_map_boot_marked(t.o.map);
	if (!ret && ferror(in)) {
		fprintf(stderr, "stackmap: %s: %s\n", t.o.trace,
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
		if (boot_marked) {
			buf.len = 0;
			ret = fold_append(&buf, "", comm, strlen(comm));
			ret = ret ?: fold_append(&buf, ";",
						 "[boot-marked stack_id]", 22);
			ret = ret ?: counts_add(&out, buf.s, ids.vals[i]);
			continue;
		}
		switch (smap_index_lookup(&t.ix, id, &rec)) {
		case SMAP_FOUND:
			ret = fold_record(&buf, comm, &rec, t.ks,
					  t.o.sym_flags);
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
	close_trace_inputs(&t);
	return ret;
}
