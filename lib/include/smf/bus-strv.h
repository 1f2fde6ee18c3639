/*
 * bus-strv.h: a D-Bus string array ("as") read in time linear in its length, and only as far as
 * its bound (lib/util/bus-strv.c).
 *
 * sd_bus_message_read_strv() appends every element with strv_extend(), which walks the list to
 * find its end and reallocates it by one slot: n elements cost O(n^2).  For svc.configd, which
 * serves everyone from one thread, that made a Commit of 100,000 values cost 1.5 s and one of
 * 2 million minutes before the 4,096-value limit refused it (docs/decisions.md).  Every string
 * array minismf reads off the wire goes through here instead.
 */
#ifndef SMF_BUS_STRV_H
#define SMF_BUS_STRV_H

#include <stddef.h>

#include <systemd/sd-bus.h>

/*
 * Reads the "as" at m's read position into *ret, a malloc'd NULL-terminated array of pointers
 * into m (valid while m is; free() the array, not the strings), and its length into *ret_n.  At
 * most max elements are read: at element max + 1 the read stops, inside the array, and -E2BIG is
 * returned (the caller refuses the message; the rest of it is never looked at).  Returns 1, 0
 * when m holds no array there (at the end of its container; *ret NULL, *ret_n 0), or a negative
 * errno (sd-bus's, -ENOMEM).
 */
int smf_bus_read_strings(sd_bus_message *m, size_t max, const char ***ret, size_t *ret_n);

/* smf_bus_read_strings() with every string copied: *ret is a strv (never NULL on success). */
int smf_bus_read_strv(sd_bus_message *m, size_t max, char ***ret, size_t *ret_n);

#endif
