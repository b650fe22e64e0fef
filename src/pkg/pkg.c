/* pkg.c - the host's package managers: detection, the strict one-bare-name
 * check of each, and the non-interactive argv of each action. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pkg.h"
#include "core/util.h"

#define NAME_MAX_LEN 128

/* The hint every rejected name ends with: what the tool is not for. */
#define LANG_HINT                                                                                  \
	"; for pip, npm, cargo and other language packages use 'paddock run' (as in paddock run "  \
	"-- pip install NAME)"

static const char *const manager_names[] = {NULL, "apt", "dnf", "yum", "pacman", "apk"};
static const char *const manager_programs[] = {NULL, "apt-get", "dnf", "yum", "pacman", "apk"};
static const char *const action_names[] = {"install", "remove", "update",
					   "upgrade", "search", "info"};

const char *pdk_pkg_manager_name(enum pdk_pkg_manager m)
{
	return (size_t)m < PDK_ARRAY_SIZE(manager_names) ? manager_names[m] : NULL;
}

const char *pdk_pkg_manager_program(enum pdk_pkg_manager m)
{
	return (size_t)m < PDK_ARRAY_SIZE(manager_programs) ? manager_programs[m] : NULL;
}

int pdk_pkg_manager_parse(const char *name, enum pdk_pkg_manager *ret)
{
	for (size_t i = 1; name && i < PDK_ARRAY_SIZE(manager_names); i++)
		if (strcmp(name, manager_names[i]) == 0) {
			*ret = (enum pdk_pkg_manager)i;
			return 0;
		}
	return -EINVAL;
}

const char *pdk_pkg_action_name(enum pdk_pkg_action a)
{
	return (size_t)a < PDK_ARRAY_SIZE(action_names) ? action_names[a] : NULL;
}

int pdk_pkg_action_parse(const char *s, enum pdk_pkg_action *ret)
{
	for (size_t i = 0; s && i < PDK_ARRAY_SIZE(action_names); i++)
		if (strcmp(s, action_names[i]) == 0) {
			*ret = (enum pdk_pkg_action)i;
			return 0;
		}
	return -EINVAL;
}

bool pdk_pkg_action_changes(enum pdk_pkg_action a)
{
	return a == PDK_PKG_INSTALL || a == PDK_PKG_REMOVE || a == PDK_PKG_UPDATE ||
	       a == PDK_PKG_UPGRADE;
}

bool pdk_pkg_action_takes_name(enum pdk_pkg_action a)
{
	return a != PDK_PKG_UPDATE && a != PDK_PKG_UPGRADE;
}

/* ---- detection ---- */

/* Is prog an executable regular file in one of path_env's directories? */
static bool on_path(const char *prog, const char *path_env)
{
	const char *p = path_env;

	while (p && *p) {
		const char *end = strchr(p, ':');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		char full[4096];
		struct stat st;

		/* An empty or relative entry is the current directory: not trusted. */
		if (len && p[0] == '/' &&
		    snprintf(full, sizeof(full), "%.*s/%s", (int)len, p, prog) < (int)sizeof(full) &&
		    stat(full, &st) == 0 && S_ISREG(st.st_mode) && access(full, X_OK) == 0)
			return true;
		p = end ? end + 1 : NULL;
	}
	return false;
}

/* The managers an os-release ID names, in the order to try them. */
static size_t managers_of_id(const char *id, size_t len, enum pdk_pkg_manager out[2])
{
	static const struct {
		const char *id;
		enum pdk_pkg_manager m[2];
	} ids[] = {
	    {"debian", {PDK_PKG_APT}},	   {"ubuntu", {PDK_PKG_APT}},
	    {"fedora", {PDK_PKG_DNF, PDK_PKG_YUM}}, {"rhel", {PDK_PKG_DNF, PDK_PKG_YUM}},
	    {"centos", {PDK_PKG_DNF, PDK_PKG_YUM}}, {"amzn", {PDK_PKG_DNF, PDK_PKG_YUM}},
	    {"arch", {PDK_PKG_PACMAN}},	   {"alpine", {PDK_PKG_APK}},
	};

	for (size_t i = 0; i < PDK_ARRAY_SIZE(ids); i++)
		if (strlen(ids[i].id) == len && strncmp(ids[i].id, id, len) == 0) {
			out[0] = ids[i].m[0];
			out[1] = ids[i].m[1];
			return ids[i].m[1] ? 2 : 1;
		}
	return 0;
}

/* The value of KEY= in an os-release line, unquoted, into buf. */
static bool os_release_value(const char *line, const char *key, char *buf, size_t len)
{
	size_t k = strlen(key), n;
	const char *v;

	if (strncmp(line, key, k) != 0 || line[k] != '=')
		return false;
	v = line + k + 1;
	if (*v == '"' || *v == '\'')
		v++;
	n = strcspn(v, "\"'\n");
	if (n >= len)
		n = len - 1;
	memcpy(buf, v, n);
	buf[n] = '\0';
	return true;
}

/* The first manager the words of ids name whose program is installed. */
static enum pdk_pkg_manager from_ids(const char *ids, const char *path_env)
{
	const char *p = ids;

	while (*p) {
		size_t len = strcspn(p, " \t");
		enum pdk_pkg_manager m[2];
		size_t n = managers_of_id(p, len, m);

		for (size_t i = 0; i < n; i++)
			if (on_path(manager_programs[m[i]], path_env))
				return m[i];
		p += len;
		p += strspn(p, " \t");
	}
	return PDK_PKG_NONE;
}

int pdk_pkg_detect(const char *os_release, const char *path_env, enum pdk_pkg_manager *ret)
{
	char line[512], id[128] = "", like[256] = "";
	FILE *f = os_release ? fopen(os_release, "re") : NULL;
	enum pdk_pkg_manager m = PDK_PKG_NONE;

	if (f) {
		while (fgets(line, sizeof(line), f))
			if (!os_release_value(line, "ID", id, sizeof(id)))
				os_release_value(line, "ID_LIKE", like, sizeof(like));
		fclose(f);
	}
	m = from_ids(id, path_env);
	if (!m)
		m = from_ids(like, path_env);
	for (size_t i = 1; !m && i < PDK_ARRAY_SIZE(manager_programs); i++)
		if (on_path(manager_programs[i], path_env))
			m = (enum pdk_pkg_manager)i;
	if (!m)
		return -ENOENT;
	*ret = m;
	return 0;
}

/* ---- the name check ---- */

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* Every character of s is alphanumeric (lower-case only when lower) or in extra. */
static bool all_of(const char *s, bool lower, const char *extra)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		bool alnum = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
			     (!lower && c >= 'A' && c <= 'Z');
		if (!alnum && !strchr(extra, c))
			return false;
	}
	return true;
}

/* RPM's name-version-release: the part after the last '-' is a version
 * ("foo-1.2", "foo-1.2-3.fc39"), which dnf and yum would take as a pin. */
static bool rpm_versioned(const char *name)
{
	const char *dash = strrchr(name, '-');

	return dash && isdigit((unsigned char)dash[1]) && strchr(dash, '.');
}

/* A name.arch that dnf and yum take as an architecture qualifier. */
static bool rpm_arch(const char *name)
{
	static const char *const arches[] = {".x86_64",	 ".i686",  ".i386",    ".aarch64",
					     ".noarch",	 ".armv7hl", ".ppc64le", ".s390x",
					     ".src"};

	for (size_t i = 0; i < PDK_ARRAY_SIZE(arches); i++)
		if (ends_with(name, arches[i]))
			return true;
	return false;
}

#define BAD(...) (snprintf(why, why_len, __VA_ARGS__), -EINVAL)

int pdk_pkg_name_check(enum pdk_pkg_manager m, const char *name, char *why, size_t why_len)
{
	static const char *const files[] = {".deb", ".rpm", ".apk", ".pkg.tar.zst", ".pkg.tar.xz",
					    ".pkg.tar.gz"};
	const char *mn = pdk_pkg_manager_name(m);
	size_t len = name ? strlen(name) : 0;

	if (!mn)
		return BAD("pkg: no package manager to check a name for");
	if (!len)
		return BAD("pkg: the package name is empty; give one bare name, as in 'paddock pkg "
			   "install hello'" LANG_HINT);
	if (len > NAME_MAX_LEN)
		return BAD("pkg: the package name is %zu bytes long, more than the %d a name may "
			   "take; give one bare name" LANG_HINT,
			   len, NAME_MAX_LEN);
	/* Nothing below quotes name raw: a control byte or invalid text would
	 * end up on the person's terminal. Shapes first, then the characters. */
	for (const char *p = name; *p; p++)
		if ((unsigned char)*p < 0x20 || (unsigned char)*p >= 0x7f)
			return BAD("pkg: the package name holds a control or non-ASCII byte; "
				   "give one bare name of letters, digits and + - . _" LANG_HINT);
	if (name[0] == '-')
		return BAD("pkg: '%s' is an option, not a package name; paddock pkg sets the "
			   "%s options itself: give one bare name" LANG_HINT,
			   name, mn);
	if (strstr(name, "://"))
		return BAD("pkg: '%s' is a URL, not a package name; give one bare name from the "
			   "configured repositories" LANG_HINT,
			   name);
	if (strpbrk(name, " \t,;"))
		return BAD("pkg: '%s' names more than one package; give one bare name per call",
			   name);
	for (size_t i = 0; i < PDK_ARRAY_SIZE(files); i++)
		if (ends_with(name, files[i]))
			return BAD("pkg: '%s' is a package file, not a package name; give one "
				   "bare name from the configured repositories",
				   name);
	if (strchr(name, '/') || name[0] == '.' || name[0] == '~')
		return BAD("pkg: '%s' is a path, not a package name; give one bare name from the "
			   "configured repositories" LANG_HINT,
			   name);
	if (strpbrk(name, "=<>") || (m == PDK_PKG_APK && strchr(name, '~')))
		return BAD("pkg: '%s' pins a version; give the bare name alone, and %s picks "
			   "the version" LANG_HINT,
			   name, mn);
	if (strpbrk(name, "*?[]{}"))
		return BAD("pkg: '%s' is a pattern; give one exact package name (search finds "
			   "names: paddock pkg search WORD)",
			   name);
	if (strchr(name, ':') && m == PDK_PKG_APT)
		return BAD("pkg: '%s' qualifies the name (architecture or version); give the "
			   "bare name alone",
			   name);
	if (name[0] == '@' && (m == PDK_PKG_DNF || m == PDK_PKG_YUM))
		return BAD("pkg: '%s' is a group, not a package; give one package name", name);
	if (strchr(name, '@') && m == PDK_PKG_APK)
		return BAD("pkg: '%s' names a repository tag; give the bare name alone", name);
	if ((m == PDK_PKG_DNF || m == PDK_PKG_YUM) && rpm_versioned(name))
		return BAD("pkg: '%s' reads as a name with a version, which %s would take as "
			   "a pin; give the bare name alone" LANG_HINT,
			   name, mn);
	if ((m == PDK_PKG_DNF || m == PDK_PKG_YUM) && rpm_arch(name))
		return BAD("pkg: '%s' qualifies the name with an architecture; give the bare "
			   "name alone",
			   name);
	switch (m) {
	case PDK_PKG_APT: /* Debian policy 5.6.1 */
		if (len >= 2 && isalnum((unsigned char)name[0]) && all_of(name, true, "+-."))
			return 0;
		return BAD("pkg: '%s' is not an apt package name: two or more of a-z 0-9 + - "
			   "., starting with a letter or digit" LANG_HINT,
			   name);
	case PDK_PKG_DNF:
	case PDK_PKG_YUM:
		if (isalnum((unsigned char)name[0]) || name[0] == '_') {
			if (all_of(name, false, "+-._"))
				return 0;
		}
		return BAD("pkg: '%s' is not an RPM package name: A-Z a-z 0-9 + - . _, starting "
			   "with a letter, digit or _" LANG_HINT,
			   name);
	case PDK_PKG_PACMAN:
		if (all_of(name, true, "@._+-"))
			return 0;
		return BAD("pkg: '%s' is not a pacman package name: a-z 0-9 @ . _ + -, not "
			   "starting with - or ." LANG_HINT,
			   name);
	case PDK_PKG_APK:
		if (isalnum((unsigned char)name[0]) && all_of(name, true, "._+-"))
			return 0;
		return BAD("pkg: '%s' is not an apk package name: a-z 0-9 . _ + -, starting "
			   "with a letter or digit" LANG_HINT,
			   name);
	case PDK_PKG_NONE:
		break;
	}
	return -EINVAL;
}

#undef BAD

/* ---- argv ---- */

#define MAX_ARGS 16

/* The words of one action, NULL-terminated; "%" stands for the name. */
static const char *const *words(enum pdk_pkg_manager m, enum pdk_pkg_action a)
{
	/* Debian: debconf asks nothing; another apt's lock is waited for, not
	 * failed on; a changed configuration file keeps the admin's version, as an
	 * unattended upgrade does. */
#define APT_QUIET "env", "DEBIAN_FRONTEND=noninteractive", "apt-get", "-o", "DPkg::Lock::Timeout=120"
#define APT_CONF "-o", "Dpkg::Options::=--force-confdef", "-o", "Dpkg::Options::=--force-confold"
	static const char *const apt[][MAX_ARGS] = {
	    [PDK_PKG_INSTALL] = {APT_QUIET, "install", "-y", "-q", APT_CONF, "%", NULL},
	    [PDK_PKG_REMOVE] = {APT_QUIET, "remove", "-y", "-q", APT_CONF, "%", NULL},
	    [PDK_PKG_UPDATE] = {APT_QUIET, "update", "-q", NULL},
	    [PDK_PKG_UPGRADE] = {APT_QUIET, "upgrade", "-y", "-q", APT_CONF, NULL},
	    [PDK_PKG_SEARCH] = {"apt-cache", "search", "%", NULL},
	    [PDK_PKG_INFO] = {"apt-cache", "show", "%", NULL},
	};
#undef APT_QUIET
#undef APT_CONF
	static const char *const dnf[][MAX_ARGS] = {
	    [PDK_PKG_INSTALL] = {"dnf", "install", "-y", "%", NULL},
	    [PDK_PKG_REMOVE] = {"dnf", "remove", "-y", "%", NULL},
	    [PDK_PKG_UPDATE] = {"dnf", "makecache", "-y", NULL},
	    [PDK_PKG_UPGRADE] = {"dnf", "upgrade", "-y", NULL},
	    [PDK_PKG_SEARCH] = {"dnf", "search", "%", NULL},
	    [PDK_PKG_INFO] = {"dnf", "info", "%", NULL},
	};
	static const char *const yum[][MAX_ARGS] = {
	    [PDK_PKG_INSTALL] = {"yum", "install", "-y", "%", NULL},
	    [PDK_PKG_REMOVE] = {"yum", "remove", "-y", "%", NULL},
	    [PDK_PKG_UPDATE] = {"yum", "makecache", "-y", NULL},
	    [PDK_PKG_UPGRADE] = {"yum", "upgrade", "-y", NULL},
	    [PDK_PKG_SEARCH] = {"yum", "search", "%", NULL},
	    [PDK_PKG_INFO] = {"yum", "info", "%", NULL},
	};
	static const char *const pacman[][MAX_ARGS] = {
	    [PDK_PKG_INSTALL] = {"pacman", "-S", "--noconfirm", "--needed", "%", NULL},
	    [PDK_PKG_REMOVE] = {"pacman", "-R", "--noconfirm", "%", NULL},
	    [PDK_PKG_UPDATE] = {"pacman", "-Sy", "--noconfirm", NULL},
	    [PDK_PKG_UPGRADE] = {"pacman", "-Syu", "--noconfirm", NULL},
	    [PDK_PKG_SEARCH] = {"pacman", "-Ss", "%", NULL},
	    [PDK_PKG_INFO] = {"pacman", "-Si", "%", NULL},
	};
	static const char *const apk[][MAX_ARGS] = {
	    [PDK_PKG_INSTALL] = {"apk", "add", "--no-progress", "%", NULL},
	    [PDK_PKG_REMOVE] = {"apk", "del", "--no-progress", "%", NULL},
	    [PDK_PKG_UPDATE] = {"apk", "update", "--no-progress", NULL},
	    [PDK_PKG_UPGRADE] = {"apk", "upgrade", "--no-progress", NULL},
	    [PDK_PKG_SEARCH] = {"apk", "search", "%", NULL},
	    [PDK_PKG_INFO] = {"apk", "info", "%", NULL},
	};

	if ((size_t)a >= PDK_ARRAY_SIZE(action_names))
		return NULL;
	switch (m) {
	case PDK_PKG_APT:
		return apt[a];
	case PDK_PKG_DNF:
		return dnf[a];
	case PDK_PKG_YUM:
		return yum[a];
	case PDK_PKG_PACMAN:
		return pacman[a];
	case PDK_PKG_APK:
		return apk[a];
	case PDK_PKG_NONE:
		break;
	}
	return NULL;
}

int pdk_pkg_argv(enum pdk_pkg_manager m, enum pdk_pkg_action a, const char *name,
		 const char *sudo, char ***ret)
{
	const char *const *w = words(m, a);
	const char *pre[] = {sudo, "-n", "--"};
	size_t n = 0, k = 0, n_pre = sudo ? PDK_ARRAY_SIZE(pre) : 0;
	_cleanup_strv_ char **v = NULL;

	if (!w || (pdk_pkg_action_takes_name(a) != (name != NULL)))
		return -EINVAL;
	while (w[n])
		n++;
	v = calloc(n_pre + n + 1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < n_pre; i++)
		if (!(v[k++] = strdup(pre[i])))
			return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		const char *word = strcmp(w[i], "%") == 0 ? name : w[i];
		if (!word)
			return -EINVAL;
		if (!(v[k++] = strdup(word)))
			return -ENOMEM;
	}
	*ret = steal_pointer(&v);
	return 0;
}
