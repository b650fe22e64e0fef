/* sandbox_home.c - the home directory's start-up files, kept from the command when a writable
 * root holds the home directory: what shells, git, ssh and the desktop run or read later,
 * outside the sandbox. */
#include <errno.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/path.h"
#include "core/util.h"
#include "agentconf.h"
#include "sandbox.h"
#include "sandbox_int.h"

/*
 * In the home directory, when a writable root is it or holds it: what shells, git, ssh and the
 * desktop run or read at start-up, each code that runs later outside the sandbox. A git
 * configuration is vetted as a repository's is; the rest is held (bwrap) and, when missing,
 * watched from its first missing directory down, which the command could make (vet.h).
 */
static const char *const home_names[] = {
	".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".profile", ".zshenv", ".zshrc",
	".zprofile", ".zlogin", ".zlogout", ".xprofile", ".xsessionrc", ".pam_environment",
	".ssh/authorized_keys", ".ssh/config", ".ssh/rc", ".local/bin", ".config/systemd/user",
	".config/autostart", ".config/environment.d", ".config/fish/config.fish",
	".config/fish/conf.d", "bin", ".ssh/environment", NULL,
};
static const char *const home_git_configs[] = {".gitconfig", ".config/git/config", NULL};

/* Is q there, or one of paddock's own directories, which it makes before the run, below it? */
static bool there(const struct pdk_sandbox *sb, const char *q, struct stat *st)
{
	for (size_t i = sb->own_first; i < sb->own_end; i++)
		if (pdk_path_under(sb->protect[i], q)) {
			st->st_mode = S_IFDIR;
			return true;
		}
	return lstat(q, st) == 0;
}

/*
 * p, inside root: onto sb->git.configs (a git configuration) or sb->protect when it exists; else
 * its first missing directory (p itself at the least) onto sb->trash.missing, when that lies below
 * root with its parent there. A directory paddock makes for itself counts as there.
 */
static int protect_or_watch(struct pdk_sandbox *sb, size_t *np, const char *root, const char *p,
			    bool config)
{
	_cleanup_free_ char *q = strdup(p);
	struct stat st;

	if (!q)
		return -ENOMEM;
	if (lstat(p, &st) == 0) {
		if (pdk_strv_contains(sb->protect, *np, p) ||
		    pdk_strv_contains(sb->git.configs, sb->git.n_configs, p))
			return 0;
		return config && S_ISREG(st.st_mode)
			   ? pdk_strv_append(&sb->git.configs, &sb->git.n_configs, strdup(p))
			   : pdk_strv_append(&sb->protect, np, strdup(p));
	}
	for (;;) {
		char *slash = strrchr(q, '/');

		if (!slash || slash == q)
			return 0;
		*slash = '\0';
		if (!pdk_path_under(q, root))
			return 0;
		if (there(sb, q, &st)) {
			*slash = '/';
			break;
		}
	}
	if (!S_ISDIR(st.st_mode) || pdk_strv_contains(sb->trash.missing, sb->trash.n_missing, q))
		return 0;
	return pdk_strv_append(&sb->trash.missing, &sb->trash.n_missing, steal_pointer(&q));
}

/* The user's name as zsh's prompt writes it into file names: $USER, else the password file's. */
static char *user_name(void)
{
	const char *user = getenv("USER");
	struct passwd *pw;

	if (user && user[0] && !strchr(user, '/'))
		return strdup(user);
#if defined(__linux__) && defined(PDK_STATIC_LINK)
	/* The password file itself: getpwuid() would load the C library's NSS modules, which a
	 * static paddock cannot. */
	FILE *f = fopen("/etc/passwd", "re");
	char *name = NULL;

	while (f && !name && (pw = fgetpwent(f)))
		if (pw->pw_uid == geteuid() && pw->pw_name && !strchr(pw->pw_name, '/'))
			name = strdup(pw->pw_name);
	if (f)
		fclose(f);
	return name;
#else
	pw = getpwuid(geteuid());
	return pw && pw->pw_name && !strchr(pw->pw_name, '/') ? strdup(pw->pw_name) : NULL;
#endif
}

/* The start-up files of the home directory when one of the n roots holds it, and the shell
 * prompt's cache files (sourced by zsh) in the cache directory cache (a root, or NULL). */
int pdk_sandbox_add_home(struct pdk_sandbox *sb, size_t *np, size_t n, const char *cache)
{
	const char *home = getenv("HOME");
	_cleanup_free_ char *user = user_name();
	_cleanup_free_ char *real = home && home[0] == '/' ? realpath(home, NULL) : NULL;
	const char *root = NULL;
	int r = 0;

	for (size_t k = 0; real && k < n && !root; k++)
		if (pdk_path_under(real, sb->roots[k]))
			root = sb->roots[k];
	for (size_t i = 0; root && r == 0 && home_names[i]; i++) {
		_cleanup_free_ char *p = pdk_path_join(real, home_names[i]);

		r = p ? protect_or_watch(sb, np, root, p, false) : -ENOMEM;
	}
	for (size_t i = 0; root && r == 0 && home_git_configs[i]; i++) {
		_cleanup_free_ char *p = pdk_path_join(real, home_git_configs[i]);

		r = p ? protect_or_watch(sb, np, root, p, true) : -ENOMEM;
	}
	/* The agents' and editors' own configuration, unless this call may write it. */
	for (size_t i = 0; root && !sb->allow_agent_config && r == 0 && pdk_agentconf_home[i];
	     i++) {
		_cleanup_free_ char *p = pdk_path_join(real, pdk_agentconf_home[i]);

		r = p ? protect_or_watch(sb, np, root, p, false) : -ENOMEM;
	}
	/* Every directory on the PATH paddock was given that lies in the home directory: a
	 * program planted there would stand in for one the user runs by name. */
	const char *path = getenv("PATH");
	for (const char *d = path; root && r == 0 && d && *d;) {
		size_t len = strcspn(d, ":");
		_cleanup_free_ char *dir = strndup(d, len), *rdir = NULL;

		if (!dir)
			return -ENOMEM;
		d += len + !!d[len];
		/* Where the kernel would find it; a missing one's first missing part is watched. */
		if (dir[0] != '/' || !(rdir = pdk_path_resolve(dir)))
			continue;
		if (pdk_path_under(rdir, real) && strcmp(rdir, real) != 0)
			r = protect_or_watch(sb, np, root, rdir, false);
	}
	for (size_t k = 0; cache && user && r == 0 && k < 2; k++) {
		_cleanup_free_ char *p = NULL;

		if (asprintf(&p, "%s/p10k-%s-%s.zsh", cache, k ? "dump" : "instant-prompt", user) < 0)
			return -ENOMEM;
		r = protect_or_watch(sb, np, cache, p, false);
	}
	return r;
}
