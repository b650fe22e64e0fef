/* refusal.c - when a confined command fails on a write (or a socket) the sandbox refused,
 * one sandbox: line naming the path, the writable roots, and how to ask. */
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "agentconf.h"
#include "refusal.h"
#include "secrets.h"
#include "core/path.h"

/*
 * What a refused write looks like, matched in any case: the C library's words (and Node's
 * and Go's lower-case ones: "EROFS: read-only file system, open '/x'", "mkdir /x: permission
 * denied"), Python's errno numbers, Java's exception for EACCES, which names only the path,
 * and the tools that say it in their own words.
 */
static const char *const markers[] = {
	"operation not permitted", "permission denied", "read-only file system",
	"device or resource busy", "resource busy", "[errno 1]", "[errno 13]", "[errno 16]",
	"[errno 30]", " is not writable",
	"accessdeniedexception: ", "could not create local repository at ",
};
/* Markers after which the path itself follows. */
#define MARKER_PATH_AFTER(m) ((m)[strlen(m) - 1] == ' ' && (m)[0] != ' ')

/* Where marker (lower case) first occurs in s[0..n), in any case, or NULL. */
static const char *find_ci(const char *s, size_t n, const char *marker)
{
	size_t m = strlen(marker);

	for (size_t i = 0; m <= n && i <= n - m; i++)
		if (strncasecmp(s + i, marker, m) == 0)
			return s + i;
	return NULL;
}

static bool copy_out(const char *p, size_t len, char *out, size_t outlen)
{
	if (len == 0 || len >= outlen)
		return false;
	memcpy(out, p, len);
	out[len] = '\0';
	return true;
}

/* The last quoted string in line: 'x', "x", ‘x’ or `x`; with want_slash, only one that
 * holds a '/' counts. */
static bool last_quoted(const char *s, size_t n, bool want_slash, char *out, size_t outlen)
{
	bool found = false;

	for (size_t i = 0; i < n; i++) {
		const char *open = NULL, *close;
		size_t skip = 1;
		if (s[i] == '\'' || s[i] == '"' || s[i] == '`') {
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
		if ((!want_slash || memchr(open, '/', len)) && copy_out(open, len, out, outlen))
			found = true;
		i = (size_t)(close - s) + skip - 1;
	}
	return found;
}

/* The length of the word at p, which ends at a blank or at end. */
static size_t field_len(const char *p, const char *end)
{
	const char *q = p;

	while (q < end && *q != ' ' && *q != '\t' && *q != '\r')
		q++;
	return (size_t)(q - p);
}

/* The word that ends at end (exclusive), back to the previous space. */
static bool word_before(const char *s, const char *end, char *out, size_t outlen)
{
	const char *p = end;

	while (p > s && p[-1] != ' ' && p[-1] != '\t')
		p--;
	return copy_out(p, (size_t)(end - p), out, outlen);
}

/* The path a refusal line names, or false. */
static bool path_in(const char *s, size_t n, const char *marker, char *out, size_t outlen)
{
	const char *m = find_ci(s, n, marker), *p;

	/* Node, Python, cargo: the path quoted. */
	if (last_quoted(s, n, true, out, outlen))
		return true;
	if (MARKER_PATH_AFTER(marker)) {
		/* Java's AccessDeniedException: /x; Maven's "... repository at /x". */
		p = m + strlen(marker);
		return copy_out(p, field_len(p, s + n), out, outlen) && out[0] == '/';
	}
	if (strcmp(marker, " is not writable") == 0)
		return word_before(s, m, out, outlen); /* "PATH is not writable." */
	/* Java's FileNotFoundException: "/x (Read-only file system)". */
	if (m - s >= 2 && m[-1] == '(' && m[-2] == ' ' && word_before(s, m - 2, out, outlen) &&
	    out[0] == '/')
		return true;
	/* dash: "sh: 1: cannot create PATH: Permission denied" */
	p = memmem(s, (size_t)(m - s), "cannot create ", 14);
	bool named = p != NULL; /* the shell said it was a file it tried */
	if (p) {
		p += 14;
		const char *end = memchr(p, ':', (size_t)(m - p));
		if (end && copy_out(p, (size_t)(end - p), out, outlen))
			return true;
	} else if (m - s >= 2 && m[-1] == ' ' && m[-2] == ':') {
		/* "sh: PATH: Permission denied", Go's "open PATH: permission denied", Java's
		 * "FileSystemException: PATH: Read-only file system": the field before it. */
		const char *end = m - 2;
		if (word_before(s, end, out, outlen) && (out[0] == '/' || out[0] == '.' ||
							  strchr(out, '/')))
			return true;
		/* "sh: 1: PATH: Permission denied" has its own colons. */
		p = end;
		while (p > s && p[-1] != ' ')
			p--;
		end = memchr(p, ':', (size_t)(m - p));
		if (end && copy_out(p, (size_t)(end - p), out, outlen) &&
		    (out[0] == '/' || out[0] == '.' || strchr(out, '/')))
			return true;
	}
	if (named)
		return false;
	/* A relative name, quoted: 'file.txt'; not Rust's message: "Read-only file system". */
	return last_quoted(s, n, false, out, outlen) && !strpbrk(out, " \t");
}

/* A line that says only why ("  Read-only file system (os error 30)", cargo's "Caused by:"
 * chain): the path is on a line above it, quoted or after "failed to open: ". */
static bool path_above(const char *const *starts, const size_t *lens, size_t n_above, char *out,
		       size_t outlen)
{
	for (size_t k = n_above; k-- > 0;) {
		const char *s = starts[k], *p;
		size_t n = lens[k];

		if (last_quoted(s, n, true, out, outlen))
			return true;
		if ((p = memmem(s, n, ": /", 3)) && copy_out(p + 2, field_len(p + 2, s + n), out, outlen))
			return true;
	}
	return false;
}

/* --- sockets ------------------------------------------------------------------------------ */

enum sock_refusal {
	SOCK_NONE,
	SOCK_UNIX,	 /* a unix socket refused: EPERM, EACCES */
	SOCK_UNIX_MAYBE, /* nothing answered at a unix socket path: maybe the host's */
	SOCK_NET,	 /* a name or address outside not reached */
};

/* Does the word look like a host:port or an address rather than a unix socket path? */
static bool is_hostport(const char *w)
{
	const char *colon = strrchr(w, ':');

	return !strchr(w, '/') && !strstr(w, ".sock") && colon && colon[1] &&
	       strspn(colon + 1, "0123456789") == strlen(colon + 1);
}

/* Copy a name from the output only if it looks like one: a host name or an address. */
static bool copy_name(const char *p, size_t len, char *out, size_t outlen)
{
	if (!len || len >= outlen || len > 253)
		return false;
	for (size_t i = 0; i < len; i++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-:[]_",
			    p[i]))
			return false;
	return copy_out(p, len, out, outlen);
}

/* The host of "HOST:PORT" (or "[V6]:PORT") in place. */
static void strip_port(char *w)
{
	char *colon = strrchr(w, ':');

	if (w[0] == '[' && strchr(w, ']')) {
		memmove(w, w + 1, strlen(w));
		*strchr(w, ']') = '\0';
	} else if (colon && strchr(w, ':') == colon) {
		*colon = '\0';
	}
}

/* The reason a line gives, as one of the socket refusals it can mean. */
static enum sock_refusal reason_of(const char *s, size_t n)
{
	if (find_ci(s, n, "operation not permitted") || find_ci(s, n, "permission denied"))
		return SOCK_UNIX;
	if (find_ci(s, n, "connection refused"))
		return SOCK_UNIX_MAYBE;
	if (find_ci(s, n, "temporary failure in name resolution") ||
	    find_ci(s, n, "name or service not known") || find_ci(s, n, "network is unreachable"))
		return SOCK_NET;
	return SOCK_NONE;
}

/* Python: a PermissionError or ConnectionRefusedError that names no path, below a socket
 * call in its traceback (socket.socket(...), s.connect("/x.sock"), listener.bind(address)). */
static enum sock_refusal python_socket(const char *s, size_t n, const char *const *starts,
				       const size_t *lens, size_t n_above, char *what,
				       size_t wl)
{
	enum sock_refusal k;
	bool call = false;

	if (!find_ci(s, n, "error: [errno ") || last_quoted(s, n, false, what, wl))
		return SOCK_NONE;
	if (find_ci(s, n, "[errno 1]") || find_ci(s, n, "[errno 13]"))
		k = SOCK_UNIX;
	else if (find_ci(s, n, "[errno 111]"))
		k = SOCK_UNIX_MAYBE;
	else
		return SOCK_NONE;
	what[0] = '\0';
	for (size_t i = n_above; i-- > 0;) {
		const char *l = starts[i];
		size_t ln = lens[i];

		if (find_ci(l, ln, "  file \""))
			continue; /* where the call is, not what it is */
		if (find_ci(l, ln, "socket") || find_ci(l, ln, ".connect(") ||
		    find_ci(l, ln, ".bind(") || find_ci(l, ln, ".listen(") ||
		    find_ci(l, ln, ".sendto(")) {
			call = true;
			if (!what[0] && !last_quoted(l, ln, true, what, wl))
				what[0] = '\0';
		}
	}
	/* A refused connection is a socket's only when a path says so. */
	if (!call || (k == SOCK_UNIX_MAYBE && !what[0]))
		return SOCK_NONE;
	return k;
}

/*
 * Is line s a socket the sandbox refused, or a name it kept the command from? Then what
 * names it (a path, a name, or "" when the line names none). Each form below was printed by
 * the program named, run under bwrap and landlock.
 */
static enum sock_refusal socket_refusal(const char *s, size_t n, const char *const *starts,
					const size_t *lens, size_t n_above, char *what, size_t wl)
{
	static const char *const node_calls[] = {"connect E", "listen E", "bind E", "send E"};
	const char *p, *q, *end = s + n;
	enum sock_refusal k;

	what[0] = '\0';
	/* Node: "Error: connect EACCES /tmp/x.sock", "Error: listen EPERM: operation not
	 * permitted n.sock", "Error: connect ECONNREFUSED /tmp/x.sock". */
	for (size_t i = 0; i < sizeof(node_calls) / sizeof(node_calls[0]); i++) {
		if (!(p = find_ci(s, n, node_calls[i])))
			continue;
		p += strlen(node_calls[i]) - 1;
		size_t code = field_len(p, end);

		if (code && p[code - 1] == ':')
			code--;
		if (!((code == 5 && (!strncmp(p, "EPERM", 5))) ||
		      (code == 6 && !strncmp(p, "EACCES", 6)) ||
		      (code == 12 && !strncmp(p, "ECONNREFUSED", 12)) ||
		      (code == 11 && !strncmp(p, "ENETUNREACH", 11))))
			continue;
		k = code == 12 ? SOCK_UNIX_MAYBE : code == 11 ? SOCK_NET : SOCK_UNIX;
		q = end;
		while (q > p && (q[-1] == ' ' || q[-1] == '\r'))
			q--;
		if (!word_before(s, q, what, wl))
			return SOCK_NONE;
		if (is_hostport(what)) {
			/* A server of the run's own that is not up; a port below 1024 bound
			 * without the privilege: no grant helps. */
			if (k == SOCK_UNIX_MAYBE || node_calls[i][0] != 'c')
				return SOCK_NONE;
			strip_port(what);
			return SOCK_NET;
		}
		return k == SOCK_NET ? SOCK_NONE : k;
	}
	/* Node: "Error: getaddrinfo EAI_AGAIN example.com" */
	if ((p = find_ci(s, n, "getaddrinfo EAI_AGAIN ")) ||
	    (p = find_ci(s, n, "getaddrinfo ENOTFOUND "))) {
		p = strchr(p + 12, ' ') + 1;
		if (!copy_name(p, field_len(p, end), what, wl))
			what[0] = '\0';
		return SOCK_NET;
	}
	/* redis-cli: "Could not connect to Redis at /tmp/r.sock: Permission denied",
	 * "Could not connect to Redis at example.com:6379: Temporary failure in name
	 * resolution" */
	if ((p = find_ci(s, n, " at ")) && find_ci(s, n, "could not connect to") &&
	    (q = memmem(p + 4, (size_t)(end - p - 4), ": ", 2)) &&
	    (k = reason_of(q, (size_t)(end - q))) != SOCK_NONE) {
		if (!copy_out(p + 4, (size_t)(q - p - 4), what, wl))
			return SOCK_NONE;
		if (!is_hostport(what))
			return k == SOCK_NET ? SOCK_NONE : k;
		if (k != SOCK_NET)
			return SOCK_NONE; /* a TCP server of the run's own that is not up */
		strip_port(what);
		return SOCK_NET;
	}
	/* redis-server: "# Failed opening Unix socket: bind: Operation not permitted" */
	if (find_ci(s, n, "failed opening unix socket") && reason_of(s, n) == SOCK_UNIX)
		return SOCK_UNIX;
	/* curl: "curl: (6) Could not resolve host: example.com", "curl: (7) Failed to connect
	 * to 93.184.216.34 port 80 after 0 ms: Couldn't connect to server" */
	if ((p = find_ci(s, n, "could not resolve host: "))) {
		p += 24;
		if (!copy_name(p, field_len(p, end), what, wl))
			what[0] = '\0';
		return SOCK_NET;
	}
	if ((p = find_ci(s, n, "curl: (7) failed to connect to "))) {
		p += 31;
		if (!copy_name(p, field_len(p, end), what, wl))
			what[0] = '\0';
		return SOCK_NET;
	}
	if ((k = python_socket(s, n, starts, lens, n_above, what, wl)) != SOCK_NONE)
		return k;
	/* Python and others: "[Errno -3] Temporary failure in name resolution",
	 * "[Errno 101] Network is unreachable": no name. */
	if (reason_of(s, n) == SOCK_NET) {
		what[0] = '\0';
		return SOCK_NET;
	}
	return SOCK_NONE;
}

/* The line for a socket refusal (k), what it named (maybe ""), in out; false when there is
 * nothing to say (the network was on). */
static bool socket_line(enum sock_refusal k, const char *what, const char *network, char *out,
			size_t outlen)
{
	static const char grants[] =
	    "a host socket (an ssh-agent's, Docker's, a database's in /tmp or /run) is reached "
	    "only when a person grants it: ask them to list its path in "
	    "commandPolicy.sandbox.allowUnixSockets, or to run with --ssh-agent for the "
	    "ssh-agent or --docker for Docker";
	bool named = what[0] != '\0';

	switch (k) {
	case SOCK_UNIX:
		snprintf(out, outlen,
			 "sandbox: the sandbox refused a unix socket%s%.200s%s, not a file write, "
			 "so --write does not help; %s",
			 named ? " (" : "", what, named ? ")" : "", grants);
		return true;
	case SOCK_UNIX_MAYBE:
		snprintf(out, outlen,
			 "sandbox: nothing answered at the unix socket %.200s; if it is a socket "
			 "of the host's rather than one this run made, the sandbox keeps it out "
			 "of reach: %s",
			 what, grants);
		return true;
	case SOCK_NET:
		if (!network || !strcmp(network, "on"))
			return false;
		snprintf(out, outlen,
			 "sandbox: %s, so %.200s could not be reached; if the command needs it, "
			 "ask for that name with --allow-domain %.200s (through paddock's proxy, "
			 "which HTTP_PROXY and ALL_PROXY point at) or for the whole network "
			 "with -n",
			 strcmp(network, "domains")
			     ? "the network is off in this run"
			     : "this run reaches only its allowed domains",
			 named ? what : "a host", named ? what : "NAME");
		return true;
	case SOCK_NONE:
		break;
	}
	return false;
}

/* Names that are never offered to --write, wherever they are: a repository's
 * git directory (hooks and config run code), editor and agent settings that
 * run tasks, shell start-up files, and where keys and credentials live. */
static const char *const never_names[] = {
	".git",	     ".vscode",	 ".idea",   ".mcp.json", ".envrc", ".bashrc", ".bash_profile",
	".zshrc",    ".zshenv",	 ".zprofile", ".profile", ".ssh",    ".gnupg",  ".aws",
	".kube",     ".docker",	 ".netrc",  NULL,
};

/* Is path (absolute, resolved) one never offered: under a never path, or with
 * a never name as a component? Then *what names it. */
static bool never_offered(const struct pdk_refusal_scope *sc, const char *path, const char **what)
{
	for (size_t i = 0; i < sc->n_never; i++)
		if (sc->never[i] && pdk_path_under(path, sc->never[i])) {
			*what = sc->never[i];
			return true;
		}
	for (const char *p = path; p && *p;) {
		const char *next = strchr(p + 1, '/');
		size_t len = next ? (size_t)(next - p - 1) : strlen(p + 1);

		for (size_t i = 0; never_names[i]; i++)
			if (strlen(never_names[i]) == len && !strncmp(p + 1, never_names[i], len)) {
				*what = never_names[i];
				return true;
			}
		p = next;
	}
	return false;
}

/* The protected path of the n held that path is or lies in, or NULL. */
static const char *held_by(const char *path, const char *const *held, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (pdk_path_under(path, held[i]))
			return held[i];
	return NULL;
}

/* A quoted name in line (mv's "cannot move 'A' to 'B'" names two) that is or lies in one of
 * the n held paths, resolved against cwd, into out. */
static bool held_in_line(const char *s, size_t n, const char *cwd, const char *const *held,
			 size_t n_held, char *out, size_t outlen)
{
	for (size_t i = 0; n_held && i < n; i++) {
		const char *close;
		char name[PATH_MAX], joined[2 * PATH_MAX];

		if (s[i] != '\'' && s[i] != '"' && s[i] != '`')
			continue;
		if (!(close = memchr(s + i + 1, s[i], n - i - 1)))
			break;
		if (copy_out(s + i + 1, (size_t)(close - s - i - 1), name, sizeof(name))) {
			snprintf(joined, sizeof(joined), "%s%s%s", name[0] == '/' || !cwd ? "" : cwd,
				 name[0] == '/' || !cwd ? "" : "/", name);
			char *real = pdk_path_resolve(joined);
			bool hit = real && held_by(real, held, n_held);

			if (hit)
				snprintf(out, outlen, "%s", real);
			free(real);
			if (hit)
				return true;
		}
		i = (size_t)(close - s);
	}
	return false;
}

/*
 * Tools that say it in a form of their own. Homebrew lists the directories
 * it cannot write below a heading, one a line, up to a blank line:
 *   Error: The following directories are not writable by your user:
 *   /opt/homebrew/share/man/man8
 * SwiftPM runs its manifests under a Seatbelt profile of its own, and one
 * sandbox cannot start inside another: sandbox-exec says
 *   sandbox-exec: sandbox_apply: Operation not permitted
 */
static const char brew_heading[] = "the following directories are not writable by your user";
static const char nested_seatbelt[] = "sandbox_apply: operation not permitted";

/* A refused open of a secret: say what it is and how to ask, never what it holds. */
static bool secret_hint(const struct pdk_refusal_scope *sc, const char *joined, const char *real,
			char *line)
{
	if (!sc->secrets ||
	    !(pdk_secrets_denied(sc->secrets, joined) || pdk_secrets_denied(sc->secrets, real)))
		return false;
	snprintf(line, 768, "sandbox: %.250s is a secret (a credential store, key, history or "
		 ".env) that the sandbox keeps unread, so its content is not shown; if the task "
		 "needs it, ask the person with --read %.250s", real, real);
	return true;
}

size_t pdk_refusal_hints(const char *text, size_t text_len, const struct pdk_refusal_scope *scope,
			 char lines[][768], size_t max)
{
	const char *cwd = scope->cwd;
	const char *const *roots = scope->roots;
	size_t n_roots = scope->n_roots;
	const char *const *held = scope->held;
	size_t n_held = scope->n_held;
	bool brew_list = false, told_nested = false;
	char seen[PDK_REFUSAL_MAX][PATH_MAX];
	char rootlist[260];
	size_t count = 0, rl = 0;
	/* The last few lines, for a reason that comes below its path. */
	enum { ABOVE = 4 };
	const char *starts[ABOVE];
	size_t lens[ABOVE], n_above = 0;

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
		bool got = false;
		size_t lead = strspn(s, " \t");

		char sock_what[512], key[528];
		enum sock_refusal sk =
		    socket_refusal(s, n, starts, lens, n_above, sock_what, sizeof(sock_what));

		if (sk != SOCK_NONE) {
			bool dup = false;

			/* Once for each thing named; a socket's key cannot be a resolved path. */
			snprintf(key, sizeof(key), "%d:%s", (int)sk, sock_what);
			for (size_t i = 0; i < count; i++)
				dup |= strcmp(seen[i], key) == 0;
			if (!dup && socket_line(sk, sock_what, scope->network, lines[count], 768))
				snprintf(seen[count++], sizeof(seen[0]), "%s", key);
			s += n + 1;
			continue;
		}
		if (find_ci(s, n, nested_seatbelt)) {
			if (!told_nested)
				snprintf(lines[count++], 768,
					 "sandbox: a program tried to start a sandbox of its own "
					 "(SwiftPM does), and Seatbelt cannot start one inside "
					 "paddock's; for swift build, swift test and swift run, "
					 "pass --disable-sandbox");
			told_nested = true;
			s += n + 1;
			continue;
		}
		if (brew_list && (lead >= n || s[lead] != '/'))
			brew_list = false;
		if (brew_list) {
			got = copy_out(s + lead, field_len(s + lead, s + n), raw, sizeof(raw));
		} else if (find_ci(s, n, brew_heading)) {
			brew_list = true;
			s += n + 1;
			continue;
		}
		for (size_t i = 0; !got && i < sizeof(markers) / sizeof(markers[0]) && !marker; i++)
			if (find_ci(s, n, markers[i]))
				marker = markers[i];
		if (marker) {
			got = path_in(s, n, marker, raw, sizeof(raw)) ||
			      (lead < n && find_ci(s + lead, n - lead, marker) == s + lead &&
			       path_above(starts, lens, n_above, raw, sizeof(raw)));
		}
		if (got)
			(void)held_in_line(s, n, cwd, held, n_held, raw, sizeof(raw));
		if (got) {
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
				const char *what = NULL;

				snprintf(seen[count], sizeof(seen[count]), "%s", real);
				const char *h = inside ? held_by(real, held, n_held) : NULL;
				/* The grant that lets a confined call write it, if any. */
				const char *grant =
				    pdk_agentconf_is(real) ? ", or ask the person for "
							     "--allow-agent-config"
				    : strstr(real, "/hooks") ? ", or, for a hook manager's install "
							       "step, ask the person for "
							       "--allow-git-hooks"
							     : "";
				if (secret_hint(scope, joined, real, lines[count])) {
					/* named above */
				} else if (h) {
					snprintf(lines[count], 768, "sandbox: %.200s is protected%s%.200s: "
						 "paddock holds it read-only while the run lasts, since "
						 "what is there runs or is trusted later outside the "
						 "sandbox (git's hooks, a shell's, an agent's or "
						 "an editor's start-up files, paddock's own "
						 "state); change it yourself outside paddock if "
						 "it must change%s",
						 real, strcmp(h, real) ? ", as it lies in " : "",
						 strcmp(h, real) ? h : "", grant);
				} else if (never_offered(scope, real, &what)) {
					snprintf(lines[count], 768, "sandbox: a write to %.200s failed; "
						 "it is a protected or sensitive path (%.100s), which "
						 "paddock never opens to commands: do not ask for it "
						 "with --write; if it must change, ask the person to "
						 "change it themselves%s", real, what, grant);
				} else if (inside) {
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
						 "%.100s%s", real, rootlist, dir,
						 scope->outside_ok
						     ? ", or, for a chore that cannot run confined, "
						       "ask the person to run it with --outside-sandbox"
						     : "");
				}
				count++;
			}
			free(real);
		}
		/* Blank lines do not count: cargo puts one between the path and the reason. */
		if (n && strspn(s, " \t\r") < n) {
			if (n_above == ABOVE) {
				memmove(starts, starts + 1, (ABOVE - 1) * sizeof(*starts));
				memmove(lens, lens + 1, (ABOVE - 1) * sizeof(*lens));
				n_above--;
			}
			starts[n_above] = s;
			lens[n_above++] = n;
		}
		s += n + 1;
	}
	return count;
}
