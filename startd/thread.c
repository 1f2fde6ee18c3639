/*
 * thread.c: starting startd's threads (see thread.h).
 *
 * The thread names itself before it runs fn: a detached thread may be gone before its creator
 * could name it, and its pthread_t with it.
 */
#include <errno.h>
#include <stdlib.h>

#include "macro.h"
#include "thread.h"

typedef struct start {
	void *(*fn)(void *);
	void *arg;
	const char *name;
} start_t;

static void *trampoline(void *userdata)
{
	start_t s = *(start_t *)userdata;

	free(userdata);
	(void)pthread_setname_np(pthread_self(), s.name);
	return s.fn(s.arg);
}

int thread_start(pthread_t *t, const char *name, void *(*fn)(void *), void *arg)
{
	_cleanup_free_ start_t *s = malloc(sizeof(*s));
	pthread_attr_t a;
	pthread_t id;
	int r;

	if (!s)
		return -ENOMEM;
	*s = (start_t){.fn = fn, .arg = arg, .name = name};
	r = pthread_attr_init(&a);
	if (r == 0 && !t)
		r = pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
	if (r == 0)
		r = pthread_create(t ? t : &id, &a, trampoline, s);
	(void)pthread_attr_destroy(&a);
	if (r != 0)
		return -r;
	TAKE_PTR(s); /* the thread's now */
	return 0;
}
