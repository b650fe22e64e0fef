/* rmshim_sweep.c - rm inside a confined command, what paddock does once the run is over: move
 * what the shim staged (and what runs of dead paddocks left) into the trash, deleting nothing. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "rmshim.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config/config.h"
#include "core/path.h"
#include "rmshim_int.h"
#include "confine/sandbox.h"
#include "core/state.h"
#include "trash.h"
#include "core/util.h"

#define RECORD_MAX 16384 /* a record, or a registry entry, read at most */
#define NOTE_MAX   2048

#define PATH_KEY     PDK_RMSHIM_RECORD_PATH
#define PATH_KEY_LEN (sizeof(PATH_KEY) - 1)
#define DATE_KEY     PDK_RMSHIM_RECORD_DATE
#define DATE_KEY_LEN (sizeof(DATE_KEY) - 1)

struct sweep {
	struct pdk_strv roots; /* trusted: this run's (the first n_mine) and dead runs' */
	size_t n_mine;
	char *const *protect; /* the run's protected paths: no record may name one */
	size_t n_protect;
	const struct pdk_rmshim *shim;
	char *runs_dir;
	int *dead_fds; /* locks held on dead runs' registries while sweeping them */
	char **dead_names;
	size_t n_dead;
	int moved;
	const char *base; /* the root or mount top whose staging area is being swept */
	const char *run;  /* the run whose staging is being swept; NULL: none */
	struct pdk_strv left_runs; /* runs with files left staged: their entries stay */
	bool lost;		   /* out of memory keeping that list: every entry stays */
	bool mine;	  /* that area lies in this run's roots: its files go in the note */
	int left_mine;	  /* files left staged in this run's roots */
	char note[NOTE_MAX];
	size_t note_len;
};

static void note_add(struct sweep *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void note_add(struct sweep *s, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (s->note_len >= sizeof(s->note) - 1)
		return;
	va_start(ap, fmt);
	n = vsnprintf(s->note + s->note_len, sizeof(s->note) - s->note_len, fmt, ap);
	va_end(ap);
	if (n > 0)
		s->note_len += (size_t)n;
	if (s->note_len >= sizeof(s->note) - 1)
		strcpy(s->note + sizeof(s->note) - 5, "...");
}

/* One more file stays staged; said in the note when it is this run's. */
static void left_one(struct sweep *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void left_one(struct sweep *s, const char *fmt, ...)
{
	char what[PATH_MAX + 256];
	va_list ap;

	if (s->run && !pdk_strv_contains(s->left_runs.v, s->left_runs.n, s->run) &&
	    pdk_strv_push(&s->left_runs, s->run) < 0)
		s->lost = true;
	if (!s->mine)
		return;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	note_add(s, "%s%s", s->left_mine++ ? "; " : "", what);
}

static char *percent_decode(const char *s, size_t len)
{
	char *out = malloc(len + 1), *o = out;

	if (!out)
		return NULL;
	for (size_t i = 0; i < len; i++) {
		if (s[i] == '%' && i + 2 < len && pdk_hexval(s[i + 1]) >= 0 &&
		    pdk_hexval(s[i + 2]) >= 0) {
			*o++ = (char)(pdk_hexval(s[i + 1]) * 16 + pdk_hexval(s[i + 2]));
			i += 2;
		} else if (s[i] == '%') {
			free(out);
			return NULL;
		} else {
			*o++ = s[i];
		}
	}
	*o = '\0';
	if (strlen(out) != (size_t)(o - out)) { /* an encoded NUL */
		free(out);
		return NULL;
	}
	return out;
}

/* Absolute, no empty, '.' or '..' component: a path trash-restore can use (a newline is
 * escaped in the .trashinfo). */
static bool path_clean(const char *p)
{
	if (p[0] != '/' || strstr(p, "//"))
		return false;
	for (const char *c = p; *c;) {
		const char *e;
		size_t len;

		c++;
		e = c + strcspn(c, "/");
		len = (size_t)(e - c);
		if ((len == 1 && c[0] == '.') || (len == 2 && c[0] == '.' && c[1] == '.'))
			return false;
		if (len == 0 && *e)
			return false;
		c = e;
	}
	return true;
}

/* The record RFD/INFO: the original path (only when it is clean and lies under the root or
 * mount top whose staging area holds the record: the shim stages a file there, and a
 * record a command forged names nothing elsewhere) and the deletion date. */
static void read_record(const struct sweep *s, int rfd, const char *info, char **ret_path,
			char *date, size_t date_len)
{
	_cleanup_close_ int fd = openat(rfd, info, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	char buf[RECORD_MAX + 1];
	struct stat st;
	ssize_t n;
	char *line, *save = NULL;

	*ret_path = NULL;
	date[0] = '\0';
	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
		return;
	n = read(fd, buf, RECORD_MAX);
	if (n <= 0)
		return;
	buf[n] = '\0';
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (strncmp(line, PATH_KEY, PATH_KEY_LEN) == 0 && !*ret_path) {
			char *p = percent_decode(line + PATH_KEY_LEN, strlen(line + PATH_KEY_LEN));

			bool named = p && path_clean(p) && pdk_path_under(p, s->base);

			for (size_t i = 0; named && i < s->n_protect; i++)
				named = !pdk_path_under(p, s->protect[i]);
			if (named)
				*ret_path = p;
			else
				free(p);
		} else if (strncmp(line, DATE_KEY, DATE_KEY_LEN) == 0) {
			snprintf(date, date_len, "%s", line + DATE_KEY_LEN);
		}
	}
}

/* The names in the directory FD (not "." and ".."); FD is closed, whatever happens. */
static int list_dir_fd(int fd, char ***ret, size_t *ret_n)
{
	DIR *d = fdopendir(fd);
	struct dirent *e;
	struct pdk_strv v = {0};
	int r = 0;

	if (!d) {
		r = -errno;
		close(fd);
		return r;
	}
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if ((r = pdk_strv_push(&v, e->d_name)) < 0)
			break;
	}
	closedir(d);
	if (r < 0) {
		pdk_strv_release(&v);
		return r;
	}
	*ret = v.v;
	*ret_n = v.n;
	return 0;
}

/* The same for a directory FD the caller keeps using. */
static int list_dir(int fd, char ***ret, size_t *ret_n)
{
	int dup_fd = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (dup_fd < 0)
		return -errno;
	return list_dir_fd(dup_fd, ret, ret_n);
}

/* DIRFD/NAME to the trash as ORIG (NULL: as where it is staged). */
static void trash_one(struct sweep *s, int dirfd, const char *name, const char *orig,
		      const char *date)
{
	_cleanup_free_ char *where = pdk_path_of_fd(dirfd);
	_cleanup_free_ char *staged = where ? pdk_path_join(where, name) : NULL;
	char why[256] = "";
	int r;

	if (!staged) {
		left_one(s, "%s (staged, place unknown)", name);
		return;
	}
	r = pdk_trash_put_as(dirfd, name, orig ? orig : staged, date[0] ? date : NULL, NULL, why, sizeof(why));
	if (r == 0) {
		s->moved++;
	} else if (r != -ENOENT) {
		left_one(s, "%s%s%s (%s)", orig ? orig : "", orig ? " at " : "", staged,
			 why[0] ? why : strerror(-r));
	}
}

/* One item slot: RFD/NUM (a directory holding the staged file) and RFD/NUM.info. */
static void sweep_slot(struct sweep *s, int rfd, const char *num, const char *area)
{
	_cleanup_close_ int nfd = openat(rfd, num, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	_cleanup_free_ char *orig = NULL, *where = NULL;
	_cleanup_strv_ char **items = NULL;
	char info[32], date[64];
	size_t n = 0;

	snprintf(info, sizeof(info), "%s.info", num);
	if (nfd < 0) {
		trash_one(s, rfd, num, NULL, "");
		return;
	}
	/* Opened through no symlink, but a live process could have moved things around:
	 * what is moved must still lie in the staging area. */
	where = pdk_path_of_fd(nfd);
	if (!where || !pdk_path_under(where, area)) {
		left_one(s, "%s moved away while it was swept; left alone", where ? where : num);
		return;
	}
	read_record(s, rfd, info, &orig, date, sizeof(date));
	if (list_dir(nfd, &items, &n) < 0) {
		left_one(s, "%s: cannot be read", where);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		const char *slash = orig ? strrchr(orig, '/') : NULL;

		/* The record speaks for the one file it was written for, by name. */
		trash_one(s, nfd, items[i], slash && !strcmp(slash + 1, items[i]) ? orig : NULL,
			  date);
	}
	if (unlinkat(rfd, num, AT_REMOVEDIR) == 0 || errno == ENOENT)
		unlinkat(rfd, info, 0);
}

/* A run's registry entry is locked while its paddock lives. */
static bool run_alive(const struct sweep *s, const char *id)
{
	_cleanup_free_ char *reg = NULL;
	_cleanup_close_ int fd = -1;

	if (s->shim && s->shim->run_id && !strcmp(id, s->shim->run_id))
		return false;
	for (size_t i = 0; i < s->n_dead; i++)
		if (!strcmp(s->dead_names[i], id))
			return false;
	if (!s->runs_dir || !(reg = pdk_path_join(s->runs_dir, id)))
		return true; /* cannot tell: leave it for later */
	fd = open(reg, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return errno != ENOENT;
	return flock(fd, LOCK_SH | LOCK_NB) < 0;
}

static void sweep_run(struct sweep *s, int sfd, const char *id, const char *area)
{
	_cleanup_close_ int rfd = openat(sfd, id, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	_cleanup_strv_ char **names = NULL;
	struct stat st;
	size_t n = 0;

	if (rfd < 0 || fstat(rfd, &st) < 0 || st.st_uid != getuid())
		return;
	if (list_dir(rfd, &names, &n) < 0)
		return;
	s->run = id;
	for (size_t i = 0; i < n; i++) {
		const char *nm = names[i];
		size_t len = strlen(nm);

		if (pdk_rmshim_digits(nm, len)) {
			sweep_slot(s, rfd, nm, area);
		} else if (len > 5 && !strcmp(nm + len - 5, ".info") &&
			   pdk_rmshim_digits(nm, len - 5)) {
			continue; /* with its slot, below */
		} else {
			trash_one(s, rfd, nm, NULL, "");
		}
	}
	/* Records whose slot is gone (a shim stopped before it moved anything). */
	for (size_t i = 0; i < n; i++) {
		size_t len = strlen(names[i]);
		char num[16];
		struct stat ignored;

		if (len <= 5 || len - 5 >= sizeof(num) || strcmp(names[i] + len - 5, ".info") ||
		    !pdk_rmshim_digits(names[i], len - 5))
			continue;
		memcpy(num, names[i], len - 5);
		num[len - 5] = '\0';
		if (fstatat(rfd, num, &ignored, AT_SYMLINK_NOFOLLOW) < 0 && errno == ENOENT)
			unlinkat(rfd, names[i], 0);
	}
	s->run = NULL;
	unlinkat(sfd, id, AT_REMOVEDIR);
}

/* Sweep BASE/TOP. Returns false when there is no such thing, which is what nearly every run
 * finds: one lstat then, rather than opening BASE. */
static bool sweep_area(struct sweep *s, const char *base, const char *top)
{
	_cleanup_close_ int dfd = -1, sfd = -1;
	_cleanup_free_ char *area = pdk_path_join(base, top);
	_cleanup_strv_ char **names = NULL;
	struct stat st;
	size_t n = 0;
	bool others = false;

	if (!area)
		return true; /* cannot tell */
	s->base = base;
	if (lstat(area, &st) < 0 && errno == ENOENT)
		return false;
	dfd = open(base, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return true;
	sfd = openat(dfd, top, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (sfd < 0)
		return true;
	if (fstat(sfd, &st) < 0 || st.st_uid != getuid())
		return true; /* not ours: someone else's name, or a trap */
	if (list_dir(sfd, &names, &n) < 0)
		return true;
	for (size_t i = 0; i < n; i++) {
		struct stat est;

		if (!strcmp(names[i], ".gitignore"))
			continue;
		if (pdk_rmshim_run_id_valid(names[i]) &&
		    fstatat(sfd, names[i], &est, AT_SYMLINK_NOFOLLOW) == 0 &&
		    S_ISDIR(est.st_mode)) {
			if (run_alive(s, names[i]))
				others = true;
			else
				sweep_run(s, sfd, names[i], area);
		} else {
			trash_one(s, sfd, names[i], NULL, "");
		}
	}
	if (others)
		return true;
	/* Empty but for the .gitignore: remove it; a shim racing us makes it again. */
	pdk_strv_freep(&names);
	if (list_dir(sfd, &names, &n) < 0)
		return true;
	if (n == 0 || (n == 1 && !strcmp(names[0], ".gitignore"))) {
		if (n == 1)
			unlinkat(sfd, ".gitignore", 0);
		unlinkat(dfd, top, AT_REMOVEDIR);
	}
	return true;
}

/* A root the shim could not mark (rmshim_int.h): what it staged below is found only through
 * the mount table. */
static bool unwritable_root(const struct pdk_strv *roots)
{
	for (size_t i = 0; i < roots->n; i++)
		if (access(roots->v[i], W_OK) != 0)
			return true;
	return false;
}

/* Mount points strictly below any of ROOTS (where files on other filesystems were staged),
 * from one pass over mountinfo. */
static void mounts_under(const struct pdk_strv *roots, struct pdk_strv *v)
{
#ifdef __linux__
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char *line = NULL;
	size_t cap = 0;

	if (!f)
		return;
	while (getline(&line, &cap, f) > 0) {
		char *save = NULL, *field = strtok_r(line, " ", &save);
		char *mp = NULL;

		for (int i = 0; field && i < 4; i++) {
			field = strtok_r(NULL, " ", &save);
			if (i == 3)
				mp = field;
		}
		if (!mp)
			continue;
		pdk_mountinfo_unescape(mp);
		/* Each once, and none that is itself a root (swept as one). */
		if (pdk_strv_contains(roots->v, roots->n, mp) || pdk_strv_contains(v->v, v->n, mp))
			continue;
		for (size_t i = 0; i < roots->n; i++)
			if (pdk_path_under(mp, roots->v[i])) {
				(void)pdk_strv_push(v, mp);
				break;
			}
	}
	free(line);
	fclose(f);
#else
	(void)roots;
	(void)v;
#endif
}

/* Dead runs' registries: lock them (a later sweep must not race this one) and trust their
 * roots, which paddock wrote outside the sandbox. */
static void adopt_dead_runs(struct sweep *s)
{
	_cleanup_strv_ char **names = NULL;
	_cleanup_close_ int dfd = -1;
	size_t n = 0;

	dfd = open(s->runs_dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0 || list_dir_fd(steal_fd(&dfd), &names, &n) < 0)
		return;
	/* Only this run's own entry: the usual case, with nothing to open. */
	if (n == 0 || (n == 1 && s->shim && s->shim->run_id && !strcmp(names[0], s->shim->run_id)))
		return;
	dfd = open(s->runs_dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0)
		return;
	for (size_t i = 0; i < n; i++) {
		char buf[RECORD_MAX + 1], *tok, *save = NULL;
		int fd, *nfds;
		char **nnames;
		ssize_t len;

		if (!pdk_rmshim_run_id_valid(names[i]) ||
		    (s->shim && s->shim->run_id && !strcmp(names[i], s->shim->run_id)))
			continue;
		fd = openat(dfd, names[i], O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
			close(fd);
			continue; /* alive */
		}
		nfds = realloc(s->dead_fds, (s->n_dead + 1) * sizeof(*nfds));
		if (nfds)
			s->dead_fds = nfds;
		nnames = realloc(s->dead_names, (s->n_dead + 1) * sizeof(*nnames));
		if (nnames)
			s->dead_names = nnames;
		if (!nfds || !nnames || !(s->dead_names[s->n_dead] = strdup(names[i]))) {
			close(fd);
			continue;
		}
		s->dead_fds[s->n_dead++] = fd;
		len = read(fd, buf, RECORD_MAX);
		buf[len > 0 ? len : 0] = '\0';
		for (tok = strtok_r(buf, "\n", &save); tok; tok = strtok_r(NULL, "\n", &save))
			if (tok[0] == '/' && !pdk_strv_contains(s->roots.v, s->roots.n, tok))
				(void)pdk_strv_push(&s->roots, tok);
	}
}

/* ROOTS_REAL: the roots are real paths already (the sandbox's), so not resolved again. */
static int sweep_roots(const char *const *roots, size_t n_roots, bool roots_real,
		       const struct pdk_sandbox *sb, struct pdk_rmshim *shim, char **ret_note)
{
	_cleanup_free_ char *state = pdk_state_dir();
	_cleanup_free_ char *top = NULL;
	struct sweep s = {.shim = shim,
			  .protect = sb ? sb->protect : NULL,
			  .n_protect = sb ? sb->policy.n_protect : 0};
	struct pdk_strv mounts = {0};
	bool staged = false;

	if (!(top = pdk_rmshim_stage_name()))
		return -ENOMEM;
	for (size_t i = 0; i < n_roots; i++) {
		_cleanup_free_ char *real =
		    roots[i] && !roots_real ? realpath(roots[i], NULL) : NULL;
		const char *r = roots_real ? roots[i] : real;

		if (r && !pdk_strv_contains(s.roots.v, s.roots.n, r))
			(void)pdk_strv_push(&s.roots, r);
	}
	s.n_mine = s.roots.n;
	if (state) {
		_cleanup_free_ char *shimdir = pdk_path_join(state, PDK_RMSHIM_DIR);

		s.runs_dir = shimdir ? pdk_path_join(shimdir, PDK_RMSHIM_RUNS) : NULL;
	}
	if (s.runs_dir)
		adopt_dead_runs(&s);
	/* A run's registry entry goes once none of the files it staged is left; the note
	 * speaks only of this run's roots. */
	for (size_t i = 0; i < s.roots.n; i++) {
		s.mine = i < s.n_mine;
		staged |= sweep_area(&s, s.roots.v[i], top);
	}
	/* Files on another mount inside a root are staged at the top of that mount, and the shim
	 * then marks the root too (rmshim_int.h): a run that left no staging in any root, no
	 * dead run and no root it could not write spares the kernel formatting every mount. */
	if (staged || s.n_dead > 0 || unwritable_root(&s.roots)) {
		mounts_under(&s.roots, &mounts);
		for (size_t i = 0; i < mounts.n; i++) {
			s.mine = false;
			for (size_t k = 0; k < s.n_mine; k++)
				s.mine |= pdk_path_under(mounts.v[i], s.roots.v[k]);
			sweep_area(&s, mounts.v[i], top);
		}
	}

	for (size_t i = 0; i < s.n_dead; i++) {
		if (!s.lost && !pdk_strv_contains(s.left_runs.v, s.left_runs.n, s.dead_names[i])) {
			_cleanup_free_ char *reg = pdk_path_join(s.runs_dir, s.dead_names[i]);

			if (reg)
				unlink(reg);
		}
		close(s.dead_fds[i]);
		free(s.dead_names[i]);
	}
	if (shim && shim->registry && !s.lost &&
	    !(shim->run_id && pdk_strv_contains(s.left_runs.v, s.left_runs.n, shim->run_id)))
		unlink(shim->registry);
	free(s.dead_fds);
	free(s.dead_names);
	pdk_strv_release(&s.left_runs);
	pdk_strv_release(&mounts);
	pdk_strv_release(&s.roots);
	free(s.runs_dir);

	if (ret_note) {
		int n = s.left_mine;

		*ret_note = NULL;
		if (n > 0 && asprintf(ret_note,
				      "rm: %d file%s could not be moved to the trash and stay%s "
				      "staged, nothing deleted: %s",
				      n, n == 1 ? "" : "s", n == 1 ? "s" : "", s.note) < 0)
			*ret_note = NULL;
	}
	return s.moved;
}

int pdk_rmshim_sweep_roots(const char *const *roots, size_t n_roots, struct pdk_rmshim *shim,
			   char **ret_note)
{
	return sweep_roots(roots, n_roots, false, NULL, shim, ret_note);
}

int pdk_rmshim_sweep(const struct pdk_sandbox *sb, struct pdk_rmshim *shim, char **ret_note)
{
	/* The policy's roots are real paths (confine.h), and they are what the run was given:
	 * resolving them again would only trust whatever a root was swapped for meanwhile. */
	return sweep_roots(sb->policy.roots, sb->policy.n_roots, true, sb, shim, ret_note);
}
