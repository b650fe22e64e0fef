/* check_api.c - libpaddock through its public header: sessions, runs, refusals, the
 * confirm callback, check, recall, threads sharing a session, and bad input. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ck_util.h"
#include "paddock.h"

static char state[64], proj[64];

/* The build's paddock for the helpers; state and project outside /tmp, a writable root
 * of every run (the landlock backend refuses a root holding paddock's own state). */
static struct paddock_options opts(void)
{
	struct paddock_options o = PADDOCK_OPTIONS_INIT;

	o.program = getenv("PADDOCK");
	o.state_home = state;
	return o;
}

static void setup(void)
{
	strcpy(state, "/var/tmp/check_api.s.XXXXXX");
	strcpy(proj, "/var/tmp/check_api.p.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(state));
	ck_assert_ptr_nonnull(mkdtemp(proj));
	ck_assert_int_eq(chdir(proj), 0);
}

static void teardown(void)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s' '%s'", state, proj);
	ck_assert_int_eq(system(cmd), 0);
}

static struct paddock_session *start(struct paddock_options *o)
{
	struct paddock_session *s = NULL;
	char why[512];
	int r = paddock_session_new(o, &s, why, sizeof(why));

	ck_assert_msg(r == 0, "paddock_session_new: %d %s", r, why);
	return s;
}

/* One line, saying something. */
static void one_line(const char *why)
{
	ck_assert_msg(why[0] && !strchr(why, '\n'), "not one line: '%s'", why);
}

START_TEST(bad_options)
{
	struct paddock_options o = opts();
	struct paddock_session *s = (void *)"untouched";
	char why[512];

	ck_assert_int_eq(paddock_session_new(&o, NULL, why, sizeof(why)), -EINVAL);
	one_line(why);
	o.size = 3;
	ck_assert_int_eq(paddock_session_new(&o, &s, why, sizeof(why)), -EINVAL);
	ck_assert_ptr_nonnull(strstr(why, "PADDOCK_OPTIONS_INIT"));
	o = opts();
	o.bound = 5;
	ck_assert_int_eq(paddock_session_new(&o, &s, why, sizeof(why)), -EINVAL);
	ck_assert_ptr_nonnull(strstr(why, "bound 5"));
	o = opts();
	o.backend = "nope";
	ck_assert_int_eq(paddock_session_new(&o, &s, why, sizeof(why)), -EINVAL);
	ck_assert_ptr_nonnull(strstr(why, "'nope'"));
	o = opts();
	o.state_home = "relative";
	ck_assert_int_eq(paddock_session_new(&o, &s, why, sizeof(why)), -EINVAL);
	o = opts();
	o.program = "/nonexistent/paddock";
	ck_assert_int_eq(paddock_session_new(&o, &s, why, sizeof(why)), -ENOENT);
	ck_assert_ptr_nonnull(strstr(why, "/nonexistent/paddock"));
	one_line(why);
	o = opts();
	o.config = ck_path("%s/bad.json", proj);
	FILE *f = fopen(o.config, "w");
	ck_assert_ptr_nonnull(f);
	fputs("{\"commandPolicy\": {\"sandbox\": {\"writablePaths\": 7}}}", f);
	fclose(f);
	ck_assert_int_eq(paddock_session_new(&o, &s, why, sizeof(why)), -EINVAL);
	ck_assert_msg(strstr(why, "bad.json") != NULL, "%s", why);
	one_line(why);
	ck_assert_ptr_eq(s, (void *)"untouched");
	paddock_session_free(NULL);
	paddock_result_free(NULL);
	paddock_decision_free(NULL);
}
END_TEST

START_TEST(runs)
{
	struct paddock_options o = opts();
	struct paddock_session *s = start(&o);
	const char *echo[] = {"echo", "hi", NULL};
	const char *three[] = {"sh", "-c", "echo out; echo err >&2; exit 3", NULL};
	const char *killed[] = {"sh", "-c", "kill -9 $$", NULL};
	struct paddock_request rq = PADDOCK_REQUEST_INIT(echo);
	struct paddock_result *res;
	char why[512];

	ck_assert_int_eq(paddock_run(s, &rq, &res, why, sizeof(why)), 0);
	ck_assert(res->ran);
	ck_assert_int_eq(res->exit_code, 0);
	ck_assert_str_eq(res->stdout_text, "hi\n");
	ck_assert_ptr_nonnull(strstr(res->text, "hi\n"));
	ck_assert_ptr_nonnull(strstr(res->json, "\"ran\":true"));
	ck_assert_ptr_null(res->error);
	paddock_result_free(res);

	rq.argv = three;
	ck_assert_int_eq(paddock_run(s, &rq, &res, why, sizeof(why)), 0);
	ck_assert_int_eq(res->exit_code, 3);
	ck_assert_str_eq(res->stdout_text, "out\n");
	ck_assert_str_eq(res->stderr_text, "err\n");
	paddock_result_free(res);

	rq.argv = killed;
	ck_assert_int_eq(paddock_run(s, &rq, &res, why, sizeof(why)), 0);
	ck_assert_int_eq(res->signal, 9);
	ck_assert_int_eq(res->exit_code, 137);
	paddock_result_free(res);

	/* Where it runs, and the call's own working directory. */
	const char *pwd[] = {"pwd", NULL};
	mkdir(ck_path("%s/sub", proj), 0755);
	rq.argv = pwd;
	rq.cwd = ck_path("%s/sub", proj);
	ck_assert_int_eq(paddock_run(s, &rq, &res, why, sizeof(why)), 0);
	ck_assert_str_eq(res->stdout_text, ck_path("%s/sub\n", proj));
	paddock_result_free(res);
	paddock_session_free(s);
}
END_TEST

START_TEST(bad_requests)
{
	struct paddock_options o = opts();
	struct paddock_session *s = start(&o);
	const char *empty[] = {NULL}, *blank[] = {"", NULL}, *ok[] = {"true", NULL};
	const char *domains[] = {"example.org", NULL};
	struct paddock_request rq = PADDOCK_REQUEST_INIT(empty);
	struct paddock_result *res = (void *)"untouched";
	char why[512];

	ck_assert_int_eq(paddock_run(s, NULL, &res, why, sizeof(why)), -EINVAL);
	ck_assert_int_eq(paddock_run(NULL, &rq, &res, why, sizeof(why)), -EINVAL);
	ck_assert_int_eq(paddock_run(s, &rq, &res, why, sizeof(why)), -EINVAL);
	ck_assert_ptr_nonnull(strstr(why, "no program"));
	rq.argv = blank;
	ck_assert_int_eq(paddock_run(s, &rq, &res, why, sizeof(why)), -EINVAL);
	rq.argv = ok;
	rq.domains = domains;
	ck_assert_int_eq(paddock_run(s, &rq, &res, why, sizeof(why)), -EINVAL);
	ck_assert_ptr_nonnull(strstr(why, "PADDOCK_NETWORK_DOMAINS"));
	rq.domains = NULL;
	rq.network = 9;
	ck_assert_int_eq(paddock_run(s, &rq, &res, why, sizeof(why)), -EINVAL);
	rq.network = PADDOCK_NETWORK_OFF;
	rq.size = 1;
	ck_assert_int_eq(paddock_run(s, &rq, &res, why, sizeof(why)), -EINVAL);
	ck_assert_ptr_nonnull(strstr(why, "PADDOCK_REQUEST_INIT"));
	/* One the engine refuses: a bad domain name, said by the engine. */
	const char *bad_domain[] = {"not a domain", NULL};
	rq = (struct paddock_request)PADDOCK_REQUEST_INIT(ok);
	rq.network = PADDOCK_NETWORK_DOMAINS;
	rq.domains = bad_domain;
	ck_assert_int_eq(paddock_run(s, &rq, &res, why, sizeof(why)), -EINVAL);
	ck_assert_msg(strstr(why, "not a domain") != NULL, "%s", why);
	one_line(why);
	ck_assert_ptr_eq(res, (void *)"untouched");
	/* ... and the session goes on. */
	rq = (struct paddock_request)PADDOCK_REQUEST_INIT(ok);
	ck_assert_int_eq(paddock_run(s, &rq, &res, why, sizeof(why)), 0);
	ck_assert_int_eq(res->exit_code, 0);
	paddock_result_free(res);
	paddock_session_free(s);
}
END_TEST

struct asked {
	int n;
	enum paddock_confirm answer;
	char question[1024];
};

static enum paddock_confirm confirm(void *ctx, const char *question)
{
	struct asked *a = ctx;

	a->n++;
	snprintf(a->question, sizeof(a->question), "%s", question);
	return a->answer;
}

START_TEST(confirm_gate)
{
	struct paddock_options o = opts();
	struct paddock_session *s = start(&o);
	const char *t[] = {"true", NULL};
	struct paddock_request rq = PADDOCK_REQUEST_INIT(t);
	struct paddock_result *res;
	struct asked a = {0};
	char why[512];

	/* Nobody to ask: the call that needs a yes is refused, saying so. */
	rq.network = PADDOCK_NETWORK_FULL;
	ck_assert_int_eq(paddock_run(s, &rq, &res, why, sizeof(why)), 0);
	ck_assert(!res->ran);
	ck_assert_int_eq(res->exit_code, 125);
	ck_assert_str_eq(res->error_kind, "not_approved");
	ck_assert_ptr_nonnull(res->error);
	paddock_result_free(res);
	paddock_session_free(s);

	o.confirm = confirm;
	o.confirm_ctx = &a;
	s = start(&o);
	a.answer = PADDOCK_CONFIRM_NO;
	ck_assert_int_eq(paddock_run(s, &rq, &res, why, sizeof(why)), 0);
	ck_assert_int_eq(a.n, 1);
	ck_assert_msg(strstr(a.question, "true") != NULL, "%s", a.question);
	ck_assert(!res->ran);
	paddock_result_free(res);
	a.answer = PADDOCK_CONFIRM_ONCE;
	ck_assert_int_eq(paddock_run(s, &rq, &res, why, sizeof(why)), 0);
	ck_assert_int_eq(a.n, 2);
	ck_assert(res->ran);
	ck_assert_int_eq(res->exit_code, 0);
	paddock_result_free(res);
	/* A call that needs nobody is not asked. */
	rq.network = PADDOCK_NETWORK_OFF;
	ck_assert_int_eq(paddock_run(s, &rq, &res, why, sizeof(why)), 0);
	ck_assert_int_eq(a.n, 2);
	paddock_result_free(res);
	paddock_session_free(s);
}
END_TEST

START_TEST(check_decides)
{
	struct paddock_options o = opts();
	struct paddock_session *s = start(&o);
	const char *ls[] = {"ls", NULL}, *t[] = {"true", NULL}, *sudo[] = {"sudo", "ls", NULL};
	struct paddock_request rq = PADDOCK_REQUEST_INIT(ls);
	struct paddock_decision *d;
	char why[512];

	ck_assert_int_eq(paddock_check(s, &rq, &d, why, sizeof(why)), 0);
	ck_assert_int_eq(d->verdict, PADDOCK_VERDICT_RUN);
	ck_assert_str_eq(d->risk, "safe");
	ck_assert_ptr_nonnull(strstr(d->json, "\"verdict\":\"run\""));
	paddock_decision_free(d);
	rq.argv = t;
	rq.network = PADDOCK_NETWORK_FULL;
	ck_assert_int_eq(paddock_check(s, &rq, &d, why, sizeof(why)), 0);
	ck_assert_int_eq(d->verdict, PADDOCK_VERDICT_ASK);
	paddock_decision_free(d);
	rq.argv = sudo;
	rq.network = PADDOCK_NETWORK_OFF;
	ck_assert_int_eq(paddock_check(s, &rq, &d, why, sizeof(why)), 0);
	ck_assert_int_eq(d->verdict, PADDOCK_VERDICT_REFUSE);
	ck_assert_ptr_nonnull(d->why);
	paddock_decision_free(d);
	paddock_session_free(s);
}
END_TEST

START_TEST(recall_held_back)
{
	struct paddock_options o = opts();
	struct paddock_session *s;
	const char *seq[] = {"seq", "1", "5000", NULL};
	struct paddock_request rq = PADDOCK_REQUEST_INIT(seq);
	struct paddock_result *res;
	char why[512], *page = NULL;

	o.bound = 1024;
	s = start(&o);
	ck_assert_int_eq(paddock_run(s, &rq, &res, why, sizeof(why)), 0);
	ck_assert_ptr_nonnull(res->output_id);
	ck_assert_msg(strlen(res->text) <= 1024, "%zu bytes", strlen(res->text));
	ck_assert_ptr_null(strstr(res->text, "\n2500\n"));
	ck_assert_int_eq(paddock_recall(s, res->output_id, 2500, NULL, &page, why, sizeof(why)),
			 0);
	ck_assert_msg(strncmp(page, "2500\n", 5) == 0 || strstr(page, "\n2500\n"), "%.200s", page);
	free(page);
	ck_assert_int_eq(paddock_recall(s, res->output_id, 0, "^4999$", &page, why, sizeof(why)),
			 0);
	ck_assert_ptr_nonnull(strstr(page, "4999"));
	ck_assert_ptr_null(strstr(page, "4998"));
	free(page);
	paddock_result_free(res);
	ck_assert_int_eq(paddock_recall(s, "0123abcd", 0, NULL, &page, why, sizeof(why)),
			 -ENOENT);
	one_line(why);
	ck_assert_int_eq(paddock_recall(s, "nothex", 0, NULL, &page, why, sizeof(why)), -EINVAL);
	paddock_session_free(s);
}
END_TEST

static void *runner(void *p)
{
	struct paddock_session *s = p;
	const char *echo[] = {"echo", "thread", NULL};
	struct paddock_request rq = PADDOCK_REQUEST_INIT(echo);
	long ok = 0;

	for (int i = 0; i < 5; i++) {
		struct paddock_result *res;
		char why[512];

		if (paddock_run(s, &rq, &res, why, sizeof(why)) == 0) {
			ok += res->exit_code == 0 && !strcmp(res->stdout_text, "thread\n");
			paddock_result_free(res);
		}
	}
	return (void *)ok;
}

START_TEST(threads_share_a_session)
{
	struct paddock_options o = opts();
	struct paddock_session *s = start(&o);
	pthread_t t[3];
	void *ok;
	long total = 0;

	for (int i = 0; i < 3; i++)
		ck_assert_int_eq(pthread_create(&t[i], NULL, runner, s), 0);
	for (int i = 0; i < 3; i++) {
		ck_assert_int_eq(pthread_join(t[i], &ok), 0);
		total += (long)ok;
	}
	ck_assert_int_eq(total, 15);
	paddock_session_free(s);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("api");
	TCase *tc = tcase_create("api");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, bad_options);
	tcase_add_test(tc, runs);
	tcase_add_test(tc, bad_requests);
	tcase_add_test(tc, confirm_gate);
	tcase_add_test(tc, check_decides);
	tcase_add_test(tc, recall_held_back);
	tcase_add_test(tc, threads_share_a_session);
	suite_add_tcase(s, tc);
	if (!getenv("PADDOCK")) {
		fputs("check_api: PADDOCK (the program) is not set\n", stderr);
		return 77;
	}
	return pdk_ck_run(s);
}
