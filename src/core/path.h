/* path.h - path and descriptor helpers every stage shares: resolving as the
 * kernel would, containment under a root, making directories, whole writes. */
#ifndef PDK_PATH_H
#define PDK_PATH_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Resolve path as the kernel would: realpath of its longest existing
 * prefix, the rest appended. Returns a new string or NULL (errno). */
char *pdk_path_resolve(const char *path);
/* path is root itself or lies below it ("/" holds every absolute path);
 * trailing slashes on root do not matter. */
bool pdk_path_under(const char *path, const char *root);
/* "a/b" as a new string (trailing slashes of a dropped), or NULL. */
char *pdk_path_join(const char *a, const char *b);
/* path is a directory of this user's own, not a symlink to one: one to write into or
 * run from, which nobody else can have planted. */
bool pdk_own_dir(const char *path);
/* mkdir -p; each directory made is given mode. Returns 0 or -errno. */
int pdk_mkdir_p(const char *path, mode_t mode);
/* open(path, flags, 0600) for a file in dir, making dir (mkdir -p, 0700) only when the open
 * finds it missing: most calls find it made. The fd or -errno. */
int pdk_open_in_dir(const char *dir, const char *path, int flags);
/* A run's record (a vet journal, the rm shim's registry), made new at path in dir
 * (pdk_open_in_dir, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC) and locked
 * (flock LOCK_EX) before anything is written. One found unlocked is a dead run's, even
 * empty: a sweep removes it, and a run whose record was removed between its open and its
 * lock makes it again. The fd or -errno. */
int pdk_create_locked(const char *dir, const char *path);
/* Up to size bytes of fd (a regular file's size, from fstat), read to the end
 * or to size, across short reads and EINTR: a new NUL-terminated buffer in
 * *ret, its length in *ret_len when not NULL. 0 or -errno. */
int pdk_read_size(int fd, size_t size, char **ret, size_t *ret_len);
/* A small regular file at path (relative to dfd), opened without following a final symlink
 * and without blocking on a fifo: its text, NUL-terminated, in *ret (free()), its length in
 * *ret_len when not NULL. -EINVAL when it is no regular file, -EFBIG when it is larger than
 * max, another -errno when it cannot be opened or read. */
int pdk_read_small_at(int dfd, const char *path, size_t max, char **ret, size_t *ret_len);
/* write(2) until done, across short writes and EINTR. 0 or -errno. */
int pdk_write_all(int fd, const void *buf, size_t len);
/* The path the kernel has for an open file or directory: what was opened is
 * what gets checked, even if a component was swapped for a symlink after a
 * realpath(). A new string, or NULL. */
char *pdk_path_of_fd(int fd);
/* In place: /proc/self/mountinfo writes blanks and backslashes as \ooo. */
void pdk_mountinfo_unescape(char *s);
/* The directory at the absolute path, opened O_PATH and close-on-exec through no symlink at
 * all (-ELOOP or -ENOTDIR where one is met): what is checked is what is used, even when a
 * component is swapped for a symlink after the path was resolved. The fd or -errno. */
int pdk_open_dir_nofollow(const char *path);
/* The same, path taken from the directory root instead of from /. */
int pdk_open_dir_nofollow_at(int root, const char *path);
/* The directory that holds the last name of the absolute path (not "/"), opened as
 * pdk_open_dir_nofollow_at() does; *ret_name points at that name in path. The fd or -errno. */
int pdk_open_parent_nofollow_at(int root, const char *path, const char **ret_name);
/* The file, directory or symlink itself at the absolute path, taken from root (AT_FDCWD: /),
 * opened O_PATH with no symlink followed on the way. The fd or -errno. */
int pdk_open_nofollow_at(int root, const char *path);
/* pipe(2) with both ends close-on-exec. 0 or -errno. */
int pdk_pipe_cloexec(int fds[2]);
/* A stream socketpair(2) of AF_UNIX with both ends close-on-exec. 0 or -errno. */
int pdk_socketpair_cloexec(int fds[2]);
/* socket(2) and accept(2) whose descriptor is close-on-exec: the fd or -errno. */
int pdk_socket_cloexec(int domain, int type, int protocol);
int pdk_accept_cloexec(int listen_fd);
/* O_PATH where the system has it; elsewhere a read-only open serves for *at() calls. */
#ifdef O_PATH
#define PDK_O_PATH O_PATH
#else
#define PDK_O_PATH O_RDONLY
#endif

#endif
