/*
 * points.h: configd's delay points (docs/race.md, "Delay points").
 *
 * configd_points_init() reads SMF_DELAY once at start, before the event loop runs;
 * configd_point() then sleeps for whatever the named point was given, or returns at once.
 */
#ifndef CONFIGD_POINTS_H
#define CONFIGD_POINTS_H

/* On failure (out of memory) it says so and configd runs without delay points. */
void configd_points_init(void);
void configd_point(const char *name);
void configd_points_done(void);

#endif
