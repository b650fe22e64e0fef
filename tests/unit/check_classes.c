/* check_classes.c - the build-time table of program names against the lists it
 * was made from: every name's kind and rule bits, found by a plain scan here. */
#define PDK_WANT_KINDS 1
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "policy/policy_int.h"
#include "policy/policy_lists.h"
#include "policy/read_only_table.h"
#include "ck_util.h"

/* What the lists say of a name, scanned list by list: no table involved. */
static bool expect(const char *name, unsigned *ret_kind, unsigned long long *ret_rules)
{
	size_t len = strlen(name);
	unsigned kind = 0;
	unsigned long long rules = 0;
	bool found = false;

	for (size_t i = 0; i < PDK_ARRAY_SIZE(kinds); i++)
		if (pdk_policy_in_list(name, kinds[i].names))
			kind |= kinds[i].kind, found = true;
	for (size_t i = 0; i < PDK_ARRAY_SIZE(shipped); i++)
		if (pdk_policy_in_list(name, shipped[i].programs))
			rules |= 1ull << i, found = true;
	for (size_t i = 0; i < pdk_read_only_table_n; i++) {
		const char *e = pdk_read_only_table[i];
		size_t l = strcspn(e, " ");

		if (l != len || memcmp(e, name, len))
			continue;
		found = true;
		if (!e[l])
			kind |= PDK_PK_RO_SINGLE;
		else
			kind |= PDK_PK_RO_MULTI | (strchr(e + l + 1, ' ') ? PDK_PK_RO_TRIPLE : 0);
	}
	*ret_kind = kind;
	*ret_rules = rules;
	return found;
}

static void check_name(const char *name)
{
	const struct pdk_prog_class *c = pdk_policy_classify(name);
	unsigned kind;
	unsigned long long rules;

	ck_assert_msg(expect(name, &kind, &rules), "%s is on no list", name);
	ck_assert_msg(c != NULL, "%s: not in the table", name);
	ck_assert_uint_eq(c->len, strlen(name));
	ck_assert_msg(!memcmp(c->name, name, c->len), "%s: found %.*s", name, (int)c->len, c->name);
	ck_assert_msg(c->kind == kind, "%s: kind %#x, the lists say %#x", name, c->kind, kind);
	ck_assert_msg(c->rules == rules, "%s: rules %#llx, the lists say %#llx", name, c->rules,
		      rules);
}

START_TEST(test_every_listed_name)
{
	for (size_t i = 0; i < PDK_ARRAY_SIZE(kinds); i++)
		for (const char *const *n = kinds[i].names; *n; n++)
			check_name(*n);
	for (size_t i = 0; i < PDK_ARRAY_SIZE(shipped); i++)
		for (const char *const *n = shipped[i].programs; *n; n++)
			check_name(*n);
	for (size_t i = 0; i < pdk_read_only_table_n; i++) {
		char name[256];
		size_t l = strcspn(pdk_read_only_table[i], " ");

		ck_assert_uint_lt(l, sizeof(name));
		memcpy(name, pdk_read_only_table[i], l);
		name[l] = '\0';
		check_name(name);
	}
}
END_TEST

START_TEST(test_merged_and_unknown)
{
	const struct pdk_prog_class *c, *mkfs = pdk_policy_classify("mkfs");
	const struct pdk_shipped_rule *sr;
	size_t n;

	/* on several lists: the bits are OR'ed */
	ck_assert_ptr_nonnull(c = pdk_policy_classify("env"));
	ck_assert_uint_eq(c->kind & (PDK_PK_WRAPPER | PDK_PK_DECLARE),
			  PDK_PK_WRAPPER | PDK_PK_DECLARE);
	ck_assert_ptr_nonnull(c = pdk_policy_classify("bash"));
	ck_assert_uint_eq(c->kind & (PDK_PK_SHELL | PDK_PK_INTERPRETER),
			  PDK_PK_SHELL | PDK_PK_INTERPRETER);
	ck_assert_ptr_nonnull(c = pdk_policy_classify("docker"));
	ck_assert(c->rules != 0 && (c->kind & PDK_PK_RO_MULTI));
	/* every mkfs.TYPE is mkfs */
	ck_assert_ptr_nonnull(mkfs);
	ck_assert_ptr_eq(pdk_policy_classify("mkfs.ext4"), mkfs);
	ck_assert_ptr_eq(pdk_policy_classify("mkfs."), mkfs);
	/* not a program on any list, nor a part or an entry of one */
	ck_assert_ptr_null(pdk_policy_classify(""));
	ck_assert_ptr_null(pdk_policy_classify("no-such-program"));
	ck_assert_ptr_null(pdk_policy_classify("gi"));
	ck_assert_ptr_null(pdk_policy_classify("gitx"));
	ck_assert_ptr_null(pdk_policy_classify("git status"));
	ck_assert_ptr_null(pdk_policy_classify("mkfs2"));
	/* the library's rules are the ones the rule bits count (its own copy of the list) */
	sr = pdk_policy_shipped_rules(&n);
	ck_assert_uint_eq(n, PDK_ARRAY_SIZE(shipped));
	for (size_t i = 0; i < n; i++)
		ck_assert_str_eq(sr[i].name, shipped[i].name);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("classes");
	TCase *tc = tcase_create("table");

	tcase_add_test(tc, test_every_listed_name);
	tcase_add_test(tc, test_merged_and_unknown);
	suite_add_tcase(s, tc);
	return pdk_ck_run(s);
}
