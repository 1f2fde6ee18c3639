/*
 * test-shared: a program built against libscf.so and the public header alone, as a program
 * outside this tree would be.  Everything else links the static archive, so this is what shows
 * that the shared library resolves with only its exported API: it connects to a root where no
 * configd runs and must be told so in libscf's words.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <libscf.h>

int main(void)
{
	scf_handle_t *h = NULL;
	int r;

	r = scf_handle_create("/nonexistent/test-shared", &h);
	if (r != -SCF_ERROR_NO_SERVER) {
		fprintf(stderr, "scf_handle_create: %d (%s), wanted NO_SERVER\n", r,
		        scf_strerror(r));
		scf_handle_destroy(h);
		return 1;
	}
	if (strcmp(scf_strerror(r), "repository server unavailable") != 0 ||
	        strcmp(scf_strerror(-ENOENT), strerror(ENOENT)) != 0) {
		fprintf(stderr, "scf_strerror: unexpected messages\n");
		return 1;
	}
	printf("ok: %s\n", scf_strerror(r));
	return 0;
}
