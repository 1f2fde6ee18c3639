/*
 * trace-command.c: a command's trace: the file opened for a CLI program or a libscf client,
 * with proc.start (its command line, parent, session and process group) and, from on_exit(),
 * proc.exit with its status.  These two events are what lets svctrace tell the commands of
 * one script from another's and a command that failed from one that was killed
 * (docs/trace-format.md, "Causality").
 */
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/types.h>
#include <unistd.h>

#include "macro.h"
#include "trace-recorder.h"
#include "trace.h"

/* The command line, blank-separated and cut to fit the buffer ("?" when unreadable). */
static void read_cmdline(char *buf, size_t size)
{
	_cleanup_close_ int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, buf, size - 1) : -1;

	if (n <= 0) {
		snprintf(buf, size, "?");
		return;
	}
	buf[n] = '\0';
	while (n > 0 && buf[n - 1] == '\0')
		n--;
	for (ssize_t i = 0; i < n; i++)
		if (buf[i] == '\0')
			buf[i] = ' ';
}

/*
 * A libscf program's trace (smf_trace_open_client()) stays mapped at exit: unlike the CLI,
 * such a program may still have threads inside libscf, and they would trace into the unmapped
 * file.  exit() unmaps it soon enough.
 */
static bool command_keep_mapped;

/* on_exit(): a command's end, then the file closed (the CLI is single threaded by then). */
static void trace_command_exit(int status, void *userdata)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "exit %d", status);
	smf_trace_str_args(SMF_TRACE_PROC_EXIT, 0, buf, (uint64_t)(int64_t)status, 0);
	if (!__atomic_load_n(&command_keep_mapped, __ATOMIC_RELAXED))
		smf_trace_close();
}

int smf_trace_open_command(const char *root, const char *prog)
{
	static bool registered;
	char cmdline[256];
	int r = smf_trace_open_env(root, prog);

	if (r <= 0)
		return r;
	read_cmdline(cmdline, sizeof(cmdline));
	smf_trace_str_args(SMF_TRACE_PROC_START, 0, cmdline, trace_file.hdr->ppid,
	        (uint64_t)trace_file.hdr->sid << 32 | trace_file.hdr->pgid);
	if (!registered && on_exit(trace_command_exit, NULL) == 0)
		registered = true;
	return r;
}

int smf_trace_open_client(const char *root, const char *prog)
{
	static bool claimed;

	/* Only the first handle of a process that never opened a trace itself; and one thread. */
	if (trace_open_tried() || __atomic_exchange_n(&claimed, true, __ATOMIC_ACQ_REL))
		return 0;
	__atomic_store_n(&command_keep_mapped, true, __ATOMIC_RELAXED);
	return smf_trace_open_command(root, prog);
}
