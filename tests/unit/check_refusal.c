/* check_refusal.c - the sandbox: hints, from the messages real tools print when the
 * sandbox refuses a write (each captured from a run under bwrap, EROFS, and landlock,
 * EACCES), to the path named and the --write that would allow it; and a socket refused,
 * told apart from a write, to the grant that would open it. */
#include <check.h>
#include <string.h>

#include "ck_util.h"
#include "confine/refusal.h"

static const char *const roots[] = {"/tmp/pdk-ck-root"};
static const char *const never[] = {"/root/.ssh", "/tmp/pdk-ck-root/.git/hooks"};
static const struct pdk_refusal_scope scope = {
    .cwd = "/tmp/pdk-ck-root", .roots = roots, .n_roots = 1, .never = never, .n_never = 2};

/* The one hint text gives, asserted to name want. */
static void hint_names(const char *text, const char *want)
{
	char lines[PDK_REFUSAL_MAX][768];
	size_t n = pdk_refusal_hints(text, strlen(text), &scope, lines, PDK_REFUSAL_MAX);
	char needle[600];

	ck_assert_msg(n == 1, "%zu hints for: %s", n, text);
	snprintf(needle, sizeof(needle), "refused a write to %s, outside the writable roots",
		 want);
	ck_assert_msg(strstr(lines[0], needle), "hint for %s: %s", want, lines[0]);
}

static size_t hints_for(const char *text)
{
	char lines[PDK_REFUSAL_MAX][768];

	return pdk_refusal_hints(text, strlen(text), &scope, lines, PDK_REFUSAL_MAX);
}

START_TEST(node)
{
	hint_names("npm error rofs Invalid response body while trying to fetch "
		   "https://registry.npmjs.org/is-number: EROFS: read-only file system, open "
		   "'/root/.npm/_cacache/tmp/***'\n",
		   "/root/.npm/_cacache/tmp/***");
	hint_names("Error: EROFS: read-only file system, mkdir '/usr/pdk-d'\n", "/usr/pdk-d");
	hint_names("Error: EACCES: permission denied, open '/usr/pdk-x'\n  code: 'EACCES',\n",
		   "/usr/pdk-x");
	hint_names("Error: EPERM: operation not permitted, open '/usr/pdk-x'\n", "/usr/pdk-x");
}
END_TEST

START_TEST(go)
{
	hint_names("mkdir /usr/pdk-d: read-only file system\n", "/usr/pdk-d");
	hint_names("open /usr/pdk-x: permission denied\nexit status 1\n", "/usr/pdk-x");
	hint_names("failed to initialize build cache at /usr/lib/gocache: mkdir /usr/lib/gocache: "
		   "read-only file system\n",
		   "/usr/lib/gocache");
}
END_TEST

START_TEST(rust)
{
	/* cargo says the path, then on a later line why. */
	hint_names("error: failed to open: /usr/lib/.crates.toml\n\nCaused by:\n  Read-only "
		   "file system (os error 30)\n",
		   "/usr/lib/.crates.toml");
	hint_names("error: failed to open: /usr/lib/.crates.toml\n\nCaused by:\n  Permission "
		   "denied (os error 13)\n",
		   "/usr/lib/.crates.toml");
	/* A panic names no path: no guess at all. */
	ck_assert_uint_eq(hints_for("called `Result::unwrap()` on an `Err` value: Os { code: 30, "
				    "kind: ReadOnlyFilesystem, message: \"Read-only file system\" "
				    "}\n"),
			  0);
}
END_TEST

START_TEST(java)
{
	hint_names("Exception in thread \"main\" java.nio.file.FileSystemException: /root/.m2: "
		   "Read-only file system\n",
		   "/root/.m2");
	hint_names("java.io.FileNotFoundException: /usr/pdk-x (Read-only file system)\n",
		   "/usr/pdk-x");
	hint_names("java.io.FileNotFoundException: /usr/pdk-x (Permission denied)\n", "/usr/pdk-x");
	hint_names("java.nio.file.AccessDeniedException: /usr/pdk-d\n", "/usr/pdk-d");
	hint_names("[ERROR] Could not create local repository at /root/.m2/repository -> [Help 1]\n",
		   "/root/.m2/repository");
}
END_TEST

START_TEST(python)
{
	hint_names("OSError: [Errno 30] Read-only file system: '/usr/pdk-x'\n", "/usr/pdk-x");
	hint_names("PermissionError: [Errno 13] Permission denied: '/usr/pdk-d'\n", "/usr/pdk-d");
}
END_TEST

START_TEST(shells)
{
	hint_names("sh: 1: cannot create /etc/pdk-x: Read-only file system\n", "/etc/pdk-x");
	hint_names("touch: cannot touch '/etc/pdk-x': Permission denied\n", "/etc/pdk-x");
}
END_TEST

/* Homebrew lists what it cannot write below a heading of its own, one directory a line
 * (its message as brew install prints it, the directories a confined run could not
 * write); each listed directory gets its line, and the advice after the list none. */
START_TEST(homebrew)
{
	static const char text[] =
	    "Error: The following directories are not writable by your user:\n"
	    "/opt/homebrew/share/man/man8\n"
	    "/opt/homebrew/var/homebrew/locks\n"
	    "\n"
	    "You should change the ownership of these directories to your user.\n"
	    "  sudo chown -R $(whoami) /opt/homebrew/share/man/man8 "
	    "/opt/homebrew/var/homebrew/locks\n"
	    "\n"
	    "And make sure that your user has write permission.\n"
	    "  chmod u+w /opt/homebrew/share/man/man8 /opt/homebrew/var/homebrew/locks\n";
	char lines[PDK_REFUSAL_MAX][768];
	size_t n = pdk_refusal_hints(text, strlen(text), &scope, lines, PDK_REFUSAL_MAX);

	ck_assert_uint_eq(n, 2);
	ck_assert_ptr_nonnull(strstr(lines[0], "refused a write to /opt/homebrew/share/man/man8, "
					       "outside the writable roots"));
	ck_assert_ptr_nonnull(strstr(lines[0], "--write /opt/homebrew/share/man"));
	ck_assert_ptr_nonnull(strstr(lines[1], "refused a write to /opt/homebrew/var/homebrew/locks"));
	/* the heading alone names nothing */
	ck_assert_uint_eq(hints_for("Error: The following directories are not writable by your "
				    "user:\n\n"),
			  0);
}
END_TEST

/* SwiftPM compiles its manifests under a Seatbelt profile of its own, which cannot start
 * inside paddock's: sandbox-exec's complaint (as swift build prints it) gets one line,
 * naming --disable-sandbox, however often it comes, and no path guess. */
START_TEST(swiftpm)
{
	static const char text[] =
	    "error: 'app': Invalid manifest\n"
	    "sandbox-exec: sandbox_apply: Operation not permitted\n"
	    "error: 'lib': Invalid manifest\n"
	    "sandbox-exec: sandbox_apply: Operation not permitted\n";
	char lines[PDK_REFUSAL_MAX][768];
	size_t n = pdk_refusal_hints(text, strlen(text), &scope, lines, PDK_REFUSAL_MAX);

	ck_assert_uint_eq(n, 1);
	ck_assert_ptr_nonnull(strstr(lines[0], "swift build"));
	ck_assert_ptr_nonnull(strstr(lines[0], "--disable-sandbox"));
	ck_assert_ptr_null(strstr(lines[0], "refused a write"));
}
END_TEST

/* A write refused at a protected path inside a root is named as one, with why, the bare
 * "Device or resource busy" of a held path moved or removed included; elsewhere in the root
 * the guess stays. */
START_TEST(held)
{
	static const char *const held_paths[] = {"/tmp/pdk-ck-root/.git/hooks",
						 "/tmp/pdk-ck-root/.vscode"};
	const char *cases[][2] = {
	    {"mv: cannot move '.git/hooks' to '.git/h2': Device or resource busy\n",
	     "/tmp/pdk-ck-root/.git/hooks is protected"},
	    {"sh: 1: cannot create /tmp/pdk-ck-root/.git/hooks/pre-commit: Read-only file "
	     "system\n",
	     "/tmp/pdk-ck-root/.git/hooks/pre-commit is protected, as it lies in "
	     "/tmp/pdk-ck-root/.git/hooks"},
	    {"OSError: [Errno 16] Device or resource busy: '.vscode'\n",
	     "/tmp/pdk-ck-root/.vscode is protected"},
	    {"touch: cannot touch 'src/x': Permission denied\n", "only a guess"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char lines[PDK_REFUSAL_MAX][768];
		struct pdk_refusal_scope sc = scope;
		size_t n;

		sc.held = held_paths;
		sc.n_held = 2;
		n = pdk_refusal_hints(cases[i][0], strlen(cases[i][0]), &sc, lines, PDK_REFUSAL_MAX);

		ck_assert_msg(n == 1, "%zu hints for: %s", n, cases[i][0]);
		ck_assert_msg(strstr(lines[0], cases[i][1]), "hint for %s: %s", cases[i][0],
			      lines[0]);
	}
	/* Without the held paths, the busy one is at least a guess now. */
	ck_assert_uint_eq(hints_for("mv: cannot move '.git/hooks' to '.git/h2': Device or "
				    "resource busy\n"),
			  1);
}
END_TEST

/* What the command prints steers no hint onto a protected or sensitive path. */
static const char *one_hint(const struct pdk_refusal_scope *sc, const char *text)
{
	static char lines[PDK_REFUSAL_MAX][768];

	ck_assert_msg(pdk_refusal_hints(text, strlen(text), sc, lines, PDK_REFUSAL_MAX) == 1, "no hint for %s", text);
	return lines[0];
}

START_TEST(never_onto_protected_or_sensitive)
{
	static const char *const sub_roots[] = {"/tmp/pdk-ck-root/sub"};
	struct pdk_refusal_scope sub = scope;
	const char *l;

	/* a line the command printed itself, naming a key file */
	l = one_hint(&scope, "sh: 1: cannot create /root/.ssh/authorized_keys: Permission denied\n");
	ck_assert_msg(!strstr(l, "--write /"), "%s", l);
	ck_assert_msg(strstr(l, "ask the person to change it themselves"), "%s", l);
	/* .ssh anywhere, not only where the scope lists it */
	l = one_hint(&scope, "sh: /home/other/.ssh/config: Permission denied\n");
	ck_assert_msg(!strstr(l, "--write /"), "%s", l);
	/* launched from a subdirectory: the repository's .git is outside the root */
	sub.roots = sub_roots;
	sub.cwd = sub_roots[0];
	l = one_hint(&sub, "error: could not lock config file /tmp/pdk-ck-root/.git/config: "
			   "Read-only file system\n");
	ck_assert_msg(!strstr(l, "--write /"), "%s", l);
	ck_assert_msg(strstr(l, "(.git)"), "%s", l);
	l = one_hint(&sub, "cp: cannot create regular file '../.vscode/tasks.json': Read-only file "
			   "system\n");
	ck_assert_msg(!strstr(l, "--write /"), "%s", l);
	/* the twin: an ordinary path outside the roots is offered */
	l = one_hint(&sub, "touch: cannot touch '/tmp/pdk-ck-root/out.txt': Read-only file system\n");
	ck_assert_msg(strstr(l, "--write /tmp/pdk-ck-root"), "%s", l);
	ck_assert_msg(!strstr(l, "--outside-sandbox"), "%s", l);
	/* where outside runs are allowed, that is offered beside --write */
	sub.outside_ok = true;
	l = one_hint(&sub, "touch: cannot touch '/tmp/pdk-ck-root/out.txt': Read-only file system\n");
	ck_assert_msg(strstr(l, "--write /tmp/pdk-ck-root, or, for a chore that cannot run "
				"confined, ask the person to run it with --outside-sandbox"),
		      "%s", l);
}
END_TEST

/* The one hint text gives with the network as given, asserted to hold each of want (NULL
 * ends the list); NULL when there is none. */
static const char *socket_hint(const char *network, const char *text)
{
	static char lines[PDK_REFUSAL_MAX][768];
	struct pdk_refusal_scope sc = scope;
	size_t n;

	sc.network = network;
	n = pdk_refusal_hints(text, strlen(text), &sc, lines, PDK_REFUSAL_MAX);
	ck_assert_msg(n <= 1, "%zu hints for: %s", n, text);
	if (n)
		ck_assert_msg(!strstr(lines[0], "write to") && !strstr(lines[0], "--write /"),
			      "a write hint for a socket: %s", lines[0]);
	return n ? lines[0] : NULL;
}

static void unix_hint(const char *text, const char *named)
{
	const char *l = socket_hint("off", text);
	char want[600];

	ck_assert_msg(l, "no hint for: %s", text);
	if (named)
		snprintf(want, sizeof(want),
			 "sandbox: the sandbox refused a unix socket (%s), not a file write, so "
			 "--write does not help; ",
			 named);
	else
		snprintf(want, sizeof(want),
			 "sandbox: the sandbox refused a unix socket, not a file write, so --write "
			 "does not help; ");
	ck_assert_msg(!strncmp(l, want, strlen(want)), "for %s\n got: %s\nwant: %s", text, l,
		      want);
	ck_assert_msg(strstr(l, "commandPolicy.sandbox.allowUnixSockets") &&
			  strstr(l, "--ssh-agent") && strstr(l, "--docker"),
		      "%s", l);
}

/*
 * A unix socket refused (connect, bind, listen, or the socket itself) is not a write: each
 * line here was printed by the program under paddock (bwrap and landlock alike), the socket
 * in the writable root /tmp or the project; before, redis-cli's got "a write to ... failed
 * though it lies inside a writable root".
 */
START_TEST(unix_sockets)
{
	/* redis-cli -s PATH ping: EPERM making the socket, EACCES connecting to another's */
	unix_hint("Could not connect to Redis at /tmp/pdk-host.sock: Operation not permitted\n",
		  "/tmp/pdk-host.sock");
	unix_hint("Could not connect to Redis at ./r.sock: Operation not permitted\n", "./r.sock");
	unix_hint("Could not connect to Redis at /tmp/pdk-other.sock: Permission denied\n",
		  "/tmp/pdk-other.sock");
	/* redis-server --port 0 --unixsocket ./r.sock */
	unix_hint("4:M 05 Dec 2026 02:35:24.720 # Failed opening Unix socket: creating socket: "
		  "Operation not permitted\n", NULL);
	unix_hint("26114:M 05 Dec 2026 02:35:32.282 # Failed opening Unix socket: bind: "
		  "Operation not permitted\n", NULL);
	/* node -e 'require("net").createServer().listen("n.sock")', and connect("PATH") */
	unix_hint("node:events:502\n      throw er; // Unhandled 'error' event\n      ^\n\n"
		  "Error: listen EPERM: operation not permitted n.sock\n"
		  "    at Server.setupListenHandle [as _listen2] (node:net:1886:21)\n"
		  "  code: 'EPERM',\n  errno: -1,\n  syscall: 'listen',\n  address: 'n.sock',\n",
		  "n.sock");
	unix_hint("Error: connect EPERM /tmp/pdk-host.sock\n"
		  "    at PipeConnectWrap.afterConnect [as oncomplete] (node:net:1611:16)\n"
		  "  errno: -1,\n  code: 'EPERM',\n  syscall: 'connect',\n"
		  "  address: '/tmp/pdk-host.sock'\n",
		  "/tmp/pdk-host.sock");
	unix_hint("Error: connect EACCES /tmp/pdk-other.sock\n", "/tmp/pdk-other.sock");
	/* python3: socket.socket(socket.AF_UNIX) refused, connect("PATH") refused, and
	 * multiprocessing's forkserver binding its own */
	unix_hint("Traceback (most recent call last):\n"
		  "  File \"/var/tmp/pdkr/proj/sockb.py\", line 2, in <module>\n"
		  "    s = socket.socket(socket.AF_UNIX)\n"
		  "        ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n"
		  "  File \"/root/.pyenv/versions/3.11.7/lib/python3.11/socket.py\", line 232, in "
		  "__init__\n"
		  "    _socket.socket.__init__(self, family, type, proto, fileno)\n"
		  "PermissionError: [Errno 1] Operation not permitted\n",
		  NULL);
	unix_hint("Traceback (most recent call last):\n"
		  "  File \"/var/tmp/pdkr/proj/sockc.py\", line 3, in <module>\n"
		  "    s.connect(\"/tmp/pdk-other.sock\")\n"
		  "PermissionError: [Errno 13] Permission denied\n",
		  "/tmp/pdk-other.sock");
	unix_hint("  File \"/root/.pyenv/versions/3.11.7/lib/python3.11/multiprocessing/"
		  "forkserver.py\", line 138, in ensure_running\n"
		  "    listener.bind(address)\n"
		  "PermissionError: [Errno 1] Operation not permitted\n",
		  NULL);
	/* With the network on, the host's unix sockets stay closed all the same. */
	ck_assert_ptr_nonnull(socket_hint("on", "Error: connect EACCES /tmp/pdk-other.sock\n"));
	/* Nothing answered at a path: maybe the host's. */
	const char *l = socket_hint("off", "Error: connect ECONNREFUSED /tmp/pdk-host.sock\n");

	ck_assert_msg(l && strstr(l, "nothing answered at the unix socket /tmp/pdk-host.sock; if "
				     "it is a socket of the host's") &&
			  strstr(l, "allowUnixSockets"),
		      "%s", l ? l : "none");
	/* The twins: a file refused is still a write; a TCP server of the run's own that is
	 * not up, or a Python error about a file, names no socket. */
	hint_names("PermissionError: [Errno 13] Permission denied: '/usr/pdk-d'\n", "/usr/pdk-d");
	hint_names("Error: EACCES: permission denied, open '/usr/pdk-x'\n", "/usr/pdk-x");
	ck_assert_ptr_null(socket_hint("off", "Error: connect ECONNREFUSED 127.0.0.1:8080\n"));
	ck_assert_ptr_null(socket_hint("off", "Error: listen EACCES: permission denied "
					      "0.0.0.0:80\n"));
	ck_assert_ptr_null(socket_hint("off", "Could not connect to Redis at 127.0.0.1:6379: "
					      "Connection refused\n"));
	ck_assert_ptr_null(socket_hint("off", "Traceback (most recent call last):\n"
					      "  File \"x.py\", line 1, in <module>\n"
					      "    os.setuid(0)\n"
					      "PermissionError: [Errno 1] Operation not "
					      "permitted\n"));
}
END_TEST

/* A name not reached with the network off or limited to the domains mode: the --allow-domain
 * that would reach it, and -n; with the network on, nothing (the name is wrong, or down).
 * Each line was printed by the program under paddock with the network off. */
START_TEST(network)
{
	static const char *const cases[][2] = {
	    {"curl: (6) Could not resolve host: example.com\n", "example.com"},
	    {"curl: (7) Failed to connect to 93.184.216.34 port 80 after 0 ms: Couldn't connect to "
	     "server\n", "93.184.216.34"},
	    {"Could not connect to Redis at example.com:6379: Temporary failure in name "
	     "resolution\n", "example.com"},
	    {"Error: getaddrinfo EAI_AGAIN example.com\n    at emitErrorEvent "
	     "(node:_http_client:101:11)\n", "example.com"},
	    {"urllib.error.URLError: <urlopen error [Errno -3] Temporary failure in name "
	     "resolution>\n", NULL},
	    {"    sock.connect(sa)\nOSError: [Errno 101] Network is unreachable\n", NULL},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *l = socket_hint("off", cases[i][0]);
		char want[400];

		ck_assert_msg(l, "no hint for %s", cases[i][0]);
		snprintf(want, sizeof(want), "sandbox: the network is off in this run, so %s could "
			 "not be reached; if the command needs it, ask for that name with "
			 "--allow-domain %s (through paddock's proxy", cases[i][1] ? cases[i][1] :
			 "a host", cases[i][1] ? cases[i][1] : "NAME");
		ck_assert_msg(!strncmp(l, want, strlen(want)), "got: %s\nwant: %s", l, want);
		ck_assert_msg(strstr(l, "or for the whole network with -n"), "%s", l);
		l = socket_hint("domains", cases[i][0]);
		ck_assert_msg(l && strstr(l, "this run reaches only its allowed domains"), "%s",
			      l ? l : "none");
		ck_assert_ptr_null(socket_hint("on", cases[i][0]));
		ck_assert_ptr_null(socket_hint(NULL, cases[i][0]));
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("refusal");
	TCase *tc = tcase_create("hints");

	tcase_add_test(tc, node);
	tcase_add_test(tc, go);
	tcase_add_test(tc, rust);
	tcase_add_test(tc, java);
	tcase_add_test(tc, python);
	tcase_add_test(tc, shells);
	tcase_add_test(tc, held);
	tcase_add_test(tc, homebrew);
	tcase_add_test(tc, swiftpm);
	tcase_add_test(tc, never_onto_protected_or_sensitive);
	tcase_add_test(tc, unix_sockets);
	tcase_add_test(tc, network);
	suite_add_tcase(s, tc);
	return pdk_ck_run(s);
}
