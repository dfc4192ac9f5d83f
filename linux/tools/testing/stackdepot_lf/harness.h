/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace stand-in for lib/stackdepot_lf/stackdepot_lf_internal.h.
 *
 * stackdepot_lf.c includes nothing but its internal header. Defining that
 * header's guard here and providing the same names lets the harness build
 * the very same source: atomics and acquire/release map to __atomic
 * builtins (so ThreadSanitizer sees every lockless access), per-CPU data to
 * per-thread slots, RCU-sched to the small grace-period scheme in
 * harness.c, and allocation and mutexes to libc and pthreads.
 */
#ifndef _SDLF_HARNESS_H
#define _SDLF_HARNESS_H

#define _LIB_STACKDEPOT_LF_INTERNAL_H
#define CONFIG_STACKDEPOT_LF 1

#include <errno.h>
#include <sys/cdefs.h>	/* __always_inline */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <linux/err.h>
#include <linux/types.h>
#include <linux/stackdepot_lf.h>

#define likely(x)		__builtin_expect(!!(x), 1)
#define unlikely(x)		__builtin_expect(!!(x), 0)
#define SMP_CACHE_BYTES		64
#define __aligned(x)		__attribute__((__aligned__(x)))
#define ____cacheline_aligned	__aligned(SMP_CACHE_BYTES)
#define EXPORT_SYMBOL_GPL(sym)
#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))

#define U32_MAX			((u32)~0U)
#define noinline		__attribute__((__noinline__))
#define DIV_ROUND_UP(n, d)	(((n) + (d) - 1) / (d))
#define max(a, b)		((a) > (b) ? (a) : (b))
#define clamp_t(type, v, lo, hi) \
	min((type)max((type)(v), (type)(lo)), (type)(hi))
#define order_base_2(n)		((n) <= 1 ? 0 : 64 - __builtin_clzll((n) - 1))
#define container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))
#define ALIGN(x, a)		(((x) + ((a) - 1)) & ~((__typeof__(x))(a) - 1))
#define ALIGN_DOWN(x, a)	((x) & ~((__typeof__(x))(a) - 1))
#define min(a, b)		((a) < (b) ? (a) : (b))
#define min_t(type, a, b)	min((type)(a), (type)(b))
#define max_t(type, a, b)	max((type)(a), (type)(b))
#define ilog2(n)		(63 - __builtin_clzll(n))
/* As <linux/build_bug.h> has it: the message may be left out. */
#undef static_assert
#define static_assert(expr, ...)	__static_assert(expr, ##__VA_ARGS__, #expr)
#define __static_assert(expr, msg, ...)	_Static_assert(expr, msg)

static inline unsigned long roundup_pow_of_two(unsigned long n)
{
	return n <= 1 ? 1 : 1UL << (64 - __builtin_clzl(n - 1));
}

/* RCU-published pointers: the shim's read side is the harness's own. */
#define rcu_dereference_sched(p)	__atomic_load_n(&(p), __ATOMIC_ACQUIRE)
#define rcu_assign_pointer(p, v)	__atomic_store_n(&(p), (v), __ATOMIC_RELEASE)
#define RCU_INIT_POINTER(p, v)		__atomic_store_n(&(p), (v), __ATOMIC_RELAXED)
#define rcu_access_pointer(p)		__atomic_load_n(&(p), __ATOMIC_RELAXED)
/* Only the writer, holding the lock, uses these. */
#define rcu_dereference_protected(p, c)	(p)
#define lockdep_is_held(m)		1
#define lockdep_assert_held(m)		do { } while (0)

/* A doubly linked list, the kernel's <linux/list.h> in the library's use. */
struct list_head {
	struct list_head *next, *prev;
};

#define LIST_HEAD(name)	struct list_head name = { &(name), &(name) }

static inline void list_add(struct list_head *entry, struct list_head *head)
{
	entry->next = head->next;
	entry->prev = head;
	head->next->prev = entry;
	head->next = entry;
}

static inline void list_del(struct list_head *entry)
{
	entry->prev->next = entry->next;
	entry->next->prev = entry->prev;
	entry->next = NULL;
	entry->prev = NULL;
}

/*
 * Walks the nodes, not the entries: the kernel's version forms an entry
 * pointer from the head too, which UBSan takes for a misaligned access
 * when the entry type is cache-line aligned.
 */
#define list_for_each_entry(pos, head, member)				\
	for (struct list_head *__node = (head)->next;			\
	     __node != (head) &&						\
	     ((pos) = container_of(__node, __typeof__(*(pos)), member), 1); \
	     __node = __node->next)

/* Lockless accesses: relaxed unless the kernel primitive orders. */
#define READ_ONCE(x)		__atomic_load_n(&(x), __ATOMIC_RELAXED)
#define WRITE_ONCE(x, v)	__atomic_store_n(&(x), (v), __ATOMIC_RELAXED)
/* The library names the pair of each; here they only map to C11. */
#define smp_load_acquire(p)	__atomic_load_n((p), __ATOMIC_ACQUIRE)
/* As above: an acquire or release is only as good as its pair. */
#define smp_store_release(p, v)	__atomic_store_n((p), (v), __ATOMIC_RELEASE)
/* Orders loads before later loads, as the kernel's does; as above. */
#define smp_rmb()		__atomic_thread_fence(__ATOMIC_ACQUIRE)
/* A full barrier, as the kernel's. */
#define smp_mb()		__atomic_thread_fence(__ATOMIC_SEQ_CST)

/* Returns the value found, like the kernel's; a failure orders nothing. */
#define cmpxchg_release(p, old, new) ({					\
	__typeof__(*(p)) __old = (old);					\
	__atomic_compare_exchange_n((p), &__old, (new), false,		\
				    __ATOMIC_RELEASE, __ATOMIC_RELAXED);\
	__old;								\
})

/* Bit operations: atomic, as the kernel's test_bit() counts for KCSAN. */
#define BITS_PER_LONG		(8 * (int)sizeof(long))
#define BIT_ULL(nr)		(1ULL << (nr))
#define BIT_WORD(nr)		((nr) / BITS_PER_LONG)
#define BIT_MASK(nr)		(1UL << ((nr) % BITS_PER_LONG))
#define BITS_TO_LONGS(nr)	DIV_ROUND_UP((size_t)(nr), BITS_PER_LONG)

/*
 * A test hook run by test_bit() after its load (a fault injection point,
 * like sdlf_cmpxchg_hook below): a test can make another call there,
 * between a caller's test of a mark and its setting of it, so that a mark
 * tested and then set in two steps elects two callers; compiled out of
 * the benchmark.
 */
#ifdef SDLF_NO_HOOKS
#define sdlf_test_bit_hook_run(addr, nr)	((void)(addr), (void)(nr))
#else
extern void (*sdlf_test_bit_hook)(const unsigned long *addr,
				  unsigned long nr);
#define sdlf_test_bit_hook_run(addr, nr) do {				\
	__typeof__(sdlf_test_bit_hook) __hook =				\
		__atomic_load_n(&sdlf_test_bit_hook, __ATOMIC_ACQUIRE);	\
									\
	if (unlikely(__hook))						\
		__hook((addr), (nr));					\
} while (0)
#endif

static inline bool test_bit(unsigned long nr, const unsigned long *addr)
{
	bool ret = __atomic_load_n(&addr[BIT_WORD(nr)], __ATOMIC_RELAXED) &
		   BIT_MASK(nr);

	sdlf_test_bit_hook_run(addr, nr);
	return ret;
}

/* Fully ordered, like every value-returning atomic of the kernel. */
static inline bool test_and_set_bit(unsigned long nr, unsigned long *addr)
{
	return __atomic_fetch_or(&addr[BIT_WORD(nr)], BIT_MASK(nr),
				 __ATOMIC_SEQ_CST) & BIT_MASK(nr);
}

/* Unordered, as the kernel's clear_bit() is. */
static inline void clear_bit(unsigned long nr, unsigned long *addr)
{
	__atomic_fetch_and(&addr[BIT_WORD(nr)], ~BIT_MASK(nr),
			   __ATOMIC_RELAXED);
}

/* What the compiler may not move accesses across, as the kernel's. */
#define barrier()	({ __asm__ __volatile__("" ::: "memory"); })

/* Fully ordered, as the kernel's is. */
#define xchg(p, v)	__atomic_exchange_n((p), (v), __ATOMIC_SEQ_CST)

typedef struct { int counter; } atomic_t;
typedef struct { long counter; } atomic_long_t;

#define __SDLF_ATOMIC_OPS(pfx, type)					\
static inline type pfx##_read(const pfx##_t *v)				\
{									\
	return __atomic_load_n(&v->counter, __ATOMIC_RELAXED);		\
}									\
static inline type pfx##_read_acquire(const pfx##_t *v)		\
{									\
	return __atomic_load_n(&v->counter, __ATOMIC_ACQUIRE);		\
}									\
static inline void pfx##_set(pfx##_t *v, type i)			\
{									\
	__atomic_store_n(&v->counter, i, __ATOMIC_RELAXED);		\
}									\
static inline void pfx##_add(type i, pfx##_t *v)			\
{									\
	__atomic_fetch_add(&v->counter, i, __ATOMIC_RELAXED);		\
}									\
static inline void pfx##_sub(type i, pfx##_t *v)			\
{									\
	pfx##_add(-i, v);						\
}									\
static inline void pfx##_inc(pfx##_t *v)				\
{									\
	pfx##_add(1, v);						\
}									\
/* Fully ordered, like every value-returning atomic of the kernel. */	\
static inline type pfx##_inc_return(pfx##_t *v)			\
{									\
	return __atomic_add_fetch(&v->counter, 1, __ATOMIC_SEQ_CST);	\
}									\
static inline void pfx##_dec(pfx##_t *v)				\
{									\
	pfx##_add(-1, v);						\
}									\
__SDLF_TRY_CMPXCHG(pfx, type, _relaxed, __ATOMIC_RELAXED)		\
__SDLF_TRY_CMPXCHG(pfx, type, _acquire, __ATOMIC_ACQUIRE)		\
__SDLF_TRY_CMPXCHG(pfx, type, _release, __ATOMIC_RELEASE)

/*
 * A test hook run before each atomic try_cmpxchg (a fault
 * injection point: a test can make a nested call there, so that the
 * caller's cmpxchg finds the value moved); compiled out of the benchmark.
 */
#ifdef SDLF_NO_HOOKS
#define sdlf_cmpxchg_hook_run(v)	do { } while (0)
#else
extern void (*sdlf_cmpxchg_hook)(void *counter);
#define sdlf_cmpxchg_hook_run(v) do {					\
	void (*__hook)(void *counter) =				\
		__atomic_load_n(&sdlf_cmpxchg_hook, __ATOMIC_ACQUIRE);	\
									\
	if (unlikely(__hook))						\
		__hook(v);						\
} while (0)
#endif

#define __SDLF_TRY_CMPXCHG(pfx, type, sfx, order)			\
static inline bool pfx##_try_cmpxchg##sfx(pfx##_t *v, type *old, type new)\
{									\
	sdlf_cmpxchg_hook_run(&v->counter);				\
	return __atomic_compare_exchange_n(&v->counter, old, new, false,\
					   order, __ATOMIC_RELAXED);	\
}

typedef struct { s64 counter; } atomic64_t;

__SDLF_ATOMIC_OPS(atomic, int)
__SDLF_ATOMIC_OPS(atomic_long, long)
__SDLF_ATOMIC_OPS(atomic64, s64)

/*
 * Per-CPU data: one slot per registered thread (see harness.c), each
 * SDLF_PCPU_UNIT bytes apart. As with local64_inc() on a CPU, only the
 * owner of a slot writes it, so a relaxed load and store suffice; readers
 * summing the slots use READ_ONCE().
 */
#define SDLF_MAX_THREADS	64
#define SDLF_PCPU_UNIT		128
#define nr_cpu_ids		SDLF_MAX_THREADS
#define for_each_possible_cpu(cpu) \
	for ((cpu) = 0; (cpu) < nr_cpu_ids; (cpu)++)
#define per_cpu_ptr(p, cpu) \
	((__typeof__(p))((char *)(p) + (size_t)(cpu) * SDLF_PCPU_UNIT))
#define raw_cpu_ptr(p)		per_cpu_ptr((p), sdlf_cpu())
/* local64_t: written by its owner only, like a CPU's own counter. */
typedef struct { s64 counter; } local64_t;
static inline void local64_inc(local64_t *l)
{
	__atomic_store_n(&l->counter,
			 __atomic_load_n(&l->counter, __ATOMIC_RELAXED) + 1,
			 __ATOMIC_RELAXED);
}

static inline s64 local64_read(local64_t *l)
{
	return __atomic_load_n(&l->counter, __ATOMIC_RELAXED);
}

#define alloc_percpu(type)	((type *)sdlf_alloc_percpu(sizeof(type)))
#define free_percpu(p)		free(p)

unsigned int sdlf_this_cpu(void);
void *sdlf_alloc_percpu(size_t size);
/*
 * The slot of a thread inside sdlf_read_lock(), which sets it: a plain
 * thread-local load, as the kernel's is one per-CPU load.
 */
extern __thread unsigned int sdlf_cpu_nr;
#define sdlf_cpu()		sdlf_cpu_nr

/* Allocation; sdlf_fail_alloc_at makes the n-th allocation from now fail. */
#define GFP_KERNEL		0
extern unsigned int sdlf_fail_alloc_at;
void *sdlf_alloc(size_t size, bool zero);
#define kzalloc(size, gfp)	sdlf_alloc((size), true)
#define kvzalloc(size, gfp)	sdlf_alloc((size), true)
#define kvcalloc(n, size, gfp)	sdlf_alloc((size_t)(n) * (size), true)
#define kvmalloc(size, gfp)	sdlf_alloc((size), false)
#define kfree(p)		free(p)
#define kvfree(p)		free(p)

/*
 * irq_work and work items, run by one worker thread of the harness in the
 * order they were queued (harness.c). As in the kernel, queueing an item
 * that is still pending does nothing, an item clears its pending bit just
 * before it runs, and the _sync/flush calls wait for a run in progress.
 * Tests can hold the worker back with sdlf_async_pause().
 */
struct sdlf_async {
	struct sdlf_async *next;
	void (*run)(struct sdlf_async *async);
	bool pending;	/* harness.c's lock */
	bool running;	/* harness.c's lock */
};

struct irq_work {
	struct sdlf_async async;
	void (*func)(struct irq_work *work);
};

struct work_struct {
	struct sdlf_async async;
	void (*func)(struct work_struct *work);
};

struct workqueue_struct;
#define system_unbound_wq	((struct workqueue_struct *)NULL)

void sdlf_async_init(struct sdlf_async *async,
		     void (*run)(struct sdlf_async *async));
bool sdlf_async_queue(struct sdlf_async *async);
void sdlf_async_wait(struct sdlf_async *async, bool cancel);
void sdlf_async_pause(bool pause);
void sdlf_irq_work_run(struct sdlf_async *async);
void sdlf_work_run(struct sdlf_async *async);

#define init_irq_work(w, fn) do {					\
	(w)->func = (fn);						\
	sdlf_async_init(&(w)->async, sdlf_irq_work_run);		\
} while (0)
#define irq_work_queue(w)	sdlf_async_queue(&(w)->async)
#define irq_work_sync(w)	sdlf_async_wait(&(w)->async, false)
#define INIT_WORK(w, fn) do {						\
	(w)->func = (fn);						\
	sdlf_async_init(&(w)->async, sdlf_work_run);			\
} while (0)
#define queue_work(wq, w)	sdlf_async_queue(&(w)->async)
#define flush_work(w)		sdlf_async_wait(&(w)->async, false)
#define cancel_work_sync(w)	sdlf_async_wait(&(w)->async, true)

struct mutex {
	pthread_mutex_t lock;
};

#define DEFINE_MUTEX(m)		struct mutex m = { PTHREAD_MUTEX_INITIALIZER }
#define mutex_init(m)		pthread_mutex_init(&(m)->lock, NULL)
#define mutex_lock(m)		pthread_mutex_lock(&(m)->lock)
#define mutex_unlock(m)		pthread_mutex_unlock(&(m)->lock)
#define mutex_destroy(m)	pthread_mutex_destroy(&(m)->lock)

/*
 * KUnit static stubs, as kunit_activate_static_stub() provides them: one
 * replacement at a time, looked up by the redirect at the top of the real
 * function. Tests set it with sdlf_stub_activate() from a quiescent point.
 */
#define VISIBLE_IF_KUNIT
#define EXPORT_SYMBOL_IF_KUNIT(sym)
extern void *sdlf_stub_real, *sdlf_stub_repl;
#define KUNIT_STATIC_STUB_REDIRECT(real_fn_name, args...) do {		\
	void *__repl = __atomic_load_n(&sdlf_stub_repl, __ATOMIC_ACQUIRE);\
									\
	if (unlikely(__repl) && sdlf_stub_real == (void *)real_fn_name)	\
		return ((__typeof__(&real_fn_name))__repl)(args);	\
} while (0)
void sdlf_stub_activate(void *real_fn, void *replacement);
void sdlf_stub_deactivate(void);
/* The library's test-only functions, as the kernel's tests see them. */
#include "../../../lib/stackdepot_lf/stackdepot_lf_test.h"
#define IS_ENABLED(option)	1	/* only CONFIG_KUNIT is asked */
#define in_nmi()		0

/* The boot stage; SYSTEM_RUNNING unless a test plays boot (harness.c). */
enum system_states {
	SYSTEM_BOOTING,
	SYSTEM_SCHEDULING,
	SYSTEM_RUNNING,
};

extern enum system_states system_state;

/* RCU-sched read side and grace period; the guarantee is in harness.c. */
/*
 * Fault injection: while a thread sets sdlf_invisible, the read sections
 * it enters are not waited for by sdlf_synchronize(), as on a CPU that RCU
 * regards as offline, and sdlf_read_lock() says so by returning false;
 * like the kernel's, they still end with sdlf_read_unlock().
 */
extern __thread bool sdlf_invisible;
#define sdlf_caller_visible()	(!sdlf_invisible)
bool sdlf_read_lock(void);
void sdlf_read_unlock(void);
void sdlf_synchronize(void);
/*
 * "membarrier": grace periods run the readers' fence, and a read section
 * costs a compiler barrier; "fence", where membarrier(2) is missing or
 * SDLF_RCU_FENCE=1: each read section issues a seq_cst fence.
 */
const char *sdlf_rcu_mode(void);

#endif /* _SDLF_HARNESS_H */
