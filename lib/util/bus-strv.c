/* bus-strv.c: D-Bus string arrays read in linear time, up to a bound (bus-strv.h). */
#include <errno.h>
#include <stdlib.h>

#include "bus-strv.h"
#include "macro.h"
#include "strv.h"

int smf_bus_read_strings(sd_bus_message *m, size_t max, const char ***ret, size_t *ret_n)
{
	_cleanup_free_ const char **l = NULL;
	size_t n = 0, cap = 0;
	int r;

	*ret = NULL;
	*ret_n = 0;
	r = sd_bus_message_enter_container(m, 'a', "s");
	if (r <= 0)
		return r;
	for (;;) {
		const char *s;

		r = sd_bus_message_read_basic(m, 's', &s);
		if (r < 0)
			return r;
		if (r == 0)
			break;
		/* Stop at the first element past the bound: what follows is never read. */
		if (n == max)
			return -E2BIG;
		/* One slot more than the elements, for the NULL at the end. */
		if (GREEDY_REALLOC(l, cap, n + 2) < 0)
			return -ENOMEM;
		l[n++] = s;
	}
	r = sd_bus_message_exit_container(m);
	if (r < 0)
		return r;
	if (!l && !(l = calloc(1, sizeof(*l))))
		return -ENOMEM;
	l[n] = NULL;
	*ret = TAKE_PTR(l);
	*ret_n = n;
	return 1;
}

int smf_bus_read_strv(sd_bus_message *m, size_t max, char ***ret, size_t *ret_n)
{
	_cleanup_free_ const char **l = NULL;
	_cleanup_strv_free_ char **copy = NULL;
	size_t n = 0;
	int r;

	r = smf_bus_read_strings(m, max, &l, &n);
	if (r < 0)
		return r;
	copy = calloc(n + 1, sizeof(char *));
	if (!copy)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		if (!(copy[i] = strdup(l[i])))
			return -ENOMEM;
	*ret = TAKE_PTR(copy);
	if (ret_n)
		*ret_n = n;
	return r;
}
