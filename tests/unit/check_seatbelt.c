/* check_seatbelt.c - the Seatbelt profile generator and backend ops, checked
 * on any host: golden profiles, path injection, argv shape, probe. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <check.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "backends/seatbelt/seatbelt.h"
#include "confine/sandbox.h"
#include "core/path.h"
#include "core/util.h"
#include "ck_util.h"

/* A path carrying SBPL syntax: a quote that would end the string, parens that
 * would open a rule granting writes everywhere, a newline, a backslash. */
static const char evil[] = "/Users/dev/x\") (allow file-write* (subpath \"/\")) ;\\\n(deny";

/* prepare() as a run's, with /bin/true standing in for sandbox-exec, which
 * accepts every profile it is given. */
static int prepare(const struct pdk_confine *policy, void **ret_state)
{
	return pdk_seatbelt_prepare_exe(policy, "/bin/true", false, ret_state);
}

static char *golden_dir(void)
{
	const char *srcdir = getenv("srcdir");
	char *d;

	ck_assert_int_ge(asprintf(&d, "%s/tests/golden/seatbelt", srcdir ? srcdir : "."), 0);
	return d;
}

static char *read_file(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t cap = 0, len = 0, n;

	ck_assert_msg(f != NULL, "cannot open %s: %s", path, strerror(errno));
	do {
		if (len + 4096 + 1 > cap) {
			cap = cap ? cap * 2 : 8192;
			buf = realloc(buf, cap);
			ck_assert_ptr_nonnull(buf);
		}
		n = fread(buf + len, 1, cap - len - 1, f);
		len += n;
	} while (n > 0);
	buf[len] = '\0';
	fclose(f);
	return buf;
}

/* ";; params", one NAME=VALUE per line, ";; profile", the profile. */
static char *render(const char *profile, char **params)
{
	char *s = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&s, &len);

	fputs(";; params\n", f);
	for (char **p = params; *p; p++)
		fprintf(f, "%s\n", *p);
	fputs(";; profile\n", f);
	fputs(profile, f);
	fclose(f);
	return s;
}

/* Parentheses balance outside strings, #"regex" literals and ; comments. */
static int paren_depth_ok(const char *p)
{
	int depth = 0;

	for (; *p; p++) {
		if (*p == ';') {
			while (*p && *p != '\n')
				p++;
			if (!*p)
				break;
		} else if (*p == '"') {
			for (p++; *p && *p != '"'; p++)
				if (*p == '\\' && p[1])
					p++;
			if (!*p)
				return 0; /* unterminated string */
		} else if (*p == '(') {
			depth++;
		} else if (*p == ')') {
			if (--depth < 0)
				return 0;
		}
	}
	return depth == 0;
}

static bool has_param(char **params, const char *name, size_t len)
{
	for (char **p = params; *p; p++)
		if (strncmp(*p, name, len) == 0 && (*p)[len] == '=')
			return true;
	return false;
}

/* Every (param "X") has a -D X=..., and every -D is used. */
static void check_params_match(const char *profile, char **params)
{
	static const char tag[] = "(param \"";
	size_t n_refs = 0;

	for (const char *p = strstr(profile, tag); p; p = strstr(p, tag)) {
		const char *name = p + strlen(tag), *end = strchr(name, '"');

		ck_assert_ptr_nonnull(end);
		ck_assert_msg(has_param(params, name, (size_t)(end - name)),
			      "profile uses %.*s, params do not define it", (int)(end - name),
			      name);
		n_refs++;
		p = end;
	}
	for (char **p = params; *p; p++) {
		char *eq = strchr(*p, '=');
		char *ref;

		ck_assert_ptr_nonnull(eq);
		ck_assert_int_ge(asprintf(&ref, "(param \"%.*s\")", (int)(eq - *p), *p), 0);
		ck_assert_msg(strstr(profile, ref), "param %s is never used", *p);
		free(ref);
	}
	(void)n_refs;
}

static void check_golden_run(const char *name, const struct pdk_confine *policy,
			     const struct pdk_seatbelt_run *run)
{
	char *profile = NULL, **params = NULL, *dir = golden_dir(), *path, *got;

	ck_assert_int_eq(pdk_seatbelt_profile(policy, run, &profile, &params), 0);
	ck_assert_msg(paren_depth_ok(profile), "%s: parentheses do not balance", name);
	check_params_match(profile, params);
	ck_assert_msg(strncmp(profile, "(version 1)\n", 12) == 0, "%s: no (version 1)", name);

	got = render(profile, params);
	ck_assert_int_ge(asprintf(&path, "%s/%s.golden", dir, name), 0);
	if (getenv("PDK_UPDATE_GOLDEN")) {
		FILE *f = fopen(path, "w");

		ck_assert_ptr_nonnull(f);
		fputs(got, f);
		fclose(f);
	}
	char *want = read_file(path);

	if (strcmp(got, want) != 0) {
		size_t i = 0, line = 1, start = 0;

		for (; got[i] && got[i] == want[i]; i++)
			if (got[i] == '\n')
				line++, start = i + 1;
		ck_abort_msg("%s differs from %s at line %zu (PDK_UPDATE_GOLDEN=1 rewrites it):"
			     "\n got: %.*s\nwant: %.*s",
			     name, path, line, (int)strcspn(got + start, "\n"), got + start,
			     (int)strcspn(want + start, "\n"), want + start);
	}
	free(want);
	free(got);
	free(path);
	free(dir);
	free(profile);
	pdk_strv_freep(&params);
}

static void check_golden(const char *name, const struct pdk_confine *policy)
{
	check_golden_run(name, policy, NULL);
}

START_TEST(golden_one_root)
{
	const char *roots[] = { "/private/tmp" };
	struct pdk_confine c = { .roots = roots, .n_roots = 1, .cwd = "/private/tmp" };

	check_golden("one-root", &c);
}
END_TEST

START_TEST(golden_several_roots)
{
	const char *roots[] = { "/Users/dev/proj", "/private/tmp",
				"/private/var/folders/q1/xyz/T", "/Users/dev/Library/Caches" };
	struct pdk_confine c = { .roots = roots, .n_roots = 4, .cwd = "/Users/dev/proj" };

	check_golden("several-roots", &c);
}
END_TEST

START_TEST(golden_protected)
{
	const char *roots[] = { "/Users/dev/proj", "/private/tmp" };
	const char *protect[] = { "/Users/dev/proj/.git/hooks", "/Users/dev/proj/.git/config",
				  "/Users/dev/proj/.bashrc", "/Users/dev/proj/.vscode",
				  "/Users/dev/proj/.mcp.json" };
	struct pdk_confine c = { .roots = roots, .n_roots = 2, .protect = protect,
				 .n_protect = 5, .cwd = "/Users/dev/proj" };

	check_golden("protected", &c);
}
END_TEST

START_TEST(golden_network_on)
{
	const char *roots[] = { "/Users/dev/proj" };
	struct pdk_confine c = { .roots = roots, .n_roots = 1, .network = true,
				 .cwd = "/Users/dev/proj" };

	check_golden("network-on", &c);
}
END_TEST

START_TEST(golden_no_roots)
{
	struct pdk_confine c = { .cwd = "/" };

	check_golden("no-roots", &c);
}
END_TEST

START_TEST(golden_network_off)
{
	const char *roots[] = { "/Users/dev/proj" };
	struct pdk_confine c = { .roots = roots, .n_roots = 1, .cwd = "/Users/dev/proj" };

	check_golden("network-off", &c);
}
END_TEST

START_TEST(golden_network_domains)
{
	const char *roots[] = { "/Users/dev/proj" };
	const char *domains[] = { "registry.npmjs.org", "*.pythonhosted.org" };
	struct pdk_confine c = { .roots = roots, .n_roots = 1, .domains = domains,
				 .n_domains = 2, .proxy_fd = -1, .cwd = "/Users/dev/proj" };
	struct pdk_seatbelt_run run = { .proxy_port = 43210 };

	check_golden_run("network-domains", &c, &run);
}
END_TEST

/* The network rules of a profile: the text from the network comment to the
 * next blank line. */
static char *net_section(const char *profile)
{
	const char *p = strstr(profile, "\n; network ");
	const char *e;

	ck_assert_ptr_nonnull(p);
	e = strstr(p + 1, "\n\n");
	return strndup(p + 1, e ? (size_t)(e - p) : strlen(p + 1));
}

/* The three modes: off reaches loopback only; domains adds the proxy's port
 * and nothing else; on reaches every IP address. No mode opens a unix socket
 * by path but the resolver's, and only on; none allows network* wholesale,
 * which would open every unix socket of the host. */
START_TEST(network_modes)
{
	const char *roots[] = { "/private/tmp" };
	const char *domains[] = { "example.org" };
	struct pdk_confine c = { .roots = roots, .n_roots = 1, .proxy_fd = -1 };
	struct pdk_seatbelt_run run = { .proxy_port = 8123 };
	static const char loopback[] = "(allow network-bind (local ip \"localhost:*\"))\n"
				       "(allow network-inbound (local ip \"localhost:*\"))\n"
				       "(allow network-outbound (remote ip \"localhost:*\"))\n";
	static const char proxy[] =
	    "(allow network-outbound\n  (remote ip (string-append \"localhost:\" (param "
	    "\"PROXY_PORT\"))))\n";
	char *text[3], *net[3], **params[3], *p;

	ck_assert_int_eq(pdk_seatbelt_profile(&c, &run, &text[0], &params[0]), 0);
	c.domains = domains;
	c.n_domains = 1;
	ck_assert_int_eq(pdk_seatbelt_profile(&c, NULL, &text[1], &params[1]), -EINVAL);
	run.proxy_port = 70000;
	ck_assert_int_eq(pdk_seatbelt_profile(&c, &run, &text[1], &params[1]), -EINVAL);
	run.proxy_port = 8123;
	ck_assert_int_eq(pdk_seatbelt_profile(&c, &run, &text[1], &params[1]), 0);
	c.network = true;
	ck_assert_int_eq(pdk_seatbelt_profile(&c, &run, &text[2], &params[2]), 0);
	for (int i = 0; i < 3; i++) {
		net[i] = net_section(text[i]);
		ck_assert_ptr_null(strstr(text[i], "(allow network*"));
		ck_assert_ptr_null(strstr(text[i], "(allow network-outbound)"));
		ck_assert_ptr_null(strstr(text[i], "(allow network-bind)"));
		ck_assert_ptr_null(strstr(text[i], "(remote unix-socket)"));
		ck_assert_ptr_null(strstr(text[i], "(local unix-socket"));
		check_params_match(text[i], params[i]);
	}
	/* off: loopback, sockets of the three families, nothing else */
	ck_assert_ptr_nonnull(strstr(net[0], loopback));
	ck_assert_ptr_null(strstr(net[0], "PROXY_PORT"));
	ck_assert_ptr_null(strstr(net[0], "unix-socket"));
	ck_assert_ptr_null(strstr(net[0], "(remote ip)"));
	ck_assert_ptr_null(strstr(net[0], "(allow system-socket)"));
	ck_assert_ptr_null(strstr(net[0], "mach-lookup"));
	ck_assert_ptr_null(params[0][1]); /* the port is not a parameter here */
	/* domains: off's rules and the proxy's port */
	p = strstr(net[1], loopback);
	ck_assert_ptr_nonnull(p);
	ck_assert_ptr_nonnull(strstr(p + strlen(loopback), proxy));
	ck_assert_ptr_null(strstr(net[1], "unix-socket"));
	ck_assert_ptr_null(strstr(net[1], "mach-lookup"));
	ck_assert_str_eq(params[1][1], "PROXY_PORT=8123");
	/* on: every address, the resolver's socket, no port parameter */
	ck_assert_ptr_nonnull(strstr(net[2], "(allow network-outbound (remote ip))\n"));
	ck_assert_ptr_nonnull(strstr(net[2], "(allow network-bind (local ip))\n"));
	ck_assert_ptr_null(strstr(net[2], "PROXY_PORT"));
	p = strstr(net[2], "unix-socket");
	ck_assert_ptr_nonnull(p);
	ck_assert(strncmp(p, "unix-socket (path-literal \"/private/var/run/mDNSResponder\"))", 59) ==
		  0);
	ck_assert_ptr_null(strstr(p + 1, "unix-socket"));
	ck_assert_ptr_null(params[2][1]);
	for (int i = 0; i < 3; i++) {
		free(text[i]);
		free(net[i]);
		pdk_strv_freep(&params[i]);
	}
}
END_TEST

/* One configured socket in each mode: the golden profile of each. */
static void check_golden_unix(const char *name, bool network, bool domains)
{
	const char *roots[] = { "/Users/dev/proj" };
	const char *doms[] = { "registry.npmjs.org" };
	const char *sockets[] = { "/Users/dev/.ssh/agent.sock" };
	const int fds[] = { -1 };
	struct pdk_confine c = { .roots = roots, .n_roots = 1, .network = network,
				 .domains = domains ? doms : NULL, .n_domains = domains,
				 .proxy_fd = -1, .unix_paths = sockets, .unix_fds = fds,
				 .n_unix = 1, .cwd = "/Users/dev/proj" };
	struct pdk_seatbelt_run run = { .proxy_port = 43210 };

	check_golden_run(name, &c, &run);
}

START_TEST(golden_unix_socket_off)
{
	check_golden_unix("unix-socket-off", false, false);
}
END_TEST

START_TEST(golden_unix_socket_domains)
{
	check_golden_unix("unix-socket-domains", false, true);
}
END_TEST

START_TEST(golden_unix_socket_on)
{
	check_golden_unix("unix-socket-on", true, false);
}
END_TEST

/* What a run adds on a Mac: the per-user cache directory and the run's own
 * TMPDIR, writable, and unix sockets in that TMPDIR, with the network off. */
START_TEST(golden_macos_run)
{
	const char *roots[] = { "/Users/dev/proj", "/private/var/folders/q1/xyz/T" };
	struct pdk_confine c = { .roots = roots, .n_roots = 2, .proxy_fd = -1,
				 .cwd = "/Users/dev/proj" };
	struct pdk_seatbelt_run run = { .user_cache = "/private/var/folders/q1/xyz/C/",
					.run_tmpdir = "/private/var/folders/q1/xyz/T/pdk-a1B2c3" };

	check_golden_run("macos-run", &c, &run);
}
END_TEST

/* Run sh -c text, asserting it succeeds. */
static void sh(const char *text)
{
	int st = system(text);

	ck_assert_msg(st == 0, "%s: status %d", text, st);
}

/* The policy the sandbox stage builds for the project base/proj (HOME, the temp, cache,
 * state, configuration and data directories in base too), its paths under base as under
 * /Users/dev, into *c (its strings into *paths, to free). */
static void staged_policy(const char *base, bool allow_hooks, struct pdk_confine *c,
			  char ***paths)
{
	char *proj = NULL, *argv[] = { "true", NULL }, why[600] = "";
	struct pdk_request req = { .argv = argv, .allow_git_hooks = allow_hooks };
	struct pdk_sandbox sb = { 0 };
	size_t n = 0, blen = strlen(base);
	const char **roots, **protect;

	ck_assert_int_ge(asprintf(&proj, "%s/proj", base), 0);
	req.root = proj;
	(void)pdk_sandbox_setup(&req, NULL, "/bin/true", environ, &sb, why, sizeof(why));
	ck_assert_msg(sb.policy.n_roots > 0, "no policy: %s", why);
	*paths = calloc(sb.policy.n_roots + sb.policy.n_protect + 1, sizeof(char *));
	roots = calloc(sb.policy.n_roots + 1, sizeof(char *));
	protect = calloc(sb.policy.n_protect + 1, sizeof(char *));
	ck_assert(*paths && roots && protect);
	for (size_t i = 0; i < sb.policy.n_roots + sb.policy.n_protect; i++) {
		bool root = i < sb.policy.n_roots;
		const char *p = root ? sb.policy.roots[i] : sb.policy.protect[i - sb.policy.n_roots];

		ck_assert_msg(pdk_path_under(p, base), "%s lies outside %s", p, base);
		ck_assert_int_ge(asprintf(&(*paths)[n], "/Users/dev%s", p + blen), 0);
		if (root)
			roots[i] = (*paths)[n++];
		else
			protect[i - sb.policy.n_roots] = (*paths)[n++];
	}
	*c = (struct pdk_confine){ .roots = roots, .n_roots = sb.policy.n_roots,
				   .protect = protect, .n_protect = sb.policy.n_protect,
				   .proxy_fd = -1, .cwd = "/Users/dev/proj" };
	pdk_sandbox_release(&sb);
	free(proj);
}

/*
 * What the sandbox stage gives Seatbelt for a project whose hooks are elsewhere than in
 * .git/hooks: core.hooksPath naming husky's .husky/_, and a .git/hooks that is a symlink to
 * ../tools/hooks. Both directories are protected (denied writes in the profile) at their
 * real paths; with --allow-git-hooks neither is. A missing one is denied as the name
 * Seatbelt matches, with no "." or empty part.
 */
/* The secrets: denied to reads in any letter case, wildcards kept to one component, the
 * exceptions allowed again after them. */
START_TEST(golden_secrets)
{
	const char *roots[] = { "/Users/dev/proj" };
	const char *deny[] = { "/Users/dev/.ssh", "/Users/dev/.aws", "/etc/ssh/ssh_host_*_key",
			       "/Users/dev/proj/.env", "/Users/dev/proj/.env.*",
			       "/Users/dev/odd\\[1\\]/.netrc", "/Users/dev/proj/key[!s]" };
	const char *allow[] = { "/Users/dev/.ssh/known_hosts", "/Users/dev/.ssh/*.pub",
				"/Users/dev/proj/.env.example" };
	struct pdk_confine c = { .roots = roots, .n_roots = 1, .cwd = "/Users/dev/proj",
				 .deny_read = deny, .n_deny_read = 7, .allow_read = allow,
				 .n_allow_read = 3 };

	check_golden("secrets", &c);
}
END_TEST

START_TEST(golden_hookspath)
{
	char tmpl[] = "/tmp/pdk-hookspath-XXXXXX", *base, *cmd = NULL, **paths = NULL;
	struct pdk_confine c;
	char *profile = NULL, **params = NULL, *text;

	ck_assert_ptr_nonnull(mkdtemp(tmpl));
	base = realpath(tmpl, NULL);
	ck_assert_ptr_nonnull(base);
	ck_assert_int_ge(asprintf(&cmd, "cd '%s' && mkdir -p tmp cache state config data home && "
				  "git init -q proj 2>/dev/null && cd proj && "
				  "git config core.hooksPath .husky/_ && mkdir -p .husky/_ tools/hooks && "
				  "rm -rf .git/hooks && ln -s ../tools/hooks .git/hooks", base), 0);
	sh(cmd);
	free(cmd);
	const char *vars[][2] = { { "HOME", "home" }, { "TMPDIR", "tmp" }, { "XDG_CACHE_HOME", "cache" },
				  { "XDG_STATE_HOME", "state" }, { "XDG_CONFIG_HOME", "config" },
				  { "XDG_DATA_HOME", "data" } };
	char *saved[6];

	for (size_t i = 0; i < 6; i++) {
		const char *v = getenv(vars[i][0]);

		saved[i] = v ? strdup(v) : NULL;
		ck_assert_int_ge(asprintf(&cmd, "%s/%s", base, vars[i][1]), 0);
		setenv(vars[i][0], cmd, 1);
		free(cmd);
	}
	setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
	unsetenv("GIT_CONFIG_GLOBAL");

	staged_policy(base, false, &c, &paths);
	check_golden("hookspath", &c);
	free((void *)c.roots);
	free((void *)c.protect);
	pdk_strv_freep(&paths);

	/* --allow-git-hooks: neither hooks directory is held. */
	staged_policy(base, true, &c, &paths);
	ck_assert_int_eq(pdk_seatbelt_profile(&c, NULL, &profile, &params), 0);
	text = render(profile, params);
	ck_assert_msg(!strstr(text, "/.husky/_\n") && !strstr(text, "/tools/hooks\n") &&
		      !strstr(text, "/.git/hooks\n"), "%s", text);
	free(text);
	free(profile);
	pdk_strv_freep(&params);
	free((void *)c.roots);
	free((void *)c.protect);
	pdk_strv_freep(&paths);

	/* A missing one, spelled loosely: denied by the name Seatbelt matches, no "." in it. */
	ck_assert_int_ge(asprintf(&cmd, "git -C '%s/proj' config core.hooksPath gh/./x//", base), 0);
	sh(cmd);
	free(cmd);
	staged_policy(base, false, &c, &paths);
	ck_assert_int_eq(pdk_seatbelt_profile(&c, NULL, &profile, &params), 0);
	text = render(profile, params);
	ck_assert_msg(strstr(text, "=/Users/dev/proj/gh/x\n"), "%s", text);
	free(text);
	free(profile);
	pdk_strv_freep(&params);
	free((void *)c.roots);
	free((void *)c.protect);
	pdk_strv_freep(&paths);

	for (size_t i = 0; i < 6; i++) {
		if (saved[i])
			setenv(vars[i][0], saved[i], 1);
		else
			unsetenv(vars[i][0]);
		free(saved[i]);
	}
	ck_assert_int_ge(asprintf(&cmd, "rm -rf '%s'", base), 0);
	sh(cmd);
	free(cmd);
	free(base);
}
END_TEST

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;

	for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
		n++;
	return n;
}

static const char *strv_find(char **v, const char *s)
{
	for (; *v; v++)
		if (strcmp(*v, s) == 0)
			return *v;
	return NULL;
}

static size_t n_params(char **params, const char *prefix)
{
	size_t n = 0;

	for (char **p = params; *p; p++)
		n += strncmp(*p, prefix, strlen(prefix)) == 0;
	return n;
}

/*
 * allowUnixSockets: in each of the three modes the profile lets a connection
 * reach the configured path, exactly (path-literal, a parameter), and no other
 * unix socket: one rule, one filter per path, nothing that matches a prefix or
 * a pattern, no bind. Without the key the profile has no such rule.
 */
START_TEST(unix_sockets_each_mode)
{
	const char *roots[] = { "/private/tmp" };
	const char *domains[] = { "example.org" };
	const char *sockets[] = { "/Users/dev/.ssh/agent.sock" };
	static const char rule[] =
	    "(allow network-outbound\n"
	    "  (remote unix-socket (path-literal (param \"UNIX_SOCKET_0\"))))\n";
	struct pdk_seatbelt_run run = { .proxy_port = 8123 };

	for (int mode = 0; mode < 3; mode++) {
		struct pdk_confine c = { .roots = roots, .n_roots = 1, .proxy_fd = -1,
					 .network = mode == 2, .domains = domains,
					 .n_domains = mode == 1, .unix_paths = sockets,
					 .n_unix = 1 };
		char *text, **params;

		ck_assert_int_eq(pdk_seatbelt_profile(&c, &run, &text, &params), 0);
		check_params_match(text, params);
		ck_assert_msg(count(text, rule) == 1, "mode %d: no rule for the socket:\n%s", mode,
			      text);
		ck_assert_uint_eq(n_params(params, "UNIX_SOCKET_"), 1);
		ck_assert(has_param(params, "UNIX_SOCKET_0", 13));
		ck_assert_ptr_nonnull(strv_find(params, "UNIX_SOCKET_0=/Users/dev/.ssh/agent.sock"));
		/* the configured one, and on the resolver's too; nothing else */
		ck_assert_uint_eq(count(text, "unix-socket"), mode == 2 ? 2 : 1);
		ck_assert_uint_eq(count(text, "(remote unix-socket (path-literal "), mode == 2 ? 2 : 1);
		ck_assert_ptr_null(strstr(text, "(local unix-socket"));
		ck_assert_ptr_null(strstr(text, "path-regex"));
		ck_assert_ptr_null(strstr(text, "path-prefix"));
		ck_assert_ptr_null(strstr(text, "(allow network*"));
		ck_assert_ptr_null(strstr(text, "(allow network-outbound)"));
		/* the path travels as a parameter only */
		ck_assert_ptr_null(strstr(text, "agent.sock"));
		/* where the socket may be made at all */
		ck_assert_ptr_nonnull(strstr(text, mode == 2 ? "(allow system-socket)\n"
						       : "(allow system-socket (socket-domain AF_UNIX))\n"));
		free(text);
		pdk_strv_freep(&params);

		c.n_unix = 0;
		ck_assert_int_eq(pdk_seatbelt_profile(&c, &run, &text, &params), 0);
		ck_assert_uint_eq(count(text, "unix-socket"), mode == 2 ? 1 : 0);
		ck_assert_uint_eq(n_params(params, "UNIX_SOCKET_"), 0);
		free(text);
		pdk_strv_freep(&params);
	}
}
END_TEST

/*
 * The paths themselves: SBPL in one stays a parameter; a socket reached
 * through a symlinked directory is named by its real path too (as /tmp/x is
 * /private/tmp/x on macOS), once; a path Seatbelt could not match exactly is
 * left out, and with none left there is no rule, which without a filter
 * would open every unix socket.
 */
START_TEST(unix_socket_paths)
{
	char dir[] = "/tmp/pdk-sb-unix.XXXXXX", *real_dir, *link, *given, *real, *want;
	const char *one[1], *two[3];
	struct pdk_confine c = { .proxy_fd = -1, .unix_paths = one, .n_unix = 1 };
	char *text, **params;
	int fd;

	one[0] = evil;
	ck_assert_int_eq(pdk_seatbelt_profile(&c, NULL, &text, &params), 0);
	ck_assert_int_ge(asprintf(&want, "UNIX_SOCKET_0=%s", evil), 0);
	ck_assert_ptr_nonnull(strv_find(params, want));
	ck_assert_ptr_null(strstr(text, "(subpath \"/\")"));
	ck_assert(paren_depth_ok(text));
	ck_assert_uint_eq(count(text, "unix-socket"), 1);
	free(want);
	free(text);
	pdk_strv_freep(&params);

	for (const char *const *b = (const char *const[]){ "relative/sock", "/a/../b.sock",
							  "/a//b.sock", "/a/./b.sock", NULL };
	     *b; b++) {
		one[0] = *b;
		ck_assert_int_eq(pdk_seatbelt_profile(&c, NULL, &text, &params), 0);
		ck_assert_msg(!strstr(text, "unix-socket"), "%s: a rule", *b);
		ck_assert_uint_eq(n_params(params, "UNIX_SOCKET_"), 0);
		free(text);
		pdk_strv_freep(&params);
	}

	/* DIR/real/s, reached as DIR/link/s */
	ck_assert_ptr_nonnull(mkdtemp(dir));
	real_dir = realpath(dir, NULL);
	ck_assert_ptr_nonnull(real_dir);
	ck_assert_int_ge(asprintf(&link, "%s/link", dir), 0);
	ck_assert_int_ge(asprintf(&given, "%s/link/s", dir), 0);
	ck_assert_int_ge(asprintf(&real, "%s/real/s", real_dir), 0);
	ck_assert_int_ge(asprintf(&want, "%s/real", dir), 0);
	ck_assert_int_eq(mkdir(want, 0700), 0);
	ck_assert_int_eq(symlink("real", link), 0);
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	ck_assert_int_ge(fd, 0);
	{
		struct sockaddr_un a = { .sun_family = AF_UNIX };

		ck_assert_uint_lt(strlen(real), sizeof(a.sun_path));
		strcpy(a.sun_path, real);
		ck_assert_int_eq(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	}
	two[0] = given;
	two[1] = real; /* configured under both names: each once */
	two[2] = given;
	c.unix_paths = two;
	c.n_unix = 3;
	ck_assert_int_eq(pdk_seatbelt_profile(&c, NULL, &text, &params), 0);
	check_params_match(text, params);
	ck_assert_uint_eq(n_params(params, "UNIX_SOCKET_"), 2);
	free(want);
	ck_assert_int_ge(asprintf(&want, "UNIX_SOCKET_0=%s", given), 0);
	ck_assert_ptr_nonnull(strv_find(params, want));
	free(want);
	ck_assert_int_ge(asprintf(&want, "UNIX_SOCKET_1=%s", real), 0);
	ck_assert_ptr_nonnull(strv_find(params, want));
	ck_assert_uint_eq(count(text, "(remote unix-socket (path-literal (param \"UNIX_SOCKET_"),
			  2);
	free(text);
	pdk_strv_freep(&params);

	close(fd);
	unlink(real);
	unlink(link);
	free(want);
	ck_assert_int_ge(asprintf(&want, "%s/real", dir), 0);
	rmdir(want);
	rmdir(dir);
	free(want);
	free(given);
	free(real);
	free(link);
	free(real_dir);
}
END_TEST

/* Through the backend: the socket's -D is on sandbox-exec's command line. */
START_TEST(prepare_passes_unix_sockets)
{
	const char *sockets[] = { "/Users/dev/.ssh/agent.sock" };
	const int fds[] = { -1 };
	struct pdk_confine c = { .network = true, .proxy_fd = -1, .unix_paths = sockets,
				 .unix_fds = fds, .n_unix = 1 };
	char *const cmd[] = { "/bin/true", NULL };
	void *state = NULL;
	char **argv;
	size_t i;

	ck_assert_int_eq(prepare(&c, &state), 0);
	ck_assert_int_eq(pdk_backend_seatbelt.wrap_argv(state, cmd, &argv), 0);
	for (i = 0; argv[i] && strcmp(argv[i], "UNIX_SOCKET_0=/Users/dev/.ssh/agent.sock"); i++)
		;
	ck_assert_ptr_nonnull(argv[i]);
	ck_assert_str_eq(argv[i - 1], "-D");
	pdk_strv_freep(&argv);
	pdk_backend_seatbelt.release(state);
}
END_TEST

/* The domains mode through the backend: prepare() makes the proxy's
 * listener on loopback, hands it over the policy's control socket, and the
 * profile and the command's proxy variables name its port. */
START_TEST(prepare_domains_hands_listener)
{
	const char *roots[] = { "/private/tmp" };
	const char *domains[] = { "example.org" };
	struct pdk_confine c = { .roots = roots, .n_roots = 1, .domains = domains,
				 .n_domains = 1 };
	char cbuf[CMSG_SPACE(sizeof(int))], byte, want[64];
	struct iovec iov = { &byte, 1 };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
			      .msg_controllen = sizeof(cbuf) };
	struct sockaddr_in a;
	socklen_t alen = sizeof(a);
	void *state = NULL;
	char *const *env, **argv;
	char *const cmd[] = { "/bin/true", NULL };
	int sv[2], fd, n_env = 0;
	bool found = false;

	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	c.proxy_fd = sv[1];
	ck_assert_ptr_nonnull(pdk_backend_seatbelt.env);
	ck_assert(pdk_backend_seatbelt.proxy_on_loopback);
	ck_assert_int_eq(prepare(&c, &state), 0);
	ck_assert_int_eq(recvmsg(sv[0], &msg, 0), 1);
	struct cmsghdr *cm = CMSG_FIRSTHDR(&msg);

	ck_assert_ptr_nonnull(cm);
	ck_assert_int_eq(cm->cmsg_type, SCM_RIGHTS);
	memcpy(&fd, CMSG_DATA(cm), sizeof(int));
	ck_assert_int_eq(getsockname(fd, (struct sockaddr *)&a, &alen), 0);
	ck_assert_int_eq(a.sin_family, AF_INET);
	ck_assert_uint_eq(ntohl(a.sin_addr.s_addr), INADDR_LOOPBACK);
	int acc = -1;
	socklen_t olen = sizeof(acc);
	ck_assert_int_eq(getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &acc, &olen), 0);
	ck_assert_int_eq(acc, 1);

	ck_assert_int_eq(pdk_backend_seatbelt.wrap_argv(state, cmd, &argv), 0);
	snprintf(want, sizeof(want), "PROXY_PORT=%u", ntohs(a.sin_port));
	for (char **p = argv; *p; p++)
		found |= strcmp(*p, want) == 0;
	ck_assert_msg(found, "no -D %s", want);
	env = pdk_backend_seatbelt.env(state);
	ck_assert_ptr_nonnull(env);
	snprintf(want, sizeof(want), "HTTPS_PROXY=http://127.0.0.1:%u", ntohs(a.sin_port));
	found = false;
	for (; env[n_env]; n_env++)
		found |= strcmp(env[n_env], want) == 0;
	ck_assert_msg(found, "no %s", want);
	ck_assert_int_eq(n_env, 9); /* the proxy's eight, and the run's TMPDIR */
	ck_assert_int_eq(strncmp(env[8], "TMPDIR=", 7), 0);

	/* the network on, or off without domains: no listener, no proxy
	 * variables, only the run's TMPDIR */
	pdk_strv_freep(&argv);
	pdk_backend_seatbelt.release(state);
	c.network = true;
	ck_assert_int_eq(prepare(&c, &state), 0);
	env = pdk_backend_seatbelt.env(state);
	ck_assert_ptr_nonnull(env);
	ck_assert_int_eq(strncmp(env[0], "TMPDIR=", 7), 0);
	ck_assert_ptr_null(env[1]);
	pdk_backend_seatbelt.release(state);
	close(fd);
	close(sv[0]);
	close(sv[1]);
}
END_TEST

/* The protected denies come after the root allow (the last matching rule
 * wins), and parents of protected paths may not be unlinked. */
START_TEST(protected_after_allows)
{
	const char *roots[] = { "/r" };
	const char *protect[] = { "/r/.git/hooks" };
	struct pdk_confine c = { .roots = roots, .n_roots = 1, .protect = protect,
				 .n_protect = 1 };
	char *profile, **params;
	const char *allow, *deny, *unlink;

	ck_assert_int_eq(pdk_seatbelt_profile(&c, NULL, &profile, &params), 0);
	allow = strstr(profile, "(allow file-write*\n  (subpath (param \"WRITABLE_ROOT_0\"))");
	deny = strstr(profile, "(deny file-write*\n  (literal (param \"PROTECTED_0\"))\n"
			       "  (subpath (param \"PROTECTED_0\")))");
	unlink = strstr(profile, "(deny file-write-unlink\n  (literal (param "
				 "\"PROTECTED_PARENT_0\"))\n  (literal (param \"PROTECTED_PARENT_1\")))");
	ck_assert_ptr_nonnull(allow);
	ck_assert_ptr_nonnull(deny);
	ck_assert_ptr_nonnull(unlink);
	ck_assert(allow < deny && deny < unlink);
	/* nothing after the denies can re-open them */
	ck_assert_ptr_null(strstr(unlink, "(allow"));
	ck_assert_str_eq(params[0], "WRITABLE_ROOT_0=/r");
	ck_assert_str_eq(params[1], "PROTECTED_0=/r/.git/hooks");
	ck_assert_str_eq(params[2], "PROTECTED_PARENT_0=/r/.git");
	ck_assert_str_eq(params[3], "PROTECTED_PARENT_1=/r");
	ck_assert_str_eq(params[4], "GIT_DIR_0=/r/.git");
	ck_assert_ptr_null(params[5]);
	free(profile);
	pdk_strv_freep(&params);
}
END_TEST

/* A protected path right under "/" has no parent to pin: no parent rule at
 * all then, since an empty (deny file-write-unlink) would deny every unlink. */
START_TEST(protected_at_top)
{
	const char *roots[] = { "/" };
	const char *protect[] = { "/.mcp.json" };
	struct pdk_confine c = { .roots = roots, .n_roots = 1, .protect = protect,
				 .n_protect = 1 };
	char *profile, **params;

	ck_assert_int_eq(pdk_seatbelt_profile(&c, NULL, &profile, &params), 0);
	ck_assert_ptr_null(strstr(profile, "file-write-unlink"));
	ck_assert_ptr_nonnull(strstr(profile, "(deny file-write*\n  (literal (param \"PROTECTED_0\"))"));
	ck_assert(paren_depth_ok(profile));
	check_params_match(profile, params);
	ck_assert_str_eq(params[1], "PROTECTED_0=/.mcp.json");
	ck_assert_ptr_null(params[2]);
	free(profile);
	pdk_strv_freep(&params);
}
END_TEST

/* A path full of SBPL syntax reaches only the params: the profile is byte for
 * byte the one a plain path gives, and the param carries the path exactly. */
START_TEST(injection_root_and_protect)
{
	const char *plain_roots[] = { "/a", "/private/tmp" };
	const char *plain_protect[] = { "/a/b" };
	const char *evil_roots[] = { evil, "/private/tmp" };
	char *evil_child, *want;
	char *plain, *bad, **pp, **bp;

	ck_assert_int_ge(asprintf(&evil_child, "%s/.git", evil), 0);
	const char *evil_protect[] = { evil_child };
	struct pdk_confine c1 = { .roots = plain_roots, .n_roots = 2, .protect = plain_protect,
				  .n_protect = 1 };
	struct pdk_confine c2 = { .roots = evil_roots, .n_roots = 2, .protect = evil_protect,
				  .n_protect = 1 };

	ck_assert_int_eq(pdk_seatbelt_profile(&c1, NULL, &plain, &pp), 0);
	ck_assert_int_eq(pdk_seatbelt_profile(&c2, NULL, &bad, &bp), 0);
	/* /a/b has one parent (/a); evil/.git has evil, /Users/dev, /Users */
	ck_assert_ptr_null(strstr(bad, "/Users"));
	ck_assert_ptr_null(strstr(bad, "(subpath \"/\")"));
	ck_assert_ptr_null(strstr(bad, "\\"));
	ck_assert(paren_depth_ok(bad));
	check_params_match(bad, bp);

	ck_assert_int_ge(asprintf(&want, "WRITABLE_ROOT_0=%s", evil), 0);
	ck_assert_str_eq(bp[0], want);
	free(want);
	ck_assert_str_eq(bp[1], "WRITABLE_ROOT_1=/private/tmp");
	ck_assert_int_ge(asprintf(&want, "PROTECTED_0=%s", evil_child), 0);
	ck_assert_str_eq(bp[2], want);
	free(want);
	ck_assert_int_ge(asprintf(&want, "PROTECTED_PARENT_0=%s", evil), 0);
	ck_assert_str_eq(bp[3], want);
	free(want);

	/* same shape (two roots, one protected path) apart from the parent
	 * count and the case-insensitive rule, which a path with a control
	 * character does not get: compare up to those */
	size_t n_plain = (size_t)(strstr(plain, "; the same in any letter case") - plain);

	ck_assert_uint_eq(n_plain, (size_t)(strstr(bad, "; their parents") - bad));
	ck_assert(memcmp(plain, bad, n_plain) == 0);

	free(evil_child);
	free(plain);
	free(bad);
	pdk_strv_freep(&pp);
	pdk_strv_freep(&bp);
}
END_TEST

/* A C string ends at its first NUL, so nothing after one can reach the
 * profile or a param: the path is cut there, and the smuggled text is gone. */
START_TEST(nul_cuts_path)
{
	static const char buf[] = "/private/tmp/a\0\") (allow file-write* (subpath \"/\"))";
	const char *roots[] = { buf };
	struct pdk_confine c = { .roots = roots, .n_roots = 1 };
	char *profile, **params;

	ck_assert_int_eq(pdk_seatbelt_profile(&c, NULL, &profile, &params), 0);
	ck_assert_str_eq(params[0], "WRITABLE_ROOT_0=/private/tmp/a");
	ck_assert_ptr_null(params[1]);
	ck_assert_ptr_null(strstr(profile, "(subpath \"/\")"));
	free(profile);
	pdk_strv_freep(&params);
}
END_TEST

static const char *bad_paths[] = {
	"",	      "relative/dir", "./x",	   "/a/../b",	  "/a/./b",
	"/a//b",      "/a/..",	      "/a/.",	   "/..",	  "~/proj",
};

/* Paths Seatbelt would never match are refused, roots and protected paths
 * alike, and the out-parameters are left alone. */
START_TEST(bad_path_rejected)
{
	const char *path = bad_paths[_i];
	const char *roots[] = { "/private/tmp", path };
	const char *good[] = { "/private/tmp" };
	struct pdk_confine as_root = { .roots = roots, .n_roots = 2 };
	struct pdk_confine as_protect = { .roots = good, .n_roots = 1, .protect = &path,
					  .n_protect = 1 };
	char *profile = (char *)"untouched", **params = (char **)"untouched";
	void *state = (void *)"untouched";

	ck_assert_int_eq(pdk_seatbelt_profile(&as_root, NULL, &profile, &params), -EINVAL);
	ck_assert_int_eq(pdk_seatbelt_profile(&as_protect, NULL, &profile, &params), -EINVAL);
	ck_assert_str_eq(profile, "untouched");
	ck_assert_ptr_eq(params, (char **)"untouched");
	ck_assert_int_eq(prepare(&as_root, &state), -EINVAL);
	ck_assert_str_eq((char *)state, "untouched");
}
END_TEST

START_TEST(null_path_rejected)
{
	const char *roots[] = { NULL };
	struct pdk_confine c = { .roots = roots, .n_roots = 1 };
	struct pdk_confine no_array = { .n_roots = 1 };
	char *profile, **params;

	ck_assert_int_eq(pdk_seatbelt_profile(&c, NULL, &profile, &params), -EINVAL);
	ck_assert_int_eq(pdk_seatbelt_profile(&no_array, NULL, &profile, &params), -EINVAL);
	ck_assert_int_eq(pdk_seatbelt_profile(NULL, NULL, &profile, &params), -EINVAL);
}
END_TEST

/* $TMPDIR ends in a slash, and Seatbelt's subpath would not match it. */
START_TEST(trailing_slash_dropped)
{
	const char *roots[] = { "/private/var/folders/q1/xyz/T/", "/" };
	struct pdk_confine c = { .roots = roots, .n_roots = 2 };
	char *profile, **params;

	ck_assert_int_eq(pdk_seatbelt_profile(&c, NULL, &profile, &params), 0);
	ck_assert_str_eq(params[0], "WRITABLE_ROOT_0=/private/var/folders/q1/xyz/T");
	ck_assert_str_eq(params[1], "WRITABLE_ROOT_1=/");
	free(profile);
	pdk_strv_freep(&params);
}
END_TEST

START_TEST(wrap_argv_shape)
{
	const char *roots[] = { "/private/tmp", evil };
	struct pdk_confine c = { .roots = roots, .n_roots = 2 };
	char *const cmd[] = { "sh", "-c", "echo \"$1\"", "x\ny", NULL };
	char *profile, **params, **argv;
	void *state = NULL;
	size_t i = 0;

	struct pdk_seatbelt_run run = { 0 };

	ck_assert_int_eq(prepare(&c, &state), 0);
	ck_assert_int_eq(pdk_backend_seatbelt.wrap_argv(state, cmd, &argv), 0);
	/* what prepare() adds: the run's TMPDIR, and on a Mac the cache directory */
	for (char **p = argv; *p; p++) {
		if (!strncmp(*p, "RUN_TMPDIR=", 11))
			run.run_tmpdir = *p + 11;
		if (!strncmp(*p, "DARWIN_USER_CACHE_DIR=", 22))
			run.user_cache = *p + 22;
	}
	ck_assert_ptr_nonnull(run.run_tmpdir);
	ck_assert_int_eq(pdk_seatbelt_profile(&c, &run, &profile, &params), 0);
	ck_assert_str_eq(argv[i++], "/usr/bin/sandbox-exec");
	for (char **p = params; *p; p++) {
		ck_assert_str_eq(argv[i++], "-D");
		ck_assert_str_eq(argv[i++], *p);
	}
	ck_assert_str_eq(argv[i++], "-p");
	ck_assert_str_eq(argv[i++], profile);
	ck_assert_str_eq(argv[i++], "--");
	for (char *const *p = cmd; *p; p++)
		ck_assert_str_eq(argv[i++], *p);
	ck_assert_ptr_null(argv[i]);
	ck_assert_ptr_null(pdk_backend_seatbelt.enter);

	char **a2 = (char **)"untouched";
	char *const empty[] = { NULL };

	ck_assert_int_eq(pdk_backend_seatbelt.wrap_argv(state, empty, &a2), -EINVAL);
	ck_assert_ptr_eq(a2, (char **)"untouched");

	pdk_strv_freep(&argv);
	pdk_backend_seatbelt.release(state);
	pdk_backend_seatbelt.release(NULL);
	free(profile);
	pdk_strv_freep(&params);
}
END_TEST

/* describe() prints a shell line that runs exactly the argv wrap_argv makes:
 * run it with printf in place of sandbox-exec and compare word for word. */
START_TEST(describe_round_trips)
{
	const char *roots[] = { "/private/tmp", evil, "/it's" };
	struct pdk_confine c = { .roots = roots, .n_roots = 3 };
	char *const cmd[] = { "printf", "%s\n", "a b", "'q'", "", NULL };
	char *text = NULL, *script = NULL, **argv;
	size_t len = 0, slen = 0;
	void *state;
	FILE *f = open_memstream(&text, &len);
	const char *line;

	ck_assert_int_eq(prepare(&c, &state), 0);
	ck_assert_int_eq(pdk_backend_seatbelt.describe(state, cmd, f), 0);
	fclose(f);
	ck_assert_int_eq(pdk_backend_seatbelt.wrap_argv(state, cmd, &argv), 0);

	line = strstr(text, "\n/usr/bin/sandbox-exec ");
	ck_assert_ptr_nonnull(line);
	ck_assert_ptr_nonnull(strstr(text, "(version 1)\n"));
	f = open_memstream(&script, &slen);
	fprintf(f, "printf '%%s\\0' %s", line + strlen("\n/usr/bin/sandbox-exec "));
	fclose(f);

	int fds[2];
	pid_t pid;

	ck_assert_int_eq(pipe(fds), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		dup2(fds[1], 1);
		close(fds[0]);
		execl("/bin/sh", "sh", "-c", script, (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	char *out = NULL;
	size_t olen = 0, cap = 0;
	ssize_t n;

	do {
		if (olen + 4096 > cap) {
			cap = cap ? cap * 2 : 65536;
			out = realloc(out, cap);
		}
		n = read(fds[0], out + olen, cap - olen);
		if (n > 0)
			olen += (size_t)n;
	} while (n > 0);
	close(fds[0]);
	int status;

	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);

	size_t off = 0, i = 1;

	for (; argv[i]; i++) {
		size_t alen = strlen(argv[i]);

		ck_assert_msg(off + alen < olen, "shell line ended before argv[%zu]", i);
		ck_assert_msg(memcmp(out + off, argv[i], alen + 1) == 0,
			      "word %zu differs: got '%s', want '%s'", i, out + off, argv[i]);
		off += alen + 1;
	}
	ck_assert_uint_eq(off, olen);

	free(out);
	free(script);
	free(text);
	pdk_strv_freep(&argv);
	pdk_backend_seatbelt.release(state);
}
END_TEST

START_TEST(probe_linux_absent)
{
	char why[256] = "";
	struct stat st;

	if (stat("/usr/bin/sandbox-exec", &st) == 0)
		return; /* a Mac: nothing to check here */
	ck_assert_int_eq(pdk_backend_seatbelt.probe(why, sizeof(why)), -ENOENT);
	ck_assert_ptr_nonnull(strstr(why, "/usr/bin/sandbox-exec"));
	ck_assert_str_eq(pdk_backend_seatbelt.name, "seatbelt");
}
END_TEST

static char *fake_exe(const char *dir, const char *name, const char *body, mode_t mode)
{
	char *path;
	FILE *f;

	ck_assert_int_ge(asprintf(&path, "%s/%s", dir, name), 0);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(body, f);
	fclose(f);
	ck_assert_int_eq(chmod(path, mode), 0);
	return path;
}

/* The probe runs the helper once with the profile of a small policy and goes
 * by the exit status: a refusal is -EPERM, with the helper's reason. */
START_TEST(probe_runs_profile)
{
	char dir[] = "/tmp/check_seatbelt.XXXXXX";
	char why[256], *args, *got, *ok, *refuse, *noexec;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	ck_assert_int_ge(asprintf(&args, "%s/args", dir), 0);
	char *body;

	ck_assert_int_ge(asprintf(&body, "#!/bin/sh\nprintf '%%s|' \"$@\" > %s\nexit 0\n", args),
			 0);
	ok = fake_exe(dir, "ok", body, 0755);
	refuse = fake_exe(dir, "refuse",
			  "#!/bin/sh\necho 'sandbox-exec: unbound variable: file-link' >&2\n"
			  "echo second line >&2\nexit 65\n",
			  0755);
	noexec = fake_exe(dir, "noexec", "#!/bin/sh\nexit 0\n", 0644);

	ck_assert_int_eq(pdk_seatbelt_probe_exe(ok, false, why, sizeof(why)), 0);
	got = read_file(args);
	ck_assert_msg(strncmp(got, "-D|WRITABLE_ROOT_0=/private/tmp|-D|PROTECTED_0=", 46) == 0,
		      "probe args: %s", got);
	ck_assert_ptr_nonnull(strstr(got, "|-p|(version 1)\n"));
	ck_assert_ptr_nonnull(strstr(got, "(deny file-link"));
	ck_assert_ptr_nonnull(strstr(got, "(remote unix-socket (path-literal"));
	ck_assert_ptr_nonnull(strstr(got, "(local unix-socket (subpath (param \"WRITABLE_ROOT_0\")))"));
	ck_assert_str_eq(got + strlen(got) - strlen("|--|/usr/bin/true|"), "|--|/usr/bin/true|");
	ck_assert_int_eq(pdk_seatbelt_probe_exe(refuse, false, why, sizeof(why)), -EPERM);
	ck_assert_ptr_nonnull(strstr(why, "(sandbox-exec: unbound variable: file-link)"));
	ck_assert_ptr_null(strstr(why, "second line"));
	if (geteuid() != 0) /* root may "execute" anything per access(2) */
		ck_assert_int_eq(pdk_seatbelt_probe_exe(noexec, false, why, sizeof(why)),
				 -EACCES);

	unlink(args);
	unlink(ok);
	unlink(refuse);
	unlink(noexec);
	rmdir(dir);
	free(got);
	free(body);
	free(args);
	free(ok);
	free(refuse);
	free(noexec);
}
END_TEST

/* prepare() applies the run's own profile to /usr/bin/true first: a helper
 * that refuses it fails the run before the command, with its reason, and one
 * that accepts it got exactly the command line the run will use. */
START_TEST(prepare_validates_profile)
{
	const char *roots[] = { "/private/tmp" };
	const char *protect[] = { "/private/tmp/.vscode" };
	struct pdk_confine c = { .roots = roots, .n_roots = 1, .protect = protect,
				 .n_protect = 1, .proxy_fd = -1 };
	char dir[] = "/tmp/check_seatbelt.XXXXXX";
	char *const cmd[] = { "/usr/bin/true", NULL };
	char *args, *body, *ok, *refuse, *got, **argv, *want = NULL;
	size_t wlen = 0;
	void *state = (void *)"untouched";
	const char *why;
	bool nested = false;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	ck_assert_int_ge(asprintf(&args, "%s/args", dir), 0);
	ck_assert_int_ge(asprintf(&body, "#!/bin/sh\nprintf '%%s|' \"$@\" > %s\nexit 0\n", args),
			 0);
	ok = fake_exe(dir, "ok", body, 0755);
	refuse = fake_exe(dir, "refuse",
			  "#!/bin/sh\necho 'sandbox-exec: unknown operation: file-link' >&2\n"
			  "exit 65\n",
			  0755);
	ck_assert_ptr_nonnull(pdk_backend_seatbelt.prepare_why);

	ck_assert_int_eq(pdk_seatbelt_prepare_exe(&c, refuse, false, &state), -EPERM);
	ck_assert_ptr_eq(state, (void *)"untouched");
	why = pdk_backend_seatbelt.prepare_why();
	ck_assert_ptr_nonnull(why);
	ck_assert_ptr_nonnull(strstr(why, refuse));
	ck_assert_ptr_nonnull(strstr(why, "(sandbox-exec: unknown operation: file-link)"));
	ck_assert_ptr_nonnull(strstr(why, "nothing ran"));

	ck_assert_int_eq(pdk_seatbelt_prepare_exe(&c, ok, false, &state), 0);
	ck_assert_ptr_null(pdk_backend_seatbelt.prepare_why());
	ck_assert_ptr_null(pdk_backend_seatbelt.note(state, &nested));
	ck_assert(!nested);
	got = read_file(args);
	ck_assert_int_eq(pdk_backend_seatbelt.wrap_argv(state, cmd, &argv), 0);
	FILE *f = open_memstream(&want, &wlen);

	for (char **p = argv + 1; *p; p++)
		fprintf(f, "%s|", *p);
	fclose(f);
	ck_assert_str_eq(got, want);
	pdk_strv_freep(&argv);
	pdk_backend_seatbelt.release(state);

	/* a helper that cannot be started is no run either */
	ck_assert_int_eq(pdk_seatbelt_prepare_exe(&c, "/nonexistent/sandbox-exec", false, &state),
			 -ENOENT);
	ck_assert_ptr_nonnull(strstr(pdk_backend_seatbelt.prepare_why(), "cannot start"));

	unlink(args);
	unlink(ok);
	unlink(refuse);
	rmdir(dir);
	free(want);
	free(got);
	free(body);
	free(args);
	free(ok);
	free(refuse);
}
END_TEST

/* Inside another sandbox (sandbox_check), Seatbelt cannot apply a second
 * profile: nothing is validated or wrapped, the command runs as it is, and
 * the run, --print-profile and the probe say so. */
START_TEST(nested_runs_plainly)
{
	const char *roots[] = { "/private/tmp" };
	struct pdk_confine c = { .roots = roots, .n_roots = 1, .proxy_fd = -1 };
	char *const cmd[] = { "/bin/echo", "a b", NULL };
	char why[256], **argv, *text = NULL;
	size_t len = 0;
	void *state = NULL;
	const char *note;
	bool nested = false;
	FILE *f;

	/* no helper at all: inside another sandbox it is not run */
	ck_assert_int_eq(pdk_seatbelt_prepare_exe(&c, "/nonexistent/sandbox-exec", true, &state),
			 0);
	note = pdk_backend_seatbelt.note(state, &nested);
	ck_assert_ptr_nonnull(note);
	ck_assert(nested);
	ck_assert_msg(strncmp(note, "sandbox: ", 9) == 0 && strstr(note, "inside another sandbox"),
		      "note: %s", note);
	ck_assert_int_eq(pdk_backend_seatbelt.wrap_argv(state, cmd, &argv), 0);
	ck_assert_str_eq(argv[0], "/bin/echo");
	ck_assert_str_eq(argv[1], "a b");
	ck_assert_ptr_null(argv[2]);
	f = open_memstream(&text, &len);
	ck_assert_int_eq(pdk_backend_seatbelt.describe(state, cmd, f), 0);
	fclose(f);
	ck_assert_ptr_nonnull(strstr(text, "inside another sandbox"));
	ck_assert_ptr_nonnull(strstr(text, "\n/bin/echo 'a b'\n"));
	ck_assert_ptr_null(strstr(text, "sandbox-exec"));
	pdk_strv_freep(&argv);
	free(text);
	pdk_backend_seatbelt.release(state);

	ck_assert_int_eq(pdk_seatbelt_available_exe("/nonexistent/sandbox-exec", true, why,
						    sizeof(why)),
			 0);
	ck_assert_ptr_nonnull(strstr(why, "inside another sandbox"));
	ck_assert_int_eq(
		pdk_seatbelt_probe_exe("/nonexistent/sandbox-exec", true, why, sizeof(why)), 0);
	ck_assert_ptr_nonnull(strstr(why, "inside another sandbox"));
	/* and not nested, a missing helper is what it is */
	ck_assert_int_eq(pdk_seatbelt_available_exe("/nonexistent/sandbox-exec", false, why,
						    sizeof(why)),
			 -ENOENT);
}
END_TEST

static bool env_has(char *const *env, const char *prefix, const char **ret_value)
{
	for (; env && *env; env++)
		if (strncmp(*env, prefix, strlen(prefix)) == 0) {
			*ret_value = *env + strlen(prefix);
			return true;
		}
	return false;
}

/* The socket rules, in every network mode, name the run's TMPDIR and no
 * other path: the host's sockets elsewhere stay closed. */
START_TEST(run_tmpdir_sockets_each_mode)
{
	const char *roots[] = { "/Users/dev/proj" };
	const char *doms[] = { "example.org" };

	for (int mode = 0; mode < 3; mode++) {
		struct pdk_confine c = { .roots = roots, .n_roots = 1, .network = mode == 2,
					 .domains = mode == 1 ? doms : NULL,
					 .n_domains = mode == 1, .proxy_fd = -1 };
		struct pdk_seatbelt_run run = { .proxy_port = 4321, .run_tmpdir = "/private/tmp/pdk-x" };
		char *profile, **params;

		ck_assert_int_eq(pdk_seatbelt_profile(&c, &run, &profile, &params), 0);
		check_params_match(profile, params);
		ck_assert_msg(strstr(profile, "(allow network-bind network-inbound\n"
					      "  (local unix-socket (subpath (param \"RUN_TMPDIR\"))))\n"
					      "(allow network-outbound\n"
					      "  (remote unix-socket (subpath (param \"RUN_TMPDIR\"))))\n"),
			      "mode %d: no socket rule for the run's TMPDIR", mode);
		ck_assert_ptr_null(strstr(profile, "(local unix-socket)"));
		ck_assert_ptr_null(strstr(profile, "(remote unix-socket)"));
		ck_assert_ptr_nonnull(strv_find(params, "RUN_TMPDIR=/private/tmp/pdk-x"));
		free(profile);
		pdk_strv_freep(&params);
		/* without a run TMPDIR, no socket rule at all */
		run.run_tmpdir = NULL;
		ck_assert_int_eq(pdk_seatbelt_profile(&c, &run, &profile, &params), 0);
		ck_assert_ptr_null(strstr(profile, "unix-socket (subpath"));
		ck_assert_ptr_null(strstr(profile, "RUN_TMPDIR"));
		free(profile);
		pdk_strv_freep(&params);
	}
}
END_TEST

/* prepare() makes the run's TMPDIR in paddock's (0700, a short name), gives
 * it to the command and the profile, and release() removes it with what the
 * command left there, following no symbolic link out of it. */
START_TEST(run_tmpdir_made_and_removed)
{
	char base[] = "/tmp/check_seatbelt.XXXXXX";
	const char *roots[] = { "/private/tmp" };
	struct pdk_confine c = { .roots = roots, .n_roots = 1, .proxy_fd = -1 };
	char *old = getenv("TMPDIR") ? strdup(getenv("TMPDIR")) : NULL;
	char *outside, *outdir, *p, *real, **argv;
	char *const cmd[] = { "/bin/true", NULL };
	const char *dir = NULL;
	void *state = NULL;
	struct stat st;
	int fd;

	ck_assert_ptr_nonnull(mkdtemp(base));
	real = realpath(base, NULL);
	ck_assert_ptr_nonnull(real);
	ck_assert_int_ge(asprintf(&outside, "%s/outside", real), 0);
	ck_assert_int_ge(asprintf(&outdir, "%s/outdir", real), 0);
	fd = open(outside, O_CREAT | O_WRONLY, 0600);
	ck_assert_int_ge(fd, 0);
	close(fd);
	ck_assert_int_eq(mkdir(outdir, 0700), 0);
	ck_assert_int_ge(asprintf(&p, "%s/keep", outdir), 0);
	fd = open(p, O_CREAT | O_WRONLY, 0600);
	ck_assert_int_ge(fd, 0);
	close(fd);
	free(p);

	setenv("TMPDIR", base, 1);
	ck_assert_int_eq(prepare(&c, &state), 0);
	ck_assert_msg(env_has(pdk_backend_seatbelt.env(state), "TMPDIR=", &dir), "no TMPDIR");
	ck_assert_msg(strncmp(dir, real, strlen(real)) == 0 &&
			      strncmp(dir + strlen(real), "/pdk-", 5) == 0 &&
			      strlen(dir) == strlen(real) + 11,
		      "TMPDIR=%s", dir);
	ck_assert_int_eq(lstat(dir, &st), 0);
	ck_assert(S_ISDIR(st.st_mode));
	ck_assert_int_eq(st.st_mode & 07777, 0700);
	ck_assert_int_eq(pdk_backend_seatbelt.wrap_argv(state, cmd, &argv), 0);
	ck_assert_int_ge(asprintf(&p, "RUN_TMPDIR=%s", dir), 0);
	ck_assert_ptr_nonnull(strv_find(argv, p));
	free(p);
	pdk_strv_freep(&argv);

	/* what a command leaves: files, a tree, a directory it made read-only,
	 * a socket, and symbolic links to a file and a directory outside */
	ck_assert_int_ge(asprintf(&p, "%s/a/b/c", dir), 0);
	ck_assert_int_eq(pdk_mkdir_p(p, 0700), 0);
	free(p);
	ck_assert_int_ge(asprintf(&p, "%s/a/b/c/f", dir), 0);
	fd = open(p, O_CREAT | O_WRONLY, 0600);
	ck_assert_int_ge(fd, 0);
	close(fd);
	free(p);
	ck_assert_int_ge(asprintf(&p, "%s/a/b", dir), 0);
	ck_assert_int_eq(chmod(p, 0500), 0);
	free(p);
	ck_assert_int_ge(asprintf(&p, "%s/file-link", dir), 0);
	ck_assert_int_eq(symlink(outside, p), 0);
	free(p);
	ck_assert_int_ge(asprintf(&p, "%s/dir-link", dir), 0);
	ck_assert_int_eq(symlink(outdir, p), 0);
	free(p);
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int sock = socket(AF_UNIX, SOCK_STREAM, 0);

	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s/s.sock", dir);
	ck_assert_int_eq(bind(sock, (struct sockaddr *)&sun, sizeof(sun)), 0);
	close(sock);

	char *gone = strdup(dir);

	pdk_backend_seatbelt.release(state);
	ck_assert_int_eq(lstat(gone, &st), -1);
	ck_assert_int_eq(errno, ENOENT);
	ck_assert_int_eq(stat(outside, &st), 0);
	ck_assert_int_ge(asprintf(&p, "%s/keep", outdir), 0);
	ck_assert_int_eq(stat(p, &st), 0);
	unlink(p);
	free(p);

	/* inside another sandbox there is none */
	ck_assert_int_eq(pdk_seatbelt_prepare_exe(&c, "/bin/true", true, &state), 0);
	ck_assert(!env_has(pdk_backend_seatbelt.env(state), "TMPDIR=", &dir));
	pdk_backend_seatbelt.release(state);

	if (old)
		setenv("TMPDIR", old, 1);
	else
		unsetenv("TMPDIR");
	unlink(outside);
	rmdir(outdir);
	rmdir(base);
	free(gone);
	free(old);
	free(real);
	free(outside);
	free(outdir);
}
END_TEST

/* The n-th string of an SBPL text, unescaped (a backslash takes the next
 * character as it is); NULL when there are fewer. Comments are skipped. */
static char *sbpl_string(const char *p, size_t n)
{
	for (; *p; p++) {
		if (*p == ';') {
			while (*p && *p != '\n')
				p++;
			if (!*p)
				break;
		} else if (*p == '"') {
			char *s = malloc(strlen(p)), *o = s;

			ck_assert_ptr_nonnull(s);
			for (p++; *p && *p != '"'; p++) {
				if (*p == '\\' && p[1])
					p++;
				*o++ = *p;
			}
			*o = '\0';
			if (n-- == 0)
				return s;
			free(s);
			if (!*p)
				break;
		}
	}
	return NULL;
}

/* The regex a protected path gets, read back out of the profile's text and
 * compiled (POSIX ERE has the few constructs it uses): it matches the path
 * and what lies below it in any letter case, and nothing beside it. The path
 * carries SBPL and regex syntax: a quote, parens, a backslash, a dot, a
 * star, brackets, a dollar. */
START_TEST(protected_any_case)
{
	static const char odd[] = "/Users/Dev/a\") (allow file-write* (subpath \"/\")) ;\\.[x]*$";
	char *lower, *upper, *below, *beside, *dotless;
	const char *roots[] = { "/Users/Dev" };
	const char *protect[] = { "/Users/Dev/.vscode", odd };
	struct pdk_confine c = { .roots = roots, .n_roots = 1, .protect = protect,
				 .n_protect = 2 };
	char *profile, **params, *re = NULL, *s;
	regex_t rx[2];

	ck_assert_int_eq(pdk_seatbelt_profile(&c, NULL, &profile, &params), 0);
	ck_assert(paren_depth_ok(profile));
	ck_assert_ptr_null(strstr(profile, "(allow file-write* (subpath \"/\"))"));
	/* the two regexes, in order, are the strings that start with ^ */
	for (size_t i = 0, k = 0; (s = sbpl_string(profile, i)); i++) {
		if (s[0] == '^' && strstr(s, "(/|$)") && k < 2) {
			ck_assert_int_eq(regcomp(&rx[k++], s, REG_EXTENDED | REG_NOSUB), 0);
			re = re ? re : strdup(s);
		}
		free(s);
	}
	ck_assert_ptr_nonnull(re);
	ck_assert_str_eq(re, "^/[uU][sS][eE][rR][sS]/[dD][eE][vV]/\\.[vV][sS][cC][oO][dD][eE](/|$)");

	ck_assert_int_eq(regexec(&rx[0], "/Users/Dev/.vscode", 0, NULL, 0), 0);
	ck_assert_int_eq(regexec(&rx[0], "/users/dev/.VSCODE/tasks.json", 0, NULL, 0), 0);
	ck_assert_int_eq(regexec(&rx[0], "/Users/Dev/.Vscode", 0, NULL, 0), 0);
	ck_assert_int_ne(regexec(&rx[0], "/Users/Dev/.vscodex", 0, NULL, 0), 0);
	ck_assert_int_ne(regexec(&rx[0], "/Users/Dev/xvscode", 0, NULL, 0), 0);
	ck_assert_int_ne(regexec(&rx[0], "/Users/Dev/src/.vscode", 0, NULL, 0), 0);

	lower = strdup(odd);
	upper = strdup(odd);
	for (size_t i = 0; odd[i]; i++) {
		lower[i] = (char)tolower((unsigned char)odd[i]);
		upper[i] = (char)toupper((unsigned char)odd[i]);
	}
	ck_assert_int_ge(asprintf(&below, "%s/x", upper), 0);
	ck_assert_int_ge(asprintf(&beside, "%sx", odd), 0);
	dotless = strdup(odd);
	*strrchr(dotless, '.') = 'Q'; /* the dot is a dot, not any character */
	ck_assert_int_eq(regexec(&rx[1], odd, 0, NULL, 0), 0);
	ck_assert_int_eq(regexec(&rx[1], lower, 0, NULL, 0), 0);
	ck_assert_int_eq(regexec(&rx[1], below, 0, NULL, 0), 0);
	ck_assert_int_ne(regexec(&rx[1], beside, 0, NULL, 0), 0);
	ck_assert_int_ne(regexec(&rx[1], dotless, 0, NULL, 0), 0);

	regfree(&rx[0]);
	regfree(&rx[1]);
	free(re);
	free(lower);
	free(upper);
	free(below);
	free(beside);
	free(dotless);
	free(profile);
	pdk_strv_freep(&params);
}
END_TEST

/* A protected path that is a symlink is protected where it leads too; a
 * hard link cannot give a protected file a second, unchecked name. */
START_TEST(protected_symlink_and_link)
{
	char dir[] = "/tmp/pdk-sb.XXXXXX", *hooks, *target, *real, *want;
	struct pdk_confine c = { 0 };
	char *profile, **params;
	bool found = false;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	ck_assert_int_ge(asprintf(&target, "%s/tools-hooks", dir), 0);
	ck_assert_int_ge(asprintf(&hooks, "%s/hooks", dir), 0);
	ck_assert_int_eq(mkdir(target, 0700), 0);
	ck_assert_int_eq(symlink("tools-hooks", hooks), 0);
	real = realpath(target, NULL);
	ck_assert_ptr_nonnull(real);
	const char *roots[] = { dir };
	const char *protect[] = { hooks };
	c.roots = roots;
	c.n_roots = 1;
	c.protect = protect;
	c.n_protect = 1;

	ck_assert_int_eq(pdk_seatbelt_profile(&c, NULL, &profile, &params), 0);
	ck_assert_int_ge(asprintf(&want, "PROTECTED_1=%s", real), 0);
	for (char **p = params; *p; p++)
		found |= strcmp(*p, want) == 0;
	ck_assert_msg(found, "no param for the symlink's target %s", real);
	ck_assert_ptr_nonnull(strstr(profile, "(deny file-link\n  (literal (param \"PROTECTED_0\"))\n"
					      "  (subpath (param \"PROTECTED_0\"))\n"
					      "  (literal (param \"PROTECTED_1\"))"));

	unlink(hooks);
	rmdir(target);
	rmdir(dir);
	free(want);
	free(real);
	free(hooks);
	free(target);
	free(profile);
	pdk_strv_freep(&params);
}
END_TEST

/* The regexes of the rule that starts at rule (up to the next rule), compiled. */
static size_t rule_regexes(const char *rule, regex_t *rx, size_t max)
{
	const char *end = strstr(rule + 1, "\n(");
	char *text = strndup(rule, end ? (size_t)(end - rule) : strlen(rule)), *s;
	size_t k = 0;

	for (size_t i = 0; (s = sbpl_string(text, i)); i++) {
		if (s[0] == '^' && k < max)
			ck_assert_int_eq(regcomp(&rx[k++], s, REG_EXTENDED | REG_NOSUB), 0);
		free(s);
	}
	free(text);
	return k;
}

/* A missing .git may become a directory only: the rule refusing a file or a
 * symlink there names it exactly, in any letter case (.Git, .GIT), and not
 * what git init makes below it; no .git gets a commondir, in any case. */
START_TEST(git_dir_rules)
{
	const char *roots[] = { "/Users/dev/proj", "/Users/dev/lib" };
	const char *protect[] = { "/Users/dev/proj/.git/hooks", "/Users/dev/proj/.vscode",
				  "/Users/dev/lib/.git/hooks" };
	struct pdk_confine c = { .roots = roots, .n_roots = 2, .protect = protect,
				 .n_protect = 3 };
	char *profile, **params;
	const char *create, *common;
	regex_t rx[4];
	size_t n;

	ck_assert_int_eq(pdk_seatbelt_profile(&c, NULL, &profile, &params), 0);
	check_params_match(profile, params);
	ck_assert(paren_depth_ok(profile));
	create = strstr(profile, "\n(deny file-write-create file-link\n  (require-all\n"
				 "    (require-any (vnode-type REGULAR-FILE) (vnode-type SYMLINK))\n"
				 "    (require-any\n      (literal (param \"GIT_DIR_0\"))");
	ck_assert_ptr_nonnull(create);
	ck_assert_ptr_nonnull(strstr(create, "(literal (param \"GIT_DIR_1\"))"));
	common = strstr(profile, "\n(deny file-write* file-link\n  (literal (string-append "
				 "(param \"GIT_DIR_0\") \"/commondir\"))");
	ck_assert_ptr_nonnull(common);
	ck_assert(create < common);
	ck_assert_ptr_null(strstr(common, "(allow"));

	n = rule_regexes(create + 1, rx, 4);
	ck_assert_uint_eq(n, 2);
	ck_assert_int_eq(regexec(&rx[0], "/Users/dev/proj/.git", 0, NULL, 0), 0);
	ck_assert_int_eq(regexec(&rx[0], "/Users/dev/proj/.Git", 0, NULL, 0), 0);
	ck_assert_int_eq(regexec(&rx[0], "/users/DEV/proj/.GIT", 0, NULL, 0), 0);
	ck_assert_int_ne(regexec(&rx[0], "/Users/dev/proj/.git/HEAD", 0, NULL, 0), 0);
	ck_assert_int_ne(regexec(&rx[0], "/Users/dev/proj/.gitignore", 0, NULL, 0), 0);
	ck_assert_int_ne(regexec(&rx[0], "/Users/dev/proj/x.git", 0, NULL, 0), 0);
	ck_assert_int_eq(regexec(&rx[1], "/Users/dev/lib/.Git", 0, NULL, 0), 0);
	for (size_t i = 0; i < n; i++)
		regfree(&rx[i]);

	n = rule_regexes(common + 1, rx, 4);
	ck_assert_uint_eq(n, 2);
	ck_assert_int_eq(regexec(&rx[0], "/Users/dev/proj/.git/commondir", 0, NULL, 0), 0);
	ck_assert_int_eq(regexec(&rx[0], "/Users/dev/proj/.Git/CommonDir", 0, NULL, 0), 0);
	ck_assert_int_ne(regexec(&rx[0], "/Users/dev/proj/.git/commondir2", 0, NULL, 0), 0);
	for (size_t i = 0; i < n; i++)
		regfree(&rx[i]);

	/* the protected rule's own regex covers .Git/hooks below */
	n = rule_regexes(strstr(profile, "\n(deny file-write* file-link\n  (regex") + 1, rx, 4);
	ck_assert_uint_eq(n, 3);
	ck_assert_int_eq(regexec(&rx[0], "/Users/dev/proj/.Git/hooks/pre-commit", 0, NULL, 0), 0);
	ck_assert_int_eq(regexec(&rx[1], "/Users/dev/proj/.VSCODE/tasks.json", 0, NULL, 0), 0);
	for (size_t i = 0; i < n; i++)
		regfree(&rx[i]);

	/* no .git/hooks protected, no git rule */
	free(profile);
	pdk_strv_freep(&params);
	c.protect = protect + 1;
	c.n_protect = 1;
	ck_assert_int_eq(pdk_seatbelt_profile(&c, NULL, &profile, &params), 0);
	ck_assert_ptr_null(strstr(profile, "GIT_DIR"));
	ck_assert_ptr_null(strstr(profile, "vnode-type REGULAR-FILE"));
	free(profile);
	pdk_strv_freep(&params);
}
END_TEST

/*
 * The command's own unix sockets: bound, accepted and connected in the named
 * writable roots (the first n_socket_roots) and the run's TMPDIR, in every
 * network mode; the default roots (the host's TMPDIR, the cache), where the
 * host keeps its own sockets (tmux's, an editor's), get no socket rule.
 */
static const char *own_roots[] = { "/Users/dev/proj", "/Users/dev/scratch",
				   "/private/var/folders/q1/xyz/T", "/private/var/folders/q1/xyz/C" };

START_TEST(golden_own_sockets)
{
	struct pdk_confine c = { .roots = own_roots, .n_roots = 4, .n_socket_roots = 2,
				 .proxy_fd = -1, .cwd = "/Users/dev/proj" };
	struct pdk_seatbelt_run run = { .run_tmpdir = "/private/var/folders/q1/xyz/T/pdk-a1B2c3" };

	check_golden_run("own-sockets", &c, &run);
}
END_TEST

START_TEST(own_sockets_each_mode)
{
	const char *doms[] = { "example.org" };
	static const char bind[] =
	    "(allow network-bind network-inbound\n"
	    "  (local unix-socket (subpath (param \"WRITABLE_ROOT_0\")))\n"
	    "  (local unix-socket (subpath (param \"WRITABLE_ROOT_1\"))))\n";
	static const char connect[] =
	    "(allow network-outbound\n"
	    "  (remote unix-socket (subpath (param \"WRITABLE_ROOT_0\")))\n"
	    "  (remote unix-socket (subpath (param \"WRITABLE_ROOT_1\"))))\n";

	for (int mode = 0; mode < 3; mode++) {
		struct pdk_confine c = { .roots = own_roots, .n_roots = 4, .n_socket_roots = 2,
					 .network = mode == 2, .domains = mode == 1 ? doms : NULL,
					 .n_domains = mode == 1, .proxy_fd = -1 };
		struct pdk_seatbelt_run run = { .proxy_port = 4321 };
		char *text, **params;

		ck_assert_int_eq(pdk_seatbelt_profile(&c, &run, &text, &params), 0);
		check_params_match(text, params);
		ck_assert_msg(count(text, bind) == 1, "mode %d: no bind rule:\n%s", mode, text);
		ck_assert_msg(count(text, connect) == 1, "mode %d: no connect rule", mode);
		/* the attack: the host's TMPDIR and cache, /private/tmp, /var/run, any
		 * unix socket at all, stay closed to bind and connect */
		ck_assert_ptr_null(strstr(text, "unix-socket (subpath (param \"WRITABLE_ROOT_2\")"));
		ck_assert_ptr_null(strstr(text, "unix-socket (subpath (param \"WRITABLE_ROOT_3\")"));
		ck_assert_ptr_null(strstr(text, "unix-socket (subpath \"/"));
		ck_assert_ptr_null(strstr(text, "(local unix-socket)"));
		ck_assert_ptr_null(strstr(text, "(remote unix-socket)"));
		ck_assert_ptr_null(strstr(text, "(allow network*"));
		ck_assert_uint_eq(count(text, "unix-socket"), mode == 2 ? 5 : 4);
		free(text);
		pdk_strv_freep(&params);

		/* n_socket_roots past the roots: only the roots there are */
		c.n_roots = 1;
		c.n_socket_roots = 3;
		ck_assert_int_eq(pdk_seatbelt_profile(&c, &run, &text, &params), 0);
		check_params_match(text, params);
		ck_assert_uint_eq(count(text, "(local unix-socket (subpath"), 1);
		ck_assert_ptr_null(strstr(text, "WRITABLE_ROOT_1"));
		free(text);
		pdk_strv_freep(&params);
		/* none named (a run with no project root): no socket rule in the roots */
		c.n_roots = 4;
		c.n_socket_roots = 0;
		ck_assert_int_eq(pdk_seatbelt_profile(&c, &run, &text, &params), 0);
		ck_assert_ptr_null(strstr(text, "unix-socket (subpath"));
		free(text);
		pdk_strv_freep(&params);
	}
}
END_TEST

/* The named grants, one golden profile each: the ssh-agent's socket where
 * launchd puts it, by its /tmp path and its real path; Docker Desktop's
 * socket in /var/run and where that link leads; Metal for --gpu. */
START_TEST(golden_ssh_agent)
{
	const char *roots[] = { "/Users/dev/proj" };
	const char *sockets[] = { "/tmp/com.apple.launchd.AbC123/Listeners",
				  "/private/tmp/com.apple.launchd.AbC123/Listeners" };
	const char *from[] = { "--ssh-agent", "--ssh-agent" };
	const int fds[] = { -1, -1 };
	struct pdk_confine c = { .roots = roots, .n_roots = 1, .n_socket_roots = 1,
				 .proxy_fd = -1, .unix_paths = sockets, .unix_fds = fds,
				 .unix_from = from, .n_unix = 2, .cwd = "/Users/dev/proj" };

	check_golden("ssh-agent", &c);
}
END_TEST

START_TEST(golden_docker)
{
	const char *roots[] = { "/Users/dev/proj" };
	const char *sockets[] = { "/private/var/run/docker.sock",
				  "/Users/dev/.docker/run/docker.sock" };
	const char *from[] = { "--docker", "--docker" };
	const int fds[] = { -1, -1 };
	struct pdk_confine c = { .roots = roots, .n_roots = 1, .n_socket_roots = 1,
				 .network = true, .proxy_fd = -1, .unix_paths = sockets,
				 .unix_fds = fds, .unix_from = from, .n_unix = 2,
				 .cwd = "/Users/dev/proj" };

	check_golden("docker", &c);
}
END_TEST

START_TEST(golden_gpu)
{
	const char *roots[] = { "/Users/dev/proj" };
	struct pdk_confine c = { .roots = roots, .n_roots = 1, .n_socket_roots = 1,
				 .proxy_fd = -1, .gpu = true, .cwd = "/Users/dev/proj" };

	check_golden("gpu", &c);
}
END_TEST

/*
 * Grants side by side with allowUnixSockets: each socket under the words of
 * what opened it, each group once, a path two of them name under the first;
 * without a grant, no trace of it: no IOKit, no Metal, no host socket.
 */
START_TEST(grants_each_in_its_place)
{
	const char *sockets[] = { "/Users/dev/db.sock", "/Users/dev/agent.sock",
				  "/var/run/docker.sock", "/Users/dev/db.sock" };
	const char *from[] = { "allowUnixSockets", "--ssh-agent", "--docker", "--docker" };
	struct pdk_confine c = { .proxy_fd = -1, .unix_paths = sockets, .unix_from = from,
				 .n_unix = 4, .gpu = true };
	char *text, **params;
	const char *a, *s, *d, *g;

	ck_assert_int_eq(pdk_seatbelt_profile(&c, NULL, &text, &params), 0);
	check_params_match(text, params);
	ck_assert_uint_eq(n_params(params, "UNIX_SOCKET_"), 3);
	ck_assert_ptr_nonnull(strv_find(params, "UNIX_SOCKET_0=/Users/dev/db.sock"));
	ck_assert_ptr_nonnull(strv_find(params, "UNIX_SOCKET_1=/Users/dev/agent.sock"));
	ck_assert_ptr_nonnull(strv_find(params, "UNIX_SOCKET_2=/var/run/docker.sock"));
	ck_assert_uint_eq(count(text, "; allowUnixSockets:"), 1);
	ck_assert_uint_eq(count(text, "; --ssh-agent:"), 1);
	ck_assert_uint_eq(count(text, "; --docker:"), 1);
	ck_assert_uint_eq(count(text, "; --gpu:"), 1);
	a = strstr(text, "; allowUnixSockets:");
	s = strstr(text, "; --ssh-agent:");
	d = strstr(text, "; --docker:");
	g = strstr(text, "; --gpu:");
	ck_assert(a < s && s < d && d < g);
	ck_assert_ptr_nonnull(strstr(a, "(param \"UNIX_SOCKET_0\")"));
	ck_assert(strstr(a, "(param \"UNIX_SOCKET_0\")") < s);
	ck_assert(strstr(s, "(param \"UNIX_SOCKET_1\")") < d);
	ck_assert(strstr(d, "(param \"UNIX_SOCKET_2\")") < g);
	ck_assert_uint_eq(count(text, "(param \"UNIX_SOCKET_0\")"), 1);
	free(text);
	pdk_strv_freep(&params);

	/* no unix_from (a caller that does not say): allowUnixSockets' words */
	c.unix_from = NULL;
	c.gpu = false;
	ck_assert_int_eq(pdk_seatbelt_profile(&c, NULL, &text, &params), 0);
	ck_assert_uint_eq(count(text, "; allowUnixSockets:"), 1);
	ck_assert_ptr_null(strstr(text, "--ssh-agent"));
	ck_assert_ptr_null(strstr(text, "--docker"));
	free(text);
	pdk_strv_freep(&params);

	/* the attack: nothing granted, nothing of the grants */
	c.n_unix = 0;
	ck_assert_int_eq(pdk_seatbelt_profile(&c, NULL, &text, &params), 0);
	ck_assert_ptr_null(strstr(text, "iokit"));
	ck_assert_ptr_null(strstr(text, "MTLCompilerService"));
	ck_assert_ptr_null(strstr(text, "AGX"));
	ck_assert_ptr_null(strstr(text, "IOSurface"));
	ck_assert_ptr_null(strstr(text, "(remote unix-socket"));
	ck_assert_uint_eq(n_params(params, "UNIX_SOCKET_"), 0);
	free(text);
	pdk_strv_freep(&params);
}
END_TEST

/* --print-profile says each grant: the profile it prints carries the words
 * and rules, and the command line the socket's path as a -D parameter. */
START_TEST(describe_says_grants)
{
	const char *sockets[] = { "/Users/dev/agent.sock", "/var/run/docker.sock" };
	const char *from[] = { "--ssh-agent", "--docker" };
	const int fds[] = { -1, -1 };
	struct pdk_confine c = { .network = true, .proxy_fd = -1, .unix_paths = sockets,
				 .unix_fds = fds, .unix_from = from, .n_unix = 2, .gpu = true };
	char *const cmd[] = { "/bin/true", NULL };
	char *text = NULL;
	size_t len = 0;
	void *state = NULL;
	FILE *f = open_memstream(&text, &len);

	ck_assert_int_eq(prepare(&c, &state), 0);
	ck_assert_int_eq(pdk_backend_seatbelt.describe(state, cmd, f), 0);
	fclose(f);
	ck_assert_ptr_nonnull(strstr(text, "; --ssh-agent: the ssh-agent"));
	ck_assert_ptr_nonnull(strstr(text, "; --docker: the container engine"));
	ck_assert_ptr_nonnull(strstr(text, "; --gpu: Metal compute"));
	ck_assert_ptr_nonnull(strstr(text, "(iokit-user-client-class \"AGXDeviceUserClient\")"));
	ck_assert_ptr_nonnull(strstr(text, "(global-name \"com.apple.MTLCompilerService\")"));
	ck_assert_ptr_nonnull(strstr(text, "-D UNIX_SOCKET_0=/Users/dev/agent.sock"));
	ck_assert_ptr_nonnull(strstr(text, "-D UNIX_SOCKET_1=/var/run/docker.sock"));
	free(text);
	pdk_backend_seatbelt.release(state);
}
END_TEST

static Suite *seatbelt_suite(void)
{
	Suite *s = suite_create("seatbelt");
	TCase *g = tcase_create("golden"), *p = tcase_create("paths"),
	      *b = tcase_create("backend");

	tcase_add_test(g, golden_one_root);
	tcase_add_test(g, golden_several_roots);
	tcase_add_test(g, golden_protected);
	tcase_add_test(g, golden_network_on);
	tcase_add_test(g, golden_no_roots);
	tcase_add_test(g, golden_network_off);
	tcase_add_test(g, golden_network_domains);
	tcase_add_test(g, network_modes);
	tcase_add_test(g, golden_unix_socket_off);
	tcase_add_test(g, golden_unix_socket_domains);
	tcase_add_test(g, golden_unix_socket_on);
	tcase_add_test(g, golden_macos_run);
	tcase_add_test(g, golden_hookspath);
	tcase_add_test(g, golden_secrets);
	tcase_add_test(g, unix_sockets_each_mode);
	tcase_add_test(g, protected_after_allows);
	tcase_add_test(g, protected_at_top);
	tcase_add_test(g, golden_own_sockets);
	tcase_add_test(g, own_sockets_each_mode);
	tcase_add_test(g, golden_ssh_agent);
	tcase_add_test(g, golden_docker);
	tcase_add_test(g, golden_gpu);
	tcase_add_test(g, grants_each_in_its_place);
	suite_add_tcase(s, g);

	tcase_add_test(p, injection_root_and_protect);
	tcase_add_test(p, protected_any_case);
	tcase_add_test(p, protected_symlink_and_link);
	tcase_add_test(p, git_dir_rules);
	tcase_add_test(p, nul_cuts_path);
	tcase_add_loop_test(p, bad_path_rejected, 0, (int)PDK_ARRAY_SIZE(bad_paths));
	tcase_add_test(p, null_path_rejected);
	tcase_add_test(p, trailing_slash_dropped);
	tcase_add_test(p, unix_socket_paths);
	suite_add_tcase(s, p);

	tcase_add_test(b, wrap_argv_shape);
	tcase_add_test(b, describe_round_trips);
	tcase_add_test(b, prepare_domains_hands_listener);
	tcase_add_test(b, prepare_passes_unix_sockets);
	tcase_add_test(b, probe_linux_absent);
	tcase_add_test(b, probe_runs_profile);
	tcase_add_test(b, prepare_validates_profile);
	tcase_add_test(b, nested_runs_plainly);
	tcase_add_test(b, run_tmpdir_sockets_each_mode);
	tcase_add_test(b, run_tmpdir_made_and_removed);
	tcase_add_test(b, describe_says_grants);
	suite_add_tcase(s, b);
	return s;
}

int main(void)
{
	return pdk_ck_run(seatbelt_suite());
}
