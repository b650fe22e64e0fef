/* backend.c - the compiled-in confinement backends: registry, one check per
 * process, selection by name or by what works here; and what they share. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "backend.h"
#include "confine.h"
#include "core/path.h"
#include "core/strv.h"
#include "core/util.h"

extern const struct pdk_backend pdk_backend_bwrap;
extern const struct pdk_backend pdk_backend_landlock;
extern const struct pdk_backend pdk_backend_seatbelt;

const struct pdk_backend *const pdk_backends[] = {
#ifdef HAVE_BWRAP
	&pdk_backend_bwrap,
#endif
#ifdef HAVE_LANDLOCK
	&pdk_backend_landlock,
#endif
#ifdef HAVE_SEATBELT
	&pdk_backend_seatbelt,
#endif
	NULL,
};

/* One verdict per backend and kind of check, for the whole process: what
 * makes a backend work or not does not change while paddock runs. */
struct verdict {
	int done;
	int result;
	char why[256];
};
static struct {
	struct verdict probe, usable;
	int broken; /* a run found it broken: overrides both */
} checks[PDK_ARRAY_SIZE(pdk_backends)];

static int index_of(const struct pdk_backend *b)
{
	size_t i;

	for (i = 0; pdk_backends[i] && pdk_backends[i] != b; i++)
		;
	return pdk_backends[i] ? (int)i : -1;
}

static int check(struct verdict *v, int (*fn)(char *, size_t), const char **ret_why)
{
	if (!v->done) {
		v->why[0] = '\0';
		v->result = fn ? fn(v->why, sizeof(v->why)) : 0;
		v->done = 1;
	}
	if (ret_why)
		*ret_why = v->why;
	return v->result;
}

const char *pdk_backend_names(void)
{
	static char names[128];

	names[0] = '\0';
	for (size_t i = 0; pdk_backends[i]; i++) {
		if (i)
			strcat(names, ", ");
		strcat(names, pdk_backends[i]->name);
	}
	return names[0] ? names : "none";
}

const struct pdk_backend *pdk_backend_find(const char *name)
{
	for (size_t i = 0; pdk_backends[i]; i++)
		if (strcmp(pdk_backends[i]->name, name) == 0)
			return pdk_backends[i];
	return NULL;
}

int pdk_backend_set_helper(const char *name, const char *path)
{
	const struct pdk_backend *b = pdk_backend_find(name);
	int r;

	if (!b || !b->set_helper)
		return 0;
	if ((r = b->set_helper(path)) > 0)
		pdk_backend_forget(b);
	return r < 0 ? r : 0;
}

const char *pdk_backend_helper(const char *name)
{
	const struct pdk_backend *b = pdk_backend_find(name);

	return b && b->helper ? b->helper() : NULL;
}

int pdk_backend_probe(const struct pdk_backend *b, const char **ret_why)
{
	int i = index_of(b);

	if (i < 0)
		return -ENOENT;
	if (checks[i].broken)
		return check(&checks[i].usable, NULL, ret_why);
	return check(&checks[i].probe, b->probe, ret_why);
}

int pdk_backend_usable(const struct pdk_backend *b, const char **ret_why)
{
	int i = index_of(b);

	if (i < 0)
		return -ENOENT;
	/* A probe already made (doctor) is the better answer. */
	if (!checks[i].broken && checks[i].probe.done)
		return check(&checks[i].probe, NULL, ret_why);
	return check(&checks[i].usable, b->available ? b->available : b->probe, ret_why);
}

void pdk_backend_mark_broken(const struct pdk_backend *b, const char *why)
{
	int i = index_of(b);

	if (i < 0)
		return;
	checks[i].broken = 1;
	checks[i].usable.done = 1;
	checks[i].usable.result = -ENOSYS;
	snprintf(checks[i].usable.why, sizeof(checks[i].usable.why), "%s", why);
}

void pdk_backend_forget(const struct pdk_backend *b)
{
	int i = index_of(b);

	if (i >= 0)
		memset(&checks[i], 0, sizeof(checks[i]));
}

int pdk_backend_select(const char *name, const struct pdk_backend **ret, const char **ret_fallback,
		       char *why, size_t why_len)
{
	static char fallback[512];
	const char *reason;

	*ret_fallback = NULL;
	if (name) {
		const struct pdk_backend *b = pdk_backend_find(name);
		if (!b) {
			snprintf(why, why_len, "no backend '%s' in this paddock; compiled in: %s", name,
				 pdk_backend_names());
			return -ENOENT;
		}
		if (pdk_backend_usable(b, &reason) < 0) {
			snprintf(why, why_len, "backend %s does not work here: %s; 'paddock doctor' "
					       "says which backends do",
				 name, reason);
			return -ENOSYS;
		}
		*ret = b;
		return 0;
	}
	fallback[0] = '\0';
	for (size_t i = 0; pdk_backends[i]; i++) {
		const struct pdk_backend *b = pdk_backends[i];
		if (pdk_backend_usable(b, &reason) == 0) {
			*ret = b;
			if (fallback[0]) {
				size_t n = strlen(fallback);
				snprintf(fallback + n, sizeof(fallback) - n, "; confined with %s instead",
					 b->name);
				*ret_fallback = fallback;
			}
			return 0;
		}
		size_t n = strlen(fallback);
		snprintf(fallback + n, sizeof(fallback) - n, "%s%s cannot run here (%s)",
			 n ? "; " : "sandbox: ", b->name, reason);
	}
	if (!pdk_backends[0])
		snprintf(why, why_len, "no confinement backend is compiled into this paddock; "
				       "rebuild with ./configure --with-backends=..., or have a person "
				       "run with --no-sandbox");
	else
		snprintf(why, why_len, "no confinement backend works here: %s; see 'paddock doctor' "
				       "for how to fix it",
			 fallback + strlen("sandbox: "));
	return -ENOSYS;
}

int pdk_confine_pins(const struct pdk_confine *policy, const char *path, char ***pins, size_t *n)
{
	char a[PATH_MAX];
	struct stat st;
	int r;

	if (snprintf(a, sizeof(a), "%s", path) >= (int)sizeof(a))
		return -ENAMETOOLONG;
	for (size_t i = 0; i < policy->n_roots; i++) {
		const char *root = policy->roots[i];
		char *p = a + strlen(root);

		if (!pdk_path_under(path, root) || !strcmp(path, root))
			continue;
		for (p += *p == '/'; (p = strchr(p, '/')); *p++ = '/') {
			*p = '\0';
			if (lstat(a, &st) < 0 || !S_ISDIR(st.st_mode)) {
				*p = '/';
				break;
			}
			if (!pdk_strv_contains((char *const *)policy->roots, policy->n_roots, a) &&
			    !pdk_strv_contains(*pins, *n, a) && (r = pdk_strv_append(pins, n, strdup(a))) < 0)
				return r;
		}
	}
	return 0;
}
