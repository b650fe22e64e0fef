/* check_gate.c - Check suite for the confirm gate and the session state: deny, allow/--yes,
 * approval.command (JSON, no, hang, crash), session approvals, password paths, no terminal. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <check.h>
#include <errno.h>
#include <malloc.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "config/config.h"
#include "gate/gate.h"
#include "policy/policy.h"
#include "gate/session.h"
#include "gate/gate_int.h"
#include "ck_util.h"

static char base[256];
static struct pdk_config cfg;
static struct pdk_decision dec;
static struct pdk_policy_step step;
static struct pdk_gate_request rq;
static char *programs[4];
static char *raises[] = {"network on"};
static char *step_argv[] = {"git", "push", "origin", "main", NULL};

static void xwrite(const char *path, const char *text, mode_t mode)
{
	ck_write(path, text);
	ck_assert_int_eq(chmod(path, mode), 0);
}

static void set_programs(const char *a, const char *b)
{
	programs[0] = (char *)a;
	programs[1] = (char *)b;
	dec.programs = (struct pdk_strv){programs, b ? 2 : 1};
}

static void setup(void)
{
	strcpy(base, "/tmp/check_gate.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(base));
	ck_assert_int_eq(mkdir(ck_path("%s/home", base), 0700), 0);
	setenv("HOME", ck_path("%s/home", base), 1);
	setenv("XDG_STATE_HOME", ck_path("%s/state", base), 1);
	unsetenv("PADDOCK_SESSION");
	signal(SIGPIPE, SIG_DFL);

	memset(&cfg, 0, sizeof(cfg));
	cfg.approval_mode = PDK_APPROVAL_DENY;
	cfg.threshold = PDK_RISK_MODERATE;

	step = (struct pdk_policy_step){
	    .text = "git push origin main",
	    .program = "git",
	    .argv = step_argv,
	    .risk = PDK_RISK_MODERATE,
	    .rule = "risk: git-push",
	    .why = "publishes commits to the remote",
	};
	dec = (struct pdk_decision){
	    .verdict = PDK_VERDICT_ASK,
	    .risk = PDK_RISK_MODERATE,
	    .rule = "risk: git-push",
	    .ask = "`git push origin main`: publishes commits to the remote",
	    .raises = {raises, 1},
	    .steps = &step,
	    .n_steps = 1,
	};
	set_programs("git", NULL);
	rq = (struct pdk_gate_request){
	    .line = "git push origin main",
	    .d = &dec,
	    .session = "s1",
	    .cwd = "/work/project",
	};
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	return remove(path);
}

static void teardown(void)
{
	nftw(base, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* Decide, expecting success; the result stays in *res. */
static void decide(bool yes, struct pdk_gate_result *res)
{
	ck_assert_int_eq(pdk_gate_decide(&cfg, yes, &rq, res), 0);
}

/*
 * Decide in a child with no controlling terminal (setsid), so a mode that
 * asks on /dev/tty cannot reach the terminal this suite was started from.
 * Returns approved, with the message copied into msg.
 */
static bool decide_no_tty(char *msg, size_t len)
{
	int fds[2], status;
	pid_t pid;
	ssize_t n;

	ck_assert_int_eq(pipe(fds), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		struct pdk_gate_result res = {0};
		const char *m;

		close(fds[0]);
		if (setsid() < 0 || open("/dev/tty", O_RDWR | O_NOCTTY) >= 0)
			_exit(3);
		if (pdk_gate_decide(&cfg, false, &rq, &res) < 0)
			_exit(4);
		m = res.message ? res.message : "";
		if (write(fds[1], m, strlen(m)) < 0)
			_exit(5);
		_exit(res.approved ? 0 : 1);
	}
	close(fds[1]);
	n = read(fds[0], msg, len - 1);
	msg[n > 0 ? n : 0] = '\0';
	close(fds[0]);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status));
	ck_assert_int_le(WEXITSTATUS(status), 1);
	return WEXITSTATUS(status) == 0;
}

/* ---- deny, allow, --yes ---------------------------------------------------- */

START_TEST(test_deny_refuses)
{
	struct pdk_gate_result res;

	decide(false, &res);
	ck_assert(!res.approved);
	ck_assert(!res.asked);
	ck_assert_ptr_null(res.by);
	ck_assert_str_eq(res.message,
			 "command not approved: `git push origin main`: publishes "
			 "commits to the remote; no one can be asked here (approval.mode is "
			 "deny); only a person can approve it: ask them to run it themselves, "
			 "to let the harness pass --yes, or to set approval.mode (ask on a "
			 "terminal, or an approval.command)");
	pdk_gate_result_release(&res);
}
END_TEST

START_TEST(test_deny_without_ask_names_the_line)
{
	struct pdk_gate_result res;

	dec.ask = NULL;
	decide(false, &res);
	ck_assert(!res.approved);
	ck_assert_ptr_nonnull(strstr(res.message, "moderate: `git push origin main`; no one"));
	pdk_gate_result_release(&res);
}
END_TEST

START_TEST(test_allow_and_yes_approve_and_say_so)
{
	struct pdk_gate_result res;

	cfg.approval_mode = PDK_APPROVAL_ALLOW;
	decide(false, &res);
	ck_assert(res.approved);
	ck_assert_str_eq(res.by, "approval.mode allow");
	ck_assert_ptr_null(res.message);
	ck_assert(!res.asked);
	pdk_gate_result_release(&res);

	cfg.approval_mode = PDK_APPROVAL_DENY;
	decide(true, &res);
	ck_assert(res.approved);
	ck_assert_str_eq(res.by, "--yes");
	pdk_gate_result_release(&res);
	/* --yes approves once: nothing is remembered for the session. */
	ck_assert_int_eq(pdk_session_approved("s1", "git"), 0);
}
END_TEST

START_TEST(test_yes_does_not_run_outside_the_sandbox)
{
	struct pdk_gate_result res;

	rq.outside_sandbox = true;
	decide(true, &res);
	ck_assert(!res.approved);
	ck_assert_str_eq(res.message,
			 "command not approved: running outside the sandbox is asked of a person "
			 "every time, and no one can be asked here (--yes does not answer for a "
			 "person); run it in the sandbox (without --outside-sandbox), or ask the "
			 "person to run it themselves");
	pdk_gate_result_release(&res);

	cfg.approval_mode = PDK_APPROVAL_ALLOW;
	decide(false, &res);
	ck_assert(!res.approved);
	ck_assert_ptr_nonnull(strstr(res.message, "(approval.mode is allow)"));
	pdk_gate_result_release(&res);

	/* The legitimate twin: the same call inside the sandbox is approved. */
	rq.outside_sandbox = false;
	decide(false, &res);
	ck_assert(res.approved);
	pdk_gate_result_release(&res);
}
END_TEST

START_TEST(test_password_paths_need_someone_to_type)
{
	const char *paths[] = {"/etc/paddock-x", "/opt/y"};
	struct pdk_gate_result res;
	char msg[1024];

	rq.password_paths = paths;
	rq.n_password_paths = 2;
	decide(true, &res);
	ck_assert(!res.approved);
	ck_assert_str_eq(res.message,
			 "command not approved: writing outside your home (/etc/paddock-x, "
			 "/opt/y) needs your password, and no one can type it here (--yes was "
			 "given); write under your home or the project instead, or ask the "
			 "person to run it at their terminal");
	pdk_gate_result_release(&res);

	cfg.approval_mode = PDK_APPROVAL_COMMAND;
	cfg.approval_command = "/bin/true";
	decide(false, &res);
	ck_assert(!res.approved);
	ck_assert_ptr_nonnull(strstr(res.message, "no one can type it here (approval.mode is "
						  "command)"));
	pdk_gate_result_release(&res);

	cfg.approval_mode = PDK_APPROVAL_AUTO;
	ck_assert(!decide_no_tty(msg, sizeof(msg)));
	ck_assert_ptr_nonnull(strstr(msg, "needs your password, and no one can type it here (no "
					  "terminal to ask on)"));
	cfg.approval_mode = PDK_APPROVAL_ASK;
	ck_assert(!decide_no_tty(msg, sizeof(msg)));
	ck_assert_ptr_nonnull(strstr(msg, "no one can type it here"));
}
END_TEST

START_TEST(test_no_tty_refuses)
{
	char msg[1024];

	cfg.approval_mode = PDK_APPROVAL_AUTO;
	ck_assert(!decide_no_tty(msg, sizeof(msg)));
	ck_assert_str_eq(msg, "command not approved: `git push origin main`: publishes "
			      "commits to the remote; no one can be asked here (no terminal to ask "
			      "on); only a person can approve it: ask them to run it themselves, "
			      "to let the harness pass --yes, or to set approval.mode (ask on a "
			      "terminal, or an approval.command)");
	cfg.approval_mode = PDK_APPROVAL_ASK;
	ck_assert(!decide_no_tty(msg, sizeof(msg)));
	ck_assert_ptr_nonnull(strstr(msg, "(no terminal to ask on)"));
	rq.outside_sandbox = true;
	ck_assert(!decide_no_tty(msg, sizeof(msg)));
	ck_assert_ptr_nonnull(strstr(msg, "running outside the sandbox is asked of a person every "
					  "time, and no one can be asked here (no terminal"));
}
END_TEST

/* ---- approval.command -------------------------------------------------------- */

static const char *approver(const char *name, const char *body)
{
	const char *path = ck_path("%s/%s", base, name);

	xwrite(path, ck_path("#!/bin/sh\n%s", body), 0755);
	return path;
}

START_TEST(test_command_gets_json_and_approves_on_exit_0)
{
	const char *json_path = ck_path("%s/request.json", base);
	const char *cmd =
	    approver("approve.sh", ck_path("cat >'%s'\n"
					   "grep -q '\"programs\":\\[\"git\"\\]' '%s' && exit 0\n"
					   "echo 'only git may run'\nexit 1\n",
					   json_path, json_path));
	struct pdk_gate_result res;
	cJSON *j, *s;

	cfg.approval_mode = PDK_APPROVAL_COMMAND;
	cfg.approval_command = (char *)cmd;
	decide(false, &res);
	ck_assert_msg(res.approved, "%s", res.message);
	ck_assert(res.asked);
	ck_assert_str_eq(res.by, ck_path("approval command %s", cmd));
	pdk_gate_result_release(&res);

	j = cJSON_Parse(ck_slurp(json_path));
	ck_assert_ptr_nonnull(j);
	ck_assert_str_eq(cJSON_GetObjectItem(j, "line")->valuestring, "git push origin main");
	ck_assert_str_eq(cJSON_GetObjectItem(j, "cwd")->valuestring, "/work/project");
	ck_assert_str_eq(cJSON_GetObjectItem(j, "session")->valuestring, "s1");
	ck_assert(cJSON_IsFalse(cJSON_GetObjectItem(j, "outside_sandbox")));
	ck_assert_str_eq(cJSON_GetObjectItem(j, "risk")->valuestring, "moderate");
	ck_assert_str_eq(cJSON_GetObjectItem(j, "rule")->valuestring, "risk: git-push");
	ck_assert_str_eq(cJSON_GetArrayItem(cJSON_GetObjectItem(j, "raises"), 0)->valuestring,
			 "network on");
	s = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "steps"), 0);
	ck_assert_str_eq(cJSON_GetObjectItem(s, "program")->valuestring, "git");
	ck_assert_str_eq(cJSON_GetObjectItem(s, "why")->valuestring,
			 "publishes commits to the remote");
	ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(s, "argv")), 4);
	ck_assert_str_eq(cJSON_GetArrayItem(cJSON_GetObjectItem(s, "argv"), 3)->valuestring,
			 "main");
	cJSON_Delete(j);

	/* The same approver says no to another program, and its words reach the model. */
	set_programs("make", NULL);
	decide(false, &res);
	ck_assert(!res.approved);
	ck_assert_ptr_null(res.by);
	ck_assert_str_eq(
	    res.message,
	    ck_path("command not approved: `git push origin main`: publishes "
		    "commits to the remote; approval command %s said no (exit status 1): "
		    "only git may run; do not run it again as it is; ask the person what "
		    "they want instead",
		    cmd));
	pdk_gate_result_release(&res);
}
END_TEST

START_TEST(test_command_never_approves_outside_the_sandbox)
{
	const char *cmd = approver("outside.sh", "grep -q '\"outside_sandbox\":true' && exit 0\n"
						 "exit 1\n");
	struct pdk_gate_result res;

	cfg.approval_mode = PDK_APPROVAL_COMMAND;
	cfg.approval_command = (char *)cmd;
	decide(false, &res);
	ck_assert(!res.approved);
	pdk_gate_result_release(&res);
	/* The command would say yes to it, and is not asked: a person is. */
	rq.outside_sandbox = true;
	decide(false, &res);
	ck_assert(!res.approved);
	ck_assert(!res.asked);
	ck_assert_str_eq(res.message,
			 "command not approved: running outside the sandbox is asked of a person "
			 "every time, and no one can be asked here (approval.mode is command, and "
			 "a program does not answer for a person); run it in the sandbox (without "
			 "--outside-sandbox), or ask the person to run it themselves");
	pdk_gate_result_release(&res);
}
END_TEST

static bool process_gone(pid_t pid)
{
	char path[64], buf[512], *s;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return true;
	s = fgets(buf, sizeof(buf), f);
	fclose(f);
	s = s ? strrchr(buf, ')') : NULL;
	return s && (s[2] == 'Z' || s[2] == 'X');
}

START_TEST(test_command_that_hangs_is_killed)
{
	const char *pidfile = ck_path("%s/sleep.pid", base);
	const char *cmd =
	    approver("hang.sh", ck_path("sleep 60 &\necho $! >'%s'\nwait\n", pidfile));
	struct pdk_gate_result res;
	struct timespec t0, t1;
	double took;
	pid_t sleeper;

	cfg.approval_mode = PDK_APPROVAL_COMMAND;
	cfg.approval_command = (char *)cmd;
	rq.command_timeout = 0.5;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	decide(false, &res);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	took = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	ck_assert(!res.approved);
	ck_assert_msg(took >= 0.45 && took < 5, "took %.2f s", took);
	ck_assert_ptr_nonnull(
	    strstr(res.message, ck_path("approval command %s gave no answer within 0.5 s and was "
					"killed; only a person can approve it",
					cmd)));
	pdk_gate_result_release(&res);
	/* The whole group went, not only the script: its sleep is not left behind. */
	sleeper = (pid_t)atoi(ck_slurp(pidfile));
	ck_assert_int_gt(sleeper, 0);
	for (int i = 0; i < 100 && !process_gone(sleeper); i++)
		usleep(20000);
	ck_assert_msg(process_gone(sleeper), "sleep %d still running", (int)sleeper);
}
END_TEST

START_TEST(test_command_crash_missing_relative)
{
	struct pdk_gate_result res;

	cfg.approval_mode = PDK_APPROVAL_COMMAND;
	cfg.approval_command = (char *)approver("crash.sh", "kill -9 $$\n");
	decide(false, &res);
	ck_assert(!res.approved);
	ck_assert_ptr_nonnull(strstr(res.message, "was killed by signal 9"));
	pdk_gate_result_release(&res);

	cfg.approval_command = (char *)ck_path("%s/no-such-approver", base);
	decide(false, &res);
	ck_assert(!res.approved);
	ck_assert_ptr_nonnull(strstr(res.message, "could not be run: No such file or directory"));
	pdk_gate_result_release(&res);

	/* No PATH search and no shell: a bare name is refused, not looked up. */
	cfg.approval_command = "true";
	decide(false, &res);
	ck_assert(!res.approved);
	ck_assert_ptr_nonnull(strstr(res.message, "approval.command is not an absolute path"));
	pdk_gate_result_release(&res);
}
END_TEST

/* An approver that cannot even be started (no descriptor left for its pipes) gave no answer:
 * the refusal says it could not be run and never reads as its "no". Fresh allocations are
 * filled with zeros, which read as "exited 0" to code that looks at an outcome never set. */
START_TEST(test_command_that_cannot_start)
{
	struct pdk_gate_result res;
	struct rlimit old, low;
	int fd, r;

#ifdef M_PERTURB
	mallopt(M_PERTURB, 0xff);
#endif
	cfg.approval_mode = PDK_APPROVAL_COMMAND;
	cfg.approval_command = (char *)approver("yes.sh", "exit 0\n");
	ck_assert_int_eq(getrlimit(RLIMIT_NOFILE, &old), 0);
	fd = dup(0); /* the lowest free descriptor: the limit leaves one, a pipe needs two */
	ck_assert_int_ge(fd, 0);
	close(fd);
	low = old;
	low.rlim_cur = (rlim_t)fd + 1;
	ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &low), 0);
	r = pdk_gate_decide(&cfg, false, &rq, &res);
	ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &old), 0);
	ck_assert_int_eq(r, 0);
	ck_assert(!res.approved);
	ck_assert_msg(strstr(res.message, "could not be run: Too many open files"), "%s",
		      res.message);
	ck_assert_msg(!strstr(res.message, "ask the person what they want instead"), "%s",
		      res.message);
	pdk_gate_result_release(&res);
}
END_TEST

START_TEST(test_command_that_ignores_a_huge_request)
{
	struct pdk_gate_result res;
	char *line = malloc(1 << 20);

	ck_assert_ptr_nonnull(line);
	memset(line, 'x', (1 << 20) - 1);
	line[(1 << 20) - 1] = '\0';
	memcpy(line, "git ", 4);
	rq.line = line;
	cfg.approval_mode = PDK_APPROVAL_COMMAND;
	/* Exits without reading: the write hits a closed pipe, and SIGPIPE (at
	 * its default here) must not kill the caller. */
	cfg.approval_command = (char *)approver("quick.sh", "exit 0\n");
	decide(false, &res);
	ck_assert(res.approved);
	pdk_gate_result_release(&res);
	/* A reader gets all of it. */
	cfg.approval_command = (char *)approver("count.sh", ck_path("wc -c >'%s/count'\n", base));
	decide(false, &res);
	ck_assert(res.approved);
	pdk_gate_result_release(&res);
	ck_assert_int_gt(atoi(ck_slurp(ck_path("%s/count", base))), 1 << 20);
	free(line);
}
END_TEST

START_TEST(test_json_is_valid_utf8)
{
	char *json;
	cJSON *j;

	rq.line = "git commit -m \"\xff\xfe caf\xc3\xa9\"";
	json = pdk_gate_request_json(&cfg, &rq);
	ck_assert_ptr_nonnull(json);
	j = cJSON_Parse(json);
	ck_assert_ptr_nonnull(j);
	ck_assert_str_eq(cJSON_GetObjectItem(j, "line")->valuestring,
			 "git commit -m \"\xef\xbf\xbd\xef\xbf\xbd caf\xc3\xa9\"");
	cJSON_Delete(j);
	free(json);
}
END_TEST

/* ---- session memory ---------------------------------------------------------- */

START_TEST(test_session_approval_persists_and_is_scoped)
{
	static char *clean_argv[] = {"git", "clean", "-f", NULL};
	static char *make_argv[] = {"make", "install", NULL};
	struct pdk_policy_step two[2];
	struct pdk_gate_result res;

	/* Before: refused. */
	decide(false, &res);
	ck_assert(!res.approved);
	pdk_gate_result_release(&res);

	/* A bare program name, as older versions stored it, covers nothing. */
	ck_assert_int_eq(pdk_session_approve("s1", "git"), 0);
	decide(false, &res);
	ck_assert(!res.approved);
	pdk_gate_result_release(&res);

	ck_assert_int_eq(pdk_gate_grant_remember(&rq), 0);
	decide(false, &res);
	ck_assert(res.approved);
	ck_assert(!res.asked);
	ck_assert_str_eq(res.by, "session approval for `git push`");
	pdk_gate_result_release(&res);

	/* Another session, another subcommand, or one program more: asked again. */
	rq.session = "s2";
	decide(false, &res);
	ck_assert(!res.approved);
	pdk_gate_result_release(&res);
	rq.session = "s1";
	step.argv = clean_argv;
	decide(false, &res);
	ck_assert(!res.approved);
	pdk_gate_result_release(&res);
	step.argv = step_argv;
	two[0] = step;
	two[1] = step;
	two[1].program = "make";
	two[1].argv = make_argv;
	dec.steps = two;
	dec.n_steps = 2;
	decide(false, &res);
	ck_assert(!res.approved);
	pdk_gate_result_release(&res);
	ck_assert_int_eq(pdk_gate_grant_remember(&rq), 0);
	decide(false, &res);
	ck_assert(res.approved);
	ck_assert_str_eq(res.by, "session approval for `git push`, `make install`");
	pdk_gate_result_release(&res);
	dec.steps = &step;
	dec.n_steps = 1;

	/* NULL session: PADDOCK_SESSION. */
	rq.session = NULL;
	setenv("PADDOCK_SESSION", "s1", 1);
	decide(false, &res);
	ck_assert(res.approved);
	pdk_gate_result_release(&res);
	unsetenv("PADDOCK_SESSION");
	decide(false, &res);
	ck_assert(!res.approved);
	pdk_gate_result_release(&res);
}
END_TEST

/* What an "a" covers is exact: the risk class, the widenings, the project. */
START_TEST(test_session_approval_is_exact)
{
	static char *wider[] = {"network on", "writes /srv"};
	struct pdk_gate_result res;

	ck_assert_int_eq(pdk_gate_grant_remember(&rq), 0);
	ck_assert_int_eq(pdk_gate_session_covers(&rq), 1);
	/* riskier, overall or in the step */
	dec.risk = PDK_RISK_DANGEROUS;
	ck_assert_int_eq(pdk_gate_session_covers(&rq), 0);
	dec.risk = PDK_RISK_MODERATE;
	step.risk = PDK_RISK_DANGEROUS;
	ck_assert_int_eq(pdk_gate_session_covers(&rq), 0);
	step.risk = PDK_RISK_MODERATE;
	/* wider; narrower is covered */
	dec.raises = (struct pdk_strv){wider, 2};
	ck_assert_int_eq(pdk_gate_session_covers(&rq), 0);
	dec.raises = (struct pdk_strv){NULL, 0};
	ck_assert_int_eq(pdk_gate_session_covers(&rq), 1);
	dec.raises = (struct pdk_strv){raises, 1};
	/* another project */
	rq.project = "/work/other";
	ck_assert_int_eq(pdk_gate_session_covers(&rq), 0);
	rq.project = NULL;
	/* after PATH changed, the program cannot be told: never covered, never stored */
	step.path_changed = true;
	ck_assert_int_eq(pdk_gate_session_covers(&rq), 0);
	ck_assert_int_eq(pdk_gate_grant_remember(&rq), -EINVAL);
	step.path_changed = false;
	/* a program that is not a file here */
	step.argv[0] = "pdk-no-such-program";
	ck_assert_int_eq(pdk_gate_session_covers(&rq), 0);
	step.argv[0] = "git";
	decide(false, &res);
	ck_assert(res.approved);
	pdk_gate_result_release(&res);
}
END_TEST

START_TEST(test_session_approval_never_for_outside_or_password)
{
	const char *paths[] = {"/etc/x"};
	struct pdk_gate_result res;

	ck_assert_int_eq(pdk_gate_grant_remember(&rq), 0);
	rq.outside_sandbox = true;
	decide(false, &res);
	ck_assert(!res.approved);
	ck_assert_ptr_nonnull(strstr(res.message, "running outside the sandbox is asked"));
	pdk_gate_result_release(&res);
	rq.outside_sandbox = false;
	rq.password_paths = paths;
	rq.n_password_paths = 1;
	decide(false, &res);
	ck_assert(!res.approved);
	ck_assert_ptr_nonnull(strstr(res.message, "needs your password"));
	pdk_gate_result_release(&res);
}
END_TEST

START_TEST(test_session_files_exact_and_private)
{
	const char *dir = ck_path("%s/state/paddock/sessions/s1", base);
	struct stat st;
	char *got = NULL;

	ck_assert_int_eq(pdk_session_approve("s1", "git"), 0);
	ck_assert_int_eq(pdk_session_approve("s1", "make"), 0);
	ck_assert_int_eq(pdk_session_approve("s1", "git"), 0);
	ck_assert_str_eq(ck_slurp(ck_path("%s/approvals", dir)), "git\nmake\n");
	ck_assert_int_eq(stat(dir, &st), 0);
	ck_assert_int_eq(st.st_mode & 0777, 0700);
	ck_assert_int_eq(stat(ck_path("%s/approvals", dir), &st), 0);
	ck_assert_int_eq(st.st_mode & 0777, 0600);

	ck_assert_int_eq(pdk_session_approved("s1", "git"), 1);
	ck_assert_int_eq(pdk_session_approved("s1", "gi"), 0);
	ck_assert_int_eq(pdk_session_approved("s1", "git "), 0);
	ck_assert_int_eq(pdk_session_approved("s1", "ake"), 0);
	/* A name spanning two stored lines matches neither. */
	ck_assert_int_eq(pdk_session_approved("s1", "git\nmake"), 0);
	ck_assert_int_eq(pdk_session_approve("s1", "x\ny"), -EINVAL);
	ck_assert_int_eq(pdk_session_approve("s1", "/bin/rm"), 0);
	{
		char *longline = calloc(1, PDK_SESSION_LINE_MAX + 2);

		memset(longline, 'x', PDK_SESSION_LINE_MAX + 1);
		ck_assert_int_eq(pdk_session_approve("s1", longline), -EINVAL);
		free(longline);
	}
	ck_assert_int_eq(pdk_session_approve("s1", ""), -EINVAL);
	ck_assert_int_eq(pdk_session_approved("s1", "y"), 0);
	ck_assert_int_eq(pdk_session_approve("../s2", "git"), -EINVAL);
	ck_assert_int_eq(pdk_session_approved("..", "git"), -EINVAL);
	ck_assert_int_eq(pdk_session_dir("a/b", &got), -EINVAL);
	ck_assert_ptr_null(got);
	/* No temp file left behind. */
	ck_assert_int_eq(system(ck_path("test $(ls -A '%s' | grep -v '^lock$' | wc -l) = 1", dir)),
			 0);
}
END_TEST

START_TEST(test_session_symlinks_are_not_trusted)
{
	const char *sessions = ck_path("%s/state/paddock/sessions", base);
	const char *elsewhere = ck_path("%s/elsewhere", base);
	char *dir = NULL;
	struct pdk_gate_result res;

	/* A real approval, copied where someone else controls it. */
	rq.session = "s7";
	ck_assert_int_eq(pdk_gate_grant_remember(&rq), 0);
	ck_assert_int_eq(system(ck_path("mkdir -p '%s' && cp '%s/s7/approvals' '%s/approvals'",
					elsewhere, sessions, elsewhere)),
			 0);
	/* A session directory that is a symlink to approvals someone else wrote. */
	ck_assert_int_eq(symlink(elsewhere, ck_path("%s/evil", sessions)), 0);
	ck_assert_int_eq(pdk_session_dir("evil", &dir), -ENOTDIR);
	rq.session = "evil";
	ck_assert_int_lt(pdk_gate_session_covers(&rq), 1);
	/* An approvals file that is a symlink. */
	ck_assert_int_eq(mkdir(ck_path("%s/s9", sessions), 0700), 0);
	ck_assert_int_eq(
	    symlink(ck_path("%s/approvals", elsewhere), ck_path("%s/s9/approvals", sessions)), 0);
	rq.session = "s9";
	ck_assert_int_ne(pdk_gate_session_covers(&rq), 1);
	decide(false, &res);
	ck_assert(!res.approved);
	pdk_gate_result_release(&res);
	/* The twin: the real approval in its real directory counts. */
	rq.session = "s7";
	decide(false, &res);
	ck_assert(res.approved);
	pdk_gate_result_release(&res);
}
END_TEST

START_TEST(test_session_concurrent_approvals_all_kept)
{
	enum { N = 16 };
	pid_t pids[N];
	int status;

	for (int i = 0; i < N; i++) {
		pids[i] = fork();
		ck_assert_int_ge(pids[i], 0);
		if (pids[i] == 0)
			_exit(pdk_session_approve("s1", ck_path("prog%d", i)) == 0 ? 0 : 1);
	}
	for (int i = 0; i < N; i++) {
		ck_assert_int_eq(waitpid(pids[i], &status, 0), pids[i]);
		ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	}
	for (int i = 0; i < N; i++)
		ck_assert_msg(pdk_session_approved("s1", ck_path("prog%d", i)) == 1, "prog%d lost",
			      i);
}
END_TEST

START_TEST(test_session_cwd)
{
	char *got = NULL;

	ck_assert_int_eq(pdk_session_cwd_get("s1", "/p1", &got), -ENOENT);
	ck_assert_ptr_null(got);
	ck_assert_int_eq(pdk_session_cwd_set("s1", "/p1", "relative/dir"), -EINVAL);
	ck_assert_int_eq(pdk_session_cwd_set("s1", "relative", "/srv"), -EINVAL);
	ck_assert_int_eq(pdk_session_cwd_set("s1", "/p1", "/tmp/a b\nc"), 0);
	ck_assert_int_eq(pdk_session_cwd_get("s1", "/p1", &got), 0);
	ck_assert_str_eq(got, "/tmp/a b\nc");
	free(got);
	ck_assert_int_eq(pdk_session_cwd_set("s1", "/p1", "/srv"), 0);
	ck_assert_int_eq(pdk_session_cwd_get("s1", "/p1", &got), 0);
	ck_assert_str_eq(got, "/srv");
	free(got);
	/* Each launch directory has its own: one project's cd moves no other's calls. */
	ck_assert_int_eq(pdk_session_cwd_get("s1", "/p2", &got), -ENOENT);
	ck_assert_int_eq(pdk_session_cwd_get("s1", "/p1/sub", &got), -ENOENT);
	ck_assert_int_eq(pdk_session_cwd_set("s1", "/p2", "/opt"), 0);
	ck_assert_int_eq(pdk_session_cwd_get("s1", "/p1", &got), 0);
	ck_assert_str_eq(got, "/srv");
	free(got);
	ck_assert_int_eq(pdk_session_cwd_get("s2", "/p1", &got), -ENOENT);
	setenv("PADDOCK_SESSION", "s1", 1);
	ck_assert_int_eq(pdk_session_cwd_get(NULL, "/p1", &got), 0);
	ck_assert_str_eq(got, "/srv");
	free(got);
	/* Back to the launch directory: forgotten. */
	ck_assert_int_eq(pdk_session_cwd_set("s1", "/p1", "/p1"), 0);
	ck_assert_int_eq(pdk_session_cwd_get("s1", "/p1", &got), -ENOENT);
	ck_assert_int_eq(pdk_session_cwd_set("s1", "/p2", NULL), 0);
	ck_assert_int_eq(pdk_session_cwd_get("s1", "/p2", &got), -ENOENT);
	setenv("PADDOCK_SESSION", "bad/name", 1);
	ck_assert_int_eq(pdk_session_cwd_get(NULL, "/p1", &got), -EINVAL);
}
END_TEST

static Suite *gate_suite(void)
{
	Suite *s = suite_create("gate");
	TCase *tc = tcase_create("gate");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_deny_refuses);
	tcase_add_test(tc, test_deny_without_ask_names_the_line);
	tcase_add_test(tc, test_allow_and_yes_approve_and_say_so);
	tcase_add_test(tc, test_yes_does_not_run_outside_the_sandbox);
	tcase_add_test(tc, test_password_paths_need_someone_to_type);
	tcase_add_test(tc, test_no_tty_refuses);
	tcase_add_test(tc, test_command_gets_json_and_approves_on_exit_0);
	tcase_add_test(tc, test_command_never_approves_outside_the_sandbox);
	tcase_add_test(tc, test_command_that_hangs_is_killed);
	tcase_add_test(tc, test_command_crash_missing_relative);
	tcase_add_test(tc, test_command_that_cannot_start);
	tcase_add_test(tc, test_command_that_ignores_a_huge_request);
	tcase_add_test(tc, test_json_is_valid_utf8);
	tcase_add_test(tc, test_session_approval_persists_and_is_scoped);
	tcase_add_test(tc, test_session_approval_is_exact);
	tcase_add_test(tc, test_session_approval_never_for_outside_or_password);
	tcase_add_test(tc, test_session_files_exact_and_private);
	tcase_add_test(tc, test_session_symlinks_are_not_trusted);
	tcase_add_test(tc, test_session_concurrent_approvals_all_kept);
	tcase_add_test(tc, test_session_cwd);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return pdk_ck_run(gate_suite());
}
