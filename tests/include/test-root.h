/*
 * test-root.h: the private root of a C test or benchmark (tests/ only, header-only).
 *
 * A root is a fresh directory under $TMPDIR (/tmp when unset or empty), named after its test
 * so that a kept or leaked one says whose it is, with mode 0755 so that an unprivileged peer
 * can reach a socket inside.  Removal takes everything below it, depth first, without
 * following a link out of it.  The C side of tools/sandbox.sh (sandbox_new, sandbox_cleanup).
 */
#ifndef TEST_ROOT_H
#define TEST_ROOT_H

#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

/*
 * Makes $TMPDIR/NAME.XXXXXX and writes its path into buf (size bytes).  0, or a negative errno:
 * -ENAMETOOLONG when buf cannot hold the path.
 */
static inline int test_root_make(char *buf, size_t size, const char *name)
{
	const char *tmp = getenv("TMPDIR");
	int n = snprintf(buf, size, "%s/%s.XXXXXX", tmp && *tmp ? tmp : "/tmp", name);

	if (n < 0 || (size_t)n >= size)
		return -ENAMETOOLONG;
	if (!mkdtemp(buf) || chmod(buf, 0755) < 0)
		return -errno;
	return 0;
}

static inline int test_root_remove_entry(
        const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	return remove(path);
}

/* Removes root and everything below it.  0, or a negative errno. */
static inline int test_root_remove(const char *root)
{
	return nftw(root, test_root_remove_entry, 16, FTW_DEPTH | FTW_PHYS) == 0 ? 0 : -errno;
}

#endif
