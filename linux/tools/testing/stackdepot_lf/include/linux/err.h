/* SPDX-License-Identifier: GPL-2.0 */
/* Error pointers as in the kernel's <linux/err.h>. */
#ifndef _SDLF_HARNESS_LINUX_ERR_H
#define _SDLF_HARNESS_LINUX_ERR_H

#include <stdbool.h>

#define MAX_ERRNO	4095

#define IS_ERR_VALUE(x)	((unsigned long)(void *)(x) >= (unsigned long)-MAX_ERRNO)

static inline void *ERR_PTR(long error)
{
	return (void *)error;
}

static inline long PTR_ERR(const void *ptr)
{
	return (long)ptr;
}

static inline bool IS_ERR(const void *ptr)
{
	return IS_ERR_VALUE(ptr);
}

static inline bool IS_ERR_OR_NULL(const void *ptr)
{
	return !ptr || IS_ERR_VALUE(ptr);
}

static inline long PTR_ERR_OR_ZERO(const void *ptr)
{
	return IS_ERR(ptr) ? PTR_ERR(ptr) : 0;
}

#endif /* _SDLF_HARNESS_LINUX_ERR_H */
