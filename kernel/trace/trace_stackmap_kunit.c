// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit cases for the parts of the ftrace stackmap adapter that need no
 * trace instance: the parser of writes to stack_map and the encoders of
 * the stack_map_bin stream.
 */

#include <kunit/test.h>
#include <kunit/visibility.h>
#include <linux/kernel.h>
#include <linux/string.h>

#include "trace.h"
#include "trace_stackmap.h"

struct parse_case {
	const char *buf;
	int ret;
};

static const struct parse_case parse_cases[] = {
	{ "0", 0 },
	{ "0\n", 0 },
	{ "reset", 0 },
	{ "reset\n", 0 },
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
	KUNIT_EXPECT_EQ(test, trace_stackmap_parse_cmd("0junk", 1), 0);
	KUNIT_EXPECT_EQ(test, trace_stackmap_parse_cmd("reset\nx", 6), 0);
	KUNIT_EXPECT_EQ(test, trace_stackmap_parse_cmd("reset", 4), -EINVAL);
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
	KUNIT_EXPECT_EQ(test, hdr.version, 2);
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

static struct kunit_case trace_stackmap_cases[] = {
	KUNIT_CASE_PARAM(stackmap_parse_cmd_test, parse_gen_params),
	KUNIT_CASE(stackmap_parse_cmd_len_test),
	KUNIT_CASE(stackmap_encode_header_test),
	KUNIT_CASE(stackmap_encode_record_addrs_test),
	KUNIT_CASE(stackmap_encode_record_zeroed_test),
	{}
};

static struct kunit_suite trace_stackmap_suite = {
	.name = "trace_stackmap",
	.test_cases = trace_stackmap_cases,
};

kunit_test_suite(trace_stackmap_suite);

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
MODULE_DESCRIPTION("KUnit tests for the ftrace stackmap adapter");
MODULE_LICENSE("GPL");
