/*
 * schema.h: the structural rules of the service bundle format, as data.
 *
 * Written in this project from the format's facts (which element may contain which, in what
 * order, how often; which attributes are required or allowed and which values an enumerated
 * attribute takes).  The reader checks every element of a document against these rules before
 * it builds the model, so the builder may rely on them.
 */
#ifndef SMF_MANIFEST_SCHEMA_H
#define SMF_MANIFEST_SCHEMA_H

#include <stdbool.h>

enum {
	MF_ATTR_REQUIRED = 1 << 0,
	/* Required in a manifest or archive; a profile may leave it out. */
	MF_ATTR_REQUIRED_MANIFEST = 1 << 1,
};

typedef struct mf_attr_spec {
	const char *name; /* qualified: "xml:lang" */
	unsigned flags;
	const char *const *values; /* NULL-terminated enumeration, or NULL for free text */
	const char *dflt;          /* value when absent, or NULL */
} mf_attr_spec_t;

enum {
	/* At most one element of this rank (the rank is a choice group, e.g. "(a | b)?"). */
	MF_CHILD_ONE = 1 << 0,
	/* At least one element of this rank. */
	MF_CHILD_REQUIRED = 1 << 1,
};

/*
 * A content model "(a?, b*, (c | d)*)" is a sequence of ranks: children must appear in
 * non-decreasing rank order; elements of one rank are alternatives of one group.
 */
typedef struct mf_child_spec {
	const char *name;
	unsigned rank;
	unsigned flags;
} mf_child_spec_t;

typedef struct mf_elem_spec {
	const char *name;
	const mf_attr_spec_t *attrs;     /* terminated by a NULL name */
	const mf_child_spec_t *children; /* terminated by a NULL name */
	bool text;                       /* character data allowed */
} mf_elem_spec_t;

/* The rules of an element, or NULL if the format has no element of that name. */
const mf_elem_spec_t *mf_schema_element(const char *name);

const mf_attr_spec_t *mf_schema_attr(const mf_elem_spec_t *e, const char *name);
const mf_child_spec_t *mf_schema_child(const mf_elem_spec_t *e, const char *name);

/* The 14 value type names, NULL-terminated, in the order of their <TYPE_list> elements. */
extern const char *const mf_value_type_names[];

#endif
