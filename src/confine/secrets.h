/* secrets.h - the files no confined command reads unless a person says so: the credential
 * stores of the home directory, the host's private keys, a project's .env; one list for all. */
#ifndef PDK_SECRETS_H
#define PDK_SECRETS_H

#include <stdbool.h>
#include <stddef.h>

struct pdk_strv;

/* The list, made for one run. Patterns are absolute, in fnmatch(3) syntax with FNM_PATHNAME;
 * each names a file or a directory and everything under it. */
struct pdk_secrets {
	char **deny;  /* owned: the default list and commandPolicy.sandbox.denyRead */
	size_t n_deny;
	char **allow; /* owned: taken from deny: the work files, allowRead, --read */
	size_t n_allow;
	char **hide;  /* owned: the real paths of what deny names that exist, none under another */
	size_t n_hide;
	char **asked; /* owned: the --read paths, as given, absolute */
	size_t n_asked;
};

/*
 * .env.NAME with NAME one of the templates a project commits with no secret in it (example,
 * sample, template, dist, defaults): ext is NAME, l its length. The policy's word match and the
 * sandbox's list both use it.
 */
bool pdk_secrets_env_template(const char *ext, size_t l);

/*
 * Build the list for a run: home's credential stores (and /root's for root), the host's private
 * keys for root, .env and .env.* in each of the n_roots roots and in cwd when it lies in one;
 * deny and allow (commandPolicy.sandbox.denyRead and allowRead: absolute, or a name inside each
 * root; may be NULL) add to it and take from it; reads (n_reads absolute paths, --read) take
 * from it. A --read path the list does not deny is -EINVAL, saying so in why. 0 or -errno.
 */
int pdk_secrets_build(struct pdk_secrets *s, const char *home, char *const *roots, size_t n_roots,
		      const char *cwd, const struct pdk_strv *deny, const struct pdk_strv *allow,
		      const char *const *reads, size_t n_reads, char *why, size_t why_len);

/* Does the list deny reading the absolute path (as written, or where it leads)? */
bool pdk_secrets_denied(const struct pdk_secrets *s, const char *path);

/*
 * The empty, unreadable (mode 0) file and directory a backend puts over a denied path, in
 * paddock's state directory (made when missing, put right when changed): their paths, owned
 * by the caller, in *ret_file and *ret_dir. 0 or -errno.
 */
int pdk_secrets_blanks(char **ret_file, char **ret_dir);

void pdk_secrets_release(struct pdk_secrets *s);

#endif
