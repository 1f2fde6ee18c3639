/*
 * schema.c: the structural rules of the service bundle format (see schema.h).
 *
 * One table entry per element.  Content models are written as ranks (schema.h); where the
 * format offers a choice between whole lists ("(service_bundle* | service* | xi:include*)") we
 * accept any mix of them, since XInclude turns an include into a nested bundle next to plain
 * services anyway.
 */
#include <stddef.h>
#include <string.h>

#include "macro.h"
#include "schema.h"

const char *const mf_value_type_names[] = {
        "count",
        "integer",
        "opaque",
        "host",
        "hostname",
        "net_address",
        "net_address_v4",
        "net_address_v6",
        "time",
        "astring",
        "ustring",
        "boolean",
        "fmri",
        "uri",
        NULL,
};

static const char *const bools[] = {"true", "false", NULL};
static const char *const stabilities[] = {
        "Standard",
        "Stable",
        "Evolving",
        "Unstable",
        "External",
        "Obsolete",
        NULL,
};
static const char *const service_types[] = {"service", "restarter", "milestone", NULL};
static const char *const groupings[] = {
        "require_all",
        "require_any",
        "exclude_all",
        "optional_all",
        NULL,
};
static const char *const restart_ons[] = {"error", "restart", "refresh", "none", NULL};
static const char *const method_types[] = {"method", "monitor", NULL};
static const char *const visibilities[] = {"hidden", "readonly", "readwrite", NULL};
static const char *const include_types[] = {"constraints", "values", NULL};
static const char *const targets[] = {"this", "instance", "delegate", "all", NULL};

#define REQ MF_ATTR_REQUIRED
#define REQ_M MF_ATTR_REQUIRED_MANIFEST
#define ONE MF_CHILD_ONE
#define NEED MF_CHILD_REQUIRED
#define END                                                                                        \
	{                                                                                          \
		NULL, 0, NULL, NULL                                                                \
	}
#define CEND                                                                                       \
	{                                                                                          \
		NULL, 0, 0                                                                         \
	}

static const mf_attr_spec_t no_attrs[] = {END};
static const mf_child_spec_t no_children[] = {CEND};

static const mf_attr_spec_t bundle_attrs[] = {
        {"type", REQ, NULL, NULL},
        {"name", REQ, NULL, NULL},
        END,
};
static const mf_child_spec_t bundle_children[] = {
        {"service_bundle", 0, 0},
        {"service", 0, 0},
        CEND,
};

static const mf_attr_spec_t service_attrs[] = {
        {"name", REQ, NULL, NULL},
        {"version", REQ, NULL, NULL},
        {"type", REQ, service_types, NULL},
        END,
};
static const mf_child_spec_t service_children[] = {
        {"create_default_instance", 0, ONE},
        {"single_instance", 1, ONE},
        {"restarter", 2, ONE},
        {"dependency", 3, 0},
        {"dependent", 4, 0},
        {"method_context", 5, ONE},
        {"exec_method", 6, 0},
        {"notification_parameters", 7, 0},
        {"property_group", 8, 0},
        {"instance", 9, 0},
        {"stability", 10, ONE},
        {"template", 11, ONE},
        CEND,
};

static const mf_attr_spec_t instance_attrs[] = {
        {"name", REQ, NULL, NULL},
        {"enabled", REQ_M, bools, NULL},
        END,
};
static const mf_child_spec_t instance_children[] = {
        {"restarter", 0, ONE},
        {"dependency", 1, 0},
        {"dependent", 2, 0},
        {"method_context", 3, ONE},
        {"exec_method", 4, 0},
        {"notification_parameters", 5, 0},
        {"property_group", 6, 0},
        {"template", 7, ONE},
        CEND,
};

static const mf_attr_spec_t enabled_attrs[] = {
        {"enabled", REQ, bools, NULL},
        END,
};

static const mf_child_spec_t restarter_children[] = {
        {"service_fmri", 0, ONE | NEED},
        CEND,
};

static const mf_attr_spec_t value_attrs[] = {
        {"value", REQ, NULL, NULL},
        END,
};

static const mf_attr_spec_t dependency_attrs[] = {
        {"name", REQ, NULL, NULL},
        {"grouping", REQ, groupings, NULL},
        {"restart_on", REQ, restart_ons, NULL},
        {"type", REQ, NULL, NULL},
        {"delete", 0, bools, "false"},
        END,
};
static const mf_child_spec_t dependency_children[] = {
        {"service_fmri", 0, 0},
        {"stability", 1, ONE},
        {"propval", 2, 0},
        {"property", 2, 0},
        CEND,
};

static const mf_attr_spec_t dependent_attrs[] = {
        {"name", REQ, NULL, NULL},
        {"grouping", REQ, groupings, NULL},
        {"restart_on", REQ, restart_ons, NULL},
        {"delete", 0, bools, "false"},
        {"override", 0, bools, "false"},
        END,
};
static const mf_child_spec_t dependent_children[] = {
        {"service_fmri", 0, ONE | NEED},
        {"stability", 1, ONE},
        {"propval", 2, 0},
        {"property", 2, 0},
        CEND,
};

static const mf_attr_spec_t context_attrs[] = {
        {"security_flags", 0, NULL, NULL},
        {"working_directory", 0, NULL, NULL},
        {"project", 0, NULL, NULL},
        {"resource_pool", 0, NULL, NULL},
        END,
};
static const mf_child_spec_t context_children[] = {
        {"method_profile", 0, ONE},
        {"method_credential", 0, ONE},
        {"method_environment", 1, ONE},
        CEND,
};

static const mf_attr_spec_t name_attrs[] = {
        {"name", REQ, NULL, NULL},
        END,
};

static const mf_attr_spec_t credential_attrs[] = {
        {"user", REQ, NULL, NULL},
        {"group", 0, NULL, NULL},
        {"supp_groups", 0, NULL, NULL},
        {"privileges", 0, NULL, NULL},
        {"limit_privileges", 0, NULL, NULL},
        END,
};

static const mf_child_spec_t environment_children[] = {
        {"envvar", 0, NEED},
        CEND,
};

static const mf_attr_spec_t name_value_attrs[] = {
        {"name", REQ, NULL, NULL},
        {"value", REQ, NULL, NULL},
        END,
};

static const mf_attr_spec_t exec_method_attrs[] = {
        {"type", REQ, method_types, NULL},
        {"name", REQ, NULL, NULL},
        {"exec", REQ, NULL, NULL},
        {"timeout_seconds", REQ, NULL, NULL},
        {"delete", 0, bools, "false"},
        END,
};
static const mf_child_spec_t exec_method_children[] = {
        {"method_context", 0, ONE},
        {"stability", 1, ONE},
        {"propval", 2, 0},
        {"property", 2, 0},
        CEND,
};

static const mf_attr_spec_t pg_attrs[] = {
        {"name", REQ, NULL, NULL},
        {"type", REQ_M, NULL, NULL},
        {"delete", 0, bools, "false"},
        END,
};
static const mf_child_spec_t pg_children[] = {
        {"stability", 0, ONE},
        {"propval", 1, 0},
        {"property", 1, 0},
        CEND,
};

static const mf_attr_spec_t propval_attrs[] = {
        {"name", REQ, NULL, NULL},
        {"type", REQ_M, mf_value_type_names, NULL},
        {"value", REQ, NULL, NULL},
        {"override", 0, bools, "false"},
        END,
};

static const mf_attr_spec_t property_attrs[] = {
        {"name", REQ, NULL, NULL},
        {"type", REQ_M, mf_value_type_names, NULL},
        {"override", 0, bools, "false"},
        END,
};
static const mf_child_spec_t property_children[] = {
        {"count_list", 0, ONE},
        {"integer_list", 0, ONE},
        {"opaque_list", 0, ONE},
        {"host_list", 0, ONE},
        {"hostname_list", 0, ONE},
        {"net_address_list", 0, ONE},
        {"net_address_v4_list", 0, ONE},
        {"net_address_v6_list", 0, ONE},
        {"time_list", 0, ONE},
        {"astring_list", 0, ONE},
        {"ustring_list", 0, ONE},
        {"boolean_list", 0, ONE},
        {"fmri_list", 0, ONE},
        {"uri_list", 0, ONE},
        CEND,
};

static const mf_child_spec_t list_children[] = {
        {"value_node", 0, NEED},
        CEND,
};

static const mf_attr_spec_t stability_attrs[] = {
        {"value", REQ, stabilities, NULL},
        END,
};

static const mf_child_spec_t notify_children[] = {
        {"event", 0, ONE | NEED},
        {"type", 1, NEED},
        CEND,
};

static const mf_attr_spec_t notify_type_attrs[] = {
        {"name", REQ, NULL, NULL},
        {"active", 0, bools, "true"},
        END,
};
static const mf_child_spec_t notify_type_children[] = {
        {"parameter", 0, 0},
        {"paramval", 0, 0},
        CEND,
};

static const mf_child_spec_t parameter_children[] = {
        {"value_node", 0, 0},
        CEND,
};

static const mf_child_spec_t template_children[] = {
        {"common_name", 0, ONE | NEED},
        {"description", 1, ONE},
        {"documentation", 2, ONE},
        {"pg_pattern", 3, 0},
        CEND,
};

static const mf_child_spec_t loctext_children[] = {
        {"loctext", 0, NEED},
        CEND,
};

static const mf_attr_spec_t loctext_attrs[] = {
        {"xml:lang", REQ, NULL, NULL},
        END,
};

static const mf_child_spec_t documentation_children[] = {
        {"doc_link", 0, 0},
        {"manpage", 0, 0},
        CEND,
};

static const mf_attr_spec_t doc_link_attrs[] = {
        {"name", REQ, NULL, NULL},
        {"uri", REQ, NULL, NULL},
        END,
};

static const mf_attr_spec_t manpage_attrs[] = {
        {"title", REQ, NULL, NULL},
        {"section", REQ, NULL, NULL},
        {"manpath", 0, NULL, ":default"},
        END,
};

static const mf_attr_spec_t pg_pattern_attrs[] = {
        {"name", 0, NULL, ""},
        {"type", 0, NULL, ""},
        {"required", 0, bools, "false"},
        {"target", 0, targets, "this"},
        END,
};
static const mf_child_spec_t pg_pattern_children[] = {
        {"common_name", 0, ONE},
        {"description", 1, ONE},
        {"prop_pattern", 2, 0},
        CEND,
};

static const mf_attr_spec_t prop_pattern_attrs[] = {
        {"name", REQ, NULL, NULL},
        {"type", 0, mf_value_type_names, NULL},
        {"required", 0, bools, "false"},
        END,
};
static const mf_child_spec_t prop_pattern_children[] = {
        {"common_name", 0, ONE},
        {"description", 1, ONE},
        {"units", 2, ONE},
        {"visibility", 3, ONE},
        {"cardinality", 4, ONE},
        {"internal_separators", 5, ONE},
        {"values", 6, ONE},
        {"constraints", 7, ONE},
        {"choices", 8, ONE},
        CEND,
};

static const mf_attr_spec_t visibility_attrs[] = {
        {"value", REQ, visibilities, NULL},
        END,
};

static const mf_attr_spec_t cardinality_attrs[] = {
        {"min", 0, NULL, "0"},
        {"max", 0, NULL, "18446744073709551615"},
        END,
};

static const mf_child_spec_t values_children[] = {
        {"value", 0, NEED},
        CEND,
};

static const mf_child_spec_t value_children[] = {
        {"common_name", 0, ONE},
        {"description", 1, ONE},
        CEND,
};

static const mf_attr_spec_t range_attrs[] = {
        {"min", REQ, NULL, NULL},
        {"max", REQ, NULL, NULL},
        END,
};

static const mf_child_spec_t constraints_children[] = {
        {"value", 0, 0},
        {"range", 1, 0},
        CEND,
};

static const mf_child_spec_t choices_children[] = {
        {"value", 0, 0},
        {"range", 1, 0},
        {"include_values", 2, 0},
        CEND,
};

static const mf_attr_spec_t include_values_attrs[] = {
        {"type", REQ, include_types, NULL},
        END,
};

#define LIST(n)                                                                                    \
	{                                                                                          \
		n, no_attrs, list_children, false                                                  \
	}

static const mf_elem_spec_t elements[] = {
        {"service_bundle", bundle_attrs, bundle_children, false},
        {"service", service_attrs, service_children, false},
        {"instance", instance_attrs, instance_children, false},
        {"create_default_instance", enabled_attrs, no_children, false},
        {"single_instance", no_attrs, no_children, false},
        {"restarter", no_attrs, restarter_children, false},
        {"service_fmri", value_attrs, no_children, false},
        {"dependency", dependency_attrs, dependency_children, false},
        {"dependent", dependent_attrs, dependent_children, false},
        {"method_context", context_attrs, context_children, false},
        {"method_profile", name_attrs, no_children, false},
        {"method_credential", credential_attrs, no_children, false},
        {"method_environment", no_attrs, environment_children, false},
        {"envvar", name_value_attrs, no_children, false},
        {"exec_method", exec_method_attrs, exec_method_children, false},
        {"property_group", pg_attrs, pg_children, false},
        {"propval", propval_attrs, no_children, false},
        {"property", property_attrs, property_children, false},
        LIST("count_list"),
        LIST("integer_list"),
        LIST("opaque_list"),
        LIST("host_list"),
        LIST("hostname_list"),
        LIST("net_address_list"),
        LIST("net_address_v4_list"),
        LIST("net_address_v6_list"),
        LIST("time_list"),
        LIST("astring_list"),
        LIST("ustring_list"),
        LIST("boolean_list"),
        LIST("fmri_list"),
        LIST("uri_list"),
        {"value_node", value_attrs, no_children, false},
        {"stability", stability_attrs, no_children, false},
        {"notification_parameters", no_attrs, notify_children, false},
        {"event", value_attrs, no_children, false},
        {"type", notify_type_attrs, notify_type_children, false},
        {"parameter", name_attrs, parameter_children, false},
        {"paramval", name_value_attrs, no_children, false},
        {"template", no_attrs, template_children, false},
        {"common_name", no_attrs, loctext_children, false},
        {"description", no_attrs, loctext_children, false},
        {"units", no_attrs, loctext_children, false},
        {"loctext", loctext_attrs, no_children, true},
        {"documentation", no_attrs, documentation_children, false},
        {"doc_link", doc_link_attrs, no_children, false},
        {"manpage", manpage_attrs, no_children, false},
        {"pg_pattern", pg_pattern_attrs, pg_pattern_children, false},
        {"prop_pattern", prop_pattern_attrs, prop_pattern_children, false},
        {"visibility", visibility_attrs, no_children, false},
        {"cardinality", cardinality_attrs, no_children, false},
        {"internal_separators", no_attrs, no_children, true},
        {"values", no_attrs, values_children, false},
        {"value", name_attrs, value_children, false},
        {"constraints", no_attrs, constraints_children, false},
        {"range", range_attrs, no_children, false},
        {"choices", no_attrs, choices_children, false},
        {"include_values", include_values_attrs, no_children, false},
};

const mf_elem_spec_t *mf_schema_element(const char *name)
{
	for (size_t i = 0; i < ELEMENTSOF(elements); i++)
		if (streq(elements[i].name, name))
			return &elements[i];
	return NULL;
}

const mf_attr_spec_t *mf_schema_attr(const mf_elem_spec_t *e, const char *name)
{
	for (const mf_attr_spec_t *a = e->attrs; a->name; a++)
		if (streq(a->name, name))
			return a;
	return NULL;
}

const mf_child_spec_t *mf_schema_child(const mf_elem_spec_t *e, const char *name)
{
	for (const mf_child_spec_t *c = e->children; c->name; c++)
		if (streq(c->name, name))
			return c;
	return NULL;
}
