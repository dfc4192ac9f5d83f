/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace stand-in for <linux/limits.h>: SIZE_MAX and friends. */
#ifndef _SDLF_LINUX_LIMITS_H
#define _SDLF_LINUX_LIMITS_H

#include <stdint.h>

#endif /* _SDLF_LINUX_LIMITS_H */
