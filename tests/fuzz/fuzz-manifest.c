/*
 * fuzz-manifest.c: libFuzzer target for the manifest reader.
 *
 * Arbitrary bytes go through the whole reader (parse, structural check, build) from memory,
 * with XInclude off so that no input can make the reader open files.  Whatever the input, the
 * reader must return (0 with a bundle, or an error with diagnostics), never crash, and leave
 * nothing allocated once the bundle and the diagnostics are freed.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <libxml/parser.h>

#include "manifest.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	xmlInitParser();
	return 0;
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
	mf_bundle_free(b);
	mf_diags_clear(&d);
	return 0;
}
