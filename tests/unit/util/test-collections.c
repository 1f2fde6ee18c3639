/* Unit tests of the shared containers: hashmap.c, GREEDY_REALLOC (macro.h), fifo.h, hash.h. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "fifo.h"
#include "hash.h"
#include "hashmap.h"
#include "macro.h"

static void test_hash_known_values(void **state)
{
	/* FNV-1a 64 of "" and "a", as published with the algorithm. */
	assert_true(smf_hash_str("") == UINT64_C(0xcbf29ce484222325));
	assert_true(smf_hash_str("a") == UINT64_C(0xaf63dc4c8601ec8c));
	assert_true(smf_hash_bytes(SMF_HASH_INIT, "ab", 2) == smf_hash_str("ab"));
	assert_true(smf_hash_str_continue(smf_hash_str("a"), "b") == smf_hash_str("ab"));
}

static void test_hashmap_put_get_remove(void **state)
{
	_cleanup_(hashmap_freep) hashmap_t *h = hashmap_new();
	int one = 1, two = 2;

	assert_non_null(h);
	assert_null(hashmap_get(h, "svc:/a:i"));
	assert_int_equal(hashmap_put(h, "svc:/a:i", &one), 0);
	assert_int_equal(hashmap_put(h, "svc:/b:i", &two), 0);
	assert_ptr_equal(hashmap_get(h, "svc:/a:i"), &one);
	assert_int_equal(hashmap_size(h), 2);
	/* A put of an existing key replaces the value and keeps the count. */
	assert_int_equal(hashmap_put(h, "svc:/a:i", &two), 0);
	assert_ptr_equal(hashmap_get(h, "svc:/a:i"), &two);
	assert_int_equal(hashmap_size(h), 2);
	assert_ptr_equal(hashmap_remove(h, "svc:/a:i"), &two);
	assert_null(hashmap_remove(h, "svc:/a:i"));
	assert_null(hashmap_get(h, "svc:/a:i"));
	assert_int_equal(hashmap_size(h), 1);
}

/* Keys are copied, and a stored key stays where it is while the table grows. */
static void test_hashmap_keys_stable_across_growth(void **state)
{
	_cleanup_(hashmap_freep) hashmap_t *h = hashmap_new();
	char key[32];
	const char *first;

	snprintf(key, sizeof(key), "k0");
	assert_int_equal(hashmap_put(h, key, (void *)1), 0);
	first = hashmap_key(h, "k0");
	assert_non_null(first);
	assert_ptr_not_equal(first, key);
	for (uintptr_t i = 1; i < 5000; i++) {
		snprintf(key, sizeof(key), "k%ju", (uintmax_t)i);
		assert_int_equal(hashmap_put(h, key, (void *)(i + 1)), 0);
	}
	assert_ptr_equal(hashmap_key(h, "k0"), first);
	for (uintptr_t i = 0; i < 5000; i++) {
		snprintf(key, sizeof(key), "k%ju", (uintmax_t)i);
		assert_ptr_equal(hashmap_get(h, key), (void *)(i + 1));
	}
	assert_null(hashmap_key(h, "k5000"));
}

static void test_hashmap_iterates_each_once(void **state)
{
	_cleanup_(hashmap_freep) hashmap_t *h = hashmap_new();
	unsigned seen[300] = {};
	size_t st = 0, n = 0;
	const char *key;
	void *v;

	for (uintptr_t i = 0; i < 300; i++) {
		char k[32];

		snprintf(k, sizeof(k), "%ju", (uintmax_t)i);
		assert_int_equal(hashmap_put(h, k, (void *)(i + 1)), 0);
	}
	while ((v = hashmap_next(h, &st, &key))) {
		uintptr_t i = (uintptr_t)v - 1;
		char k[32];

		snprintf(k, sizeof(k), "%ju", (uintmax_t)i);
		assert_string_equal(key, k);
		seen[i]++;
		n++;
	}
	assert_int_equal(n, 300);
	for (size_t i = 0; i < 300; i++)
		assert_int_equal(seen[i], 1);
	/* At the end it stays at the end. */
	assert_null(hashmap_next(h, &st, NULL));
}

static void test_greedy_realloc(void **state)
{
	_cleanup_free_ int *v = NULL;
	size_t cap = 0;

	assert_int_equal(GREEDY_REALLOC(v, cap, 1), 0);
	assert_non_null(v);
	assert_int_equal(cap, 8);
	for (int i = 0; i < 1000; i++) {
		size_t before = cap;

		assert_int_equal(GREEDY_REALLOC(v, cap, (size_t)i + 1), 0);
		assert_true(cap >= (size_t)i + 1);
		/* It grows only when it must, and then at least doubles. */
		assert_true(cap == before || cap >= 2 * before);
		v[i] = i;
	}
	for (int i = 0; i < 1000; i++)
		assert_int_equal(v[i], i);
	/* An impossible size fails and leaves the array as it was. */
	{
		int *old = v;
		size_t old_cap = cap;

		assert_int_equal(GREEDY_REALLOC(v, cap, SIZE_MAX / 2), -ENOMEM);
		assert_ptr_equal(v, old);
		assert_int_equal(cap, old_cap);
	}
}

typedef struct item {
	struct item *next;
	int n;
} item_t;

static void test_fifo_order(void **state)
{
	item_t items[4] = {{.n = 0}, {.n = 1}, {.n = 2}, {.n = 3}};
	item_t *head = NULL, *tail = NULL, *e;

	assert_null(FIFO_POP(head, tail));
	FIFO_PUSH(head, tail, &items[0]);
	FIFO_PUSH(head, tail, &items[1]);
	assert_int_equal(FIFO_POP(head, tail)->n, 0);
	FIFO_PUSH(head, tail, &items[2]);
	FIFO_PUSH(head, tail, &items[3]);
	for (int k = 1; k < 4; k++) {
		e = FIFO_POP(head, tail);
		assert_int_equal(e->n, k);
		assert_null(e->next);
	}
	assert_null(head);
	assert_null(tail);
	assert_null(FIFO_POP(head, tail));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_hash_known_values),
	        cmocka_unit_test(test_hashmap_put_get_remove),
	        cmocka_unit_test(test_hashmap_keys_stable_across_growth),
	        cmocka_unit_test(test_hashmap_iterates_each_once),
	        cmocka_unit_test(test_greedy_realloc),
	        cmocka_unit_test(test_fifo_order),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
