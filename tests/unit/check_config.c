/* check_config.c - Check suite for the configuration: every error shape with its exact
 * FILE:LINE:COL and key path, warnings, merging of files, ~ expansion, patterns, defaults. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <check.h>
#include <errno.h>
#include <ftw.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config/config.h"
#include "ck_util.h"

static char base[256];
static char *saved_home, *saved_xdg;

static void setup(void)
{
	snprintf(base, sizeof(base), "%s/pdk-config.XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	ck_assert_ptr_nonnull(mkdtemp(base));
	saved_home = getenv("HOME") ? strdup(getenv("HOME")) : NULL;
	saved_xdg = getenv("XDG_CONFIG_HOME") ? strdup(getenv("XDG_CONFIG_HOME")) : NULL;
}

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *f)
{
	return remove(p);
}

static void restore(const char *name, char *v)
{
	if (v)
		setenv(name, v, 1);
	else
		unsetenv(name);
	free(v);
}

static void teardown(void)
{
	nftw(base, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	restore("HOME", saved_home);
	restore("XDG_CONFIG_HOME", saved_xdg);
}

/* Write a file under the test directory; returns its path (static buffer per slot). */
static const char *put(const char *name, const char *text, size_t len)
{
	static char paths[4][512];
	static int slot;
	char *p = paths[slot++ % 4];
	FILE *f;

	snprintf(p, 512, "%s/%s", base, name);
	f = fopen(p, "w");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(text, 1, len, f), len);
	ck_assert_int_eq(fclose(f), 0);
	return p;
}

static const char *puts_(const char *name, const char *text)
{
	return put(name, text, strlen(text));
}

struct warnings {
	char *line[16];
	int n;
};

static void collect(void *ctx, const char *line)
{
	struct warnings *w = ctx;

	if (w->n < 16)
		w->line[w->n++] = strdup(line);
}

static void warnings_free(struct warnings *w)
{
	for (int i = 0; i < w->n; i++)
		free(w->line[i]);
	w->n = 0;
}

/* ---- errors: the exact prefix "FILE:LINE:COL: key.path" and what follows ---- */

struct err_case {
	const char *json;
	const char *where; /* after "FILE:" */
	const char *text;  /* must follow where, after ": " (a prefix of the rest) */
};

static const struct err_case errors[] = {
    /* invalid JSON */
    {"{\n  \"env\": [],\n}\n", "3:1",
     "invalid JSON: a comma before '}'; remove the trailing comma"},
    {"{\"env\": [\"A\",]}", "1:14", "env: invalid JSON: a comma before ']'"},
    {"{\n  \"commandPolicy\": {\n    \"sandbox\": {\n      \"enabled\": tru\n    }\n  }\n}\n",
     "4:18", "commandPolicy.sandbox.enabled: invalid JSON: expected a value"},
    {"{\"env\": [] \"risk\": []}", "1:12",
     "invalid JSON: expected ',' or '}' after a value, got '\"'; a missing comma?"},
    {"{\"approval\": {\"mode\": \"ask", "1:23",
     "approval.mode: invalid JSON: this string is never closed"},
    {"", "1:1", "invalid JSON: the file is empty"},
    {"  \n\n", "3:1", "invalid JSON: the file is empty"},
    {"{}\n}", "2:1", "invalid JSON: '}' after the end of the top-level object"},
    {"{\"env\": [\"a\\qb\"]}", "1:12", "env[0]: invalid JSON: unknown escape '\\q'"},
    {"{'env': []}", "1:2", "invalid JSON: a key in single quotes; JSON takes double quotes"},
    {"{\"env\": [1, 2", "1:14", "env: invalid JSON: the file ends inside a list"},
    {"{\"timeouts\": {\"cap\": -}}", "1:22", "timeouts.cap: invalid JSON: not a number"},
    /* not an object */
    {"[1, 2]", "1:1", "the top level is an array; a configuration is one object"},
    {"\n  \"env\"", "2:3", "the top level is a string"},
    /* wrong types at every depth */
    {"{\"env\": \"X_*\"}", "1:9",
     "env: expected an array of strings, got a string; write a list: [\"X_*\"]"},
    {"{\"commandPolicy\": []}", "1:19", "commandPolicy: expected an object, got an array"},
    {"{\"timeouts\": {\"default\": \"60\"}}", "1:26",
     "timeouts.default: expected a number, got a string"},
    {"{\"commandPolicy\": {\"sandbox\": {\"enabled\": \"yes\"}}}", "1:43",
     "commandPolicy.sandbox.enabled: expected a boolean, got a string; write true or false"},
    {"{\"commandPolicy\": {\"sandbox\": {\n  \"writablePaths\": [\"/a\", 2]}}}", "2:27",
     "commandPolicy.sandbox.writablePaths[1]: expected a string, got a number"},
    {"{\"commandPolicy\": {\"deny\": [\"a\", [\"b\"]]}}", "1:34",
     "commandPolicy.deny[1]: expected a string, got an array"},
    {"{\"risk\": [{\"name\": \"a\", \"match\": \"b\", \"class\": \"safe\"}, 7]}", "1:57",
     "risk[1]: expected an object, got a number"},
    {"{\"risk\": [{\"name\": true, \"match\": \"b\", \"class\": \"safe\"}]}", "1:20",
     "risk[0].name: expected a string, got a boolean"},
    /* invalid patterns */
    {"{\"commandPolicy\": {\"deny\": [\"ok\",\n   \"(abc\"]}}", "2:4",
     "commandPolicy.deny[1]: invalid pattern '(abc': missing closing parenthesis at offset 4; fix "
     "the regular expression"},
    {"{\"commandPolicy\": {\"allow\": [\"a[\"]}}", "1:30",
     "commandPolicy.allow[0]: invalid pattern 'a[': missing terminating ]"},
    {"{\"risk\": [{\"name\": \"n\", \"match\": \"x{2,1}\", \"class\": \"safe\"}]}", "1:34",
     "risk[0].match: invalid pattern 'x{2,1}': numbers out of order in {} quantifier at offset 5"},
    /* bad values */
    {"{\"risk\": [{\"name\": \"n\", \"match\": \"x\", \"class\": \"scary\"}]}", "1:48",
     "risk[0].class: 'scary' is not one of safe, moderate or dangerous"},
    {"{\"risk\": [{\"name\": \"n\", \"class\": \"safe\"}]}", "1:11",
     "risk[0]: the rule has no 'match'"},
    {"{\"timeouts\": {\"default\": 0}}", "1:26",
     "timeouts.default: 0 is out of range; write a number above 0 and at most 31536000 seconds"},
    {"{\"timeouts\": {\"default\": 100, \"cap\": 50}}", "1:26",
     "timeouts.default: 100 seconds is above timeouts.cap (50)"},
    {"{\"output\": {\"bound\": 512}}", "1:22",
     "output.bound: 512 is out of range; write a whole number from 1024 to 1048576 bytes"},
    {"{\"output\": {\"bound\": 4096.5}}", "1:22", "output.bound: 4096.5 is out of range"},
    {"{\"output\": {\"bound\": 8192, \"storeCap\": 4096}}", "1:40",
     "output.storeCap: 4096 bytes is below output.bound (8192)"},
    {"{\"output\": {\"storeDir\": \"out\"}}", "1:25",
     "output.storeDir: 'out' is not an absolute path"},
    {"{\"approval\": {\"mode\": \"maybe\"}}", "1:23",
     "approval.mode: 'maybe' is not one of ask, deny, allow or command"},
    {"{\"approval\": {\"mode\": \"command\"}}", "1:23",
     "approval.mode: mode \"command\" needs approval.command"},
    {"{\"approval\": {\"threshold\": \"high\"}}", "1:28",
     "approval.threshold: 'high' is not one of safe, moderate or dangerous"},
    {"{\"approval\": {\"command\": \"approve.sh\"}}", "1:26",
     "approval.command: 'approve.sh' is not an absolute path"},
    {"{\"commandPolicy\": {\"sandbox\": {\"backend\": \"docker\"}}}", "1:43",
     "commandPolicy.sandbox.backend: 'docker' is not one of bwrap, landlock or seatbelt"},
    {"{\"pkg\": {\"manager\": \"zypper\"}}", "1:21",
     "pkg.manager: 'zypper' is not one of apt, dnf, yum, pacman or apk"},
    {"{\"pkg\": {\"manager\": 1}}", "1:21", "pkg.manager"},
    {"{\"commandPolicy\": {\"sandbox\": {\"bwrap\": \"bwrap\"}}}", "1:41",
     "commandPolicy.sandbox.bwrap: 'bwrap' is not an absolute path"},
    {"{\"commandPolicy\": {\"sandbox\": {\"maxProcesses\": 0}}}", "1:48",
     "commandPolicy.sandbox.maxProcesses: 0 is out of range"},
    {"{\"denied_command\": [\"rm\", \"/bin/rm\"]}", "1:27",
     "denied_command[1]: '/bin/rm' is not a bare program name; write the name alone, \"rm\""},
    {"{\"denied_command\": [\"rm -rf\"]}", "1:21",
     "denied_command[0]: 'rm -rf' is not a bare program name"},
    {"{\"read_only_command\": [\"git log --oneline -5\"]}", "1:24",
     "read_only_command[0]: 'git log --oneline -5' is not a program with at most two arguments"},
    {"{\"read_only_command\": [\"/usr/bin/ls\"]}", "1:24",
     "read_only_command[0]: '/usr/bin/ls': the program must be a bare name"},
    {"{\"protected_paths\": [\"/etc/passwd\"]}", "1:22",
     "protected_paths[0]: '/etc/passwd' is not a name inside a root"},
    {"{\"protected_paths\": [\".git/../x\"]}", "1:22",
     "protected_paths[0]: '.git/../x' is not a name inside a root"},
    {"{\"env\": [\"A=B\"]}", "1:10", "env[0]: 'A=B': a variable-name pattern has no '='"},
    {"{\"sensitive_paths\": [\"\"]}", "1:22", "sensitive_paths[0]: the string is empty"},
    {"{\"sensitive_paths\": [\"a\\nb\"]}", "1:22",
     "sensitive_paths[0]: control character 0x0a at byte 1 of the string"},
    {"{\"commandPolicy\": {\"sandbox\": {\"writablePaths\": [\"~bob/x\"]}}}", "1:50",
     "commandPolicy.sandbox.writablePaths[0]: '~bob/x': only ~ and ~/ are expanded, not ~user"},
    {"{\"commandPolicy\": {\"sandbox\": {\"writablePaths\": [\"build\"]}}}", "1:50",
     "commandPolicy.sandbox.writablePaths[0]: 'build' is not an absolute path"},
    {"{\"commandPolicy\": {\"sandbox\": {\"allowLocalAddresses\": [\"::1\",\n \"10.0.0.1/8\"]}}}",
     "2:2",
     "commandPolicy.sandbox.allowLocalAddresses[1]: '10.0.0.1/8' is not an IP address or CIDR "
     "block; write e.g. \"127.0.0.1\", \"10.0.0.0/8\" or \"fd00::/8\""},
    {"{\"commandPolicy\": {\"sandbox\": {\"allowLocalAddresses\": [\"localhost\"]}}}", "1:56",
     "commandPolicy.sandbox.allowLocalAddresses[0]: 'localhost' is not an IP address or CIDR "
     "block"},
};

START_TEST(test_error_shapes)
{
	const struct err_case *c = &errors[_i];
	struct pdk_config cfg;
	struct warnings w = {0};
	char why[1024] = "", want[1024];
	const char *path = puts_("bad.json", c->json);
	int r;

	setenv("HOME", "/home/tester", 1);
	pdk_config_init(&cfg);
	r = pdk_config_load_file(&cfg, path, true, collect, &w, why, sizeof(why));
	ck_assert_msg(r == -EINVAL, "case %d: r=%d why=%s", _i, r, why);
	snprintf(want, sizeof(want), "%s:%s: %s", path, c->where, c->text);
	ck_assert_msg(strncmp(why, want, strlen(want)) == 0, "case %d:\n got: %s\nwant: %s...", _i,
		      why, want);
	ck_assert_msg(!strchr(why, '\n'), "case %d: two lines", _i);
	/* Every error says what to do: a ';' after the message. */
	ck_assert_msg(strchr(why + strlen(path), ';'), "case %d: no advice in %s", _i, why);
	/* A file that failed is not recorded as read. */
	ck_assert_uint_eq(cfg.files.n, 0);
	pdk_config_release(&cfg);
	warnings_free(&w);
}
END_TEST

START_TEST(test_nul_byte)
{
	struct pdk_config cfg;
	char why[512], want[600];
	const char *path = put("nul.json", "{\n \"env\": [\"a\0b\"]}", 18);

	pdk_config_init(&cfg);
	ck_assert_int_eq(pdk_config_load_file(&cfg, path, true, NULL, NULL, why, sizeof(why)),
			 -EINVAL);
	snprintf(want, sizeof(want), "%s:2:12: invalid JSON: a NUL byte", path);
	ck_assert_str_eq(strstr(why, want) == why ? want : why, want);
	pdk_config_release(&cfg);
}
END_TEST

START_TEST(test_too_deep)
{
	struct pdk_config cfg;
	char why[512], *text = malloc(2 * 1100 + 1);
	const char *path;

	memset(text, '[', 1100);
	memset(text + 1100, ']', 1100);
	text[2200] = '\0';
	path = puts_("deep.json", text);
	pdk_config_init(&cfg);
	ck_assert_int_eq(pdk_config_load_file(&cfg, path, true, NULL, NULL, why, sizeof(why)),
			 -EINVAL);
	ck_assert_ptr_nonnull(strstr(why, ":1:1001: "));
	ck_assert_ptr_nonnull(strstr(why, "invalid JSON: nested deeper than 1000 levels"));
	pdk_config_release(&cfg);
	free(text);
}
END_TEST

/* ---- warnings ---- */

struct warn_case {
	const char *json;
	const char *line; /* exact, after "FILE:" */
};

static const struct warn_case warns[] = {
    {"{\n  \"comment\": \"x\"\n}",
     "2:3: unknown key 'comment' ignored; the keys here are: commandPolicy, read_only_command, "
     "denied_command, sensitive_paths, protected_paths, env, timeouts, output, trash, approval, pkg, risk"},
    {"{\"commandPolicy\": {\"sandbox\": {\n\t\"writeablePaths\": [\"/x\"]}}}",
     "2:2: unknown key 'commandPolicy.sandbox.writeablePaths' ignored (did you mean "
     "'writablePaths'?); the keys here are: enabled, allowNetwork, writablePaths, allowedDomains, allowUnixSockets, "
     "allowLocalAddresses, allowOutsideSandbox, allowSshAgent, allowDocker, allowGpu, backend, "
     "bwrap, maxProcesses, toolCaches, denyRead, allowRead"},
    {"{\"timeouts\": {\"Default\": 5}}",
     "1:15: unknown key 'timeouts.Default' ignored (did you mean 'default'?); the keys here "
     "are: default, cap"},
    {"{\"risk\": [{\"name\": \"n\", \"match\": \"x\", \"class\": \"safe\", \"reason\": \"r\"}]}",
     "1:56: unknown key 'risk[0].reason' ignored; the keys here are: name, match, class, why"},
    /* a UTF-8 byte order mark is skipped, and columns count its bytes */
    {"\xef\xbb\xbf{\"x\": 1}",
     "1:5: unknown key 'x' ignored; the keys here are: commandPolicy, read_only_command, "
     "denied_command, sensitive_paths, protected_paths, env, timeouts, output, trash, approval, pkg, risk"},
    {"{\"env\": [\"A\"],\n \"env\": [\"B\"]}",
     "1:2: duplicate key 'env' ignored; the later one at FILE:2:2 wins"},
};

START_TEST(test_warning_shapes)
{
	const struct warn_case *c = &warns[_i];
	struct pdk_config cfg;
	struct warnings w = {0};
	char why[512] = "", want[1024], *f;
	const char *path = puts_("warn.json", c->json);

	pdk_config_init(&cfg);
	ck_assert_int_eq(pdk_config_load_file(&cfg, path, true, collect, &w, why, sizeof(why)), 0);
	ck_assert_int_eq(w.n, 1);
	snprintf(want, sizeof(want), "%s:%s", path, c->line);
	while ((f = strstr(want, "FILE"))) { /* the twin's position names the file too */
		char rest[1024];

		snprintf(rest, sizeof(rest), "%s%s", path, f + 4);
		strcpy(f, rest);
	}
	ck_assert_str_eq(w.line[0], want);
	ck_assert_uint_eq(cfg.files.n, 1);
	pdk_config_release(&cfg);
	warnings_free(&w);
}
END_TEST

START_TEST(test_duplicate_later_wins)
{
	struct pdk_config cfg;
	struct warnings w = {0};
	char why[512];
	const char *path = puts_("dup.json", "{\"env\": [\"A\"], \"env\": [\"B\"], "
					     "\"$schema\": \"x\"}");

	pdk_config_init(&cfg);
	ck_assert_int_eq(pdk_config_load_file(&cfg, path, true, collect, &w, why, sizeof(why)), 0);
	ck_assert_int_eq(w.n, 1); /* $schema is allowed without a word */
	ck_assert_uint_eq(cfg.env.n, 1);
	ck_assert_str_eq(cfg.env.v[0], "B");
	pdk_config_release(&cfg);
	warnings_free(&w);
}
END_TEST

/* ---- values and merging ---- */

START_TEST(test_defaults)
{
	struct pdk_config cfg;

	pdk_config_init(&cfg);
	ck_assert(cfg.sandbox_enabled);
	ck_assert(!cfg.allow_network);
	ck_assert(!cfg.allow_outside_sandbox);
	ck_assert(cfg.timeout_default == 120);
	ck_assert(cfg.timeout_cap == 1800);
	ck_assert_uint_eq(cfg.bound, 16384);
	ck_assert_uint_eq(cfg.store_cap, 16 << 20);
	ck_assert_int_eq(cfg.approval_mode, PDK_APPROVAL_AUTO);
	ck_assert_int_eq(cfg.threshold, PDK_RISK_MODERATE);
	ck_assert_ptr_null(cfg.backend);
	ck_assert_ptr_null(cfg.pkg_manager);
	ck_assert_ptr_null(cfg.store_dir);
	ck_assert_uint_eq(cfg.n_deny + cfg.n_risk_rules + cfg.env.n + cfg.files.n, 0);
	pdk_config_release(&cfg);
}
END_TEST

START_TEST(test_every_key)
{
	struct pdk_config cfg;
	struct warnings w = {0};
	char why[512] = "";
	const char *path = puts_(
	    "all.json",
	    "{\"commandPolicy\": {\"deny\": [\"^sudo\"], \"allow\": [\"^make\"],\n"
	    " \"sandbox\": {\"enabled\": false, \"allowNetwork\": true, \"writablePaths\": "
	    "[\"/srv\"],\n"
	    "  \"allowOutsideSandbox\": true, \"backend\": \"landlock\", \"bwrap\": "
	    "\"/opt/bwrap\",\n"
	    "  \"maxProcesses\": 64, \"allowLocalAddresses\": [\"127.0.0.1\", \"fd00::/8\"]}},\n"
	    " \"read_only_command\": [\"git status\", \"ls\"], \"denied_command\": [\"dd\"],\n"
	    " \"sensitive_paths\": [\"/srv/secret\"], \"protected_paths\": [\".vscode/\"],\n"
	    " \"env\": [\"*_PAT\"], \"timeouts\": {\"default\": 2.5, \"cap\": 60},\n"
	    " \"output\": {\"bound\": 2048, \"storeCap\": 1000000, \"storeDir\": \"/var/out\"},\n"
	    " \"approval\": {\"mode\": \"command\", \"threshold\": \"dangerous\", \"command\": "
	    "\"/bin/ok\"},\n"
	    " \"pkg\": {\"manager\": \"pacman\"},\n"
	    " \"risk\": [{\"name\": \"tf\", \"match\": \"^terraform apply\", \"class\": "
	    "\"dangerous\"}]}");

	pdk_config_init(&cfg);
	ck_assert_msg(pdk_config_load_file(&cfg, path, true, collect, &w, why, sizeof(why)) == 0,
		      "%s", why);
	ck_assert_int_eq(w.n, 0);
	ck_assert_uint_eq(cfg.n_deny, 1);
	ck_assert_str_eq(cfg.deny[0].source, "^sudo");
	ck_assert_uint_eq(cfg.n_allow, 1);
	ck_assert(!cfg.sandbox_enabled && cfg.allow_network && cfg.allow_outside_sandbox);
	ck_assert_str_eq(cfg.writable_paths.v[0], "/srv");
	ck_assert_str_eq(cfg.backend, "landlock");
	ck_assert_str_eq(cfg.bwrap, "/opt/bwrap");
	ck_assert_str_eq(cfg.pkg_manager, "pacman");
	ck_assert_uint_eq(cfg.max_procs, 64);
	ck_assert_uint_eq(cfg.allow_local_addresses.n, 2);
	ck_assert_str_eq(cfg.allow_local_addresses.v[1], "fd00::/8");
	ck_assert_str_eq(cfg.read_only_command.v[1], "ls");
	ck_assert_ptr_null(cfg.read_only_command.v[2]); /* NULL-terminated */
	ck_assert_str_eq(cfg.denied_command.v[0], "dd");
	ck_assert_str_eq(cfg.protected_paths.v[0], ".vscode");
	ck_assert_str_eq(cfg.env.v[0], "*_PAT");
	ck_assert(cfg.timeout_default == 2.5 && cfg.timeout_cap == 60);
	ck_assert_uint_eq(cfg.bound, 2048);
	ck_assert_uint_eq(cfg.store_cap, 1000000);
	ck_assert_str_eq(cfg.store_dir, "/var/out");
	ck_assert_int_eq(cfg.approval_mode, PDK_APPROVAL_COMMAND);
	ck_assert_int_eq(cfg.threshold, PDK_RISK_DANGEROUS);
	ck_assert_str_eq(cfg.approval_command, "/bin/ok");
	ck_assert_uint_eq(cfg.n_risk_rules, 1);
	ck_assert_str_eq(cfg.risk_rules[0].name, "tf");
	ck_assert_int_eq(cfg.risk_rules[0].risk, PDK_RISK_DANGEROUS);
	ck_assert_str_eq(cfg.risk_rules[0].why, "matches the risk rule 'tf'");
	ck_assert(pdk_pattern_match(&cfg.risk_rules[0].match, "terraform apply -x", 18));
	ck_assert(!pdk_pattern_match(&cfg.risk_rules[0].match, "terraform plan", 14));
	pdk_config_release(&cfg);
}
END_TEST

START_TEST(test_merge_two_files)
{
	struct pdk_config cfg;
	char why[512] = "", where[600];
	const char *a = puts_("a.json", "{\"commandPolicy\": {\"deny\": [\"^a\"], \"sandbox\": "
					"{\"backend\": \"bwrap\", \"writablePaths\": [\"/a\"]}},\n"
					" \"env\": [\"A_*\"], \"timeouts\": {\"default\": 60}}");
	const char *b = puts_("b.json", "{\"commandPolicy\": {\"deny\": [\"^b\"], \"sandbox\": "
					"{\"writablePaths\": [\"/b\"], \"enabled\": false}},\n"
					" \"env\": [\"B_*\"], \"timeouts\": {\"default\": 90}}");

	pdk_config_init(&cfg);
	ck_assert_int_eq(pdk_config_load_file(&cfg, a, true, NULL, NULL, why, sizeof(why)), 0);
	ck_assert_int_eq(pdk_config_load_file(&cfg, b, true, NULL, NULL, why, sizeof(why)), 0);
	/* scalars: the later file wins; what it does not set stays */
	ck_assert(cfg.timeout_default == 90);
	ck_assert_str_eq(cfg.backend, "bwrap");
	ck_assert(!cfg.sandbox_enabled);
	/* lists add up, in file order */
	ck_assert_uint_eq(cfg.n_deny, 2);
	ck_assert_str_eq(cfg.deny[0].source, "^a");
	ck_assert_str_eq(cfg.deny[1].source, "^b");
	snprintf(where, sizeof(where), "%s:1:29", b);
	ck_assert_str_eq(cfg.deny[1].where, where);
	ck_assert_uint_eq(cfg.writable_paths.n, 2);
	ck_assert_str_eq(cfg.writable_paths.v[1], "/b");
	ck_assert_uint_eq(cfg.env.n, 2);
	ck_assert_uint_eq(cfg.files.n, 2);
	ck_assert_str_eq(cfg.files.v[0], a);
	ck_assert_str_eq(cfg.files.v[1], b);
	pdk_config_release(&cfg);
}
END_TEST

START_TEST(test_null_resets)
{
	struct pdk_config cfg;
	char why[512] = "";
	const char *a =
	    puts_("a.json", "{\"commandPolicy\": {\"sandbox\": {\"backend\": \"bwrap\", "
			    "\"enabled\": false}}, \"env\": [\"A_*\"], "
			    "\"output\": {\"storeDir\": \"/o\", \"bound\": 2048}}");
	const char *b = puts_("b.json", "{\"commandPolicy\": {\"sandbox\": {\"backend\": null}}, "
					"\"env\": null, \"output\": null}");

	pdk_config_init(&cfg);
	ck_assert_int_eq(pdk_config_load_file(&cfg, a, true, NULL, NULL, why, sizeof(why)), 0);
	ck_assert_int_eq(pdk_config_load_file(&cfg, b, true, NULL, NULL, why, sizeof(why)), 0);
	ck_assert_ptr_null(cfg.backend);
	ck_assert(!cfg.sandbox_enabled); /* not named in b: unchanged */
	ck_assert_uint_eq(cfg.env.n, 0);
	ck_assert_ptr_null(cfg.store_dir);
	ck_assert_uint_eq(cfg.bound, 16384);
	pdk_config_release(&cfg);
}
END_TEST

START_TEST(test_cap_lowers_default)
{
	struct pdk_config cfg;
	char why[512] = "";
	const char *a = puts_("a.json", "{\"timeouts\": {\"cap\": 30}}");
	const char *b = puts_("b.json", "{\"timeouts\": {\"default\": 31}}");

	pdk_config_init(&cfg);
	ck_assert_int_eq(pdk_config_load_file(&cfg, a, true, NULL, NULL, why, sizeof(why)), 0);
	ck_assert(cfg.timeout_default == 30 && cfg.timeout_cap == 30);
	/* A later file that sets the default above the earlier cap is an error there. */
	ck_assert_int_eq(pdk_config_load_file(&cfg, b, true, NULL, NULL, why, sizeof(why)),
			 -EINVAL);
	ck_assert_ptr_nonnull(strstr(why, "b.json:1:26: timeouts.default: 31 seconds is above "
					  "timeouts.cap (30)"));
	pdk_config_release(&cfg);
}
END_TEST

START_TEST(test_load_user_file_via_xdg)
{
	struct pdk_config cfg;
	struct warnings w = {0};
	char dir[600], file[700], why[512] = "";

	snprintf(dir, sizeof(dir), "%s/xdg", base);
	ck_assert_int_eq(mkdir(dir, 0700), 0);
	snprintf(file, sizeof(file), "%s/paddock", dir);
	ck_assert_int_eq(mkdir(file, 0700), 0);
	strcat(file, "/config.json");
	FILE *f = fopen(file, "w");
	fputs("{\"approval\": {\"mode\": \"deny\"}, \"denied_command\": [\"shutdown\"], \"x\": 1}",
	      f);
	fclose(f);
	setenv("XDG_CONFIG_HOME", dir, 1);
	setenv("HOME", "/nonexistent-home", 1);

	pdk_config_init(&cfg);
	ck_assert_msg(pdk_config_load(&cfg, NULL, collect, &w, why, sizeof(why)) == 0, "%s", why);
	ck_assert_int_eq(cfg.approval_mode, PDK_APPROVAL_DENY);
	ck_assert_uint_ge(cfg.files.n, 1);
	ck_assert_str_eq(cfg.files.v[cfg.files.n - 1], file);
	/* /etc/paddock/config.json is read first when it exists */
	ck_assert_uint_eq(cfg.files.n, access("/etc/paddock/config.json", F_OK) == 0 ? 2 : 1);
	ck_assert_str_eq(cfg.denied_command.v[cfg.denied_command.n - 1], "shutdown");
	ck_assert_int_ge(w.n, 1);
	ck_assert_ptr_nonnull(strstr(w.line[w.n - 1], "unknown key 'x' ignored"));
	pdk_config_release(&cfg);
	warnings_free(&w);
}
END_TEST

START_TEST(test_load_user_file_via_home)
{
	struct pdk_config cfg;
	char p[700], why[512] = "";

	snprintf(p, sizeof(p), "%s/.config", base);
	ck_assert_int_eq(mkdir(p, 0700), 0);
	strcat(p, "/paddock");
	ck_assert_int_eq(mkdir(p, 0700), 0);
	strcat(p, "/config.json");
	FILE *f = fopen(p, "w");
	fputs("{\"output\": {\"storeDir\": \"~/kept\"}}", f);
	fclose(f);
	unsetenv("XDG_CONFIG_HOME");
	setenv("HOME", base, 1);

	pdk_config_init(&cfg);
	ck_assert_msg(pdk_config_load(&cfg, NULL, NULL, NULL, why, sizeof(why)) == 0, "%s", why);
	ck_assert_str_eq(cfg.files.v[cfg.files.n - 1], p);
	snprintf(p, sizeof(p), "%s/kept", base);
	ck_assert_str_eq(cfg.store_dir, p);
	pdk_config_release(&cfg);
}
END_TEST

START_TEST(test_missing_files)
{
	struct pdk_config cfg;
	char why[512] = "", p[600], want[700];

	snprintf(p, sizeof(p), "%s/empty-xdg", base);
	setenv("XDG_CONFIG_HOME", p, 1);
	pdk_config_init(&cfg);
	/* the search path: a missing file is fine */
	ck_assert_int_eq(pdk_config_load(&cfg, NULL, NULL, NULL, why, sizeof(why)), 0);
	for (size_t i = 0; i < cfg.files.n; i++)
		ck_assert_ptr_null(strstr(cfg.files.v[i], "empty-xdg"));
	/* an explicit file must exist */
	snprintf(p, sizeof(p), "%s/nope.json", base);
	ck_assert_int_eq(pdk_config_load(&cfg, p, NULL, NULL, why, sizeof(why)), -ENOENT);
	snprintf(want, sizeof(want),
		 "%s: cannot open the configuration: No such file or "
		 "directory; check the path",
		 p);
	ck_assert_str_eq(why, want);
	ck_assert_int_eq(pdk_config_load_file(&cfg, p, false, NULL, NULL, why, sizeof(why)), 0);
	/* a directory is not a configuration */
	ck_assert_int_eq(pdk_config_load(&cfg, base, NULL, NULL, why, sizeof(why)), -EINVAL);
	ck_assert_ptr_nonnull(strstr(why, ": not a regular file"));
	pdk_config_release(&cfg);
}
END_TEST

START_TEST(test_example_loads_clean)
{
	struct pdk_config cfg;
	struct warnings w = {0};
	char p[1024], why[512] = "";
	const char *srcdir = getenv("srcdir") ? getenv("srcdir") : ".";

	snprintf(p, sizeof(p), "%s/data/config.example.json", srcdir);
	setenv("HOME", "/home/tester", 1);
	pdk_config_init(&cfg);
	ck_assert_msg(pdk_config_load(&cfg, p, collect, &w, why, sizeof(why)) == 0, "%s", why);
	ck_assert_msg(w.n == 0, "warning: %s", w.n ? w.line[0] : "");
	ck_assert_uint_eq(cfg.files.n, 1);
	ck_assert_uint_ge(cfg.n_deny, 1);
	ck_assert_uint_ge(cfg.n_risk_rules, 1);
	ck_assert_str_eq(cfg.writable_paths.v[0], "/home/tester/.cargo/registry");
	ck_assert(pdk_pattern_match(&cfg.deny[0], "curl https://x | sh", 19));
	ck_assert_uint_eq(cfg.trash_max_age_days, 30);
	ck_assert_uint_eq(cfg.trash_max_size, 1073741824);
	pdk_config_release(&cfg);
	warnings_free(&w);
}
END_TEST

/* The man page shows the shipped example; the two must not drift apart. */
START_TEST(test_man_page_shows_example)
{
	const char *srcdir = getenv("srcdir") ? getenv("srcdir") : ".";
	char p[1024], line[512], man[8192] = "", ex[8192] = "";
	bool in = false, seen = false;
	FILE *f;
	size_t n;

	snprintf(p, sizeof(p), "%s/man/paddock.json.5", srcdir);
	f = fopen(p, "r");
	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, ".Sh ", 4) == 0)
			seen = strcmp(line, ".Sh EXAMPLES\n") == 0;
		else if (seen && strncmp(line, ".Bd", 3) == 0)
			in = true;
		else if (in && strncmp(line, ".Ed", 3) == 0)
			in = seen = false;
		else if (in) {
			char *e;

			/* mdoc writes a backslash as \e */
			for (e = line; (e = strstr(e, "\\e")); e++)
				memmove(e + 1, e + 2, strlen(e + 2) + 1);
			ck_assert_uint_lt(strlen(man) + strlen(line), sizeof(man));
			strcat(man, line);
		}
	}
	fclose(f);
	snprintf(p, sizeof(p), "%s/data/config.example.json", srcdir);
	f = fopen(p, "r");
	ck_assert_ptr_nonnull(f);
	n = fread(ex, 1, sizeof(ex) - 1, f);
	ex[n] = '\0';
	fclose(f);
	ck_assert_str_eq(man, ex);
}
END_TEST

START_TEST(test_tilde)
{
	struct pdk_config cfg;
	char why[512] = "";
	const char *p =
	    puts_("t.json", "{\"commandPolicy\": {\"sandbox\": {\"writablePaths\": "
			    "[\"~\", \"~/w\", \"/x/~\"]}}, \"sensitive_paths\": [\"~/.kube\", "
			    "\".env\"], \"approval\": {\"command\": \"~/bin/ok\"}}");

	setenv("HOME", "/home/t/", 1);
	pdk_config_init(&cfg);
	ck_assert_msg(pdk_config_load_file(&cfg, p, true, NULL, NULL, why, sizeof(why)) == 0, "%s",
		      why);
	ck_assert_str_eq(cfg.writable_paths.v[0], "/home/t");
	ck_assert_str_eq(cfg.writable_paths.v[1], "/home/t/w");
	ck_assert_str_eq(cfg.writable_paths.v[2], "/x/~");
	ck_assert_str_eq(cfg.sensitive_paths.v[0], "/home/t/.kube");
	ck_assert_str_eq(cfg.sensitive_paths.v[1], ".env");
	ck_assert_str_eq(cfg.approval_command, "/home/t/bin/ok");
	pdk_config_release(&cfg);

	setenv("HOME", "/", 1);
	pdk_config_init(&cfg);
	ck_assert_int_eq(pdk_config_load_file(&cfg, p, true, NULL, NULL, why, sizeof(why)), 0);
	ck_assert_str_eq(cfg.writable_paths.v[0], "/");
	ck_assert_str_eq(cfg.writable_paths.v[1], "/w");
	pdk_config_release(&cfg);

	/* without a usable $HOME, ~ is an error, not a relative path */
	unsetenv("HOME");
	pdk_config_init(&cfg);
	ck_assert_int_eq(pdk_config_load_file(&cfg, p, true, NULL, NULL, why, sizeof(why)),
			 -EINVAL);
	ck_assert_ptr_nonnull(strstr(why, ":1:50: commandPolicy.sandbox.writablePaths[0]: '~': "
					  "$HOME is not an absolute path"));
	pdk_config_release(&cfg);
}
END_TEST

START_TEST(test_release_then_init_again)
{
	struct pdk_config cfg;
	char why[512] = "";
	const char *p =
	    puts_("r.json", "{\"commandPolicy\": {\"deny\": [\"x\"]}, \"env\": [\"E\"], "
			    "\"risk\": [{\"name\": \"n\", \"match\": \"m\", \"class\": "
			    "\"safe\", \"why\": \"w\"}]}");

	for (int i = 0; i < 3; i++) {
		pdk_config_init(&cfg);
		ck_assert_int_eq(pdk_config_load_file(&cfg, p, true, NULL, NULL, why, sizeof(why)),
				 0);
		ck_assert_uint_eq(cfg.n_deny, 1);
		ck_assert_str_eq(cfg.risk_rules[0].why, "w");
		pdk_config_release(&cfg);
		ck_assert_ptr_null(cfg.deny);
		ck_assert_uint_eq(cfg.env.n, 0);
	}
	/* a failed load leaves cfg releasable */
	p = puts_("r2.json", "{\"env\": [\"A\", \"B\", 3]}");
	pdk_config_init(&cfg);
	ck_assert_int_eq(pdk_config_load_file(&cfg, p, true, NULL, NULL, why, sizeof(why)),
			 -EINVAL);
	pdk_config_release(&cfg);
}
END_TEST

/* ---- patterns, risks, lists ---- */

START_TEST(test_patterns)
{
	struct pdk_pattern p;
	char why[256] = "";

	ck_assert_int_eq(pdk_pattern_compile(&p, "^rm -[a-z]*r", "f.json:1:2", why, sizeof(why)),
			 0);
	ck_assert_str_eq(p.where, "f.json:1:2");
	ck_assert(pdk_pattern_match(&p, "rm -fr /", 8));
	ck_assert(!pdk_pattern_match(&p, "rm -f x", 7));
	/* len bounds the text: "rm -fr" lies past it */
	ck_assert(!pdk_pattern_match(&p, "rm -fxr", 5));
	pdk_pattern_release(&p);
	ck_assert_ptr_null(p.re);

	/* bytes, not UTF-8: an invalid sequence still matches */
	ck_assert_int_eq(pdk_pattern_compile(&p, "a.b", NULL, why, sizeof(why)), 0);
	ck_assert_str_eq(p.where, "built-in");
	ck_assert(pdk_pattern_match(&p,
				    "a\xffz a\xff"
				    "b",
				    7));
	pdk_pattern_release(&p);

	ck_assert_int_eq(pdk_pattern_compile(&p, "a(?<n", NULL, why, sizeof(why)), -EINVAL);
	ck_assert_ptr_nonnull(strstr(why, "invalid pattern 'a(?<n': "));
	ck_assert_ptr_nonnull(strstr(why, " at offset 5"));
	ck_assert_ptr_null(p.re);
}
END_TEST

START_TEST(test_risk_and_strv)
{
	enum pdk_risk r = PDK_RISK_SAFE;
	struct pdk_strv sv = {0};

	ck_assert_str_eq(pdk_risk_name(PDK_RISK_MODERATE), "moderate");
	ck_assert_str_eq(pdk_risk_name(PDK_RISK_DANGEROUS), "dangerous");
	ck_assert_int_eq(pdk_risk_parse("dangerous", &r), 0);
	ck_assert_int_eq(r, PDK_RISK_DANGEROUS);
	ck_assert_int_eq(pdk_risk_parse("Dangerous", &r), -EINVAL);
	ck_assert_int_eq(r, PDK_RISK_DANGEROUS); /* untouched on failure */
	ck_assert_int_eq(pdk_strv_push(&sv, "a"), 0);
	ck_assert_int_eq(pdk_strv_push(&sv, "b"), 0);
	ck_assert_uint_eq(sv.n, 2);
	ck_assert_str_eq(sv.v[1], "b");
	ck_assert_ptr_null(sv.v[2]);
	pdk_strv_release(&sv);
	ck_assert_ptr_null(sv.v);
	ck_assert_uint_eq(sv.n, 0);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("config");
	TCase *tc = tcase_create("config");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_loop_test(tc, test_error_shapes, 0, (int)(sizeof(errors) / sizeof(errors[0])));
	tcase_add_test(tc, test_nul_byte);
	tcase_add_test(tc, test_too_deep);
	tcase_add_loop_test(tc, test_warning_shapes, 0, (int)(sizeof(warns) / sizeof(warns[0])));
	tcase_add_test(tc, test_duplicate_later_wins);
	tcase_add_test(tc, test_defaults);
	tcase_add_test(tc, test_every_key);
	tcase_add_test(tc, test_merge_two_files);
	tcase_add_test(tc, test_null_resets);
	tcase_add_test(tc, test_cap_lowers_default);
	tcase_add_test(tc, test_load_user_file_via_xdg);
	tcase_add_test(tc, test_load_user_file_via_home);
	tcase_add_test(tc, test_missing_files);
	tcase_add_test(tc, test_example_loads_clean);
	tcase_add_test(tc, test_man_page_shows_example);
	tcase_add_test(tc, test_tilde);
	tcase_add_test(tc, test_release_then_init_again);
	tcase_add_test(tc, test_patterns);
	tcase_add_test(tc, test_risk_and_strv);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return pdk_ck_run(suite());
}
