/* cli_doctor.c - `paddock doctor`: which backends are compiled in, which
 * work on this host and why not, what each cannot enforce here, and which one a run would use. */
#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/xattr.h>
#endif

#include "confine/grants.h"
#include "core/strv.h"
#include "confine/backend.h"
#ifdef __linux__
#include "net/supervise.h"
#endif
#ifdef HAVE_BWRAP
#endif
#include "cli.h"
#include "cli_call.h"
#include "run/reap.h"
#include "run/runner.h"
#include "core/path.h"
#include "core/util.h"
#include "core/state.h"
#ifdef __linux__
#include "run/cgroup.h"
#endif

extern char **environ;

static const char usage[] = "usage: paddock doctor [--json]\n"
			    "Say which confinement backends work here, what each cannot enforce "
			    "here, and which one a run would use.\n"
			    "Exit status: 0 when some backend works, 1 when none does.\n";

#ifdef __linux__
/* First line of a small file, trailing newline dropped; NULL when absent. */
static char *first_line_of(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	char *r;

	if (!f)
		return NULL;
	r = fgets(buf, (int)len, f);
	fclose(f);
	if (!r)
		return NULL;
	buf[strcspn(buf, "\n")] = '\0';
	return buf;
}

static void add_num_file(cJSON *o, const char *key, const char *path)
{
	char buf[64];

	if (first_line_of(path, buf, sizeof(buf)))
		cJSON_AddNumberToObject(o, key, strtod(buf, NULL));
	else
		cJSON_AddNullToObject(o, key);
}
#endif

/* `bwrap --version`, first line. */
static bool bwrap_version(const char *bwrap, char *out, size_t len)
{
	char *const args[] = {(char *)bwrap, "--version", NULL};
	posix_spawn_file_actions_t fa;
	int p[2], status;
	pid_t pid;
	ssize_t n;
	size_t got = 0;

	if (pipe(p) < 0)
		return false;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, p[1], 1);
	posix_spawn_file_actions_addclose(&fa, p[0]);
	n = posix_spawn(&pid, bwrap, &fa, NULL, args, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(p[1]);
	if (n != 0) {
		close(p[0]);
		return false;
	}
	while (got < len - 1 && (n = read(p[0], out + got, len - 1 - got)) > 0)
		got += (size_t)n;
	close(p[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	out[got] = '\0';
	out[strcspn(out, "\n")] = '\0';
	return got > 0;
}

#ifdef __linux__
static const char *const landlock_covers[] = {
    "filesystem writes (ABI 1)",
    "rename and link across directories (refer, ABI 2)",
    "truncate (ABI 3)",
    "TCP bind and connect (ABI 4)",
    "ioctl on devices (ABI 5)",
    "abstract unix sockets and signals scoping (ABI 6)",
    "audit logging of denials (ABI 7)",
};

struct meta_result {
	int chmod_, utimes, chown_, xattr; /* 1 stopped, 0 allowed, -1 could not tell */
	int dgram;			   /* a datagram reached an outside socket */
};

/*
 * The probe's own directory: in paddock's state directory, which no confined command can
 * write (bwrap holds it read-only, Landlock refuses a root that holds it), else in /tmp.
 * Made by mkdtemp, opened through no symlink and checked to be this user's 0700 directory:
 * everything after acts on that descriptor, so a name swapped under it changes nothing.
 */
static int probe_dir(char *path, size_t len)
{
	_cleanup_free_ char *state = pdk_state_dir();
	struct stat st;
	int fd;

	if (!state || pdk_mkdir_p(state, 0700) < 0 ||
	    snprintf(path, len, "%s/doctor.XXXXXX", state) >= (int)len || !mkdtemp(path))
		if (snprintf(path, len, "/tmp/paddock-doctor.XXXXXX") >= (int)len || !mkdtemp(path))
			return -errno;
	fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || st.st_uid != geteuid() || (st.st_mode & 07777) != 0700) {
		close(fd);
		return -EPERM;
	}
	return fd;
}

/*
 * What the Landlock backend really stops here among metadata changes: a
 * child enters it with a private writable root and tries chmod, utimes,
 * chown (to the same owner) and setxattr on a file outside that root, the
 * file as doctor made it (O_EXCL) and holds it, never by name: Landlock has
 * no hook for these on a path that a descriptor would not reach.
 */
static int landlock_metadata(const struct pdk_backend *b, struct meta_result *ret)
{
	char dir[PATH_MAX], root[PATH_MAX + 8];
	struct sockaddr_un sun = {.sun_family = AF_UNIX};
	int sock = -1, file = -1, dfd;
	struct pdk_confine policy = {0};
	const char *roots[1];
	void *state = NULL;
	int p[2], status, r = -EIO;
	pid_t pid;

	if ((dfd = probe_dir(dir, sizeof(dir))) < 0)
		return dfd;
	snprintf(root, sizeof(root), "%s/root", dir);
	if (mkdirat(dfd, "root", 0700) < 0 ||
	    (file = openat(dfd, "outside", O_CREAT | O_EXCL | O_NOFOLLOW | O_RDWR | O_CLOEXEC,
			   0600)) < 0) {
		r = -errno;
		goto rm;
	}
	/* A datagram socket outside, as a system log socket would be. */
	if (snprintf(sun.sun_path, sizeof(sun.sun_path), "%s/dgram", dir) <
	    (int)sizeof(sun.sun_path))
		sock = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (sock >= 0 && bind(sock, (struct sockaddr *)&sun, sizeof(sun)) < 0) {
		close(sock);
		sock = -1;
	}
	roots[0] = root;
	policy.roots = roots;
	policy.n_roots = 1;
	/* The network on: the host's unix sockets must stay closed in every mode. */
	policy.network = true;
	r = b->prepare ? b->prepare(&policy, &state) : -ENOTSUP;
	if (r < 0 || pipe(p) < 0)
		goto release;
	/* As the runner does: the connect supervisor, made before the fork. */
	if (b->before_fork && (r = b->before_fork(state)) < 0) {
		close(p[0]);
		close(p[1]);
		goto release;
	}
	pid = fork();
	if (pid == 0) {
		struct meta_result m = {-1, -1, -1, -1, -1};
		struct timespec ts[2] = {{0, 0}, {0, 0}};
		close(p[0]);
		if (b->enter(state) == 0) {
			m.chmod_ = fchmod(file, 0644) < 0;
			m.utimes = futimens(file, ts) < 0;
			m.chown_ = fchown(file, getuid(), getgid()) < 0;
			if (fsetxattr(file, "user.paddock", "1", 1, 0) == 0)
				m.xattr = 0;
			else if (errno != ENOTSUP)
				m.xattr = 1;
			int s = sock >= 0 ? socket(AF_UNIX, SOCK_DGRAM, 0) : -1;
			struct iovec iov = {"x", 1};
			struct msghdr msg = {.msg_name = &sun,
					     .msg_namelen = sizeof(sun),
					     .msg_iov = &iov,
					     .msg_iovlen = 1};
			if (s >= 0)
				sendmsg(s, &msg, 0);
		}
		(void)!write(p[1], &m, sizeof(m));
		_exit(0);
	}
	close(p[1]);
	r = pid < 0 ? -errno : (read(p[0], ret, sizeof(*ret)) == sizeof(*ret) ? 0 : -EIO);
	close(p[0]);
	if (pid > 0)
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
	char c;
	ret->dgram = sock >= 0 ? recv(sock, &c, 1, MSG_DONTWAIT) == 1 : -1;
release:
	if (b->release)
		b->release(state);
rm:
	if (sock >= 0)
		close(sock);
	if (file >= 0)
		close(file);
	/* By name, but only in the directory doctor holds, and never following a link. */
	(void)unlinkat(dfd, "dgram", 0);
	(void)unlinkat(dfd, "outside", 0);
	(void)unlinkat(dfd, "root", AT_REMOVEDIR);
	close(dfd);
	(void)rmdir(dir);
	return r;
}
#endif

static void add_str(cJSON *arr, const char *s)
{
	cJSON_AddItemToArray(arr, cJSON_CreateString(s));
}

/* Facts about this host, each as JSON; the text form is printed from it. */
static cJSON *host_facts(void)
{
	cJSON *d = cJSON_CreateObject(), *o;
	char ver[256];
	/* Where the bwrap backend looks: the configured path, /usr/bin, then PATH. */
	const char *bwrap = pdk_backend_helper("bwrap");

	o = cJSON_AddObjectToObject(d, "bwrap");
	if (bwrap) {
		cJSON_AddStringToObject(o, "path", bwrap);
		if (bwrap_version(bwrap, ver, sizeof(ver)))
			cJSON_AddStringToObject(o, "version", ver);
		else
			cJSON_AddNullToObject(o, "version");
	} else {
		cJSON_AddNullToObject(o, "path");
	}
#ifdef __linux__
	o = cJSON_AddObjectToObject(d, "user_namespaces");
	add_num_file(o, "max_user_namespaces", "/proc/sys/user/max_user_namespaces");
	add_num_file(o, "unprivileged_userns_clone", "/proc/sys/kernel/unprivileged_userns_clone");
	add_num_file(o, "apparmor_restrict_unprivileged_userns",
		     "/proc/sys/kernel/apparmor_restrict_unprivileged_userns");

	o = cJSON_AddObjectToObject(d, "landlock");
	long abi = syscall(__NR_landlock_create_ruleset, NULL, 0, 1U /* _VERSION */);
	if (abi > 0) {
		cJSON *cov = cJSON_AddArrayToObject(o, "covers");
		cJSON_AddNumberToObject(o, "abi", (double)abi);
		for (long i = 0; i < abi && i < (long)PDK_ARRAY_SIZE(landlock_covers); i++)
			add_str(cov, landlock_covers[i]);
	} else {
		cJSON_AddNullToObject(o, "abi");
		cJSON_AddStringToObject(o, "error",
					errno == EOPNOTSUPP ? "disabled at boot"
					: errno == ENOSYS   ? "not built into this kernel"
							    : strerror(errno));
	}

	o = cJSON_AddObjectToObject(d, "seccomp");
	cJSON_AddBoolToObject(o, "available", prctl(PR_GET_SECCOMP, 0, 0, 0, 0) >= 0);
	if (first_line_of("/proc/sys/kernel/seccomp/actions_avail", ver, sizeof(ver)))
		cJSON_AddStringToObject(o, "actions", ver);

	int version = 0;
	const char *base = NULL, *why = "";
	o = cJSON_AddObjectToObject(d, "cgroup");
	pdk_cgroup_where(&version, &base, &why);
	cJSON_AddNumberToObject(o, "version", version);
	if (base)
		cJSON_AddStringToObject(o, "base", base);
#endif
	{
		const char *pwhy = "";
		enum pdk_procs_how how = pdk_run_procs_probe(&pwhy);
		if (!cJSON_GetObjectItem(d, "cgroup"))
			o = cJSON_AddObjectToObject(d, "cgroup");
		cJSON_AddBoolToObject(o, "pids_limit", how == PDK_PROCS_CGROUP);
		cJSON_AddStringToObject(o, "process_limit",
					how == PDK_PROCS_CGROUP	  ? "cgroup"
					: how == PDK_PROCS_RLIMIT ? "rlimit"
								  : "none");
		cJSON_AddNumberToObject(o, "max_processes", PDK_MAX_PROCS_DEFAULT);
		cJSON_AddBoolToObject(o, "guardian", true);
		if (how != PDK_PROCS_CGROUP)
			cJSON_AddStringToObject(o, "why", pwhy ? pwhy : "");
	}
	{
		/* What each grant would open here: the path, or why none. */
		char path[PATH_MAX], gwhy[512];
		_cleanup_strv_ char **dev = NULL;
		size_t n = 0;

		o = cJSON_AddObjectToObject(d, "grants");
		for (int g = 0; g < PDK_GRANT_N; g++)
			cJSON_AddStringToObject(o, pdk_grant_flag(g) + 2,
						pdk_grant_socket(g, path, sizeof(path), gwhy,
								 sizeof(gwhy)) == 0 ? path : gwhy);
		if (pdk_grant_gpu(&dev, &n, gwhy, sizeof(gwhy)) == 0) {
			cJSON *a = cJSON_AddArrayToObject(o, "gpu");

			for (size_t i = 0; i < n; i++)
				add_str(a, dev[i]);
		} else {
			cJSON_AddStringToObject(o, "gpu", gwhy);
		}
	}
	return d;
}

/* What each network mode gives under backend b on this host: doctor's
 * "network" object, off, domains and on, and
 * unix_sockets: what allowUnixSockets gives. */
static void network_modes(const struct pdk_backend *b, cJSON *facts, cJSON *o)
{
	char off[300] = "";
	const char *domains = NULL, *on = NULL, *unix_ = NULL;

	if (!strcmp(b->name, "bwrap")) {
		snprintf(off, sizeof(off), "loopback of the run's own (a network namespace with "
					   "nothing else); no host service, no other address");
		domains = "listed domains through paddock's proxy (HTTP, CONNECT, SOCKS5), "
			  "nothing else; loopback of the run's own";
		on = "the host's network; the host's unix sockets stay closed";
#ifdef __linux__
		char swhy[128];

		unix_ = pdk_netsup_probe(swhy, sizeof(swhy)) == 0
			    ? "the run's own work, every type; the host's closed but for the "
			      "paths of allowUnixSockets (and --ssh-agent, --docker), whose "
			      "connect() the connect supervisor performs to the socket opened at "
			      "the start (a program loaded before bwrap's)"
			    : "closed, the run's own and allowUnixSockets too (no connect "
			      "supervisor here)";
#endif
	} else if (!strcmp(b->name, "landlock")) {
#ifdef __linux__
		char swhy[128];
		double abi = cJSON_GetNumberValue(
		    cJSON_GetObjectItem(cJSON_GetObjectItem(facts, "landlock"), "abi"));

		if (pdk_netsup_probe(swhy, sizeof(swhy)) == 0) {
			unix_ = "the run's own work, every type; the host's closed but for the "
				"paths of allowUnixSockets (and --ssh-agent, --docker), whose "
				"connect() the connect supervisor performs to the socket opened at "
				"the start";
			snprintf(off, sizeof(off),
				 "loopback among the run's own processes through the connect "
				 "supervisor (%s)%s; no host service, no other address",
				 swhy, abi >= 4 ? ", TCP denied to the command itself by Landlock" : "");
			domains = "listed domains through paddock's proxy (HTTP, CONNECT, SOCKS5) "
				  "on the host's loopback, the one port outside the run the connect "
				  "supervisor lets a connection reach; loopback of the run's own";
		} else {
			snprintf(off, sizeof(off),
				 "no IPv4 or IPv6 socket at all, loopback included (no connect "
				 "supervisor: %s)", swhy);
			domains = "not available (no connect supervisor to let the run reach the "
				  "proxy): the network is off";
		}
		on = abi >= 6 ? "the host's network; the host's unix sockets stay closed "
				"(the connect supervisor, and Landlock's scope for abstract ones)"
			      : "the host's network; the host's unix sockets stay closed (the "
				"connect supervisor, or seccomp without one)";
#endif
	} else if (!strcmp(b->name, "seatbelt")) {
		snprintf(off, sizeof(off), "loopback, the host's included (Seatbelt filters "
					   "addresses, not who listens); no other address, no "
					   "host unix socket");
		domains = "listed domains through paddock's proxy (HTTP, CONNECT, SOCKS5) on a "
			  "loopback port, and loopback as with the network off";
		on = "the host's network; the host's unix sockets stay closed but the "
		     "resolver's";
		unix_ = "closed but for the paths of allowUnixSockets, as configured and as "
			"their real paths, which the profile lets a connection reach exactly";
	}
	if (!off[0])
		return;
	cJSON_AddStringToObject(o, "off", off);
	cJSON_AddStringToObject(o, "domains", domains);
	cJSON_AddStringToObject(o, "on", on);
	cJSON_AddStringToObject(o, "unix_sockets",
				unix_ ? unix_ : "closed, allowUnixSockets too (no connect supervisor "
						"here)");
}

/* What backend b cannot enforce on this host, given the facts. */
static void cannot_enforce(const struct pdk_backend *b, cJSON *facts, cJSON *arr)
{
	const char *how = cJSON_GetStringValue(
	    cJSON_GetObjectItem(cJSON_GetObjectItem(facts, "cgroup"), "process_limit"));
	bool cgroup = how && !strcmp(how, "cgroup");

	if (how && !strcmp(how, "rlimit"))
		add_str(arr,
			"process limit only through RLIMIT_NPROC, which counts every process "
			"of this user (set to the tasks running now plus the limit); the result "
			"cannot say when it was hit");
	else if (how && !strcmp(how, "none"))
		add_str(arr, "no process limit: no writable pids cgroup, and RLIMIT_NPROC does not "
			     "bind root; a fork bomb is stopped only by the timeout");
#ifdef __linux__
	/* Both Linux backends load the same seccomp filter: what it lets
	 * through under landlock, it lets through under bwrap. */
	const struct pdk_backend *ll = pdk_backend_find("landlock");
	static struct meta_result m;
	static int tried;
	if (ll && !tried)
		tried = landlock_metadata(ll, &m) == 0 ? 1 : -1;
	if (tried > 0 && m.dgram == 1)
		add_str(arr,
			strcmp(b->name, "landlock")
			    ? "with the network on, sendmsg with a destination address still "
			      "reaches a unix datagram socket outside the sandbox (tried here "
			      "with the same seccomp filter)"
			    : "with the network on, sendmsg with a destination address still "
			      "reaches a unix datagram socket outside the sandbox (tried here)");
#endif
	if (!strcmp(b->name, "bwrap") || !strcmp(b->name, "landlock"))
		add_str(arr, "a protected path missing when a run starts (.vscode, a hook in a "
			     "missing .git/hooks) can be made by the command, and is in the tree "
			     "until the run ends, when it goes to the trash; a git configuration's "
			     "new settings that run a program likewise last until then");
	if (!strcmp(b->name, "bwrap")) {
		_cleanup_free_ char *reaper = pdk_reap_find();

		if (!reaper)
			add_str(arr, "a command killed by a signal is reported as exit status 128+N "
				     "(bwrap passes the death on as a status, and " PDK_REAP_NAME
				     " was found neither next to paddock nor in " PDK_LIBEXECDIR ")");
		return;
	}
	if (!strcmp(b->name, "seatbelt"))
		add_str(arr, "with the network off, loopback is the host's: a service the host "
			     "runs on 127.0.0.1 (a database, a debugger port) can be reached, as "
			     "the run's own servers can");
	if (strcmp(b->name, "landlock"))
		return;
	add_str(arr, "protected paths that exist inside the writable roots (.git/hooks, .claude, "
		     "shell start-up files...) stay writable while the run lasts where it can have "
		     "no mount namespace of its own (no CAP_SYS_ADMIN and no user namespaces), "
		     "and are put back after it");
#ifdef __linux__
	{
		char swhy[128];

		if (pdk_netsup_probe(swhy, sizeof(swhy)) < 0) {
			char msg[300];

			snprintf(msg, sizeof(msg),
				 "with the network off, no loopback either: a test suite's own local "
				 "server cannot be reached (no connect supervisor: %s; bwrap gives "
				 "a network namespace of the run's own)",
				 swhy);
			add_str(arr, msg);
			add_str(arr, "the domains mode: no connect supervisor to let the run reach "
				     "paddock's proxy, so such a run has the network off (bwrap has a "
				     "network of the run's own to hold it)");
		}
	}
#endif
	add_str(arr, "reads stay open everywhere, the user's other terminals (/dev/pts/N) "
		     "included: the command can read what is typed there");
	if (!cgroup)
		add_str(arr, "if paddock itself is SIGKILLed, a process the command started that "
			     "cleared its environment survives (without a cgroup, the guardian "
			     "finds the run's processes by the PADDOCK_RUN variable)");
#ifdef __linux__
	if (tried > 0) {
		char line[256] = "";
		const char *names[] = {"chmod", "utimes", "chown", "setxattr"};
		int v[] = {m.chmod_, m.utimes, m.chown_, m.xattr};
		for (size_t i = 0; i < PDK_ARRAY_SIZE(v); i++)
			if (v[i] == 0)
				snprintf(line + strlen(line), sizeof(line) - strlen(line), "%s%s",
					 line[0] ? ", " : "", names[i]);
		if (line[0]) {
			char msg[400];
			snprintf(msg, sizeof(msg),
				 "metadata changes outside the roots on files this "
				 "user owns: %s (tried here)",
				 line);
			add_str(arr, msg);
		}
	} else {
		add_str(arr, "metadata changes outside the roots (chmod, utimes, chown): could not "
			     "try here");
	}
	cJSON *llf = cJSON_GetObjectItem(facts, "landlock");
	double abi = cJSON_GetNumberValue(cJSON_GetObjectItem(llf, "abi"));
	if (abi < 4)
		add_str(arr, "TCP is denied by seccomp alone (Landlock ABI < 4)");
	if (abi < 6)
		add_str(arr, "signals to outside processes (paddock and the guardian among them) "
			     "and abstract unix sockets are not scoped (Landlock ABI < 6)");
#endif
}

static void print_text(cJSON *d)
{
	cJSON *o, *it;

	if ((o = cJSON_GetObjectItem(d, "grants"))) {
		cJSON_ArrayForEach(it, o)
		{
			cJSON *e;

			/* A path or the nodes; else why not, which names the option. */
			if (cJSON_IsString(it) && it->valuestring[0] != '/') {
				printf("%s\n", it->valuestring);
				continue;
			}
			printf("--%s would open:", it->string);
			if (cJSON_IsString(it))
				printf(" %s", it->valuestring);
			else
				cJSON_ArrayForEach(e, it)
					printf(" %s", e->valuestring);
			printf("\n");
		}
	}
	o = cJSON_GetObjectItem(d, "bwrap");
	if (cJSON_GetStringValue(cJSON_GetObjectItem(o, "path"))) {
		const char *v = cJSON_GetStringValue(cJSON_GetObjectItem(o, "version"));
		printf("bwrap binary: %s (%s)\n",
		       cJSON_GetStringValue(cJSON_GetObjectItem(o, "path")),
		       v ? v : "no version: `bwrap --version` failed");
	} else {
		printf("bwrap binary: not found (not in /usr/bin nor on PATH)\n");
	}
	if ((o = cJSON_GetObjectItem(d, "user_namespaces"))) {
		printf("user namespaces:");
		const char *sep = " ";
		cJSON_ArrayForEach(it, o)
		{
			if (cJSON_IsNumber(it))
				printf("%s%s %g", sep, it->string, it->valuedouble);
			else
				printf("%s%s absent", sep, it->string);
			sep = ", ";
		}
		printf("\n");
	}
	if ((o = cJSON_GetObjectItem(d, "landlock"))) {
		cJSON *abi = cJSON_GetObjectItem(o, "abi");
		if (cJSON_IsNumber(abi)) {
			printf("landlock ABI %d covers:", abi->valueint);
			const char *sep = " ";
			cJSON_ArrayForEach(it, cJSON_GetObjectItem(o, "covers"))
			{
				printf("%s%s", sep, it->valuestring);
				sep = "; ";
			}
			printf("\n");
		} else {
			printf("landlock: none (%s)\n",
			       cJSON_GetStringValue(cJSON_GetObjectItem(o, "error")));
		}
	}
	if ((o = cJSON_GetObjectItem(d, "seccomp"))) {
		const char *acts = cJSON_GetStringValue(cJSON_GetObjectItem(o, "actions"));
		printf("seccomp: %s%s%s%s\n",
		       cJSON_IsTrue(cJSON_GetObjectItem(o, "available")) ? "available"
									 : "not available",
		       acts ? " (actions: " : "", acts ? acts : "", acts ? ")" : "");
	}
	o = cJSON_GetObjectItem(d, "cgroup");
	{
		int v = cJSON_GetObjectItem(o, "version")
			    ? cJSON_GetObjectItem(o, "version")->valueint
			    : 0;
		const char *base = cJSON_GetStringValue(cJSON_GetObjectItem(o, "base"));
		const char *how = cJSON_GetStringValue(cJSON_GetObjectItem(o, "process_limit"));
		const char *why = cJSON_GetStringValue(cJSON_GetObjectItem(o, "why"));
		int max = cJSON_GetObjectItem(o, "max_processes")->valueint;

		printf("cgroup: %s%s%s%s\n", v ? (v == 2 ? "v2" : "v1") : "no pids controller",
		       base ? ", runs' cgroups under " : "", base ? base : "",
		       !strcmp(how, "cgroup") ? " (took one here)" : "");
		if (!strcmp(how, "cgroup"))
			printf("process limit: a pids cgroup of its own per confined run (%d "
			       "processes); a guardian kills the run if paddock is SIGKILLed\n",
			       max);
		else if (!strcmp(how, "rlimit"))
			printf("process limit: RLIMIT_NPROC only (%s); a guardian kills what carries "
			       "the run's PADDOCK_RUN variable if paddock is SIGKILLed\n",
			       why);
		else
			printf(
			    "process limit: none can be set here (%s; RLIMIT_NPROC does not bind "
			    "root); a guardian kills what carries the run's PADDOCK_RUN variable if "
			    "paddock is SIGKILLed\n",
			    why);
	}
	cJSON_ArrayForEach(o, cJSON_GetObjectItem(d, "backends"))
	{
		cJSON_ArrayForEach(it, cJSON_GetObjectItem(o, "network"))
		    printf("%s network %s: %s\n", cJSON_GetStringValue(cJSON_GetObjectItem(o, "name")),
			   it->string, it->valuestring);
	}
	cJSON_ArrayForEach(o, cJSON_GetObjectItem(d, "backends"))
	{
		cJSON_ArrayForEach(it, cJSON_GetObjectItem(o, "cannot_enforce"))
		    printf("%s cannot enforce here: %s\n",
			   cJSON_GetStringValue(cJSON_GetObjectItem(o, "name")), it->valuestring);
	}
}

int pdk_cli_doctor_main(int argc, char **argv)
{
	const struct pdk_backend *chosen = NULL, *first = NULL;
	const char *why;
	bool json = false;
	cJSON *d, *bs;
	struct pdk_config cfg;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json")) {
			json = true;
		} else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			fputs(usage, stdout);
			return 0;
		} else {
			pdk_cli_error("doctor: unknown option '%s'; usage: paddock doctor [--json]",
				      argv[i]);
			return PDK_EXIT_FAILURE;
		}
	}
	/* What a run would do depends on the configuration: its backend, and
	 * its bwrap binary. A configuration that cannot be read is said so. */
	if (pdk_cli_config_load("doctor", NULL, false, &cfg) < 0) {
		pdk_config_release(&cfg);
		return PDK_EXIT_FAILURE;
	}
	if (pdk_backend_set_helper("bwrap", cfg.bwrap) < 0) {
		pdk_cli_error("doctor: configuration: bwrap: %s is not an absolute path; name the "
			      "bubblewrap binary from /",
			      cfg.bwrap);
		pdk_config_release(&cfg);
		return PDK_EXIT_FAILURE;
	}
	d = host_facts();
	if (!d) {
		pdk_cli_error("doctor: out of memory");
		return PDK_EXIT_FAILURE;
	}
	cJSON_AddStringToObject(d, "compiled", pdk_backend_names());
	bs = cJSON_AddArrayToObject(d, "backends");
	if (!json)
		printf("compiled backends: %s\n", pdk_backend_names());
	for (size_t i = 0; pdk_backends[i]; i++) {
		const struct pdk_backend *b = pdk_backends[i];
		int r = pdk_backend_probe(b, &why);
		cJSON *o = cJSON_CreateObject();

		cJSON_AddItemToArray(bs, o);
		cJSON_AddStringToObject(o, "name", b->name);
		cJSON_AddBoolToObject(o, "works", r == 0);
		cJSON_AddStringToObject(o, "why", why ? why : "");
		cannot_enforce(b, d, cJSON_AddArrayToObject(o, "cannot_enforce"));
		network_modes(b, d, cJSON_AddObjectToObject(o, "network"));
		if (!json)
			printf("%s: %s%s%s\n", b->name,
			       r == 0 ? "works here" : "does not work here",
			       why && *why ? ": " : "", why ? why : "");
		if (r == 0 && !first)
			first = b;
		if (r == 0 && cfg.backend && !strcmp(cfg.backend, b->name))
			chosen = b;
	}
	/* A configured backend that does not work is no reason to use another. */
	if (!cfg.backend)
		chosen = first;
	if (chosen)
		cJSON_AddStringToObject(d, "would_use", chosen->name);
	else
		cJSON_AddNullToObject(d, "would_use");
	cJSON_AddBoolToObject(d, "sandbox_enabled", cfg.sandbox_enabled);
	if (json) {
		char *s = cJSON_PrintUnformatted(d);
		if (s)
			printf("%s\n", s);
		free(s);
	} else {
		if (chosen)
			printf("a run would use: %s%s\n", chosen->name,
			       cfg.backend ? " (the configuration names it)" : "");
		else if (cfg.backend)
			printf("a run would refuse: the configuration names backend %s, which %s\n",
			       cfg.backend,
			       pdk_backend_find(cfg.backend) ? "does not work here"
							     : "is not compiled in");
		else
			printf("a run would refuse: no backend works here\n");
		if (!cfg.sandbox_enabled)
			printf("but the configuration turns the sandbox off "
			       "(commandPolicy.sandbox.enabled): runs are unconfined\n");
		print_text(d);
	}
	cJSON_Delete(d);
	pdk_config_release(&cfg);
	return chosen ? 0 : 1;
}
