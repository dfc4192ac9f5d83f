// SPDX-License-Identifier: GPL-2.0
/*
 * The stackmap events through libtraceevent. Fields are found by name in
 * the event's format, and every read stays within the record's size.
 */
#include "stackevent.h"

/* A u32 field of @event, not an array; NULL if there is none. */
static struct tep_format_field *u32_field(struct tep_event *event,
					  const char *name)
{
	struct tep_format_field *f = tep_find_field(event, name);

	if (!f || f->size != 4 || f->offset < 0 ||
	    (f->flags & TEP_FIELD_IS_ARRAY))
		return NULL;
	return f;
}

int stackevent_read_id(struct tep_event *event, struct tep_record *record,
		       uint32_t *id)
{
	struct tep_format_field *f = u32_field(event, "id");

	/* In 64 bits: a format may put the field up to INT_MAX. */
	if (!f || record->size < 0 || (int64_t)f->offset + 4 > record->size)
		return -1;
	*id = tep_read_number(event->tep, (char *)record->data + f->offset, 4);
	return 0;
}

/*
 * The traced kernel's long: the size of the commit field of its ring
 * buffer pages (a local_t), which trace-cmd reads from header_page;
 * else the long size of the trace.dat header, which is that of the
 * trace-cmd that recorded it, and differs for a 32-bit trace-cmd on a
 * 64-bit kernel.
 */
uint32_t stackevent_long_size(struct tep_handle *tep)
{
	int size = tep_get_header_page_size(tep);

	if (size == 4 || size == 8)
		return size;
	return tep_get_long_size(tep);
}

int stackevent_read_def(struct tep_event *event, struct tep_record *record,
			struct smap_def *def, struct smap_error *err)
{
	struct tep_format_field *id = u32_field(event, "id");
	struct tep_format_field *depth = u32_field(event, "depth");
	struct tep_format_field *caller = tep_find_field(event, "caller");
	struct smap_def_layout lay;

	if (!id || !depth || !caller || caller->offset < 0 ||
	    !(caller->flags & TEP_FIELD_IS_ARRAY) || record->size < 0) {
		def->id = 0;
		def->depth = 0;
		smap_err(err, 0, "%s: no u32 id and depth, or no caller[] array",
			 event->name);
		return -1;
	}
	lay.id_off = id->offset;
	lay.depth_off = depth->offset;
	lay.caller_off = caller->offset;
	lay.long_size = stackevent_long_size(event->tep);
	lay.big_endian = tep_is_file_bigendian(event->tep);
	return smap_def_decode(&lay, record->data, record->size, def, err);
}

/* A u32 field @f of @record: 0, or -1 if the record ends before it. */
static int read_u32(struct tep_event *event, struct tep_record *record,
		    struct tep_format_field *f, uint32_t *v,
		    struct smap_error *err)
{
	*v = 0;
	if ((int64_t)f->offset + 4 > record->size) {
		smap_err(err, record->size < 0 ? 0 : record->size,
			 "record ends before the %s (offset %d)", f->name,
			 f->offset);
		return -1;
	}
	*v = tep_read_number(event->tep, (char *)record->data + f->offset, 4);
	return 0;
}

int stackevent_read_boot(struct tep_event *event, struct tep_record *record,
			 uint32_t *token, uint32_t *flags,
			 struct smap_error *err)
{
	struct tep_format_field *b = u32_field(event, "boot");
	struct tep_format_field *f = u32_field(event, "flags");

	*token = 0;
	*flags = 0;
	if (!b || !f) {
		smap_err(err, 0, "%s: no u32 boot and flags", event->name);
		return -1;
	}
	if (read_u32(event, record, b, token, err) ||
	    read_u32(event, record, f, flags, err))
		return -1;
	if (!*token) {
		smap_err(err, b->offset, "boot token 0");
		return -1;
	}
	return 0;
}

void stackevent_print_boot(struct trace_seq *s, uint32_t token,
			   uint32_t flags, bool malformed)
{
	trace_seq_printf(s, "<stack_boot 0x%08x flags 0x%x>%s", token, flags,
			 malformed ? " [malformed]" : "");
}

void stackevent_print_def(struct trace_seq *s, const struct smap_def *def,
			  bool malformed)
{
	trace_seq_printf(s, "<stack_def 0x%08x depth %u>%s", def->id,
			 def->depth, malformed ? " [malformed]" : "");
}

static void print_frame(struct trace_seq *s, struct tep_handle *tep,
			unsigned long long ip)
{
	unsigned long long start;
	unsigned long size;
	const char *name;

	trace_seq_puts(s, "\n => ");
	if (ip == SMAP_TRAMPOLINE) {
		trace_seq_puts(s, "[FTRACE TRAMPOLINE]");
		return;
	}
	if (ip && tep_find_function_info(tep, ip, &name, &start, &size)) {
		trace_seq_printf(s, "%s+0x%llx", name, ip - start);
		if (size)
			trace_seq_printf(s, "/0x%lx", size);
		return;
	}
	trace_seq_printf(s, "0x%llx", ip);
}

void stackevent_print_stack(struct trace_seq *s, struct tep_handle *tep,
			    const uint64_t *addrs, uint32_t depth)
{
	uint32_t i;

	trace_seq_puts(s, "<stack trace>");
	for (i = 0; i < depth; i++)
		print_frame(s, tep, addrs[i]);
}

enum smap_lookup stackevent_print_mapped(struct trace_seq *s,
					 struct tep_handle *tep,
					 struct smap_index *ix, uint32_t id)
{
	struct smap_record rec;
	enum smap_lookup res = smap_index_lookup(ix, id, &rec);

	switch (res) {
	case SMAP_FOUND:
		stackevent_print_stack(s, tep, rec.addrs, rec.depth);
		break;
	case SMAP_STALE:
		trace_seq_printf(s, "<stack_id 0x%08x> [stale]", id);
		break;
	case SMAP_UNKNOWN:
		trace_seq_printf(s, "<stack_id 0x%08x> [unknown]", id);
		break;
	}
	return res;
}
