/*
 * cli-resolve.h: FMRI abbreviations on the command line, with illumos' messages.
 *
 * libscf does the matching (scf_fmri_resolve*); this adds what the tools share on top of it:
 * the sentences ("Pattern 'x' doesn't match any instances or services", "Pattern 'x' matches
 * multiple instances:" followed by the candidates, one per line indented by four spaces).  As in illumos'
 * scf_walk_fmri(), a partial pattern may match a service and instances of it at once ("ssh"
 * names svc:/network/ssh and svc:/network/ssh:default); a tool that needs one entity then
 * reports the ambiguity, and the user gives the full FMRI.
 *
 * Messages are returned, not printed, because each tool prefixes them its own way.
 */
#ifndef CLI_RESOLVE_H
#define CLI_RESOLVE_H

#include <libscf.h>

/*
 * Every entity the pattern names, at least one.  Returns 0 and a sorted strv in *ret; or
 * -SCF_ERROR_NOT_FOUND with the "doesn't match" sentence in *errmsg; or another negative libscf
 * error with *errmsg NULL (the caller explains it with cli_scf_reason()).
 */
int cli_resolve_all(
        scf_handle_t *h, const char *pattern, unsigned flags, char ***ret, char **errmsg);

/*
 * Exactly one entity.  As cli_resolve_all(), plus -SCF_ERROR_AMBIGUOUS with the "matches
 * multiple instances" sentence and the candidate list (several lines) in *errmsg.
 */
int cli_resolve_one(
        scf_handle_t *h, const char *pattern, unsigned flags, char **ret, char **errmsg);

#endif
