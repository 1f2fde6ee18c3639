/*
 * points.h: named places in startd's event path.
 *
 * The race harness (a later issue) hangs trace events and delay injection on these names
 * ("startd.graph.before_insert", "startd.restarter.before_pg_write", ...).  Until then the hook
 * does nothing; every call site already passes the instance it is about.
 */
#ifndef STARTD_POINTS_H
#define STARTD_POINTS_H

void startd_point(const char *name, const char *fmri);

#endif
