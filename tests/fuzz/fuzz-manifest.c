/*
 * fuzz-manifest.c: libFuzzer target for the manifest reader and writer.
 *
 * Arbitrary bytes go through the whole reader (parse, structural check, build) from memory,
 * with XInclude off so that no input can make the reader open files.  Whatever the input, the
 * reader must return (0 with a bundle, or an error with diagnostics), never crash, and leave
 * nothing allocated once the bundle and the diagnostics are freed.  A bundle it accepts, once
 * written (writer.h), must read again, and write again to the same bytes: the writer is the
 * reader's inverse on whatever the reader can build.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/parser.h>

#include "manifest.h"
#include "writer.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	xmlInitParser();
	return 0;
}

/* b written into a malloc()ed buffer; NULL only when memory ran out. */
static char *write_mem(const mf_bundle_t *b, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);
	int r;

	if (!f)
		return NULL;
	r = mf_bundle_write(b, f);
	if (fclose(f) != 0 || r == -ENOMEM) {
		free(buf);
		return NULL;
	}
	if (r < 0)
		__builtin_trap();
	return buf;
}

static void check_written(const mf_bundle_t *b)
{
	mf_diags_t d = {0};
	mf_bundle_t *b2 = NULL;
	size_t len = 0, len2 = 0;
	char *xml = write_mem(b, &len), *again = NULL;
	int r;

	if (!xml)
		return;
	r = mf_read_memory(xml, len, "written.xml", MF_READ_NO_XINCLUDE, &d, &b2);
	if (r < 0 && r != -ENOMEM)
		__builtin_trap();
	if (r == 0 && (again = write_mem(b2, &len2)) && (len != len2 || memcmp(xml, again, len)))
		__builtin_trap();
	free(again);
	free(xml);
	mf_bundle_free(b2);
	mf_diags_clear(&d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	mf_diags_t d = {0};
	mf_bundle_t *b = NULL;
	int r;

	r = mf_read_memory(data, size, "fuzz.xml", MF_READ_NO_XINCLUDE, &d, &b);
	/* The contract the callers rely on: a bundle exactly on success, a reason otherwise. */
	if ((r == 0) != (b != NULL))
		__builtin_trap();
	if (r < 0 && r != -ENOMEM && d.n == 0)
		__builtin_trap();
	for (size_t i = 0; i < d.n; i++) {
		char *s = mf_diag_format(&d.v[i]);

		if (!s)
			__builtin_trap();
		free(s);
	}
	if (b)
		check_written(b);
	mf_bundle_free(b);
	mf_diags_clear(&d);
	return 0;
}
