// SPDX-License-Identifier: GPL-2.0
/*
 * The library itself, built against the harness shim: harness.h defines
 * the guard of stackdepot_lf_internal.h, so the #include in the library
 * picks up nothing of the kernel.
 */
#include "harness.h"
#include "../../../lib/stackdepot_lf/stackdepot_lf.c"
