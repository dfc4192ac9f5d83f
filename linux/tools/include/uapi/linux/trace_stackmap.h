/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * The stack_map_bin file of the ftrace stackmap option: one header
 * followed by the records of the depot's current generation. All fields
 * are in the byte order of the kernel that wrote them; a reader detects
 * the other order by the magic.
 *
 * See Documentation/trace/ftrace-stackmap.rst.
 */
#ifndef _UAPI_LINUX_TRACE_STACKMAP_H
#define _UAPI_LINUX_TRACE_STACKMAP_H

#include <linux/types.h>

#define TRACE_STACKMAP_BIN_MAGIC	0x46534D42U	/* "FSMB" */
#define TRACE_STACKMAP_BIN_VERSION	1

/* Header flag: the addresses are real, not zeroed. */
#define TRACE_STACKMAP_BIN_ADDRS	0x1U

/**
 * struct trace_stackmap_bin_header - header of the stack_map_bin stream
 * @magic: %TRACE_STACKMAP_BIN_MAGIC, in the writer's byte order
 * @version: %TRACE_STACKMAP_BIN_VERSION
 * @header_size: size of this header in bytes; records start right after
 * @generation: generation of the depot the records belong to
 * @nr_records: number of records that follow
 * @flags: %TRACE_STACKMAP_BIN_ADDRS or 0
 * @max_depth: deepest record the depot can hold
 * @record_size: size of struct trace_stackmap_bin_record
 * @index_bits: low bits of an id that index the depot's table; the bits
 *	above are the generation tag
 *
 * Readers must skip @header_size bytes to reach the first record, and
 * step over @record_size bytes plus the addresses for each record, so
 * that later versions can grow both structures at their ends.
 */
struct trace_stackmap_bin_header {
	__u32 magic;
	__u16 version;
	__u16 header_size;
	__u32 generation;
	__u32 nr_records;
	__u32 flags;
	__u32 max_depth;
	__u32 record_size;
	__u32 index_bits;
};

/**
 * struct trace_stackmap_bin_record - one record of the stack_map_bin stream
 * @id: the stack id, as it appears in TRACE_STACK_ID events
 * @depth: number of __u64 addresses that follow, innermost first
 * @refs: events that were given this id
 * @reserved: zero
 *
 * The addresses are 64 bits wide on every kernel, 32-bit ones included.
 * Unless the header has %TRACE_STACKMAP_BIN_ADDRS they are zero, except
 * 0x7fffffff, which marks a frame in the ftrace trampoline and is not an
 * address.
 */
struct trace_stackmap_bin_record {
	__u32 id;
	__u32 depth;
	__u32 refs;
	__u32 reserved;
};

#endif /* _UAPI_LINUX_TRACE_STACKMAP_H */
