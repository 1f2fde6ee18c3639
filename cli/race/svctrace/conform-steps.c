/*
 * conform-steps.c: an event as the model sees it: the role of whoever recorded it (a command,
 * a thread of svc.startd, svc.configd), its pattern in steps.tsv's words ("configd.write:
 * Batch:instance", "scf.read:restarter"), and the rule of the generated table (conform-table.h,
 * from model/labels.py) that makes it a label, a stutter or the end of what the model covers.
 */
#include <fnmatch.h>
#include <stdio.h>
#include <string.h>

#include "conform.h"
#include "libscf.h"
#include "macro.h"
#include "trace.h"

static const char *const role_names[_ROLE_MAX] = {
        [ROLE_NONE] = "none",
        [ROLE_CMD1] = "cmd1",
        [ROLE_CMD2] = "cmd2",
        [ROLE_GRAPH] = "graph",
        [ROLE_WORKER] = "worker",
        [ROLE_REPO] = "repo",
        [ROLE_DISPATCHER] = "dispatcher",
        [ROLE_CONFIGD] = "configd",
        [ROLE_STARTD] = "startd",
        [ROLE_OTHER] = "other",
};

const char *conform_role_name(role_t role)
{
	return role_names[role];
}

/* What a string names, seen from the instance: "instance", a pg of it, "svc-general", "?". */
static const char *object_of(const inst_t *in, const char *s, char *buf, size_t size)
{
	if (!s)
		return "?";
	if (streq(s, in->fmri))
		return "instance";
	if (in->svc_general && s == in->svc_general)
		return "svc-general";
	if (strneq(s, in->fmri, in->fmri_len) && strneq(s + in->fmri_len, "/:properties/", 13)) {
		snprintf(buf, size, "%s", s + in->fmri_len + 13);
		return buf;
	}
	return "?";
}

/* The role of whoever the event is about: the thread, the command, or the committer. */
static role_t role_of(inst_t *in, const tr_event_t *e)
{
	ctx_t *c = in->c;

	if (c->proc_configd[e->proc])
		return ROLE_CONFIGD;
	if (c->proc_startd[e->proc])
		return c->thread_role[e->thread];
	if (e->pid == in->cmd1)
		return ROLE_CMD1;
	if (in->cmd2 && e->pid == in->cmd2)
		return ROLE_CMD2;
	return ROLE_OTHER;
}

static role_t role_of_pid(inst_t *in, uint32_t pid)
{
	const tr_proc_t *p = trace_find_proc(in->c->t, pid);

	if (pid == in->cmd1)
		return ROLE_CMD1;
	if (in->cmd2 && pid == in->cmd2)
		return ROLE_CMD2;
	if (p && in->c->proc_startd[p - in->c->t->procs])
		return ROLE_STARTD;
	return ROLE_OTHER;
}

/* A configd.write: its committer's role and what the commit wrote of the instance. */
static role_t describe_write(inst_t *in, size_t k, char *pat, size_t size)
{
	ctx_t *c = in->c;
	const trace_t *t = c->t;
	const tr_event_t *w = &t->events[in->ev[k]];
	size_t cm = c->commit_of[in->ev[k]];
	role_t role = role_of_pid(in, (uint32_t)w->arg1);
	const char *first_pg = NULL;
	size_t len;
	char buf[PATTERN_MAX];

	len = (size_t)snprintf(pat, size, "configd.write:%s", strna(w->str));
	if (cm == in->create) {
		snprintf(pat + len, size - len, ":instance");
	} else {
		/* our events of this commit follow the write in our list */
		for (size_t j = k + 1; j < in->n_ev && len < size; j++) {
			const tr_event_t *e = &t->events[in->ev[j]];

			if (c->commit_of[in->ev[j]] != cm || e->event == SMF_TRACE_CONFIGD_WRITE)
				continue;
			if (e->event == SMF_TRACE_CONFIGD_INSTANCE_ADDED)
				continue;
			const char *o = object_of(in, e->str, buf, sizeof(buf));
			if (e->event == SMF_TRACE_CONFIGD_PG_CREATED) {
				len += (size_t)snprintf(pat + len, size - len, ":%s:created", o);
				j++; /* its configd.commit */
			} else
				len += (size_t)snprintf(pat + len, size - len, ":%s%s", o,
				        e->event == SMF_TRACE_CONFIGD_PG_DELETED ? ":deleted" : "");
			if (!first_pg)
				first_pg = e->str;
		}
	}
	/* startd announced it (startd.write of that pg): the announcing thread's role */
	if (role == ROLE_STARTD && first_pg)
		for (size_t a = 0; a < ELEMENTSOF(in->announced); a++)
			if (in->announced[a].pg == first_pg) {
				role = in->announced[a].role;
				in->announced[a].pg = NULL;
				break;
			}
	return role;
}

static void announce(inst_t *in, const tr_event_t *e, role_t role)
{
	size_t free_slot = SIZE_MAX;

	for (size_t a = 0; a < ELEMENTSOF(in->announced); a++) {
		if (in->announced[a].pg == e->str) {
			in->announced[a].role = role;
			return;
		}
		if (!in->announced[a].pg && free_slot == SIZE_MAX)
			free_slot = a;
	}
	if (free_slot != SIZE_MAX)
		in->announced[free_slot].pg = e->str, in->announced[free_slot].role = role;
}

/* The event's role and pattern (steps.tsv's words) and the value a label would carry. */
role_t conform_pattern_of(
        inst_t *in, size_t k, char *pat, size_t size, int *found, int *ok, int *status)
{
	const tr_event_t *e = &in->c->t->events[in->ev[k]];
	role_t role = role_of(in, e);
	char namebuf[24], buf[PATTERN_MAX];
	const char *o, *name = trace_event_name(e->event, namebuf);

	*found = *ok = *status = 0;
	switch (e->event) {
	case SMF_TRACE_CONFIGD_WRITE:
		return describe_write(in, k, pat, size);
	case SMF_TRACE_CONFIGD_NOTIFY_SENT:
		o = object_of(in, e->str, buf, sizeof(buf));
		snprintf(pat, size, "%s:%s>%s", name, o,
		        role_names[role_of_pid(in, (uint32_t)e->arg1)]);
		return role;
	case SMF_TRACE_SCF_READ: {
		unsigned how = SMF_TRACE_READ_HOW(e->arg0);

		o = object_of(in, e->str, buf, sizeof(buf));
		snprintf(pat, size, "%s:%s%s%s%s", name, o,
		        how & SMF_TRACE_READ_COMPOSED ? ":composed" : "",
		        how & SMF_TRACE_READ_SNAPSHOT ? ":snapshot" : "",
		        how & SMF_TRACE_READ_ERROR ? ":error" : "");
		*found = !(how & SMF_TRACE_READ_ERROR) && SMF_TRACE_READ_GENERATION(e->arg0) != 0;
		return role;
	}
	case SMF_TRACE_STARTD_WRITE:
		o = object_of(in, e->str, buf, sizeof(buf));
		snprintf(pat, size, "%s:%s", name, o);
		announce(in, e, role);
		return role;
	case SMF_TRACE_STARTD_NOTIFY_RECEIVED:
	case SMF_TRACE_SCF_NOTIFY_RECEIVED:
	case SMF_TRACE_CONFIGD_INSTANCE_ADDED:
	case SMF_TRACE_CONFIGD_PG_CREATED:
	case SMF_TRACE_CONFIGD_COMMIT:
	case SMF_TRACE_CONFIGD_PG_DELETED:
		snprintf(pat, size, "%s:%s", name, object_of(in, e->str, buf, sizeof(buf)));
		return role;
	case SMF_TRACE_STARTD_METHOD_EXIT: {
		const char *s = strempty(e->str), *sp = strchr(s, ' ');
		size_t n = sp ? (size_t)(sp - s) : strlen(s);

		snprintf(pat, size, "%s:%.*s", name, (int)n, s);
		*ok = sp && streq(sp + 1, "exit 0");
		return role;
	}
	case SMF_TRACE_STARTD_FIRST_SIGHT:
	case SMF_TRACE_STARTD_RESTARTER_ENQUEUE:
	case SMF_TRACE_STARTD_RESTARTER_DEQUEUE:
	case SMF_TRACE_STARTD_STATE_CHANGE:
	case SMF_TRACE_STARTD_METHOD_START:
	case SMF_TRACE_SCF_NOTIFY_INTEREST:
		snprintf(pat, size, "%s:%s", name, strempty(e->str));
		return role;
	case SMF_TRACE_PROC_EXIT:
		*status = e->arg0 > 15 ? 15 : (int)e->arg0;
		snprintf(pat, size, "%s", name);
		return role;
	default:
		snprintf(pat, size, "%s", name);
		return role;
	}
}

/* A pattern's weight: its characters that are not '*' (the more, the more specific). */
static size_t specificity(const char *p)
{
	size_t n = 0;

	for (; *p; p++)
		n += *p != '*';
	return n;
}

/*
 * The rule for (role, pattern): an exact row of that role, else the most specific row whose
 * pattern matches ('*' is any characters: fnmatch), that role's before role '*'.
 */
const conform_rule_t *conform_lookup(role_t role, const char *pat)
{
	const conform_rule_t *best = NULL;
	size_t best_w = 0;
	bool best_role = false;

	for (size_t k = 0; k < ELEMENTSOF(conform_rules); k++) {
		const conform_rule_t *r = &conform_rules[k];
		bool exact_role = streq(r->role, role_names[role]);
		size_t w;

		if (!exact_role && !streq(r->role, "*"))
			continue;
		if (exact_role && streq(r->pattern, pat))
			return r;
		if (fnmatch(r->pattern, pat, 0) != 0)
			continue;
		w = specificity(r->pattern);
		if (!best || w > best_w || (w == best_w && exact_role && !best_role))
			best = r, best_w = w, best_role = exact_role;
	}
	return best;
}

const char *conform_label_keys(int label)
{
	for (size_t k = 0; k < ELEMENTSOF(conform_rules); k++)
		if (conform_rules[k].verdict == CONFORM_LABEL && conform_rules[k].label == label)
			return conform_rules[k].text;
	return NULL;
}
