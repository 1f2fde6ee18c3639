/*
 * bench-import: svccfg import of every manifest of a corpus into the repository at $SMF_ROOT
 * (fresh), then the same rows inserted straight into SQLite, the limit an importer that talks to
 * configd cannot beat.
 *
 * Usage: bench-import CORPUS_DIR SCRATCH_DIR
 *
 * The import runs svccfg's own code (cmd_import, linked in) one manifest at a time, as
 * "svccfg import DIR" does, so a manifest's time is: read and validate the XML, map it into a
 * batch, one round trip to configd that applies it in one SQLite transaction (with the
 * snapshots and the refresh).  Process start-up is not counted.
 *
 * The baseline: after the import, every row the repository holds for each manifest (entities,
 * pgs, properties with their values, and the snapshots' levels, an equal level of an entity
 * stored once as configd's schema 3 does) is read back through libscf, then inserted by this process with the sqlite3 library into a database of configd's
 * schema and pragmas (WAL, synchronous=NORMAL, exclusive locking), one transaction per
 * manifest with prepared statements: the same writes with no XML, no IPC and no checks.
 *
 * Prints total wall time, p50/p99 per manifest for both, and the ratio.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <sqlite3.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bench-common.h"
#include "bundles.h"
#include "commands.h"
#include "lexer.h"
#include "manifest.h"
#include "strv.h"

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static double pct_ms(uint64_t *v, size_t n, double p)
{
	size_t i = (size_t)(p * (double)(n - 1) + 0.5);

	qsort(v, n, sizeof(*v), cmp_u64);
	return (double)v[i] / 1e6;
}

/* ---- the rows of one manifest, as the repository holds them ---- */

typedef struct row_prop {
	char *name, *type;
	char *vals; /* values joined with NUL, as a blob */
	size_t len;
} row_prop_t;

typedef struct row_pg {
	char *name, *type;
	uint32_t flags;
	uint64_t gen;
	row_prop_t *props;
	size_t n_props;
} row_pg_t;

typedef struct row_snap {
	char *name;
	row_pg_t *pgs[2]; /* level 0: the instance's, level 1: its service's */
	size_t n_pgs[2];
} row_snap_t;

typedef struct row_entity {
	char *fmri;
	char *parent; /* the service's FMRI for an instance, else NULL */
	row_pg_t *pgs;
	size_t n_pgs;
	row_snap_t *snaps;
	size_t n_snaps;
} row_entity_t;

typedef struct rows {
	row_entity_t *e;
	size_t n;
} rows_t;

static void read_pgs(scf_handle_t *h, const char *ent, const char *snap, unsigned flags,
        row_pg_t **ret, size_t *n)
{
	scf_pg_info_t *infos = NULL;
	size_t ni = 0;

	bench_check(h, scf_pg_list(h, ent, snap, flags, &infos, &ni), ent);
	*ret = calloc(ni, sizeof(**ret));
	*n = ni;
	for (size_t i = 0; i < ni; i++) {
		row_pg_t *pg = &(*ret)[i];
		scf_pg_t *p = NULL;

		bench_check(h, scf_pg_get(h, ent, infos[i].name, snap, flags, &p), infos[i].name);
		pg->name = strdup(p->name);
		pg->type = strdup(p->type);
		pg->flags = p->flags;
		pg->gen = p->generation;
		pg->props = calloc(p->n_props, sizeof(*pg->props));
		pg->n_props = p->n_props;
		for (size_t j = 0; j < p->n_props; j++) {
			row_prop_t *rp = &pg->props[j];
			FILE *f = open_memstream(&rp->vals, &rp->len);

			rp->name = strdup(p->props[j].name);
			rp->type = strdup(scf_type_to_string(p->props[j].type));
			for (size_t k = 0; k < p->props[j].n_values; k++)
				fwrite(p->props[j].values[k], 1, strlen(p->props[j].values[k]) + 1,
				        f);
			fclose(f);
		}
		scf_pg_free(p);
	}
	scf_pg_info_free(infos, ni);
}

/* The composed read holds level 0 too: keep only the service's pgs in level 1. */
static void drop_level0(row_snap_t *s)
{
	size_t k = 0;

	for (size_t i = 0; i < s->n_pgs[1]; i++) {
		bool dup = false;

		for (size_t j = 0; j < s->n_pgs[0]; j++)
			dup = dup || strcmp(s->pgs[0][j].name, s->pgs[1][i].name) == 0;
		if (!dup)
			s->pgs[1][k++] = s->pgs[1][i];
	}
	s->n_pgs[1] = k;
}

/* Entities already read for an earlier manifest (a service two manifests define). */
static char **seen;

static void read_entity(scf_handle_t *h, rows_t *rows, const char *fmri, const char *parent)
{
	row_entity_t *e;

	if (strv_contains(seen, fmri))
		return;
	strv_extend(&seen, fmri);
	rows->e = realloc(rows->e, (rows->n + 1) * sizeof(*rows->e));
	e = &rows->e[rows->n++];
	*e = (row_entity_t){.fmri = strdup(fmri), .parent = parent ? strdup(parent) : NULL};
	read_pgs(h, fmri, NULL, 0, &e->pgs, &e->n_pgs);
	if (!parent)
		return;
	char **snaps = NULL;
	bench_check(h, scf_snapshot_list(h, fmri, &snaps), fmri);
	e->n_snaps = strv_length(snaps);
	e->snaps = calloc(e->n_snaps, sizeof(*e->snaps));
	for (size_t i = 0; i < e->n_snaps; i++) {
		row_snap_t *s = &e->snaps[i];

		s->name = strdup(snaps[i]);
		/* Composed: the instance's pgs, then the service's it does not override. */
		read_pgs(h, fmri, snaps[i], 0, &s->pgs[0], &s->n_pgs[0]);
		read_pgs(h, fmri, snaps[i], SCF_READ_COMPOSED, &s->pgs[1], &s->n_pgs[1]);
		drop_level0(s);
	}
	scf_strv_free(snaps);
}

static rows_t read_rows(scf_handle_t *h, const mf_bundle_t *b)
{
	rows_t rows = {0};

	for (size_t i = 0; i < b->n_services; i++) {
		const mf_service_t *s = b->services[i];
		char *sf, *f;

		if (scf_fmri_format_entity(s->e.name, NULL, &sf) < 0)
			exit(1);
		read_entity(h, &rows, sf, NULL);
		for (size_t j = 0; j < s->n_instances; j++) {
			if (scf_fmri_format_entity(s->e.name, s->instances[j]->e.name, &f) < 0)
				exit(1);
			read_entity(h, &rows, f, sf);
			free(f);
		}
		free(sf);
	}
	return rows;
}

/* ---- the baseline: those rows straight into SQLite ---- */

static const char schema[] =
        "PRAGMA locking_mode = EXCLUSIVE; PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;"
        "PRAGMA foreign_keys = ON;"
        "CREATE TABLE entities (id INTEGER PRIMARY KEY AUTOINCREMENT, fmri TEXT NOT NULL UNIQUE,"
        "  parent INTEGER REFERENCES entities(id) ON DELETE CASCADE);"
        "CREATE INDEX entities_by_parent ON entities (parent, fmri);"
        "CREATE TABLE pgs (id INTEGER PRIMARY KEY AUTOINCREMENT,"
        "  entity INTEGER NOT NULL REFERENCES entities(id) ON DELETE CASCADE,"
        "  name TEXT NOT NULL, type TEXT NOT NULL, flags INTEGER NOT NULL, gen INTEGER NOT NULL,"
        "  UNIQUE (entity, name));"
        "CREATE TABLE props (pg INTEGER NOT NULL REFERENCES pgs(id) ON DELETE CASCADE,"
        "  name TEXT NOT NULL, type TEXT NOT NULL, vals BLOB NOT NULL,"
        "  PRIMARY KEY (pg, name)) WITHOUT ROWID;"
        "CREATE TABLE snapshots (id INTEGER PRIMARY KEY AUTOINCREMENT,"
        "  instance INTEGER NOT NULL REFERENCES entities(id) ON DELETE CASCADE,"
        "  name TEXT NOT NULL, UNIQUE (instance, name));"
        "CREATE TABLE snap_levels (id INTEGER PRIMARY KEY AUTOINCREMENT,"
        "  entity INTEGER NOT NULL REFERENCES entities(id) ON DELETE CASCADE,"
        "  cfg INTEGER NOT NULL);"
        "CREATE INDEX snap_levels_by_entity ON snap_levels (entity, cfg);"
        "CREATE TABLE snap_links (snap INTEGER NOT NULL REFERENCES snapshots(id) ON DELETE CASCADE,"
        "  level INTEGER NOT NULL,"
        "  lvl INTEGER NOT NULL REFERENCES snap_levels(id) ON DELETE CASCADE,"
        "  PRIMARY KEY (snap, level));"
        "CREATE INDEX snap_links_by_level ON snap_links (lvl);"
        "CREATE TABLE snap_pgs (id INTEGER PRIMARY KEY AUTOINCREMENT,"
        "  lvl INTEGER NOT NULL REFERENCES snap_levels(id) ON DELETE CASCADE,"
        "  name TEXT NOT NULL, type TEXT NOT NULL, flags INTEGER NOT NULL, gen INTEGER NOT NULL,"
        "  UNIQUE (lvl, name));"
        "CREATE TABLE snap_props (snap_pg INTEGER NOT NULL REFERENCES snap_pgs(id) ON DELETE "
        "CASCADE,"
        "  name TEXT NOT NULL, type TEXT NOT NULL, vals BLOB NOT NULL,"
        "  PRIMARY KEY (snap_pg, name)) WITHOUT ROWID;";

typedef struct db {
	sqlite3 *db;
	sqlite3_stmt *ent, *find, *pg, *prop, *snap, *level, *link, *spg, *sprop, *begin, *commit;
} db_t;

static void sql_check(db_t *d, int rc, const char *what)
{
	if (rc != SQLITE_OK && rc != SQLITE_DONE && rc != SQLITE_ROW) {
		fprintf(stderr, "sqlite: %s: %s\n", what, sqlite3_errmsg(d->db));
		exit(1);
	}
}

static sqlite3_stmt *prep(db_t *d, const char *sql)
{
	sqlite3_stmt *s = NULL;

	sql_check(d, sqlite3_prepare_v2(d->db, sql, -1, &s, NULL), sql);
	return s;
}

static void db_open(db_t *d, const char *path)
{
	sql_check(d, sqlite3_open(path, &d->db), path);
	sql_check(d, sqlite3_exec(d->db, schema, NULL, NULL, NULL), "schema");
	d->ent = prep(d, "INSERT INTO entities (fmri, parent) VALUES (?, ?)");
	d->find = prep(d, "SELECT id FROM entities WHERE fmri = ?");
	d->pg = prep(d, "INSERT INTO pgs (entity, name, type, flags, gen) VALUES (?, ?, ?, ?, ?)");
	d->prop = prep(d, "INSERT INTO props (pg, name, type, vals) VALUES (?, ?, ?, ?)");
	d->snap = prep(d, "INSERT INTO snapshots (instance, name) VALUES (?, ?)");
	d->level = prep(d, "INSERT INTO snap_levels (entity, cfg) VALUES (?, 0)");
	d->link = prep(d, "INSERT INTO snap_links (snap, level, lvl) VALUES (?, ?, ?)");
	d->spg = prep(
	        d, "INSERT INTO snap_pgs (lvl, name, type, flags, gen) VALUES (?, ?, ?, ?, ?)");
	d->sprop =
	        prep(d, "INSERT INTO snap_props (snap_pg, name, type, vals) VALUES (?, ?, ?, ?)");
	d->begin = prep(d, "BEGIN IMMEDIATE");
	d->commit = prep(d, "COMMIT");
}

static int64_t step(db_t *d, sqlite3_stmt *s)
{
	sql_check(d, sqlite3_step(s), sqlite3_sql(s));
	sqlite3_reset(s);
	return sqlite3_last_insert_rowid(d->db);
}

static void insert_pg(
        db_t *d, sqlite3_stmt *pgs, sqlite3_stmt *props, int64_t owner, const row_pg_t *pg)
{
	int i = 1;
	int64_t id;

	sqlite3_bind_int64(pgs, i++, owner);
	sqlite3_bind_text(pgs, i++, pg->name, -1, SQLITE_STATIC);
	sqlite3_bind_text(pgs, i++, pg->type, -1, SQLITE_STATIC);
	sqlite3_bind_int64(pgs, i++, pg->flags);
	sqlite3_bind_int64(pgs, i++, (int64_t)pg->gen);
	id = step(d, pgs);
	for (size_t k = 0; k < pg->n_props; k++) {
		sqlite3_bind_int64(props, 1, id);
		sqlite3_bind_text(props, 2, pg->props[k].name, -1, SQLITE_STATIC);
		sqlite3_bind_text(props, 3, pg->props[k].type, -1, SQLITE_STATIC);
		sqlite3_bind_blob(
		        props, 4, pg->props[k].vals, (int)pg->props[k].len, SQLITE_STATIC);
		step(d, props);
	}
}

static int64_t find_entity(db_t *d, const char *fmri)
{
	int64_t id = 0;

	sqlite3_bind_text(d->find, 1, fmri, -1, SQLITE_STATIC);
	if (sqlite3_step(d->find) == SQLITE_ROW)
		id = sqlite3_column_int64(d->find, 0);
	sqlite3_reset(d->find);
	return id;
}

static bool pgs_equal(const row_pg_t *a, size_t na, const row_pg_t *b, size_t nb)
{
	if (na != nb)
		return false;
	for (size_t i = 0; i < na; i++) {
		if (strcmp(a[i].name, b[i].name) || strcmp(a[i].type, b[i].type) ||
		        a[i].flags != b[i].flags || a[i].gen != b[i].gen ||
		        a[i].n_props != b[i].n_props)
			return false;
		for (size_t k = 0; k < a[i].n_props; k++) {
			const row_prop_t *p = &a[i].props[k], *q = &b[i].props[k];

			if (strcmp(p->name, q->name) || strcmp(p->type, q->type) ||
			        p->len != q->len || memcmp(p->vals, q->vals, p->len))
				return false;
		}
	}
	return true;
}

/* The levels written for one manifest, to share equal ones as configd does (schema 3). */
typedef struct level {
	int64_t owner, id;
	const row_pg_t *pgs;
	size_t n;
} level_t;

typedef struct levels {
	level_t *v;
	size_t n;
} levels_t;

/* The id of a level of owner holding pgs: one written before if equal, else a new one. */
static int64_t level_id(db_t *d, levels_t *ls, int64_t owner, const row_pg_t *pgs, size_t n)
{
	level_t *l;

	for (size_t i = 0; i < ls->n; i++)
		if (ls->v[i].owner == owner && pgs_equal(ls->v[i].pgs, ls->v[i].n, pgs, n))
			return ls->v[i].id;
	ls->v = realloc(ls->v, (ls->n + 1) * sizeof(*ls->v));
	l = &ls->v[ls->n++];
	sqlite3_bind_int64(d->level, 1, owner);
	*l = (level_t){.owner = owner, .id = step(d, d->level), .pgs = pgs, .n = n};
	for (size_t k = 0; k < n; k++)
		insert_pg(d, d->spg, d->sprop, l->id, &pgs[k]);
	return l->id;
}

static void insert_rows(db_t *d, const rows_t *rows)
{
	int64_t *ids = calloc(rows->n ? rows->n : 1, sizeof(*ids));
	levels_t levels = {0};

	step(d, d->begin);
	for (size_t i = 0; i < rows->n; i++) {
		const row_entity_t *e = &rows->e[i];

		sqlite3_bind_text(d->ent, 1, e->fmri, -1, SQLITE_STATIC);
		if (e->parent)
			sqlite3_bind_int64(d->ent, 2, find_entity(d, e->parent));
		else
			sqlite3_bind_null(d->ent, 2);
		ids[i] = step(d, d->ent);
		for (size_t j = 0; j < e->n_pgs; j++)
			insert_pg(d, d->pg, d->prop, ids[i], &e->pgs[j]);
		for (size_t j = 0; j < e->n_snaps; j++) {
			int64_t sid;

			sqlite3_bind_int64(d->snap, 1, ids[i]);
			sqlite3_bind_text(d->snap, 2, e->snaps[j].name, -1, SQLITE_STATIC);
			sid = step(d, d->snap);
			for (int l = 0; l < 2; l++) {
				int64_t owner = l == 0 ? ids[i] : find_entity(d, e->parent);

				sqlite3_bind_int64(d->link, 1, sid);
				sqlite3_bind_int(d->link, 2, l);
				sqlite3_bind_int64(d->link, 3,
				        level_id(d, &levels, owner, e->snaps[j].pgs[l],
				                e->snaps[j].n_pgs[l]));
				step(d, d->link);
			}
		}
	}
	step(d, d->commit);
	free(levels.v);
	free(ids);
}

/* ---- the corpus ---- */

static int collect(const char *dir, char ***files)
{
	struct dirent **ents = NULL;
	int n = scandir(dir, &ents, NULL, alphasort);

	if (n < 0)
		return -errno;
	for (int i = 0; i < n; i++) {
		char *p = NULL;
		struct stat st;
		size_t len = strlen(ents[i]->d_name);

		if (ents[i]->d_name[0] != '.' && asprintf(&p, "%s/%s", dir, ents[i]->d_name) >= 0 &&
		        stat(p, &st) == 0) {
			if (S_ISDIR(st.st_mode))
				collect(p, files);
			else if (len > 4 && strcmp(ents[i]->d_name + len - 4, ".xml") == 0)
				strv_extend(files, p);
		}
		free(p);
		free(ents[i]);
	}
	free(ents);
	return 0;
}

int main(int argc, char *argv[])
{
	_cleanup_strv_free_ char **files = NULL;
	svccfg_t c = {0};
	scf_handle_t *h;
	db_t d = {0};
	uint64_t *imp, *lim, t_imp = 0, t_lim = 0, wall;
	size_t n = 0, nrows = 0;
	char *dbpath;

	if (argc != 3) {
		fprintf(stderr, "usage: bench-import CORPUS_DIR SCRATCH_DIR\n");
		return 2;
	}
	collect(argv[1], &files);
	imp = calloc(strv_length(files), sizeof(*imp));
	lim = calloc(strv_length(files), sizeof(*lim));
	rows_t *rows = calloc(strv_length(files), sizeof(*rows));
	if (svccfg_handle(&c, &h) < 0)
		return 1;

	wall = now_ns();
	STRV_FOREACH (f, files) {
		mf_diags_t diags = {0};
		mf_bundle_t *b = NULL;
		tokens_t t = {0};
		uint64_t t0;

		/* Profiles are not imported; finding them is not part of the import's time. */
		if (mf_read_file(*f, 0, &diags, &b) < 0 || b->type != MF_BUNDLE_MANIFEST) {
			mf_diags_clear(&diags);
			if (b)
				mf_bundle_free(b);
			continue;
		}
		tokens_push(&t, TOKEN_WORD, *f, strlen(*f));
		t0 = now_ns();
		if (cmd_import(&c, t.v, t.n) < 0) {
			fprintf(stderr, "bench-import: import of %s failed\n", *f);
			return 1;
		}
		imp[n] = now_ns() - t0;
		t_imp += imp[n];
		tokens_clear(&t);
		rows[n++] = read_rows(h, b);
		mf_bundle_free(b);
	}
	wall = now_ns() - wall;

	if (asprintf(&dbpath, "%s/bench-import-limit.db", argv[2]) < 0)
		return 1;
	unlink(dbpath);
	db_open(&d, dbpath);
	for (size_t i = 0; i < n; i++) {
		uint64_t t0 = now_ns();

		insert_rows(&d, &rows[i]);
		lim[i] = now_ns() - t0;
		t_lim += lim[i];
		for (size_t j = 0; j < rows[i].n; j++) {
			nrows++;
			for (size_t k = 0; k < rows[i].e[j].n_pgs; k++)
				nrows += 1 + rows[i].e[j].pgs[k].n_props;
		}
	}
	printf("import of %zu manifests (%zu entities/pgs/props rows, plus snapshots):\n", n,
	        nrows);
	printf("  svccfg import:  total %.1f ms (loop wall %.1f ms, with reading the rows back)"
	       "  p50 %.3f ms  p99 %.3f ms\n",
	        (double)t_imp / 1e6, (double)wall / 1e6, pct_ms(imp, n, 0.5), pct_ms(imp, n, 0.99));
	printf("  sqlite3 direct: total %.1f ms  p50 %.3f ms  p99 %.3f ms\n", (double)t_lim / 1e6,
	        pct_ms(lim, n, 0.5), pct_ms(lim, n, 0.99));
	printf("  ratio import/sqlite3: %.2fx  (goals: total <= 1000 ms, ratio <= 5x)\n",
	        (double)t_imp / (double)t_lim);
	sqlite3_close(d.db);
	unlink(dbpath);
	scf_handle_destroy(c.h);
	return 0;
}
