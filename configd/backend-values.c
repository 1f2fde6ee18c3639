/*
 * backend-values.c: a property's ordered values as one blob.
 *
 * Each value is stored followed by a NUL, so the blob of n values has n NULs and an empty
 * list is an empty blob.  Values come from D-Bus strings, which cannot hold NUL, so the
 * separator is unambiguous.  The same blob tells how large the property is on the wire
 * (values_wire_size()), which is what bounds a pg (BACKEND_MAX_PG_BYTES).
 */
#include <stdlib.h>
#include <string.h>

#include "backend-internal.h"
#include "macro.h"
#include "strv.h"

int values_encode(const char *const *values, size_t n, char **ret, size_t *ret_len)
{
	size_t len = 0;
	char *blob, *p;

	for (size_t i = 0; i < n; i++)
		len += strlen(values[i]) + 1;
	blob = malloc(len + 1); /* + 1: never malloc(0) */
	if (!blob)
		return -SCF_ERROR_NO_RESOURCES;
	p = blob;
	for (size_t i = 0; i < n; i++)
		p = stpcpy(p, values[i]) + 1;
	*ret = blob;
	*ret_len = len;
	return 0;
}

int values_decode(const void *blob, size_t len, char ***ret, size_t *ret_n)
{
	_cleanup_strv_free_ char **l = strv_new_empty();
	const char *p = blob, *end = p + len;
	size_t n = 0;

	if (!l)
		return -SCF_ERROR_NO_RESOURCES;
	while (p && p < end) {
		const char *z = memchr(p, 0, (size_t)(end - p));

		if (!z) /* a truncated blob: keep what is whole */
			break;
		if (strv_extend_counted(&l, &n, p) < 0)
			return -SCF_ERROR_NO_RESOURCES;
		p = z + 1;
	}
	*ret = TAKE_PTR(l);
	*ret_n = n;
	return 0;
}

uint64_t values_wire_size(size_t name_len, size_t type_len, const void *blob, size_t blob_len)
{
	const char *p = blob, *end = p + blob_len;
	uint64_t n_values = 0;

	while (p && p < end) {
		const char *nul = memchr(p, 0, (size_t)(end - p));

		n_values++;
		p = nul ? nul + 1 : end;
	}
	/* blob_len counts each value and its NUL; add the length word and padding of each. */
	return 7 + (name_len + 8) + (type_len + 8) + 4 + blob_len + 7 * n_values;
}

static void sql_wire_size(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	uint64_t size = values_wire_size((size_t)sqlite3_value_bytes(argv[0]),
	        (size_t)sqlite3_value_bytes(argv[1]), sqlite3_value_blob(argv[2]),
	        (size_t)sqlite3_value_bytes(argv[2]));

	sqlite3_result_int64(ctx, (sqlite3_int64)size);
}

int values_register_sql(backend_t *b)
{
	int rc = sqlite3_create_function_v2(b->db, "smf_wire_size", 3,
	        SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_DIRECTONLY, NULL, sql_wire_size, NULL,
	        NULL, NULL);

	if (rc != SQLITE_OK)
		return backend_sqlite_fail(b, rc, "registering smf_wire_size()");
	return 0;
}

int backend_pg_wire_size(backend_t *b, const pg_loc_t *loc, uint64_t *ret)
{
	_cleanup_stmt_ sqlite3_stmt *s = backend_stmt(b, STMT_PG_WIRE_SIZE, loc->where);
	int r;

	if (!s)
		return -SCF_ERROR_BACKEND_ACCESS;
	sqlite3_bind_int64(s, 1, loc->id);
	r = backend_step_row(b, s, "measuring a property group");
	if (r < 0)
		return r;
	*ret = r > 0 ? (uint64_t)sqlite3_column_int64(s, 0) : 0;
	return 0;
}

int backend_pg_check_size(backend_t *b, const pg_loc_t *loc, const char *where)
{
	uint64_t size = 0;
	int r = backend_pg_wire_size(b, loc, &size);

	if (r < 0)
		return r;
	if (size > BACKEND_MAX_PG_BYTES)
		return backend_fail(b, -SCF_ERROR_CONSTRAINT_VIOLATED,
		        "%s: %llu bytes of properties, more than the %u a property group may hold",
		        where, (unsigned long long)size, BACKEND_MAX_PG_BYTES);
	return 0;
}
