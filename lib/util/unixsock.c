#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include "macro.h"
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

int smf_unix_connect(const char *path)
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
	if (connect(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0)
		return negative_errno();
	return TAKE_FD(fd);
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
