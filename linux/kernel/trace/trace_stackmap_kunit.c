// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit cases for the ftrace stackmap option: the parser of writes to
 * stack_map, the encoders of the stack_map_bin stream and, on a trace
 * instance created for the purpose, which ring buffers the recording path
 * writes stack ids into, and the stack definitions it writes before them.
 * Those cases reach trace.c internals (option flags,
 * trace_array_printk_buf(), buffer resets), so the suite is built in only.
 */

#include <kunit/test.h>
#include <kunit/visibility.h>
#include <linux/cpumask.h>
#include <linux/kallsyms.h>
#include <linux/kernel.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/ring_buffer.h>
#include <linux/sched.h>
#include <linux/sort.h>
#include <linux/string.h>
#include <linux/trace.h>

#include "trace.h"
#include "trace_stackmap.h"
#include "trace_stackmap_export.h"

struct parse_case {
	const char *buf;
	int ret;
};

static const struct parse_case parse_cases[] = {
	{ "0", TRACE_STACKMAP_CMD_RESET },
	{ "0\n", TRACE_STACKMAP_CMD_RESET },
	{ "reset", TRACE_STACKMAP_CMD_RESET },
	{ "reset\n", TRACE_STACKMAP_CMD_RESET },
	{ "emit", TRACE_STACKMAP_CMD_EMIT },
	{ "emit\n", TRACE_STACKMAP_CMD_EMIT },
	{ "emit ", -EINVAL },
	{ "Emit", -EINVAL },
	{ "emi", -EINVAL },
	{ "emits", -EINVAL },
	{ "emit\n\n", -EINVAL },
	{ "", -EINVAL },
	{ "\n", -EINVAL },
	{ "1", -EINVAL },
	{ "00", -EINVAL },
	{ "0\n\n", -EINVAL },
	{ " 0", -EINVAL },
	{ "reset ", -EINVAL },
	{ "Reset", -EINVAL },
	{ "rese", -EINVAL },
	{ "resets", -EINVAL },
};

static void parse_case_desc(const struct parse_case *c, char *desc)
{
	int i, n = 0;

	for (i = 0; c->buf[i] && n < KUNIT_PARAM_DESC_SIZE - 3; i++) {
		if (c->buf[i] == '\n') {
			desc[n++] = '\\';
			desc[n++] = 'n';
		} else {
			desc[n++] = c->buf[i];
		}
	}
	desc[n] = '\0';
	if (!n)
		strscpy(desc, "(empty)", KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(parse, parse_cases, parse_case_desc);

static void stackmap_parse_cmd_test(struct kunit *test)
{
	const struct parse_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, trace_stackmap_parse_cmd(c->buf, strlen(c->buf)),
			c->ret);
}

/* The parser must not read past @len: the buffer is not terminated. */
static void stackmap_parse_cmd_len_test(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, trace_stackmap_parse_cmd("0junk", 1),
			TRACE_STACKMAP_CMD_RESET);
	KUNIT_EXPECT_EQ(test, trace_stackmap_parse_cmd("reset\nx", 6),
			TRACE_STACKMAP_CMD_RESET);
	KUNIT_EXPECT_EQ(test, trace_stackmap_parse_cmd("emit\nx", 5),
			TRACE_STACKMAP_CMD_EMIT);
	KUNIT_EXPECT_EQ(test, trace_stackmap_parse_cmd("reset", 4), -EINVAL);
	KUNIT_EXPECT_EQ(test, trace_stackmap_parse_cmd("emit", 3), -EINVAL);
	KUNIT_EXPECT_EQ(test, trace_stackmap_parse_cmd("0", 0), -EINVAL);
}

static void stackmap_encode_header_test(struct kunit *test)
{
	struct trace_stackmap_bin_header hdr;
	u8 raw[sizeof(hdr)];
	u32 magic;

	memset(&hdr, 0xff, sizeof(hdr));
	trace_stackmap_encode_header(&hdr, 7, 3, TRACE_STACKMAP_BIN_ADDRS,
				     128, 14);
	memcpy(raw, &hdr, sizeof(raw));

	KUNIT_EXPECT_EQ(test, sizeof(hdr), 32);
	memcpy(&magic, raw, sizeof(magic));
	KUNIT_EXPECT_EQ(test, magic, 0x46534D42U);
	KUNIT_EXPECT_EQ(test, hdr.version, TRACE_STACKMAP_BIN_VERSION);
	KUNIT_EXPECT_EQ(test, hdr.header_size, sizeof(hdr));
	KUNIT_EXPECT_EQ(test, hdr.generation, 7);
	KUNIT_EXPECT_EQ(test, hdr.nr_records, 3);
	KUNIT_EXPECT_EQ(test, hdr.flags, TRACE_STACKMAP_BIN_ADDRS);
	KUNIT_EXPECT_EQ(test, hdr.max_depth, 128);
	KUNIT_EXPECT_EQ(test, hdr.record_size,
			sizeof(struct trace_stackmap_bin_record));
	KUNIT_EXPECT_EQ(test, hdr.index_bits, 14);
	KUNIT_EXPECT_EQ(test, raw[28] | raw[29] | raw[30] | raw[31], 14);
	KUNIT_EXPECT_EQ(test, hdr.version, 1);
}

static const unsigned long encode_stack[] = {
	0x81000010UL, FTRACE_TRAMPOLINE_MARKER, 0x1234,
};

static void stackmap_encode_record_check(struct kunit *test, bool addrs)
{
	struct stackdepot_lf_info info = {
		.id	= stackdepot_lf_u32_to_id(0x00300005),
		.depth	= ARRAY_SIZE(encode_stack),
		.refs	= 42,
	};
	struct trace_stackmap_bin_record rec;
	size_t want = sizeof(rec) + ARRAY_SIZE(encode_stack) * sizeof(u64);
	u8 *buf;
	u64 ip;
	int i;

	buf = kunit_kzalloc(test, want + 8, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	memset(buf, 0xa5, want + 8);

	KUNIT_EXPECT_EQ(test, trace_stackmap_encode_record(buf, &info,
							   encode_stack, addrs),
			want);
	memcpy(&rec, buf, sizeof(rec));
	KUNIT_EXPECT_EQ(test, rec.id, 0x00300005);
	KUNIT_EXPECT_EQ(test, rec.depth, ARRAY_SIZE(encode_stack));
	KUNIT_EXPECT_EQ(test, rec.refs, 42);
	KUNIT_EXPECT_EQ(test, rec.reserved, 0);

	for (i = 0; i < ARRAY_SIZE(encode_stack); i++) {
		memcpy(&ip, buf + sizeof(rec) + i * sizeof(ip), sizeof(ip));
		if (addrs || encode_stack[i] == FTRACE_TRAMPOLINE_MARKER)
			KUNIT_EXPECT_EQ(test, ip, (u64)encode_stack[i]);
		else
			KUNIT_EXPECT_EQ(test, ip, 0);
	}
	/* Nothing written past the record. */
	KUNIT_EXPECT_EQ(test, buf[want], 0xa5);
}

static void stackmap_encode_record_addrs_test(struct kunit *test)
{
	stackmap_encode_record_check(test, true);
}

static void stackmap_encode_record_zeroed_test(struct kunit *test)
{
	stackmap_encode_record_check(test, false);
}

/*
 * Stack ids and trace instances
 *
 * An id means something only in the depot that issued it, so the recording
 * path may write one only into a buffer of the instance whose depot it
 * used. trace_array_printk() into an instance and trace_array_printk_buf()
 * use the flags, and so the depot, of the instance that trace_printk()
 * writes to (the top level unless an instance has set trace_printk_dest),
 * whatever the buffer. These cases print from known functions and read
 * every stack back from the buffers; the ground truth is that each stack
 * passes through the function that printed it.
 */

#define STACKMAP_KUNIT_INSTANCE	"stackmap_kunit"
#define STACKMAP_KUNIT_PRINTS	4U
/* Frames between a printing function and the print: more than any skip. */
#define STACKMAP_KUNIT_NEST	8

struct stackmap_kunit_ctx {
	struct trace_array	*top;
	struct trace_array	*tr;
	unsigned int		top_flags;
	bool			top_had_depot;
	unsigned long		*entries;
};

/* What a walk of one ring buffer found. */
struct stackmap_kunit_walk {
	unsigned int	prints;		/* TRACE_PRINT entries */
	unsigned int	ids;		/* TRACE_STACK_ID entries that resolved */
	unsigned int	unresolved;	/* TRACE_STACK_ID entries that did not */
	unsigned int	full;		/* TRACE_STACK entries */
	unsigned int	found;		/* stacks through the printing function */
	unsigned int	other;		/* stacks that do not pass through it */
};

static int stackmap_kunit_set_flag(struct trace_array *tr, unsigned int mask,
				   bool on)
{
	/* The locks a write to options/<name> takes. */
	guard(mutex)(&event_mutex);
	guard(mutex)(&trace_types_lock);
	return set_tracer_flag(tr, mask, on);
}

static void stackmap_kunit_set(struct kunit *test, struct trace_array *tr,
			       unsigned int mask, bool on)
{
	KUNIT_ASSERT_EQ(test, stackmap_kunit_set_flag(tr, mask, on), 0);
}

static noinline int stackmap_kunit_nest(struct trace_array *tr,
					struct trace_buffer *buffer, int tag,
					int depth)
{
	int ret;

	if (depth)
		ret = stackmap_kunit_nest(tr, buffer, tag, depth - 1);
	else if (buffer)
		ret = trace_array_printk_buf(buffer, _THIS_IP_, "stackmap %d\n",
					     tag);
	else
		ret = trace_array_printk(tr, _THIS_IP_, "stackmap %d\n", tag);
	/* No tail call: every level keeps its frame. */
	barrier();
	return ret;
}

static void stackmap_kunit_prints(struct kunit *test, struct trace_array *tr,
				  struct trace_buffer *buffer, int tag)
{
	int i;

	for (i = 0; i < STACKMAP_KUNIT_PRINTS; i++)
		KUNIT_EXPECT_GT(test, stackmap_kunit_nest(tr, buffer, tag,
							  STACKMAP_KUNIT_NEST),
				0);
}

/*
 * One printing function per use, so that a stack printed by one cannot
 * pass for another's; each prints its own @tag, which also keeps the
 * compiler from folding them into one. Each sets *@ip to an address
 * inside itself, then prints STACKMAP_KUNIT_PRINTS times into @buffer,
 * or with trace_array_printk() into @tr if @buffer is NULL.
 */
#define STACKMAP_KUNIT_PRINTER(name, tag)				\
static noinline void name(struct kunit *test, struct trace_array *tr,	\
			  struct trace_buffer *buffer, unsigned long *ip) \
{									\
	*ip = _THIS_IP_;						\
	stackmap_kunit_prints(test, tr, buffer, tag);			\
	/* No tail call: the stacks must pass through this function. */	\
	barrier();							\
}

STACKMAP_KUNIT_PRINTER(stackmap_kunit_print_other, 1)
STACKMAP_KUNIT_PRINTER(stackmap_kunit_print_own, 2)
STACKMAP_KUNIT_PRINTER(stackmap_kunit_print_top, 3)
#ifdef CONFIG_TRACER_MAX_TRACE
STACKMAP_KUNIT_PRINTER(stackmap_kunit_print_max_own, 4)
STACKMAP_KUNIT_PRINTER(stackmap_kunit_print_max_other, 5)
#endif
STACKMAP_KUNIT_PRINTER(stackmap_kunit_print_def_a, 6)
STACKMAP_KUNIT_PRINTER(stackmap_kunit_print_def_b, 7)
STACKMAP_KUNIT_PRINTER(stackmap_kunit_print_wrap_a, 10)
STACKMAP_KUNIT_PRINTER(stackmap_kunit_print_wrap_b, 11)

/* Does the stack pass through the function that contains @ip? */
static bool stackmap_kunit_through(const unsigned long *calls,
				   unsigned int nr, unsigned long ip)
{
	unsigned long size, offset, start;
	unsigned int i;

	if (!kallsyms_lookup_size_offset(ip, &size, &offset))
		return false;
	start = ip - offset;
	/* Return addresses follow a call, so never the first byte. */
	for (i = 0; i < nr; i++)
		if (calls[i] > start && calls[i] < start + size)
			return true;
	return false;
}

static void stackmap_kunit_count(struct stackmap_kunit_walk *walk,
				 const unsigned long *calls, unsigned int nr,
				 unsigned long ip)
{
	if (stackmap_kunit_through(calls, nr, ip))
		walk->found++;
	else
		walk->other++;
}

/* Resolve @id as the output of @tr would: in the depot of @tr. */
static int stackmap_kunit_lookup(struct stackmap_kunit_ctx *ctx,
				 struct trace_array *tr, u32 id)
{
	struct stackdepot_lf *depot;
	int depth;

	rcu_read_lock_sched();
	/* Pairs with rcu_assign_pointer() in stackmap_create(). */
	depot = rcu_dereference_sched(tr->stackmap.depot);
	depth = stackdepot_lf_lookup(depot, stackdepot_lf_u32_to_id(id),
				     ctx->entries, TRACE_STACKMAP_MAX_DEPTH,
				     NULL);
	rcu_read_unlock_sched();
	return depth;
}

/*
 * Read every entry of @buffer, a buffer whose output @tr prints, without
 * consuming it, and sort its stacks by whether they pass through the
 * function that contains @ip.
 */
static void stackmap_kunit_walk(struct stackmap_kunit_ctx *ctx,
				struct trace_array *tr,
				struct trace_buffer *buffer, unsigned long ip,
				struct stackmap_kunit_walk *walk)
{
	struct ring_buffer_event *event;
	struct ring_buffer_iter *iter;
	struct stack_id_entry *sid;
	struct stack_entry *stack;
	struct trace_entry *ent;
	int cpu, depth;
	u64 ts;

	memset(walk, 0, sizeof(*walk));
	for_each_possible_cpu(cpu) {
		iter = ring_buffer_read_start(buffer, cpu, GFP_KERNEL);
		if (!iter)
			continue;
		while ((event = ring_buffer_iter_peek(iter, &ts))) {
			ent = ring_buffer_event_data(event);
			switch (ent->type) {
			case TRACE_PRINT:
				walk->prints++;
				break;
			case TRACE_STACK:
				stack = (struct stack_entry *)ent;
				walk->full++;
				stackmap_kunit_count(walk, stack->caller,
						     stack->size, ip);
				break;
			case TRACE_STACK_ID:
				sid = (struct stack_id_entry *)ent;
				depth = stackmap_kunit_lookup(ctx, tr, sid->id);
				if (depth <= 0) {
					walk->unresolved++;
					break;
				}
				walk->ids++;
				stackmap_kunit_count(walk, ctx->entries, depth,
						     ip);
				break;
			}
			ring_buffer_iter_advance(iter);
		}
		ring_buffer_read_finish(iter);
	}
}

static void stackmap_kunit_restore(void *data)
{
	struct stackmap_kunit_ctx *ctx = data;

	/* Setting trace_printk_dest takes trace_printk() back to the top. */
	stackmap_kunit_set_flag(ctx->top, TRACE_ITER_TRACE_PRINTK, true);
	stackmap_kunit_set_flag(ctx->top, TRACE_ITER_STACKMAP,
				ctx->top_flags & TRACE_ITER_STACKMAP);
	stackmap_kunit_set_flag(ctx->top, TRACE_ITER_STACKTRACE,
				ctx->top_flags & TRACE_ITER_STACKTRACE);
	/* The option is off again: free a depot the case made it allocate. */
	if (!ctx->top_had_depot && !(ctx->top->trace_flags & TRACE_ITER_STACKMAP))
		trace_stackmap_free(ctx->top);
}

static void stackmap_kunit_remove(void *data)
{
	struct trace_array *tr = data;

	trace_array_put(tr);
	trace_array_destroy(tr);
}

/*
 * A fresh instance, and stackmap and stacktrace on in it and in the top
 * level; all undone when the case ends, whether or not it passed.
 */
static struct stackmap_kunit_ctx *stackmap_kunit_setup(struct kunit *test)
{
	struct stackmap_kunit_ctx *ctx;
	struct trace_array *tr;
	int ret;

	ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ctx);
	ctx->entries = kunit_kmalloc_array(test, TRACE_STACKMAP_MAX_DEPTH,
					   sizeof(*ctx->entries), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ctx->entries);

	ctx->top = top_trace_array();
	KUNIT_ASSERT_NOT_NULL(test, ctx->top);
	if (!(ctx->top->trace_flags & TRACE_ITER_TRACE_PRINTK))
		kunit_skip(test, "trace_printk() writes to another instance");
	ctx->top_flags = ctx->top->trace_flags;
	ctx->top_had_depot = rcu_access_pointer(ctx->top->stackmap.depot);
	ret = kunit_add_action_or_reset(test, stackmap_kunit_restore, ctx);
	KUNIT_ASSERT_EQ(test, ret, 0);

	tr = trace_array_get_by_name(STACKMAP_KUNIT_INSTANCE, NULL);
	KUNIT_ASSERT_NOT_NULL(test, tr);
	ret = kunit_add_action_or_reset(test, stackmap_kunit_remove, tr);
	KUNIT_ASSERT_EQ(test, ret, 0);
	ctx->tr = tr;
	KUNIT_ASSERT_EQ(test, trace_array_init_printk(tr), 0);

	stackmap_kunit_set(test, ctx->top, TRACE_ITER_STACKTRACE, true);
	stackmap_kunit_set(test, ctx->top, TRACE_ITER_STACKMAP, true);
	stackmap_kunit_set(test, tr, TRACE_ITER_STACKTRACE, true);
	stackmap_kunit_set(test, tr, TRACE_ITER_STACKMAP, true);
	return ctx;
}

/*
 * trace_array_printk() into an instance while trace_printk() goes to the
 * top level: the stack must be one the instance's output can print.
 */
static void stackmap_printk_other_instance_test(struct kunit *test)
{
	struct stackmap_kunit_ctx *ctx = stackmap_kunit_setup(test);
	struct stackmap_kunit_walk walk;
	unsigned long ip;

	stackmap_kunit_print_other(test, ctx->tr, NULL, &ip);

	stackmap_kunit_walk(ctx, ctx->tr, ctx->tr->array_buffer.buffer, ip,
			    &walk);
	KUNIT_EXPECT_EQ(test, walk.prints, STACKMAP_KUNIT_PRINTS);
	KUNIT_EXPECT_EQ(test, walk.unresolved, 0);
	KUNIT_EXPECT_EQ(test, walk.found, STACKMAP_KUNIT_PRINTS);
	KUNIT_EXPECT_EQ(test, walk.other, 0);
	/* The top level's depot issued none of them: full stacks. */
	KUNIT_EXPECT_EQ(test, walk.ids, 0);
	KUNIT_EXPECT_EQ(test, walk.full, STACKMAP_KUNIT_PRINTS);

	stackmap_kunit_walk(ctx, ctx->top, ctx->top->array_buffer.buffer, ip,
			    &walk);
	KUNIT_EXPECT_EQ(test, walk.unresolved, 0);
	KUNIT_EXPECT_EQ(test, walk.found, 0);
}

/*
 * With trace_printk_dest set on the instance, its prints get ids from its
 * own depot, and trace_array_printk_buf() into the top level's buffer must
 * leave stacks the top level can print.
 */
static void stackmap_printk_own_instance_test(struct kunit *test)
{
	struct stackmap_kunit_ctx *ctx = stackmap_kunit_setup(test);
	struct trace_buffer *top_buffer = ctx->top->array_buffer.buffer;
	struct stackmap_kunit_walk walk;
	unsigned long ip;

	stackmap_kunit_set(test, ctx->tr, TRACE_ITER_TRACE_PRINTK, true);

	stackmap_kunit_print_own(test, ctx->tr, NULL, &ip);
	stackmap_kunit_walk(ctx, ctx->tr, ctx->tr->array_buffer.buffer, ip,
			    &walk);
	KUNIT_EXPECT_EQ(test, walk.prints, STACKMAP_KUNIT_PRINTS);
	KUNIT_EXPECT_EQ(test, walk.unresolved, 0);
	KUNIT_EXPECT_EQ(test, walk.found, STACKMAP_KUNIT_PRINTS);
	KUNIT_EXPECT_EQ(test, walk.other, 0);
	/* The depot is the buffer's own: ids are right, and expected. */
	KUNIT_EXPECT_EQ(test, walk.ids, STACKMAP_KUNIT_PRINTS);

	stackmap_kunit_print_top(test, NULL, top_buffer, &ip);
	stackmap_kunit_walk(ctx, ctx->top, top_buffer, ip, &walk);
	KUNIT_EXPECT_EQ(test, walk.unresolved, 0);
	KUNIT_EXPECT_EQ(test, walk.found, STACKMAP_KUNIT_PRINTS);
}

/*
 * The max (snapshot) buffer is the instance's too, swapped with its main
 * buffer by update_max_tr(): ids from the instance's depot may go there,
 * ids from the top level's may not.
 */
static void stackmap_printk_max_buffer_test(struct kunit *test)
{
#ifdef CONFIG_TRACER_MAX_TRACE
	struct stackmap_kunit_ctx *ctx = stackmap_kunit_setup(test);
	struct trace_buffer *max_buffer = ctx->tr->max_buffer.buffer;
	struct stackmap_kunit_walk walk;
	unsigned long ip;

	stackmap_kunit_set(test, ctx->tr, TRACE_ITER_TRACE_PRINTK, true);
	stackmap_kunit_print_max_own(test, NULL, max_buffer, &ip);
	stackmap_kunit_walk(ctx, ctx->tr, max_buffer, ip, &walk);
	KUNIT_EXPECT_EQ(test, walk.prints, STACKMAP_KUNIT_PRINTS);
	KUNIT_EXPECT_EQ(test, walk.unresolved, 0);
	KUNIT_EXPECT_EQ(test, walk.found, STACKMAP_KUNIT_PRINTS);
	KUNIT_EXPECT_EQ(test, walk.other, 0);
	KUNIT_EXPECT_EQ(test, walk.ids, STACKMAP_KUNIT_PRINTS);

	/*
	 * trace_printk() back to the top level: the flags, and the depot,
	 * are the top level's, as for update_max_tr_single() on @tr.
	 */
	stackmap_kunit_set(test, ctx->top, TRACE_ITER_TRACE_PRINTK, true);
	stackmap_kunit_print_max_other(test, NULL, max_buffer, &ip);
	stackmap_kunit_walk(ctx, ctx->tr, max_buffer, ip, &walk);
	KUNIT_EXPECT_EQ(test, walk.prints, 2 * STACKMAP_KUNIT_PRINTS);
	KUNIT_EXPECT_EQ(test, walk.unresolved, 0);
	KUNIT_EXPECT_EQ(test, walk.found, STACKMAP_KUNIT_PRINTS);
	KUNIT_EXPECT_EQ(test, walk.other, STACKMAP_KUNIT_PRINTS);
#else
	kunit_skip(test, "no max buffer without CONFIG_TRACER_MAX_TRACE");
#endif
}

/*
 * Stack definitions
 *
 * A reader of the buffer alone must meet the definition of an id before
 * the id. These cases read the instance's buffer in time order, check
 * that every id follows a definition of it on its CPU (each CPU's buffer
 * defines the stacks it uses) whose frames are the depot's, and count the
 * definitions of each stack: one per stack after each point where the
 * buffer lost them, and one more for each "emit". The cases stay on one
 * CPU, whose buffer alone then holds their stacks.
 */

#define STACKMAP_KUNIT_MAX_ENTRIES	256
#define STACKMAP_KUNIT_MAX_STACKS	8

struct stackmap_kunit_entry {
	u64		ts;
	unsigned int	cpu;
	unsigned int	seq;		/* position in its CPU's buffer */
	unsigned short	type;
	u32		id;
};

struct stackmap_kunit_defs {
	unsigned int	defs;		/* TRACE_STACK_DEF entries */
	unsigned int	ids;		/* TRACE_STACK_ID entries */
	unsigned int	undefined;	/* ids not after a definition on their CPU */
	unsigned int	bad;		/* definitions unlike the depot's stack */
	unsigned int	full;		/* TRACE_STACK entries */
	u64		bytes;		/* ring-buffer bytes of the definitions */
	unsigned int	nr_stacks;	/* distinct ids met */
	u32		stack[STACKMAP_KUNIT_MAX_STACKS];
	unsigned int	stack_defs[STACKMAP_KUNIT_MAX_STACKS];
	unsigned int	nr;
	struct stackmap_kunit_entry entry[STACKMAP_KUNIT_MAX_ENTRIES];
};

static int stackmap_kunit_entry_cmp(const void *a, const void *b)
{
	const struct stackmap_kunit_entry *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* The index of @id among the stacks met so far, adding it if new. */
static unsigned int stackmap_kunit_stack(struct kunit *test,
					 struct stackmap_kunit_defs *d, u32 id)
{
	unsigned int i;

	for (i = 0; i < d->nr_stacks; i++)
		if (d->stack[i] == id)
			return i;
	KUNIT_ASSERT_LT(test, d->nr_stacks, STACKMAP_KUNIT_MAX_STACKS);
	d->stack[d->nr_stacks] = id;
	return d->nr_stacks++;
}

/* Does the definition @def hold the stack that the depot of @tr has? */
static bool stackmap_kunit_def_ok(struct stackmap_kunit_ctx *ctx,
				  struct trace_array *tr,
				  const struct stack_def_entry *def,
				  unsigned int length)
{
	int depth = stackmap_kunit_lookup(ctx, tr, def->id);

	return depth > 0 && def->depth == depth &&
	       length >= struct_size(def, caller, depth) &&
	       !memcmp(def->caller, ctx->entries, depth * sizeof(*ctx->entries));
}

/* Does a definition of entry @i's id come before it on its CPU? */
static bool stackmap_kunit_defined(const struct stackmap_kunit_defs *d,
				   unsigned int i)
{
	const struct stackmap_kunit_entry *e = &d->entry[i];

	while (i--)
		if (d->entry[i].type == TRACE_STACK_DEF &&
		    d->entry[i].id == e->id && d->entry[i].cpu == e->cpu)
			return true;
	return false;
}

/* Read the main buffer of @tr in time order into @d. */
static void stackmap_kunit_defs_walk(struct kunit *test,
				     struct stackmap_kunit_ctx *ctx,
				     struct trace_array *tr,
				     struct stackmap_kunit_defs *d)
{
	struct trace_buffer *buffer = tr->array_buffer.buffer;
	struct stackmap_kunit_entry *e;
	struct ring_buffer_event *event;
	struct ring_buffer_iter *iter;
	struct trace_entry *ent;
	unsigned int i, seq, s;
	int cpu;
	u64 ts;

	memset(d, 0, sizeof(*d));
	for_each_possible_cpu(cpu) {
		iter = ring_buffer_read_start(buffer, cpu, GFP_KERNEL);
		if (!iter)
			continue;
		for (seq = 0; (event = ring_buffer_iter_peek(iter, &ts)); seq++) {
			ent = ring_buffer_event_data(event);
			if (ent->type == TRACE_STACK)
				d->full++;
			if (ent->type == TRACE_STACK_DEF) {
				d->bytes += ring_buffer_event_length(event);
				if (!stackmap_kunit_def_ok(ctx, tr, (void *)ent,
							   ring_buffer_event_length(event)))
					d->bad++;
			}
			if ((ent->type == TRACE_STACK_DEF ||
			     ent->type == TRACE_STACK_ID) &&
			    !WARN_ON_ONCE(d->nr == STACKMAP_KUNIT_MAX_ENTRIES)) {
				e = &d->entry[d->nr++];
				e->ts = ts;
				e->cpu = cpu;
				e->seq = seq;
				e->type = ent->type;
				/* Both entries hold the id first. */
				e->id = ((struct stack_id_entry *)ent)->id;
			}
			ring_buffer_iter_advance(iter);
		}
		ring_buffer_read_finish(iter);
	}

	sort(d->entry, d->nr, sizeof(*e), stackmap_kunit_entry_cmp, NULL);
	for (i = 0; i < d->nr; i++) {
		e = &d->entry[i];
		s = stackmap_kunit_stack(test, d, e->id);
		if (e->type == TRACE_STACK_DEF) {
			d->defs++;
			d->stack_defs[s]++;
		} else {
			d->ids++;
			if (!stackmap_kunit_defined(d, i))
				d->undefined++;
		}
	}
}

/* Expect @defs definitions of each of @nr_stacks stacks, and no other. */
static void stackmap_kunit_expect_defs(struct kunit *test,
				       struct stackmap_kunit_defs *d,
				       unsigned int nr_stacks,
				       unsigned int defs)
{
	unsigned int i;

	KUNIT_EXPECT_EQ(test, d->nr_stacks, nr_stacks);
	KUNIT_EXPECT_EQ(test, d->defs, nr_stacks * defs);
	for (i = 0; i < d->nr_stacks; i++)
		KUNIT_EXPECT_EQ(test, d->stack_defs[i], defs);
	KUNIT_EXPECT_EQ(test, d->bad, 0);
	KUNIT_EXPECT_EQ(test, d->full, 0);
}

static struct stackmap_kunit_defs *
stackmap_kunit_defs_setup(struct kunit *test, struct stackmap_kunit_ctx **ctx)
{
	struct stackmap_kunit_defs *d;
	int cpu;

	*ctx = stackmap_kunit_setup(test);
	/*
	 * Each CPU's buffer defines the stacks it uses: the case's thread,
	 * which ends with it, stays on one CPU, so that each stack is
	 * defined once after each loss, as the cases count.
	 */
	cpu = raw_smp_processor_id();
	KUNIT_ASSERT_EQ(test, 0, set_cpus_allowed_ptr(current,
						      cpumask_of(cpu)));
	/* trace_array_printk() into the instance takes its depot. */
	stackmap_kunit_set(test, (*ctx)->tr, TRACE_ITER_TRACE_PRINTK, true);
	d = kunit_kzalloc(test, sizeof(*d), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, d);
	return d;
}

/*
 * Each stack is defined once, before its first id, with the depot's
 * frames; the counters of stack_map_stat say exactly what was written.
 * (A printer called from two places prints two stacks: the loops below
 * call each from one.)
 */
static void stackmap_defs_test(struct kunit *test)
{
	struct stackmap_kunit_ctx *ctx;
	struct stackmap_kunit_defs *d = stackmap_kunit_defs_setup(test, &ctx);
	struct trace_stackmap *sm = &ctx->tr->stackmap;
	unsigned long ip;
	int i;

	for (i = 0; i < 3; i++) {
		if (i == 1)
			stackmap_kunit_print_def_b(test, ctx->tr, NULL, &ip);
		else
			stackmap_kunit_print_def_a(test, ctx->tr, NULL, &ip);
	}

	stackmap_kunit_defs_walk(test, ctx, ctx->tr, d);
	KUNIT_EXPECT_EQ(test, d->ids, 3 * STACKMAP_KUNIT_PRINTS);
	KUNIT_EXPECT_EQ(test, d->undefined, 0);
	stackmap_kunit_expect_defs(test, d, 2, 1);

	KUNIT_EXPECT_EQ(test, atomic_long_read(&sm->defs), 2);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&sm->defs_emitted), 0);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&sm->defs_lost), 0);
	KUNIT_EXPECT_EQ(test, atomic64_read(&sm->defs_bytes), d->bytes);
}

/*
 * A buffer that lost its definitions, cleared or swapped with the
 * snapshot buffer, gets them again at each stack's next use; so does one
 * that lost them where the depot could not be reached (a swap on a CPU
 * going offline), which leaves the clearing of the marks to the next
 * caller: that caller defines its own stack too.
 */
static void stackmap_defs_redefine_test(struct kunit *test)
{
	struct stackmap_kunit_ctx *ctx;
	struct stackmap_kunit_defs *d = stackmap_kunit_defs_setup(test, &ctx);
	unsigned long ip;
	int i, ret, nr_defs = 0;

	for (i = 0; i < 4; i++) {
		switch (i) {
		case 1:
			/* What open(trace, O_TRUNC) does: trace-cmd record. */
			tracing_reset_online_cpus(&ctx->tr->array_buffer);
			break;
		case 2:
			if (!IS_ENABLED(CONFIG_TRACER_SNAPSHOT))
				continue;
			mutex_lock(&trace_types_lock);
			ret = tracing_alloc_snapshot_instance(ctx->tr);
			mutex_unlock(&trace_types_lock);
			KUNIT_ASSERT_EQ(test, ret, 0);
			/* The main buffer, definitions and all, goes. */
			tracing_snapshot_instance(ctx->tr);
			break;
		case 3:
			/*
			 * What trace_stackmap_redefine() leaves when RCU
			 * would not wait for its caller.
			 */
			ring_buffer_reset(ctx->tr->array_buffer.buffer);
			WRITE_ONCE(ctx->tr->stackmap.redefine, 1);
			break;
		}
		/* The same stack each time: one call site. */
		stackmap_kunit_print_def_a(test, ctx->tr, NULL, &ip);
		stackmap_kunit_defs_walk(test, ctx, ctx->tr, d);
		KUNIT_EXPECT_EQ(test, d->ids, STACKMAP_KUNIT_PRINTS);
		KUNIT_EXPECT_EQ(test, d->undefined, 0);
		stackmap_kunit_expect_defs(test, d, 1, 1);
		/* One definition at first and after each loss. */
		KUNIT_EXPECT_EQ(test, atomic_long_read(&ctx->tr->stackmap.defs),
				++nr_defs);
	}
}

/*
 * A definition written into the max buffer (trace_array_printk_buf())
 * leaves the main buffer without it: the stack's next use in the main
 * buffer defines it there too.
 */
static void stackmap_defs_max_buffer_test(struct kunit *test)
{
#ifdef CONFIG_TRACER_MAX_TRACE
	struct stackmap_kunit_ctx *ctx;
	struct stackmap_kunit_defs *d = stackmap_kunit_defs_setup(test, &ctx);
	struct trace_buffer *buffer;
	unsigned long ip;
	int i;

	for (i = 0; i < 2; i++) {
		buffer = i ? ctx->tr->array_buffer.buffer :
			     ctx->tr->max_buffer.buffer;
		/* One call site: the same stack into both buffers. */
		stackmap_kunit_print_def_a(test, NULL, buffer, &ip);
	}
	stackmap_kunit_defs_walk(test, ctx, ctx->tr, d);
	KUNIT_EXPECT_EQ(test, d->ids, STACKMAP_KUNIT_PRINTS);
	KUNIT_EXPECT_EQ(test, d->undefined, 0);
	stackmap_kunit_expect_defs(test, d, 1, 1);
	/* Each print into the max buffer defined it there, then one here. */
	KUNIT_EXPECT_EQ(test, atomic_long_read(&ctx->tr->stackmap.defs),
			STACKMAP_KUNIT_PRINTS + 1);
#else
	kunit_skip(test, "no max buffer without CONFIG_TRACER_MAX_TRACE");
#endif
}

/*
 * options/stackmap-defs off: ids and no definitions; back on, the stacks
 * stored meanwhile are defined at their next use.
 */
static void stackmap_defs_off_test(struct kunit *test)
{
	struct stackmap_kunit_ctx *ctx;
	struct stackmap_kunit_defs *d = stackmap_kunit_defs_setup(test, &ctx);
	unsigned long ip;
	int on;

	for (on = 0; on < 2; on++) {
		trace_stackmap_set_option(ctx->tr, TRACE_STACKMAP_OPT_DEFS, on);
		stackmap_kunit_print_def_a(test, ctx->tr, NULL, &ip);
		stackmap_kunit_defs_walk(test, ctx, ctx->tr, d);
		KUNIT_EXPECT_EQ(test, d->ids, (on + 1) * STACKMAP_KUNIT_PRINTS);
		/* The ids written while definitions were off stay undefined. */
		KUNIT_EXPECT_EQ(test, d->undefined, STACKMAP_KUNIT_PRINTS);
		KUNIT_EXPECT_EQ(test, d->defs, on);
	}
	stackmap_kunit_expect_defs(test, d, 1, 1);
}

/*
 * "emit" defines every stack of the depot once more, now; with tracing
 * off, or the buffer's recording disabled, it writes nothing and says so.
 */
static void stackmap_emit_test(struct kunit *test)
{
	struct stackmap_kunit_ctx *ctx;
	struct stackmap_kunit_defs *d = stackmap_kunit_defs_setup(test, &ctx);
	struct trace_stackmap *sm = &ctx->tr->stackmap;
	unsigned long ip;

	stackmap_kunit_print_def_a(test, ctx->tr, NULL, &ip);
	stackmap_kunit_print_def_b(test, ctx->tr, NULL, &ip);
	KUNIT_EXPECT_EQ(test, trace_stackmap_emit(ctx->tr), 0);
	stackmap_kunit_defs_walk(test, ctx, ctx->tr, d);
	KUNIT_EXPECT_EQ(test, d->ids, 2 * STACKMAP_KUNIT_PRINTS);
	KUNIT_EXPECT_EQ(test, d->undefined, 0);
	stackmap_kunit_expect_defs(test, d, 2, 2);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&sm->defs), 4);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&sm->defs_emitted), 2);
	KUNIT_EXPECT_EQ(test, atomic64_read(&sm->defs_bytes), d->bytes);

	tracer_tracing_off(ctx->tr);
	KUNIT_EXPECT_EQ(test, trace_stackmap_emit(ctx->tr), -EBUSY);
	tracer_tracing_on(ctx->tr);
	/* As tracing_stop_tr() leaves it while a resize runs. */
	ring_buffer_record_disable(ctx->tr->array_buffer.buffer);
	KUNIT_EXPECT_EQ(test, trace_stackmap_emit(ctx->tr), -EBUSY);
	ring_buffer_record_enable(ctx->tr->array_buffer.buffer);
	stackmap_kunit_defs_walk(test, ctx, ctx->tr, d);
	KUNIT_EXPECT_EQ(test, d->defs, 4);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&sm->defs_emitted), 2);
}

/* The payload bytes of the definitions of every stack of @tr's depot. */
static size_t stackmap_kunit_defs_payload(struct trace_array *tr)
{
	struct stackdepot_lf_info info;
	struct stackdepot_lf_iter iter;
	size_t bytes = 0;

	stackdepot_lf_iter_start(&iter, trace_stackmap_lock_depot(tr, NULL));
	while (stackdepot_lf_iter_next(&iter, NULL, 0, &info) > 0)
		bytes += struct_size_t(struct stack_def_entry, caller,
				       info.depth);
	trace_stackmap_unlock_depot();
	return bytes;
}

/*
 * "emit" writes nothing, and says so, when the definitions would take
 * more than half of the smallest buffer: in overwrite mode they would
 * wipe out the history they are meant to explain.
 */
static void stackmap_emit_too_big_test(struct kunit *test)
{
	struct stackmap_kunit_ctx *ctx;
	struct trace_buffer *buffer;
	struct trace_stackmap *sm;
	size_t bytes, half = SIZE_MAX;
	long emitted, defs;
	int cpu, depth;

	stackmap_kunit_defs_setup(test, &ctx);
	buffer = ctx->tr->array_buffer.buffer;
	sm = &ctx->tr->stackmap;
	KUNIT_ASSERT_EQ(test, ring_buffer_resize(buffer, PAGE_SIZE,
						 RING_BUFFER_ALL_CPUS), 0);
	/* Stacks of 1 to 48 frames more: as many distinct stacks. */
	for (depth = 1; depth <= 48; depth++)
		KUNIT_EXPECT_GT(test, stackmap_kunit_nest(ctx->tr, NULL, 9,
							  depth), 0);

	/* Their definitions outgrow half of every CPU's buffer. */
	bytes = stackmap_kunit_defs_payload(ctx->tr);
	for_each_online_cpu(cpu)
		half = min_t(size_t, half, ring_buffer_size(buffer, cpu) / 2);
	KUNIT_ASSERT_GT(test, bytes, half);

	emitted = atomic_long_read(&sm->defs_emitted);
	defs = atomic_long_read(&sm->defs);
	KUNIT_EXPECT_EQ(test, trace_stackmap_emit(ctx->tr), -EFBIG);
	/* Not one written: the counters count every one that is. */
	KUNIT_EXPECT_EQ(test, atomic_long_read(&sm->defs_emitted), emitted);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&sm->defs), defs);
}

/*
 * The budget of "emit" is what its definitions may take of the buffer,
 * not their payload: a set of definitions whose entries add up to less
 * than half of a CPU's buffer, but whose time stamps and the padding at
 * the ends of sub-buffers may take it past half, is refused too.
 */
static void stackmap_emit_footprint_test(struct kunit *test)
{
	struct stackmap_kunit_ctx *ctx;
	struct trace_buffer *buffer;
	size_t bytes = 0, half;
	int depth;

	stackmap_kunit_defs_setup(test, &ctx);
	buffer = ctx->tr->array_buffer.buffer;
	/*
	 * Three sub-buffers, few enough for 48 stacks of 4-byte frames to
	 * fill 3/4 of the half (a sub-buffer holds a page less its header).
	 */
	KUNIT_ASSERT_EQ(test, ring_buffer_resize(buffer, 3 * (PAGE_SIZE - 128),
						 RING_BUFFER_ALL_CPUS), 0);
	half = ring_buffer_size(buffer, raw_smp_processor_id()) / 2;
	/* Stacks one frame deeper each, until they fill 3/4 of the half. */
	for (depth = 1; depth <= 48 && bytes < half / 4 * 3; depth++) {
		KUNIT_EXPECT_GT(test, stackmap_kunit_nest(ctx->tr, NULL, 9,
							  depth), 0);
		bytes = stackmap_kunit_defs_payload(ctx->tr);
	}
	KUNIT_ASSERT_GE(test, bytes, half / 4 * 3);
	KUNIT_ASSERT_LT(test, bytes, half);
	KUNIT_EXPECT_EQ(test, trace_stackmap_emit(ctx->tr), -EFBIG);
}

/*
 * A buffer in overwrite mode that wraps loses the definitions on the pages
 * it overwrites. Once a CPU's buffer has overwritten the share of what it
 * holds that stack_map_redefine allows, each stack is defined again at its
 * next use there, so that a reader of what is left meets a definition
 * before every id but those of the oldest share.
 */

/* Pages of each CPU's buffer in these cases. */
#define STACKMAP_KUNIT_WRAP_PAGES	16
/* Times the filler stack overwrites the whole buffer. */
#define STACKMAP_KUNIT_WRAPS		4
/*
 * Prints of the filler after which a buffer that has not wrapped that
 * often fails the case: a print that records nothing (tracing turned off
 * by a warning, say) would otherwise loop for ever. Each print adds
 * STACKMAP_KUNIT_PRINTS events; this is many times what the wraps need.
 */
#define STACKMAP_KUNIT_FILL_MAX		(STACKMAP_KUNIT_WRAPS * \
					 STACKMAP_KUNIT_WRAP_PAGES * PAGE_SIZE)

static const unsigned int overrun_pcts[] = { 0, 25, 50, 100 };

static void overrun_pct_desc(const unsigned int *pct, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "stack_map_redefine %u", *pct);
}

KUNIT_ARRAY_PARAM(overrun_pct, overrun_pcts, overrun_pct_desc);

/* What a walk of one CPU's buffer, oldest first, found of two stacks. */
struct stackmap_kunit_wrap {
	unsigned int	entries;	/* entries of any kind */
	unsigned int	ids[2];		/* TRACE_STACK_ID of stack A, B */
	unsigned int	defs[2];	/* TRACE_STACK_DEF of A, B */
	unsigned int	undefined[2];	/* ids not after a definition */
	unsigned int	last_undefined;	/* position of the last one, + 1 */
	bool		last_defined;	/* the newest id of A follows one */
	unsigned int	other;		/* ids or definitions of no stack here */
};

static void stackmap_kunit_wrap_walk(struct stackmap_kunit_ctx *ctx,
				     struct trace_buffer *buffer, int cpu,
				     const u32 *id,
				     struct stackmap_kunit_wrap *w)
{
	struct ring_buffer_event *event;
	struct ring_buffer_iter *iter;
	struct trace_entry *ent;
	bool defined[2] = { false, false };
	unsigned int s;
	u32 eid;
	u64 ts;

	memset(w, 0, sizeof(*w));
	iter = ring_buffer_read_start(buffer, cpu, GFP_KERNEL);
	if (!iter)
		return;
	while ((event = ring_buffer_iter_peek(iter, &ts))) {
		ent = ring_buffer_event_data(event);
		w->entries++;
		if (ent->type != TRACE_STACK_ID && ent->type != TRACE_STACK_DEF)
			goto next;
		/* Both entries hold the id first. */
		eid = ((struct stack_id_entry *)ent)->id;
		s = eid == id[0] ? 0 : eid == id[1] ? 1 : 2;
		if (s == 2) {
			w->other++;
			goto next;
		}
		if (ent->type == TRACE_STACK_DEF) {
			w->defs[s]++;
			defined[s] = true;
			goto next;
		}
		w->ids[s]++;
		if (!defined[s]) {
			w->undefined[s]++;
			w->last_undefined = w->entries;
		}
		if (!s)
			w->last_defined = defined[s];
next:
		ring_buffer_iter_advance(iter);
	}
	ring_buffer_read_finish(iter);
}

/* The id of the stack the last print on this CPU into @tr recorded. */
static u32 stackmap_kunit_last_id(struct trace_array *tr, int cpu)
{
	struct ring_buffer_event *event;
	struct ring_buffer_iter *iter;
	struct trace_entry *ent;
	u32 id = 0;
	u64 ts;

	iter = ring_buffer_read_start(tr->array_buffer.buffer, cpu, GFP_KERNEL);
	if (!iter)
		return 0;
	while ((event = ring_buffer_iter_peek(iter, &ts))) {
		ent = ring_buffer_event_data(event);
		if (ent->type == TRACE_STACK_ID)
			id = ((struct stack_id_entry *)ent)->id;
		ring_buffer_iter_advance(iter);
	}
	ring_buffer_read_finish(iter);
	return id;
}

/* Where stackmap_defs_overrun_test() is, between its uses of stack A. */
struct stackmap_kunit_wrapping {
	struct trace_buffer	*buffer;
	int			cpu;
	unsigned int		uses;	/* of stack A so far */
	unsigned long		held;	/* entries the buffer held unwrapped */
	unsigned long		lost;	/* entries it overwrote */
	u32			id[2];	/* of stacks A and B */
};

/* After the first use of A: B until the buffer wrapped often enough. */
static noinline void stackmap_kunit_wrap_fill(struct kunit *test,
					      struct stackmap_kunit_ctx *ctx,
					      struct stackmap_kunit_wrapping *wr)
{
	unsigned long ip, n = 0;

	if (!wr->uses)
		return;
	while (wr->lost < STACKMAP_KUNIT_WRAPS * wr->held) {
		if (n++ == STACKMAP_KUNIT_FILL_MAX) {
			KUNIT_FAIL(test, "the buffer did not wrap: %lu lost",
				   wr->lost);
			break;
		}
		stackmap_kunit_print_wrap_b(test, ctx->tr, NULL, &ip);
		wr->lost = ring_buffer_overrun_cpu(wr->buffer, wr->cpu);
		if (!wr->lost)
			wr->held = ring_buffer_entries_cpu(wr->buffer, wr->cpu);
	}
	wr->id[1] = stackmap_kunit_last_id(ctx->tr, wr->cpu);
}

/* After a use of A: its id, the first time. */
static noinline void stackmap_kunit_wrap_note(struct stackmap_kunit_ctx *ctx,
					      struct stackmap_kunit_wrapping *wr)
{
	if (!wr->uses++) {
		wr->id[0] = stackmap_kunit_last_id(ctx->tr, wr->cpu);
		wr->held = ring_buffer_entries_cpu(wr->buffer, wr->cpu);
	}
}

/*
 * Stack A is used once, then stack B until the buffer has been overwritten
 * STACKMAP_KUNIT_WRAPS times, then A again, all on one CPU. With
 * stack_map_redefine at 0 (the buffer's losses are ignored), A's second
 * id has no definition left in the buffer; with it on, it has, and the ids
 * of B without one all lie in the oldest share of the buffer that the
 * setting allows to be lost, and a page more: the ring buffer counts
 * what it overwrote a page at a time.
 */
static void stackmap_defs_overrun_test(struct kunit *test)
{
	const unsigned int *pct = test->param_value;
	struct stackmap_kunit_wrap w;
	struct stackmap_kunit_ctx *ctx;
	struct trace_buffer *buffer;
	struct trace_stackmap *sm;
	unsigned long ip, lost, redefinitions;
	struct stackmap_kunit_wrapping wr;
	unsigned int bound;
	u32 id[2];
	int cpu, round, rounds;

	stackmap_kunit_defs_setup(test, &ctx);
	sm = &ctx->tr->stackmap;
	buffer = ctx->tr->array_buffer.buffer;
	KUNIT_ASSERT_TRUE(test, ctx->tr->trace_flags & TRACE_ITER_OVERWRITE);
	KUNIT_ASSERT_EQ(test, ring_buffer_resize(buffer,
						 STACKMAP_KUNIT_WRAP_PAGES * PAGE_SIZE,
						 RING_BUFFER_ALL_CPUS), 0);
	KUNIT_ASSERT_EQ(test, trace_stackmap_set_redefine(ctx->tr, *pct), 0);
	redefinitions = atomic_long_read(&sm->redefinitions);

	/* Every entry on this CPU's buffer: the one read back below. */
	migrate_disable();
	cpu = smp_processor_id();
	memset(&wr, 0, sizeof(wr));
	wr.buffer = buffer;
	wr.cpu = cpu;
	/*
	 * One call site of the printer of A, in a loop the compiler can
	 * neither unroll nor peel (no test of @round in its body): the
	 * same stack A both times.
	 */
	rounds = 2;
	OPTIMIZER_HIDE_VAR(rounds);
	for (round = 0; round < rounds; round++) {
		stackmap_kunit_wrap_fill(test, ctx, &wr);
		stackmap_kunit_print_wrap_a(test, ctx->tr, NULL, &ip);
		stackmap_kunit_wrap_note(ctx, &wr);
	}
	lost = wr.lost;
	id[0] = wr.id[0];
	id[1] = wr.id[1];
	migrate_enable();

	KUNIT_ASSERT_NE(test, id[0], id[1]);
	stackmap_kunit_wrap_walk(ctx, buffer, cpu, id, &w);
	kunit_info(test, "%u entries kept of %lu lost; A: %u ids, %u defs; B: %u ids, %u defs, %u undefined up to entry %u; %lu redefinitions\n",
		   w.entries, lost, w.ids[0], w.defs[0], w.ids[1], w.defs[1],
		   w.undefined[1], w.last_undefined,
		   atomic_long_read(&sm->redefinitions) - redefinitions);
	KUNIT_EXPECT_EQ(test, w.other, 0);
	/* The first prints of A went with the oldest pages. */
	KUNIT_EXPECT_EQ(test, w.ids[0], STACKMAP_KUNIT_PRINTS);
	KUNIT_EXPECT_GT(test, w.ids[1], 0);
	if (!*pct) {
		KUNIT_EXPECT_FALSE(test, w.last_defined);
		KUNIT_EXPECT_EQ(test, w.defs[0], 0);
		KUNIT_EXPECT_EQ(test, atomic_long_read(&sm->redefinitions),
				redefinitions);
		return;
	}
	KUNIT_EXPECT_TRUE(test, w.last_defined);
	KUNIT_EXPECT_EQ(test, w.defs[0], 1);
	KUNIT_EXPECT_EQ(test, w.undefined[0], 0);
	KUNIT_EXPECT_GE(test, w.defs[1], 1);
	KUNIT_EXPECT_GE(test, atomic_long_read(&sm->redefinitions) - redefinitions,
			STACKMAP_KUNIT_WRAPS * 100 / *pct - 1);
	bound = w.entries * *pct / 100 + w.entries / STACKMAP_KUNIT_WRAP_PAGES;
	KUNIT_EXPECT_LE(test, w.last_undefined, bound);
}

/* Where stackmap_defs_other_cpu_test() is, before its uses of stack A. */
struct stackmap_kunit_two_cpus {
	int			cpu[2];	/* the buffer that wraps, the other */
	unsigned long		lost;	/* entries the first CPU overwrote */
};

/* Move the case's thread to @cpu. */
static void stackmap_kunit_move(struct kunit *test, int cpu)
{
	KUNIT_ASSERT_EQ(test, 0, set_cpus_allowed_ptr(current,
						      cpumask_of(cpu)));
	KUNIT_ASSERT_EQ(test, raw_smp_processor_id(), cpu);
}

/*
 * Before the use of A in round @round: on the other CPU, on the first,
 * then, after the first CPU's buffer wrapped with stack B, on the other.
 */
static noinline void stackmap_kunit_two_cpus_step(struct kunit *test,
						  struct stackmap_kunit_ctx *ctx,
						  struct stackmap_kunit_two_cpus *tc,
						  int round)
{
	struct trace_buffer *buffer = ctx->tr->array_buffer.buffer;
	unsigned long ip, held = 0, n = 0;

	switch (round) {
	case 0:
		break;
	case 1:
		stackmap_kunit_move(test, tc->cpu[0]);
		return;
	default:
		while (!held || tc->lost < STACKMAP_KUNIT_WRAPS * held) {
			if (n++ == STACKMAP_KUNIT_FILL_MAX) {
				KUNIT_FAIL(test, "CPU %d did not wrap: %lu lost",
					   tc->cpu[0], tc->lost);
				break;
			}
			stackmap_kunit_print_wrap_b(test, ctx->tr, NULL, &ip);
			tc->lost = ring_buffer_overrun_cpu(buffer, tc->cpu[0]);
			if (!tc->lost)
				held = ring_buffer_entries_cpu(buffer,
							       tc->cpu[0]);
		}
	}
	stackmap_kunit_move(test, tc->cpu[1]);
}

/*
 * Each CPU's buffer defines the stacks it uses, and only its own losses
 * define them there again: stack A is used on one CPU, then on another,
 * whose buffer then wraps (with stack B) until its stacks are defined
 * again there, and then A is used on the first CPU again, whose buffer
 * lost nothing and still holds A's definition: it gets none more.
 */
static void stackmap_defs_other_cpu_test(struct kunit *test)
{
	struct stackmap_kunit_two_cpus tc = { };
	struct stackmap_kunit_wrap w;
	struct stackmap_kunit_ctx *ctx;
	struct trace_buffer *buffer;
	struct trace_stackmap *sm;
	unsigned long ip, redefinitions;
	int round, rounds;
	u32 id[2];

	if (num_online_cpus() < 2)
		kunit_skip(test, "needs two online CPUs");
	stackmap_kunit_defs_setup(test, &ctx);
	sm = &ctx->tr->stackmap;
	buffer = ctx->tr->array_buffer.buffer;
	KUNIT_ASSERT_TRUE(test, ctx->tr->trace_flags & TRACE_ITER_OVERWRITE);
	KUNIT_ASSERT_EQ(test, ring_buffer_resize(buffer,
						 STACKMAP_KUNIT_WRAP_PAGES * PAGE_SIZE,
						 RING_BUFFER_ALL_CPUS), 0);
	tc.cpu[0] = cpumask_first(cpu_online_mask);
	tc.cpu[1] = cpumask_last(cpu_online_mask);
	redefinitions = atomic_long_read(&sm->redefinitions);

	/* One call site of the printer of A: the same stack every round. */
	rounds = 3;
	OPTIMIZER_HIDE_VAR(rounds);
	for (round = 0; round < rounds; round++) {
		stackmap_kunit_two_cpus_step(test, ctx, &tc, round);
		stackmap_kunit_print_wrap_a(test, ctx->tr, NULL, &ip);
	}

	id[0] = stackmap_kunit_last_id(ctx->tr, tc.cpu[1]);
	id[1] = 0;
	KUNIT_ASSERT_NE(test, id[0], 0);
	KUNIT_EXPECT_GT(test, atomic_long_read(&sm->redefinitions),
			redefinitions);
	stackmap_kunit_wrap_walk(ctx, buffer, tc.cpu[1], id, &w);
	kunit_info(test, "CPU %d overwrote %lu entries; CPU %d: A %u ids, %u defs\n",
		   tc.cpu[0], tc.lost, tc.cpu[1], w.ids[0], w.defs[0]);
	KUNIT_EXPECT_EQ(test, w.ids[0], 2 * STACKMAP_KUNIT_PRINTS);
	KUNIT_EXPECT_EQ(test, w.defs[0], 1);
	KUNIT_EXPECT_EQ(test, w.undefined[0], 0);
	KUNIT_EXPECT_EQ(test, w.other, 0);
}

/*
 * The depot that setting the option allocates holds the first stacks of
 * a burst without waiting for growth: the stacks of the function tracer
 * on the allocator come faster than a work item may run on a busy
 * machine. A room's worth of new stacks of the expected depth fits in
 * the chunks the depot was created with.
 */
static void stackmap_enable_room_test(struct kunit *test)
{
	struct stackmap_kunit_ctx *ctx = stackmap_kunit_setup(test);
	const unsigned int depth = TRACE_STACKMAP_EXPECTED_DEPTH;
	unsigned int i, j, room, failed = 0;
	struct stackdepot_lf_stats before, after;
	struct stackdepot_lf *depot;
	stackdepot_lf_id_t id;

	room = TRACE_STACKMAP_DEFAULT_SIZE / TRACE_STACKMAP_ROOM_DIV;
	rcu_read_lock_sched();
	/* Pairs with rcu_assign_pointer() in stackmap_create(). */
	depot = rcu_dereference_sched(ctx->tr->stackmap.depot);
	stackdepot_lf_stats(depot, &before);
	for (i = 0; i < room; i++) {
		/* Frames no traced stack has: a new stack each time. */
		for (j = 0; j < depth; j++)
			ctx->entries[j] = ~0UL - i * depth - j;
		if (stackdepot_lf_get_id(depot, ctx->entries, depth, &id))
			failed++;
	}
	stackdepot_lf_stats(depot, &after);
	rcu_read_unlock_sched();

	kunit_info(test, "%u stacks in %llu bytes; %u chunks of %u at creation\n",
		   room, after.arena_used - before.arena_used, before.chunks,
		   before.chunk_size);
	KUNIT_ASSERT_EQ(test, before.max_records, TRACE_STACKMAP_DEFAULT_SIZE);
	KUNIT_EXPECT_EQ(test, failed, 0);
	KUNIT_EXPECT_EQ(test, after.drops_grow, before.drops_grow);
	KUNIT_EXPECT_LE(test, after.arena_used,
			(u64)before.chunks * before.chunk_size);
}

/* What a walk of one CPU's buffer, oldest first, found of the markers. */
struct stackmap_kunit_marks {
	unsigned int	ids;		/* TRACE_STACK_ID entries */
	unsigned int	marks;		/* TRACE_STACK_BOOT entries */
	unsigned int	firsts;		/* of them, with the FIRST flag */
	unsigned int	wrong;		/* of them, with another token */
	unsigned int	stack_before;	/* ids and defs before the first */
	bool		first_first;	/* the first entry of all has FIRST */
};

static void stackmap_kunit_marks_walk(struct trace_buffer *buffer, int cpu,
				      u32 token, struct stackmap_kunit_marks *m)
{
	struct ring_buffer_event *event;
	struct ring_buffer_iter *iter;
	struct stack_boot_entry *mark;
	struct trace_entry *ent;
	bool seen = false;
	u64 ts;

	memset(m, 0, sizeof(*m));
	iter = ring_buffer_read_start(buffer, cpu, GFP_KERNEL);
	if (!iter)
		return;
	while ((event = ring_buffer_iter_peek(iter, &ts))) {
		ent = ring_buffer_event_data(event);
		if (ent->type == TRACE_STACK_BOOT) {
			mark = (struct stack_boot_entry *)ent;
			if (!seen && !m->stack_before)
				m->first_first = mark->flags &
						 TRACE_STACKMAP_BOOT_FIRST;
			seen = true;
			m->marks++;
			m->firsts += !!(mark->flags & TRACE_STACKMAP_BOOT_FIRST);
			m->wrong += mark->boot != token;
		} else if (ent->type == TRACE_STACK_ID ||
			   ent->type == TRACE_STACK_DEF) {
			m->ids += ent->type == TRACE_STACK_ID;
			m->stack_before += !seen;
		}
		ring_buffer_iter_advance(iter);
	}
	ring_buffer_read_finish(iter);
}

/*
 * A persistent instance's markers (stackmap_mark_boot()): on the CPU, one
 * with TRACE_STACKMAP_BOOT_FIRST before the first id or definition, none
 * more while nothing is lost, one without it before the first id after a
 * reset, and, once the buffer wraps, one more on each sub-buffer it
 * writes, so that what is left of it starts with them. The case's
 * instance is not boot-mapped: it gets a token as stackmap_create() gives
 * one to such an instance, before anything records into it.
 */
static void stackmap_boot_marks_test(struct kunit *test)
{
	struct stackmap_kunit_ctx *ctx;
	struct stackmap_kunit_marks m;
	struct trace_buffer *buffer;
	struct trace_stackmap *sm;
	const u32 token = 0x5eed1e55;
	unsigned long ip, n = 0;
	int cpu;

	stackmap_kunit_defs_setup(test, &ctx);
	sm = &ctx->tr->stackmap;
	buffer = ctx->tr->array_buffer.buffer;
	KUNIT_ASSERT_EQ(test, sm->boot, 0);
	atomic_set(&sm->mark_epoch, STACKMAP_MARK_EPOCH);
	WRITE_ONCE(sm->boot, token);
	KUNIT_ASSERT_EQ(test, ring_buffer_resize(buffer,
						 STACKMAP_KUNIT_WRAP_PAGES * PAGE_SIZE,
						 RING_BUFFER_ALL_CPUS), 0);

	migrate_disable();
	cpu = smp_processor_id();
	stackmap_kunit_print_wrap_a(test, ctx->tr, NULL, &ip);
	stackmap_kunit_print_wrap_a(test, ctx->tr, NULL, &ip);
	stackmap_kunit_marks_walk(buffer, cpu, token, &m);
	KUNIT_EXPECT_EQ(test, m.ids, 2 * STACKMAP_KUNIT_PRINTS);
	KUNIT_EXPECT_EQ(test, m.marks, 1);
	KUNIT_EXPECT_EQ(test, m.firsts, 1);
	KUNIT_EXPECT_TRUE(test, m.first_first);
	KUNIT_EXPECT_EQ(test, m.stack_before, 0);
	KUNIT_EXPECT_EQ(test, m.wrong, 0);

	tracing_reset_online_cpus(&ctx->tr->array_buffer);
	stackmap_kunit_print_wrap_a(test, ctx->tr, NULL, &ip);
	stackmap_kunit_marks_walk(buffer, cpu, token, &m);
	KUNIT_EXPECT_EQ(test, m.ids, STACKMAP_KUNIT_PRINTS);
	KUNIT_EXPECT_EQ(test, m.marks, 1);
	KUNIT_EXPECT_EQ(test, m.firsts, 0);
	KUNIT_EXPECT_EQ(test, m.stack_before, 0);

	while (ring_buffer_overrun_cpu(buffer, cpu) <
	       STACKMAP_KUNIT_WRAPS * ring_buffer_entries_cpu(buffer, cpu)) {
		if (n++ == STACKMAP_KUNIT_FILL_MAX) {
			KUNIT_FAIL(test, "the buffer did not wrap");
			break;
		}
		stackmap_kunit_print_wrap_b(test, ctx->tr, NULL, &ip);
	}
	stackmap_kunit_marks_walk(buffer, cpu, token, &m);
	migrate_enable();
	kunit_info(test, "%u markers in %u pages, %u ids and definitions before the first\n",
		   m.marks, STACKMAP_KUNIT_WRAP_PAGES, m.stack_before);
	KUNIT_EXPECT_GT(test, m.ids, 0);
	/* One a page, but for those the writer is on and filled first. */
	KUNIT_EXPECT_GE(test, m.marks, STACKMAP_KUNIT_WRAP_PAGES - 2);
	KUNIT_EXPECT_LE(test, m.marks, STACKMAP_KUNIT_WRAP_PAGES + 1);
	KUNIT_EXPECT_EQ(test, m.firsts, 0);
	KUNIT_EXPECT_EQ(test, m.wrong, 0);
	/* At most the rest of the oldest page, whose marker went first. */
	KUNIT_EXPECT_LE(test, m.stack_before,
			PAGE_SIZE / sizeof(struct stack_id_entry));
}

/*
 * An earlier boot's ids (last_boot) stay in the buffer until every CPU's
 * part of it is empty: a reset of one CPU (per_cpu/cpuN/trace opened for
 * writing with O_TRUNC), or of the online CPUs, may leave some on
 * another, and its ids must not be looked up in this boot's depot then.
 */
static void stackmap_last_boot_reset_test(struct kunit *test)
{
	struct stackmap_kunit_ctx *ctx;
	struct trace_buffer *buffer;
	struct trace_stackmap *sm;
	unsigned long ip;
	unsigned int other;
	int cpu;

	stackmap_kunit_defs_setup(test, &ctx);
	sm = &ctx->tr->stackmap;
	buffer = ctx->tr->array_buffer.buffer;

	migrate_disable();
	cpu = smp_processor_id();
	stackmap_kunit_print_wrap_a(test, ctx->tr, NULL, &ip);
	KUNIT_EXPECT_GT(test, ring_buffer_entries_cpu(buffer, cpu), 0);
	WRITE_ONCE(sm->last_boot, true);

	/* What tracing_reset_cpu() does for another CPU. */
	other = cpumask_any_but(cpu_online_mask, cpu);
	if (other < nr_cpu_ids) {
		ring_buffer_reset_cpu(buffer, other);
		trace_stackmap_buffer_reset(&ctx->tr->array_buffer);
		KUNIT_EXPECT_TRUE(test, READ_ONCE(sm->last_boot));
	}

	ring_buffer_reset_cpu(buffer, cpu);
	trace_stackmap_buffer_reset(&ctx->tr->array_buffer);
	migrate_enable();
	KUNIT_EXPECT_FALSE(test, READ_ONCE(sm->last_boot));
	if (other >= nr_cpu_ids)
		kunit_skip(test, "one CPU online: no other CPU's reset to try");
}

static struct kunit_case trace_stackmap_cases[] = {
	KUNIT_CASE_PARAM(stackmap_parse_cmd_test, parse_gen_params),
	KUNIT_CASE(stackmap_parse_cmd_len_test),
	KUNIT_CASE(stackmap_encode_header_test),
	KUNIT_CASE(stackmap_encode_record_addrs_test),
	KUNIT_CASE(stackmap_encode_record_zeroed_test),
	KUNIT_CASE(stackmap_printk_other_instance_test),
	KUNIT_CASE(stackmap_printk_own_instance_test),
	KUNIT_CASE(stackmap_printk_max_buffer_test),
	KUNIT_CASE(stackmap_defs_test),
	KUNIT_CASE(stackmap_defs_redefine_test),
	KUNIT_CASE(stackmap_defs_max_buffer_test),
	KUNIT_CASE(stackmap_defs_off_test),
	KUNIT_CASE(stackmap_emit_test),
	KUNIT_CASE(stackmap_emit_too_big_test),
	KUNIT_CASE(stackmap_emit_footprint_test),
	KUNIT_CASE_PARAM(stackmap_defs_overrun_test, overrun_pct_gen_params),
	KUNIT_CASE(stackmap_defs_other_cpu_test),
	KUNIT_CASE(stackmap_enable_room_test),
	KUNIT_CASE(stackmap_boot_marks_test),
	KUNIT_CASE(stackmap_last_boot_reset_test),
	{}
};

static struct kunit_suite trace_stackmap_suite = {
	.name = "trace_stackmap",
	.test_cases = trace_stackmap_cases,
};

kunit_test_suite(trace_stackmap_suite);

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
MODULE_DESCRIPTION("KUnit tests for the ftrace stackmap option");
MODULE_LICENSE("GPL");
