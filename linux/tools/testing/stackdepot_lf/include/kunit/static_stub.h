/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KUnit static stubs for the KUnit suite in the harness: the redirect in
 * the library is harness.h's, which holds one replacement at a time; a
 * replacement set by a case is taken away when the case ends, as the
 * kernel's is.
 */
#ifndef _SDLF_KUNIT_STATIC_STUB_H
#define _SDLF_KUNIT_STATIC_STUB_H

#include <kunit/test.h>

void __kunit_activate_static_stub(struct kunit *test, void *real_fn_addr,
				  void *replacement_addr);

#define kunit_activate_static_stub(test, real_fn_addr, replacement_addr) \
	__kunit_activate_static_stub((test), (void *)(real_fn_addr),	\
		(void *)(__typeof__(&(real_fn_addr)))(replacement_addr))
#define kunit_deactivate_static_stub(test, real_fn_addr)		\
	__kunit_activate_static_stub((test), (void *)(real_fn_addr), NULL)

#endif /* _SDLF_KUNIT_STATIC_STUB_H */
