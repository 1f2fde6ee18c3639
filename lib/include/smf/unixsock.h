/*
 * unixsock.h: the rendezvous socket, for any length of path.
 *
 * sockaddr_un holds 108 bytes, and sandbox roots under a deep temporary directory exceed it.
 * Both sides therefore reach the socket through its directory: when the path is too long we
 * open the directory with O_PATH and use "/proc/self/fd/N/<name>", which the kernel resolves
 * like the real path.  The server binds under a temporary name and renames it into place, so
 * the socket's appearance is the signal that the server is ready to accept.
 */
#ifndef SMF_UNIXSOCK_H
#define SMF_UNIXSOCK_H

#include <stdint.h>

/*
 * Connects a SOCK_STREAM|SOCK_CLOEXEC socket to path; returns the fd or -errno.  A server whose
 * listen backlog is full (it stopped accepting) makes connect() wait: at most timeout_usec
 * (then -ETIMEDOUT; UINT64_MAX waits for ever), and no longer than it takes the server to
 * accept.  A missing socket is -ENOENT, a refused one -ECONNREFUSED, a socket the caller may not
 * reach -EACCES, at once.
 */
int smf_unix_connect_timeout(const char *path, uint64_t timeout_usec);
/* smf_unix_connect_timeout() without a timeout. */
int smf_unix_connect(const char *path);

/*
 * Creates a listening SOCK_STREAM|SOCK_CLOEXEC|SOCK_NONBLOCK socket that appears at path
 * (atomically replacing a stale one) with the given mode; returns the fd or -errno.
 */
int smf_unix_listen(const char *path, unsigned mode, int backlog);

#endif
