/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What stackdepot_lf.c gives its tests, and no user: the KUnit suites
 * (through stackdepot_lf_internal.h, with CONFIG_KUNIT) and the userspace
 * harness of tools/testing/stackdepot_lf/ (through its harness.h) both
 * declare it from here, so that the two cannot differ.
 */
#ifndef _LIB_STACKDEPOT_LF_TEST_H
#define _LIB_STACKDEPOT_LF_TEST_H

/* Replaced by the KUnit suite through kunit_activate_static_stub(). */
bool sdlf_slot_publish(struct stackdepot_lf *depot, u32 pos, u32 val);
u32 sdlf_hash(const unsigned long *entries, unsigned int nr_entries);
void sdlf_mark_window(struct stackdepot_lf *depot, u32 pos);
/* Let the KUnit suite reach the wrap of the id space, and shrink it. */
u64 sdlf_ids_set_next(u64 next);
u64 sdlf_ids_set_space(u64 space);
/* Let the KUnit suite wait for growth, and hold it back. */
void sdlf_grow_flush(struct stackdepot_lf *depot);
void sdlf_grow_pause(struct stackdepot_lf *depot, bool pause);

/**
 * stackdepot_lf_id_gen() - generation tag of an id
 * @depot: the depot the id was issued by
 * @id: the id
 *
 * For the tests, which check every id's generation; no user needs it.
 *
 * Context: Any context.
 * Return: the tag, the bits of @id above the depot's table index; 0 for
 * values that are nobody's id, or if @depot is NULL.
 */
u32 stackdepot_lf_id_gen(struct stackdepot_lf *depot, stackdepot_lf_id_t id);

/**
 * stackdepot_lf_mem_size() - bytes stackdepot_lf_create() would allocate
 * @params: capacity, as for stackdepot_lf_create()
 *
 * For the tests, which hold the depot's accounting to it; a user reads
 * what a depot took from &stackdepot_lf_stats.mem_allocated.
 *
 * Context: Any context.
 * Return: the number of bytes the depot takes when created, before any
 * growth, or 0 if @params is out of range.
 */
size_t stackdepot_lf_mem_size(const struct stackdepot_lf_params *params);

/**
 * stackdepot_lf_marks_bytes() - bytes the marks of a depot take
 * @depot: the depot
 *
 * For the tests, which print what the marks cost per CPU; a user reads
 * the whole depot's from &stackdepot_lf_stats.mem_allocated.
 *
 * Context: Any context.
 * Return: the bytes of all the marks of @depot, every CPU's with
 * %STACKDEPOT_LF_CPU_MARKS; 0 if @depot is NULL.
 */
size_t stackdepot_lf_marks_bytes(const struct stackdepot_lf *depot);

#endif /* _LIB_STACKDEPOT_LF_TEST_H */
