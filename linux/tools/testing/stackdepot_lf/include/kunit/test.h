/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The part of KUnit that lib/tests/stackdepot_lf_kunit.c uses, on pthreads
 * (runtime in kunit.c), so that the harness runs the kernel's own suite.
 *
 * As in the kernel, each case runs in a thread of its own: a failed
 * assertion ends that thread (pthread_exit() where the kernel's try-catch
 * ends the kthread), and the case's deferred actions then run in reverse
 * order of registration, in the runner's thread. The output is KTAP, the
 * format the kernel prints, so that scripts/ktap.py reads both.
 */
#ifndef _SDLF_KUNIT_TEST_H
#define _SDLF_KUNIT_TEST_H

#include "../../harness.h"

#include <linux/kernel.h>

#define KUNIT_PARAM_DESC_SIZE	128

enum kunit_status {
	KUNIT_SUCCESS,
	KUNIT_FAILURE,
	KUNIT_SKIPPED,
};

enum kunit_speed {
	KUNIT_SPEED_UNSET,
	KUNIT_SPEED_VERY_SLOW,
	KUNIT_SPEED_SLOW,
	KUNIT_SPEED_NORMAL,
};

struct kunit_attributes {
	enum kunit_speed speed;
};

struct kunit;

struct kunit_case {
	void (*run_case)(struct kunit *test);
	const char *name;
	const void *(*generate_params)(const void *prev, char *desc);
	struct kunit_attributes attr;
};

struct kunit_suite {
	const char *name;
	int (*suite_init)(struct kunit_suite *suite);
	void (*suite_exit)(struct kunit_suite *suite);
	int (*init)(struct kunit *test);
	void (*exit)(struct kunit *test);
	struct kunit_case *test_cases;
	struct kunit_suite *next;	/* the runner's list */
};

struct kunit_action_entry;

struct kunit {
	const char *name;
	const void *param_value;
	void *priv;
	/* The case's status: a relaxed atomic, any thread may fail it. */
	int status;
	struct kunit_action_entry *actions;	/* the case's thread only */
	pthread_t thread;
};

#define KUNIT_CASE(fn)		{ .run_case = fn, .name = #fn }
#define KUNIT_CASE_ATTR(fn, attributes) \
	{ .run_case = fn, .name = #fn, .attr = attributes }
#define KUNIT_CASE_SLOW(fn) \
	KUNIT_CASE_ATTR(fn, { .speed = KUNIT_SPEED_SLOW })
#define KUNIT_CASE_PARAM(fn, gen) \
	{ .run_case = fn, .name = #fn, .generate_params = gen }
#define KUNIT_CASE_PARAM_ATTR(fn, gen, attributes) \
	{ .run_case = fn, .name = #fn, .generate_params = gen, \
	  .attr = attributes }

/* Parameters from an array, as in the kernel: the next element or NULL. */
#define KUNIT_ARRAY_PARAM(name, array, get_desc)			\
static const void *name##_gen_params(const void *prev, char *desc)	\
{									\
	__typeof__((array)[0]) *__next = prev ? ((__typeof__(__next))prev) + 1 \
					      : (array);		\
	void (*__get_desc)(__typeof__(__next), char *) = get_desc;	\
									\
	if (__next - (array) < (long)ARRAY_SIZE(array)) {		\
		if (__get_desc)						\
			__get_desc(__next, desc);			\
		return __next;						\
	}								\
	return NULL;							\
}

#define KUNIT_ARRAY_PARAM_DESC(name, array, desc_member)		\
static const void *name##_gen_params(const void *prev, char *desc)	\
{									\
	__typeof__((array)[0]) *__next = prev ? ((__typeof__(__next))prev) + 1 \
					      : (array);		\
									\
	if (__next - (array) < (long)ARRAY_SIZE(array)) {		\
		snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s",		\
			 __next->desc_member);				\
		return __next;						\
	}								\
	return NULL;							\
}

/* Registration: a constructor puts the suite on the runner's list. */
void __kunit_register_suite(struct kunit_suite *suite);
#define kunit_test_suite(suite)						\
static void __attribute__((constructor)) __kunit_register_##suite(void)	\
{									\
	__kunit_register_suite(&(suite));				\
}

#define MODULE_DESCRIPTION(s)
#define MODULE_LICENSE(s)
#define MODULE_IMPORT_NS(ns)

/* Deferred actions, run when the case ends, last registered first. */
typedef void (kunit_action_t)(void *);

#define KUNIT_DEFINE_ACTION_WRAPPER(wrapper, orig, arg_type)		\
static void wrapper(void *in)						\
{									\
	orig((arg_type)in);						\
}

int kunit_add_action(struct kunit *test, kunit_action_t *action, void *ctx);
int kunit_add_action_or_reset(struct kunit *test, kunit_action_t *action,
			      void *ctx);
void kunit_release_action(struct kunit *test, kunit_action_t *action,
			  void *ctx);
void kunit_remove_action(struct kunit *test, kunit_action_t *action,
			 void *ctx);

void *kunit_kmalloc_array(struct kunit *test, size_t n, size_t size,
			  gfp_t gfp);
#define kunit_kzalloc(test, size, gfp) \
	kunit_kmalloc_array((test), 1, (size), (gfp))
#define kunit_kcalloc(test, n, size, gfp) \
	kunit_kmalloc_array((test), (n), (size), (gfp))
#define kunit_kmalloc(test, size, gfp) \
	kunit_kmalloc_array((test), 1, (size), (gfp))

struct kunit *kunit_get_current_test(void);

__printf(2, 3) void kunit_log_line(struct kunit *test, const char *fmt, ...);
#define kunit_info(test, fmt, ...)	kunit_log_line((test), fmt, ##__VA_ARGS__)
#define kunit_warn(test, fmt, ...)	kunit_log_line((test), fmt, ##__VA_ARGS__)
#define kunit_err(test, fmt, ...)	kunit_log_line((test), fmt, ##__VA_ARGS__)

/*
 * Assertions. A failed one prints where and what, as the kernel does, and
 * fails the case; an ASSERT also ends the case's thread.
 */
__printf(4, 5) void __kunit_fail(struct kunit *test, const char *file,
				 int line, const char *fmt, ...);
void __noreturn __kunit_abort(struct kunit *test);

/* A case that cannot run here ends, logged, without failing. */
#define kunit_skip(test, fmt, ...) do {					\
	kunit_log_line((test), "skipped: " fmt, ##__VA_ARGS__);		\
	__kunit_abort(test);						\
} while (0)

#define __KUNIT_FAILED(test, assert, fmt, ...) do {			\
	__kunit_fail((test), __FILE__, __LINE__, fmt, ##__VA_ARGS__);	\
	if (assert)							\
		__kunit_abort(test);					\
} while (0)

/* Integers of any width, signed or not, compared as C compares them. */
#define __KUNIT_BINARY(test, assert, left, op, right) do {		\
	__typeof__(left) __l = (left);					\
	__typeof__(right) __r = (right);				\
									\
	if (!(__l op __r))						\
		__KUNIT_FAILED(test, assert,				\
			"Expected %s %s %s, but\n"			\
			"        %s == %lld (%#llx)\n"			\
			"        %s == %lld (%#llx)",			\
			#left, #op, #right,				\
			#left, (long long)__l, (unsigned long long)__l,	\
			#right, (long long)__r, (unsigned long long)__r); \
} while (0)

#define __KUNIT_TRUE(test, assert, cond, want) do {			\
	if (!!(cond) != (want))						\
		__KUNIT_FAILED(test, assert, "Expected %s to be %s",	\
			       #cond, (want) ? "true" : "false");	\
} while (0)

#define __KUNIT_PTR(test, assert, ptr, err_too) do {			\
	const void *__p = (ptr);					\
									\
	if (!__p || ((err_too) && IS_ERR(__p)))				\
		__KUNIT_FAILED(test, assert,				\
			       "Expected %s is not %s, but is %p",	\
			       #ptr, (err_too) ? "error or null" : "null", \
			       __p);					\
} while (0)

#define __KUNIT_MEMEQ(test, assert, left, right, size) do {		\
	size_t __n = (size);						\
									\
	if (memcmp((left), (right), __n))				\
		__KUNIT_FAILED(test, assert,				\
			       "Expected %s == %s (%zu bytes), but they differ", \
			       #left, #right, __n);			\
} while (0)

#define KUNIT_EXPECT_EQ(t, l, r)	__KUNIT_BINARY(t, false, l, ==, r)
#define KUNIT_EXPECT_NE(t, l, r)	__KUNIT_BINARY(t, false, l, !=, r)
#define KUNIT_EXPECT_LT(t, l, r)	__KUNIT_BINARY(t, false, l, <, r)
#define KUNIT_EXPECT_LE(t, l, r)	__KUNIT_BINARY(t, false, l, <=, r)
#define KUNIT_EXPECT_GT(t, l, r)	__KUNIT_BINARY(t, false, l, >, r)
#define KUNIT_EXPECT_GE(t, l, r)	__KUNIT_BINARY(t, false, l, >=, r)
#define KUNIT_EXPECT_TRUE(t, c)		__KUNIT_TRUE(t, false, c, true)
#define KUNIT_EXPECT_FALSE(t, c)	__KUNIT_TRUE(t, false, c, false)
#define KUNIT_EXPECT_NOT_NULL(t, p)	__KUNIT_PTR(t, false, p, false)
#define KUNIT_EXPECT_NOT_ERR_OR_NULL(t, p) __KUNIT_PTR(t, false, p, true)
#define KUNIT_EXPECT_MEMEQ(t, l, r, n)	__KUNIT_MEMEQ(t, false, l, r, n)

#define KUNIT_ASSERT_EQ(t, l, r)	__KUNIT_BINARY(t, true, l, ==, r)
#define KUNIT_ASSERT_NE(t, l, r)	__KUNIT_BINARY(t, true, l, !=, r)
#define KUNIT_ASSERT_LT(t, l, r)	__KUNIT_BINARY(t, true, l, <, r)
#define KUNIT_ASSERT_LE(t, l, r)	__KUNIT_BINARY(t, true, l, <=, r)
#define KUNIT_ASSERT_GT(t, l, r)	__KUNIT_BINARY(t, true, l, >, r)
#define KUNIT_ASSERT_GE(t, l, r)	__KUNIT_BINARY(t, true, l, >=, r)
#define KUNIT_ASSERT_TRUE(t, c)		__KUNIT_TRUE(t, true, c, true)
#define KUNIT_ASSERT_FALSE(t, c)	__KUNIT_TRUE(t, true, c, false)
#define KUNIT_ASSERT_NOT_NULL(t, p)	__KUNIT_PTR(t, true, p, false)
#define KUNIT_ASSERT_NOT_ERR_OR_NULL(t, p) __KUNIT_PTR(t, true, p, true)
#define KUNIT_ASSERT_MEMEQ(t, l, r, n)	__KUNIT_MEMEQ(t, true, l, r, n)

#define KUNIT_FAIL(t, fmt, ...) \
	__KUNIT_FAILED(t, false, fmt, ##__VA_ARGS__)

#endif /* _SDLF_KUNIT_TEST_H */
