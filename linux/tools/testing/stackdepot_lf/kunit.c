// SPDX-License-Identifier: GPL-2.0
/*
 * The KUnit shim's runtime: the runner that prints KTAP, assertions,
 * deferred actions and test allocations, and the kernel facilities of
 * <linux/kernel.h> (kthreads, completions, the hard-IRQ hrtimer, jiffies)
 * on pthreads.
 *
 * Each case, and each parameter of a parameterised case, runs in a fresh
 * thread, as the kernel runs it in a kthread of its own: a failed
 * assertion calls pthread_exit(), and the runner then runs the case's
 * deferred actions (last registered first) and the suite's exit, so a
 * case that asserts leaves no thread running on freed memory if it
 * registered the stop of each thread it started.
 *
 * Usage: kunit [-l] [-t SECONDS] [GLOB]: run the suites' cases whose
 * "suite.case" matches GLOB (fnmatch(3)), or list them with -l; a case
 * that runs longer than SECONDS (300) ends the run. Exits 1 if any failed.
 */
#define _GNU_SOURCE	/* pthread_timedjoin_np() */
#include <fnmatch.h>
#include <stdarg.h>
#include <unistd.h>

#include "util.h"

#include <kunit/static_stub.h>
#include <kunit/test.h>

static struct kunit_suite *suites, **suites_tail = &suites;
static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
static __thread struct kunit *current_test;

void __kunit_register_suite(struct kunit_suite *suite)
{
	suite->next = NULL;
	*suites_tail = suite;
	suites_tail = &suite->next;
}

struct kunit *kunit_get_current_test(void)
{
	return current_test;
}

void kunit_log_line(struct kunit *test, const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&log_lock);
	printf("    # %s: ", test ? test->name : "?");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	if (!*fmt || fmt[strlen(fmt) - 1] != '\n')
		putchar('\n');
	fflush(stdout);
	pthread_mutex_unlock(&log_lock);
}

void __kunit_fail(struct kunit *test, const char *file, int line,
		  const char *fmt, ...)
{
	va_list ap;

	__atomic_store_n(&test->status, KUNIT_FAILURE, __ATOMIC_RELAXED);
	pthread_mutex_lock(&log_lock);
	printf("    # %s: EXPECTATION FAILED at %s:%d\n    ", test->name, file,
	       line);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
	pthread_mutex_unlock(&log_lock);
}

void __kunit_abort(struct kunit *test)
{
	/* Only the case's own thread can be ended like the kernel's. */
	if (!pthread_equal(pthread_self(), test->thread)) {
		fprintf(stderr, "kunit: assertion outside the case's thread\n");
		abort();
	}
	pthread_exit(NULL);
}

struct kunit_action_entry {
	struct kunit_action_entry *next;
	kunit_action_t *action;
	void *ctx;
};

int kunit_add_action(struct kunit *test, kunit_action_t *action, void *ctx)
{
	struct kunit_action_entry *e = malloc(sizeof(*e));

	if (!e)
		return -ENOMEM;
	e->action = action;
	e->ctx = ctx;
	e->next = test->actions;
	test->actions = e;
	return 0;
}

int kunit_add_action_or_reset(struct kunit *test, kunit_action_t *action,
			      void *ctx)
{
	int ret = kunit_add_action(test, action, ctx);

	if (ret)
		action(ctx);
	return ret;
}

static struct kunit_action_entry *unlink_action(struct kunit *test,
						kunit_action_t *action,
						void *ctx)
{
	struct kunit_action_entry **p, *e;

	for (p = &test->actions; (e = *p); p = &e->next) {
		if (e->action == action && e->ctx == ctx) {
			*p = e->next;
			return e;
		}
	}
	return NULL;
}

void kunit_release_action(struct kunit *test, kunit_action_t *action,
			  void *ctx)
{
	struct kunit_action_entry *e = unlink_action(test, action, ctx);

	if (e) {
		e->action(e->ctx);
		free(e);
	}
}

void kunit_remove_action(struct kunit *test, kunit_action_t *action,
			 void *ctx)
{
	free(unlink_action(test, action, ctx));
}

static void run_actions(struct kunit *test)
{
	struct kunit_action_entry *e;

	while ((e = test->actions)) {
		test->actions = e->next;
		e->action(e->ctx);
		free(e);
	}
}

static void free_action(void *p)
{
	free(p);
}

void *kunit_kmalloc_array(struct kunit *test, size_t n, size_t size,
			  gfp_t gfp)
{
	void *p = calloc(n ?: 1, size ?: 1);

	if (p && kunit_add_action_or_reset(test, free_action, p))
		return NULL;
	return p;
}

static void deactivate_stub(void *ctx)
{
	sdlf_stub_deactivate();
}

void __kunit_activate_static_stub(struct kunit *test, void *real_fn_addr,
				  void *replacement_addr)
{
	if (!replacement_addr) {
		sdlf_stub_deactivate();
		kunit_remove_action(test, deactivate_stub, NULL);
		return;
	}
	sdlf_stub_activate(real_fn_addr, replacement_addr);
	kunit_remove_action(test, deactivate_stub, NULL);
	if (kunit_add_action(test, deactivate_stub, NULL))
		abort();
}

/* The case runner: one thread per case or parameter. */
struct case_run {
	struct kunit *test;
	struct kunit_suite *suite;
	struct kunit_case *tc;
};

static void *case_thread(void *arg)
{
	struct case_run *run = arg;
	struct kunit *test = run->test;

	current_test = test;
	test->thread = pthread_self();
	if (run->suite->init && run->suite->init(test)) {
		__atomic_store_n(&test->status, KUNIT_FAILURE, __ATOMIC_RELAXED);
		return NULL;
	}
	run->tc->run_case(test);
	return NULL;
}

/* Cleanup runs in a thread of its own too: its assertions may end it. */
static void *cleanup_thread(void *arg)
{
	struct case_run *run = arg;

	current_test = run->test;
	run->test->thread = pthread_self();
	if (run->suite->exit)
		run->suite->exit(run->test);
	run_actions(run->test);
	return NULL;
}

static unsigned int case_timeout = 300;

/*
 * Wait for a case's thread, or its cleanup's, as the kernel does, for
 * case_timeout seconds (-t): a case that hangs ends the run, which the
 * parser then reports as an incomplete suite, rather than hang it.
 */
static void join_or_time_out(pthread_t tid, struct kunit *test)
{
	struct timespec deadline;

	clock_gettime(CLOCK_REALTIME, &deadline);
	deadline.tv_sec += case_timeout;
	if (!pthread_timedjoin_np(tid, NULL, &deadline))
		return;
	printf("    # %s: timed out after %u s\n", test->name, case_timeout);
	fflush(stdout);
	_exit(1);
}

static int run_one(struct kunit_suite *suite, struct kunit_case *tc,
		   const void *param)
{
	struct kunit test = {
		.name = tc->name,
		.param_value = param,
	};
	struct case_run run = { .test = &test, .suite = suite, .tc = tc };
	struct kunit_suite no_exit = { .name = suite->name };
	pthread_t tid;

	if (pthread_create(&tid, NULL, case_thread, &run))
		abort();
	join_or_time_out(tid, &test);
	/*
	 * The suite's exit, then the actions; if one of them asserts, the
	 * actions it left are run in a new thread, the exit not again.
	 */
	while (test.actions || run.suite->exit) {
		if (pthread_create(&tid, NULL, cleanup_thread, &run))
			abort();
		join_or_time_out(tid, &test);
		run.suite = &no_exit;
	}
	return __atomic_load_n(&test.status, __ATOMIC_RELAXED);
}

static const char *glob;
static bool list_only;

static bool selected(struct kunit_suite *suite, struct kunit_case *tc)
{
	char name[256];

	if (!glob)
		return true;
	snprintf(name, sizeof(name), "%s.%s", suite->name, tc->name);
	return !fnmatch(glob, name, 0) || !fnmatch(glob, suite->name, 0);
}

static unsigned int count_cases(struct kunit_suite *suite)
{
	struct kunit_case *tc;
	unsigned int n = 0;

	for (tc = suite->test_cases; tc->run_case; tc++)
		n += selected(suite, tc);
	return n;
}

/* A case: its result line, after the parameters' lines if it has any. */
static int run_case(struct kunit_suite *suite, struct kunit_case *tc,
		    unsigned int nr)
{
	char desc[KUNIT_PARAM_DESC_SIZE];
	const void *param = NULL;
	unsigned int i = 0;
	int status = KUNIT_SUCCESS, st;

	if (!tc->generate_params) {
		status = run_one(suite, tc, NULL);
	} else {
		printf("        KTAP version 1\n        # Subtest: %s\n",
		       tc->name);
		for (;;) {
			desc[0] = '\0';
			param = tc->generate_params(param, desc);
			if (!param)
				break;
			if (!desc[0])
				snprintf(desc, sizeof(desc), "param-%u", i);
			st = run_one(suite, tc, param);
			printf("        %s %u %s\n",
			       st == KUNIT_FAILURE ? "not ok" : "ok", ++i, desc);
			fflush(stdout);
			if (st == KUNIT_FAILURE)
				status = st;
		}
	}
	printf("    %s %u %s\n", status == KUNIT_FAILURE ? "not ok" : "ok", nr,
	       tc->name);
	fflush(stdout);
	return status;
}

static int run_suite(struct kunit_suite *suite, unsigned int nr)
{
	unsigned int n = count_cases(suite), i = 0, failed = 0;
	struct kunit_case *tc;
	int init = 0;

	printf("    KTAP version 1\n    # Subtest: %s\n    1..%u\n",
	       suite->name, n);
	fflush(stdout);
	if (suite->suite_init)
		init = suite->suite_init(suite);
	for (tc = suite->test_cases; !init && tc->run_case; tc++) {
		if (selected(suite, tc))
			failed += run_case(suite, tc, ++i) == KUNIT_FAILURE;
	}
	if (!init && suite->suite_exit)
		suite->suite_exit(suite);
	printf("# %s: pass:%u fail:%u skip:0 total:%u\n", suite->name,
	       i - failed, failed, i);
	printf("%s %u %s\n", init || failed ? "not ok" : "ok", nr, suite->name);
	fflush(stdout);
	return init || failed;
}

#define USAGE	"usage: %s [-l] [-t SECONDS] [GLOB]\n"

int main(int argc, char **argv)
{
	struct kunit_suite *suite;
	struct kunit_case *tc;
	unsigned int n = 0, nr = 0;
	int opt, failed = 0;
	u64 timeout;

	while ((opt = getopt(argc, argv, "lt:h")) != -1) {
		switch (opt) {
		case 'l':
			list_only = true;
			break;
		case 't':
			if (sdlf_parse_u64(optarg, &timeout) || !timeout ||
			    timeout > 86400)
				goto usage;
			case_timeout = timeout;
			break;
		case 'h':
			printf(USAGE, argv[0]);
			return 0;
		default:
			goto usage;
		}
	}
	if (optind < argc)
		glob = argv[optind++];
	if (optind < argc)
		goto usage;
	for (suite = suites; suite; suite = suite->next) {
		for (tc = suite->test_cases; list_only && tc->run_case; tc++)
			if (selected(suite, tc))
				printf("%s.%s\n", suite->name, tc->name);
		n += count_cases(suite) > 0;
	}
	if (list_only)
		return 0;
	printf("KTAP version 1\n1..%u\n", n);
	for (suite = suites; suite; suite = suite->next)
		if (count_cases(suite))
			failed |= run_suite(suite, ++nr);
	return failed;
usage:
	fprintf(stderr, USAGE, argv[0]);
	return 2;
}

/* The facilities of <linux/kernel.h>. */
unsigned long sdlf_jiffies(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long)ts.tv_sec * HZ + ts.tv_nsec / (1000000000 / HZ);
}

void msleep(unsigned int msecs)
{
	usleep(msecs * 1000);
}

void usleep_range(unsigned long min, unsigned long max)
{
	usleep(min);
}

long schedule_timeout_interruptible(long timeout)
{
	usleep(timeout * (1000000 / HZ));
	return 0;
}

void cond_resched(void)
{
	sched_yield();
}

unsigned int num_online_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n > 0 ? n : 1;
}

struct task_struct {
	int (*fn)(void *data);
	void *data;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool woken;		/* @lock */
	bool should_stop;	/* atomic */
	int ret;
};

static __thread struct task_struct *current_task;

static void *kthread_main(void *arg)
{
	struct task_struct *task = arg;

	current_task = task;
	pthread_mutex_lock(&task->lock);
	while (!task->woken)
		pthread_cond_wait(&task->cond, &task->lock);
	pthread_mutex_unlock(&task->lock);
	/* Stopped before it ever ran, as kthread_stop() of a new kthread. */
	if (kthread_should_stop())
		task->ret = -EINTR;
	else
		task->ret = task->fn(task->data);
	return NULL;
}

struct task_struct *kthread_create(int (*fn)(void *data), void *data,
				   const char *namefmt, ...)
{
	struct task_struct *task = calloc(1, sizeof(*task));

	if (!task)
		return ERR_PTR(-ENOMEM);
	task->fn = fn;
	task->data = data;
	pthread_mutex_init(&task->lock, NULL);
	pthread_cond_init(&task->cond, NULL);
	if (pthread_create(&task->thread, NULL, kthread_main, task)) {
		free(task);
		return ERR_PTR(-EAGAIN);
	}
	return task;
}

bool wake_up_process(struct task_struct *task)
{
	bool woke;

	pthread_mutex_lock(&task->lock);
	woke = !task->woken;
	task->woken = true;
	pthread_cond_signal(&task->cond);
	pthread_mutex_unlock(&task->lock);
	return woke;
}

bool kthread_should_stop(void)
{
	/* Pairs with the release store in kthread_stop(). */
	return current_task &&
	       __atomic_load_n(&current_task->should_stop, __ATOMIC_ACQUIRE);
}

int kthread_stop(struct task_struct *task)
{
	int ret;

	__atomic_store_n(&task->should_stop, true, __ATOMIC_RELEASE);
	wake_up_process(task);
	pthread_join(task->thread, NULL);
	ret = task->ret;
	pthread_mutex_destroy(&task->lock);
	pthread_cond_destroy(&task->cond);
	free(task);
	return ret;
}

void init_completion(struct completion *x)
{
	pthread_mutex_init(&x->lock, NULL);
	pthread_cond_init(&x->cond, NULL);
	x->done = 0;
}

void complete(struct completion *x)
{
	pthread_mutex_lock(&x->lock);
	x->done++;
	pthread_cond_broadcast(&x->cond);
	pthread_mutex_unlock(&x->lock);
}

unsigned long wait_for_completion_timeout(struct completion *x,
					  unsigned long timeout)
{
	unsigned long end = sdlf_jiffies() + timeout, now;
	struct timespec ts;
	int err = 0;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += timeout / HZ;
	ts.tv_nsec += (timeout % HZ) * (1000000000 / HZ);
	if (ts.tv_nsec >= 1000000000) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000;
	}
	pthread_mutex_lock(&x->lock);
	while (!x->done && !err)
		err = pthread_cond_timedwait(&x->cond, &x->lock, &ts);
	if (!x->done) {
		pthread_mutex_unlock(&x->lock);
		return 0;
	}
	x->done--;
	pthread_mutex_unlock(&x->lock);
	now = sdlf_jiffies();
	return time_before(now, end) ? end - now : 1;
}

__thread bool sdlf_in_hardirq;

void hrtimer_init(struct hrtimer *timer, clockid_t clock,
		  enum hrtimer_mode mode)
{
	memset(timer, 0, sizeof(*timer));
}

static void *hrtimer_thread(void *arg)
{
	struct hrtimer *timer = arg;
	struct timespec ts = {
		.tv_sec = timer->expires / 1000000000,
		.tv_nsec = timer->expires % 1000000000,
	};

	nanosleep(&ts, NULL);
	sdlf_in_hardirq = true;
	timer->function(timer);
	return NULL;
}

void hrtimer_start(struct hrtimer *timer, ktime_t tim,
		   const enum hrtimer_mode mode)
{
	hrtimer_cancel(timer);
	timer->expires = tim;
	if (pthread_create(&timer->thread, NULL, hrtimer_thread, timer))
		abort();
	timer->started = true;
}

/* Waits for the function, as the kernel's waits for a running callback. */
int hrtimer_cancel(struct hrtimer *timer)
{
	if (!timer->started)
		return 0;
	pthread_join(timer->thread, NULL);
	timer->started = false;
	return 1;
}
