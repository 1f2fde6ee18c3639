#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>

#include "macro.h"
#include "timeutil.h"
#include "unixsock.h"

/*
 * Fills addr for path; when path does not fit, opens its directory into *dirfd and addresses
 * the socket through /proc/self/fd.  The caller closes *dirfd after bind()/connect().
 */
static int make_addr(const char *path, struct sockaddr_un *addr, int *dirfd)
{
	_cleanup_free_ char *dcopy = NULL, *bcopy = NULL;
	int n;

	memset(addr, 0, sizeof(*addr));
	addr->sun_family = AF_UNIX;
	*dirfd = -1;
	if (strlen(path) < sizeof(addr->sun_path)) {
		strcpy(addr->sun_path, path);
		return 0;
	}
	dcopy = strdup(path);
	bcopy = strdup(path);
	if (!dcopy || !bcopy)
		return -ENOMEM;
	*dirfd = open(dirname(dcopy), O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (*dirfd < 0)
		return negative_errno();
	n = snprintf(addr->sun_path, sizeof(addr->sun_path), "/proc/self/fd/%d/%s", *dirfd,
	        basename(bcopy));
	if (n < 0 || (size_t)n >= sizeof(addr->sun_path))
		return -ENAMETOOLONG;
	return 0;
}

/*
 * Bounds a blocking connect().  A non-blocking connect() on a UNIX stream socket whose listener's
 * backlog is full fails with EAGAIN at once and leaves nothing to poll for, so instead the
 * socket gets a send timeout, which the kernel applies to the wait for room in the backlog: the
 * connect returns as soon as the server accepts, or with EAGAIN when the time is up.
 */
static int set_send_timeout(int fd, uint64_t usec)
{
	struct timeval tv = {
	        .tv_sec = (time_t)(usec / 1000000u),
	        .tv_usec = (suseconds_t)(usec % 1000000u),
	};

	if (setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)) < 0)
		return negative_errno();
	return 0;
}

static int connect_until(int fd, const struct sockaddr_un *addr, uint64_t timeout_usec)
{
	uint64_t deadline = deadline_after_usec(timeout_usec);
	int r;

	for (;;) {
		uint64_t left = deadline_left_usec(deadline);

		if (timeout_usec != UINT64_MAX) {
			if (left == 0)
				return -ETIMEDOUT;
			r = set_send_timeout(fd, left);
			if (r < 0)
				return r;
		}
		if (connect(fd, (const struct sockaddr *)addr, sizeof(*addr)) >= 0)
			break;
		if (errno == EAGAIN && timeout_usec != UINT64_MAX)
			return -ETIMEDOUT;
		if (errno != EINTR)
			return negative_errno();
	}
	/* Later sends are the caller's business (sd-bus makes the socket non-blocking). */
	return timeout_usec == UINT64_MAX ? 0 : set_send_timeout(fd, 0);
}

int smf_unix_connect_timeout(const char *path, uint64_t timeout_usec)
{
	_cleanup_close_ int fd = -1, dirfd = -1;
	struct sockaddr_un addr;
	int r;

	r = make_addr(path, &addr, &dirfd);
	if (r < 0)
		return r;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return negative_errno();
	r = connect_until(fd, &addr, timeout_usec);
	if (r < 0)
		return r;
	return TAKE_FD(fd);
}

int smf_unix_connect(const char *path)
{
	return smf_unix_connect_timeout(path, UINT64_MAX);
}

int smf_unix_listen(const char *path, unsigned mode, int backlog)
{
	_cleanup_close_ int fd = -1, dirfd = -1;
	_cleanup_free_ char *tmp = NULL;
	struct sockaddr_un addr;
	int r;

	if (asprintf(&tmp, "%s.%d.tmp", path, (int)getpid()) < 0)
		return -ENOMEM;
	r = make_addr(tmp, &addr, &dirfd);
	if (r < 0)
		return r;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return negative_errno();
	(void)unlink(tmp);
	if (bind(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0)
		return negative_errno();
	/* The mode is what authorizes connecting at all; fchmod on a socket fd is a no-op. */
	if (chmod(tmp, mode) < 0 || listen(fd, backlog) < 0 || rename(tmp, path) < 0) {
		r = negative_errno();
		(void)unlink(tmp);
		return r;
	}
	return TAKE_FD(fd);
}
