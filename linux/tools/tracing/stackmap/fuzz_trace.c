// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the trace text parsers of expand and fold
 * (tracetext.c), linked as the CLI links them.
 */
#include <stdlib.h>
#include <string.h>

#include "tracetext.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct counts ids = { }, full = { };
	const char *tag, *end;
	bool marked = false;
	char comm[256];
	char *line;
	uint32_t id;
	FILE *f;

	line = malloc(size + 1);
	if (!line)
		return 0;
	memcpy(line, data, size);
	line[size] = '\0';
	tag = find_stack_id(line, &id, &end);
	if (tag && (tag < line || end <= tag || end > line + strlen(line) ||
		    end[-1] != '>'))
		abort();
	/* A mark is skipped whole, and only a mark. */
	if (tag && skip_undefined_mark(end) != end &&
	    (skip_undefined_mark(end) > line + strlen(line) ||
	     strncmp(end, " [", 2) || skip_undefined_mark(end)[-1] != ']'))
		abort();
	if (is_stack_boot(line) && !strstr(line, STACK_BOOT_TAG))
		abort();
	if (parse_comm(line, comm, sizeof(comm)) && !strstr(line, comm))
		abort();
	free(line);

	if (!size)
		return 0;
	f = fmemopen((void *)data, size, "r");
	if (!f)
		return 0;
	if (fold_trace(f, &ids, &full, 0, &marked))
		abort();	/* only fails on allocation failure */
	fclose(f);
	counts_free(&ids);
	counts_free(&full);
	return 0;
}
