/*
 * entity.c: services and instances, and the expansion of FMRI abbreviations.
 *
 * Abbreviations are resolved here, never by configd: the pattern is matched with
 * scf_fmri_abbrev_match() against the full lists of services and instances (two calls, the
 * whole arrays at once), so configd stays ignorant of illumos' matching rules.
 */
#include "client-internal.h"
#include "strv.h"

static int simple_write(scf_handle_t *h, const smf_bus_method_t *method, const char *fmri)
{
	client_clear_error(h);
	if (!fmri)
		return client_set_error(
		        h, -SCF_ERROR_INVALID_ARGUMENT, "%s: no FMRI given", method->name);
	return client_call(h, method, NULL, fmri);
}

int scf_service_add(scf_handle_t *h, const char *service_fmri)
{
	return simple_write(h, &smf_method_add_service, service_fmri);
}

int scf_instance_add(scf_handle_t *h, const char *instance_fmri)
{
	return simple_write(h, &smf_method_add_instance, instance_fmri);
}

int scf_entity_delete(scf_handle_t *h, const char *fmri)
{
	return simple_write(h, &smf_method_delete, fmri);
}

int scf_entity_exists(scf_handle_t *h, const char *fmri)
{
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
	int b, r;

	client_clear_error(h);
	if (!fmri)
		return client_set_error(h, -SCF_ERROR_INVALID_ARGUMENT, "%s: no FMRI given",
		        smf_method_exists.name);
	r = client_call(h, &smf_method_exists, &reply, fmri);
	if (r >= 0)
		r = client_read_reply(h, &smf_method_exists, reply, &b);
	return r < 0 ? r : !!b;
}

int scf_service_list(scf_handle_t *h, char ***ret)
{
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
	int r;

	client_clear_error(h);
	r = client_call(h, &smf_method_list_services, &reply);
	if (r < 0)
		return r;
	return client_read_strv(h, &smf_method_list_services, reply, ret);
}

int scf_instance_list(scf_handle_t *h, const char *service_fmri, char ***ret)
{
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
	int r;

	client_clear_error(h);
	r = client_call(h, &smf_method_list_instances, &reply, strempty(service_fmri));
	if (r < 0)
		return r;
	return client_read_strv(h, &smf_method_list_instances, reply, ret);
}

/* "svc:/..." or "/..." without globs: a full FMRI, which names exactly one entity. */
static bool is_full_fmri(const char *pattern)
{
	return (strneq(pattern, "svc:", 4) || pattern[0] == '/') && !strpbrk(pattern, "*?[");
}

static int resolve_full(scf_handle_t *h, const char *pattern, unsigned flags, char ***ret)
{
	_cleanup_strv_free_ char **l = strv_new_empty();
	_cleanup_free_ char *canon = NULL;
	scf_fmri_t f = {};
	bool instance;
	int r;

	if (!l)
		return client_set_error(h, -SCF_ERROR_NO_MEMORY, "out of memory");
	r = scf_fmri_parse(pattern, &f);
	if (r < 0)
		return client_set_error(h, r, "\"%s\" is not a valid FMRI", pattern);
	instance = f.instance != NULL;
	if (f.pg) {
		scf_fmri_clear(&f);
		return client_set_error(h, -SCF_ERROR_INVALID_ARGUMENT,
		        "\"%s\" names a property group, not a service or instance", pattern);
	}
	r = scf_fmri_format(&f, &canon);
	scf_fmri_clear(&f);
	if (r < 0)
		return client_set_error(h, r, "cannot format \"%s\"", pattern);
	r = scf_entity_exists(h, canon);
	if (r < 0)
		return r;
	if (r > 0) {
		if (instance ? (flags & SCF_RESOLVE_INSTANCES) : (flags & SCF_RESOLVE_SERVICES))
			r = strv_extend(&l, canon);
		else if (!instance)
			/* A service named where instances are wanted stands for its instances. */
			return scf_instance_list(h, canon, ret);
		if (r < 0)
			return client_set_error(h, -SCF_ERROR_NO_MEMORY, "out of memory");
	}
	client_clear_error(h);
	*ret = TAKE_PTR(l);
	return 0;
}

/*
 * Appends the candidates that pattern matches.  configd lists each entity once and services and
 * instances never share an FMRI, so there is nothing to deduplicate: a membership test per
 * candidate would make a pattern such as "*" quadratic in the size of the repository.
 */
static int filter_into(
        scf_handle_t *h, char ***out, size_t *n, char **candidates, const char *pattern)
{
	STRV_FOREACH (c, candidates) {
		if (!scf_fmri_abbrev_match(pattern, *c))
			continue;
		if (strv_extend_counted(out, n, *c) < 0)
			return client_set_error(h, -SCF_ERROR_NO_MEMORY, "out of memory");
	}
	return 0;
}

int scf_fmri_resolve(scf_handle_t *h, const char *pattern, unsigned flags, char ***ret)
{
	_cleanup_strv_free_ char **out = NULL, **services = NULL, **instances = NULL;
	size_t n = 0;
	int r;

	client_clear_error(h);
	if (!pattern || !*pattern)
		return client_set_error(h, -SCF_ERROR_INVALID_ARGUMENT, "empty FMRI");
	if (!(flags & (SCF_RESOLVE_INSTANCES | SCF_RESOLVE_SERVICES)))
		flags |= SCF_RESOLVE_INSTANCES | SCF_RESOLVE_SERVICES;
	if (is_full_fmri(pattern))
		return resolve_full(h, pattern, flags, ret);
	out = strv_new_empty();
	if (!out)
		return client_set_error(h, -SCF_ERROR_NO_MEMORY, "out of memory");
	if (flags & SCF_RESOLVE_SERVICES) {
		r = scf_service_list(h, &services);
		if (r >= 0)
			r = filter_into(h, &out, &n, services, pattern);
		if (r < 0)
			return r;
	}
	if (flags & SCF_RESOLVE_INSTANCES) {
		r = scf_instance_list(h, NULL, &instances);
		if (r >= 0)
			r = filter_into(h, &out, &n, instances, pattern);
		if (r < 0)
			return r;
	}
	strv_sort(out);
	client_clear_error(h);
	*ret = TAKE_PTR(out);
	return 0;
}

static int ambiguous(scf_handle_t *h, const char *pattern, char **matches)
{
	_cleanup_free_ char *list = NULL;
	size_t len = 0;

	STRV_FOREACH (m, matches)
		len += strlen(*m) + 1;
	list = malloc(len + 1);
	if (list) {
		char *p = list;

		STRV_FOREACH (m, matches)
			p += sprintf(p, " %s", *m);
	}
	return client_set_error(h, -SCF_ERROR_AMBIGUOUS, "\"%s\" is ambiguous; it matches:%s",
	        pattern, list ? list : " (several)");
}

int scf_fmri_resolve_one(scf_handle_t *h, const char *pattern, unsigned flags, char **ret)
{
	_cleanup_strv_free_ char **matches = NULL;
	size_t n;
	int r;

	r = scf_fmri_resolve(h, pattern, flags, &matches);
	if (r < 0)
		return r;
	n = strv_length(matches);
	if (n == 0)
		return client_set_error(h, -SCF_ERROR_NOT_FOUND, "\"%s\" doesn't match any %s",
		        pattern,
		        (flags & SCF_RESOLVE_SERVICES) && !(flags & SCF_RESOLVE_INSTANCES)
		                ? "services"
		                : !(flags & SCF_RESOLVE_SERVICES) && (flags & SCF_RESOLVE_INSTANCES)
		                ? "instances"
		                : "services or instances");
	if (n > 1)
		return ambiguous(h, pattern, matches);
	*ret = TAKE_PTR(matches[0]);
	return 0;
}
