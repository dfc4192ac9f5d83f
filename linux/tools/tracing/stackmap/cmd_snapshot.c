// SPDX-License-Identifier: GPL-2.0
/*
 * "snapshot": save the trace, the stack map and kallsyms of a live
 * system, to decode them later elsewhere.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "commands.h"

static const char snapshot_help[] =
	"Usage: stackmap snapshot [--instance NAME] [--tracefs DIR] DIR\n"
	"\n"
	"Save what is needed to decode a trace later, on another machine: the\n"
	"trace, then stack_map_bin, stack_map, stack_map_stat and /proc/kallsyms,\n"
	"into DIR (created if needed). The saved stack_map_bin is checked.\n"
	"\n"
	"  -i, --instance NAME  the instance under instances/ (default: top level)\n"
	"  -t, --tracefs DIR    where tracefs is mounted (default:\n"
	"                       /sys/kernel/tracing)\n"
	"  -h, --help           this text\n";

static int copy_file(const char *src, const char *dir, const char *name,
		     uint64_t *bytes)
{
	char dst[PATH_MAX], buf[65536];
	int in, out, ret = -1;
	ssize_t n;

	*bytes = 0;
	snprintf(dst, sizeof(dst), "%s/%s", dir, name);
	in = open(src, O_RDONLY);
	if (in < 0) {
		fprintf(stderr, "stackmap: %s: %s\n", src, strerror(errno));
		return -1;
	}
	out = open(dst, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (out < 0) {
		fprintf(stderr, "stackmap: %s: %s\n", dst, strerror(errno));
		goto out_in;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0) {
		if (write(out, buf, n) != n) {
			fprintf(stderr, "stackmap: %s: %s\n", dst,
				strerror(errno));
			goto out_out;
		}
		*bytes += n;
	}
	if (n < 0) {
		fprintf(stderr, "stackmap: %s: %s\n", src, strerror(errno));
		goto out_out;
	}
	ret = 0;
out_out:
	if (close(out) && !ret) {
		fprintf(stderr, "stackmap: %s: %s\n", dst, strerror(errno));
		ret = -1;
	}
out_in:
	close(in);
	return ret;
}

static bool is_tracefs(const char *dir)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/trace", dir);
	return !access(path, R_OK);
}

int cmd_snapshot(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "instance", required_argument, NULL, 'i' },
		{ "tracefs", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	const char *instance = NULL, *tracefs = NULL, *dir;
	char inst[PATH_MAX], src[PATH_MAX + 32], dst[PATH_MAX + 32];
	struct smap_decoder d;
	struct smap_record rec;
	struct smap_error err;
	uint64_t bytes;
	int c, try, ret;
	FILE *f;

	while ((c = getopt_long(argc, argv, "i:t:h", opts, NULL)) != -1) {
		if (c == 'i')
			instance = optarg;
		else if (c == 't')
			tracefs = optarg;
		else
			check_opt(c, "snapshot", snapshot_help);
	}
	if (optind != argc - 1) {
		fprintf(stderr, "stackmap snapshot: expected one DIR\n");
		die_usage("snapshot");
	}
	dir = argv[optind];
	if (instance && (!*instance || strchr(instance, '/'))) {
		fprintf(stderr, "stackmap snapshot: bad instance name '%s'\n",
			instance);
		die_usage("snapshot");
	}
	if (!tracefs)
		tracefs = is_tracefs("/sys/kernel/tracing") ?
			  "/sys/kernel/tracing" : "/sys/kernel/debug/tracing";
	if (instance)
		snprintf(inst, sizeof(inst), "%s/instances/%s", tracefs,
			 instance);
	else
		snprintf(inst, sizeof(inst), "%s", tracefs);
	snprintf(src, sizeof(src), "%s/stack_map_bin", inst);
	if (access(src, R_OK)) {
		fprintf(stderr,
			"stackmap: %s: %s (tracefs not mounted, no such instance, or no CONFIG_FTRACE_STACKMAP?)\n",
			src, strerror(errno));
		return EXIT_FAILURE;
	}
	if (mkdir(dir, 0700) && errno != EEXIST) {
		fprintf(stderr, "stackmap: %s: %s\n", dir, strerror(errno));
		return EXIT_FAILURE;
	}

	/* The trace first: the map read after it holds every id it names. */
	snprintf(src, sizeof(src), "%s/trace", inst);
	if (copy_file(src, dir, "trace", &bytes))
		return EXIT_FAILURE;
	printf("trace: %llu bytes\n", (unsigned long long)bytes);

	/* A reset while reading fails the read with ESTALE: read again. */
	snprintf(src, sizeof(src), "%s/stack_map_bin", inst);
	for (try = 0; try < 3; try++) {
		ret = copy_file(src, dir, "stack_map_bin", &bytes);
		if (!ret || errno != ESTALE)
			break;
	}
	if (ret)
		return EXIT_FAILURE;

	snprintf(dst, sizeof(dst), "%s/stack_map_bin", dir);
	f = fopen(dst, "rb");
	if (!f) {
		fprintf(stderr, "stackmap: %s: %s\n", dst, strerror(errno));
		return EXIT_FAILURE;
	}
	ret = smap_decoder_init(&d, f, &err);
	while (!ret && (ret = smap_decoder_next(&d, &rec, &err)) > 0)
		ret = 0;
	fclose(f);
	smap_decoder_fini(&d);
	if (ret < 0)
		return report(dst, &err);
	printf("stack_map_bin: %llu bytes, generation %u, %u records%s\n",
	       (unsigned long long)bytes, d.hdr.generation, d.hdr.nr_records,
	       d.hdr.flags & TRACE_STACKMAP_BIN_ADDRS ? "" :
	       " (addresses hidden: run with CAP_SYSLOG)");

	snprintf(src, sizeof(src), "%s/stack_map", inst);
	if (copy_file(src, dir, "stack_map", &bytes))
		return EXIT_FAILURE;
	printf("stack_map: %llu bytes\n", (unsigned long long)bytes);
	snprintf(src, sizeof(src), "%s/stack_map_stat", inst);
	if (copy_file(src, dir, "stack_map_stat", &bytes))
		return EXIT_FAILURE;
	printf("stack_map_stat: %llu bytes\n", (unsigned long long)bytes);
	if (copy_file("/proc/kallsyms", dir, "kallsyms", &bytes))
		return EXIT_FAILURE;
	printf("kallsyms: %llu bytes\n", (unsigned long long)bytes);
	printf("decode with: stackmap expand --map %s/stack_map_bin", dir);
	printf(" --kallsyms %s/kallsyms %s/trace\n", dir, dir);
	return 0;
}
