/* supervise_int.h - what the supervisor's two halves share: its state, a call in hand, and the
 * calls that make a name (supervise_fs.c), which the loop in supervise.c hands over. */
#ifndef PDK_SUPERVISE_INT_H
#define PDK_SUPERVISE_INT_H

#include <limits.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "supervise.h"

#ifndef __NR_pidfd_open
#define __NR_pidfd_open 434
#endif
#ifndef __NR_pidfd_getfd
#define __NR_pidfd_getfd 438
#endif
#ifndef PIDFD_THREAD
#define PIDFD_THREAD O_EXCL
#endif
#ifndef __NR_openat2
#define __NR_openat2 437
#endif
#ifndef __NR_landlock_create_ruleset
#define __NR_landlock_create_ruleset 444
#define __NR_landlock_add_rule 445
#define __NR_landlock_restrict_self 446
#endif
#ifndef PROC_SUPER_MAGIC
#define PROC_SUPER_MAGIC 0x9fa0
#endif

/* Calls handled at once, each in a thread of its own, so that a send that blocks holds up
 * no other; past this the loop handles them itself. */
#define MAX_JOBS 64
/* Descriptors an SCM_RIGHTS message may carry. */
#define MAX_FDS 64

struct pdk_netsup {
	int to_parent[2]; /* the child writes its listener's number */
	int to_child[2];  /* the parent's word that it holds it */
	int owner;        /* a pidfd of paddock, readable once it is gone; -1: none */
	int listener;
	int stop[2];
	pthread_t thread;
	bool running;
	struct seccomp_notif_sizes sizes;
	uint16_t proxy_port; /* 127.0.0.1:proxy_port over TCP: paddock's proxy */
	/* The UNIX_NOTIFY program: what is not a unix socket is performed as
	 * the command asked. */
	bool pass_others;
	/* allowUnixSockets: the paths, and paddock's O_PATH descriptors of the
	 * sockets there, opened before the run, with what they are. */
	char **unix_paths;
	int *unix_fds;
	struct stat *unix_st;
	size_t n_unix;
	/* A Landlock ruleset that lets a thread make sockets beneath the
	 * writable roots only: a bind to a path is made under it. -1: none. */
	int bind_ruleset;
	pthread_mutex_t lock; /* what follows */
	pthread_cond_t idle;
	pthread_cond_t work; /* a call in the queue, or stopping */
	unsigned jobs;        /* worker threads alive */
	unsigned waiting;     /* of them, waiting for a call */
	bool stopping;
	struct seccomp_notif *queue[MAX_JOBS];
	size_t q_head, q_len;
	struct bound *bound;
	size_t n_bound;
	struct ubound *ubound;
	size_t n_ubound;
	unsigned long performed, refused;
	/* Protected paths missing at the start whose directory is there: a
	 * call that would make one is refused. The calls that make a name are
	 * performed on the command's behalf, under fs_ruleset (the command's
	 * own Landlock ruleset; -1: none, its mount namespace holds it). Until
	 * fs_armed (bwrap sets up its sandbox first), they go on as asked. */
	struct missing *missing;
	size_t n_missing;
	/* Without a mount namespace to hold them in: the existing protected paths, what is
	 * in them, and the directories between a root and each (pins), by dev:ino, sorted. */
	struct held *held;
	size_t n_held;
	/* What pdk_netsup_hold_existing() was given: held (the set above made) only when the
	 * child says it has no namespace. */
	char **hold_paths;
	bool *hold_pin;
	size_t n_hold_paths;
	/* Workers waiting in a fifo's open for its peer (under lock): the fifo (O_PATH),
	 * the mode of that open, and the peer paddock opened when the run stopped. */
	struct fifo_wait {
		int fd, acc, peer;
	} fifo_waits[MAX_JOBS];
	size_t n_fifo_waits;
	struct stat *git; /* the host's git, which may make them (a checkout) */
	size_t n_git;
	int fs_ruleset;
	bool fs_armed;
};

/* A missing protected path: the name it would have in the directory dev:ino. */
struct missing {
	dev_t dev;
	ino_t ino;
	char *name;
	char *path;
};

/* A protected path the supervisor holds: one written or removed (a HELD_FILE, anything in
 * a HELD_DIR) or moved (a pin too) is refused. */
enum held_kind { HELD_FILE, HELD_DIR, HELD_PIN };
struct held {
	dev_t dev;
	ino_t ino;
	enum held_kind kind;
};

struct call {
	struct pdk_netsup *ns;
	const struct seccomp_notif *req;
	int pidfd;
	int fd; /* paddock's copy of the command's socket */
	int domain, type, proto;
	int fds[MAX_FDS]; /* descriptors an SCM_RIGHTS message carries */
	size_t n_fds;
};

enum fs_kind { FS_MKDIR, FS_MKNOD, FS_SYMLINK, FS_RENAME, FS_OPEN, FS_LINK, FS_TRUNCATE, FS_UNLINK };

/* A call that makes a name: where (at, path: a dirfd and the address of the path in the
 * command), from where for rename and link, and the rest of its arguments. */
struct fsop {
	enum fs_kind kind;
	int from_at, at;
	uint64_t from, path, target;
	uint64_t flags; /* renameat2's, open's, linkat's, unlinkat's */
	mode_t mode;
	dev_t dev;
	off_t length; /* truncate's */
};

/* An open that would block until a peer comes (a fifo's): made by a worker, which may
 * wait, not by the loop. */
#define PDK_FS_TO_WORKER LONG_MIN
/* This thread may wait in a call it makes (a worker's). */
extern __thread bool pdk_fs_may_block;
/* This thread's working directory and umask are its own (the loop's: it makes the
 * calls itself). */
extern __thread bool pdk_fs_private;

/* The command's memory at addr, len bytes of it, into buf. 0 or -errno. */
int pdk_sup_peek(pid_t pid, uint64_t addr, void *buf, size_t len);
/* A pidfd for the process whose descriptor table the thread pid uses. */
int pdk_sup_open_pidfd(pid_t pid);
/* The command's descriptor tfd, as one of paddock's (c->pidfd open). */
int pdk_sup_grab(struct call *c, int tfd, int *ret);
/* Still the call the notification was about: the thread did not die, so its number named
 * the same process all along. 0 or -ENOENT. */
int pdk_sup_still_valid(const struct call *c);

/* Is req a call that makes a name? Its arguments into op. */
bool pdk_fs_call(const struct seccomp_notif *req, struct fsop *op);
/* The call op, refused (-EPERM) at a missing protected path, else made on the command's
 * behalf: the result, -errno, a descriptor of paddock's for an open (to hand over), or
 * PDK_FS_TO_WORKER. */
long pdk_fs_do(struct call *c, const struct fsop *op);
/* The end of a thread that made calls for the command: its actor, its status file. */
void pdk_fs_end(void);
/* Make the held set of the paths pdk_netsup_hold_existing() was given. 0 or -ENOMEM. */
int pdk_fs_hold(struct pdk_netsup *ns);
/* The run is stopping (ns->stopping set): each worker waiting in a fifo's open is given
 * its peer, so that it ends. */
void pdk_fs_release(struct pdk_netsup *ns);

#endif
