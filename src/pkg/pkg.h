/* pkg.h - the host's package manager, driven outside the sandbox for
 * `paddock pkg` and the pkg_manage tool: which one is here, whether a name is
 * one bare package name for it, and the exact argv of each action. */
#ifndef PDK_PKG_H
#define PDK_PKG_H

#include <stdbool.h>
#include <stddef.h>

enum pdk_pkg_manager {
	PDK_PKG_NONE = 0,
	PDK_PKG_APT,
	PDK_PKG_DNF,
	PDK_PKG_YUM,
	PDK_PKG_PACMAN,
	PDK_PKG_APK,
};

enum pdk_pkg_action {
	PDK_PKG_INSTALL,
	PDK_PKG_REMOVE,
	PDK_PKG_UPDATE,  /* refresh the package index */
	PDK_PKG_UPGRADE, /* upgrade what is installed */
	PDK_PKG_SEARCH,
	PDK_PKG_INFO,
};

/* "apt", "dnf", ...; NULL for PDK_PKG_NONE. */
const char *pdk_pkg_manager_name(enum pdk_pkg_manager m);
/* By name ("apt", "dnf", "yum", "pacman", "apk"); -EINVAL otherwise. */
int pdk_pkg_manager_parse(const char *name, enum pdk_pkg_manager *ret);
/* The program the manager's changing actions run ("apt-get", "dnf", ...). */
const char *pdk_pkg_manager_program(enum pdk_pkg_manager m);

const char *pdk_pkg_action_name(enum pdk_pkg_action a);
/* "install", "remove", "update", "upgrade", "search", "info"; -EINVAL otherwise. */
int pdk_pkg_action_parse(const char *s, enum pdk_pkg_action *ret);
/* install, remove, update and upgrade change the system: they pass the
 * confirm gate and run as root. search and info only read. */
bool pdk_pkg_action_changes(enum pdk_pkg_action a);
/* Every action but update and upgrade names one package. */
bool pdk_pkg_action_takes_name(enum pdk_pkg_action a);

/*
 * Which manager this host uses: the one /etc/os-release (os_release; ID,
 * then ID_LIKE) names when its program is found on path_env, else the first
 * of apt, dnf, yum, pacman and apk that is. Returns 0, or -ENOENT when none is.
 */
int pdk_pkg_detect(const char *os_release, const char *path_env, enum pdk_pkg_manager *ret);

/*
 * Is name one bare package name for m: no option, version pin, second
 * package, path, URL or pattern, checked against the manager's own naming
 * rules? 0, or -EINVAL with one line in why saying what is wrong and what to
 * give instead.
 */
int pdk_pkg_name_check(enum pdk_pkg_manager m, const char *name, char *why, size_t why_len);

/*
 * The argv (NULL-terminated, each string and the array malloc'd; free with
 * pdk_strv_freep) that performs action a with m, non-interactively. name is
 * NULL for update and upgrade and must have passed pdk_pkg_name_check
 * otherwise. With sudo, the argv starts `sudo -n --` (sudo is the program to
 * run it through, found by the caller). -EINVAL on a name missing or given
 * where none is taken, -ENOMEM.
 */
int pdk_pkg_argv(enum pdk_pkg_manager m, enum pdk_pkg_action a, const char *name,
		 const char *sudo, char ***ret);

#endif
