/* check_secrets.c - the list of secrets a run keeps unread: what it holds in a home and a
 * project, its exceptions, denyRead/allowRead, --read, and the hint for a refused open. */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ck_util.h"
#include "confine/refusal.h"
#include "confine/secrets.h"
#include "core/strv.h"

static char top[256], base[300];

static void put(const char *rel, bool dir)
{
	char p[512];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", base, rel);
	if (dir) {
		ck_assert_int_eq(mkdir(p, 0700), 0);
		return;
	}
	ck_assert_ptr_nonnull(f = fopen(p, "w"));
	fputs("x\n", f);
	fclose(f);
}

/* A home and a project under a directory whose name glob would read as a pattern. */
static void setup(void)
{
	char tmpl[] = "/tmp/pdk-ck-secrets-XXXXXX", *real;

	ck_assert_ptr_nonnull(mkdtemp(tmpl));
	ck_assert_ptr_nonnull(real = realpath(tmpl, NULL));
	snprintf(top, sizeof(top), "%s", real);
	snprintf(base, sizeof(base), "%s/odd[1]", real);
	free(real);
	ck_assert_int_eq(mkdir(base, 0700), 0);
	put("home", true);
	put("home/.ssh", true);
	put("home/.ssh/id_ed25519", false);
	put("home/.ssh/id_ed25519.pub", false);
	put("home/.ssh/known_hosts", false);
	put("home/.aws", true);
	put("home/.aws/credentials", false);
	put("home/.bash_history", false);
	put("home/.gitconfig", false);
	put("proj", true);
	put("proj/.env", false);
	put("proj/.env.local", false);
	put("proj/.env.example", false);
	put("proj/key.secret", false);
}

static void teardown(void)
{
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", top);
	ck_assert_int_eq(system(cmd), 0);
}

static char *at(const char *rel)
{
	static char p[4][512];
	static int i;

	i = (i + 1) % 4;
	snprintf(p[i], sizeof(p[i]), "%s/%s", base, rel);
	return p[i];
}

static int build(struct pdk_secrets *s, const struct pdk_strv *deny, const struct pdk_strv *allow,
		 const char *const *reads, size_t n_reads, char *why, size_t why_len)
{
	char *roots[] = {at("proj"), NULL};

	return pdk_secrets_build(s, at("home"), roots, 1, at("proj"), deny, allow, reads, n_reads,
				 why, why_len);
}

static bool hidden(const struct pdk_secrets *s, const char *rel)
{
	return pdk_strv_contains(s->hide, s->n_hide, at(rel));
}

START_TEST(templates)
{
	ck_assert(pdk_secrets_env_template("example", 7));
	ck_assert(pdk_secrets_env_template("defaults", 8));
	ck_assert(!pdk_secrets_env_template("local", 5));
	ck_assert(!pdk_secrets_env_template("examples", 8));
}
END_TEST

START_TEST(default_list)
{
	struct pdk_secrets s = {0};
	char why[300];

	ck_assert_int_eq(build(&s, NULL, NULL, NULL, 0, why, sizeof(why)), 0);
	/* ~/.ssh is split around the work files; the rest is held whole. */
	ck_assert(hidden(&s, "home/.ssh/id_ed25519"));
	ck_assert(!hidden(&s, "home/.ssh"));
	ck_assert(!hidden(&s, "home/.ssh/known_hosts"));
	ck_assert(!hidden(&s, "home/.ssh/id_ed25519.pub"));
	ck_assert(hidden(&s, "home/.aws"));
	ck_assert(!hidden(&s, "home/.aws/credentials")); /* under .aws, held with it */
	ck_assert(hidden(&s, "home/.bash_history"));
	ck_assert(hidden(&s, "proj/.env"));
	ck_assert(hidden(&s, "proj/.env.local"));
	ck_assert(!hidden(&s, "proj/.env.example"));
	ck_assert(!hidden(&s, "home/.gitconfig"));
	ck_assert(pdk_secrets_denied(&s, at("home/.aws/credentials")));
	ck_assert(pdk_secrets_denied(&s, at("home/.ssh/id_ed25519")));
	ck_assert(!pdk_secrets_denied(&s, at("home/.ssh/known_hosts")));
	ck_assert(!pdk_secrets_denied(&s, at("proj/.env.example")));
	ck_assert(!pdk_secrets_denied(&s, at("proj/key.secret")));
	ck_assert(!pdk_secrets_denied(&s, "relative/.env"));
	pdk_secrets_release(&s);
}
END_TEST

START_TEST(configured)
{
	struct pdk_secrets s = {0};
	struct pdk_strv deny = {0}, allow = {0};
	char why[300];

	char pat[600];

	/* Configured entries are patterns: the directory's brackets written escaped. */
	snprintf(pat, sizeof(pat), "%s/odd\\[1\\]/home/.aws", top);
	ck_assert_int_eq(pdk_strv_push(&deny, "*.secret"), 0);
	ck_assert_int_eq(pdk_strv_push(&allow, pat), 0);
	ck_assert_int_eq(build(&s, &deny, &allow, NULL, 0, why, sizeof(why)), 0);
	ck_assert(hidden(&s, "proj/key.secret"));
	ck_assert(!hidden(&s, "home/.aws"));
	ck_assert(!pdk_secrets_denied(&s, at("home/.aws/credentials")));
	ck_assert(pdk_secrets_denied(&s, at("proj/key.secret")));
	pdk_secrets_release(&s);
	pdk_strv_release(&deny);
	pdk_strv_release(&allow);
}
END_TEST

START_TEST(reads)
{
	struct pdk_secrets s = {0};
	char *env = strdup(at("proj/.env")), *example = strdup(at("proj/.env.example"));
	const char *ok[] = {env}, *bad[] = {example};
	char why[300];

	ck_assert_int_eq(build(&s, NULL, NULL, ok, 1, why, sizeof(why)), 0);
	ck_assert(!hidden(&s, "proj/.env"));
	ck_assert(!pdk_secrets_denied(&s, at("proj/.env")));
	ck_assert(hidden(&s, "proj/.env.local"));
	ck_assert_uint_eq(s.n_asked, 1);
	pdk_secrets_release(&s);

	ck_assert_int_eq(build(&s, NULL, NULL, bad, 1, why, sizeof(why)), -EINVAL);
	ck_assert_msg(strstr(why, "--read ") && strstr(why, ".env.example") &&
			      strstr(why, "drop --read"), "%s", why);
	pdk_secrets_release(&s);
	free(env);
	free(example);
}
END_TEST

START_TEST(hint)
{
	struct pdk_secrets s = {0};
	char why[300], text[700], lines[PDK_REFUSAL_MAX][768];
	const char *roots[] = {at("proj")};
	struct pdk_refusal_scope scope = {.cwd = at("proj"), .roots = roots, .n_roots = 1};
	size_t n;

	ck_assert_int_eq(build(&s, NULL, NULL, NULL, 0, why, sizeof(why)), 0);
	scope.secrets = &s;
	snprintf(text, sizeof(text), "cat: .env: Permission denied\n");
	n = pdk_refusal_hints(text, strlen(text), &scope, lines, PDK_REFUSAL_MAX);
	ck_assert_uint_eq(n, 1);
	ck_assert_msg(strstr(lines[0], "is a secret") && strstr(lines[0], "--read ") &&
			      strstr(lines[0], "/proj/.env") && !strstr(lines[0], "--write"),
		      "%s", lines[0]);
	pdk_secrets_release(&s);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("secrets");
	TCase *tc = tcase_create("list");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, templates);
	tcase_add_test(tc, default_list);
	tcase_add_test(tc, configured);
	tcase_add_test(tc, reads);
	tcase_add_test(tc, hint);
	suite_add_tcase(s, tc);
	return pdk_ck_run(s);
}
