/* policy_risk.c - what makes a shipped risk rule weigh more or not apply: a
 * recursive rm is moderate, since its files go to the trash, unless it takes a
 * whole root, HOME, / or a path outside the writable roots; the dry-run form
 * of a risky command is judged like its read-only twin. */
#include <stdio.h>
#include <string.h>

#include "core/path.h"
#include "policy_int.h"

/* The whole of dir goes: / itself, HOME or a parent of it, a writable root or
 * a parent of one, or a directory outside the roots. Returns what it is. */
static const char *wide_dir(const struct pdk_policy_call *call, const char *abs)
{
	const char *const *roots = call->roots;
	size_t n = call->n_roots;

	if (!n) {
		roots = &call->cwd;
		n = call->cwd ? 1 : 0;
	}
	if (!strcmp(abs, "/"))
		return "/, everything";
	if (call->home && pdk_path_under(call->home, abs))
		return "HOME or a directory above it";
	for (size_t i = 0; i < n; i++)
		if (roots[i] && pdk_path_under(roots[i], abs))
			return "a writable root or a directory above one";
	if (!pdk_policy_in_roots(call, abs))
		return "a path outside the writable roots";
	return NULL;
}

/* A last component made only of glob characters and dots ("*", ".*", "*.*"):
 * every file of its directory. */
static bool glob_all(const char *comp)
{
	return *comp && strspn(comp, "*?.[]!") == strlen(comp) && strpbrk(comp, "*?");
}

const char *pdk_policy_rm_wide(const struct pdk_policy_call *call, char *const *argv, size_t argc,
			       char *why, size_t len)
{
	bool opts = true, operands = false;

	for (size_t i = 1; i < argc; i++) {
		const char *a = argv[i], *what, *slash;
		char abs[4096], dir[4096];
		bool all;

		if (opts && !strcmp(a, "--")) {
			opts = false;
			continue;
		}
		if (opts && a[0] == '-' && a[1])
			continue;
		operands = true;
		/* named only when it runs, or by the program that feeds rm */
		if (strpbrk(a, "$`") || strstr(a, "{}")) {
			snprintf(why, len, "removes `%.200s` whole, a path known only when it runs", a);
			return why;
		}
		if (!pdk_policy_abs_path(a, call->cwd, call->home, abs, sizeof(abs))) {
			snprintf(why, len, "removes `%.200s` whole, a path paddock cannot place", a);
			return why;
		}
		slash = strrchr(a, '/');
		all = strpbrk(a, "*?[") && glob_all(slash ? slash + 1 : a);
		if (all) {
			/* every file of the directory: as if the directory went */
			snprintf(dir, sizeof(dir), "%.*s", (int)(strrchr(abs, '/') - abs), abs);
			what = wide_dir(call, *dir ? dir : "/");
		} else {
			what = wide_dir(call, abs);
		}
		if (what) {
			snprintf(why, len, "removes `%.200s`, %s%s: the trash keeps it, but a restore "
					   "that big is a person's call",
				 a, all ? "every file of " : "", what);
			return why;
		}
	}
	if (!operands) {
		/* xargs, parallel: the names come from their input */
		snprintf(why, len, "removes whole directory trees named only when it runs");
		return why;
	}
	return NULL;
}

/*
 * The dry-run forms of the shipped risk rules: an option that makes the
 * command only show what it would do. reads_only: the dry run reads and
 * changes nothing (git clean -n), so it is judged like the read-only list's
 * entries; otherwise (npm publish --dry-run runs the package's scripts) it is
 * only not the risk the rule names.
 */
struct dry_run {
	const char *rule;
	const char *sub;	    /* the subcommand the option follows, or NULL */
	char letter;		    /* the short option, or 0 */
	const char *const *longs;   /* "--dry-run", or "--dry-run" with a value */
	const char *const *argopts; /* options whose argument is the next word */
	/* options (OPT or OPT=...) that make even the dry run execute a program of
	 * the call's choosing; cancel_letter: the same as a short option in a bundle */
	const char *const *cancels;
	char cancel_letter;
	bool reads_only;
};

#define L(...) ((const char *const[]){__VA_ARGS__, NULL})
static const struct dry_run dry_runs[] = {
    {"git-clean", "clean", 'n', L("--dry-run"), L("-e", "--exclude"), NULL, 0, true},
    {"git-push-force", "push", 'n', L("--dry-run"),
     L("-o", "--push-option", "--repo", "--receive-pack", "--exec"),
     L("--receive-pack", "--exec"), 0, true},
    {"rsync-delete", NULL, 'n', L("--dry-run"),
     L("-e", "--rsh", "-f", "--filter", "--exclude", "--include", "-T", "--temp-dir", "-B",
       "--block-size", "-M", "--remote-option", "--rsync-path", "--exclude-from",
       "--include-from", "--files-from", "--partial-dir", "--backup-dir", "--suffix",
       "--compare-dest", "--copy-dest", "--link-dest", "--log-file", "--password-file"),
     L("-e", "--rsh", "--rsync-path"), 'e', true},
    {"kubectl-delete", NULL, 0, L("--dry-run", "--dry-run=client", "--dry-run=server"),
     L("-f", "--filename", "-l", "--selector", "-n", "--namespace"), NULL, 0, true},
    {"kubectl-change", NULL, 0, L("--dry-run", "--dry-run=client", "--dry-run=server"),
     L("-f", "--filename", "-l", "--selector", "-n", "--namespace"), NULL, 0, true},
    {"publish", NULL, 0, L("--dry-run"), L("--registry", "--tag", "--otp", "--access"), NULL,
     0, false},
};
#undef L

/* Is a a bundle of short options holding letter? */
static bool in_bundle(const char *a, char letter)
{
	return letter && a[0] == '-' && a[1] && a[1] != '-' &&
	       strspn(a + 1, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ") ==
		   strlen(a + 1) &&
	       strchr(a + 1, letter);
}

/* Is a one of list, or one of them with =VALUE? */
static bool option_in(const char *a, const char *const *list)
{
	for (; list && *list; list++) {
		size_t l = strlen(*list);

		if (!strncmp(a, *list, l) && (a[l] == '\0' || a[l] == '='))
			return true;
	}
	return false;
}

bool pdk_policy_dry_run(const char *rule, char *const *argv, size_t argc, bool *reads_only)
{
	for (size_t k = 0; k < PDK_ARRAY_SIZE(dry_runs); k++) {
		const struct dry_run *d = &dry_runs[k];
		size_t i = 1;

		if (strcmp(d->rule, rule))
			continue;
		if (d->sub) {
			while (i < argc && strcmp(argv[i], d->sub))
				i++;
			i++;
		}
		bool dry = false;

		for (; i < argc && strcmp(argv[i], "--"); i++) {
			if (option_in(argv[i], d->cancels) || in_bundle(argv[i], d->cancel_letter))
				return false;
			if (pdk_policy_in_list(argv[i], d->argopts))
				i++;
			else if (pdk_policy_in_list(argv[i], d->longs) || in_bundle(argv[i], d->letter))
				dry = true;
		}
		if (dry) {
			*reads_only = d->reads_only;
			return true;
		}
	}
	return false;
}
