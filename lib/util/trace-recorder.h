/*
 * trace-recorder.h: what the recorder's files share, and nothing else sees: the open file, the
 * generation that tells a thread its page belongs to a file closed since, and each part's
 * entry points for the others.  The parts, and the theory statement that ties them, are listed
 * at the top of trace.c.
 *
 * Hidden: these are names inside libscf, not exported by the shared library, and the hot path
 * reaches trace_file and trace_gen directly rather than through the GOT.
 */
#ifndef SMF_TRACE_RECORDER_H
#define SMF_TRACE_RECORDER_H

#include <stdbool.h>
#include <stdint.h>

#include "trace-format.h"

#pragma GCC visibility push(hidden)

/* Written by open/close only (trace.c); emitters read map and gen with relaxed loads. */
typedef struct trace_file {
	uint8_t *map;
	uint64_t size;
	trace_header_t *hdr;
	char *path;
	uint32_t pid; /* the process's own, which in a forked child is not the file's creator's */
} trace_file_t;

extern trace_file_t trace_file;
extern unsigned trace_gen; /* bumped at every open */

/* trace.c: whether this process ever tried to open a trace file itself. */
bool trace_open_tried(void);

/* trace-emit.c: a forked child's thread forgets its page, which the parent may still fill. */
void trace_emit_forget_page(void);

/*
 * trace-prefault.c: a thread claimed page idx (at ph), with filled_before when it has filled a
 * page already; the prefaulter is started, woken, or beaten to the page.
 */
void trace_prefault_claimed(uint32_t idx, trace_page_header_t *ph, bool filled_before);
/* At close: the helper stops and is joined before the file is unmapped. */
void trace_prefault_stop(void);
/* In a forked child: the parent's helper did not come along. */
void trace_prefault_forget(void);

/* trace-strings.c: the process's table is locked across fork(), and forgotten at close. */
void trace_strings_lock(void);
void trace_strings_unlock(void);
void trace_strings_forget(void);

#pragma GCC visibility pop

#endif
