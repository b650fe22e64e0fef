/* gitconfig.c - read a git configuration file as git does, far enough to list the settings
 * that make git run a program or read another configuration. */
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <fcntl.h>

#include "gitconfig.h"
#include "core/path.h"
#include "core/util.h"

/*
 * Names (section[.subsection].key, section and key in lower case, a subsection matched by
 * '*') whose value is a program git runs, or a file it reads as configuration. Taken from
 * git-config(1); a name that runs something only with a particular value (alias.*) is
 * marked '!'.
 */
static const char *const risky[] = {
	"core.hookspath", "core.fsmonitor", "core.sshcommand", "core.pager", "core.editor",
	"core.askpass", "core.gitproxy", "core.alternaterefscommand",
	"sequence.editor", "diff.external", "diff.*.textconv", "diff.*.command",
	"difftool.*.cmd", "mergetool.*.cmd", "filter.*.clean", "filter.*.smudge",
	"filter.*.process", "merge.*.driver", "credential.helper", "credential.*.helper",
	"gpg.program", "gpg.*.program", "gpg.ssh.defaultkeycommand", "include.path",
	"includeif.*.path", "uploadpack.packobjectshook", "protocol.allow", "protocol.*.allow",
	"pager.*", "remote.*.uploadpack", "remote.*.receivepack", "remote.*.vcs",
	"trailer.*.command", "trailer.*.cmd", "browser.*.cmd", "man.*.cmd", "web.browser",
	"sendemail.*.smtpserver", "sendemail.smtpserver", "sendemail.tocmd", "sendemail.cccmd",
	"sendemail.*.tocmd", "sendemail.*.cccmd", "submodule.*.update!", "alias.*!", NULL,
};

static bool is_risky(const char *name, const char *value)
{
	/* The subsection, between the first and the last dot, may hold anything: it is
	 * compared as one '*'. */
	const char *first = strchr(name, '.'), *last = strrchr(name, '.');
	char shape[512];

	if (!first)
		return false;
	/* section.*.key, or section.* for a name of two parts. */
	if (first != last)
		snprintf(shape, sizeof(shape), "%.*s.*%s", (int)(first - name), name, last);
	else
		snprintf(shape, sizeof(shape), "%.*s.*", (int)(first - name), name);
	for (const char *const *p = risky; *p; p++) {
		size_t len = strlen(*p);
		bool bang = (*p)[len - 1] == '!';
		char pat[64];

		snprintf(pat, sizeof(pat), "%.*s", (int)(len - bang), *p);
		if (strcmp(pat, shape) != 0 && strcmp(pat, name) != 0)
			continue;
		while (isspace((unsigned char)*value))
			value++;
		/* pager.<cmd> may only turn the pager on or off; protocol.*.allow only refuse. */
		if (!strcmp(pat, "pager.*"))
			return strcasecmp(value, "true") && strcasecmp(value, "false") &&
			       strcasecmp(value, "yes") && strcasecmp(value, "no") &&
			       strcasecmp(value, "on") && strcasecmp(value, "off") &&
			       strcmp(value, "1") && strcmp(value, "0") && *value;
		if (!strncmp(pat, "protocol.", 9))
			return strcasecmp(value, "never") != 0;
		if (!bang)
			return true;
		return *value == '!';
	}
	return false;
}

struct parser {
	const char *p, *end;
	char section[256]; /* "section" or "section.subsection", section lower case */
};

static int push(char ***v, size_t *n, char *s)
{
	char **nv;

	if (!s)
		return -ENOMEM;
	if (!(nv = realloc(*v, (*n + 2) * sizeof(*nv)))) {
		free(s);
		return -ENOMEM;
	}
	nv[(*n)++] = s;
	nv[*n] = NULL;
	*v = nv;
	return 0;
}

/* A [section] or [section "subsection"] header, after its '['. */
static int header(struct parser *ps)
{
	size_t k = 0;

	while (ps->p < ps->end && *ps->p != ']' && *ps->p != ' ' && *ps->p != '\t' &&
	       *ps->p != '"') {
		char c = *ps->p++;

		if (!isalnum((unsigned char)c) && c != '-' && c != '.')
			return -EINVAL;
		if (k + 1 >= sizeof(ps->section))
			return -EINVAL;
		ps->section[k++] = (char)tolower((unsigned char)c);
	}
	while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\t'))
		ps->p++;
	if (ps->p < ps->end && *ps->p == '"') {
		ps->p++;
		if (k + 1 >= sizeof(ps->section))
			return -EINVAL;
		ps->section[k++] = '.';
		while (ps->p < ps->end && *ps->p != '"') {
			if (*ps->p == '\n')
				return -EINVAL;
			if (*ps->p == '\\' && ps->p + 1 < ps->end)
				ps->p++;
			if (k + 1 >= sizeof(ps->section))
				return -EINVAL;
			ps->section[k++] = *ps->p++;
		}
		if (ps->p >= ps->end)
			return -EINVAL;
		ps->p++;
	}
	ps->section[k] = '\0';
	if (ps->p >= ps->end || *ps->p != ']' || !k)
		return -EINVAL;
	ps->p++;
	return 0;
}

/* A value after '=': quotes, escapes and continued lines as git reads them. */
static char *value(struct parser *ps)
{
	char *buf = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&buf, &size);
	bool quoted = false;

	if (!f)
		return NULL;
	while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\t'))
		ps->p++;
	while (ps->p < ps->end) {
		char c = *ps->p++;

		if (c == '\n' && !quoted)
			break;
		if (c == '\n') {
			fclose(f);
			free(buf);
			return NULL;
		}
		if (!quoted && (c == '#' || c == ';')) {
			while (ps->p < ps->end && *ps->p != '\n')
				ps->p++;
			continue;
		}
		if (c == '"') {
			quoted = !quoted;
			continue;
		}
		if (c == '\\' && ps->p < ps->end) {
			c = *ps->p++;
			if (c == '\n')
				continue;
			c = c == 'n' ? '\n' : c == 't' ? '\t' : c == 'b' ? '\b' : c;
		}
		fputc(c, f);
	}
	if (fclose(f) == EOF) {
		free(buf);
		return NULL;
	}
	/* Trailing blanks outside quotes are dropped; close enough for a comparison. */
	for (size_t n = strlen(buf); n && (buf[n - 1] == ' ' || buf[n - 1] == '\t'); n--)
		buf[n - 1] = '\0';
	return buf;
}

/* Each setting of the configuration text (len bytes), in order, to cb with its name (section
 * and key in lower case) and value (a boolean true: ""); a negative return from cb stops the
 * walk and is returned. 0, -EINVAL when git could not read the text either, or -ENOMEM. */
static int each_setting(const char *text, size_t len,
			int (*cb)(const char *name, const char *value, void *ctx), void *ctx)
{
	struct parser ps = {.p = text, .end = text + len};
	int r = 0;

	while (r == 0 && ps.p < ps.end) {
		char name[512], *val;
		size_t k;

		while (ps.p < ps.end && isspace((unsigned char)*ps.p))
			ps.p++;
		if (ps.p >= ps.end)
			break;
		if (*ps.p == '#' || *ps.p == ';') {
			while (ps.p < ps.end && *ps.p != '\n')
				ps.p++;
			continue;
		}
		if (*ps.p == '[') {
			ps.p++;
			r = header(&ps);
			continue;
		}
		if (!ps.section[0] || !isalpha((unsigned char)*ps.p))
			return -EINVAL;
		k = (size_t)snprintf(name, sizeof(name), "%s.", ps.section);
		while (ps.p < ps.end && (isalnum((unsigned char)*ps.p) || *ps.p == '-') &&
		       k + 1 < sizeof(name))
			name[k++] = (char)tolower((unsigned char)*ps.p++);
		name[k] = '\0';
		while (ps.p < ps.end && (*ps.p == ' ' || *ps.p == '\t'))
			ps.p++;
		if (ps.p < ps.end && *ps.p == '=') {
			ps.p++;
			val = value(&ps);
		} else if (ps.p >= ps.end || *ps.p == '\n' || *ps.p == '#' || *ps.p == ';') {
			while (ps.p < ps.end && *ps.p != '\n')
				ps.p++;
			val = strdup(""); /* a boolean true */
		} else {
			return -EINVAL;
		}
		if (!val)
			return -EINVAL;
		r = cb(name, val, ctx);
		free(val);
	}
	return r;
}

struct risky_list {
	char **v;
	size_t n;
};

static int collect_risky(const char *name, const char *val, void *ctx)
{
	struct risky_list *l = ctx;
	char *entry = NULL;

	if (!is_risky(name, val))
		return 0;
	return asprintf(&entry, "%s=%s", name, val) < 0 ? -ENOMEM : push(&l->v, &l->n, entry);
}

int pdk_gitconfig_risky(const char *text, size_t len, char ***ret, size_t *ret_n)
{
	struct risky_list l = {0};
	int r = each_setting(text, len, collect_risky, &l);

	if (r < 0) {
		for (size_t i = 0; i < l.n; i++)
			free(l.v[i]);
		free(l.v);
		return r;
	}
	*ret = l.v;
	*ret_n = l.n;
	return 0;
}

struct last_value {
	const char *name;
	char *value;
};

static int keep_last(const char *name, const char *val, void *ctx)
{
	struct last_value *l = ctx;

	if (strcmp(name, l->name) != 0)
		return 0;
	free(l->value);
	return (l->value = strdup(val)) ? 0 : -ENOMEM;
}

int pdk_gitconfig_get(const char *text, size_t len, const char *name, char **ret_value)
{
	struct last_value l = {.name = name};
	int r = each_setting(text, len, keep_last, &l);

	if (r < 0) {
		free(l.value);
		return r;
	}
	if (!l.value)
		return 0;
	free(*ret_value);
	*ret_value = l.value;
	return 1;
}

int pdk_gitconfig_added(const char *before, size_t before_len, const char *after,
			size_t after_len, const char *allowed, char **ret_first)
{
	char **a = NULL, **b = NULL;
	size_t na = 0, nb = 0;
	int r;

	*ret_first = NULL;
	if ((r = pdk_gitconfig_risky(after, after_len, &a, &na)) < 0)
		return r;
	/* An earlier version git could not read holds nothing to compare with. */
	if (pdk_gitconfig_risky(before, before_len, &b, &nb) < 0)
		nb = 0;
	r = 0;
	for (size_t i = 0; i < na && r == 0; i++) {
		size_t name_len = strcspn(a[i], "=");
		bool found = allowed && strlen(allowed) == name_len &&
			     !strncmp(a[i], allowed, name_len);

		for (size_t j = 0; j < nb && !found; j++)
			if (b[j] && !strcmp(a[i], b[j])) {
				free(b[j]); /* each earlier entry answers for one */
				b[j] = NULL;
				found = true;
			}
		if (!found) {
			*ret_first = strndup(a[i], strcspn(a[i], "="));
			r = *ret_first ? 1 : -ENOMEM;
		}
	}
	for (size_t i = 0; i < na; i++)
		free(a[i]);
	for (size_t j = 0; j < nb; j++)
		free(b[j]);
	free(a);
	free(b);
	return r;
}

char *pdk_git_named_path(const char *file, const char *base)
{
	_cleanup_free_ char *text = NULL, *dir = NULL;
	char *t, *slash;

	if (pdk_read_small_at(AT_FDCWD, file, 4096, &text, NULL) < 0)
		return NULL;
	if (!base) {
		if (!(dir = strdup(file)) || !(slash = strrchr(dir, '/')))
			return NULL;
		*slash = '\0';
		base = dir;
	}
	t = text + (strncmp(text, "gitdir:", 7) ? 0 : 7);
	t += strspn(t, " \t");
	t[strcspn(t, "\r\n")] = '\0';
	if (!t[0])
		return NULL;
	return t[0] == '/' ? strdup(t) : pdk_path_join(base, t);
}
