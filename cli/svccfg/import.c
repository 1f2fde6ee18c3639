/*
 * import.c: import, validate, inventory and delhash.
 *
 * THE MODEL.  import reads each manifest (a directory: every *.xml below it, sorted), validates
 * it, maps it into ONE batch (mapping.h) with the bookkeeping illumos keeps (the manifest's hash
 * under svc:/smf/manifest, the manifestfiles pg of each service, the "last-import" and, for a
 * new instance, "initial" snapshots, and a refresh of every instance unless -n) and commits it.
 *
 * INVARIANTS.  A manifest lands whole or not at all: it is one batch, and configd applies a
 * batch in one SQLite transaction.  One failing manifest does not stop the others; the command
 * fails (exit 1) if any did.  A manifest whose SHA-256 equals the one recorded at its last
 * import, and whose services all still exist, is skipped and says so.
 *
 * After every manifest is committed and refreshed, import waits until the restarter has taken
 * up each instance they wrote (import-wait.c); -n skips the wait as it skips the refresh.
 *
 * TRACE (docs/trace-format.md).  import.begin per manifest; once its batch committed,
 * import.instance_committed and (unless -n) import.refresh for each of its instances, flowed by
 * instance; the wait's events (import-wait.c); and import.return "exit <status>" once, when
 * the command returns, whatever the path.  An import that returns before the restarter pg of
 * an instance it committed exists is the latent race svctrace looks for.
 */
#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bundles.h"
#include "cli-error.h"
#include "commands.h"
#include "import-wait.h"
#include "manifest.h"
#include "mapping.h"
#include "model.h"
#include "pgs.h"
#include "probe.h"
#include "sha256.h"
#include "strv.h"

#define HASH_SERVICE "svc:/smf/manifest"
#define HASH_PG_TYPE "framework"
#define HASH_PROP "md5sum" /* illumos' name; we keep a SHA-256 in it */
#define HASH_FILE_PROP "manifestfile"

typedef struct import_opts {
	bool restore;          /* restore: an archive, where import takes a manifest */
	bool no_refresh;       /* -n */
	uint64_t timeout_usec; /* --timeout, for the wait */
	char **wait_for;       /* the instances of every manifest committed (unless -n) */
	size_t n_wait_for;
} import_opts_t;

int args_flags(const token_t *args, size_t n, const char *allowed, char *seen)
{
	size_t i;

	for (i = 0; i < n && token_is_text(&args[i]) && args[i].text[0] == '-'; i++) {
		const char *a = args[i].text + 1;

		if (streq(args[i].text, "--")) {
			i++;
			break;
		}
		if (!*a)
			return -EINVAL;
		for (; *a; a++) {
			const char *k = strchr(allowed, *a);

			if (!k)
				return -EINVAL;
			seen[k - allowed] = 1;
		}
	}
	return (int)i;
}

/* The SHA-256 of the file as 64 hex digits; NULL (reason in errno) if it cannot be read. */
static char *file_hash(const char *path)
{
	uint8_t d[SHA256_DIGEST_SIZE], buf[65536];
	_cleanup_fclose_ FILE *f = fopen(path, "re");
	sha256_ctx_t ctx;
	char *hex;
	size_t k;

	if (!f)
		return NULL;
	sha256_init(&ctx);
	while ((k = fread(buf, 1, sizeof(buf), f)) > 0)
		sha256_update(&ctx, buf, k);
	if (ferror(f))
		return NULL;
	sha256_final(&ctx, d);
	hex = malloc(2 * sizeof(d) + 1);
	if (!hex)
		return NULL;
	for (size_t i = 0; i < sizeof(d); i++)
		sprintf(hex + 2 * i, "%02x", d[i]);
	return hex;
}

/*
 * The pg (and property) name illumos derives from a manifest's path: '/' (and any other character
 * a name may not hold) becomes '_'.  A path too long for a name keeps its start and gets a
 * digest of the whole path, so two long paths never share a name.
 */
static char *path_name(const char *abspath)
{
	_cleanup_free_ char *n = map_pg_name("", abspath + 1);
	uint8_t d[SHA256_DIGEST_SIZE];
	char *s;

	if (!n || strlen(abspath + 1) < SCF_LIMIT_MAX_NAME_LENGTH)
		return TAKE_PTR(n);
	sha256(abspath, strlen(abspath), d);
	n[SCF_LIMIT_MAX_NAME_LENGTH - 17] = '\0';
	if (asprintf(&s, "%s_%02x%02x%02x%02x%02x%02x%02x%02x", n, d[0], d[1], d[2], d[3], d[4],
	            d[5], d[6], d[7]) < 0)
		return NULL;
	return s;
}

/* The manifest's absolute path, and the pg name derived from it. */
static int hash_names(const char *file, char **abspath, char **pg)
{
	*abspath = realpath(file, NULL);
	if (!*abspath)
		return -errno;
	*pg = path_name(*abspath);
	return *pg ? 0 : -ENOMEM;
}

/* Is the manifest unchanged since it was last imported (and are its services still there)? */
static bool unchanged(scf_handle_t *h, const mf_bundle_t *b, const char *pg, const char *hash)
{
	scf_property_t *p = NULL;
	bool same;

	if (scf_property_read(h, HASH_SERVICE, pg, HASH_PROP, &p) < 0)
		return false;
	same = p->n_values == 1 && streq(p->values[0], hash);
	scf_property_free(p);
	for (size_t i = 0; same && i < b->n_services; i++) {
		_cleanup_free_ char *f = NULL;

		same = scf_fmri_format_entity(b->services[i]->e.name, NULL, &f) >= 0 &&
		        scf_entity_exists(h, f) > 0;
	}
	return same;
}

static int add_bookkeeping(map_ctx_t *m, const char *abspath, const char *pg, const char *hash)
{
	const mf_bundle_t *b = m->bundle;
	_cleanup_free_ char *prop = path_name(abspath);
	const char *path[] = {abspath}, *h[] = {hash};
	int r;

	if (!prop)
		return -SCF_ERROR_NO_MEMORY;
	for (size_t i = 0; i < b->n_services; i++) {
		_cleanup_free_ char *f = NULL;

		if ((r = scf_fmri_format_entity(b->services[i]->e.name, NULL, &f)) < 0 ||
		        (r = scf_batch_pg_ensure(
		                 m->b, f, SCF_PG_MANIFESTFILES, SCF_GROUP_FRAMEWORK, 0)) < 0 ||
		        (r = scf_batch_prop_set(m->b, f, SCF_PG_MANIFESTFILES, prop,
		                 SCF_TYPE_ASTRING, path, 1)) < 0)
			return r;
	}
	if ((r = scf_batch_service_ensure(m->b, HASH_SERVICE)) < 0 ||
	        (r = scf_batch_pg_ensure(m->b, HASH_SERVICE, pg, HASH_PG_TYPE, 0)) < 0 ||
	        (r = scf_batch_prop_set(m->b, HASH_SERVICE, pg, HASH_PROP, SCF_TYPE_OPAQUE, h, 1)) <
	                0 ||
	        (r = scf_batch_prop_set(
	                 m->b, HASH_SERVICE, pg, HASH_FILE_PROP, SCF_TYPE_ASTRING, path, 1)) < 0)
		return r;
	return 0;
}

/*
 * A <dependent> wrote a dependency pg into an entity outside the manifest: illumos'
 * lscf_dependent_import() refreshes it (each instance of a service), so that the dependency
 * reaches the running snapshot that the restarter reads.
 */
static int refresh_dependent_targets(map_ctx_t *m)
{
	int r;

	STRV_FOREACH (t, m->dependent_targets) {
		char **insts = NULL;

		if (smf_fmri_classify(*t, NULL) == SMF_FMRI_INSTANCE) {
			if ((r = scf_batch_refresh(m->b, *t)) < 0)
				return r;
			continue;
		}
		if ((r = scf_instance_list(m->h, *t, &insts)) < 0)
			return r;
		r = 0;
		STRV_FOREACH (i, insts)
			if (r >= 0)
				r = scf_batch_refresh(m->b, *i);
		scf_strv_free(insts);
		if (r < 0)
			return r;
	}
	return 0;
}

/* Snapshots and refreshes come last, so they see everything the manifest wrote. */
static int add_snapshots(svccfg_t *c, map_ctx_t *m, const import_opts_t *o)
{
	char *const *next_new = m->new_instances;
	int r;

	/* new_instances is a subsequence of instances (mapping.h): one walk over both. */
	STRV_FOREACH (i, m->instances) {
		if (next_new && *next_new && streq(*next_new, *i)) {
			next_new++;
			if (c->verbose)
				svccfg_warn(c, "Taking \"%s\" snapshot for %s.",
				        SCF_SNAPSHOT_INITIAL, *i);
			if ((r = scf_batch_snapshot_take(m->b, *i, SCF_SNAPSHOT_INITIAL)) < 0)
				return r;
		}
		if (c->verbose)
			svccfg_warn(
			        c, "Taking \"%s\" snapshot for %s.", SCF_SNAPSHOT_LAST_IMPORT, *i);
		if ((r = scf_batch_snapshot_take(m->b, *i, SCF_SNAPSHOT_LAST_IMPORT)) < 0)
			return r;
		if (!o->no_refresh && (r = scf_batch_refresh(m->b, *i)) < 0)
			return r;
	}
	assert(!next_new || !*next_new);
	return o->no_refresh ? 0 : refresh_dependent_targets(m);
}

static int build_and_commit(svccfg_t *c, map_ctx_t *m, const import_opts_t *o, const char *abspath,
        const char *pg, const char *hash)
{
	_cleanup_free_ char *err = NULL;
	int r;

	r = map_bundle(m, &err);
	if (r >= 0 && (r = add_bookkeeping(m, abspath, pg, hash)) >= 0 &&
	        (r = add_snapshots(c, m, o)) >= 0 && (r = scf_batch_commit(m->b)) >= 0)
		return 0;
	if (cli_scf_is_fatal(r))
		return svccfg_scf_error(c, r, m->bundle->file);
	if (!err)
		err = map_commit_error(m, r);
	fprintf(stderr, "%s\n", err ? err : scf_strerror(r));
	svccfg_error(c, "Import of %s failed; nothing of it was written.", m->bundle->file);
	return r;
}

/* The manifest's batch committed: its instances exist (and were refreshed, unless -n). */
static void trace_committed(char *const *instances, bool refreshed)
{
	STRV_FOREACH (i, instances)
		SMF_PROBE(instance_committed, SMF_TRACE_IMPORT_INSTANCE_COMMITTED,
		        smf_trace_flow(*i), *i);
	if (refreshed)
		STRV_FOREACH (i, instances)
			SMF_PROBE(refresh, SMF_TRACE_IMPORT_REFRESH, smf_trace_flow(*i), *i);
}

/* Remembers the instances a committed manifest wrote, for the wait. */
static int add_wait_for(import_opts_t *o, char *const *instances)
{
	if (o->no_refresh)
		return 0;
	STRV_FOREACH (i, instances)
		if (strv_extend_counted(&o->wait_for, &o->n_wait_for, *i) < 0)
			return -SCF_ERROR_NO_MEMORY;
	return 0;
}

/* Refuses a bundle of another type than want, in illumos' words; 0 or -EINVAL. */
static int bundle_is(svccfg_t *c, const char *file, const mf_bundle_t *b, mf_bundle_type_t want)
{
	if (b->type == want)
		return 0;
	svccfg_error(c, "%s: document is not %s.", file,
	        want == MF_BUNDLE_ARCHIVE ? "an archive" : "a manifest");
	return -EINVAL;
}

static int import_one(svccfg_t *c, scf_handle_t *h, const char *file, import_opts_t *o)
{
	_cleanup_bundle_ mf_bundle_t *b = NULL;
	_cleanup_free_ char *hash = NULL, *abspath = NULL, *pg = NULL;
	map_ctx_t m = {.h = h, .mode = MAP_IMPORT, .warn = stderr};
	int r;

	SMF_PROBE(begin, SMF_TRACE_IMPORT_BEGIN, 0, file);
	if ((r = bundles_read(c, file, &b)) < 0)
		return r;
	/* As illumos' lxml_get_bundle(): import takes a manifest, restore an archive. */
	if ((r = bundle_is(c, file, b, o->restore ? MF_BUNDLE_ARCHIVE : MF_BUNDLE_MANIFEST)) < 0)
		return r;
	if (!(hash = file_hash(file)) || hash_names(file, &abspath, &pg) < 0) {
		r = negative_errno();
		svccfg_error(c, "Could not read %s: %s.", file, strerror(-r));
		return r;
	}
	if (unchanged(h, b, pg, hash)) {
		printf("%s: unchanged since its last import; skipped.\n", file);
		return 0;
	}
	if ((r = scf_batch_new(h, &m.b)) < 0)
		return svccfg_scf_error(c, r, file);
	m.bundle = b;
	r = build_and_commit(c, &m, o, abspath, pg, hash);
	if (r >= 0)
		trace_committed(m.instances, !o->no_refresh);
	if (r >= 0 && add_wait_for(o, m.instances) < 0)
		r = svccfg_oom(c);
	scf_batch_free(m.b);
	map_ctx_done(&m);
	if (r >= 0 && c->verbose)
		svccfg_warn(c, "Successful import of %s.", file);
	return r;
}

/*
 * The options before the operands: -n, -V (also bundled) and --timeout SECONDS (or
 * --timeout=SECONDS).  Returns the index of the first operand, or -EINVAL (not reported).
 */
static int import_options(const token_t *args, size_t n, import_opts_t *o)
{
	size_t i = 0;

	while (i < n && token_is_text(&args[i]) && args[i].text[0] == '-') {
		const char *a = args[i].text, *t = NULL;
		char seen[2] = {0};

		if (streq(a, "--"))
			return (int)i + 1;
		if (streq(a, "--timeout"))
			t = ++i < n && token_is_text(&args[i]) ? args[i].text : "";
		else if (strncmp(a, "--timeout=", strlen("--timeout=")) == 0)
			t = a + strlen("--timeout=");
		if (t) {
			if (import_wait_parse_timeout(t, &o->timeout_usec) < 0)
				return -EINVAL;
		} else if (args_flags(&args[i], 1, "nV", seen) != 1)
			return -EINVAL;
		o->no_refresh |= seen[0];
		/* -V (strict validation) is what we always do: templates are checked for structure. */
		i++;
	}
	return (int)i;
}

static int import_run(svccfg_t *c, const token_t *args, size_t n, bool restore)
{
	_cleanup_strv_free_ char **files = NULL;
	import_opts_t o = {.restore = restore};
	scf_handle_t *h;
	int first, r, ret = 0;

	if ((r = import_wait_default_timeout(c, &o.timeout_usec)) < 0)
		return r;
	/* restore takes one file and no option (illumos' "restore file"). */
	first = restore ? (n == 1 ? 0 : -EINVAL) : import_options(args, n, &o);
	if (first < 0 || (size_t)first == n)
		return command_syntax_error(c);
	if ((r = bundles_collect_args(c, args + first, n - first, &files)) < 0)
		return r;
	if (!files) {
		svccfg_error(c, "No manifests (*.xml) found.");
		return -ENOENT;
	}
	if ((r = svccfg_handle(c, &h)) < 0)
		return r;
	/* One failing manifest does not stop the others; the first failure is the command's. */
	STRV_FOREACH (f, files) {
		r = import_one(c, h, *f, &o);
		if (r < 0 && ret >= 0)
			ret = r;
		if (c->fatal)
			break;
	}
	if (!c->fatal && o.wait_for) {
		r = import_wait(c, h, o.wait_for, o.timeout_usec);
		if (r < 0)
			ret = r;
	} else if (!c->fatal)
		import_wait_skipped(o.no_refresh ? "-n" : "no instances");
	strv_free(o.wait_for);
	return c->fatal ? r : ret;
}

int cmd_import(svccfg_t *c, const token_t *args, size_t n)
{
	int r = import_run(c, args, n, false);
	char buf[32];

	/* The status the command gives outside the prompt (engine.c): any failure is 1. */
	snprintf(buf, sizeof(buf), "exit %d", r < 0 ? 1 : 0);
	SMF_PROBE(return, SMF_TRACE_IMPORT_RETURN, 0, buf);
	return r;
}

/*
 * restore FILE: an archive (svccfg archive) back into the repository, through import's path;
 * import refuses an archive, as illumos' does.
 */
int cmd_restore(svccfg_t *c, const token_t *args, size_t n)
{
	return import_run(c, args, n, true);
}

/* validate FMRI, or the selection: the instance's properties against its templates. */
static int validate_instance(svccfg_t *c, const char *fmri)
{
	int errors = 0, r = template_validate(c, fmri, &errors);

	/* As illumos' lscf_validate_fmri(): violations are reported, the status is unchanged. */
	return r < 0 ? r : 0;
}

/*
 * As illumos' lscf_validate(): "file:" and "svc:" say which; else a path that exists is a file
 * (illumos asks for a readable one; an unreadable file is then reported as what it is, not as
 * an FMRI that matches nothing).
 */
static bool is_file_operand(const char **arg)
{
	if (strneq(*arg, "file:", 5)) {
		*arg += 5;
		if (strneq(*arg, "//", 2))
			*arg += 2;
		return true;
	}
	return !strneq(*arg, "svc:", 4) && access(*arg, F_OK) == 0;
}

int cmd_validate(svccfg_t *c, const token_t *args, size_t n)
{
	_cleanup_strv_free_ char **files = NULL;
	int r, ret = 0;

	if (n == 0) {
		if (!c->cur_inst) {
			svccfg_error(c, "No instance selected");
			return -EINVAL;
		}
		return validate_instance(c, c->cur_inst);
	}
	for (size_t i = 0; i < n; i++) {
		const char *a = args[i].text;

		if (!token_is_text(&args[i]))
			return command_syntax_error(c);
		if (is_file_operand(&a)) {
			if ((r = bundles_collect(c, a, &files)) < 0)
				return r;
		} else {
			_cleanup_free_ char *fmri = NULL;

			/* An FMRI walk with no flags: one instance (a service's only one). */
			if ((r = svccfg_walk_one(c, a, 0, &fmri)) < 0 ||
			        (r = validate_instance(c, fmri)) < 0)
				return r;
		}
	}
	STRV_FOREACH (f, files) {
		_cleanup_bundle_ mf_bundle_t *b = NULL;

		r = bundles_read(c, *f, &b);
		if (c->fatal)
			return r;
		if (r < 0 && ret >= 0)
			ret = r;
	}
	return ret;
}

/*
 * inventory FILE: what a manifest would create, in illumos' order (lxml_inventory()): every
 * service's instances first, each service's in the reverse of the document's order (its
 * internal_attach_entity() prepends them), then the services in the document's order.
 */
int cmd_inventory(svccfg_t *c, const token_t *args, size_t n)
{
	_cleanup_bundle_ mf_bundle_t *b = NULL;
	int r;

	if (n != 1 || !token_is_text(&args[0]))
		return command_syntax_error(c);
	if ((r = bundles_read(c, args[0].text, &b)) < 0 ||
	        (r = bundle_is(c, args[0].text, b, MF_BUNDLE_MANIFEST)) < 0)
		return r;
	for (size_t i = 0; i < b->n_services; i++) {
		const mf_service_t *s = b->services[i];

		for (size_t j = s->n_instances; j > 0; j--) {
			_cleanup_free_ char *f = NULL;

			if (scf_fmri_format_entity(s->e.name, s->instances[j - 1]->e.name, &f) < 0)
				return svccfg_oom(c);
			puts(f);
		}
	}
	for (size_t i = 0; i < b->n_services; i++) {
		_cleanup_free_ char *f = NULL;

		if (scf_fmri_format_entity(b->services[i]->e.name, NULL, &f) < 0)
			return svccfg_oom(c);
		puts(f);
	}
	return 0;
}

/*
 * delhash [-d] MANIFEST: forgets the hash recorded for a manifest (its pg under
 * svc:/smf/manifest), so that the next import of it is not skipped.  As illumos: refused while
 * an entity is selected (a warning only); with -d the file need not exist any more.
 */
int cmd_delhash(svccfg_t *c, const token_t *args, size_t n)
{
	_cleanup_free_ char *abspath = NULL, *pg = NULL, *cwd = NULL;
	bool gone = n == 2 && token_is_text(&args[0]) && streq(args[0].text, "-d");
	const char *file;
	scf_handle_t *h;
	int r;

	if (n < 1 || n > 2 || (n == 2 && !gone) || !token_is_text(&args[n - 1]))
		return command_syntax_error(c);
	file = args[n - 1].text;
	if (svccfg_entity(c)) {
		svccfg_warn(c, "error, an entity is selected");
		return 0;
	}
	r = hash_names(file, &abspath, &pg);
	if (r < 0 && gone && r != -ENOMEM) {
		/* -d: the manifest is gone; its name is what it was. */
		if (file[0] == '/')
			abspath = strdup(file);
		else if ((cwd = getcwd(NULL, 0)) && asprintf(&abspath, "%s/%s", cwd, file) < 0)
			abspath = NULL;
		r = abspath && (pg = path_name(abspath)) ? 0 : -ENOMEM;
	}
	if (r == -ENOMEM)
		return svccfg_oom(c);
	if (r < 0) {
		/* A warning, as in illumos: the status stays 0. */
		svccfg_warn(c, "cannot resolve pathname for %s", file);
		return 0;
	}
	if ((r = svccfg_handle(c, &h)) < 0)
		return r;
	r = scf_pg_delete(h, HASH_SERVICE, pg);
	if (r == -SCF_ERROR_NOT_FOUND) {
		svccfg_error(c, "No such property group \"%s\".", pg);
		return r;
	}
	return r < 0 ? svccfg_scf_error(c, r, HASH_SERVICE) : 0;
}
