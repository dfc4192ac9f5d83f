/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel facilities the KUnit suite uses beyond the library's own
 * (which harness.h provides): kthreads, completions, sleeping, jiffies,
 * a hard-IRQ hrtimer, prandom, online CPUs, vmalloc, on pthreads and libc
 * (runtime in kunit.c). <linux/kthread.h>, <linux/completion.h> and the
 * other headers the suite names all lead here.
 */
#ifndef _SDLF_LINUX_KERNEL_H
#define _SDLF_LINUX_KERNEL_H

#include <stdio.h>
#include <time.h>

#include "../../harness.h"

#ifndef __printf
#define __printf(a, b)	__attribute__((__format__(printf, a, b)))
#endif
#define __noreturn	__attribute__((__noreturn__))
typedef unsigned int gfp_t;

/* atomic_inc_return() and atomic_read_acquire() are harness.h's. */
#define cmpxchg(p, old, new) ({						\
	__typeof__(*(p)) __o = (old);					\
	__atomic_compare_exchange_n((p), &__o, (new), false,		\
				    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);\
	__o;								\
})

/* Time: jiffies at HZ 1000, from CLOCK_MONOTONIC. */
#define HZ			1000
unsigned long sdlf_jiffies(void);
#define jiffies			sdlf_jiffies()
#define time_before(a, b)	((long)((a) - (b)) < 0)
#define time_after(a, b)	time_before(b, a)
u64 sdlf_now_ns(void);
#define ktime_get_ns()		sdlf_now_ns()

void msleep(unsigned int msecs);
void usleep_range(unsigned long min, unsigned long max);
long schedule_timeout_interruptible(long timeout);
void cond_resched(void);
/* A thread is its own CPU here (sdlf_cpu()): it never migrates. */
#define migrate_disable()	do { } while (0)
#define migrate_enable()	do { } while (0)

/* kthreads: a pthread that waits to be woken, and stops when told to. */
struct task_struct;
struct task_struct *kthread_create(int (*fn)(void *data), void *data,
				   const char *namefmt, ...) __printf(3, 4);
#define kthread_create_on_cpu(fn, data, cpu, namefmt) \
	kthread_create((fn), (data), (namefmt), (cpu))
bool wake_up_process(struct task_struct *task);
#define kthread_run(fn, data, namefmt, ...) ({				\
	struct task_struct *__t = kthread_create((fn), (data), (namefmt), \
						 ##__VA_ARGS__);	\
									\
	if (!IS_ERR(__t))						\
		wake_up_process(__t);					\
	__t;								\
})
int kthread_stop(struct task_struct *task);
bool kthread_should_stop(void);

/* Online CPUs: those the process may run on, at least one. */
unsigned int num_online_cpus(void);
#define for_each_online_cpu(cpu) \
	for ((cpu) = 0; (cpu) < num_online_cpus(); (cpu)++)
#define cpu_online_mask		NULL
#define cpumask_first(mask)	0U
#define cpumask_next(cpu, mask) \
	((cpu) + 1 < num_online_cpus() ? (cpu) + 1 : nr_cpu_ids)
#define cpumask_last(mask)	(num_online_cpus() - 1)

/* Completions. */
struct completion {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	unsigned int done;
};

void init_completion(struct completion *x);
void complete(struct completion *x);
unsigned long wait_for_completion_timeout(struct completion *x,
					  unsigned long timeout);

/*
 * A hard-IRQ hrtimer: its function runs once, in a thread of its own that
 * says it is in hard-IRQ context with interrupts off, as the kernel's
 * HRTIMER_MODE_REL_HARD timers run.
 */
typedef s64 ktime_t;
#define ns_to_ktime(ns)		((ktime_t)(ns))
enum hrtimer_restart {
	HRTIMER_NORESTART,
	HRTIMER_RESTART,
};

enum hrtimer_mode {
	HRTIMER_MODE_REL_HARD,
};

struct hrtimer {
	enum hrtimer_restart (*function)(struct hrtimer *timer);
	ktime_t expires;
	pthread_t thread;
	bool started;
};

void hrtimer_init(struct hrtimer *timer, clockid_t clock,
		  enum hrtimer_mode mode);
void hrtimer_start(struct hrtimer *timer, ktime_t tim,
		   const enum hrtimer_mode mode);
int hrtimer_cancel(struct hrtimer *timer);
extern __thread bool sdlf_in_hardirq;
#define in_hardirq()		sdlf_in_hardirq
#define irqs_disabled()		sdlf_in_hardirq

/* prandom: a seeded generator, not the kernel's sequence. */
struct rnd_state {
	u64 s;
};

static inline void prandom_seed_state(struct rnd_state *state, u64 seed)
{
	state->s = seed;
}

static inline u32 prandom_u32_state(struct rnd_state *state)
{
	u64 z = (state->s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return (u32)((z ^ (z >> 31)) >> 32);
}

#define vzalloc(size)		calloc(1, (size) ?: 1)
#define vfree(p)		free((void *)(p))

#define SZ_4K			0x00001000
#define SZ_32K			0x00008000
#define SZ_64K			0x00010000
#define SZ_256K			0x00040000
#define SZ_1M			0x00100000
#define SZ_4M			0x00400000

#endif /* _SDLF_LINUX_KERNEL_H */
