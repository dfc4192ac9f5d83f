// SPDX-License-Identifier: GPL-2.0
/*
 * ftrace stackmap: the tracefs files that export the stacks of a trace
 * instance's depot.
 *
 * stack_map prints every stack of the current generation as text, and
 * resets the depot or emits its definitions into the trace on a write,
 * stack_map_stat prints its counters, stack_map_bin streams the stacks in
 * the binary format of <uapi/linux/trace_stackmap.h>, stack_map_size sets
 * the capacity of the next depot, options/stackmap-expand makes the trace
 * output print ids as full stacks and options/stackmap-defs turns the
 * definitions in the trace on and off. This file only parses and prints:
 * every change is made by trace_stackmap.c, which creates and frees the
 * depots and whose recording path fills them.
 *
 * Coding conventions in this file: @tr is the trace instance, @depot the
 * depot published in it, @st the cursor of a stack_map reader, @bin that
 * of a stack_map_bin reader.
 *
 * Locking: every read of a depot here holds it by
 * trace_stackmap_lock_depot(), which keeps it from being reset, replaced
 * or freed meanwhile; none holds it over a copy to or from user memory.
 */

#include <kunit/visibility.h>
#include <linux/ctype.h>
#include <linux/kallsyms.h>
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/stackdepot_lf.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "trace.h"
#include "trace_stackmap.h"
#include "trace_stackmap_export.h"

/* Parser and encoders: no state, so that KUnit can test them alone. */

/**
 * trace_stackmap_parse_cmd() - parse a write to the stack_map file
 * @buf: the bytes written, not NUL-terminated
 * @len: their number
 *
 * Return: %TRACE_STACKMAP_CMD_RESET for "0" or "reset",
 * %TRACE_STACKMAP_CMD_EMIT for "emit", each with an optional trailing
 * newline; -EINVAL for anything else.
 */
VISIBLE_IF_KUNIT int trace_stackmap_parse_cmd(const char *buf, size_t len)
{
	if (len && buf[len - 1] == '\n')
		len--;
	if ((len == 1 && buf[0] == '0') ||
	    (len == 5 && !memcmp(buf, "reset", 5)))
		return TRACE_STACKMAP_CMD_RESET;
	if (len == 4 && !memcmp(buf, "emit", 4))
		return TRACE_STACKMAP_CMD_EMIT;
	return -EINVAL;
}
EXPORT_SYMBOL_IF_KUNIT(trace_stackmap_parse_cmd);

/**
 * trace_stackmap_encode_header() - fill the header of stack_map_bin
 * @hdr: the header
 * @generation: generation of the records
 * @nr_records: number of records that follow
 * @flags: %TRACE_STACKMAP_BIN_ADDRS or 0
 * @max_depth: deepest record possible
 * @index_bits: low bits of an id that index the depot's table
 */
VISIBLE_IF_KUNIT void
trace_stackmap_encode_header(struct trace_stackmap_bin_header *hdr,
			     u32 generation, u32 nr_records, u32 flags,
			     u32 max_depth, u32 index_bits)
{
	*hdr = (struct trace_stackmap_bin_header) {
		.magic		= TRACE_STACKMAP_BIN_MAGIC,
		.version	= TRACE_STACKMAP_BIN_VERSION,
		.header_size	= sizeof(*hdr),
		.generation	= generation,
		.nr_records	= nr_records,
		.flags		= flags,
		.max_depth	= max_depth,
		.record_size	= sizeof(struct trace_stackmap_bin_record),
		.index_bits	= index_bits,
	};
}
EXPORT_SYMBOL_IF_KUNIT(trace_stackmap_encode_header);

/**
 * trace_stackmap_encode_record() - encode one record of stack_map_bin
 * @buf: room for the record header and @info->depth u64 addresses
 * @info: the record's id, depth and ref count
 * @entries: its stack
 * @addrs: copy the real addresses; else zeros, except the trampoline
 *	marker, which is not an address
 *
 * Return: the number of bytes written.
 */
VISIBLE_IF_KUNIT size_t
trace_stackmap_encode_record(void *buf, const struct stackdepot_lf_info *info,
			     const unsigned long *entries, bool addrs)
{
	struct trace_stackmap_bin_record rec = {
		.id	= stackdepot_lf_id_to_u32(info->id),
		.depth	= info->depth,
		.refs	= info->refs,
	};
	u64 *out = buf + sizeof(rec);
	unsigned int i;

	memcpy(buf, &rec, sizeof(rec));
	for (i = 0; i < info->depth; i++) {
		u64 ip = entries[i];

		if (!addrs && entries[i] != FTRACE_TRAMPOLINE_MARKER)
			ip = 0;
		memcpy(&out[i], &ip, sizeof(ip));
	}
	return sizeof(rec) + info->depth * sizeof(u64);
}
EXPORT_SYMBOL_IF_KUNIT(trace_stackmap_encode_record);

/* stack_map: text export and reset */

struct stackmap_seq {
	struct trace_array		*tr;
	struct stackdepot_lf_iter	iter;
	u32				epoch;
	loff_t				pos;	/* index of the record held */
	int				depth;	/* > 0 held, 0 end, < 0 error */
	struct stackdepot_lf_info	info;
	unsigned long			entries[TRACE_STACKMAP_MAX_DEPTH];
};

static void stackmap_seq_fetch(struct stackmap_seq *st)
{
	st->depth = stackdepot_lf_iter_next(&st->iter, st->entries,
					    ARRAY_SIZE(st->entries), &st->info);
}

static void *stackmap_seq_start(struct seq_file *m, loff_t *pos)
{
	struct stackmap_seq *st = m->private;
	struct stackdepot_lf *depot;
	u32 epoch;

	depot = trace_stackmap_lock_depot(st->tr, &epoch);

	if (!*pos) {
		if (!depot)
			return NULL;
		stackdepot_lf_iter_start(&st->iter, depot);
		st->epoch = epoch;
		st->pos = 0;
		stackmap_seq_fetch(st);
	} else if (st->epoch != epoch) {
		/* The depot was reset, replaced or freed since the last read. */
		st->depth = -ESTALE;
	}

	/* seq_file may ask again for the record it could not fit. */
	while (st->depth > 0 && st->pos < *pos) {
		st->pos++;
		stackmap_seq_fetch(st);
	}
	if (st->depth < 0)
		return ERR_PTR(st->depth);
	return st->depth ? st : NULL;
}

static void *stackmap_seq_next(struct seq_file *m, void *v, loff_t *pos)
{
	struct stackmap_seq *st = m->private;

	++*pos;
	st->pos++;
	stackmap_seq_fetch(st);
	/* An error is returned by the next start(), i.e. the next read(). */
	return st->depth > 0 ? st : NULL;
}

static void stackmap_seq_stop(struct seq_file *m, void *v)
{
	trace_stackmap_unlock_depot();
}

static int stackmap_seq_show(struct seq_file *m, void *v)
{
	struct stackmap_seq *st = v;
	int i;

	seq_printf(m, "stack_id 0x%08x [ref %u, depth %u]\n",
		   stackdepot_lf_id_to_u32(st->info.id), st->info.refs,
		   st->info.depth);
	for (i = 0; i < st->depth; i++) {
		if (st->entries[i] == FTRACE_TRAMPOLINE_MARKER)
			seq_printf(m, "  [%d] [FTRACE TRAMPOLINE]\n", i);
		else
			seq_printf(m, "  [%d] %pS\n", i, (void *)st->entries[i]);
	}
	return 0;
}

static const struct seq_operations stackmap_seq_ops = {
	.start	= stackmap_seq_start,
	.next	= stackmap_seq_next,
	.stop	= stackmap_seq_stop,
	.show	= stackmap_seq_show,
};

static int stackmap_open(struct inode *inode, struct file *file)
{
	struct trace_array *tr = inode->i_private;
	struct stackmap_seq *st;
	int ret;

	ret = tracing_check_open_get_tr(tr);
	if (ret)
		return ret;

	if (!(file->f_mode & FMODE_READ))
		return 0;

	st = __seq_open_private(file, &stackmap_seq_ops, sizeof(*st));
	if (!st) {
		trace_array_put(tr);
		return -ENOMEM;
	}
	st->tr = tr;
	return 0;
}

static int stackmap_release(struct inode *inode, struct file *file)
{
	struct trace_array *tr = inode->i_private;

	trace_array_put(tr);
	if (file->f_mode & FMODE_READ)
		return seq_release_private(inode, file);
	return 0;
}

static ssize_t stackmap_write(struct file *file, const char __user *ubuf,
			      size_t cnt, loff_t *ppos)
{
	struct trace_array *tr = file_inode(file)->i_private;
	char buf[8];
	int cmd, ret;

	if (!cnt || cnt > sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, cnt))
		return -EFAULT;
	cmd = trace_stackmap_parse_cmd(buf, cnt);
	if (cmd < 0)
		return cmd;

	if (cmd == TRACE_STACKMAP_CMD_EMIT) {
		ret = trace_stackmap_emit(tr);
		if (ret)
			return ret;
	} else {
		trace_stackmap_reset(tr);
	}

	*ppos += cnt;
	return cnt;
}

static const struct file_operations stackmap_fops = {
	.open		= stackmap_open,
	.read		= seq_read,
	.write		= stackmap_write,
	/* Writers have no seq_file to seek: tracing_lseek() leaves them at 0. */
	.llseek		= tracing_lseek,
	.release	= stackmap_release,
};

/* stack_map_stat */

/* The instance's own counters of definitions, which outlive its depots. */
static void stackmap_stat_defs(struct seq_file *m, struct trace_array *tr)
{
	struct trace_stackmap *sm = &tr->stackmap;

	seq_printf(m, "definitions: %lu\n", atomic_long_read(&sm->defs));
	seq_printf(m, "definitions_emitted: %lu\n",
		   atomic_long_read(&sm->defs_emitted));
	seq_printf(m, "definitions_lost: %lu\n",
		   atomic_long_read(&sm->defs_lost));
	seq_printf(m, "definitions_bytes: %lld\n",
		   atomic64_read(&sm->defs_bytes));
	seq_printf(m, "redefinitions: %lu\n",
		   atomic_long_read(&sm->redefinitions));
	/* A persistent instance's: see trace_stackmap.c. */
	if (READ_ONCE(sm->boot)) {
		seq_printf(m, "boot_marker: 0x%08x\n", READ_ONCE(sm->boot));
		seq_printf(m, "last_boot: %d\n", READ_ONCE(sm->last_boot));
	}
}

/*
 * The counters users need, in a set kept stable: see "stack_map_stat" in
 * Documentation/trace/ftrace-stackmap.rst. The depot's table internals are
 * left out on purpose.
 */
static int stackmap_stat_show(struct seq_file *m, void *v)
{
	struct trace_array *tr = m->private;
	struct stackdepot_lf_stats st;
	struct stackdepot_lf *depot;
	unsigned int size;

	depot = trace_stackmap_lock_depot(tr, NULL);
	if (depot)
		stackdepot_lf_stats(depot, &st);
	size = trace_stackmap_size(tr);
	trace_stackmap_unlock_depot();

	seq_printf(m, "allocated: %d\n", !!depot);
	if (!depot) {
		seq_printf(m, "capacity: %u\n", size);
		stackmap_stat_defs(m, tr);
		return 0;
	}

	seq_printf(m, "generation: %u\n", st.generation);
	seq_printf(m, "records: %u\n", st.records);
	seq_printf(m, "capacity: %u\n", st.max_records);
	seq_printf(m, "mem_used: %llu\n", st.mem_used);
	seq_printf(m, "mem_allocated: %llu\n", st.mem_allocated);
	seq_printf(m, "hits: %llu\n", st.hits);
	seq_printf(m, "inserts: %llu\n", st.inserts);
	seq_printf(m, "drops_full: %llu\n", st.drops_full);
	seq_printf(m, "drops_grow: %llu\n", st.drops_grow);
	seq_printf(m, "drops_probe: %llu\n", st.drops_probe);
	seq_printf(m, "drops_too_deep: %llu\n", st.drops_too_deep);
	seq_printf(m, "drops_busy: %llu\n", st.drops_busy);
	seq_printf(m, "drops_context: %llu\n", st.drops_context +
		   atomic_long_read(&tr->stackmap.drops_context));
	seq_printf(m, "resets: %llu\n", st.resets);
	stackmap_stat_defs(m, tr);
	return 0;
}

static int stackmap_stat_open(struct inode *inode, struct file *file)
{
	struct trace_array *tr = inode->i_private;
	int ret;

	ret = tracing_check_open_get_tr(tr);
	if (ret)
		return ret;

	ret = single_open(file, stackmap_stat_show, tr);
	if (ret)
		trace_array_put(tr);
	return ret;
}

static int stackmap_stat_release(struct inode *inode, struct file *file)
{
	trace_array_put(inode->i_private);
	return single_release(inode, file);
}

static const struct file_operations stackmap_stat_fops = {
	.open		= stackmap_stat_open,
	.read		= seq_read,
	.llseek		= seq_lseek,
	.release	= stackmap_stat_release,
};

/* stack_map_bin */

struct stackmap_bin {
	struct trace_array	*tr;
	struct mutex		lock;	/* serialises read() calls */
	u32			epoch;
	u32			gen;	/* generation of @ids, 0 if no depot */
	u32			index_bits;
	u32			*ids;	/* the records, fixed at open */
	u32			nr_ids;
	u32			next;	/* next of @ids to encode */
	bool			addrs;
	int			err;	/* sticky once the stream went stale */
	size_t			len;	/* bytes staged in @buf */
	size_t			off;	/* bytes of @buf already read */
	unsigned long		entries[TRACE_STACKMAP_MAX_DEPTH];
	u8			buf[sizeof(struct trace_stackmap_bin_record) +
				    TRACE_STACKMAP_MAX_DEPTH * sizeof(u64)];
};

/*
 * Collect the ids of the current generation, walking ids only: the
 * stacks are copied at read. The caller holds the depot, which keeps
 * resets, and so a new generation, away meanwhile; the records the walk
 * finds are at most the depot's capacity.
 */
static int stackmap_bin_snapshot(struct stackmap_bin *bin,
				 struct stackdepot_lf *depot)
{
	u32 max_records = trace_stackmap_size(bin->tr);
	struct stackdepot_lf_info info;
	struct stackdepot_lf_iter iter;
	int ret;

	trace_stackmap_assert_depot_held();

	bin->ids = kvmalloc_array(max_records, sizeof(*bin->ids), GFP_KERNEL);
	if (!bin->ids)
		return -ENOMEM;

	bin->gen = stackdepot_lf_generation(depot);
	stackdepot_lf_iter_start(&iter, depot);
	while ((ret = stackdepot_lf_iter_next(&iter, NULL, 0, &info)) > 0) {
		if (WARN_ON_ONCE(bin->nr_ids == max_records))
			break;
		bin->ids[bin->nr_ids++] = stackdepot_lf_id_to_u32(info.id);
	}
	return ret < 0 ? ret : 0;
}

static int stackmap_bin_open(struct inode *inode, struct file *file)
{
	struct trace_array *tr = inode->i_private;
	struct trace_stackmap_bin_header hdr;
	struct stackdepot_lf *depot;
	struct stackmap_bin *bin;
	int ret;

	ret = tracing_check_open_get_tr(tr);
	if (ret)
		return ret;

	bin = kzalloc(sizeof(*bin), GFP_KERNEL);
	if (!bin) {
		ret = -ENOMEM;
		goto out_put;
	}
	bin->tr = tr;
	mutex_init(&bin->lock);
	bin->addrs = kallsyms_show_value(file->f_cred);

	depot = trace_stackmap_lock_depot(tr, &bin->epoch);
	/* Without a depot, the split of the one the option would create. */
	bin->index_bits = trace_stackmap_index_bits(tr);
	if (depot)
		ret = stackmap_bin_snapshot(bin, depot);
	trace_stackmap_unlock_depot();
	if (ret)
		goto out_free;

	trace_stackmap_encode_header(&hdr, bin->gen, bin->nr_ids,
				     bin->addrs ? TRACE_STACKMAP_BIN_ADDRS : 0,
				     TRACE_STACKMAP_MAX_DEPTH, bin->index_bits);
	memcpy(bin->buf, &hdr, sizeof(hdr));
	bin->len = sizeof(hdr);

	file->private_data = bin;
	return nonseekable_open(inode, file);

out_free:
	kvfree(bin->ids);
	kfree(bin);
out_put:
	trace_array_put(tr);
	return ret;
}

/*
 * The depot of @bin, held, or NULL (and not held) if it was reset or
 * replaced since open. The epoch, not the generation tag, tells: a tag
 * comes back once the id space wraps.
 */
static struct stackdepot_lf *stackmap_bin_lock(struct stackmap_bin *bin)
{
	struct stackdepot_lf *depot;
	u32 epoch;

	depot = trace_stackmap_lock_depot(bin->tr, &epoch);
	if (!depot || epoch != bin->epoch) {
		trace_stackmap_unlock_depot();
		return NULL;
	}
	return depot;
}

/* Stage the next record of @depot, held; -ESTALE if it lost the record. */
static int stackmap_bin_stage(struct stackmap_bin *bin,
			      struct stackdepot_lf *depot)
{
	struct stackdepot_lf_info info;
	int depth;

	trace_stackmap_assert_depot_held();
	depth = stackdepot_lf_lookup(depot,
				     stackdepot_lf_u32_to_id(bin->ids[bin->next]),
				     bin->entries, ARRAY_SIZE(bin->entries),
				     &info);
	/* Records leave the depot only by a reset. */
	if (depth <= 0)
		return -ESTALE;

	bin->len = trace_stackmap_encode_record(bin->buf, &info, bin->entries,
						bin->addrs);
	bin->off = 0;
	bin->next++;
	return 0;
}

static ssize_t stackmap_bin_read(struct file *file, char __user *ubuf,
				 size_t cnt, loff_t *ppos)
{
	struct stackmap_bin *bin = file->private_data;
	struct stackdepot_lf *depot;
	ssize_t copied = 0;
	size_t n;

	mutex_lock(&bin->lock);
	/* Not even the rest of a staged record once the depot moved on. */
	if (!bin->err && bin->gen &&
	    (bin->off < bin->len || bin->next < bin->nr_ids)) {
		depot = stackmap_bin_lock(bin);
		if (depot)
			trace_stackmap_unlock_depot();
		else
			bin->err = -ESTALE;
	}
	while (cnt && !bin->err) {
		if (bin->off == bin->len) {
			if (bin->next == bin->nr_ids)
				break;
			/* Not held over copy_to_user(), which may fault. */
			depot = stackmap_bin_lock(bin);
			if (depot) {
				bin->err = stackmap_bin_stage(bin, depot);
				trace_stackmap_unlock_depot();
			} else {
				bin->err = -ESTALE;
			}
			if (bin->err)
				break;
		}
		n = min(cnt, bin->len - bin->off);
		if (copy_to_user(ubuf + copied, bin->buf + bin->off, n)) {
			if (!copied)
				copied = -EFAULT;
			break;
		}
		bin->off += n;
		copied += n;
		cnt -= n;
	}
	if (!copied)
		copied = bin->err;
	else if (copied > 0)
		*ppos += copied;
	mutex_unlock(&bin->lock);
	return copied;
}

static int stackmap_bin_release(struct inode *inode, struct file *file)
{
	struct stackmap_bin *bin = file->private_data;

	trace_array_put(bin->tr);
	mutex_destroy(&bin->lock);
	kvfree(bin->ids);
	kfree(bin);
	return 0;
}

static const struct file_operations stackmap_bin_fops = {
	.open		= stackmap_bin_open,
	.read		= stackmap_bin_read,
	.release	= stackmap_bin_release,
};

/* stack_map_size */

static ssize_t stackmap_size_read(struct file *file, char __user *ubuf,
				  size_t cnt, loff_t *ppos)
{
	struct trace_array *tr = file->private_data;
	char buf[16];
	int len;

	trace_stackmap_lock_depot(tr, NULL);
	len = scnprintf(buf, sizeof(buf), "%u\n", trace_stackmap_size(tr));
	trace_stackmap_unlock_depot();

	return simple_read_from_buffer(ubuf, cnt, ppos, buf, len);
}

/*
 * Copy a write of @cnt bytes into @buf, of @size bytes, as a string. A
 * write that does not fit is -EINVAL: unlike kstrtoul_from_user(), which
 * parses what fits, no prefix of a longer write is taken for the value.
 */
static int stackmap_str_from_user(char *buf, size_t size,
				  const char __user *ubuf, size_t cnt)
{
	if (!cnt || cnt >= size)
		return -EINVAL;
	if (copy_from_user(buf, ubuf, cnt))
		return -EFAULT;
	buf[cnt] = '\0';
	return 0;
}

static ssize_t stackmap_size_write(struct file *file, const char __user *ubuf,
				   size_t cnt, loff_t *ppos)
{
	struct trace_array *tr = file->private_data;
	unsigned int size;
	char buf[16];
	int ret;

	/* Garbage, overflow and overlong writes alike are -EINVAL. */
	ret = stackmap_str_from_user(buf, sizeof(buf), ubuf, cnt);
	if (ret)
		return ret;
	if (trace_stackmap_parse_size(buf, &size))
		return -EINVAL;
	ret = trace_stackmap_set_size(tr, size);
	if (ret)
		return ret;

	*ppos += cnt;
	return cnt;
}

static const struct file_operations stackmap_size_fops = {
	.open		= tracing_open_generic_tr,
	.read		= stackmap_size_read,
	.write		= stackmap_size_write,
	.release	= tracing_release_generic_tr,
	.llseek		= default_llseek,
};

/* stack_map_redefine */

static ssize_t stackmap_redefine_read(struct file *file, char __user *ubuf,
				      size_t cnt, loff_t *ppos)
{
	struct trace_array *tr = file->private_data;
	char buf[8];
	int len;

	len = scnprintf(buf, sizeof(buf), "%u\n",
			READ_ONCE(tr->stackmap.redefine_pct));
	return simple_read_from_buffer(ubuf, cnt, ppos, buf, len);
}

static ssize_t stackmap_redefine_write(struct file *file,
				       const char __user *ubuf, size_t cnt,
				       loff_t *ppos)
{
	struct trace_array *tr = file->private_data;
	unsigned int pct;
	char buf[8];
	int ret;

	/* 0 to 100, as stack_map_size takes its digits; else -EINVAL. */
	ret = stackmap_str_from_user(buf, sizeof(buf), ubuf, cnt);
	if (ret)
		return ret;
	if (trace_stackmap_parse_uint(buf, 100, &pct) ||
	    trace_stackmap_set_redefine(tr, pct))
		return -EINVAL;

	*ppos += cnt;
	return cnt;
}

static const struct file_operations stackmap_redefine_fops = {
	.open		= tracing_open_generic_tr,
	.read		= stackmap_redefine_read,
	.write		= stackmap_redefine_write,
	.release	= tracing_release_generic_tr,
	.llseek		= default_llseek,
};

/*
 * options/stackmap-*: one file per option of trace_stackmap_option(), which
 * has no trace_flags bit left. Each file's data is its instance, as for
 * tracing_open_generic_tr(), which takes the instance's reference without
 * reading it first; which option it is follows from its slot of
 * stackmap_option_fops[].
 */
static const char * const stackmap_option_names[] = {
	[TRACE_STACKMAP_OPT_EXPAND]	= "stackmap-expand",
	[TRACE_STACKMAP_OPT_DEFS]	= "stackmap-defs",
};

static_assert(ARRAY_SIZE(stackmap_option_names) == TRACE_STACKMAP_NR_OPTS);

static const struct file_operations
stackmap_option_fops[TRACE_STACKMAP_NR_OPTS];

static enum trace_stackmap_opt stackmap_option_of(struct file *file)
{
	return file->f_op - stackmap_option_fops;
}

static ssize_t stackmap_option_read(struct file *file, char __user *ubuf,
				    size_t cnt, loff_t *ppos)
{
	struct trace_array *tr = file->private_data;
	bool on = trace_stackmap_option(tr, stackmap_option_of(file));
	char buf[2] = { on ? '1' : '0', '\n' };

	return simple_read_from_buffer(ubuf, cnt, ppos, buf, sizeof(buf));
}

/*
 * "0" or "1", with an optional trailing newline, and nothing else: no
 * sign, blank or leading zero. Anything else is -EINVAL and changes
 * nothing.
 */
static ssize_t stackmap_option_write(struct file *file,
				     const char __user *ubuf, size_t cnt,
				     loff_t *ppos)
{
	struct trace_array *tr = file->private_data;
	unsigned int val;
	char buf[4];
	int ret;

	ret = stackmap_str_from_user(buf, sizeof(buf), ubuf, cnt);
	if (ret)
		return ret;
	if (trace_stackmap_parse_uint(buf, 1, &val))
		return -EINVAL;
	ret = trace_stackmap_set_option(tr, stackmap_option_of(file), val);
	if (ret)
		return ret;

	*ppos += cnt;
	return cnt;
}

/* One slot per option, alike but for where they are. */
static const struct file_operations
stackmap_option_fops[TRACE_STACKMAP_NR_OPTS] = {
	[0 ... TRACE_STACKMAP_NR_OPTS - 1] = {
		.open		= tracing_open_generic_tr,
		.read		= stackmap_option_read,
		.write		= stackmap_option_write,
		.release	= tracing_release_generic_tr,
		.llseek		= default_llseek,
	},
};

/**
 * trace_stackmap_init_tracefs() - create the stackmap files of an instance
 * @tr: the instance
 * @d_tracer: its tracefs directory
 *
 * Context: Process context.
 */
void trace_stackmap_init_tracefs(struct trace_array *tr,
				 struct dentry *d_tracer)
{
	unsigned int i;

	trace_create_file("stack_map", TRACE_MODE_WRITE, d_tracer, tr,
			  &stackmap_fops);
	trace_create_file("stack_map_stat", TRACE_MODE_READ, d_tracer, tr,
			  &stackmap_stat_fops);
	trace_create_file("stack_map_bin", TRACE_MODE_READ, d_tracer, tr,
			  &stackmap_bin_fops);
	trace_create_file("stack_map_size", TRACE_MODE_WRITE, d_tracer, tr,
			  &stackmap_size_fops);
	/*
	 * Before the file exists, no write can have set it. Pairs with
	 * READ_ONCE() in stackmap_lost_defs_slow().
	 */
	WRITE_ONCE(tr->stackmap.redefine_pct, TRACE_STACKMAP_DEFAULT_REDEFINE);
	trace_create_file("stack_map_redefine", TRACE_MODE_WRITE, d_tracer, tr,
			  &stackmap_redefine_fops);
	if (!tr->options)
		return;
	for (i = 0; i < TRACE_STACKMAP_NR_OPTS; i++)
		trace_create_file(stackmap_option_names[i], TRACE_MODE_WRITE,
				  tr->options, tr, &stackmap_option_fops[i]);
}
