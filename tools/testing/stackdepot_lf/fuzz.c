// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the input is a depot geometry followed by a sequence
 * of API operations, run single-threaded against a model of what the depot
 * must hold. Any disagreement aborts.
 *
 * Input: 8 bytes of parameters (records, arena, depth, probe, flags, hash),
 * then operations of one opcode byte and up to four argument bytes.
 */
#include "util.h"

#define FUZZ_STACKS	64
#define FUZZ_MAX_IDS	1024
#define FUZZ_OLD_IDS	64

#define CHECK(cond) do {						\
	if (!(cond)) {							\
		fprintf(stderr, "fuzz: %s:%d: %s\n", __FILE__, __LINE__,\
			#cond);						\
		abort();						\
	}								\
} while (0)

/* What the depot must hold in the current generation. */
struct model {
	struct stackdepot_lf *depot;
	struct stackdepot_lf_params p;
	u32 gen;
	u32 bits;	/* index bits of the ids */
	unsigned int nr_ids;
	u32 ids[FUZZ_MAX_IDS];
	u16 stack[FUZZ_MAX_IDS];
	u16 depth[FUZZ_MAX_IDS];
	u64 arena_used;
	u64 calls;
	unsigned int nr_old;
	u32 old_ids[FUZZ_OLD_IDS];
};

struct input {
	const u8 *data;
	size_t size;
};

static u8 next_byte(struct input *in)
{
	u8 b = 0;

	if (in->size) {
		b = *in->data++;
		in->size--;
	}
	return b;
}

static u32 hash_const(const unsigned long *entries, unsigned int nr_entries)
{
	return 7;
}

static u32 hash_weak(const unsigned long *entries, unsigned int nr_entries)
{
	return stack_nr(entries) & 3;
}

static unsigned long entries[STACKDEPOT_LF_MAX_DEPTH + 8];
static unsigned long got[STACKDEPOT_LF_MAX_DEPTH + 8];

static int model_find(struct model *m, u32 nr, unsigned int depth)
{
	unsigned int i;

	for (i = 0; i < m->nr_ids; i++)
		if (m->stack[i] == nr && m->depth[i] == depth)
			return i;
	return -1;
}

static void check_stats(struct model *m)
{
	struct stackdepot_lf_stats st;

	stackdepot_lf_stats(m->depot, &st);
	CHECK(st.generation == m->gen);
	CHECK(!st.resetting);
	CHECK(st.records == m->nr_ids);
	/* Single-threaded: no lost race, so no arena is ever lost. */
	CHECK(st.arena_used == m->arena_used);
	CHECK(st.arena_lost == 0 && st.lost_races == 0 && st.drops_busy == 0 &&
	      st.drops_context == 0);
	CHECK(st.arena_used <= st.arena_size);
	CHECK(st.hits + st.inserts + st.drops_full + st.drops_probe +
	      st.drops_too_deep == m->calls);
}

static void op_get_id(struct model *m, struct input *in)
{
	u32 nr = next_byte(in) % FUZZ_STACKS;
	unsigned int depth = next_byte(in) | (next_byte(in) & 1) << 8;
	struct stackdepot_lf_stats before, after;
	stackdepot_lf_id_t id = stackdepot_lf_u32_to_id(0xdead);
	int ret, i;

	/* Mostly depths in range, sometimes 0 or too deep. */
	if (depth > m->p.max_depth + 2)
		depth = depth % (m->p.max_depth + 2);
	make_stack(entries, depth, nr);
	stackdepot_lf_stats(m->depot, &before);
	ret = stackdepot_lf_get_id(m->depot, entries, depth, &id);
	stackdepot_lf_stats(m->depot, &after);
	if (!depth) {
		CHECK(ret == -EINVAL);
		return;
	}
	m->calls++;
	if (depth > m->p.max_depth) {
		CHECK(ret == -E2BIG);
		CHECK(after.drops_too_deep == before.drops_too_deep + 1);
		return;
	}
	i = model_find(m, nr, depth);
	if (ret) {
		CHECK(ret == -ENOSPC && i < 0);
		CHECK(stackdepot_lf_id_to_u32(id) == 0xdead);
		if (after.drops_full == before.drops_full + 1)
			CHECK(m->nr_ids == m->p.max_records ||
			      m->arena_used + ALIGN(STACKDEPOT_LF_RECORD_SIZE(depth), 8) >
			      after.arena_size);
		else
			CHECK(after.drops_probe == before.drops_probe + 1);
		return;
	}
	CHECK(stackdepot_lf_id_gen(m->depot, id) == m->gen);
	CHECK(stackdepot_lf_id_to_u32(id) >> m->bits == m->gen);
	if (i >= 0) {
		CHECK(stackdepot_lf_id_to_u32(id) == m->ids[i]);
		CHECK(after.hits == before.hits + 1);
		return;
	}
	CHECK(after.inserts == before.inserts + 1);
	for (i = 0; i < (int)m->nr_ids; i++)
		CHECK(m->ids[i] != stackdepot_lf_id_to_u32(id));
	CHECK(m->nr_ids < FUZZ_MAX_IDS);
	m->ids[m->nr_ids] = stackdepot_lf_id_to_u32(id);
	m->stack[m->nr_ids] = nr;
	m->depth[m->nr_ids] = depth;
	m->nr_ids++;
	m->arena_used += ALIGN(STACKDEPOT_LF_RECORD_SIZE(depth), 8);
}

static void check_lookup(struct model *m, u32 raw, unsigned int size)
{
	u32 gen = raw >> m->bits;
	struct stackdepot_lf_stats st;
	struct stackdepot_lf_info info;
	unsigned long want[STACKDEPOT_LF_MAX_DEPTH];
	unsigned int i;
	int ret;

	stackdepot_lf_stats(m->depot, &st);
	got[0] = 0x5a5a;
	ret = stackdepot_lf_lookup(m->depot, stackdepot_lf_u32_to_id(raw), got,
				   size, &info);
	CHECK(st.table_slots == 1U << m->bits);
	if (!gen) {
		CHECK(ret == -EINVAL);
		return;
	}
	if (gen != m->gen) {
		CHECK(ret == -ESTALE);
		return;
	}
	for (i = 0; i < m->nr_ids; i++)
		if (m->ids[i] == raw)
			break;
	if (i == m->nr_ids) {
		CHECK(ret == -ENOENT);
		return;
	}
	if (size < m->depth[i]) {
		CHECK(ret == -ENOSPC && got[0] == 0x5a5a);
		return;
	}
	CHECK(ret == m->depth[i]);
	make_stack(want, ret, m->stack[i]);
	CHECK(!memcmp(want, got, ret * sizeof(*got)));
	CHECK(stackdepot_lf_id_to_u32(info.id) == raw && info.depth == (u32)ret);
}

static void op_lookup(struct model *m, struct input *in)
{
	u8 how = next_byte(in), b = next_byte(in);
	unsigned int size = how & 1 ? b % (m->p.max_depth + 1) :
			   STACKDEPOT_LF_MAX_DEPTH;
	u32 raw;

	switch ((how >> 1) % 4) {
	case 0:		/* an id of this generation */
		raw = m->nr_ids ? m->ids[b % m->nr_ids] : 0;
		break;
	case 1:		/* an id of an earlier generation */
		raw = m->nr_old ? m->old_ids[b % m->nr_old] : 0;
		break;
	case 2:		/* the current tag on any slot */
		raw = m->gen << m->bits |
		      ((b | next_byte(in) << 8) & ((1U << m->bits) - 1));
		break;
	default:	/* anything */
		raw = next_byte(in) | next_byte(in) << 8 | b << 16 |
		      (u32)next_byte(in) << 24;
		break;
	}
	check_lookup(m, raw, size);
}

static void op_reset(struct model *m)
{
	unsigned int i;

	for (i = 0; i < m->nr_ids && m->nr_old < FUZZ_OLD_IDS; i++)
		m->old_ids[m->nr_old++] = m->ids[i];
	stackdepot_lf_reset(m->depot);
	/* A new tag; lower than the last only when the id space wrapped. */
	CHECK(stackdepot_lf_generation(m->depot) != m->gen);
	m->gen = stackdepot_lf_generation(m->depot);
	m->nr_ids = 0;
	m->arena_used = 0;
	for (i = 0; i < m->nr_old; i++)
		CHECK(stackdepot_lf_lookup(m->depot,
					   stackdepot_lf_u32_to_id(m->old_ids[i]),
					   got, STACKDEPOT_LF_MAX_DEPTH, NULL) ==
		      -ESTALE);
}

static void op_iterate(struct model *m, struct input *in)
{
	u8 how = next_byte(in);
	unsigned int seen = 0, size, i, stop = next_byte(in);
	struct stackdepot_lf_info info;
	struct stackdepot_lf_iter iter;
	int ret;

	stackdepot_lf_iter_start(&iter, m->depot);
	for (;;) {
		/* Sometimes a buffer too small, which must not advance. */
		size = how & 1 && seen == stop ? how % (m->p.max_depth + 1) :
						 m->p.max_depth;
		ret = stackdepot_lf_iter_next(&iter, got, size, &info);
		if (ret == -ENOSPC) {
			CHECK(size < m->p.max_depth);
			how = 0;
			continue;
		}
		if (ret <= 0)
			break;
		for (i = 0; i < m->nr_ids; i++)
			if (m->ids[i] == stackdepot_lf_id_to_u32(info.id))
				break;
		CHECK(i < m->nr_ids && ret == m->depth[i]);
		CHECK(stack_nr(got) == m->stack[i]);
		seen++;
		if (how & 2 && seen == stop) {
			/* A reset mid-walk ends it with -ESTALE for good. */
			op_reset(m);
			CHECK(stackdepot_lf_iter_next(&iter, got, size, &info) ==
			      -ESTALE);
			ret = stackdepot_lf_iter_next(&iter, got, size, &info);
			CHECK(ret == -ESTALE);
			return;
		}
	}
	CHECK(ret == 0 && seen == m->nr_ids);
}

static bool model_create(struct model *m, struct input *in)
{
	u8 b[8];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(b); i++)
		b[i] = next_byte(in);
	memset(m, 0, sizeof(*m));
	/* Odd sizes, and a few out of range to check refusal. */
	m->p.max_records = 12 + b[0] % 200;
	m->p.max_depth = b[1] % 8 ? 1 + b[1] % 40 : 200 + b[2] % 60;
	m->p.arena_size = (b[2] | b[3] << 8) * 3 + (b[4] & 15);
	m->p.max_probe = b[5] % 136;
	m->p.flags = b[6] & 0x81;
	m->p.hash = b[7] % 3 == 1 ? hash_const : b[7] % 3 == 2 ? hash_weak : NULL;

	m->depot = stackdepot_lf_create(&m->p);
	if (IS_ERR(m->depot)) {
		CHECK(PTR_ERR(m->depot) == -EINVAL);
		CHECK(stackdepot_lf_mem_size(&m->p) == 0);
		return false;
	}
	CHECK(m->depot);
	CHECK(stackdepot_lf_mem_size(&m->p) >= m->p.arena_size);
	m->gen = stackdepot_lf_generation(m->depot);
	m->bits = ilog2(roundup_pow_of_two(2 * m->p.max_records));
	return true;
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	static struct model m;
	struct input in = { data, size };

	if (!model_create(&m, &in))
		return 0;
	while (in.size) {
		switch (next_byte(&in) % 8) {
		case 0: case 1: case 2:
			op_get_id(&m, &in);
			break;
		case 3: case 4:
			op_lookup(&m, &in);
			break;
		case 5:
			op_reset(&m);
			break;
		case 6:
			op_iterate(&m, &in);
			break;
		default:
			check_stats(&m);
			break;
		}
	}
	check_stats(&m);
	op_iterate(&m, &in);
	stackdepot_lf_destroy(m.depot);
	return 0;
}
