/*
 * backend-fixture.h: a backend on a fresh private root, for the backend unit tests (new tests
 * use it; the older files open theirs inline).
 */
#ifndef TEST_BACKEND_FIXTURE_H
#define TEST_BACKEND_FIXTURE_H

#include "backend.h"
#include "macro.h"
#include "paths.h"
#include "test-root.h"

/* Makes a root named after name in root (size bytes) with its volatile directory, and opens it. */
static inline backend_t *backend_fixture_open(char *root, size_t size, const char *name)
{
	_cleanup_free_ char *vol = NULL, *msg = NULL;
	backend_t *b = NULL;

	assert_int_equal(test_root_make(root, size, name), 0);
	assert_int_equal(smf_path(root, SMF_REL_VOLATILE_DIR, &vol), 0);
	assert_int_equal(smf_mkdir_p(vol, 0755), 0);
	if (backend_open(root, &b, &msg) < 0)
		print_message("backend_open: %s\n", strna(msg));
	assert_non_null(b);
	return b;
}

static inline void backend_fixture_close(backend_t *b, const char *root)
{
	backend_close(b);
	test_root_remove(root);
}

#endif
