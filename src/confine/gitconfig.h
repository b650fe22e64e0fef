/* gitconfig.h - the settings of a git configuration file that make git run a program or
 * read another configuration: what a command may not leave behind in a project's .git. */
#ifndef PDK_GITCONFIG_H
#define PDK_GITCONFIG_H

#include <stddef.h>

/*
 * The risky settings of the configuration text (len bytes), each "name=value" with the
 * section and key in lower case (core.fsmonitor=..., alias.x=!sh), into *ret (n of them in
 * *ret_n, NULL-terminated; the caller frees each and the array). 0, -EINVAL when git could not
 * read the text either, or -ENOMEM.
 */
/* The directory a one-line file of git's names: "gitdir: PATH" in a .git file, PATH in a
 * commondir; a relative PATH is taken from base (NULL: the file's own directory). The joined
 * path as written, not resolved (a new string), or NULL when the file is not such a file. */
char *pdk_git_named_path(const char *file, const char *base);
int pdk_gitconfig_risky(const char *text, size_t len, char ***ret, size_t *ret_n);

/*
 * The value git takes for the setting name (section.key, in lower case, no subsection) from
 * the configuration text (len bytes): its last one. 1 with it in *ret_value, in place of what
 * was there (freed), 0 when the text does not set it (*ret_value untouched: an earlier file's
 * value stands), -EINVAL when git could not read the text either, or -ENOMEM. include.path
 * and includeIf are not followed.
 */
int pdk_gitconfig_get(const char *text, size_t len, const char *name, char **ret_value);

/*
 * Does after hold a risky setting that before does not (each setting of before answers for
 * one of after)? A setting named allowed (lower case, NULL: none) does not count. 1 with the
 * first one's name in *ret_first (the caller frees it), 0 when none, -EINVAL when after cannot
 * be read as a configuration, -ENOMEM.
 */
int pdk_gitconfig_added(const char *before, size_t before_len, const char *after,
			size_t after_len, const char *allowed, char **ret_first);

#endif
