/* self.h - the paddock program a run's helpers execute (the rm shim's target, the
 * guardian's finish, bwrap's reaper and proxy): the running binary, or the one set. */
#ifndef PDK_SELF_H
#define PDK_SELF_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* The program to use instead of the running binary: a process that is not paddock
 * (one that embeds libpaddock) names the installed paddock. Resolved to its real
 * path; 0, or -errno (-ENOENT, -EACCES: not an executable file). NULL: the running
 * binary again. */
int pdk_self_set(const char *path);
/* Was a program set? */
bool pdk_self_is_set(void);
/* The program's real path into buf, NUL-terminated: the one set, else the kernel's name for
 * the running binary. Its length, or -errno (-ENAMETOOLONG when buf is short, -ENOENT when
 * the running binary was removed since it started). */
ssize_t pdk_self_path(char *buf, size_t len);
/* The program opened for fexecve (O_RDONLY | O_CLOEXEC), or -errno. */
int pdk_self_open(void);

#endif
