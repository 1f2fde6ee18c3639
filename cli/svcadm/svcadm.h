/*
 * svcadm.h: what the files of svcadm share (see main.c for the model).
 *
 *   main.c       messages, exit status, usage, the subcommand table
 *   commands.c   enable, disable, restart, refresh, clear, mark: options, operands, effect
 *   milestone.c  milestone
 *   operands.c   FMRIs and abbreviations to instances, as illumos' scf_walk_fmri()
 *   actions.c    the writes: general[_ovr]/enabled, restarter_actions
 *   state.c      the reads: an instance's state, whether it is enabled
 *   deps.c       dependencies: can they ever be satisfied (-s exit 4), enable -r
 *   wait.c       -s: waiting for the result, on libscf's scf_restarter_wait()
 */
#ifndef SVCADM_H
#define SVCADM_H

#include <stdbool.h>

#include "libscf.h"
#include "macro.h"
#include "restarter.h"

#define EXIT_FATAL 1
#define EXIT_USAGE 2
#define EXIT_SVC_FAILURE 3
#define EXIT_DEP_FAILURE 4

/* The one run of the command. */
typedef struct svcadm {
	scf_handle_t *h;
	bool verbose;      /* -v */
	const char *state; /* -S: the instances in this state instead of operands */
	/* disable -c: written as general[_ovr]/comment beside enabled ("" for enable) */
	const char *comment;
	int exit_status;
	/* A bad operand: reported at once, but as illumos, the good operands are still waited for. */
	bool operand_error;
} svcadm_t;

extern svcadm_t svcadm;

/* main.c */
/* "svcadm: <message>\n" on stderr. */
_printf_(1, 2) void svcadm_warn(const char *fmt, ...);
/* Records an exit status; a service failure takes precedence over a dependency failure. */
void svcadm_fail(int status);
/* Reports a libscf error that leaves nothing to do, and exits 1. */
_noreturn_ void svcadm_die(int r);
_noreturn_ void svcadm_usage(void);
/* What a subcommand returns: 1 after a bad operand, else the status recorded. */
int svcadm_status(void);

/* commands.c */
int cmd_enable(int argc, char **argv);
int cmd_disable(int argc, char **argv);
int cmd_restart(int argc, char **argv);
int cmd_refresh(int argc, char **argv);
int cmd_clear(int argc, char **argv);
int cmd_mark(int argc, char **argv);

/* milestone.c */
int cmd_milestone(int argc, char **argv);

/* operands.c */
/* "svc:/a/b:i" names an instance, "svc:/a/b" a service. */
bool fmri_is_instance(const char *fmri);
/*
 * Every instance the operands name, in operand order, each once; bad operands are reported
 * (svcadm.operand_error).  With -S (and then no operands), every instance in that state.
 */
char **operands_expand(int argc, char **argv);

/* actions.c: each reports its own failure (and records the exit status). */
int action_set_enabled(const char *fmri, bool temp, bool enable);
int action_request(const char *fmri, const char *action);
/* Retakes the running snapshot, then requests "refresh". */
int action_refresh(const char *fmri);
/* Reports a failed write of what (a pg, a snapshot) on fmri; dies if the handle is unusable. */
void action_write_failed(const char *fmri, const char *what, int r);
/* An scf_tx_fn: deletes the property named by userdata, if the pg has it. */
int tx_delete_if_present(scf_tx_t *tx, void *userdata);

/* state.c */
/*
 * The instance's state, read as svcadm.read_restarter_pg / svcadm.result in the trace: 1 and
 * *ret; 0 when the restarter pg or its state is missing or malformed (reported: "is
 * misconfigured"); < 0 on a libscf error (not reported), among them -SCF_ERROR_BACKEND_ACCESS
 * when the pg is missing because configd's store refuses startd's writes.
 */
int state_read(const char *fmri, restarter_instance_state_t *ret);
/* The state without a word or a trace event: RESTARTER_STATE_NONE when it cannot be read. */
restarter_instance_state_t state_peek(const char *fmri);
/* general_ovr/enabled, else general/enabled (composed with the service); absent: false. */
bool state_is_enabled(const char *fmri);

/* deps.c */
/* illumos' has_potential(): a restarter to act and, for an enable, dependencies that can be met. */
bool deps_have_potential(const char *fmri, bool for_disable);
/* Enables the entity and, recursively, what it requires (illumos' enable_fmri_rec). */
void deps_enable_recursive(const char *entity, bool temp);

/* wait.c */
/* -s: waits until each instance is up (enable) or disabled, or reports why it never will be. */
void wait_for_states(char **fmris, bool enable);

#endif
