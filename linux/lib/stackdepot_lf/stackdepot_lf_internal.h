/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel facilities stackdepot_lf.c uses, in one place.
 *
 * stackdepot_lf.c includes nothing but this header, so that the userspace
 * harness in tools/testing/stackdepot_lf/ can compile the very same source
 * against its own version of it: the harness defines
 * _LIB_STACKDEPOT_LF_INTERNAL_H first and provides the same names (atomics,
 * acquire/release, RCU-sched read side and grace periods, per-CPU counters
 * and the current CPU, kvmalloc, mutexes, irq_work and work items, KUnit
 * static stubs) on top of C11 atomics and pthreads.
 */
#ifndef _LIB_STACKDEPOT_LF_INTERNAL_H
#define _LIB_STACKDEPOT_LF_INTERNAL_H

#include <kunit/static_stub.h>
#include <kunit/visibility.h>
#include <linux/atomic.h>
#include <linux/bitops.h>
#include <linux/cache.h>
#include <linux/compiler.h>
#include <linux/cpumask.h>
#include <linux/errno.h>
#include <linux/export.h>
#include <linux/irq_work.h>
#include <linux/kernel.h>
#include <linux/list.h>
#include <linux/lockdep.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/rcupdate.h>
#include <linux/minmax.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/stackdepot_lf.h>
#include <linux/string.h>
#include <linux/workqueue.h>

#include <asm/local64.h>

/*
 * The read side that stackdepot_lf_reset() waits for. It must be usable in
 * NMI context and from inside the function tracer, hence the sched flavour
 * (preemption disabled) without tracing. synchronize_rcu() waits for such
 * sections since the RCU flavours were consolidated.
 */
static __always_inline bool sdlf_caller_visible(void)
{
	/*
	 * A CPU is online to RCU from rcutree_report_cpu_starting(), before
	 * it is marked online, to rcutree_report_cpu_dead(), after it is
	 * marked offline: an online CPU is always waited for.
	 */
	return rcu_is_watching() && cpu_online(raw_smp_processor_id());
}

/*
 * Enter a read section, which disables preemption; false if a grace period
 * will not wait for it: on a CPU going offline after RCU stopped waiting
 * for it, or where RCU is not watching (idle, early entry code). Either
 * way the section ends with sdlf_read_unlock().
 */
static __always_inline bool sdlf_read_lock(void)
{
	rcu_read_lock_sched_notrace();
	return likely(sdlf_caller_visible());
}

static __always_inline void sdlf_read_unlock(void)
{
	rcu_read_unlock_sched_notrace();
}

static inline void sdlf_synchronize(void)
{
	synchronize_rcu();
}

#if IS_ENABLED(CONFIG_KUNIT)
#include "stackdepot_lf_test.h"
#endif

#endif /* _LIB_STACKDEPOT_LF_INTERNAL_H */
