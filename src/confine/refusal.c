/* refusal.c - when a confined command fails on a write the sandbox refused,
 * one sandbox: line naming the path, the writable roots, and how to ask. */
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "refusal.h"
#include "core/path.h"

static const char *const markers[] = {
	"Operation not permitted", "Permission denied", "Read-only file system",
	"[Errno 1]", "[Errno 13]", "[Errno 30]", " is not writable",
};

/* The last quoted string in line: 'x', ‘x’ or "x". */
static bool last_quoted(const char *s, size_t n, char *out, size_t outlen)
{
	bool found = false;

	for (size_t i = 0; i < n; i++) {
		const char *open = NULL, *close;
		size_t skip = 1;
		if (s[i] == '\'' || s[i] == '"') {
			open = s + i + 1;
			close = memchr(open, s[i], n - i - 1);
		} else if (n - i >= 3 && memcmp(s + i, "\xe2\x80\x98", 3) == 0) {
			open = s + i + 3;
			close = memmem(open, n - i - 3, "\xe2\x80\x99", 3);
			skip = 3;
		} else {
			continue;
		}
		if (!close)
			break;
		size_t len = (size_t)(close - open);
		if (len > 0 && len < outlen) {
			memcpy(out, open, len);
			out[len] = '\0';
			found = true;
		}
		i = (size_t)(close - s) + skip - 1;
	}
	return found;
}

/* The path a refusal line names, or false. */
static bool path_in(const char *s, size_t n, const char *marker, char *out, size_t outlen)
{
	const char *m = memmem(s, n, marker, strlen(marker));
	const char *p;

	if (last_quoted(s, n, out, outlen))
		return true;
	if (strcmp(marker, " is not writable") == 0) {
		/* "PATH is not writable." */
		p = m;
		while (p > s && p[-1] != ' ')
			p--;
		if ((size_t)(m - p) >= outlen || m == p)
			return false;
		memcpy(out, p, (size_t)(m - p));
		out[m - p] = '\0';
		return true;
	}
	/* dash: "sh: 1: cannot create PATH: Permission denied" */
	p = memmem(s, (size_t)(m - s), "cannot create ", 14);
	bool named = p != NULL; /* the shell said it was a file it tried */
	if (p)
		p += 14;
	else {
		/* "sh: PATH: Permission denied": the field before the marker */
		p = m;
		if (p - s < 2 || p[-1] != ' ' || p[-2] != ':')
			return false;
		p -= 2;
		while (p > s && p[-1] != ' ')
			p--;
	}
	const char *end = memchr(p, ':', (size_t)(m - p));
	if (!end || end == p || (size_t)(end - p) >= outlen)
		return false;
	memcpy(out, p, (size_t)(end - p));
	out[end - p] = '\0';
	return named || out[0] == '/' || out[0] == '.' || strchr(out, '/') != NULL;
}

size_t pdk_refusal_hints(const char *text, size_t text_len, const char *cwd,
			 const char *const *roots, size_t n_roots, char lines[][768], size_t max)
{
	char seen[PDK_REFUSAL_MAX][PATH_MAX];
	char rootlist[260];
	size_t count = 0, rl = 0;

	rootlist[0] = '\0';
	for (size_t i = 0; i < n_roots; i++) {
		int w = snprintf(rootlist + rl, sizeof(rootlist) - rl, "%s%s", i ? ", " : "",
				 roots[i]);
		if (w < 0 || rl + (size_t)w >= 240) {
			snprintf(rootlist + rl, sizeof(rootlist) - rl, ", …");
			break;
		}
		rl += (size_t)w;
	}
	for (const char *s = text, *end = text + text_len; s < end && count < max && count < PDK_REFUSAL_MAX;) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		size_t n = nl ? (size_t)(nl - s) : (size_t)(end - s);
		char raw[PATH_MAX], joined[2 * PATH_MAX];
		const char *marker = NULL;

		for (size_t i = 0; i < sizeof(markers) / sizeof(markers[0]) && !marker; i++)
			if (memmem(s, n, markers[i], strlen(markers[i])))
				marker = markers[i];
		if (marker && path_in(s, n, marker, raw, sizeof(raw))) {
			char *real;
			if (raw[0] != '/' && cwd)
				snprintf(joined, sizeof(joined), "%s/%s", cwd, raw);
			else
				snprintf(joined, sizeof(joined), "%s", raw);
			real = pdk_path_resolve(joined);
			bool dup = false;
			for (size_t i = 0; real && i < count; i++)
				dup |= strcmp(seen[i], real) == 0;
			if (real && !dup) {
				bool inside = false;
				for (size_t i = 0; i < n_roots && !inside; i++)
					inside = pdk_path_under(real, roots[i]);
				snprintf(seen[count], sizeof(seen[count]), "%s", real);
				if (inside) {
					snprintf(lines[count], 768, "sandbox: a write to %.200s failed though "
						 "it lies inside a writable root; this is only a guess: "
						 "it may be a protected path or the file's own "
						 "permissions", real);
				} else {
					char dir[PATH_MAX];
					snprintf(dir, sizeof(dir), "%s", real);
					char *slash = strrchr(dir, '/');
					if (slash && slash != dir)
						*slash = '\0';
					snprintf(lines[count], 768, "sandbox: the sandbox refused a write "
						 "to %.160s, outside the writable roots (%s); if the "
						 "command must write there, ask for it with --write "
						 "%.100s", real, rootlist, dir);
				}
				count++;
			}
			free(real);
		}
		s += n + 1;
	}
	return count;
}
