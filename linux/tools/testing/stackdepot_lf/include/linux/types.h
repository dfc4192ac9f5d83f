/* SPDX-License-Identifier: GPL-2.0 */
/* The part of <linux/types.h> that <linux/stackdepot_lf.h> needs. */
#ifndef _SDLF_HARNESS_LINUX_TYPES_H
#define _SDLF_HARNESS_LINUX_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
/* As in the kernel, on every architecture: printed with %llu. */
typedef unsigned long long u64;
typedef int32_t s32;
typedef long long s64;

/* Sparse annotations mean nothing to clang. */
#define __bitwise
#define __force
#define __rcu
#define __percpu
#define __must_check	__attribute__((__warn_unused_result__))

#endif /* _SDLF_HARNESS_LINUX_TYPES_H */
