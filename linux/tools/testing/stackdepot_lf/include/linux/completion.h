/* SPDX-License-Identifier: GPL-2.0 */
/* The KUnit suite's <linux/completion.h>: the harness keeps it in <linux/kernel.h>. */
#include <linux/kernel.h>
