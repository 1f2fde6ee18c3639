/*
 * repodump: prints the whole repository served at $SMF_ROOT through libscf, one line per
 * service, instance, snapshot, pg (with type, flags and generation) and property (with type and
 * values), in a stable order.  The integration tests compare two dumps to show that a refused
 * command changed nothing; the generation in each pg line makes even a no-op commit visible.
 *
 * With --no-snapshots (-n) the snapshots are left out: a quicker dump of the current content,
 * for tests that compare what an import wrote rather than what it froze.  With --hex (-x) every
 * value is printed as the hex of its bytes, so that values holding blanks, brackets, line ends
 * or control characters compare byte for byte and never make a line ambiguous.
 *
 * Exit status: 0, or 1 with the libscf error on stderr.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libscf.h"

static int fail(scf_handle_t *h, const char *what, int r)
{
	fprintf(stderr, "repodump: %s: %s (%s)\n", what, scf_strerror(r),
	        h ? scf_handle_errmsg(h) : "");
	return r;
}

static bool hex;

static void print_value(const char *v)
{
	/* Brackets keep empty values and values with blanks unambiguous. */
	putchar(' ');
	putchar('[');
	if (!hex)
		fputs(v, stdout);
	for (const unsigned char *p = (const unsigned char *)v; hex && *p; p++)
		printf("%02x", *p);
	putchar(']');
}

static int dump_pg(scf_handle_t *h, const char *entity, const char *snap, const scf_pg_info_t *info,
        const char *indent)
{
	scf_pg_t *pg = NULL;
	int r;

	printf("%spg %s type=%s flags=%#" PRIx32 " generation=%" PRIu64 "\n", indent, info->name,
	        info->type, info->flags, info->generation);
	r = scf_pg_get(h, entity, info->name, snap, 0, &pg);
	if (r < 0)
		return fail(h, info->name, r);
	for (size_t i = 0; i < pg->n_props; i++) {
		const scf_property_t *p = &pg->props[i];

		printf("%s  prop %s %s", indent, p->name, scf_type_to_string(p->type));
		for (size_t j = 0; j < p->n_values; j++)
			print_value(p->values[j]);
		printf("\n");
	}
	scf_pg_free(pg);
	return 0;
}

static int dump_pgs(scf_handle_t *h, const char *entity, const char *snap, const char *indent)
{
	scf_pg_info_t *infos = NULL;
	size_t n = 0;
	int r;

	r = scf_pg_list(h, entity, snap, 0, &infos, &n);
	if (r < 0)
		return fail(h, entity, r);
	for (size_t i = 0; i < n && r >= 0; i++)
		r = dump_pg(h, entity, snap, &infos[i], indent);
	scf_pg_info_free(infos, n);
	return r;
}

static bool with_snapshots = true;

static int dump_instance(scf_handle_t *h, const char *inst)
{
	char **snaps = NULL;
	int r;

	printf("  instance %s\n", inst);
	r = dump_pgs(h, inst, NULL, "    ");
	if (r < 0 || !with_snapshots)
		return r;
	r = scf_snapshot_list(h, inst, &snaps);
	if (r < 0)
		return fail(h, inst, r);
	for (char **s = snaps; *s && r >= 0; s++) {
		printf("    snapshot %s\n", *s);
		r = dump_pgs(h, inst, *s, "      ");
	}
	scf_strv_free(snaps);
	return r;
}

static int dump_service(scf_handle_t *h, const char *svc)
{
	char **insts = NULL;
	int r;

	printf("service %s\n", svc);
	r = dump_pgs(h, svc, NULL, "  ");
	if (r < 0)
		return r;
	r = scf_instance_list(h, svc, &insts);
	if (r < 0)
		return fail(h, svc, r);
	for (char **i = insts; *i && r >= 0; i++)
		r = dump_instance(h, *i);
	scf_strv_free(insts);
	return r;
}

int main(int argc, char *argv[])
{
	scf_handle_t *h = NULL;
	char **svcs = NULL;
	int r;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--no-snapshots") == 0 || strcmp(argv[i], "-n") == 0)
			with_snapshots = false;
		else if (strcmp(argv[i], "--hex") == 0 || strcmp(argv[i], "-x") == 0)
			hex = true;
		else {
			fprintf(stderr, "usage: repodump [--no-snapshots] [--hex]\n");
			return 2;
		}
	}

	r = scf_handle_create(NULL, &h);
	if (r < 0)
		return fail(NULL, "connect", r), 1;
	r = scf_service_list(h, &svcs);
	if (r < 0)
		fail(h, "list services", r);
	for (char **s = svcs; r >= 0 && s && *s; s++)
		r = dump_service(h, *s);
	scf_strv_free(svcs);
	scf_handle_destroy(h);
	return r < 0 ? 1 : 0;
}
