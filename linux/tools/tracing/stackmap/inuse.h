/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Memory in use at an instant, by allocation stack: the allocations and
 * frees of a trace replayed in time order, a free matched to its
 * allocation by address (a slab object's pointer, a page's pfn), never
 * by guess. Two layers, kept apart: slab objects (kmalloc,
 * kmem_cache_alloc) and pages (mm_page_alloc), which the slab objects
 * are carved from; no figure adds one to the other.
 *
 * The page layer counts pages: an allocation of order 2 is four pages
 * of the page size, each freed on its own (split_page(), or a free of
 * a lower order, frees part of it). The slab layer counts objects of
 * their bytes_alloc.
 *
 * What the replay cannot see is counted apart: a free of an address no
 * allocation of the replay holds (allocated before the replay's start,
 * or by a path the kernel does not trace, e.g. alloc_pages_bulk()), an
 * allocation at an address still held (its free was not traced, e.g.
 * kmem_cache_free_bulk()), and memory held at the instant that was
 * allocated before a part of the trace that a CPU lost, whose free may
 * be in that part. Calls nothing of the CLI or of libtracecmd.
 */
#ifndef _STACKMAP_INUSE_H
#define _STACKMAP_INUSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum mem_layer {
	MEM_SLAB,
	MEM_PAGE,
	MEM_NR_LAYERS,
};

/* An order above this is no page allocation of a real kernel. */
#define MEM_MAX_ORDER	20

/**
 * struct mem_op - an allocation or a free, as the trace has it
 * @ts: its time
 * @addr: the slab object's address, or the first page's pfn
 * @bytes: of an allocation: the object's bytes_alloc, or the bytes of
 *	one page (the page size); unused for a free
 * @stack: of an allocation: the index of its stack
 * @nr: 1 for a slab object; the pages (1 << order) for the page layer;
 *	0 for a free of the allocation that starts at @addr, whatever its
 *	size (mm_page_free_batched, which has no order)
 * @layer: enum mem_layer
 * @is_free: a free, else an allocation
 * @cpu: the CPU that traced it
 */
struct mem_op {
	uint64_t ts;
	uint64_t addr;
	uint64_t bytes;
	uint32_t stack;
	uint32_t nr;
	uint8_t layer;
	uint8_t is_free;
	uint16_t cpu;
};

struct mem_ops {
	struct mem_op *v;
	size_t nr, cap;
};

/* Append @op: its index, or -1 if out of memory. */
long mem_ops_add(struct mem_ops *ops, const struct mem_op *op);
/* Time order; ops of the same time keep the order they were added in. */
void mem_ops_sort(struct mem_ops *ops);
void mem_ops_free(struct mem_ops *ops);
/* The first op at or after @ts, or ops->nr. */
size_t mem_ops_find(const struct mem_ops *ops, uint64_t ts);

/**
 * struct mem_gap - a part of the trace that a CPU lost
 * @from, @to: the times of the CPU's events around it (@from 0: all
 *	before @to, for a CPU whose first retained event follows a loss)
 * @cpu: the CPU
 */
struct mem_gap {
	uint64_t from, to;
	int cpu;
};

/* Of one stack in one layer. */
struct mem_use {
	uint64_t inuse_objects, inuse_bytes;	/* held at the instant */
	uint64_t alloc_objects, alloc_bytes;	/* allocated up to it */
};

/**
 * struct mem_layer_sum - one layer at the instant, and what it missed
 * @total: the sums over the stacks
 * @unsure_objects, @unsure_bytes: held at the instant but allocated
 *	before a gap that ends before it: their free may be in the gap;
 *	in no stack's figures
 * @unsure_gap: the latest such gap
 * @unknown_frees: frees (of pages, for the page layer) of an address
 *	no allocation of the replay held
 * @reused_objects, @reused_bytes: allocations dropped because their
 *	address was allocated again before a free of it
 */
struct mem_layer_sum {
	struct mem_use total;
	uint64_t unsure_objects, unsure_bytes;
	struct mem_gap unsure_gap;
	uint64_t unknown_frees;
	uint64_t reused_objects, reused_bytes;
};

/**
 * struct mem_inuse - what mem_inuse() found
 * @nr_stacks: the stacks of @use
 * @use: [layer][stack]
 * @sum: [layer]
 */
struct mem_inuse {
	uint32_t nr_stacks;
	struct mem_use *use[MEM_NR_LAYERS];
	struct mem_layer_sum sum[MEM_NR_LAYERS];
};

/*
 * Replay ops[@first, @last) and sum what is held after the last of
 * them, at the instant @at, by stack, each allocation's stack below
 * @nr_stacks; @gaps, the parts of the trace that CPUs lost, make
 * memory unsure where one begins before @at. 0, or -1 if out of
 * memory. mem_inuse_free() frees @res either way.
 */
int mem_inuse(const struct mem_ops *ops, size_t first, size_t last,
	      uint64_t at, uint32_t nr_stacks, const struct mem_gap *gaps,
	      int nr_gaps, struct mem_inuse *res);
void mem_inuse_free(struct mem_inuse *res);

/**
 * struct mem_peak - the highest total of a layer in a replay
 * @found: the layer held memory at some point of the replay
 * @index: the op after which the total was highest first (the last
 *	op of its time: ops of one time happen at once)
 * @ts: its time
 * @bytes, @objects: the layer's total then
 */
struct mem_peak {
	bool found;
	size_t index;
	uint64_t ts;
	uint64_t bytes, objects;
};

/* The peak of @layer in ops[@first, @last): 0, or -1 if out of memory. */
int mem_find_peak(const struct mem_ops *ops, size_t first, size_t last,
		  enum mem_layer layer, struct mem_peak *peak);

/**
 * struct mem_series - the bytes one stack, or all, held over time
 * @nr: points
 * @t, @v: from @t[i] on (to @t[i + 1]), @v[i] bytes were held
 */
struct mem_series {
	size_t nr, cap;
	uint64_t *t;
	int64_t *v;
};

/*
 * The series of the bytes of @layer held by each of the @nr stacks of
 * @stacks, into @out[0..@nr), and by all others into @out[@nr], over
 * ops[@first, @last): a point at the start and wherever a value
 * changes. 0, or -1 if out of memory; mem_series_free() either way.
 */
int mem_series(const struct mem_ops *ops, size_t first, size_t last,
	       enum mem_layer layer, uint32_t nr_stacks,
	       const uint32_t *stacks, int nr, struct mem_series *out);
void mem_series_free(struct mem_series *s, int nr);

#endif /* _STACKMAP_INUSE_H */
