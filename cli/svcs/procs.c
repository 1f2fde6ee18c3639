/*
 * procs.c: the processes of an instance, for -p.
 *
 * startd runs every instance in its own process group and records the group in
 * restarter/contract (our stand-in for an illumos contract), so the instance's processes are
 * the live processes of that group, found in /proc.  Zombies are left out: they no longer run.
 */
#include <ctype.h>
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli-quote.h"
#include "macro.h"
#include "svcs.h"

static int64_t boot_time(void)
{
	_cleanup_fclose_ FILE *f = fopen("/proc/stat", "re");
	char line[256];
	long long bt;

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "btime %lld", &bt) == 1)
			return bt;
	return 0;
}

/* Reads at most size - 1 bytes of /proc/PID/NAME into buf: the count, or -1 if not opened. */
static ssize_t read_proc_file(int pid, const char *name, char *buf, size_t size)
{
	char path[64];
	_cleanup_fclose_ FILE *f = NULL;

	snprintf(path, sizeof(path), "/proc/%d/%s", pid, name);
	f = fopen(path, "re");
	if (!f)
		return -1;
	return (ssize_t)fread(buf, 1, size - 1, f);
}

static char *read_cmdline(int pid)
{
	char buf[4096];
	ssize_t r = read_proc_file(pid, "cmdline", buf, sizeof(buf));
	size_t n;

	if (r < 0)
		return NULL;
	n = (size_t)r;
	while (n > 0 && buf[n - 1] == '\0')
		n--;
	for (size_t k = 0; k < n; k++)
		if (buf[k] == '\0')
			buf[k] = ' ';
	buf[n] = '\0';
	/* A process names itself: what it says is displayed, never acted on by the terminal. */
	return cli_display(buf);
}

/* Fills p from /proc/PID/stat when the process belongs to group pgid and is not a zombie. */
static bool read_proc(int pid, int64_t pgid, int64_t btime, long hz, proc_t *p)
{
	char buf[1024], *open_paren, *close_paren;
	char state;
	long long pgrp;
	unsigned long long start;
	ssize_t r = read_proc_file(pid, "stat", buf, sizeof(buf));

	if (r < 0)
		return false;
	buf[r] = '\0';
	open_paren = strchr(buf, '(');
	close_paren = strrchr(buf, ')');
	if (!open_paren || !close_paren || close_paren < open_paren)
		return false;
	/* After "(comm)": state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt
	 * utime stime cutime cstime priority nice num_threads itrealvalue starttime */
	if (sscanf(close_paren + 2,
	            "%c %*d %lld %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d %*d "
	            "%*d %llu",
	            &state, &pgrp, &start) != 3)
		return false;
	if (pgrp != pgid || state == 'Z' || state == 'X')
		return false;
	*p = (proc_t){.pid = pid, .start_sec = btime + (int64_t)(start / (unsigned long long)hz)};
	*close_paren = '\0';
	{
		/* comm is at most 15 bytes: escaped, at most 60. */
		_cleanup_free_ char *shown = cli_display(open_paren + 1);

		snprintf(p->comm, sizeof(p->comm), "%s", shown ? shown : "?");
	}
	p->args = read_cmdline(pid);
	return true;
}

static int proc_cmp(const void *a, const void *b)
{
	const proc_t *x = a, *y = b;

	return (x->pid > y->pid) - (x->pid < y->pid);
}

int procs_of_group(int64_t pgid, proc_t **ret, size_t *n)
{
	DIR *d;
	struct dirent *de;
	proc_t *v = NULL, p;
	size_t cap = 0;
	int64_t bt = boot_time();
	long hz = sysconf(_SC_CLK_TCK);

	*ret = NULL;
	*n = 0;
	if (pgid <= 1)
		return 0;
	d = opendir("/proc");
	if (!d)
		return -SCF_ERROR_INTERNAL;
	while ((de = readdir(d))) {
		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		if (!read_proc(atoi(de->d_name), pgid, bt, hz > 0 ? hz : 100, &p))
			continue;
		if (GREEDY_REALLOC(v, cap, *n + 1) < 0) {
			free(p.args);
			break;
		}
		v[(*n)++] = p;
	}
	closedir(d);
	if (*n > 1)
		qsort(v, *n, sizeof(proc_t), proc_cmp);
	*ret = v;
	return 0;
}

void procs_free(proc_t *p, size_t n)
{
	for (size_t k = 0; k < n; k++)
		free(p[k].args);
	free(p);
}
