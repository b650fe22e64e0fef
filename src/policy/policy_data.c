/* policy_data.c - what paddock ships, looked up: program names (in the table built
 * from src/policy/policy_lists.h), options that make a read-only program write, sensitive paths. */
#include <fnmatch.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "confine/secrets.h"
#include "core/path.h"
#include "policy_int.h"
#include "policy_lists.h"
/* Generated in the build tree from data/read_only_command.json (src/policy/local.mk). */
#include "policy/read_only_table.h"
/* Generated in the build tree by tools/classes-gen (src/policy/local.mk). */
#include "policy/class_table.h"

/* Each rule's pattern is compiled the first time a command of one of its
 * programs is judged: most calls need none, and compiling them all would
 * cost every run of paddock about 0.4 ms. */
static pthread_mutex_t compile_lock = PTHREAD_MUTEX_INITIALIZER;
static pcre2_code *compiled[PDK_ARRAY_SIZE(shipped)];

/* Program names in an open-addressing hash table (src/policy/class_table.h), laid out
 * at build time: one lookup per command, and nothing to build at start-up. */
static const struct pdk_prog_class *find_class(const char *name, size_t len)
{
	size_t h = pdk_class_slot(slots, classes, name, len);

	return slots[h] ? &classes[slots[h] - 1] : NULL;
}

const struct pdk_prog_class *pdk_policy_classify(const char *prog)
{
	if (!strncmp(prog, "mkfs.", 5))
		prog = "mkfs";
	return find_class(prog, strlen(prog));
}

const struct pdk_shipped_rule *pdk_policy_shipped_rules(size_t *ret_n)
{
	*ret_n = PDK_ARRAY_SIZE(shipped);
	return shipped;
}

void *pdk_policy_match_data(void)
{
	return pcre2_match_data_create(4, NULL);
}

void pdk_policy_match_data_free(void *md)
{
	pcre2_match_data_free(md);
}

/* A pattern that cannot be compiled (no memory) counts as a match: the rule
 * applies rather than being skipped. */
bool pdk_policy_shipped_match(size_t i, const char *text, size_t len, void *md)
{
	pcre2_code *re;
	int ec;
	PCRE2_SIZE off;

	pthread_mutex_lock(&compile_lock);
	if (!compiled[i])
		compiled[i] = pcre2_compile((PCRE2_SPTR)shipped[i].pattern, PCRE2_ZERO_TERMINATED, 0,
					    &ec, &off, NULL);
	re = compiled[i];
	pthread_mutex_unlock(&compile_lock);
	return !re || pcre2_match(re, (PCRE2_SPTR)text, len, 0, 0, md, NULL) >= 0;
}

static int cmp_key(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

bool pdk_policy_read_only_lookup(const char *key)
{
	return bsearch(&key, pdk_read_only_table, pdk_read_only_table_n, sizeof(char *), cmp_key) !=
	       NULL;
}

static bool short_flag(const char *a, char f, const char *argopts)
{
	if (a[0] != '-' || a[1] == '-' || !a[1])
		return false;
	for (const char *c = a + 1; *c; c++) {
		if (*c == f)
			return true;
		if (strchr(argopts, *c))
			return false;
	}
	return false;
}

/* sed: -i edits in place; the w/W commands and s///w write files, e and s///e run
 * commands. Scripts are scanned roughly: any of those command letters counts. */
static bool sed_writes(char *const *argv, size_t argc)
{
	bool script_seen = false;

	for (size_t i = 1; i < argc; i++) {
		const char *a = argv[i], *script = NULL;

		if (short_flag(a, 'i', "efl") || !strncmp(a, "--in-place", 10) ||
		    !strcmp(a, "-f") || !strncmp(a, "--file", 6))
			return true;
		if (!strcmp(a, "-e") || !strcmp(a, "--expression")) {
			script = i + 1 < argc ? argv[++i] : "";
		} else if (!strncmp(a, "--expression=", 13)) {
			script = a + 13;
		} else if (a[0] == '-' && a[1]) {
			const char *e = strchr(a, 'e');

			if (e && !strpbrk(a, "fl"))
				script = e[1] ? e + 1 : (i + 1 < argc ? argv[++i] : "");
			if (strchr(a, 'f'))
				return true;
			if (!script)
				continue;
		} else if (!script_seen) {
			script = a;
		} else {
			continue;
		}
		script_seen = true;
		/* a command letter w/W/e at a command position, or a w/e flag after s/// */
		for (const char *p = script; *p; p++) {
			const char *q = p;

			while (*q == ' ' || *q == '\t' || *q == '\n' || *q == ';' || *q == '{' ||
			       *q == '}' || *q == '!' || (*q >= '0' && *q <= '9') || *q == ',' ||
			       *q == '$')
				q++;
			if ((*q == 'w' || *q == 'W' || *q == 'e') && (q == script || q > p))
				return true;
			if (*q == 's' && q[1]) {
				char d = q[1];
				int seen = 0;

				for (q += 2; *q && seen < 2; q++) {
					if (*q == '\\' && q[1])
						q++;
					else if (*q == d)
						seen++;
				}
				while (*q && strchr("gpiImM0123456789", *q))
					q++;
				if (*q == 'w' || *q == 'e')
					return true;
				p = *q ? q : q - 1;
				continue;
			}
			if (*q == '/' || *q == '\\') {
				char d = *q == '\\' ? q[1] : '/';

				for (q += *q == '\\' ? 2 : 1; *q && *q != d; q++)
					if (*q == '\\' && q[1])
						q++;
				p = *q ? q : q - 1;
				continue;
			}
			p = *q ? q : q - 1;
			/* skip the rest of a command up to the next separator */
			while (p[1] && p[1] != ';' && p[1] != '\n' && p[1] != '}')
				p++;
		}
	}
	return false;
}

static size_t positionals(char *const *argv, size_t argc)
{
	size_t n = 0;

	for (size_t i = 1; i < argc; i++)
		if (argv[i][0] != '-')
			n++;
	return n;
}

bool pdk_policy_writes_by_options(const char *entry, char *const *argv, size_t argc)
{
	const char *prog = entry;
	char first[64];
	size_t l = strcspn(entry, " ");

	if (l < sizeof(first)) {
		memcpy(first, entry, l);
		first[l] = '\0';
		prog = first;
	}
	if (!strcmp(prog, "sed"))
		return sed_writes(argv, argc);
	for (size_t i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(prog, "sort") &&
		    (short_flag(a, 'o', "kStT") || !strncmp(a, "--output", 8)))
			return true;
		if (!strcmp(prog, "find") &&
		    (!strcmp(a, "-delete") || !strncmp(a, "-fprint", 7) || !strcmp(a, "-fls") ||
		     !strncmp(a, "-exec", 5) || !strncmp(a, "-ok", 3)))
			return true;
		if ((!strcmp(prog, "yq") || !strcmp(prog, "perl")) &&
		    (short_flag(a, 'i', "") || !strncmp(a, "--inplace", 9) ||
		     !strncmp(a, "--in-place", 10)))
			return true;
		if ((!strcmp(prog, "rg") && !strncmp(a, "--pre", 5)) ||
		    (!strcmp(prog, "fd") &&
		     (!strncmp(a, "--exec", 6) || !strcmp(a, "-x") || !strcmp(a, "-X"))) ||
		    (!strcmp(prog, "tree") && (!strcmp(a, "-o") || !strncmp(a, "--output", 8))) ||
		    (!strcmp(prog, "date") &&
		     (short_flag(a, 's', "dfrI") || !strncmp(a, "--set", 5))) ||
		    (!strcmp(prog, "git") &&
		     (!strncmp(a, "--output", 8) || !strcmp(a, "-O") ||
		      !strncmp(a, "--open-files-in-pager", 21) || !strcmp(a, "--ext-diff"))) ||
		    (!strcmp(prog, "curl") && (short_flag(a, 'o', "") || short_flag(a, 'O', "") ||
					       !strncmp(a, "--output", 8))) ||
		    (!strcmp(prog, "hostname") && a[0] != '-'))
			return true;
	}
	/* listing forms only: a name creates a branch, tag or remote */
	if (!strcmp(entry, "git branch") || !strcmp(entry, "git tag")) {
		bool list = false;

		for (size_t i = 2; i < argc; i++) {
			const char *a = argv[i];

			if (!strcmp(a, "-l") || !strcmp(a, "--list") ||
			    !strncmp(a, "--contains", 10) || !strncmp(a, "--merged", 8) ||
			    !strncmp(a, "--points-at", 11))
				list = true;
			if (a[0] == '-' && (strpbrk(a + 1, "dDmMcCfu") && a[1] != '-'))
				return true;
			if (!strncmp(a, "--delete", 8) || !strncmp(a, "--move", 6) ||
			    !strncmp(a, "--copy", 6) || !strncmp(a, "--set-upstream", 14) ||
			    !strncmp(a, "--unset-upstream", 16) || !strncmp(a, "--edit", 6) ||
			    !strcmp(a, "--force"))
				return true;
		}
		return !list && positionals(argv + 1, argc - 1) > 0;
	}
	if ((!strcmp(prog, "uniq") || !strcmp(prog, "xxd")) && positionals(argv, argc) > 1)
		return true;
	return false;
}

#include "read_only_audit.h"

/* Does arg match an audit option (see read_only_audit.h)? *next_too when the
 * option's value is the next word. */
static bool audit_match(const char *opt, const char *arg)
{
	size_t n = strlen(opt);

	if (opt[0] != '-')
		return !strcmp(arg, opt);
	if (opt[n - 1] == '=')
		return !strncmp(arg, opt, n) || (strlen(arg) == n - 1 && !strncmp(arg, opt, n - 1));
	if (opt[1] != '-' && n == 2)
		return short_flag(arg, opt[1], "");
	return !strcmp(arg, opt);
}

/* An environment prefix NAME= among the words of text (quotes honoured). */
static const char *env_cancel(const char *text)
{
	for (const char *p = text; p && *p;) {
		const char *w, *eq;
		char q = 0;

		while (*p == ' ' || *p == '\t')
			p++;
		w = p;
		for (; *p && (q || (*p != ' ' && *p != '\t')); p++) {
			if (q && *p == q)
				q = 0;
			else if (!q && (*p == '\'' || *p == '"'))
				q = *p;
			else if (*p == '\\' && p[1])
				p++;
		}
		eq = memchr(w, '=', (size_t)(p - w));
		if (!eq || eq == w)
			continue;
		for (size_t i = 0; i < sizeof(pdk_ro_env_cancel) / sizeof(*pdk_ro_env_cancel); i++) {
			const char *name = pdk_ro_env_cancel[i];
			size_t n = strlen(name), len = (size_t)(eq - w);

			if (name[n - 1] == '_' ? (len > n && !strncmp(w, name, n))
					       : (len == n && !strncmp(w, name, n)))
				return name;
		}
	}
	return NULL;
}

const char *pdk_policy_ro_cancelled(const char *entry, char *const *argv, size_t argc,
				    const char *text, char *buf, size_t len)
{
	const char *env = text ? env_cancel(text) : NULL;

	if (env) {
		snprintf(buf, len, "%s set: it can make the program run another, or read "
			 "configuration that does", env);
		return buf;
	}
	for (size_t k = 0; k < sizeof(pdk_ro_audit) / sizeof(*pdk_ro_audit); k++) {
		const struct pdk_ro_cancel *c = &pdk_ro_audit[k];
		size_t n = strlen(c->entry);

		if (strncmp(entry, c->entry, n) || (entry[n] && entry[n] != ' '))
			continue;
		for (size_t i = 1; i < argc; i++)
			if (audit_match(c->option, argv[i])) {
				snprintf(buf, len, "%s %s %s", c->entry, c->option, c->why);
				return buf;
			}
	}
	return NULL;
}

static bool kind_of(const char *prog, unsigned kind)
{
	const struct pdk_prog_class *c = pdk_policy_classify(prog);

	return c && (c->kind & kind);
}

bool pdk_policy_is_downloader(const char *prog)
{
	return kind_of(prog, PDK_PK_DOWNLOADER);
}

bool pdk_policy_is_shell(const char *prog)
{
	return kind_of(prog, PDK_PK_SHELL);
}

bool pdk_policy_is_interpreter(const char *prog)
{
	return kind_of(prog, PDK_PK_INTERPRETER);
}

/* Relative to $HOME: the path and everything under it. */
static const char *const home_sensitive[] = {
    ".ssh",
    ".aws",
    ".gnupg",
    ".netrc",
    ".config/gh",
    ".docker/config.json",
    ".kube",
    ".git-credentials",
    ".password-store",
    ".mozilla",
    ".config/google-chrome",
    ".config/chromium",
    ".config/BraveSoftware",
    "Library/Keychains",
    "Library/Application Support/Google/Chrome",
    "Library/Application Support/Firefox",
    ".azure",
    ".config/gcloud",
    ".npmrc",
    ".pypirc",
    ".cargo/credentials",
    ".cargo/credentials.toml",
    ".local/share/keyrings",
    ".pgpass",
    ".vault-token",
    ".terraform.d/credentials.tfrc.json",
    ".config/paddock",
    ".local/state/paddock",
};
static const char *const abs_sensitive[] = {
    "/etc/shadow",
    "/etc/gshadow",
    "/etc/shadow-",
    "/etc/gshadow-",
    "/etc/sudoers",
    "/etc/sudoers.d",
    "/etc/ssh/ssh_host_rsa_key",
    "/etc/ssh/ssh_host_ecdsa_key",
    "/etc/ssh/ssh_host_ed25519_key",
    "/etc/ssl/private",
};

/* The secrets under a home: $HOME's, and root's whoever runs. A home itself
 * is no secret: projects live there (/root, in a container). */
static const char *home_secret(const char *abs, const char *home, char *rule, size_t size)
{
	const char *bases[] = {home, "/root"};

	for (size_t b = 0; b < PDK_ARRAY_SIZE(bases); b++) {
		const char *h = bases[b];
		size_t hl;

		if (!h || !*h || !strcmp(h, "/") || (b && home && !strcmp(home, h)))
			continue;
		hl = strlen(h);
		while (hl > 1 && h[hl - 1] == '/')
			hl--;
		if (strncmp(abs, h, hl) || abs[hl] != '/')
			continue;
		for (size_t i = 0; i < PDK_ARRAY_SIZE(home_sensitive); i++)
			if (pdk_path_under(abs + hl + 1, home_sensitive[i])) {
				snprintf(rule, size, "%s/%s", b ? "/root" : "~", home_sensitive[i]);
				return rule;
			}
	}
	return NULL;
}

const char *pdk_policy_sensitive(const char *abs, const char *home, const struct pdk_strv *extra)
{
	static __thread char rule[512];

	if (home_secret(abs, home, rule, sizeof(rule)))
		return rule;
	for (size_t i = 0; !strncmp(abs, "/etc/", 5) && i < PDK_ARRAY_SIZE(abs_sensitive); i++)
		if (pdk_path_under(abs, abs_sensitive[i]))
			return abs_sensitive[i];
	for (size_t i = 0; extra && i < extra->n; i++) {
		const char *e = extra->v[i];

		if (strpbrk(e, "*?[") ? fnmatch(e, abs, FNM_PATHNAME | FNM_LEADING_DIR) == 0
				      : pdk_path_under(abs, e))
			return e;
	}
	return pdk_policy_sensitive_name(abs);
}

/* One file name: .env, .env.*, *.pem, *.key, id_rsa*, ... (the rule, or NULL). */
static const char *sensitive_component(const char *c, size_t l)
{
	static const char *const suffixes[] = {".pem", ".key", ".p12", ".pfx", ".keystore", ".jks"};
	static const char *const prefixes[] = {"id_rsa", "id_ed25519", "id_ecdsa", "id_dsa"};
	static const char *const rules[] = {"*.pem", "*.key",	   "*.p12",
					    "*.pfx", "*.keystore", "*.jks"};
	static const char *const prules[] = {"id_rsa*", "id_ed25519*", "id_ecdsa*", "id_dsa*"};

	if (c[0] == '.') {
		if (l == 4 && !memcmp(c, ".env", 4))
			return ".env";
		if (l > 5 && !memcmp(c, ".env.", 5) && !pdk_secrets_env_template(c + 5, l - 5))
			return ".env.*";
		if (l == 6 && !memcmp(c, ".netrc", 6))
			return ".netrc";
		if (l == 16 && !memcmp(c, ".git-credentials", 16))
			return ".git-credentials";
	}
	if (c[0] == 'i')
		for (size_t i = 0; i < PDK_ARRAY_SIZE(prefixes); i++)
			if (l >= strlen(prefixes[i]) &&
			    !memcmp(c, prefixes[i], strlen(prefixes[i])))
				return prules[i];
	for (size_t i = 0; i < PDK_ARRAY_SIZE(suffixes); i++) {
		size_t sl = strlen(suffixes[i]);

		if (l > sl && !memcmp(c + l - sl, suffixes[i], sl))
			return rules[i];
	}
	return NULL;
}

const char *pdk_policy_sensitive_name(const char *path)
{
	for (const char *c = path; *c;) {
		size_t l = strcspn(c, "/");
		const char *r;

		if (l && (r = sensitive_component(c, l)))
			return r;
		c += l;
		while (*c == '/')
			c++;
	}
	return NULL;
}

bool pdk_policy_cwd_plain(const char *cwd, const char *home, const struct pdk_strv *extra)
{
	if (!cwd || cwd[0] != '/' || pdk_policy_sensitive(cwd, home, extra))
		return false;
	if ((home && pdk_path_under(home, cwd)) || pdk_path_under("/root", cwd))
		return false;
	if (!strcmp(cwd, "/"))
		return false;
	for (size_t i = 0; i < PDK_ARRAY_SIZE(abs_sensitive); i++)
		if (pdk_path_under(abs_sensitive[i], cwd))
			return false;
	for (size_t i = 0; extra && i < extra->n; i++)
		if (strpbrk(extra->v[i], "*?[") || pdk_path_under(extra->v[i], cwd))
			return false;
	return true;
}

bool pdk_policy_abs_path(const char *p, const char *cwd, const char *home, char *buf, size_t size)
{
	size_t o = 0;
	const char *s;
	int n;

	if (!*p || size < 2)
		return false;
	if (p[0] == '~' && (p[1] == '/' || !p[1])) {
		if (!home)
			return false;
		n = snprintf(buf, size, "%s/%s", home, p + 1);
	} else if (p[0] == '/') {
		n = snprintf(buf, size, "%s", p);
	} else {
		if (!cwd)
			return false;
		n = snprintf(buf, size, "%s/%s", cwd, p);
	}
	if (n < 0 || (size_t)n >= size)
		return false;
	/* normalize in place: //, /./, /../ */
	for (s = buf; *s;) {
		size_t l;

		while (*s == '/')
			s++;
		l = strcspn(s, "/");
		if (!l)
			break;
		if (l == 1 && s[0] == '.') {
		} else if (l == 2 && s[0] == '.' && s[1] == '.') {
			while (o > 0 && buf[--o] != '/')
				;
		} else {
			buf[o++] = '/';
			memmove(buf + o, s, l);
			o += l;
		}
		s += l;
	}
	if (!o)
		buf[o++] = '/';
	buf[o] = '\0';
	return true;
}

bool pdk_policy_in_roots(const struct pdk_policy_call *call, const char *p)
{
	const char *const *roots = call->roots;
	size_t n = call->n_roots;
	char abs[4096];
	_cleanup_free_ char *dir = NULL, *real = NULL;
	char *slash;

	if (!n) {
		roots = &call->cwd;
		n = call->cwd ? 1 : 0;
	}
	if (!pdk_policy_abs_path(p, call->cwd, NULL, abs, sizeof(abs)) || !strcmp(abs, "/"))
		return false;
	/* a root of / would make every program the project's */
	for (size_t i = 0; i < n; i++)
		if (roots[i] && strcmp(roots[i], "/") && pdk_path_under(abs, roots[i]))
			return true;
	/* through a symlinked directory: where the file really is */
	slash = strrchr(abs, '/');
	if (!(dir = strndup(abs, slash == abs ? 1 : (size_t)(slash - abs))) ||
	    !(real = pdk_path_resolve(dir)))
		return false;
	free(dir);
	if (!(dir = pdk_path_join(real, slash + 1)))
		return false;
	for (size_t i = 0; i < n; i++)
		if (roots[i] && strcmp(roots[i], "/") && pdk_path_under(dir, roots[i]))
			return true;
	return false;
}
