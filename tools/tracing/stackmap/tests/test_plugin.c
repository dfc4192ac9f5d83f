// SPDX-License-Identifier: GPL-2.0
/*
 * Drive plugin_stackmap.so as trace-cmd report does, without a trace.dat:
 * parse the kernel_stack_id format as the kernel exports it, register
 * the functions trace.dat's kallsyms would give, load the plugins from
 * PLUGIN_DIR through libtraceevent, and print one crafted record per id.
 *
 * Usage: test_plugin PLUGIN_DIR [-O stackmap:map=FILE] ID...
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>
#include <trace-seq.h>

#define STACK_ID_TYPE	39

static const char format[] =
	"name: kernel_stack_id\n"
	"ID: 39\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\n"
	"\tfield:u32 id;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\n"
	"print fmt: \"<stack_id 0x%08x>\", REC->id\n";

static const struct {
	const char *name;
	unsigned long long addr;
	const char *mod;
} funcs[] = {
	{ "_stext", 0xffffffff81000000ULL, NULL },
	{ "foo_bar", 0xffffffff81000100ULL, NULL },
	{ "baz", 0xffffffff81000200ULL, NULL },
	{ "modfn", 0xffffffffc0000f00ULL, "mymod" },
	{ "modend", 0xffffffffc0002000ULL, "mymod" },
};

int main(int argc, char **argv)
{
	struct tep_plugin_list *plugins;
	struct tep_handle *tep;
	struct trace_seq s;
	int i, first = 2;
	size_t f;

	if (argc < 3) {
		fprintf(stderr, "usage: %s PLUGIN_DIR [-O opt=val] ID...\n",
			argv[0]);
		return 2;
	}
	if (!strcmp(argv[2], "-O")) {
		char *opt = strdup(argv[3]), *val = strchr(opt, '=');

		*val++ = '\0';
		if (tep_plugin_add_option(opt, val)) {
			fprintf(stderr, "cannot set %s\n", argv[3]);
			return 1;
		}
		free(opt);
		first = 4;
	}

	tep = tep_alloc();
	tep_set_long_size(tep, 8);
	tep_set_page_size(tep, 4096);
	tep_set_file_bigendian(tep, TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(tep, TEP_LITTLE_ENDIAN);
	if (tep_parse_event(tep, format, strlen(format), "ftrace")) {
		fprintf(stderr, "cannot parse the format\n");
		return 1;
	}
	for (f = 0; f < sizeof(funcs) / sizeof(*funcs); f++)
		tep_register_function(tep, (char *)funcs[f].name,
				      funcs[f].addr, (char *)funcs[f].mod);
	tep_add_plugin_path(tep, argv[1], TEP_PLUGIN_FIRST);
	plugins = tep_load_plugins(tep);

	trace_seq_init(&s);
	for (i = first; i < argc; i++) {
		unsigned char data[12] = { STACK_ID_TYPE, 0 };
		struct tep_record rec = {
			.data = data,
			.size = sizeof(data),
		};
		unsigned int id = strtoul(argv[i], NULL, 0);
		int pid = 1234;

		memcpy(data + 4, &pid, sizeof(pid));
		memcpy(data + 8, &id, sizeof(id));
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
