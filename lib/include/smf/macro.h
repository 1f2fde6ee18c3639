/*
 * macro.h: cleanup attributes and small macros shared by every program.
 *
 * The convention throughout minismf (after systemd's src/basic): functions return a negative
 * errno (or, in libscf, a negative scf_error_t) on failure and >= 0 on success, and local
 * resources are released by __attribute__((cleanup)) helpers declared here, so an early
 * "return r;" never leaks.  A pointer that must outlive its scope is handed over with
 * TAKE_PTR(), which returns it and leaves NULL behind for the cleanup to ignore.
 */
#ifndef SMF_MACRO_H
#define SMF_MACRO_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define _cleanup_(f) __attribute__((cleanup(f)))
#define _unused_ __attribute__((unused))
#define _printf_(a, b) __attribute__((format(printf, a, b)))
#define _noreturn_ __attribute__((noreturn))
#define _likely_(x) (__builtin_expect(!!(x), 1))
#define _unlikely_(x) (__builtin_expect(!!(x), 0))

#define ELEMENTSOF(x) (sizeof(x) / sizeof((x)[0]))

#define TAKE_PTR(p)                                                                                \
	({                                                                                         \
		__typeof__(p) _p_ = (p);                                                           \
		(p) = NULL;                                                                        \
		_p_;                                                                               \
	})

#define TAKE_FD(fd)                                                                                \
	({                                                                                         \
		int _fd_ = (fd);                                                                   \
		(fd) = -1;                                                                         \
		_fd_;                                                                              \
	})

/*
 * Makes room for at least need elements in the array p, of which cap are allocated: the
 * capacity doubles (8 at first), so n appends cost O(n) in all.  Evaluates to 0, or to -ENOMEM
 * with p and cap as they were (the elements already stored are kept).  The one way minismf
 * grows an array; p and cap are evaluated more than once.
 */
#define GREEDY_REALLOC(p, cap, need)                                                               \
	({                                                                                         \
		int _r_ = 0;                                                                       \
		size_t _need_ = (need);                                                            \
		if (_need_ > (cap)) {                                                              \
			size_t _c_ = (cap) ? (cap) : 8;                                            \
			while (_c_ < _need_ && _c_ <= SIZE_MAX / 2)                                \
				_c_ *= 2;                                                          \
			if (_c_ < _need_)                                                          \
				_c_ = _need_;                                                      \
			/* Checked here, not by reallocarray(): ASan reports the overflow. */      \
			__typeof__(p) _p_ = _c_ > SIZE_MAX / sizeof(*(p))                          \
			        ? NULL                                                             \
			        : reallocarray((p), _c_, sizeof(*(p)));                            \
			if (_p_) {                                                                 \
				(p) = _p_;                                                         \
				(cap) = _c_;                                                       \
			} else                                                                     \
				_r_ = -ENOMEM;                                                     \
		}                                                                                  \
		_r_;                                                                               \
	})

/* Defines a cleanup function "name" that calls func(*p) when *p is not NULL. */
#define DEFINE_TRIVIAL_CLEANUP_FUNC(type, func)                                                    \
	static inline void func##p(type *p)                                                        \
	{                                                                                          \
		if (*p)                                                                            \
			func(*p);                                                                  \
	}

/* free(p), evaluating to NULL: "p = mfree(p);" frees and forgets in one step. */
static inline void *mfree(void *p)
{
	free(p);
	return NULL;
}

static inline void freep(void *p)
{
	free(*(void **)p);
}
#define _cleanup_free_ _cleanup_(freep)

static inline void closep(int *fd)
{
	if (*fd >= 0) {
		int saved = errno;
		close(*fd);
		errno = saved;
	}
}
#define _cleanup_close_ _cleanup_(closep)

static inline void fclosep(FILE **f)
{
	if (*f)
		fclose(*f);
}
#define _cleanup_fclose_ _cleanup_(fclosep)

static inline int negative_errno(void)
{
	/* errno is positive and non-zero after a failed call; guard against callers that forgot. */
	return errno > 0 ? -errno : -EIO;
}

static inline const char *strempty(const char *s)
{
	return s ? s : "";
}

static inline const char *strna(const char *s)
{
	return s ? s : "n/a";
}

#define streq(a, b) (strcmp((a), (b)) == 0)
#define strneq(a, b, n) (strncmp((a), (b), (n)) == 0)

#endif
