// SPDX-License-Identifier: GPL-2.0
/*
 * "dump": decode a stack_map_bin stream as the stack_map file's text or
 * as JSON, or check it and print its header.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "commands.h"

static const char dump_help[] =
	"Usage: stackmap dump [--json|--header] [--kallsyms FILE] FILE|-\n"
	"\n"
	"Decode a stack_map_bin stream (either byte order) and print it in the\n"
	"layout of the stack_map file, or as JSON, or only its header. The\n"
	"stream is checked in full: the first bad field is reported with its\n"
	"byte offset, and the exit status is 1. Text output stops there; JSON\n"
	"and the header are printed only for a valid stream.\n"
	"\n"
	"  -j, --json           print JSON (two passes: a pipe is first copied\n"
	"                       to a temporary file)\n"
	"  -H, --header         print only the header, one \"name: value\" per\n"
	"                       line, with the names of the JSON output\n"
	"  -k, --kallsyms FILE  symbolize with a saved /proc/kallsyms\n"
	"  -h, --help           this text\n";

/* "  [i] ", without printf. */
static int put_index(char *buf, uint32_t i)
{
	char tmp[10];
	int n = 0, len = 0;

	do {
		tmp[n++] = '0' + i % 10;
		i /= 10;
	} while (i);
	buf[len++] = ' ';
	buf[len++] = ' ';
	buf[len++] = '[';
	while (n)
		buf[len++] = tmp[--n];
	buf[len++] = ']';
	buf[len++] = ' ';
	return len;
}

static void dump_text_record(const struct smap_record *rec,
			     const struct ksyms *ks)
{
	char line[600];
	uint32_t i;
	int n;

	printf("stack_id 0x%08x [ref %u, depth %u]\n", rec->id, rec->refs,
	       rec->depth);
	for (i = 0; i < rec->depth; i++) {
		/* One frame per line: millions in a large map, keep it cheap. */
		n = put_index(line, i);
		smap_format_frame(line + n, sizeof(line) - n - 1, ks,
				  rec->addrs[i], SMAP_SYM_PS, 0);
		n += strlen(line + n);
		line[n++] = '\n';
		fwrite(line, 1, n, stdout);
	}
}

static void json_string(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		unsigned char c = *s;

		if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c < 0x20)
			printf("\\u%04x", c);
		else
			putchar(c);
	}
	putchar('"');
}

/* What dump prints: the records as text or JSON, or only the header. */
enum dump_format {
	DUMP_TEXT,
	DUMP_JSON,
	DUMP_HEADER,
};

/* One field of the header, as a "name: value" line or a JSON member. */
static void dump_header_field(bool json, const char *name, const char *val,
			      bool string)
{
	if (!json)
		printf("%s: %s\n", name, val);
	else if (string)
		printf("  \"%s\": \"%s\",\n", name, val);
	else
		printf("  \"%s\": %s,\n", name, val);
}

static void dump_header_num(bool json, const char *name, uint32_t val)
{
	char buf[16];

	snprintf(buf, sizeof(buf), "%u", val);
	dump_header_field(json, name, buf, false);
}

/*
 * The header's fields, as "name: value" lines for shell scripts or as
 * the members of the JSON object: the same names and values in both.
 */
static void dump_header_fields(const struct smap_header *hdr, bool json)
{
	dump_header_field(json, "byte_order",
			  hdr->big_endian ? "big" : "little", true);
	dump_header_num(json, "version", hdr->version);
	dump_header_num(json, "header_size", hdr->header_size);
	dump_header_num(json, "generation", hdr->generation);
	dump_header_num(json, "index_bits", hdr->index_bits);
	dump_header_num(json, "nr_records", hdr->nr_records);
	dump_header_num(json, "flags", hdr->flags);
	dump_header_field(json, "addresses",
			  hdr->flags & TRACE_STACKMAP_BIN_ADDRS ?
			  "true" : "false", false);
	dump_header_num(json, "max_depth", hdr->max_depth);
	dump_header_num(json, "record_size", hdr->record_size);
}

static void dump_json_header(const struct smap_header *hdr)
{
	fputs("{\n", stdout);
	dump_header_fields(hdr, true);
	fputs("  \"records\": [", stdout);
}

static void dump_json_record(const struct smap_header *hdr,
			     const struct smap_record *rec,
			     const struct ksyms *ks, bool first)
{
	char sym[512];
	uint32_t i;

	printf("%s\n    {\"id\": \"0x%08x\", \"generation\": %u, ",
	       first ? "" : ",", rec->id, smap_id_gen(hdr, rec->id));
	printf("\"refs\": %u, \"depth\": %u, \"frames\": [", rec->refs,
	       rec->depth);
	for (i = 0; i < rec->depth; i++) {
		printf("%s{\"addr\": \"0x%016llx\"", i ? ", " : "",
		       (unsigned long long)rec->addrs[i]);
		if (ks || rec->addrs[i] == SMAP_TRAMPOLINE) {
			smap_format_frame(sym, sizeof(sym), ks, rec->addrs[i],
					  SMAP_SYM_PS, 0);
			fputs(", \"symbol\": ", stdout);
			json_string(sym);
		}
		putchar('}');
	}
	fputs("]}", stdout);
}

/*
 * One pass over the stream; prints it unless @print is false. The header
 * alone is printed at the end, once the records checked out.
 */
static int dump_pass(FILE *f, const char *name, const struct ksyms *ks,
		     enum dump_format fmt, bool print)
{
	struct smap_decoder d;
	struct smap_record rec;
	struct smap_error err;
	int ret;

	if (smap_decoder_init(&d, f, &err)) {
		smap_decoder_fini(&d);
		return report(name, &err);
	}
	if (print && fmt != DUMP_HEADER)
		warn_hidden_addrs(name, &d.hdr);
	if (print && fmt == DUMP_JSON)
		dump_json_header(&d.hdr);
	while ((ret = smap_decoder_next(&d, &rec, &err)) > 0) {
		if (!print)
			continue;
		if (fmt == DUMP_JSON)
			dump_json_record(&d.hdr, &rec, ks, d.nr_read == 1);
		else if (fmt == DUMP_TEXT)
			dump_text_record(&rec, ks);
	}
	smap_decoder_fini(&d);
	if (ret < 0)
		return report(name, &err);
	if (print && fmt == DUMP_JSON)
		printf("%s]\n}\n", d.hdr.nr_records ? "\n  " : "");
	if (print && fmt == DUMP_HEADER)
		dump_header_fields(&d.hdr, false);
	return 0;
}

int cmd_dump(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "header", no_argument, NULL, 'H' },
		{ "kallsyms", required_argument, NULL, 'k' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	enum dump_format fmt = DUMP_TEXT;
	const char *kallsyms = NULL, *path;
	struct ksyms ksbuf, *ks;
	struct smap_error err;
	int c, ret;
	FILE *f;

	while ((c = getopt_long(argc, argv, "jHk:h", opts, NULL)) != -1) {
		if (c == 'j' || c == 'H') {
			if (fmt != DUMP_TEXT) {
				fprintf(stderr,
					"stackmap dump: --json and --header exclude each other\n");
				die_usage("dump");
			}
			fmt = c == 'j' ? DUMP_JSON : DUMP_HEADER;
		} else if (c == 'k') {
			kallsyms = optarg;
		} else {
			check_opt(c, "dump", dump_help);
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "stackmap dump: expected one FILE or -\n");
		die_usage("dump");
	}
	path = argv[optind];
	ret = load_kallsyms(&ksbuf, kallsyms, &ks);
	if (ret)
		return ret;

	if (fmt == DUMP_JSON) {
		/*
		 * Validate everything first so that a bad stream prints no
		 * JSON at all, then decode again to print: two passes over a
		 * seekable copy, never the whole map in memory.
		 */
		f = smap_open_seekable(path, &err);
		if (!f) {
			ret = report(path, &err);
			goto out;
		}
		ret = dump_pass(f, path, ks, fmt, false);
		if (!ret) {
			rewind(f);
			ret = dump_pass(f, path, ks, fmt, true);
		}
	} else {
		/*
		 * Text streams: records before an error are printed. The
		 * header comes after the last record: one pass too.
		 */
		f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
		if (!f) {
			fprintf(stderr, "stackmap: %s: %s\n", path,
				strerror(errno));
			ret = EXIT_FAILURE;
			goto out;
		}
		ret = dump_pass(f, path, ks, fmt, true);
	}
	if (f != stdin)
		fclose(f);
out:
	if (ks)
		ksyms_free(ks);
	return ret;
}
