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

	if (!f || record->size < 0 || f->offset + 4 > record->size)
		return -1;
	*id = tep_read_number(event->tep, (char *)record->data + f->offset, 4);
	return 0;
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
