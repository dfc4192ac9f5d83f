/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A trace.dat through libtracecmd, for the commands that read one
 * (report, profile): its buffers, the top one and each instance, opened
 * together, and the first pass that learns every buffer's
 * kernel_stack_def definitions, so that the second pass resolves each
 * id with the definition in force at its time.
 */
#ifndef _STACKMAP_TRACEDAT_H
#define _STACKMAP_TRACEDAT_H

#include <trace-cmd.h>

#include "stackevent.h"
#include "tracetext.h"

/*
 * libtracecmd sets this flag of a handle whose trace clock counts
 * nanoseconds (local, global, mono, ...), and trace-cmd report prints
 * the times of those in seconds, those of the others (counter, boot,
 * x86-tsc, ...) as they are. libtracecmd 3.1.6 exports
 * tracecmd_get_flags() but declares it, and the flag, only in a header
 * it does not install; and so tracecmd_page_size(), the page size of
 * the file (tep_get_page_size() of its tep is 0).
 */
#define TD_FL_IN_USECS	0x4UL	/* its TRACECMD_FL_IN_USECS, bit 2 */
unsigned long tracecmd_get_flags(struct tracecmd_input *handle);
int tracecmd_page_size(struct tracecmd_input *handle);

/*
 * A part of a CPU's events that the buffer lost: between the events at
 * @from and @to (@from 0 for what came before the CPU's first event),
 * @missed of them, or -1 if the ring buffer did not count them.
 */
struct td_gap {
	unsigned long long from, to;
	long long missed;
};

/**
 * struct td_cpu - what one CPU of a buffer retained
 * @nr_records: its events
 * @first_ts, @last_ts: the times of its first and last
 * @gaps: where it lost events (ring-buffer pages flagged with missed
 *	events, which trace-cmd report prints as "[EVENTS DROPPED]"):
 *	@gaps[0].from is 0 if it lost what came before its first event
 * @event_pos: the file offset of its last record, if an event that no
 *	stack followed yet (@event_open)
 */
struct td_cpu {
	unsigned long long nr_records, first_ts, last_ts;
	struct td_gap *gaps;
	int nr_gaps;
	uint64_t event_pos;
	bool event_open;
};

/*
 * A definition met before its CPU's first boot marker in pass 1: its
 * boot is known only once the buffer is read (bootseg.c).
 */
struct td_early_def {
	uint64_t pos, ts;
	uint32_t cpu, id, depth;
	uint64_t *addrs;
};

/**
 * struct td_buffer - one buffer of the trace: the top one (name "") or
 *	an instance
 * @defs: its definitions, by boot (token 0 in a buffer without boot
 *	markers) and id
 * @boots: its kernel_stack_boot markers, which tell the boot of each
 *	record, and so the definitions its ids resolve with
 */
struct td_buffer {
	char *name;
	struct smap_deftab defs;
	struct smap_boots boots;
	struct td_early_def *early;
	size_t nr_early, cap_early;
	struct td_cpu *cpus;
	int nr_cpus;
};

/**
 * struct tracedat - a trace.dat and what its first pass learned
 * @path: the file
 * @bufs: its buffers, [0] the top one; each handle of td_open() has
 *	its td_buffer as private data
 * @name_width: of the longest instance name
 * @nr_defs: the definitions learned
 * @nr_malformed: the definitions that teach nothing (the first is
 *	named on stderr)
 * @nr_bad_marks: the boot markers that tell no boot (the first is named
 *	on stderr)
 * @nr_records: the events of all buffers
 * @first_ts, @last_ts: the times of the first and last of them
 * @has_delta, @text_delta: the text delta of a boot-mapped trace
 *	(--text-delta, --last-boot-info), added to the frames of the
 *	records of boot-marked buffers
 * @marked: a buffer has boot markers
 */
struct tracedat {
	const char *path;
	struct td_buffer *bufs;
	int nr_bufs;
	int name_width;
	unsigned long nr_defs, nr_malformed, nr_bad_marks;
	unsigned long long nr_records, first_ts, last_ts;
	bool has_delta, marked;
	int64_t text_delta;
};

/* Name a file that cannot be opened at all as open() does: 0, or -1. */
int td_check_readable(const char *path);
/* The trace clock of @handle counts nanoseconds: its times in seconds. */
bool td_in_seconds(struct tracecmd_input *handle);
/*
 * The page size of the file header: the recording machine's, which is
 * the traced kernel's page size when trace-cmd recorded on it.
 */
int td_page_size(struct tracecmd_input *handle);
/* @event is ftrace:@name (STACKEVENT_ID, STACKEVENT_DEF, ...). */
bool td_is_event(struct tep_event *event, const char *name);
/*
 * Open the trace and its instance buffers: td->nr_bufs handles, [0] the
 * top buffer. The first call makes td->bufs. NULL: error reported.
 */
struct tracecmd_input **td_open(struct tracedat *td);
void td_close(struct tracecmd_input **h, int n);
/*
 * Pass 1: learn the definitions of every buffer, and the times of its
 * first and last events. 0, or -1 with the error reported.
 */
int td_learn(struct tracedat *td);
void td_free(struct tracedat *td);

/*
 * --text-delta N or --last-boot-info FILE (@opt, with its argument
 * @arg): set td->text_delta, or exit with status 2 and one line, after
 * @who ("stackmap report"), naming the problem.
 */
void td_parse_delta(struct tracedat *td, const char *who, const char *opt,
		    const char *arg);
/* What --help of report and profile says of those options. */
#define TD_DELTA_HELP							\
	"      --text-delta N   a boot-mapped trace (kernel_stack_boot markers):\n" \
	"                       add N (decimal or 0x hex, signed) to every frame\n" \
	"                       of its boot-marked buffers before symbolizing:\n" \
	"                       this boot's kernel text minus the last boot's;\n" \
	"                       module frames get the same delta (6.12 keeps\n" \
	"                       one text delta)\n"				\
	"      --last-boot-info FILE\n"					\
	"                       take N from the \"text delta:\" line of a saved\n" \
	"                       instances/NAME/last_boot_info\n"

/*
 * The boot of @rec of buffer @b, and the stack of @id there, NULL if
 * none: the definition of @id of that boot in force at the time of @rec.
 */
const struct smap_stack *td_find_stack(const struct td_buffer *b,
				       const struct tep_record *rec,
				       uint32_t id, struct smap_boot *boot);
/* The boot of @rec of buffer @b. */
struct smap_boot td_boot(const struct td_buffer *b,
			 const struct tep_record *rec);
/*
 * What follows "<stack_id 0x...>" for an id of @boot that resolved
 * through no definition, having read the whole trace.
 */
const char *td_unresolved_mark(const struct tracedat *td,
			       struct smap_boot boot);
/*
 * Is @rec of buffer @b a record of the boot of marker token @token? An
 * event is of the boot of the stack that follows it: the kernel writes a
 * boot's first marker on a CPU between its first event and that event's
 * stack.
 */
bool td_in_boot(const struct td_buffer *b, const struct tep_record *rec,
		uint32_t token);
/*
 * The distinct tokens of @b's markers, comma-separated, into @buf (cut
 * short at @len), in the order of the CPUs' first markers; their number
 * (up to TD_MAX_TOKENS told apart, each one more after it).
 */
#define TD_MAX_TOKENS	64
unsigned int td_boot_tokens(const struct td_buffer *b, char *buf, size_t len);
/*
 * Learn again the times of the first and last events, of each buffer's
 * CPUs and of the whole trace (td->first_ts, td->last_ts), of the
 * records of the boot of @token alone. 0, or -1 with the error reported.
 */
int td_respan(struct tracedat *td, uint32_t token);
/* Add the text delta to @n frames of a record of @boot. */
void td_relocate(const struct tracedat *td, struct tep_handle *tep,
		 struct smap_boot boot, uint64_t *addrs, uint32_t n);

#endif /* _STACKMAP_TRACEDAT_H */
