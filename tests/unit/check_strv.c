/* check_strv.c - string vectors: NULL-terminated as they grow, ownership of
 * what is appended, and a free that leaves NULL behind. */
#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ck_util.h"
#include "core/strv.h"
#include "failalloc.h"

START_TEST(test_append_keeps_null_terminated)
{
	char **v = NULL;
	size_t n = 0;
	char name[16];

	for (int i = 0; i < 100; i++) {
		snprintf(name, sizeof(name), "s%d", i);
		ck_assert_int_eq(pdk_strv_append(&v, &n, strdup(name)), 0);
		ck_assert_uint_eq(n, (size_t)i + 1);
		ck_assert_ptr_null(v[n]);
	}
	ck_assert_str_eq(v[0], "s0");
	ck_assert_str_eq(v[99], "s99");
	ck_assert(pdk_strv_contains(v, n, "s42"));
	ck_assert(!pdk_strv_contains(v, n, "s100"));
	ck_assert(!pdk_strv_contains(v, 42, "s42"));
	pdk_strv_freep(&v);
	ck_assert_ptr_null(v);
}
END_TEST

/* A NULL string (a failed strdup) is out of memory, and the vector is as it was. */
START_TEST(test_null_string_is_enomem)
{
	struct pdk_strv sv = {0};

	ck_assert_int_eq(pdk_strv_take(&sv, NULL), -ENOMEM);
	ck_assert_ptr_null(sv.v);
	ck_assert_uint_eq(sv.n, 0);
	ck_assert_int_eq(pdk_strv_push(&sv, "a"), 0);
	ck_assert_int_eq(pdk_strv_take(&sv, NULL), -ENOMEM);
	ck_assert_uint_eq(sv.n, 1);
	ck_assert_str_eq(sv.v[0], "a");
	ck_assert_ptr_null(sv.v[1]);
	pdk_strv_release(&sv);
}
END_TEST

/* push copies, take takes: freeing the caller's copy after push is fine. */
START_TEST(test_push_copies_take_takes)
{
	struct pdk_strv sv = {0};
	char *mine = strdup("mine"), *given = strdup("given");

	ck_assert_int_eq(pdk_strv_push(&sv, mine), 0);
	ck_assert_ptr_ne(sv.v[0], mine);
	free(mine);
	ck_assert_int_eq(pdk_strv_take(&sv, given), 0);
	ck_assert_ptr_eq(sv.v[1], given);
	ck_assert_str_eq(sv.v[0], "mine");
	pdk_strv_release(&sv);
	ck_assert_ptr_null(sv.v);
	ck_assert_uint_eq(sv.n, 0);
	/* released twice, or never filled: nothing to free */
	pdk_strv_release(&sv);
	/* the vector handed on (v stolen, n left): released, nothing is freed */
	ck_assert_int_eq(pdk_strv_push(&sv, "handed on"), 0);
	char **v = sv.v;
	sv.v = NULL;
	pdk_strv_release(&sv);
	ck_assert_uint_eq(sv.n, 0);
	ck_assert_str_eq(v[0], "handed on");
	pdk_strv_freep(&v);
}
END_TEST

/* The free leaves NULL, so freeing again (a cleanup after an early free) is
 * harmless: the double free that a free keeping the pointer allowed. */
START_TEST(test_freep_leaves_null)
{
	_cleanup_strv_ char **v = NULL;
	size_t n = 0;

	pdk_strv_freep(&v);
	ck_assert_int_eq(pdk_strv_append(&v, &n, strdup("x")), 0);
	pdk_strv_freep(&v);
	ck_assert_ptr_null(v);
	/* the cleanup frees v again at the end of the scope */
}
END_TEST

/* Out of memory at each allocation of a push: -ENOMEM, and the vector is as
 * it was (NULL-terminated, nothing lost, nothing half-added). */
START_TEST(test_out_of_memory)
{
	struct pdk_strv sv = {0};

	if (!pdk_failalloc_works())
		return;
	for (int i = 0; i < 3; i++)
		ck_assert_int_eq(pdk_strv_push(&sv, "kept"), 0);
	for (unsigned long nth = 1; nth <= 2; nth++) {
		pdk_failalloc_arm(nth);
		int r = pdk_strv_push(&sv, "lost");
		ck_assert(pdk_failalloc_disarm());
		ck_assert_int_eq(r, -ENOMEM);
		ck_assert_uint_eq(sv.n, 3);
		ck_assert_ptr_null(sv.v[3]);
		ck_assert_str_eq(sv.v[2], "kept");
	}
	char *s = strdup("taken");
	pdk_failalloc_arm(1);
	ck_assert_int_eq(pdk_strv_take(&sv, s), -ENOMEM); /* s freed */
	ck_assert(pdk_failalloc_disarm());
	ck_assert_uint_eq(sv.n, 3);
	pdk_strv_release(&sv);
}
END_TEST

static Suite *strv_suite(void)
{
	Suite *s = suite_create("strv");
	TCase *t = tcase_create("strv");

	tcase_add_test(t, test_append_keeps_null_terminated);
	tcase_add_test(t, test_null_string_is_enomem);
	tcase_add_test(t, test_push_copies_take_takes);
	tcase_add_test(t, test_freep_leaves_null);
	tcase_add_test(t, test_out_of_memory);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	return pdk_ck_run(strv_suite());
}
