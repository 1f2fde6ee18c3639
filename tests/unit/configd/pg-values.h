/*
 * pg-values.h: reading a property back as one string, and a count, for the backend unit
 * tests.
 */
#ifndef TEST_PG_VALUES_H
#define TEST_PG_VALUES_H

#include <stdbool.h>
#include <string.h>

#include "backend-internal.h"

/*
 * The values of ent/pg/prop (in snapshot snap, NULL for current; composed or not) joined by
 * spaces, "<none>" without that property or "<no pg>" without the pg.  A static buffer.
 */
static inline char *pg_values(backend_t *b, const char *ent, const char *pg, const char *snap,
        bool composed, const char *prop)
{
	_cleanup_backend_pg_ scf_pg_t *p = NULL;
	static char buf[512];

	if (backend_get_pg(b, ent, pg, snap, composed, &p) < 0)
		return strcpy(buf, "<no pg>");
	for (size_t i = 0; i < p->n_props; i++) {
		if (!streq(p->props[i].name, prop))
			continue;
		buf[0] = 0;
		for (size_t j = 0; j < p->props[i].n_values; j++) {
			if (j)
				strcat(buf, " ");
			strcat(buf, p->props[i].values[j]);
		}
		return buf;
	}
	return strcpy(buf, "<none>");
}

/* The one number the query (a count, a pragma) answers; -1 if it answers none. */
static inline long long count_rows(backend_t *b, const char *sql)
{
	sqlite3_stmt *s = NULL;
	long long n = -1;

	if (sqlite3_prepare_v2(b->db, sql, -1, &s, NULL) != SQLITE_OK)
		return -2;
	if (sqlite3_step(s) == SQLITE_ROW)
		n = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	return n;
}

#endif
