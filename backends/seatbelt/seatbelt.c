/* seatbelt.c - the Seatbelt backend (macOS): the policy as an SBPL profile,
 * run as /usr/bin/sandbox-exec -D NAME=PATH ... -p PROFILE -- ARGV. */
#include <errno.h>
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "net/proxy.h"
#include "seatbelt.h"
#include "confine/confine.h"
#include "core/fmt.h"
#include "core/path.h"
#include "core/util.h"

extern char **environ;

/*
 * The fixed part of the profile. Seatbelt applies the last rule that
 * matches, so the default is deny, the allows follow, and the denies that
 * must win (protected paths) come last. Only operations and filters that
 * shipped agent profiles use on current macOS appear here: an unknown name
 * makes sandbox-exec refuse the whole profile.
 *
 * (allow default) with a few denies would leave open what a command must
 * not reach: Mach services such as LaunchServices (`open` starts programs
 * outside the sandbox), signals and task ports of outside processes, and
 * sysctls that read other processes' arguments and environment.
 */
static const char profile_head[] =
	"(version 1)\n"
	"; paddock: read everything, run programs, write only under the\n"
	"; writable roots given as parameters; everything else is denied.\n"
	"(deny default)\n"
	"\n"
	"; processes: children inherit this profile; signals, process info and\n"
	"; task ports reach only processes of this same sandbox. Seatbelt has\n"
	"; no process count: the runner applies the process limit.\n"
	"(allow process-exec)\n"
	"(allow process-fork)\n"
	"(allow signal (target same-sandbox))\n"
	"(allow process-info* (target same-sandbox))\n"
	"(allow mach-priv-task-port (target same-sandbox))\n"
	"\n"
	"; reads: the whole file system\n"
	"(allow file-read*)\n"
	"\n"
	"; what ordinary tools need from the system: preferences, user and group\n"
	"; lookups (git commit, whoami, ssh), the per-user temp directory, CPU\n"
	"; counts (libuv), semaphores (Python multiprocessing). LaunchServices\n"
	"; (open starts programs outside), the keychain and the rest stay closed.\n"
	"(allow user-preference-read)\n"
	"(allow mach-host*)\n"
	"(allow ipc-posix-sem)\n"
	"(allow mach-lookup\n"
	"  (global-name \"com.apple.system.opendirectoryd.libinfo\")\n"
	"  (global-name \"com.apple.system.opendirectoryd.membership\")\n"
	"  (global-name \"com.apple.bsd.dirhelper\"))\n"
	"; preferences as Foundation reads them: cfprefsd and its shared memory\n"
	"(allow ipc-posix-shm-read* (ipc-posix-name-prefix \"apple.cfprefs.\"))\n"
	"(allow mach-lookup\n"
	"  (global-name \"com.apple.cfprefsd.daemon\")\n"
	"  (global-name \"com.apple.cfprefsd.agent\")\n"
	"  (local-name \"com.apple.cfprefsd.agent\"))\n"
	"; the OpenMP run-time (numpy, PyTorch) registers itself in shared memory\n"
	"(allow ipc-posix-shm-read-data ipc-posix-shm-write-create ipc-posix-shm-write-unlink\n"
	"  (ipc-posix-name-regex #\"^/__KMP_REGISTERED_LIB_[0-9]+$\"))\n";

static const char profile_sysctl[] =
	"\n"
	"; sysctls that describe the machine and the process itself; not\n"
	"; kern.procargs2 (other processes' arguments and environment) nor\n"
	"; kern.proc.all (the process table)\n"
	"(allow sysctl-read\n"
	"  (sysctl-name \"hw.activecpu\")\n"
	"  (sysctl-name \"hw.busfrequency_compat\")\n"
	"  (sysctl-name \"hw.byteorder\")\n"
	"  (sysctl-name \"hw.cacheconfig\")\n"
	"  (sysctl-name \"hw.cachelinesize_compat\")\n"
	"  (sysctl-name \"hw.cpufamily\")\n"
	"  (sysctl-name \"hw.cpufrequency\")\n"
	"  (sysctl-name \"hw.cpufrequency_compat\")\n"
	"  (sysctl-name \"hw.cputype\")\n"
	"  (sysctl-name \"hw.l1dcachesize_compat\")\n"
	"  (sysctl-name \"hw.l1icachesize_compat\")\n"
	"  (sysctl-name \"hw.l2cachesize_compat\")\n"
	"  (sysctl-name \"hw.l3cachesize_compat\")\n"
	"  (sysctl-name \"hw.logicalcpu\")\n"
	"  (sysctl-name \"hw.logicalcpu_max\")\n"
	"  (sysctl-name \"hw.machine\")\n"
	"  (sysctl-name \"hw.memsize\")\n"
	"  (sysctl-name \"hw.model\")\n"
	"  (sysctl-name \"hw.ncpu\")\n"
	"  (sysctl-name \"hw.nperflevels\")\n"
	"  (sysctl-name \"hw.packages\")\n"
	"  (sysctl-name \"hw.pagesize\")\n"
	"  (sysctl-name \"hw.pagesize_compat\")\n"
	"  (sysctl-name \"hw.physicalcpu\")\n"
	"  (sysctl-name \"hw.physicalcpu_max\")\n"
	"  (sysctl-name \"hw.tbfrequency_compat\")\n"
	"  (sysctl-name \"hw.vectorunit\")\n"
	"  (sysctl-name \"kern.argmax\")\n"
	"  (sysctl-name \"kern.hostname\")\n"
	"  (sysctl-name \"kern.maxfiles\")\n"
	"  (sysctl-name \"kern.maxfilesperproc\")\n"
	"  (sysctl-name \"kern.maxproc\")\n"
	"  (sysctl-name \"kern.ngroups\")\n"
	"  (sysctl-name \"kern.osproductversion\")\n"
	"  (sysctl-name \"kern.osrelease\")\n"
	"  (sysctl-name \"kern.ostype\")\n"
	"  (sysctl-name \"kern.osvariant_status\")\n"
	"  (sysctl-name \"kern.osversion\")\n"
	"  (sysctl-name \"kern.secure_kernel\")\n"
	"  (sysctl-name \"kern.usrstack64\")\n"
	"  (sysctl-name \"kern.version\")\n"
	"  (sysctl-name \"machdep.cpu.brand_string\")\n"
	"  (sysctl-name \"sysctl.proc_cputype\")\n"
	"  (sysctl-name \"vm.loadavg\")\n"
	"  (sysctl-name-prefix \"hw.optional.\")\n"
	"  (sysctl-name-prefix \"hw.perflevel\")\n"
	"  (sysctl-name-prefix \"kern.proc.pgrp.\")\n"
	"  (sysctl-name-prefix \"kern.proc.pid.\")\n"
	"  (sysctl-name-prefix \"machdep.cpu.\")\n"
	"  (sysctl-name-prefix \"net.routetable.\"))\n"
	"; reads that the kernel counts as writes: the JVM and V8 ask these\n"
	"(allow sysctl-write\n"
	"  (sysctl-name \"kern.grade_cputype\")\n"
	"  (sysctl-name \"kern.tcsm_enable\"))\n";

static const char profile_devices[] =
	"\n"
	"; device nodes: data and ioctl on these character devices only, never\n"
	"; create, unlink or chmod (which file-write* would allow)\n"
	"(allow file-write-data file-ioctl\n"
	"  (require-all (literal \"/dev/null\") (vnode-type CHARACTER-DEVICE)))\n"
	"(allow file-write-data file-ioctl\n"
	"  (require-all (literal \"/dev/zero\") (vnode-type CHARACTER-DEVICE)))\n"
	"(allow file-write-data file-ioctl\n"
	"  (require-all (literal \"/dev/dtracehelper\") (vnode-type CHARACTER-DEVICE)))\n"
	"(allow file-write-data file-ioctl\n"
	"  (require-all (literal \"/dev/tty\") (vnode-type CHARACTER-DEVICE)))\n"
	"(allow file-write-data\n"
	"  (literal \"/dev/stdout\")\n"
	"  (literal \"/dev/stderr\")\n"
	"  (regex #\"^/dev/fd/[0-9]+$\"))\n"
	"\n"
	"; pseudo-terminals the command opens itself (openpty); the sandbox\n"
	"; extension marks them, so terminals outside stay closed\n"
	"(allow pseudo-tty)\n"
	"(allow file-write-data file-ioctl (literal \"/dev/ptmx\"))\n"
	"(allow file-write-data file-ioctl\n"
	"  (require-all\n"
	"    (regex #\"^/dev/ttys[0-9]+$\")\n"
	"    (extension \"com.apple.sandbox.pty\")))\n";

/*
 * The network, in the three modes of the policy. Seatbelt filters a socket's
 * address, not who made the listener: loopback is the host's loopback, and
 * "localhost:*" reaches a service the host runs there as well as the run's
 * own (paddock(1) says so). No mode opens the host's unix sockets: only
 * socket() and socketpair() for them, the command's own by path (in the run's
 * TMPDIR and the named writable roots), and the host's named one by one
 * (allowUnixSockets, --ssh-agent, --docker).
 */
static const char profile_net_sockets[] =
	"; sockets: made freely; what they may reach follows\n"
	"(allow system-socket (socket-domain AF_UNIX))\n"
	"(allow system-socket (socket-domain AF_INET))\n"
	"(allow system-socket (socket-domain AF_INET6))\n";

static const char profile_net_loopback[] =
	"; loopback: a test suite's own server binds, listens and is reached\n"
	"(allow network-bind (local ip \"localhost:*\"))\n"
	"(allow network-inbound (local ip \"localhost:*\"))\n"
	"(allow network-outbound (remote ip \"localhost:*\"))\n";

static const char profile_net_off[] =
	"\n"
	"; network off: loopback only; no other address, no name resolution,\n"
	"; no host unix socket\n";

static const char profile_net_domains[] =
	"\n"
	"; network domains: loopback, and paddock's proxy, which runs outside\n"
	"; the sandbox on this loopback port and reaches the allowed domains\n"
	"; itself; no other address, no name resolution, no host unix socket\n";

static const char profile_net_proxy[] =
	"; the proxy: inside the loopback rule above, and named on its own as\n"
	"; the one port this mode must reach\n"
	"(allow network-outbound\n"
	"  (remote ip (string-append \"localhost:\" (param \"PROXY_PORT\"))))\n";

static const char profile_net_on[] =
	"\n"
	"; network on: every IP address, and the services name resolution and\n"
	"; TLS certificate checks use; still no host unix socket but the\n"
	"; resolver's\n"
	"(allow network-bind (local ip))\n"
	"(allow network-inbound (local ip))\n"
	"(allow network-outbound (remote ip))\n"
	"(allow network-outbound\n"
	"  (remote unix-socket (path-literal \"/private/var/run/mDNSResponder\")))\n"
	"(allow system-socket)\n"
	"(allow mach-lookup\n"
	"  (global-name \"com.apple.SystemConfiguration.DNSConfiguration\")\n"
	"  (global-name \"com.apple.SystemConfiguration.configd\")\n"
	"  (global-name \"com.apple.networkd\")\n"
	"  (global-name \"com.apple.trustd.agent\")\n"
	"  (global-name \"com.apple.ocspd\"))\n";

/* Writable on macOS whatever the roots: /private/tmp, which tools name
 * without asking TMPDIR (a root anyway when TMPDIR is not set), then, as
 * parameters, the per-user cache directory (clang's and swiftc's module
 * caches) and the run's own temporary directory. */
static const char profile_macos_writes[] =
	"; and on every Mac: /private/tmp, which tools name without asking\n"
	"; TMPDIR; the per-user cache directory (DARWIN_USER_CACHE_DIR: clang's\n"
	"; and swiftc's module caches); the run's own TMPDIR\n"
	"(allow file-write*\n"
	"  (subpath \"/private/tmp\")";

static const char profile_net_run_tmpdir[] =
	"\n"
	"; unix sockets in the run's own TMPDIR, which holds only what the\n"
	"; command made there: bound, accepted and connected in every network\n"
	"; mode (test runners, Python multiprocessing, language servers)\n"
	"(allow network-bind network-inbound\n"
	"  (local unix-socket (subpath (param \"RUN_TMPDIR\"))))\n"
	"(allow network-outbound\n"
	"  (remote unix-socket (subpath (param \"RUN_TMPDIR\"))))\n";

static const char profile_net_roots[] =
	"\n"
	"; unix sockets in the named writable roots (the project, --write,\n"
	"; writablePaths, a linked worktree's git directories; not TMPDIR nor the\n"
	"; cache): bound, accepted and connected by path in every network mode.\n"
	"; Seatbelt cannot tell a socket this run bound from one that was there:\n"
	"; a host socket inside one of these roots is reachable too\n";

/* The host's unix sockets a run may reach, by what opened them: the header
 * of each group of network-outbound rules. */
static const struct {
	const char *from;
	const char *text;
} profile_net_unix[] = {
	{ "allowUnixSockets",
	  "\n"
	  "; allowUnixSockets: these host unix sockets, each by its path as\n"
	  "; configured and as its real path (Seatbelt matches the path the kernel\n"
	  "; resolved), exactly; every other unix socket stays closed\n" },
	{ "--ssh-agent",
	  "\n"
	  "; --ssh-agent: the ssh-agent's socket (SSH_AUTH_SOCK, kept in the\n"
	  "; command's environment), by its path and its real path, exactly: the\n"
	  "; command can sign with the agent's keys; the key files stay closed\n" },
	{ "--docker",
	  "\n"
	  "; --docker: the container engine's socket (DOCKER_HOST's, else\n"
	  "; /var/run/docker.sock or Podman's), by its path and its real path,\n"
	  "; exactly: this gives the command the host's root\n" },
};

/*
 * --gpu: Metal, which finds the GPU in the IOKit registry, opens its user
 * clients and has shaders compiled by MTLCompilerService. Apple silicon's
 * AGX clients, the IOAccelerator family of Intel and AMD GPUs, IOSurface
 * (the buffers Metal shares); no other IOKit class, no window server.
 */
static const char profile_gpu[] =
	"\n"
	"; --gpu: Metal compute. Reading the IOKit registry (how Metal finds the\n"
	"; GPU); opening the GPU's user clients: AGXDeviceUserClient and\n"
	"; AGXSharedUserClient (Apple silicon), IOAccelerator connections and\n"
	"; IOAccelerationUserClient (Intel and AMD GPUs), IOSurfaceRootUserClient\n"
	"; (GPU buffers); the Metal shader compiler service. The registry's\n"
	"; properties include the machine's serial number. No other IOKit user\n"
	"; client, no window server, no display\n"
	"(allow iokit-get-properties)\n"
	"(allow iokit-open\n"
	"  (iokit-connection \"IOAccelerator\")\n"
	"  (iokit-user-client-class \"AGXDeviceUserClient\")\n"
	"  (iokit-user-client-class \"AGXSharedUserClient\")\n"
	"  (iokit-user-client-class \"IOAccelerationUserClient\")\n"
	"  (iokit-user-client-class \"IOSurfaceRootUserClient\"))\n"
	"(allow mach-lookup\n"
	"  (global-name \"com.apple.MTLCompilerService\"))\n";

/* A path as Seatbelt will compare it: absolute, trailing slashes dropped,
 * no empty, "." or ".." component (a protected path spelled with ".." would
 * never match and so protect nothing). */
static int canonical_copy(const char *path, char **ret)
{
	size_t len;
	const char *p;

	if (!path || path[0] != '/')
		return -EINVAL;
	len = strlen(path);
	while (len > 1 && path[len - 1] == '/')
		len--;
	for (p = path; p < path + len;) {
		const char *c = p + 1, *e = c;

		while (e < path + len && *e != '/')
			e++;
		if (len > 1 && (e == c || (e - c == 1 && c[0] == '.') ||
				(e - c == 2 && c[0] == '.' && c[1] == '.')))
			return -EINVAL;
		p = e;
	}
	*ret = strndup(path, len);
	return *ret ? 0 : -ENOMEM;
}

/* "NAME_i=VALUE", the argument of one -D */
static char *param(const char *name, size_t i, const char *value)
{
	int len = snprintf(NULL, 0, "%s_%zu=%s", name, i, value);
	char *s;

	if (len < 0)
		return NULL;
	s = malloc((size_t)len + 1);
	if (s)
		snprintf(s, (size_t)len + 1, "%s_%zu=%s", name, i, value);
	return s;
}

/* Every strict ancestor of each protected path, but "/": removing or
 * renaming one would carry the protected path away (mv .git .g, edit
 * .g/hooks, mv .g .git), and Seatbelt checks a rename as an unlink of the
 * source. Creating a missing ancestor stays allowed, so `git init` works. */
static int collect_parents(struct pdk_strv *protect, struct pdk_strv *parents)
{
	for (size_t i = 0; i < protect->n; i++) {
		char *dup = strdup(protect->v[i]);
		char *slash;
		int r;

		if (!dup)
			return -ENOMEM;
		while ((slash = strrchr(dup, '/')) && slash != dup) {
			*slash = '\0';
			if (pdk_strv_contains(parents->v, parents->n, dup))
				continue;
			r = pdk_strv_take(parents, strdup(dup));
			if (r < 0) {
				free(dup);
				return r;
			}
		}
		free(dup);
	}
	return 0;
}

/*
 * The paths of allowUnixSockets a connect() may name: each as given and as
 * its real path where that differs (/tmp/x is /private/tmp/x on macOS, and
 * Seatbelt sees the path the kernel resolved), once each. A path Seatbelt
 * could not match exactly (relative, or with an empty, "." or ".."
 * component) is left out, so that socket stays closed.
 */
static int take_socket(struct pdk_strv *sockets, struct pdk_strv *froms, char *path,
		       const char *from)
{
	int r;

	if (pdk_strv_contains(sockets->v, sockets->n, path)) {
		free(path);
		return 0;
	}
	if ((r = pdk_strv_take(sockets, path)) < 0)
		return r;
	return pdk_strv_take(froms, strdup(from));
}

/* What opened socket i: one of profile_net_unix's names, or allowUnixSockets. */
static const char *socket_from(const struct pdk_confine *policy, size_t i)
{
	const char *from = policy->unix_from ? policy->unix_from[i] : NULL;

	for (size_t k = 0; from && k < PDK_ARRAY_SIZE(profile_net_unix); k++)
		if (!strcmp(from, profile_net_unix[k].from))
			return profile_net_unix[k].from;
	return profile_net_unix[0].from;
}

static int collect_sockets(const struct pdk_confine *policy, struct pdk_strv *sockets,
			   struct pdk_strv *froms)
{
	for (size_t i = 0; i < policy->n_unix; i++) {
		const char *from = socket_from(policy, i);
		char *c = NULL, *real;
		int r = policy->unix_paths[i] ? canonical_copy(policy->unix_paths[i], &c) : -EINVAL;

		if (r == -ENOMEM)
			return r;
		if (r >= 0 && (r = take_socket(sockets, froms, c, from)) < 0)
			return r;
		real = policy->unix_paths[i] ? realpath(policy->unix_paths[i], NULL) : NULL;
		if (real && (r = take_socket(sockets, froms, real, from)) < 0)
			return r;
	}
	return 0;
}

/* One character of an SBPL string: a backslash or a quote is escaped. */
static void put_sbpl_char(FILE *f, unsigned char c)
{
	if (c == '\\' || c == '"')
		fputc('\\', f);
	fputc(c, f);
}

/* Whether path can be written as a regex in the profile's text: no control
 * character, which an SBPL string cannot be trusted to carry. */
static bool regex_safe(const char *path)
{
	for (const unsigned char *p = (const unsigned char *)path; *p; p++)
		if (*p < 0x20 || *p == 0x7f)
			return false;
	return true;
}

/*
 * (regex "^PATH(/|$)") matching path and everything below it in any letter
 * case: the file systems macOS formats by default ignore case, so a command
 * that writes .VSCODE/tasks.json or .Git/hooks/x writes the protected
 * .vscode or .git/hooks, or creates what an editor will later open as them.
 * ASCII letters become [aA]; regex metacharacters get a backslash.
 */
static void put_ci_regex(FILE *f, const char *path, bool below, const char *indent)
{
	fprintf(f, "\n%s(regex \"^", indent);
	for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
		unsigned char c = *p;

		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) {
			fprintf(f, "[%c%c]", c | 0x20, c & ~0x20);
			continue;
		}
		if (strchr(".[]()*+?{}|^$\\", c))
			put_sbpl_char(f, '\\');
		put_sbpl_char(f, c);
	}
	fputs(below ? "(/|$)\")" : "$\")", f);
}

/* The protected paths again, matched in any letter case. A rule without a
 * filter would match every write, so none is written when no path can be. */
static void emit_ci_rule(FILE *f, const struct pdk_strv *protect)
{
	size_t n = 0;

	for (size_t i = 0; i < protect->n; i++)
		n += regex_safe(protect->v[i]);
	if (n == 0)
		return;
	fputs("; the same in any letter case, for case-insensitive volumes\n"
	      "(deny file-write* file-link",
	      f);
	for (size_t i = 0; i < protect->n; i++)
		if (regex_safe(protect->v[i]))
			put_ci_regex(f, protect->v[i], true, "  ");
	fputs(")\n", f);
}

/* (RULE (literal (param "NAME_0")) [(subpath (param "NAME_0"))] ...) */
static void emit_rule(FILE *f, const char *rule, const char *name, size_t n, bool subpath)
{
	fprintf(f, "(%s", rule);
	for (size_t i = 0; i < n; i++) {
		fprintf(f, "\n  (literal (param \"%s_%zu\"))", name, i);
		if (subpath)
			fprintf(f, "\n  (subpath (param \"%s_%zu\"))", name, i);
	}
	fputs(")\n", f);
}

/*
 * The git directories whose hooks are protected: each path ending in
 * "/.git/hooks", cut to ".../.git". Git follows a .git that is a file
 * ("gitdir: PATH"), a symlink, or a directory with a commondir to another
 * git directory, whose hooks and configuration no rule covers.
 */
static int collect_gitdirs(const struct pdk_strv *protect, struct pdk_strv *gitdirs)
{
	static const char tail[] = "/.git/hooks";
	size_t tl = sizeof(tail) - 1;

	for (size_t i = 0; i < protect->n; i++) {
		const char *p = protect->v[i];
		size_t len = strlen(p);
		char *dir;
		int r;

		if (len <= tl || strcmp(p + len - tl, tail) != 0)
			continue;
		dir = strndup(p, len - tl + sizeof("/.git") - 1);
		if (!dir)
			return -ENOMEM;
		if (pdk_strv_contains(gitdirs->v, gitdirs->n, dir)) {
			free(dir);
			continue;
		}
		if ((r = pdk_strv_take(gitdirs, dir)) < 0)
			return r;
	}
	return 0;
}

/* The same path in any letter case, exactly (nothing below it). */
static void put_ci_exact(FILE *f, const char *path, const char *suffix, const char *indent)
{
	char *full = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&full, &len);

	if (!m)
		return;
	fputs(path, m);
	fputs(suffix, m);
	if (fclose(m) == 0 && regex_safe(full))
		put_ci_regex(f, full, false, indent);
	free(full);
}

/*
 * A missing .git may be made a directory (git init), never a file or a
 * symlink, nor a hard link's second name; no .git directory gets a
 * commondir. Each in any letter case too.
 */
static void emit_git_rules(FILE *f, const struct pdk_strv *gitdirs)
{
	if (gitdirs->n == 0)
		return;
	fputs("; a .git that git would follow elsewhere: a gitdir: file or a symlink\n"
	      "; in place of a missing one, or a commondir in one\n"
	      "(deny file-write-create file-link\n"
	      "  (require-all\n"
	      "    (require-any (vnode-type REGULAR-FILE) (vnode-type SYMLINK))\n"
	      "    (require-any",
	      f);
	for (size_t i = 0; i < gitdirs->n; i++) {
		fprintf(f, "\n      (literal (param \"GIT_DIR_%zu\"))", i);
		put_ci_exact(f, gitdirs->v[i], "", "      ");
	}
	fputs(")))\n(deny file-write* file-link", f);
	for (size_t i = 0; i < gitdirs->n; i++) {
		fprintf(f, "\n  (literal (string-append (param \"GIT_DIR_%zu\") \"/commondir\"))",
			i);
		put_ci_exact(f, gitdirs->v[i], "/commondir", "  ");
	}
	fputs(")\n", f);
}

/* One letter in any case, inside a bracket expression or as one of its own. */
static void put_ci_letter(FILE *f, unsigned char c, bool in_bracket)
{
	if (in_bracket)
		fprintf(f, "%c%c", c | 0x20, c & ~0x20);
	else
		fprintf(f, "[%c%c]", c | 0x20, c & ~0x20);
}

/*
 * A secret's fnmatch pattern (FNM_PATHNAME: a wildcard never matches '/') as
 * (regex "^RE(/|$)"): the path and everything below it, in any letter case, as
 * put_ci_regex writes a protected path.
 */
static void put_glob_regex(FILE *f, const char *glob, const char *indent)
{
	fprintf(f, "\n%s(regex \"^", indent);
	for (const unsigned char *p = (const unsigned char *)glob; *p; p++) {
		unsigned char c = *p;
		const unsigned char *end;

		if (c == '*' || c == '?') {
			fputs(c == '*' ? "[^/]*" : "[^/]", f);
			continue;
		}
		if (c == '[' && (end = (const unsigned char *)strchr((const char *)p + 2, ']'))) {
			fputc('[', f);
			p++;
			if (*p == '!' || *p == '^') {
				fputs("^/", f); /* nor '/', as fnmatch's FNM_PATHNAME */
				p++;
			}
			for (; p < end; p++) {
				if (((*p | 0x20) >= 'a' && (*p | 0x20) <= 'z'))
					put_ci_letter(f, *p, true);
				else if (*p != '\\')
					put_sbpl_char(f, *p);
			}
			fputc(']', f);
			continue;
		}
		if (c == '\\' && p[1])
			c = *++p;
		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) {
			put_ci_letter(f, c, false);
			continue;
		}
		if (strchr(".[]()*+?{}|^$\\", c))
			put_sbpl_char(f, '\\');
		put_sbpl_char(f, c);
	}
	fputs("(/|$)\")", f);
}

/* (RULE (regex ...) ...) for the safe ones of n patterns; nothing when none is. */
static void emit_glob_rule(FILE *f, const char *rule, const char *const *globs, size_t n)
{
	size_t safe = 0;

	for (size_t i = 0; i < n; i++)
		safe += regex_safe(globs[i]);
	if (safe == 0)
		return;
	fprintf(f, "(%s", rule);
	for (size_t i = 0; i < n; i++)
		if (regex_safe(globs[i]))
			put_glob_regex(f, globs[i], "  ");
	fputs(")\n", f);
}

/* Last, so that no allow above reads them: the secrets, then the work files among them. */
static void emit_secret_rules(FILE *f, const struct pdk_confine *policy)
{
	if (policy->n_deny_read == 0)
		return;
	fputs("\n; secrets: unread, whatever program opens them, in any letter case;\n"
	      "; the work files among them (known_hosts, .env.example, allowRead,\n"
	      "; --read) readable again\n",
	      f);
	emit_glob_rule(f, "deny file-read*", policy->deny_read, policy->n_deny_read);
	emit_glob_rule(f, "allow file-read*", policy->allow_read, policy->n_allow_read);
}

static void write_profile(FILE *f, const struct pdk_confine *policy, size_t n_socket_roots,
			  unsigned proxy_port,
			  const char *user_cache, const char *run_tmpdir, const struct pdk_strv *roots,
			  const struct pdk_strv *protect, const struct pdk_strv *parents,
			  const struct pdk_strv *gitdirs, const struct pdk_strv *sockets,
			  const struct pdk_strv *froms)
{
	fputs(profile_head, f);
	fputs(profile_sysctl, f);
	fputs(profile_devices, f);

	fputs("\n; writes: only under the writable roots\n", f);
	if (roots->n == 0) {
		fputs("; (no writable roots)\n", f);
	} else {
		fputs("(allow file-write*", f);
		for (size_t i = 0; i < roots->n; i++)
			fprintf(f, "\n  (subpath (param \"WRITABLE_ROOT_%zu\"))", i);
		fputs(")\n", f);
	}
	fputs(profile_macos_writes, f);
	if (user_cache)
		fputs("\n  (subpath (param \"DARWIN_USER_CACHE_DIR\"))", f);
	if (run_tmpdir)
		fputs("\n  (subpath (param \"RUN_TMPDIR\"))", f);
	fputs(")\n", f);

	if (policy->network) {
		fputs(profile_net_on, f);
	} else {
		fputs(proxy_port ? profile_net_domains : profile_net_off, f);
		fputs(profile_net_sockets, f);
		fputs(profile_net_loopback, f);
		if (proxy_port)
			fputs(profile_net_proxy, f);
	}

	if (run_tmpdir)
		fputs(profile_net_run_tmpdir, f);
	if (n_socket_roots > 0) {
		fputs(profile_net_roots, f);
		fputs("(allow network-bind network-inbound", f);
		for (size_t i = 0; i < n_socket_roots; i++)
			fprintf(f, "\n  (local unix-socket (subpath (param \"WRITABLE_ROOT_%zu\")))",
				i);
		fputs(")\n(allow network-outbound", f);
		for (size_t i = 0; i < n_socket_roots; i++)
			fprintf(f, "\n  (remote unix-socket (subpath (param \"WRITABLE_ROOT_%zu\")))",
				i);
		fputs(")\n", f);
	}
	/* each kind of host socket under its own words, in the order of profile_net_unix */
	for (size_t k = 0; k < PDK_ARRAY_SIZE(profile_net_unix); k++) {
		bool any = false;

		for (size_t i = 0; i < sockets->n; i++) {
			if (strcmp(froms->v[i], profile_net_unix[k].from) != 0)
				continue;
			if (!any)
				fprintf(f, "%s(allow network-outbound", profile_net_unix[k].text);
			any = true;
			fprintf(f, "\n  (remote unix-socket (path-literal (param \"UNIX_SOCKET_%zu\")))",
				i);
		}
		if (any)
			fputs(")\n", f);
	}
	if (policy->gpu)
		fputs(profile_gpu, f);

	if (protect->n > 0) {
		fputs("\n; protected paths stay read-only inside the writable roots;\n"
		      "; literal and subpath, so a missing one cannot be created either\n",
		      f);
		emit_rule(f, "deny file-write*", "PROTECTED", protect->n, true);
		fputs("; no second name for a protected file: a hard link made\n"
		      "; elsewhere would be written through unchecked\n",
		      f);
		emit_rule(f, "deny file-link", "PROTECTED", protect->n, true);
		emit_ci_rule(f, protect);
		emit_git_rules(f, gitdirs);
	}
	if (parents->n > 0) { /* an empty rule would deny every unlink */
		fputs("; their parents cannot be removed or renamed away\n", f);
		emit_rule(f, "deny file-write-unlink", "PROTECTED_PARENT", parents->n, false);
	}
	emit_secret_rules(f, policy);
}

int pdk_seatbelt_profile(const struct pdk_confine *policy, const struct pdk_seatbelt_run *run,
			 char **ret_profile, char ***ret_params)
{
	struct pdk_strv roots = { 0 }, protect = { 0 }, parents = { 0 }, params = { 0 };
	struct pdk_strv gitdirs = { 0 }, sockets = { 0 }, froms = { 0 };
	size_t n_socket_roots = policy && policy->n_socket_roots < policy->n_roots
					? policy->n_socket_roots : policy ? policy->n_roots : 0;
	bool domains = policy && !policy->network && policy->n_domains > 0;
	unsigned proxy_port = domains && run ? run->proxy_port : 0;
	const char *user_cache = run ? run->user_cache : NULL;
	const char *run_tmpdir = run ? run->run_tmpdir : NULL;
	char *cache_c = NULL, *tmp_c = NULL;
	char *text = NULL;
	size_t text_len = 0;
	FILE *f;
	int r = 0;

	if (!policy || !ret_profile || !ret_params || (policy->n_roots && !policy->roots) ||
	    (policy->n_protect && !policy->protect) || (policy->n_unix && !policy->unix_paths) ||
	    (policy->n_deny_read && !policy->deny_read) ||
	    (policy->n_allow_read && !policy->allow_read) ||
	    (domains && !proxy_port) ||
	    proxy_port > 65535)
		return -EINVAL;

	for (size_t i = 0; i < policy->n_roots && r >= 0; i++) {
		char *c;

		r = canonical_copy(policy->roots[i], &c);
		if (r >= 0)
			r = pdk_strv_take(&roots, c);
	}
	for (size_t i = 0; i < policy->n_protect && r >= 0; i++) {
		char *c, *real;

		r = canonical_copy(policy->protect[i], &c);
		if (r >= 0)
			r = pdk_strv_take(&protect, c);
		/* A protected path that is a symlink (.git/hooks -> tools/hooks)
		 * is protected where it leads too: Seatbelt matches the path a
		 * write reaches, and a write through the link reaches that. */
		real = r >= 0 ? realpath(policy->protect[i], NULL) : NULL;
		if (real && strcmp(real, protect.v[protect.n - 1]) != 0 &&
		    !pdk_strv_contains(protect.v, protect.n, real))
			r = pdk_strv_take(&protect, real);
		else
			free(real);
	}
	if (r >= 0)
		r = collect_sockets(policy, &sockets, &froms);
	if (r >= 0)
		r = collect_parents(&protect, &parents);
	if (r >= 0)
		r = collect_gitdirs(&protect, &gitdirs);

	for (size_t i = 0; i < roots.n && r >= 0; i++)
		r = pdk_strv_take(&params, param("WRITABLE_ROOT", i, roots.v[i]));
	for (size_t i = 0; i < protect.n && r >= 0; i++)
		r = pdk_strv_take(&params, param("PROTECTED", i, protect.v[i]));
	for (size_t i = 0; i < parents.n && r >= 0; i++)
		r = pdk_strv_take(&params, param("PROTECTED_PARENT", i, parents.v[i]));
	for (size_t i = 0; i < gitdirs.n && r >= 0; i++)
		r = pdk_strv_take(&params, param("GIT_DIR", i, gitdirs.v[i]));
	for (size_t i = 0; i < sockets.n && r >= 0; i++)
		r = pdk_strv_take(&params, param("UNIX_SOCKET", i, sockets.v[i]));
	if (r >= 0 && user_cache && (r = canonical_copy(user_cache, &cache_c)) >= 0)
		r = pdk_strv_take(&params, pdk_asprintf("DARWIN_USER_CACHE_DIR=%s", cache_c));
	if (r >= 0 && run_tmpdir && (r = canonical_copy(run_tmpdir, &tmp_c)) >= 0)
		r = pdk_strv_take(&params, pdk_asprintf("RUN_TMPDIR=%s", tmp_c));
	if (r >= 0 && proxy_port) {
		char p[32];

		snprintf(p, sizeof(p), "PROXY_PORT=%u", proxy_port);
		r = pdk_strv_take(&params, strdup(p));
	}
	if (r >= 0 && !params.v) {
		params.v = calloc(1, sizeof(*params.v)); /* no roots, nothing protected */
		if (!params.v)
			r = -ENOMEM;
	}
	if (r < 0)
		goto out;

	f = open_memstream(&text, &text_len);
	if (!f) {
		r = -ENOMEM;
		goto out;
	}
	write_profile(f, policy, n_socket_roots, proxy_port, user_cache, run_tmpdir, &roots,
		      &protect, &parents, &gitdirs, &sockets, &froms);
	if (ferror(f))
		r = -ENOMEM;
	if (fclose(f) != 0 && r >= 0)
		r = -ENOMEM;
	if (r < 0) {
		free(text);
		goto out;
	}

	*ret_profile = text;
	*ret_params = steal_pointer(&params.v);
out:
	pdk_strv_release(&roots);
	pdk_strv_release(&protect);
	pdk_strv_release(&parents);
	pdk_strv_release(&gitdirs);
	pdk_strv_release(&sockets);
	pdk_strv_release(&froms);
	pdk_strv_release(&params);
	free(cache_c);
	free(tmp_c);
	return r;
}

/* Backend ops. */

struct seatbelt_state {
	char *profile;
	char **params;
	char **env; /* the proxy's variables in the domains mode, else NULL */
	/* paddock runs inside another sandbox: the command runs plainly
	 * under that one, and the result says so */
	bool nested;
	char *run_tmpdir; /* the run's own TMPDIR, removed by release() */
	char *user_cache; /* DARWIN_USER_CACHE_DIR, real path, or NULL */
};

/* Why the last prepare() failed, when sandbox-exec said (prepare_why). */
static char prepare_error[512];

#ifdef __APPLE__
/* From <sandbox.h>, which Zig's bundled macOS headers lack: nonzero when
 * the process pid runs under a sandbox (NULL operation and type 0,
 * SANDBOX_FILTER_NONE: under any at all). */
int sandbox_check(pid_t pid, const char *operation, int type, ...);

static bool in_sandbox(void)
{
	return sandbox_check(getpid(), NULL, 0) != 0;
}
#else
static bool in_sandbox(void)
{
	return false;
}
#endif

static const char nested_note[] =
	"sandbox: paddock runs inside another sandbox, and Seatbelt cannot apply a second "
	"profile: the command ran under that one, without paddock's";

/*
 * Empties the directory dfd, depth levels of directories down at most,
 * never following a symbolic link: each directory is opened with
 * O_NOFOLLOW from the one above it. Passes repeat while one removes
 * something, since removing while reading may skip entries.
 */
static void empty_dir(int dfd, int depth)
{
	int fd = fcntl(dfd, F_DUPFD_CLOEXEC, 3);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	bool removed = true;

	if (!d) {
		if (fd >= 0)
			close(fd);
		return;
	}
	for (int pass = 0; removed && pass < 8; pass++) {
		struct dirent *e;

		removed = false;
		rewinddir(d);
		while ((e = readdir(d))) {
			int sub;

			if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
				continue;
			if (unlinkat(dirfd(d), e->d_name, 0) == 0) {
				removed = true;
				continue;
			}
			sub = openat(dirfd(d), e->d_name,
				     O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (sub < 0)
				continue;
			(void)fchmod(sub, 0700);
			if (depth > 0)
				empty_dir(sub, depth - 1);
			close(sub);
			if (unlinkat(dirfd(d), e->d_name, AT_REMOVEDIR) == 0)
				removed = true;
		}
	}
	closedir(d);
}

/* The run's TMPDIR and what the command left in it. */
static void remove_run_tmpdir(const char *path)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0)
		return;
	empty_dir(fd, 64);
	close(fd);
	(void)rmdir(path);
}

/*
 * The run's own temporary directory: made (0700) in paddock's TMPDIR, or
 * /private/tmp, by its real path, which is what Seatbelt matches and what
 * the command's TMPDIR becomes; short, since a unix socket's path must fit
 * in 104 bytes on macOS.
 */
static int make_run_tmpdir(char **ret)
{
	const char *tmp = getenv("TMPDIR");
	char *base = tmp && tmp[0] == '/' ? realpath(tmp, NULL) : NULL;
	char *dir;

	if (!base && !(base = realpath("/private/tmp", NULL)) && !(base = realpath("/tmp", NULL)))
		return -errno;
	dir = pdk_asprintf("%s/pdk-XXXXXX", strcmp(base, "/") ? base : "");
	free(base);
	if (!dir)
		return -ENOMEM;
	if (!mkdtemp(dir)) {
		int r = -errno;

		free(dir);
		return r;
	}
	*ret = dir;
	return 0;
}

#ifdef __APPLE__
/* confstr(_CS_DARWIN_USER_CACHE_DIR), by its real path; NULL when there is
 * none. */
static char *user_cache_dir(void)
{
	char buf[PATH_MAX];
	size_t n = confstr(_CS_DARWIN_USER_CACHE_DIR, buf, sizeof(buf));

	return n > 0 && n <= sizeof(buf) ? realpath(buf, NULL) : NULL;
}
#else
static char *user_cache_dir(void)
{
	return NULL;
}
#endif

static void seatbelt_release(void *state)
{
	struct seatbelt_state *s = state;

	if (!s)
		return;
	if (s->run_tmpdir)
		remove_run_tmpdir(s->run_tmpdir);
	free(s->run_tmpdir);
	free(s->user_cache);
	free(s->profile);
	pdk_strv_freep(&s->params);
	pdk_strv_freep(&s->env);
	free(s);
}

/*
 * The domains mode: paddock's proxy serves outside the sandbox, on a loopback
 * port the profile lets the command reach. The listener is made here, in
 * paddock, and handed to the proxy over the policy's control socket, as the
 * sandbox side does under bwrap; its port goes to the profile as PROXY_PORT
 * and to the command's proxy variables.
 */
static int proxy_listen(int ctl, unsigned *ret_port)
{
	int fd, r;

	if (ctl < 0)
		return -EBADF;
	if ((fd = pdk_proxy_listen_host(ret_port)) < 0)
		return fd;
	r = pdk_proxy_hand(ctl, fd);
	close(fd);
	return r;
}

/* The variables curl, git, npm, pip, cargo and go read, pointing at port. */
static int proxy_env(unsigned port, char ***ret)
{
	char vars[PDK_PROXY_ENV_N][PDK_PROXY_ENV_LEN];
	struct pdk_strv env = { 0 };
	int n = pdk_proxy_env(port, vars), r = 0;

	for (int i = 0; r >= 0 && i < n; i++)
		r = pdk_strv_take(&env, strdup(vars[i]));
	if (r < 0) {
		pdk_strv_release(&env);
		return r;
	}
	*ret = env.v;
	return 0;
}

/*
 * Runs exe with argv, standard input and output on /dev/null, and waits:
 * its wait status in *ret_status, the first line of its standard error in
 * err (the rest is read and dropped, so that it never blocks on a full
 * pipe). 0, or -errno when it could not be started.
 */
static int spawn_quiet(const char *exe, char *const argv[], char *err, size_t err_len,
		       int *ret_status)
{
	posix_spawn_file_actions_t fa;
	size_t got = 0;
	int p[2], r;
	pid_t pid;

	err[0] = '\0';
	*ret_status = -1; /* no exit: a wait that never came reads as a failure */
	if ((r = pdk_pipe_cloexec(p)) < 0)
		return r;
	r = posix_spawn_file_actions_init(&fa);
	if (r != 0) {
		close(p[0]);
		close(p[1]);
		return -r;
	}
	r = posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	if (r == 0)
		r = posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	if (r == 0)
		r = posix_spawn_file_actions_adddup2(&fa, p[1], 2);
	if (r == 0)
		r = posix_spawn(&pid, exe, &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(p[1]);
	if (r != 0) {
		close(p[0]);
		return -r;
	}
	for (;;) {
		char buf[512];
		ssize_t n = read(p[0], buf, sizeof(buf));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		for (ssize_t k = 0; k < n && got + 1 < err_len; k++)
			err[got++] = buf[k];
	}
	close(p[0]);
	err[got] = '\0';
	err[strcspn(err, "\n")] = '\0';
	while (waitpid(pid, ret_status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	return 0;
}

/* exe -D NAME=VALUE ... -p PROFILE -- ARGV, or ARGV alone inside another
 * sandbox. */
static int build_argv(const struct seatbelt_state *s, const char *exe, char *const *argv,
		      char ***ret_argv)
{
	struct pdk_strv out = { 0 };
	int r = 0;

	if (!s->nested) {
		r = pdk_strv_take(&out, strdup(exe));
		for (char **p = s->params; r >= 0 && *p; p++) {
			r = pdk_strv_take(&out, strdup("-D"));
			if (r >= 0)
				r = pdk_strv_take(&out, strdup(*p));
		}
		if (r >= 0)
			r = pdk_strv_take(&out, strdup("-p"));
		if (r >= 0)
			r = pdk_strv_take(&out, strdup(s->profile));
		if (r >= 0)
			r = pdk_strv_take(&out, strdup("--"));
	}
	for (char *const *p = argv; r >= 0 && *p; p++)
		r = pdk_strv_take(&out, strdup(*p));
	if (r < 0) {
		pdk_strv_release(&out);
		return r;
	}
	*ret_argv = out.v;
	return 0;
}

/*
 * The run's profile, applied by exe to /usr/bin/true before the command
 * runs: one that this macOS rejects (an operation or a filter it does not
 * know) is paddock's error, said in prepare_error, and never taken for the
 * command's exit status.
 */
static int validate(const struct seatbelt_state *s, const char *exe)
{
	char *const probe[] = { "/usr/bin/true", NULL };
	char **argv = NULL, err[200];
	int r, status;

	if ((r = build_argv(s, exe, probe, &argv)) < 0)
		return r;
	r = spawn_quiet(exe, argv, err, sizeof(err), &status);
	pdk_strv_freep(&argv);
	if (r < 0) {
		snprintf(prepare_error, sizeof(prepare_error), "%s: cannot start: %s", exe,
			 strerror(-r));
		return r;
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
	snprintf(prepare_error, sizeof(prepare_error),
		 "%s refused the profile made for this run (%s), so nothing ran; this macOS "
		 "rejects a rule of it: 'paddock doctor' says whether any profile applies here",
		 exe, err[0] ? err : "it gave no reason");
	return -EPERM;
}

int pdk_seatbelt_prepare_exe(const struct pdk_confine *policy, const char *exe, bool nested,
			     void **ret_state)
{
	struct pdk_seatbelt_run run = { 0 };
	struct seatbelt_state *s;
	int r = 0;

	prepare_error[0] = '\0';
	if (!policy || !exe)
		return -EINVAL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->nested = nested;
	if (!policy->network && policy->n_domains > 0) {
		r = proxy_listen(policy->proxy_fd, &run.proxy_port);
		if (r >= 0)
			r = proxy_env(run.proxy_port, &s->env);
	}
	if (r >= 0 && !nested) {
		struct pdk_strv env = { .v = s->env };

		while (env.v && env.v[env.n])
			env.n++;
		s->user_cache = user_cache_dir();
		run.user_cache = s->user_cache;
		r = make_run_tmpdir(&s->run_tmpdir);
		if (r >= 0)
			r = pdk_strv_take(&env, pdk_asprintf("TMPDIR=%s", s->run_tmpdir));
		s->env = env.v;
		run.run_tmpdir = s->run_tmpdir;
	}
	if (r >= 0)
		r = pdk_seatbelt_profile(policy, &run, &s->profile, &s->params);
	if (r >= 0 && !nested)
		r = validate(s, exe);
	if (r < 0) {
		seatbelt_release(s);
		return r;
	}
	*ret_state = s;
	return 0;
}

static int seatbelt_prepare(const struct pdk_confine *policy, void **ret_state)
{
	return pdk_seatbelt_prepare_exe(policy, PDK_SEATBELT_EXEC, in_sandbox(), ret_state);
}

static const char *seatbelt_prepare_why(void)
{
	return prepare_error[0] ? prepare_error : NULL;
}

static const char *seatbelt_note(void *state, bool *ret_nested)
{
	struct seatbelt_state *s = state;

	if (!s || !s->nested)
		return NULL;
	*ret_nested = true;
	return nested_note;
}

static char *const *seatbelt_env(void *state)
{
	struct seatbelt_state *s = state;

	return s ? s->env : NULL;
}

static int seatbelt_wrap_argv(void *state, char *const *argv, char ***ret_argv)
{
	struct seatbelt_state *s = state;

	if (!s || !argv || !argv[0])
		return -EINVAL;
	return build_argv(s, PDK_SEATBELT_EXEC, argv, ret_argv);
}

static int seatbelt_describe(void *state, char *const *argv, FILE *out)
{
	struct seatbelt_state *s = state;

	if (!s || !out)
		return -EINVAL;
	if (s->nested) {
		fputs("# seatbelt: paddock runs inside another sandbox, which confines the\n"
		      "# command; no profile of paddock's is applied (POSIX shell quoting)\n",
		      out);
		for (char *const *p = argv; p && *p; p++) {
			if (p != argv)
				fputc(' ', out);
			pdk_fput_shell_word(out, *p);
		}
		fputc('\n', out);
		return ferror(out) ? -EIO : 0;
	}
	fputs("# seatbelt: the command line paddock runs (POSIX shell quoting)\n", out);
	fputs(PDK_SEATBELT_EXEC, out);
	for (char **p = s->params; *p; p++) {
		fputs(" \\\n  -D ", out);
		pdk_fput_shell_word(out, *p);
	}
	fputs(" \\\n  -p ", out);
	pdk_fput_shell_word(out, s->profile);
	fputs(" \\\n  --", out);
	for (char *const *p = argv; p && *p; p++) {
		fputc(' ', out);
		pdk_fput_shell_word(out, *p);
	}
	fputc('\n', out);
	return ferror(out) ? -EIO : 0;
}

int pdk_seatbelt_available_exe(const char *exe, bool nested, char *why, size_t why_len)
{
	if (nested) {
		snprintf(why, why_len,
			 "paddock runs inside another sandbox (sandbox_check): commands run "
			 "plainly under that one, since Seatbelt cannot apply a second profile");
		return 0;
	}
	if (access(exe, X_OK) != 0) {
		int r = -errno;

		snprintf(why, why_len, "%s: %s (sandbox-exec ships with macOS only)", exe,
			 strerror(-r));
		return r;
	}
	snprintf(why, why_len, "%s is there", exe);
	return 0;
}

/* What the probe applies: the profile of a small policy with one of each
 * kind of rule (a root taking the command's own sockets, a protected path
 * and its case-insensitive and git rules, a host unix socket), so that
 * doctor finds out what a run would. --gpu's IOKit rules are not in it: a
 * macOS that refused them would refuse every run. */
static int probe_profile(struct seatbelt_state *s)
{
	static const char *const roots[] = { "/private/tmp" };
	static const char *const protect[] = { "/private/tmp/.git/hooks" };
	static const char *const sockets[] = { "/private/tmp/.paddock-probe.sock" };
	struct pdk_confine policy = { .roots = roots, .n_roots = 1, .n_socket_roots = 1,
				      .protect = protect, .n_protect = 1, .unix_paths = sockets,
				      .n_unix = 1, .proxy_fd = -1 };

	struct pdk_seatbelt_run run = { .user_cache = "/private/tmp", .run_tmpdir = "/private/tmp" };

	return pdk_seatbelt_profile(&policy, &run, &s->profile, &s->params);
}

int pdk_seatbelt_probe_exe(const char *exe, bool nested, char *why, size_t why_len)
{
	struct seatbelt_state s = { 0 };
	char *const probe[] = { "/usr/bin/true", NULL };
	char **argv = NULL, err[160];
	int r, status;

	if ((r = pdk_seatbelt_available_exe(exe, nested, why, why_len)) < 0 || nested)
		return r;
	r = probe_profile(&s);
	if (r >= 0)
		r = build_argv(&s, exe, probe, &argv);
	free(s.profile);
	pdk_strv_freep(&s.params);
	if (r < 0) {
		snprintf(why, why_len, "cannot make a profile: %s", strerror(-r));
		return r;
	}
	r = spawn_quiet(exe, argv, err, sizeof(err), &status);
	pdk_strv_freep(&argv);
	if (r < 0) {
		snprintf(why, why_len, "%s: cannot start: %s", exe, strerror(-r));
		return r;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		snprintf(why, why_len, "%s refused paddock's profile on /usr/bin/true (%s)", exe,
			 err[0] ? err : "it gave no reason");
		return -EPERM;
	}
	snprintf(why, why_len, "%s applies paddock's profile", exe);
	return 0;
}

static int seatbelt_available(char *why, size_t why_len)
{
	return pdk_seatbelt_available_exe(PDK_SEATBELT_EXEC, in_sandbox(), why, why_len);
}

static int seatbelt_probe(char *why, size_t why_len)
{
	return pdk_seatbelt_probe_exe(PDK_SEATBELT_EXEC, in_sandbox(), why, why_len);
}

const struct pdk_backend pdk_backend_seatbelt = {
	.name = "seatbelt",
	.enforces_protect = true,
	.probe = seatbelt_probe,
	.available = seatbelt_available,
	.prepare = seatbelt_prepare,
	.prepare_why = seatbelt_prepare_why,
	.wrap_argv = seatbelt_wrap_argv,
	.enter = NULL,
	.release = seatbelt_release,
	.describe = seatbelt_describe,
	.env = seatbelt_env,
	.note = seatbelt_note,
	.proxy_on_loopback = true,
};
