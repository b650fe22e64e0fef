/* landlock.c - the self-restricting Linux backend: the child drops every
 * capability, sets no_new_privs, enters a Landlock domain and loads seccomp. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/landlock.h>
#include <linux/securebits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "confine/confine.h"
#include "backends/seccomp/seccomp.h"
#include "core/path.h"
#include "core/strv.h"
#include "core/util.h"
#include "net/proxy.h"
#include "net/supervise.h"

/* Older uapi headers (Debian 12 ships 6.1) lack the later ABIs. */
#ifndef __NR_landlock_create_ruleset
#define __NR_landlock_create_ruleset 444
#define __NR_landlock_add_rule 445
#define __NR_landlock_restrict_self 446
#endif
#ifndef __NR_open_tree
#define __NR_open_tree 428
#define __NR_move_mount 429
#endif
#ifndef __NR_mount_setattr
#define __NR_mount_setattr 442
#endif
#ifndef LANDLOCK_ACCESS_FS_REFER
#define LANDLOCK_ACCESS_FS_REFER (1ULL << 13)
#endif
#ifndef LANDLOCK_ACCESS_FS_TRUNCATE
#define LANDLOCK_ACCESS_FS_TRUNCATE (1ULL << 14)
#endif
#ifndef LANDLOCK_ACCESS_FS_IOCTL_DEV
#define LANDLOCK_ACCESS_FS_IOCTL_DEV (1ULL << 15)
#endif
#ifndef LANDLOCK_ACCESS_NET_BIND_TCP
#define LANDLOCK_ACCESS_NET_BIND_TCP (1ULL << 0)
#define LANDLOCK_ACCESS_NET_CONNECT_TCP (1ULL << 1)
#endif
#ifndef LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET
#define LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0)
#define LANDLOCK_SCOPE_SIGNAL (1ULL << 1)
#endif
#ifndef PR_CAP_AMBIENT
#define PR_CAP_AMBIENT 47
#define PR_CAP_AMBIENT_CLEAR_ALL 4
#endif
#ifndef SECBIT_NO_CAP_AMBIENT_RAISE
#define SECBIT_NO_CAP_AMBIENT_RAISE (1 << 6)
#define SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED (1 << 7)
#endif

/* The ruleset attribute as of ABI 6; older kernels get a shorter prefix. */
struct ll_ruleset_attr {
	uint64_t handled_access_fs;
	uint64_t handled_access_net;
	uint64_t scoped;
};

#define FS_WRITE_V1                                                                        \
	(LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_REMOVE_DIR |                   \
	 LANDLOCK_ACCESS_FS_REMOVE_FILE | LANDLOCK_ACCESS_FS_MAKE_CHAR |                   \
	 LANDLOCK_ACCESS_FS_MAKE_DIR | LANDLOCK_ACCESS_FS_MAKE_REG |                       \
	 LANDLOCK_ACCESS_FS_MAKE_SOCK | LANDLOCK_ACCESS_FS_MAKE_FIFO |                     \
	 LANDLOCK_ACCESS_FS_MAKE_BLOCK | LANDLOCK_ACCESS_FS_MAKE_SYM)
/* The rights that mean something on a file that is not a directory. */
#define FS_FILE_RIGHTS                                                                     \
	(LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_READ_FILE |                    \
	 LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_TRUNCATE | LANDLOCK_ACCESS_FS_IOCTL_DEV)

/* Read rights: handled only when a secret lies outside the roots. */
#define FS_READ (LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR)

/* Hard cap on rules: roots, devices, the entries around secrets, and room to spare. */
#define MAX_RULES 4096

struct ll_rule {
	char *path;
	uint64_t access;
	bool beneath; /* directory: the rights hold for everything below */
};

struct ll_state {
	int abi;
	int ruleset_fd;
	struct ll_ruleset_attr attr;
	struct ll_rule *rules;
	size_t n_rules;
	bool protect_unenforced; /* protected paths asked for: describe says why not */
	struct pdk_bpf bpf;
	bool network;
	unsigned long max_procs;
	/* Network off: paddock's connect supervisor gives loopback among the
	 * run's own processes; NULL where this kernel cannot carry it. */
	bool supervised;
	char unsupervised_why[128];
	struct pdk_netsup *sup;
	/* The domains mode: paddock's proxy on the host's 127.0.0.1:proxy_port,
	 * the one address outside the run the supervisor lets it reach, and
	 * the command's proxy variables (NULL without it). */
	unsigned proxy_port;
	char **env;
	/* allowUnixSockets and the writable roots (borrowed from the policy):
	 * with the network on, the supervisor takes the calls that name a unix
	 * address alone, through connect_bpf, stacked on the main program. */
	const char *const *roots;
	size_t n_roots;
	/* The protected paths (borrowed): the supervisor refuses to make a missing one. */
	const char *const *protect;
	size_t n_protect;
	const char *const *unix_paths;
	const int *unix_fds;
	size_t n_unix;
	struct pdk_bpf connect_bpf;
	/* A private /dev/shm: the maps a user namespace needs, written in the child. */
	char uid_map[32], gid_map[32];
	/* The protected paths that exist (not symlinks) at prepare: held read-only in that
	 * mount namespace, where one can be made (hold_protected); with them the directories
	 * between a root and each (ro[i] false), pinned by a bind of their own. Parents first. */
	char **holds;
	bool *ro;
	size_t n_holds;
	/* The _HOLD programs, for a child that finds it can have no mount namespace: the
	 * supervisor holds them instead, sent the calls that write or remove a name. */
	struct pdk_bpf bpf_hold, connect_bpf_hold;
	/* Secrets inside a root (borrowed from the policy): the blank, or the blank directory
	 * (is_dir), bound over each in the run's mount namespace, read-only with blank_flags. */
	const char **inside;
	bool *is_dir;
	size_t n_inside;
	const char *blank, *blank_dir;
	unsigned long blank_flags;
	size_t n_outside; /* secrets outside the roots: read rights handled */
	bool cover_all;   /* every secret is covered in the child: no mount namespace, no run */
};

static int ll_abi(void)
{
	long abi = syscall(__NR_landlock_create_ruleset, NULL, 0,
			   LANDLOCK_CREATE_RULESET_VERSION);

	return abi < 0 ? -errno : (int)abi;
}

static int landlock_probe(char *why, size_t why_len)
{
	int abi = ll_abi();

	if (abi == -ENOSYS) {
		snprintf(why, why_len, "this kernel is built without Landlock "
				       "(CONFIG_SECURITY_LANDLOCK)");
		return -EOPNOTSUPP;
	}
	if (abi == -EOPNOTSUPP) {
		snprintf(why, why_len, "Landlock is disabled: add landlock to the lsm= "
				       "kernel boot parameter");
		return -EOPNOTSUPP;
	}
	if (abi < 1) {
		snprintf(why, why_len, "Landlock ABI query failed: %s", strerror(-abi));
		return -EOPNOTSUPP;
	}
	if (prctl(PR_GET_SECCOMP, 0, 0, 0, 0) < 0) {
		snprintf(why, why_len, "this kernel is built without seccomp filters");
		return -EOPNOTSUPP;
	}
	snprintf(why, why_len, "Landlock ABI %d", abi);
	return 0;
}

static uint64_t fs_rights(int abi)
{
	uint64_t r = FS_WRITE_V1;

	/* As the kernel's samples/landlock/sandboxer.c degrades. */
	if (abi >= 2)
		r |= LANDLOCK_ACCESS_FS_REFER;
	if (abi >= 3)
		r |= LANDLOCK_ACCESS_FS_TRUNCATE;
	if (abi >= 5)
		r |= LANDLOCK_ACCESS_FS_IOCTL_DEV;
	return r;
}

static size_t attr_size(int abi)
{
	if (abi >= 6)
		return sizeof(struct ll_ruleset_attr);
	if (abi >= 4)
		return offsetof(struct ll_ruleset_attr, scoped);
	return offsetof(struct ll_ruleset_attr, handled_access_net);
}

/* Grant access on path (beneath it when a directory); a missing path is skipped
 * unless must_exist; with nofollow, a symlink is skipped (its target has rules of its own). */
static int add_rule_flags(struct ll_state *st, const char *path, uint64_t access, bool must_exist,
			  bool nofollow)
{
	_cleanup_close_ int fd = -1;
	struct landlock_path_beneath_attr pb = { 0 };
	struct ll_rule *rules;
	struct stat sb;

	fd = open(path, O_PATH | O_CLOEXEC | (nofollow ? O_NOFOLLOW : 0));
	if (fd < 0)
		return must_exist ? -errno : 0;
	if (fstat(fd, &sb) < 0)
		return -errno;
	if (S_ISLNK(sb.st_mode))
		return 0;
	if (!S_ISDIR(sb.st_mode))
		access &= FS_FILE_RIGHTS;
	access &= st->attr.handled_access_fs;
	if (!access)
		return 0;
	if (st->n_rules >= MAX_RULES)
		return -E2BIG;
	pb.allowed_access = access;
	pb.parent_fd = fd;
	if (syscall(__NR_landlock_add_rule, st->ruleset_fd, LANDLOCK_RULE_PATH_BENEATH, &pb, 0) < 0)
		return -errno;

	rules = realloc(st->rules, (st->n_rules + 1) * sizeof(*rules));
	if (!rules)
		return -ENOMEM;
	st->rules = rules;
	rules[st->n_rules].path = strdup(path);
	if (!rules[st->n_rules].path)
		return -ENOMEM;
	rules[st->n_rules].access = access;
	rules[st->n_rules].beneath = S_ISDIR(sb.st_mode);
	st->n_rules++;
	return 0;
}

static int add_rule(struct ll_state *st, const char *path, uint64_t access, bool must_exist)
{
	return add_rule_flags(st, path, access, must_exist, false);
}

/* Some of the n paths lies strictly below dir. */
static bool holds_one(const char *const *v, size_t n, const char *dir)
{
	for (size_t i = 0; i < n; i++)
		if (pdk_path_under(v[i], dir) && strcmp(v[i], dir))
			return true;
	return false;
}

/*
 * Landlock cannot take a right back below a directory that has it: around the n secrets
 * outside the roots, reading is granted on every entry of each directory above one, but the
 * entry on the way to it, so the rules grow with the list and not with the tree. Directories
 * can be listed everywhere (a rule on /); entries made there after this are unreadable.
 */
static int grant_around(struct ll_state *st, const char *const *hide, size_t n, const char *dir,
			int depth)
{
	DIR *d;
	struct dirent *e;
	int r = 0;

	if (depth > 64 || !(d = opendir(dir)))
		return 0;
	while (r == 0 && (e = readdir(d))) {
		_cleanup_free_ char *child = NULL;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (!(child = pdk_path_join(dir, e->d_name)))
			r = -ENOMEM;
		else if (pdk_strv_contains((char *const *)hide, n, child))
			continue;
		else if (holds_one(hide, n, child))
			r = grant_around(st, hide, n, child, depth + 1);
		else
			r = add_rule_flags(st, child, LANDLOCK_ACCESS_FS_READ_FILE, false, true);
	}
	closedir(d);
	return r;
}

/*
 * Can the child have a mount namespace of its own: with CAP_SYS_ADMIN, or (found out once per
 * process, in a child of its own) in a user namespace. Then a blank bound over each secret holds
 * it for a few mounts, where the read rights around them cost a rule per entry beside.
 */
static bool mount_ns_possible(void)
{
	static int known = -1;
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[2] = { { 0 } };
	int status;
	pid_t pid;

	if (syscall(SYS_capget, &hdr, data) == 0 && (data[0].effective & (1U << CAP_SYS_ADMIN)))
		return true;
	if (known >= 0)
		return known;
	pid = fork();
	if (pid == 0)
		_exit(unshare(CLONE_NEWUSER | CLONE_NEWNS) < 0);
	known = pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
		WEXITSTATUS(status) == 0;
	return known;
}

/* The secrets: covered in the child by the blank where it can have a mount namespace; else
 * those outside the roots are denied by read rights granted around them, and those inside a
 * root, where the command makes files it must read, are covered where the child manages to. */
static int split_secrets(struct ll_state *st, const struct pdk_confine *policy)
{
	st->inside = calloc(policy->n_hide + 1, sizeof(*st->inside));
	st->is_dir = calloc(policy->n_hide + 1, sizeof(*st->is_dir));
	if (!st->inside || !st->is_dir)
		return -ENOMEM;
	st->cover_all = policy->n_hide && mount_ns_possible();
	for (size_t i = 0; i < policy->n_hide; i++) {
		const char *p = policy->hide[i];
		bool in = st->cover_all;
		struct stat sb;

		for (size_t k = 0; k < policy->n_roots && !in; k++)
			in = pdk_path_under(p, policy->roots[k]);
		if (!in) {
			st->n_outside++;
		} else if (stat(p, &sb) == 0) {
			st->is_dir[st->n_inside] = S_ISDIR(sb.st_mode);
			st->inside[st->n_inside++] = p;
		}
	}
	st->blank = policy->blank;
	st->blank_dir = policy->blank_dir;
	if (st->n_inside) {
		struct statvfs vfs;

		/* A bind keeps the flags a user namespace may not drop. */
		if (statvfs(policy->blank, &vfs) < 0)
			return -errno;
		st->blank_flags = (vfs.f_flag & ST_NOSUID ? MS_NOSUID : 0) |
				  (vfs.f_flag & ST_NODEV ? MS_NODEV : 0) |
				  (vfs.f_flag & ST_NOEXEC ? MS_NOEXEC : 0) |
				  (vfs.f_flag & ST_NOATIME ? MS_NOATIME : 0) |
				  (vfs.f_flag & ST_NODIRATIME ? MS_NODIRATIME : 0) |
				  (vfs.f_flag & ST_RELATIME ? MS_RELATIME : 0);
	}
	return 0;
}

static int grant_reads(struct ll_state *st, const struct pdk_confine *policy)
{
	_cleanup_free_ const char **out = calloc(st->n_outside + 1, sizeof(*out));
	size_t n = 0;
	int r;

	if (!out)
		return -ENOMEM;
	for (size_t i = 0; i < policy->n_hide && !st->cover_all; i++) {
		bool in = false;

		for (size_t k = 0; k < policy->n_roots && !in; k++)
			in = pdk_path_under(policy->hide[i], policy->roots[k]);
		if (!in)
			out[n++] = policy->hide[i];
	}
	if ((r = add_rule(st, "/", LANDLOCK_ACCESS_FS_READ_DIR, true)) < 0)
		return r;
	return grant_around(st, out, n, "/", 0);
}

static void landlock_release(void *p)
{
	struct ll_state *st = p;

	if (!st)
		return;
	if (st->ruleset_fd >= 0)
		close(st->ruleset_fd);
	for (size_t i = 0; i < st->n_rules; i++)
		free(st->rules[i].path);
	free(st->rules);
	free(st->inside);
	free(st->is_dir);
	pdk_bpf_release(&st->bpf);
	pdk_bpf_release(&st->connect_bpf);
	pdk_bpf_release(&st->bpf_hold);
	pdk_bpf_release(&st->connect_bpf_hold);
	pdk_netsup_free(st->sup);
	pdk_strv_freep(&st->env);
	pdk_strv_freep(&st->holds);
	free(st->ro);
	free(st);
}

static enum pdk_seccomp_net seccomp_net(const struct ll_state *st)
{
	enum pdk_seccomp_net net = st->network	  ? PDK_SECCOMP_NET_FULL
				   : st->supervised ? PDK_SECCOMP_NET_SUPERVISED
						    : PDK_SECCOMP_NET_OFF;

	/* Unix sockets only where the supervisor sees the calls that name
	 * their address. */
	return st->supervised ? pdk_seccomp_with_unix(net) : net;
}

static void statep_release(struct ll_state **st)
{
	landlock_release(*st);
}

/*
 * The domains mode without a network of the run's own: paddock's proxy
 * listens on the host's loopback; the listener is made here and handed to
 * the proxy over the policy's control socket, and the connect supervisor
 * lets the run reach that one port.
 */
static int host_proxy(struct ll_state *st, const struct pdk_confine *policy)
{
	char env[PDK_PROXY_ENV_N][PDK_PROXY_ENV_LEN];
	unsigned port = 0;
	int fd, r;

	fd = pdk_proxy_listen_host(&port);
	if (fd < 0)
		return fd;
	r = pdk_proxy_hand(policy->proxy_fd, fd);
	close(fd);
	if (r < 0)
		return r;
	st->env = calloc(PDK_PROXY_ENV_N + 1, sizeof(*st->env));
	if (!st->env)
		return -ENOMEM;
	pdk_proxy_env(port, env);
	for (size_t i = 0; i < PDK_PROXY_ENV_N; i++)
		if (!(st->env[i] = strdup(env[i])))
			return -ENOMEM;
	st->proxy_port = port;
	return 0;
}

/* Shorter first: a directory is bound before what lies in it, which its bind would hide. */
static int cmp_len(const void *a, const void *b)
{
	size_t la = strlen(*(char *const *)a), lb = strlen(*(char *const *)b);

	return la < lb ? -1 : la > lb;
}

/* The protected paths to hold: those there now and not symlinks (a symlink is vetted after
 * the run; its target, inside a root, is protected by its own name), and their pins. */
static int find_holds(struct ll_state *st, const struct pdk_confine *policy)
{
	_cleanup_strv_ char **held = NULL, **pins = NULL;
	size_t n = 0, n_pins = 0;
	int r;

	for (size_t i = 0; i < policy->n_protect && n < MAX_RULES; i++) {
		struct stat sb;

		if (lstat(policy->protect[i], &sb) < 0 || S_ISLNK(sb.st_mode) ||
		    pdk_strv_contains(held, n, policy->protect[i]))
			continue;
		if ((r = pdk_strv_append(&held, &n, strdup(policy->protect[i]))) < 0 ||
		    (r = pdk_confine_pins(policy, policy->protect[i], &pins, &n_pins)) < 0)
			return r;
	}
	if (!n)
		return 0;
	if (!(st->holds = calloc(n + n_pins + 1, sizeof(*st->holds))) ||
	    !(st->ro = calloc(n + n_pins, sizeof(*st->ro))))
		return -ENOMEM;
	/* Held paths and pins in one list, parents first; a path both held and a pin is held. */
	for (size_t i = 0; i < n; i++)
		st->holds[st->n_holds++] = steal_pointer(&held[i]);
	for (size_t i = 0; i < n_pins; i++) {
		if (!pdk_strv_contains(st->holds, st->n_holds, pins[i]))
			st->holds[st->n_holds++] = steal_pointer(&pins[i]);
		free(pins[i]);
		pins[i] = NULL;
	}
	qsort(st->holds, st->n_holds, sizeof(*st->holds), cmp_len);
	for (size_t i = 0; i < st->n_holds; i++)
		st->ro[i] = pdk_strv_contains((char *const *)policy->protect, policy->n_protect,
					      st->holds[i]);
	return 0;
}

static int landlock_prepare(const struct pdk_confine *policy, void **ret_state)
{
	__attribute__((cleanup(statep_release))) struct ll_state *st = NULL;
	static const char *const devices[] = { "/dev/null", "/dev/zero", "/dev/full", "/dev/tty" };
	uint64_t access;
	int r;

	st = calloc(1, sizeof(*st));
	if (!st)
		return -ENOMEM;
	st->ruleset_fd = -1;
	st->network = policy->network;
	st->max_procs = policy->max_procs;

	/* Refuse rather than run unconfined. */
	st->abi = ll_abi();
	if (st->abi < 1)
		return -EOPNOTSUPP;

	if ((r = split_secrets(st, policy)) < 0)
		return r;
	access = fs_rights(st->abi) | (st->n_outside ? FS_READ : 0);
	st->attr.handled_access_fs = access;
	if (st->abi >= 4 && !policy->network)
		st->attr.handled_access_net =
			LANDLOCK_ACCESS_NET_BIND_TCP | LANDLOCK_ACCESS_NET_CONNECT_TCP;
	/* Abstract unix sockets outside stay out of reach in every mode (the
	 * seccomp filter refuses unix sockets too; this holds without it). */
	if (st->abi >= 6)
		st->attr.scoped = LANDLOCK_SCOPE_SIGNAL | LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET;
	r = syscall(__NR_landlock_create_ruleset, &st->attr, attr_size(st->abi), 0);
	if (r < 0)
		return -errno;
	st->ruleset_fd = r;

	for (size_t i = 0; i < policy->n_roots; i++) {
		r = add_rule(st, policy->roots[i], access, true);
		if (r < 0 && r != -ENOENT)
			return r;
	}
	/* Landlock only adds rights going down a tree: keeping .git/hooks
	 * read-only under a writable root would mean no rule on .git, and then
	 * git could not create its index.lock. The mount namespace holds them. */
	st->protect_unenforced = policy->n_protect > 0;
	if ((r = find_holds(st, policy)) < 0)
		return r;
	if (st->n_outside && (r = grant_reads(st, policy)) < 0)
		return r;
	for (size_t i = 0; i < PDK_ARRAY_SIZE(devices); i++) {
		r = add_rule(st, devices[i], FS_FILE_RIGHTS, false);
		if (r < 0)
			return r;
	}
	/* --gpu: writes and device ioctls on the nodes (beneath, for /dev/dri),
	 * nothing made or removed there. */
	for (size_t i = 0; i < policy->n_devices; i++)
		if ((r = add_rule(st, policy->devices[i], FS_FILE_RIGHTS, true)) < 0)
			return r;

	snprintf(st->uid_map, sizeof(st->uid_map), "%u %u 1\n", (unsigned)getuid(),
		 (unsigned)getuid());
	snprintf(st->gid_map, sizeof(st->gid_map), "%u %u 1\n", (unsigned)getgid(),
		 (unsigned)getgid());
	st->supervised = pdk_netsup_probe(st->unsupervised_why,
					  sizeof(st->unsupervised_why)) == 0;
	if (st->supervised && policy->n_domains && !policy->network &&
	    (r = host_proxy(st, policy)) < 0)
		return r;
	st->unix_paths = policy->unix_paths;
	st->unix_fds = policy->unix_fds;
	st->n_unix = policy->n_unix;
	st->roots = policy->roots;
	st->n_roots = policy->n_roots;
	st->protect = policy->protect;
	st->n_protect = policy->n_protect;
	r = pdk_seccomp_compile(seccomp_net(st), &st->bpf);
	if (r < 0)
		return r;
	if (st->network && st->supervised &&
	    (r = pdk_seccomp_compile(PDK_SECCOMP_UNIX_NOTIFY, &st->connect_bpf)) < 0)
		return r;
	/* Precompiled: choosing them costs nothing, and the child, which finds out whether
	 * it has a namespace, loads one or the other. */
	if (st->supervised && st->n_holds &&
	    ((r = pdk_seccomp_compile(pdk_seccomp_with_hold(seccomp_net(st)), &st->bpf_hold)) < 0 ||
	     (st->network &&
	      (r = pdk_seccomp_compile(PDK_SECCOMP_UNIX_NOTIFY_HOLD, &st->connect_bpf_hold)) < 0)))
		return r;
	*ret_state = steal_pointer(&st);
	return 0;
}

/* Child side from here on: async-signal-safe system calls only. */

static int drop_capabilities(const struct ll_state *st)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[2] = { { 0 } };
	bool setpcap;

	if (syscall(SYS_capget, &hdr, data) < 0)
		return -errno;
	setpcap = data[0].effective & (1U << CAP_SETPCAP);

	if (setpcap) {
		/* Root stays root, but uid 0 no longer brings capabilities. */
		if (prctl(PR_SET_SECUREBITS, SECBIT_NOROOT | SECBIT_NOROOT_LOCKED |
			  SECBIT_NO_CAP_AMBIENT_RAISE | SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED,
			  0, 0, 0) < 0)
			return -errno;
		/* Without CAP_SETPCAP the bounding set cannot shrink; then
		 * no_new_privs is what keeps exec from adding any. The kernel
		 * says EINVAL past its last capability. */
		for (int cap = 0; cap < 64; cap++)
			if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) < 0) {
				if (errno == EINVAL)
					break;
				return -errno;
			}
	}
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 && errno != EINVAL)
		return -errno;
	memset(data, 0, sizeof(data));
	hdr.pid = 0;
	if (syscall(SYS_capset, &hdr, data) < 0)
		return -errno;
	return 0;
}

static int write_proc(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, text, strlen(text));
	if (n < 0 || (size_t)n != strlen(text)) {
		int e = n < 0 ? errno : EIO;

		close(fd);
		return -e;
	}
	return close(fd) < 0 ? -errno : 0;
}

/*
 * A private, writable /dev/shm (POSIX semaphores and shared memory: Python's multiprocessing,
 * Chromium) where this process can have a mount namespace of its own: with CAP_SYS_ADMIN
 * (root), else in a user namespace that maps only the user's own uid and gid. The host's
 * /dev/shm is then hidden under an empty tmpfs the run alone sees, which goes with its last
 * process; the write right is given on that tmpfs alone. Where no namespace can be made, the
 * host's /dev/shm stays as it was: readable, not writable. 1: made; 0: not possible here;
 * -errno: a user namespace was entered and could not be set up (the run must not go on).
 */
static int private_shm(const struct ll_state *st)
{
	struct landlock_path_beneath_attr pb = { 0 };
	int fd, r;

	if (unshare(CLONE_NEWNS) < 0) {
		if (unshare(CLONE_NEWUSER | CLONE_NEWNS) < 0)
			return 0;
		if ((r = write_proc("/proc/self/setgroups", "deny")) < 0 ||
		    (r = write_proc("/proc/self/uid_map", st->uid_map)) < 0 ||
		    (r = write_proc("/proc/self/gid_map", st->gid_map)) < 0)
			return r;
	}
	/* Nothing mounted here may reach the host's namespace. */
	if (mount(NULL, "/", NULL, MS_REC | MS_SLAVE, NULL) < 0)
		return 0;
	if (mount("tmpfs", "/dev/shm", "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777") < 0)
		return 0;
	fd = open("/dev/shm", O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	pb.allowed_access = st->attr.handled_access_fs;
	pb.parent_fd = fd;
	r = syscall(__NR_landlock_add_rule, st->ruleset_fd, LANDLOCK_RULE_PATH_BENEATH, &pb, 0);
	r = r < 0 ? -errno : 1;
	close(fd);
	return r;
}

/*
 * In the run's own mount namespace (private_shm made it): each protected path that exists is
 * covered by a read-only bind of itself, and each directory between it and its root by a bind
 * of itself (a pin: it cannot be renamed), through the mount API on a descriptor opened without
 * following a last symlink, so that a path swapped since prepare holds nothing else. The user's
 * tree outside is untouched, and the command, without CAP_SYS_ADMIN and with seccomp's mount
 * rules, cannot take the binds away. 0, or -errno (the run must not go on); a kernel without
 * the mount API (before 5.12) leaves them to the vetting after the run.
 */
static int hold_protected(const struct ll_state *st)
{
	struct mount_attr ro = {.attr_set = MOUNT_ATTR_RDONLY};

	for (size_t i = 0; i < st->n_holds; i++) {
		struct stat sb;
		int fd = open(st->holds[i], O_PATH | O_NOFOLLOW | O_CLOEXEC), mfd, r = 0;

		if (fd < 0)
			continue; /* gone since: nothing there to hold */
		if (fstat(fd, &sb) < 0 || S_ISLNK(sb.st_mode)) {
			close(fd);
			continue;
		}
		mfd = (int)syscall(__NR_open_tree, fd, "",
				   OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_EMPTY_PATH);
		if (mfd < 0)
			r = -errno;
		else if (st->ro[i] &&
			 syscall(__NR_mount_setattr, mfd, "", AT_EMPTY_PATH, &ro, sizeof(ro)) < 0)
			r = -errno;
		else if (syscall(__NR_move_mount, mfd, "", fd, "",
				 MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) < 0)
			r = -errno;
		if (mfd >= 0)
			close(mfd);
		close(fd);
		if (r == -ENOSYS)
			return 0;
		if (r < 0)
			return r;
	}
	return 0;
}

/* The secrets inside the roots, in the run's own mount namespace: the blank bound over each,
 * read-only, so that opening one is EACCES. One gone since the parent looked is no matter. */
static int hide_inside(const struct ll_state *st)
{
	for (size_t i = 0; i < st->n_inside; i++) {
		if (st->is_dir[i] && !st->blank_dir) {
			if (mount("tmpfs", st->inside[i], "tmpfs",
				  MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC,
				  "mode=0,size=4k") < 0 &&
			    errno != ENOENT && errno != ENOTDIR)
				return -errno;
			continue;
		}
		if (mount(st->is_dir[i] ? st->blank_dir : st->blank, st->inside[i], NULL, MS_BIND,
			  NULL) < 0) {
			if (errno == ENOENT || errno == ENOTDIR)
				continue;
			return -errno;
		}
		/* Best effort: the blank has mode 0 whether or not this holds. */
		(void)mount(NULL, st->inside[i], NULL,
			    MS_BIND | MS_REMOUNT | MS_RDONLY | st->blank_flags, NULL);
	}
	return 0;
}

static int landlock_enter(void *p)
{
	const struct ll_state *st = p;
	int r;

	r = private_shm(st);
	if (r < 0)
		return r;
	/* Without a mount namespace nothing else holds the secrets when the blanks were to:
	 * no run rather than one that reads them. */
	bool ns = r > 0;
	if (!ns && st->cover_all)
		return -EPERM;
	if (ns && (r = hide_inside(st)) < 0)
		return r;
	if (ns && (r = hold_protected(st)) < 0)
		return r;
	r = drop_capabilities(st);
	if (r < 0)
		return r;
	/* The process limit is the runner's (a cgroup where it can make
	 * one): RLIMIT_NPROC here would count every process of the user. */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return -errno;
	if (syscall(__NR_landlock_restrict_self, st->ruleset_fd, 0) < 0)
		return -errno;
	close(st->ruleset_fd);
	/* The program lets unix sockets be made on the supervisor's word:
	 * without one started for this child, nothing is run. */
	if (st->supervised && !st->sup)
		return -ECHILD;
	/* With no namespace to hold the protected paths in, the supervisor holds them. */
	bool hold = !ns && st->bpf_hold.len;
	const struct pdk_bpf *prog = hold ? &st->bpf_hold : &st->bpf;
	const struct pdk_bpf *conn = hold ? &st->connect_bpf_hold : &st->connect_bpf;

	/* The supervisor's program first: the main one refuses a listener. */
	if (st->sup && conn->len) {
		if ((r = pdk_netsup_child(st->sup, conn->filter, conn->len, hold)) < 0)
			return r;
		return pdk_seccomp_load(prog);
	}
	if (st->sup)
		return pdk_netsup_child(st->sup, prog->filter, prog->len, hold);
	return pdk_seccomp_load(prog);
}

/* Parent side: one supervisor a run, made before the fork. */
static int landlock_before_fork(void *p)
{
	struct ll_state *st = p;
	int r;

	/* With the network on, the supervisor is there for unix sockets only. */
	if (!st->supervised)
		return 0;
	pdk_netsup_free(st->sup);
	st->sup = NULL;
	if ((r = pdk_netsup_new(&st->sup)) < 0)
		return r;
	if (st->proxy_port)
		pdk_netsup_allow_proxy(st->sup, st->proxy_port);
	if (st->network)
		pdk_netsup_pass_others(st->sup);
	if ((r = pdk_netsup_allow_unix(st->sup, st->unix_paths, st->unix_fds, st->n_unix)) < 0 ||
	    (r = pdk_netsup_allow_bind(st->sup, st->roots, st->n_roots)) < 0 ||
	    (r = pdk_netsup_hold_missing(st->sup, st->protect, st->n_protect, st->roots,
					 st->n_roots, st->ruleset_fd)) < 0)
		return r;
	if (st->bpf_hold.len &&
	    (r = pdk_netsup_hold_existing(st->sup, (const char *const *)st->holds, st->ro,
					  st->n_holds, st->ruleset_fd)) < 0)
		return r;
	return pdk_netsup_listen(st->sup);
}

/* The proxy's variables, when this run reaches it. */
static char *const *landlock_env(void *p)
{
	const struct ll_state *st = p;

	return st ? st->env : NULL;
}

static void print_access(FILE *out, uint64_t a)
{
	static const char *const names[] = {
		"execute", "write_file", "read_file", "read_dir", "remove_dir",
		"remove_file", "make_char", "make_dir", "make_reg", "make_sock",
		"make_fifo", "make_block", "make_sym", "refer", "truncate", "ioctl_dev",
	};
	const char *sep = "";

	for (size_t i = 0; i < PDK_ARRAY_SIZE(names); i++) {
		if (a & (1ULL << i)) {
			fprintf(out, "%s%s", sep, names[i]);
			sep = ",";
		}
	}
}

static int landlock_describe(void *p, char *const *argv, FILE *out)
{
	const struct ll_state *st = p;

	fprintf(out, "landlock: ABI %d\n", st->abi);
	fprintf(out, "landlock: handled (denied unless a rule allows): ");
	print_access(out, st->attr.handled_access_fs);
	if (st->n_outside)
		fprintf(out, "\nlandlock: reads: %zu secrets outside the roots unread (read_file "
			     "granted on every entry around them, read_dir on /: names can be "
			     "listed); execution not restricted\n", st->n_outside);
	else
		fprintf(out, "\nlandlock: reads and execution are not restricted\n");
	for (size_t i = 0; i < st->n_inside; i++)
		fprintf(out, "landlock: secret covered by an unreadable blank in the run's mount "
			     "namespace%s: %s\n",
			st->cover_all ? "" : " where one can be made (else readable)",
			st->inside[i]);
	for (size_t i = 0; i < st->n_rules; i++) {
		fprintf(out, "landlock: allow ");
		print_access(out, st->rules[i].access);
		fprintf(out, " %s %s\n", st->rules[i].beneath ? "beneath" : "on",
			st->rules[i].path);
	}
	for (size_t i = 0; i < st->n_holds; i++)
		fprintf(out, "landlock: %s, %s: %s\n",
			st->ro[i] ? "held read-only for the whole run"
				  : "pinned (cannot be renamed or removed)",
			st->bpf_hold.len ? "by a bind in the run's mount namespace, or by the "
					   "supervisor where none can be made"
					 : "by a bind in the run's mount namespace",
			st->holds[i]);
	if (st->protect_unenforced)
		fprintf(out, "landlock: protected paths: Landlock cannot take rights back below "
			     "a writable root, so those that exist are held by read-only binds in "
			     "the run's mount namespace where one can be made (as /dev/shm below), "
			     "and by the supervisor, which refuses the calls that write or remove "
			     "them, where none can; missing ones are refused by the supervisor when "
			     "made; all are vetted after the run\n");
	if (st->attr.handled_access_net)
		fprintf(out, "landlock: TCP bind and connect denied (no rule)%s\n",
			st->supervised ? " to the command itself: the supervisor makes them" : "");
	else if (st->network)
		fprintf(out, "landlock: network on: TCP not restricted\n");
	else
		fprintf(out, "landlock: ABI %d has no TCP control: seccomp alone denies sockets\n",
			st->abi);
	if (!st->network && st->supervised)
		fprintf(out, "landlock: network off: loopback among the run's own processes, "
			     "through paddock's connect supervisor (a bind is narrowed to the "
			     "loopback, a connection or addressed send reaches only a loopback "
			     "address the run bound; SO_REUSEPORT is not honoured)\n");
	if (st->proxy_port)
		fprintf(out, "landlock: domains: the supervisor lets a TCP connection reach "
			     "127.0.0.1:%u, paddock's proxy on the host's loopback, and no other "
			     "address outside the run\n", st->proxy_port);
	else if (!st->network)
		fprintf(out, "landlock: network off: no loopback either (no connect supervisor "
			     "here: %s)\n", st->unsupervised_why);
	if (st->supervised)
		fprintf(out, "landlock: unix sockets of every type: the supervisor binds a "
			     "path beneath the writable roots only and notes the socket file; "
			     "connect() and an addressed send reach a socket the run bound (by "
			     "path, by device and inode; abstract, by name and socket while it is "
			     "bound), or one of the %zu path%s granted (allowUnixSockets, "
			     "--ssh-agent, --docker), through paddock's descriptor of it; every "
			     "other path and abstract name: EACCES\n",
			st->n_unix, st->n_unix == 1 ? "" : "s");
	else
		fprintf(out, "landlock: unix sockets stay closed, allowUnixSockets too: no connect "
			     "supervisor here (%s)\n", st->unsupervised_why);
	if (st->attr.scoped & LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET)
		fprintf(out, "landlock: scoped: abstract unix sockets outside the sandbox\n");
	if (st->attr.scoped & LANDLOCK_SCOPE_SIGNAL)
		fprintf(out, "landlock: scoped: signals to processes outside the sandbox\n");
	if (st->abi < 6)
		fprintf(out, "landlock: ABI %d has no scoping: seccomp and the ptrace rules of "
			     "Landlock only\n", st->abi);
	fprintf(out, "landlock: /dev/shm: a private tmpfs, writable, in a mount namespace of the "
		     "run's own where one can be made (CAP_SYS_ADMIN, or a user namespace mapping "
		     "only uid %.*s); else the host's, read-only\n",
		(int)strcspn(st->uid_map, " "), st->uid_map);
	fprintf(out, "landlock: not covered: chmod, chown, utimes on files outside the roots "
		     "that the user owns\n");
	fprintf(out, "landlock: not covered: reads, of the user's other terminals (/dev/pts/N) "
		     "too\n");
	fprintf(out, "process: every capability dropped (effective, permitted, inheritable, "
		     "ambient, bounding when held), no_new_privs\n");
	if (st->max_procs)
		fprintf(out, "process: at most %lu processes at once (set by paddock's runner)\n",
			st->max_procs);
	if (pdk_seccomp_describe(seccomp_net(st), out) < 0)
		return -EIO;
	if (argv) {
		fprintf(out, "exec:");
		for (char *const *a = argv; *a; a++)
			fprintf(out, " %s", *a);
		fprintf(out, "\n");
	}
	return ferror(out) ? -EIO : 0;
}

const struct pdk_backend pdk_backend_landlock = {
	.name = "landlock",
	.devices = true,
	.probe = landlock_probe,
	/* With the connect supervisor: without it env() gives nothing, and
	 * the domains mode is off. */
	.proxy_on_loopback = true,
	.prepare = landlock_prepare,
	.env = landlock_env,
	.wrap_argv = NULL,
	.enter = landlock_enter,
	.before_fork = landlock_before_fork,
	.release = landlock_release,
	.describe = landlock_describe,
};
