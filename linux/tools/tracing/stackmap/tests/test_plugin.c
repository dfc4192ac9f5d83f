// SPDX-License-Identifier: GPL-2.0
/*
 * Drive plugin_stackmap.so as trace-cmd report does, without a trace.dat:
 * parse the kernel_stack_id and kernel_stack_def formats as the kernel
 * exports them, register the functions trace.dat's kallsyms would give,
 * load the plugins from PLUGIN_DIR through libtraceevent, and print one
 * crafted record per item, in order:
 *
 *   ID                        a kernel_stack_id record
 *   def:ID:ADDR,...[:depth=N][:cut=K]
 *                             a kernel_stack_def record of these frames;
 *                             its depth field N if given, and K bytes cut
 *                             off its end (a truncated record)
 *
 * -l 4 writes the frames as a 32-bit kernel does (long size 4), -B
 * writes every field big-endian, as a big-endian kernel does.
 *
 * Usage: test_plugin PLUGIN_DIR [-O stackmap:map=FILE] [-l 4|8] [-B] ITEM...
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event-parse.h>
#include <trace-seq.h>

#define STACK_ID_TYPE	39
#define STACK_DEF_TYPE	40
#define MAX_FRAMES	200

#define COMMON_FIELDS \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n" \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n" \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n" \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"

static const char id_format[] =
	"name: kernel_stack_id\n"
	"ID: 39\n"
	"format:\n"
	COMMON_FIELDS
	"\n"
	"\tfield:u32 id;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\n"
	"print fmt: \"<stack_id 0x%08x>\", REC->id\n";

static const char def_format[] =
	"name: kernel_stack_def\n"
	"ID: 40\n"
	"format:\n"
	COMMON_FIELDS
	"\n"
	"\tfield:u32 id;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:u32 depth;\toffset:12;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned long caller[];\toffset:16;\tsize:0;\tsigned:0;\n"
	"\n"
	"print fmt: \"<stack_def 0x%08x depth %u>\", REC->id, REC->depth\n";

static const struct {
	const char *name;
	unsigned long long addr;
	const char *mod;
} funcs[] = {
	{ "_stext", 0xffffffff81000000ULL, NULL },
	{ "foo_bar", 0xffffffff81000100ULL, NULL },
	{ "baz", 0xffffffff81000200ULL, NULL },
	{ "__kretprobe_trampoline", 0xffffffff81000300ULL, NULL },
	{ "modfn", 0xffffffffc0000f00ULL, "mymod" },
	{ "modend", 0xffffffffc0002000ULL, "mymod" },
	/* The same, in a 32-bit kernel. */
	{ "_stext", 0xc1000000ULL, NULL },
	{ "foo_bar", 0xc1000100ULL, NULL },
	{ "baz", 0xc1000200ULL, NULL },
	{ "__kretprobe_trampoline", 0xc1000300ULL, NULL },
	{ "modfn", 0xf8000f00ULL, "mymod" },
	{ "modend", 0xf8002000ULL, "mymod" },
};

static int long_size = 8;
static int big_endian;

/* Store the low @size bytes of @v at @p in the traced kernel's order. */
static void put(unsigned char *p, unsigned long long v, int size)
{
	int i;

	for (i = 0; i < size; i++)
		p[big_endian ? size - 1 - i : i] = v >> (8 * i);
}

/* Fill @data with the record of @item; returns its size. */
static size_t make_record(unsigned char *data, char *item)
{
	unsigned long long frame;
	unsigned int depth, nr = 0, cut = 0;
	char *p, *end;
	bool has_depth = false;

	put(data + 4, 1234, 4);		/* common_pid */
	if (strncmp(item, "def:", 4)) {
		put(data, STACK_ID_TYPE, 2);
		put(data + 8, strtoul(item, NULL, 0), 4);
		return 12;
	}
	put(data, STACK_DEF_TYPE, 2);
	put(data + 8, strtoul(item + 4, &p, 0), 4);
	if (*p == ':')
		p++;
	while (*p && *p != ':' && nr < MAX_FRAMES) {
		frame = strtoull(p, &end, 0);
		put(data + 16 + nr++ * long_size, frame, long_size);
		p = *end == ',' ? end + 1 : end;
	}
	depth = nr;
	while (*p == ':') {
		if (!strncmp(p, ":depth=", 7)) {
			depth = strtoul(p + 7, &p, 0);
			has_depth = true;
		} else if (!strncmp(p, ":cut=", 5)) {
			cut = strtoul(p + 5, &p, 0);
		} else {
			break;
		}
	}
	put(data + 12, has_depth ? depth : nr, 4);
	return 16 + nr * long_size - cut;
}

int main(int argc, char **argv)
{
	static unsigned char data[16 + 8 * MAX_FRAMES];
	struct tep_plugin_list *plugins;
	struct tep_handle *tep;
	struct trace_seq s;
	size_t f;
	int c, i;

	if (argc < 3) {
		fprintf(stderr,
			"usage: %s PLUGIN_DIR [-O opt=val] [-l 4|8] [-B] ITEM...\n",
			argv[0]);
		return 2;
	}
	optind = 2;
	while ((c = getopt(argc, argv, "+O:l:B")) != -1) {
		char *opt, *val;

		switch (c) {
		case 'O':
			opt = strdup(optarg);
			val = strchr(opt, '=');
			*val++ = '\0';
			if (tep_plugin_add_option(opt, val)) {
				fprintf(stderr, "cannot set %s\n", optarg);
				return 1;
			}
			free(opt);
			break;
		case 'l':
			long_size = atoi(optarg);
			break;
		case 'B':
			big_endian = 1;
			break;
		default:
			return 2;
		}
	}

	tep = tep_alloc();
	tep_set_long_size(tep, long_size);
	tep_set_page_size(tep, 4096);
	tep_set_file_bigendian(tep, big_endian ? TEP_BIG_ENDIAN :
				    TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(tep, TEP_LITTLE_ENDIAN);
	if (tep_parse_event(tep, id_format, strlen(id_format), "ftrace") ||
	    tep_parse_event(tep, def_format, strlen(def_format), "ftrace")) {
		fprintf(stderr, "cannot parse the formats\n");
		return 1;
	}
	for (f = 0; f < sizeof(funcs) / sizeof(*funcs); f++)
		tep_register_function(tep, (char *)funcs[f].name,
				      funcs[f].addr, (char *)funcs[f].mod);
	tep_add_plugin_path(tep, argv[1], TEP_PLUGIN_FIRST);
	plugins = tep_load_plugins(tep);

	trace_seq_init(&s);
	for (i = optind; i < argc; i++) {
		struct tep_record rec = {
			.ts = i,
			.data = data,
		};

		memset(data, 0, sizeof(data));
		rec.size = make_record(data, argv[i]);
		trace_seq_reset(&s);
		tep_print_event(tep, &s, &rec, "%s", TEP_PRINT_INFO);
		trace_seq_terminate(&s);
		printf("%s\n", s.buffer);
	}
	trace_seq_destroy(&s);
	tep_unload_plugins(plugins, tep);
	tep_free(tep);
	return 0;
}
