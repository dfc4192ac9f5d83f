// SPDX-License-Identifier: GPL-2.0
/*
 * The KUnit suite of lib/tests/stackdepot_lf_kunit.c, compiled here
 * through the KUnit shim (include/kunit/, kunit.c), so that each of its
 * cases runs on real threads under ASan/UBSan and under ThreadSanitizer.
 */
#include "../../../lib/tests/stackdepot_lf_kunit.c"
