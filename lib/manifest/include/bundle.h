/*
 * bundle.h: the in-memory model of a service bundle (a manifest or a profile), as the manifest
 * reader builds it and as import, apply and export consume it.
 *
 * The model follows the XML closely, one struct per element that carries meaning, so that the
 * importer can map it onto the repository the way illumos' svccfg does (docs/manifests.md says
 * how each element maps).  Everything the reader stores has been validated: names are legal,
 * values parse for their type and are kept in their canonical string form (as
 * scf_value_normalize() returns it), enumerated attributes hold one of their values.  The one
 * exception is a profile's property without a type (illumos lets a profile omit it and takes
 * the type from the repository at apply time): its type is SCF_TYPE_INVALID and its values are
 * kept as written.
 *
 * Arrays are (pointer, count) pairs owned by their parent; strings are owned by their struct.
 * Every struct records the line of its element, so a later stage (the importer) can report
 * "FILE:LINE: ..." too.  One mf_bundle_free() releases the whole tree.
 */
#ifndef SMF_MANIFEST_BUNDLE_H
#define SMF_MANIFEST_BUNDLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "libscf.h"
#include "macro.h"

/*
 * The DOCTYPE's system identifier every bundle carries (the reader checks it, the writer writes
 * it).  It names illumos' DTD; it is compared, never opened.
 */
#define MF_DTD_PATH "/usr/share/lib/xml/dtd/service_bundle.dtd.1"

typedef enum mf_bundle_type {
	MF_BUNDLE_MANIFEST = 1,
	MF_BUNDLE_PROFILE,
	MF_BUNDLE_ARCHIVE,
} mf_bundle_type_t;

typedef enum mf_service_type {
	MF_SERVICE_SERVICE = 1,
	MF_SERVICE_RESTARTER,
	MF_SERVICE_MILESTONE,
} mf_service_type_t;

/* <propval> (one value) or <property> (a typed value list, possibly empty). */
typedef struct mf_property {
	char *name;
	scf_type_t type; /* SCF_TYPE_INVALID: a profile left it to the repository */
	char **values;   /* strv, canonical form; NULL for an empty <property> */
	bool override;
	bool is_list; /* written as <property>, not <propval> */
	unsigned line;
} mf_property_t;

/* Properties and the optional <stability> shared by every pg-like element. */
typedef struct mf_props {
	mf_property_t **v;
	size_t n;
	char *stability; /* <stability value=...> inside the pg, or NULL */
} mf_props_t;

typedef struct mf_pg {
	char *name;
	char *type; /* NULL only in a profile */
	bool delete;
	mf_props_t props;
	unsigned line;
} mf_pg_t;

typedef struct mf_dependency {
	char *name;
	char *grouping;   /* require_all | require_any | exclude_all | optional_all */
	char *restart_on; /* error | restart | refresh | none */
	char *type;       /* "service", "path", ... (free text in the format) */
	bool delete;
	char **entities; /* strv of the <service_fmri> values, at least one */
	mf_props_t props;
	unsigned line;
} mf_dependency_t;

/* A dependency that this entity puts on another one (written into the target on import). */
typedef struct mf_dependent {
	char *name;
	char *grouping;
	char *restart_on;
	bool delete;
	bool override;
	char *target; /* the one <service_fmri> value */
	mf_props_t props;
	unsigned line;
} mf_dependent_t;

typedef struct mf_method_context {
	char *working_directory;
	char *project;
	char *resource_pool;
	char *security_flags;
	/* At most one of profile and credential (the format allows one or the other). */
	char *profile; /* <method_profile name=...> */
	bool has_credential;
	char *user;
	char *group;
	char *supp_groups;
	char *privileges;
	char *limit_privileges;
	bool has_environment;
	char **environment; /* strv of "NAME=value", in document order */
	unsigned line;
} mf_method_context_t;

typedef struct mf_exec_method {
	char *name;
	char *type; /* method | monitor */
	char *exec;
	uint64_t timeout_seconds; /* "-1" (inetd's "no timeout") is stored as UINT64_MAX */
	bool delete;
	mf_method_context_t *context;
	mf_props_t props;
	unsigned line;
} mf_exec_method_t;

typedef struct mf_notify_type {
	char *name; /* a transport, e.g. "smtp" or "snmp" */
	bool active;
	/* <paramval> and <parameter> alike: a name and its values */
	char **param_names;   /* strv */
	char ***param_values; /* one strv per name */
	size_t n_params;
	unsigned line;
} mf_notify_type_t;

typedef struct mf_notify_params {
	char *event; /* e.g. "to-maintenance", "problem-diagnosed" */
	mf_notify_type_t **types;
	size_t n_types;
	unsigned line;
} mf_notify_params_t;

/* Localized text: <loctext xml:lang=...>. */
typedef struct mf_loctext {
	char *lang;
	char *text; /* leading and trailing white space stripped */
} mf_loctext_t;

typedef struct mf_loctexts {
	mf_loctext_t *v;
	size_t n;
} mf_loctexts_t;

typedef struct mf_manpage {
	char *title;
	char *section;
	char *manpath; /* ":default" when not given */
} mf_manpage_t;

typedef struct mf_doc_link {
	char *name;
	char *uri;
} mf_doc_link_t;

typedef struct mf_prop_pattern {
	char *name;
	scf_type_t type; /* SCF_TYPE_INVALID when not given */
	bool required;
	mf_loctexts_t common_name;
	mf_loctexts_t description;
	unsigned line;
} mf_prop_pattern_t;

typedef struct mf_pg_pattern {
	char *name;   /* "" when not given */
	char *type;   /* "" when not given */
	char *target; /* this | instance | delegate | all */
	bool required;
	mf_loctexts_t common_name;
	mf_loctexts_t description;
	mf_prop_pattern_t **props;
	size_t n_props;
	unsigned line;
} mf_pg_pattern_t;

/*
 * <template>: kept as metadata (names, descriptions, documentation and the pg/property
 * patterns' identities); value constraints inside prop_pattern are checked for structure only.
 */
typedef struct mf_template {
	mf_loctexts_t common_name;
	mf_loctexts_t description;
	mf_manpage_t *manpages;
	size_t n_manpages;
	mf_doc_link_t *doc_links;
	size_t n_doc_links;
	mf_pg_pattern_t **pg_patterns;
	size_t n_pg_patterns;
	unsigned line;
} mf_template_t;

/* What services and instances have in common. */
typedef struct mf_entity {
	char *name;
	char *restarter; /* <restarter><service_fmri value=...>, or NULL */
	mf_dependency_t **dependencies;
	size_t n_dependencies;
	mf_dependent_t **dependents;
	size_t n_dependents;
	mf_method_context_t *context;
	mf_exec_method_t **methods;
	size_t n_methods;
	mf_notify_params_t **notify;
	size_t n_notify;
	mf_pg_t **pgs;
	size_t n_pgs;
	mf_template_t *template;
	unsigned line;
} mf_entity_t;

typedef struct mf_instance {
	mf_entity_t e;
	bool enabled;
	/* A profile may leave enabled out: then it does not change general/enabled. */
	bool enabled_set;
	/* Created by <create_default_instance>, not by an <instance> element. */
	bool implicit;
} mf_instance_t;

typedef struct mf_service {
	mf_entity_t e;
	char *version;
	mf_service_type_t type;
	bool single_instance;
	char *stability; /* <stability value=...> of the service, or NULL */
	/* The implicit "default" instance of <create_default_instance> comes first. */
	mf_instance_t **instances;
	size_t n_instances;
} mf_service_t;

typedef struct mf_bundle {
	char *name;
	mf_bundle_type_t type;
	char *file; /* as given to the reader */
	/* Services of nested bundles (what XInclude brings in) are flattened in here. */
	mf_service_t **services;
	size_t n_services;
} mf_bundle_t;

void mf_bundle_free(mf_bundle_t *b);
/* Frees one method context (NULL is fine), for builders that drop one before it is linked. */
void mf_method_context_free(mf_method_context_t *c);
static inline void mf_bundle_freep(mf_bundle_t **b)
{
	if (*b)
		mf_bundle_free(*b);
}
#define _cleanup_bundle_ __attribute__((cleanup(mf_bundle_freep)))

/*
 * Attribute values of the enums above ("manifest", "restarter", ...): NULL if out of range, and
 * back, 0 if s (which may be NULL) is none of them.
 */
const char *mf_bundle_type_to_string(mf_bundle_type_t t);
mf_bundle_type_t mf_bundle_type_from_string(const char *s);
const char *mf_service_type_to_string(mf_service_type_t t);
mf_service_type_t mf_service_type_from_string(const char *s);

/* Look-ups by name; NULL when absent. */
mf_service_t *mf_bundle_find_service(const mf_bundle_t *b, const char *name);
mf_instance_t *mf_service_find_instance(const mf_service_t *s, const char *name);
mf_pg_t *mf_entity_find_pg(const mf_entity_t *e, const char *name);
mf_property_t *mf_props_find(const mf_props_t *p, const char *name);

/*
 * The pg names templates become, as illumos' svccfg names them (svccfg_xml.c), so that a
 * libscf or svcprop script finds them where it would on illumos.  A <pg_pattern> becomes
 * tm_pgpat_ (neither name nor type), tm_pgpatn_NAME (a name only), tm_pgpatt_TYPE (a type
 * only) or tm_pgpatnt_NAME (both: the type is not in the name, so two patterns of one name
 * clash); a <prop_pattern> P of it, tm_proppat_UNIQUE_P where UNIQUE is its pg_pattern's pg
 * name after "tm_pgpat" ("nt_NAME"...).  Each returns 0, -ENOMEM, or -ENAMETOOLONG with *ret
 * still set (for the message) when the name is longer than a pg name may be; *over then
 * says by how many bytes.
 */
#define MF_PG_PATTERN_PG_BASE "tm_pgpat"
int mf_pg_pattern_pg_name(const mf_pg_pattern_t *p, char **ret, size_t *over);
int mf_prop_pattern_pg_name(const char *pgpat_pg, const char *prop, char **ret, size_t *over);

/*
 * The model's arrays store no capacity: they only ever grow one element at a time from empty
 * (NULL, 0), through MF_ARRAY_GROW() or mf_array_push(), so the capacity GREEDY_REALLOC() gave
 * them is a function of their length, mf_array_capacity(n).  Nothing shrinks them.
 */
size_t mf_array_capacity(size_t n);

/* Makes room for element n of the array v (n elements so far); 0 or -ENOMEM. */
#define MF_ARRAY_GROW(v, n)                                                                        \
	({                                                                                         \
		size_t _cap_ = mf_array_capacity(n);                                               \
		GREEDY_REALLOC(v, _cap_, (n) + 1);                                                 \
	})

/* Appends p to the pointer array (*v, *n); 0 or -ENOMEM (then p is not taken). */
int mf_array_push(void *v, size_t *n, void *p);

#endif
