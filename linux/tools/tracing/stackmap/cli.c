// SPDX-License-Identifier: GPL-2.0
/*
 * The helpers the stackmap subcommands share: usage errors and error
 * reports, the options of the commands that read trace text, and opening
 * their inputs. They call the library and nothing of the commands.
 */
#include "cli.h"
#include "tracetext.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

void die_usage(const char *cmd)
{
	fprintf(stderr, "Try 'stackmap %s --help'.\n", cmd);
	exit(EXIT_USAGE);
}

int report(const char *what, const struct smap_error *err)
{
	fprintf(stderr, "stackmap: %s: %s\n", what, err->msg);
	return EXIT_FAILURE;
}

int load_kallsyms(struct ksyms *ks, const char *path, struct ksyms **out)
{
	struct smap_error err;

	*out = NULL;
	if (!path)
		return 0;
	if (ksyms_load(ks, path, &err))
		return report(path, &err);
	*out = ks;
	return 0;
}

/* Handle --help and the option errors shared by every command. */
int check_opt(int c, const char *cmd, const char *help)
{
	if (c == 'h') {
		fputs(help, stdout);
		exit(EXIT_SUCCESS);
	}
	die_usage(cmd);
	return 0;
}

void warn_hidden_addrs(const char *name, const struct smap_header *hdr)
{
	if (!(hdr->flags & TRACE_STACKMAP_BIN_ADDRS) && hdr->nr_records)
		fprintf(stderr,
			"stackmap: %s: addresses are hidden (flags bit 0 clear): read stack_map_bin with CAP_SYSLOG\n",
			name);
}

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
		default:
			check_opt(c, cmd, help);
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

int open_map(const char *path, struct smap_index *ix)
{
	struct smap_error err;
	FILE *f;

	f = smap_open_seekable(path, &err);
	if (!f)
		return report(path, &err);
	if (smap_index_open(ix, f, &err))
		return report(path, &err);
	warn_hidden_addrs(path, &ix->hdr);
	return 0;
}

int open_trace_inputs(struct trace_inputs *t, int argc, char **argv,
		      const char *cmd, const char *help)
{
	int ret;

	parse_trace_opts(argc, argv, cmd, help, &t->o);
	ret = load_kallsyms(&t->ksbuf, t->o.kallsyms, &t->ks);
	if (ret)
		return ret;
	ret = open_map(t->o.map, &t->ix);
	if (ret && t->ks)
		ksyms_free(t->ks);
	return ret;
}

void close_trace_inputs(struct trace_inputs *t)
{
	smap_index_close(&t->ix);
	if (t->ks)
		ksyms_free(t->ks);
}

FILE *open_trace(const char *path)
{
	FILE *f;

	if (!path || !strcmp(path, "-"))
		return stdin;
	f = fopen(path, "r");
	if (!f)
		fprintf(stderr, "stackmap: %s: %s\n", path, strerror(errno));
	return f;
}

FILE *open_trace_scanned(const char *path, bool *boot_marked)
{
	FILE *in = open_trace(path), *f = in;
	size_t cap = 0;
	char *line = NULL;
	ssize_t n;

	if (!in)
		return NULL;
	*boot_marked = false;
	/* Not a file to read twice: keep a copy to read again. */
	if (fseeko(in, 0, SEEK_CUR)) {
		f = tmpfile();
		if (!f) {
			fprintf(stderr, "stackmap: temporary file: %s\n",
				strerror(errno));
			goto fail;
		}
	}
	while ((n = getline(&line, &cap, in)) > 0) {
		if (!*boot_marked && line[0] != '#' && is_stack_boot(line))
			*boot_marked = true;
		if (f != in && fwrite(line, 1, n, f) != (size_t)n)
			break;
	}
	free(line);
	if (ferror(in) || ferror(f) || fflush(f) || fseeko(f, 0, SEEK_SET)) {
		fprintf(stderr, "stackmap: %s: %s\n", path ? path : "-",
			strerror(errno));
		if (f != in)
			fclose(f);
		goto fail;
	}
	if (f != in && in != stdin)
		fclose(in);
	return f;
fail:
	if (in != stdin)
		fclose(in);
	return NULL;
}

void warn_map_boot_marked(const char *map)
{
	fprintf(stderr,
		"stackmap: %s: not used for the stack ids of boot-marked buffers: a map does not say which boot it is from\n",
		map);
}
