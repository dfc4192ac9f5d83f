/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ftrace stackmap: the parser and the stack_map_bin encoders of
 * trace_stackmap_export.c, for its KUnit suite. Without KUnit they are
 * static; the binary layout they write is <uapi/linux/trace_stackmap.h>.
 */
#ifndef _TRACE_STACKMAP_EXPORT_H
#define _TRACE_STACKMAP_EXPORT_H

#include <linux/stackdepot_lf.h>
#include <linux/types.h>
#include <uapi/linux/trace_stackmap.h>

/* What trace_stackmap_parse_cmd() finds written to stack_map */
enum trace_stackmap_cmd {
	TRACE_STACKMAP_CMD_RESET = 1,
	TRACE_STACKMAP_CMD_EMIT,
};

#if IS_ENABLED(CONFIG_KUNIT)
int trace_stackmap_parse_cmd(const char *buf, size_t len);
void trace_stackmap_encode_header(struct trace_stackmap_bin_header *hdr,
				  u32 generation, u32 nr_records, u32 flags,
				  u32 max_depth, u32 index_bits);
size_t trace_stackmap_encode_record(void *buf,
				    const struct stackdepot_lf_info *info,
				    const unsigned long *entries, bool addrs);
#endif

#endif /* _TRACE_STACKMAP_EXPORT_H */
