/* SPDX-License-Identifier: GPL-2.0 */
/* The KUnit suite's <linux/sizes.h>: the harness keeps it in <linux/kernel.h>. */
#include <linux/kernel.h>
