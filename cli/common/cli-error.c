/* cli-error.c: libscf failures as the tools report them (the words: lib/util/error.c). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli-error.h"
#include "trace.h"

const char *cli_scf_reason(scf_handle_t *h, int r)
{
	const char *m = h ? scf_handle_errmsg(h) : NULL;

	/* A dead daemon has nothing better to say than the phrase scripts look for. */
	if ((cli_scf_is_fatal(r) && r != -SCF_ERROR_TIMEOUT) || !m || !*m)
		return smf_error_phrase(r);
	return m;
}

int cli_scf_is_fatal(int r)
{
	return r == -SCF_ERROR_NO_SERVER || r == -SCF_ERROR_CONNECTION_BROKEN ||
	        r == -SCF_ERROR_NOT_BOUND || r == -SCF_ERROR_VERSION_MISMATCH ||
	        r == -SCF_ERROR_TIMEOUT;
}

int cli_connect(const char *root, scf_handle_t **ret)
{
	scf_handle_t *h = NULL;
	int r;

	r = smf_trace_open_command(root, program_invocation_short_name);
	if (r < 0 && r != -EBUSY)
		fprintf(stderr, "%s: cannot open a trace file (%s); not tracing.\n",
		        program_invocation_short_name, strerror(-r));
	r = scf_handle_create(root, &h);
	if (r < 0)
		return r;
	*ret = h;
	return 0;
}
