// SPDX-License-Identifier: GPL-2.0
/*
 * Runtime of the userspace shim: thread slots, per-CPU memory, allocation,
 * the worker thread of irq_work and work items, and a userspace RCU-sched.
 *
 * Grace periods
 * -------------
 * Each thread slot has a counter, even outside and odd inside a read
 * section. sdlf_read_lock() makes it odd with a relaxed store followed by
 * a compiler barrier, which is all the kernel's preempt_disable() costs;
 * sdlf_read_unlock() makes it even with a release store. The fence that
 * would order the counter store before the section's loads is paid by
 * sdlf_synchronize() instead: it issues a seq_cst fence and then
 * membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED), which runs a full barrier
 * on every thread of the process that is running, at some point of its
 * program between the call's entry and return (a thread that is not
 * running passed through one when it was switched out), then snapshots
 * every counter and, for each odd one, waits with acquire loads until it
 * changes. This drains every section that may have missed the stores made
 * before sdlf_synchronize():
 * - a section whose counter store the snapshot sees has ended when the
 *   snapshot reads an even value, or else once the wait sees a change:
 *   either load then reads the release store of the section's unlock, or
 *   a later store of its thread, in the release sequence that the unlock
 *   heads (C11), so all of the section's accesses happen before whatever
 *   follows sdlf_synchronize();
 * - a section whose counter store the snapshot does not see yet had not
 *   made that store visible when membarrier() returned, so the barrier
 *   membarrier() ran on its thread came before the store, and after our
 *   fence; the section's loads, which the compiler barrier keeps after
 *   the store, then see every store made before sdlf_synchronize().
 * This is the store-buffering pattern that a fence on each side resolves,
 * with the reader's fence run on its behalf only when a grace period
 * needs it, as the kernel's grace periods rest on the barriers implied by
 * each CPU's quiescent states; liburcu's memb flavour is the same scheme.
 * That is the guarantee stackdepot_lf_reset() needs from synchronize_rcu():
 * once the busy bit is set and a grace period has passed, no caller that
 * saw the old generation is left. Nested read sections count as one.
 *
 * Where membarrier() cannot be registered (an older kernel, a seccomp
 * filter, a valgrind that does not know it), or SDLF_RCU_FENCE=1 is in
 * the environment, sdlf_rcu_init() picks the fenced mode once, before
 * main() and so before any thread: sdlf_read_lock() issues a seq_cst fence
 * after its counter store, sdlf_synchronize() only its own fence, and the
 * same pattern is resolved by a fence on each side. sdlf_rcu_mode() names
 * the mode, so that the benchmark says which read side it measured.
 *
 * Why not liburcu: ThreadSanitizer sees the ordering of instrumented code
 * only, and a prebuilt liburcu is not instrumented. It would not see the
 * release-acquire pair from a section's end to the code after the grace
 * period, and would report the writer's clearing or freeing as racing
 * with the sections it waited for, or miss real races once told to ignore
 * them. Here the counters are __atomic operations that TSan models (it
 * models neither fences nor membarrier(), in either mode, but it needs
 * only that pair). Nor does liburcu have a read side that a grace period
 * skips on request, which the fault-injection flag sdlf_invisible needs.
 */
#include <linux/membarrier.h>
#include <sched.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "harness.h"

struct sdlf_thread {
	unsigned long rcu_ctr;
	unsigned int nest;	/* read sections entered, owner only */
	bool unseen;		/* the outermost one is not waited for */
	int in_use;
} ____cacheline_aligned;

static struct sdlf_thread sdlf_threads[SDLF_MAX_THREADS];
static __thread struct sdlf_thread *sdlf_self;
__thread unsigned int sdlf_cpu_nr;
static pthread_key_t sdlf_key;
static pthread_once_t sdlf_key_once = PTHREAD_ONCE_INIT;

unsigned int sdlf_fail_alloc_at;
void *sdlf_stub_real, *sdlf_stub_repl;
void (*sdlf_cmpxchg_hook)(void *counter);
void (*sdlf_test_bit_hook)(const unsigned long *addr, unsigned long nr);

void sdlf_stub_activate(void *real_fn, void *replacement)
{
	sdlf_stub_real = real_fn;
	/* Pairs with the acquire in KUNIT_STATIC_STUB_REDIRECT(). */
	__atomic_store_n(&sdlf_stub_repl, replacement, __ATOMIC_RELEASE);
}

void sdlf_stub_deactivate(void)
{
	__atomic_store_n(&sdlf_stub_repl, NULL, __ATOMIC_RELAXED);
}

static void sdlf_thread_exit(void *arg)
{
	struct sdlf_thread *t = arg;

	/* Pairs with the acquire cmpxchg in sdlf_thread_register(). */
	__atomic_store_n(&t->in_use, 0, __ATOMIC_RELEASE);
}

static void sdlf_key_init(void)
{
	if (pthread_key_create(&sdlf_key, sdlf_thread_exit))
		abort();
}

static struct sdlf_thread *sdlf_thread_register(void)
{
	unsigned int i;
	int free;

	pthread_once(&sdlf_key_once, sdlf_key_init);
	for (i = 0; i < SDLF_MAX_THREADS; i++) {
		free = 0;
		/* Pairs with the release in sdlf_thread_exit(). */
		if (__atomic_compare_exchange_n(&sdlf_threads[i].in_use, &free,
						1, false, __ATOMIC_ACQUIRE,
						__ATOMIC_RELAXED)) {
			sdlf_self = &sdlf_threads[i];
			sdlf_cpu_nr = i;
			pthread_setspecific(sdlf_key, sdlf_self);
			return sdlf_self;
		}
	}
	fprintf(stderr, "harness: more than %d threads\n", SDLF_MAX_THREADS);
	abort();
}

static inline struct sdlf_thread *sdlf_thread(void)
{
	return likely(sdlf_self) ? sdlf_self : sdlf_thread_register();
}

unsigned int sdlf_this_cpu(void)
{
	return sdlf_thread() - sdlf_threads;
}

/*
 * Whether the allocation being made is the one sdlf_fail_alloc_at points
 * at. The worker thread allocates too, hence the atomics.
 */
static bool sdlf_fail_alloc_now(void)
{
	unsigned int n = __atomic_load_n(&sdlf_fail_alloc_at, __ATOMIC_RELAXED);

	while (n && !__atomic_compare_exchange_n(&sdlf_fail_alloc_at, &n, n - 1,
						 false, __ATOMIC_RELAXED,
						 __ATOMIC_RELAXED))
		;
	return n == 1;
}

void *sdlf_alloc_percpu(size_t size)
{
	size_t bytes = (size_t)SDLF_PCPU_UNIT * nr_cpu_ids;
	void *p;

	if (size > SDLF_PCPU_UNIT)
		abort();
	if (sdlf_fail_alloc_now())
		return NULL;
	p = aligned_alloc(SMP_CACHE_BYTES, bytes);
	if (p)
		memset(p, 0, bytes);
	return p;
}

void *sdlf_alloc(size_t size, bool zero)
{
	if (sdlf_fail_alloc_now())
		return NULL;
	return zero ? calloc(1, size ?: 1) : malloc(size ?: 1);
}

__thread bool sdlf_invisible;

/* Set before main() and never changed: see "Grace periods" above. */
static bool sdlf_rcu_fenced;

static int sdlf_membarrier(int cmd)
{
	return syscall(__NR_membarrier, cmd, 0, 0);
}

static void __attribute__((constructor)) sdlf_rcu_init(void)
{
	const char *force = getenv("SDLF_RCU_FENCE");

	sdlf_rcu_fenced = (force && *force && strcmp(force, "0")) ||
		sdlf_membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED);
}

const char *sdlf_rcu_mode(void)
{
	return sdlf_rcu_fenced ? "fence" : "membarrier";
}

bool sdlf_read_lock(void)
{
	struct sdlf_thread *t = sdlf_thread();
	unsigned long ctr = t->rcu_ctr;

	/* Nested sections, like nested preempt_disable(), count once. */
	if (t->nest++)
		return !t->unseen;
	/*
	 * A caller on a CPU that RCU regards as offline, or where RCU is not
	 * watching: its section is entered but not waited for.
	 */
	t->unseen = sdlf_invisible;
	if (t->unseen)
		return false;
	if (ctr & 1)
		abort();
	__atomic_store_n(&t->rcu_ctr, ctr + 1, __ATOMIC_RELAXED);
	/*
	 * Keeps the section's loads after the store. The fence between them
	 * is sdlf_synchronize()'s membarrier(), or in the fenced mode ours,
	 * which pairs with its own.
	 */
	if (unlikely(sdlf_rcu_fenced))
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
	else
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
	return true;
}

void sdlf_read_unlock(void)
{
	struct sdlf_thread *t = sdlf_self;

	if (!t->nest)
		abort();
	if (--t->nest || t->unseen)
		return;
	/* Pairs with the acquire loads in sdlf_synchronize(). */
	__atomic_store_n(&t->rcu_ctr, t->rcu_ctr + 1, __ATOMIC_RELEASE);
}

void sdlf_synchronize(void)
{
	unsigned long snap;
	unsigned int i;

	if (sdlf_self && (sdlf_self->rcu_ctr & 1))
		abort();
	/* Orders the stores before the call against the snapshot. */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	/* The readers' half of the fence; cannot fail once registered. */
	if (!sdlf_rcu_fenced &&
	    sdlf_membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED))
		abort();
	for (i = 0; i < SDLF_MAX_THREADS; i++) {
		/* Pairs with the release in sdlf_read_unlock(). */
		snap = __atomic_load_n(&sdlf_threads[i].rcu_ctr, __ATOMIC_ACQUIRE);
		if (!(snap & 1))
			continue;
		while (__atomic_load_n(&sdlf_threads[i].rcu_ctr,
				       __ATOMIC_ACQUIRE) == snap)
			sched_yield();
	}
}

/*
 * The worker: one thread, started on first use, runs queued items in
 * order. Everything about the queue is under sdlf_async_lock.
 */
static pthread_mutex_t sdlf_async_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t sdlf_async_cond = PTHREAD_COND_INITIALIZER;
enum system_states system_state = SYSTEM_RUNNING;

static struct sdlf_async *sdlf_async_head, **sdlf_async_tail = &sdlf_async_head;
static bool sdlf_async_started, sdlf_async_paused;

void sdlf_async_init(struct sdlf_async *async,
		     void (*run)(struct sdlf_async *async))
{
	memset(async, 0, sizeof(*async));
	async->run = run;
}

void sdlf_irq_work_run(struct sdlf_async *async)
{
	struct irq_work *work = container_of(async, struct irq_work, async);

	work->func(work);
}

void sdlf_work_run(struct sdlf_async *async)
{
	struct work_struct *work = container_of(async, struct work_struct,
						async);

	work->func(work);
}

static void *sdlf_async_worker(void *arg)
{
	struct sdlf_async *async;

	pthread_mutex_lock(&sdlf_async_lock);
	for (;;) {
		while (!sdlf_async_head || sdlf_async_paused)
			pthread_cond_wait(&sdlf_async_cond, &sdlf_async_lock);
		async = sdlf_async_head;
		sdlf_async_head = async->next;
		if (!sdlf_async_head)
			sdlf_async_tail = &sdlf_async_head;
		async->pending = false;
		async->running = true;
		pthread_mutex_unlock(&sdlf_async_lock);
		async->run(async);
		pthread_mutex_lock(&sdlf_async_lock);
		async->running = false;
		pthread_cond_broadcast(&sdlf_async_cond);
	}
	return NULL;
}

bool sdlf_async_queue(struct sdlf_async *async)
{
	pthread_t tid;
	bool queued = false;

	pthread_mutex_lock(&sdlf_async_lock);
	if (!sdlf_async_started) {
		if (pthread_create(&tid, NULL, sdlf_async_worker, NULL))
			abort();
		pthread_detach(tid);
		sdlf_async_started = true;
	}
	if (!async->pending) {
		async->pending = true;
		async->next = NULL;
		*sdlf_async_tail = async;
		sdlf_async_tail = &async->next;
		pthread_cond_broadcast(&sdlf_async_cond);
		queued = true;
	}
	pthread_mutex_unlock(&sdlf_async_lock);
	return queued;
}

/* Wait for @async to be neither pending nor running; @cancel: unqueue it. */
void sdlf_async_wait(struct sdlf_async *async, bool cancel)
{
	struct sdlf_async **p;

	pthread_mutex_lock(&sdlf_async_lock);
	if (cancel && async->pending) {
		for (p = &sdlf_async_head; *p != async; p = &(*p)->next)
			;
		*p = async->next;
		if (sdlf_async_tail == &async->next)
			sdlf_async_tail = p;
		async->pending = false;
	}
	while (async->pending || async->running) {
		if (sdlf_async_paused)
			abort();	/* would wait forever */
		pthread_cond_wait(&sdlf_async_cond, &sdlf_async_lock);
	}
	pthread_mutex_unlock(&sdlf_async_lock);
}

void sdlf_async_pause(bool pause)
{
	pthread_mutex_lock(&sdlf_async_lock);
	sdlf_async_paused = pause;
	pthread_cond_broadcast(&sdlf_async_cond);
	pthread_mutex_unlock(&sdlf_async_lock);
}
