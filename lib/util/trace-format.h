/*
 * trace-format.h: the trace file's layout (docs/trace-format.md, format 2), the one place both
 * halves of the trace code read it from: the recorder that writes a file (trace.c and the
 * files beside it) and the reader that walks one (trace-read.c, a library of its own).  Not
 * installed: programs see only smf_trace_read()'s records.
 *
 * The structures are the bytes of the file: a field moved here moves in every file written
 * from then on, so the static assertions below pin the offsets the document gives.
 */
#ifndef SMF_TRACE_FORMAT_H
#define SMF_TRACE_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#define TRACE_MAGIC "SMFTRACE"
#define TRACE_VERSION 2u
#define TRACE_HEADER_SIZE 4096u
#define TRACE_PAGE_SIZE (64u * 1024u)
#define STR_COMMITTED 0x80000000u

typedef struct trace_header {
	char magic[8];
	uint32_t version; /* stored last, release */
	uint32_t header_size;
	uint32_t page_size;
	uint32_t page_header_size;
	uint32_t event_size;
	uint32_t npages;
	uint64_t file_size;
	uint64_t strings_offset;
	uint64_t strings_size;
	uint64_t pages_offset;
	uint32_t pid;
	uint32_t ppid;
	uint64_t start_ns;
	uint64_t start_realtime_ns;
	char prog[32];
	uint32_t sid; /* session and process group at creation: what tells scripts apart */
	uint32_t pgid;
	uint32_t next_page __attribute__((aligned(64)));
	uint64_t str_cursor __attribute__((aligned(64)));
	uint64_t drops __attribute__((aligned(64)));
	uint64_t str_drops; /* strings refused: the table was full (their events carry id 0) */
} __attribute__((aligned(64))) trace_header_t;

typedef struct trace_page_header {
	uint32_t count; /* whole events in the page, release */
	uint32_t pid;
	uint32_t tid;
	uint32_t seq;
	uint64_t claim_ns;
	uint8_t reserved[40];
} trace_page_header_t;

/* The writer's pid and tid are its page's (a page has one writer): events do not repeat them. */
typedef struct trace_event {
	uint64_t ns;
	uint64_t flow;
	uint64_t arg0;
	uint64_t arg1;
	uint32_t str;
	uint16_t event;
	uint16_t reserved;
} trace_event_t;

_Static_assert(sizeof(trace_header_t) <= TRACE_HEADER_SIZE, "header fits its page");
#define LAYOUT "header layout as in docs/trace-format.md"
_Static_assert(offsetof(trace_header_t, ppid) == 68, LAYOUT);
_Static_assert(offsetof(trace_header_t, prog) == 88, LAYOUT);
_Static_assert(offsetof(trace_header_t, sid) == 120, LAYOUT);
_Static_assert(offsetof(trace_header_t, pgid) == 124, LAYOUT);
_Static_assert(offsetof(trace_header_t, next_page) == 128, LAYOUT);
_Static_assert(offsetof(trace_header_t, str_cursor) == 192, LAYOUT);
_Static_assert(offsetof(trace_header_t, drops) == 256, LAYOUT);
_Static_assert(offsetof(trace_header_t, str_drops) == 264, LAYOUT);
#undef LAYOUT
_Static_assert(sizeof(trace_page_header_t) == 64, "page header layout");
_Static_assert(sizeof(trace_event_t) == 40 && offsetof(trace_event_t, arg0) == 16 &&
                offsetof(trace_event_t, str) == 32 && offsetof(trace_event_t, event) == 36,
        "event layout");

#define EVENTS_PER_PAGE ((TRACE_PAGE_SIZE - sizeof(trace_page_header_t)) / sizeof(trace_event_t))

/*
 * The bytes a string of len bytes takes in the table: its length word, the bytes and a NUL,
 * padded to 4 so that every entry's offset, and so its id, is a multiple of 4.
 */
static inline uint64_t trace_string_entry_size(uint64_t len)
{
	return (4 + len + 1 + 3) & ~(uint64_t)3;
}

#endif
