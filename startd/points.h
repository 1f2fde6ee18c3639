/*
 * points.h: named places in startd's event path.
 *
 * The race harness injects delays at these names ("startd.graph.before_insert",
 * "startd.restarter.before_pg_write") through SMF_DELAY (points.c; docs/race.md, "Delay
 * points").  The trace events of the same path are probes.c's.
 */
#ifndef STARTD_POINTS_H
#define STARTD_POINTS_H

void startd_point(const char *name, const char *fmri);

#endif
