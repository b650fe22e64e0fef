/* failalloc.h - fault injection for the Check suites: the Nth allocation from now fails,
 * so a test can sweep N over every allocation a call makes (see failalloc.c). */
#ifndef PDK_FAILALLOC_H
#define PDK_FAILALLOC_H

#include <stdbool.h>

/* From now on, count malloc, calloc and realloc calls; the nth (1 = the next) returns NULL
 * with errno ENOMEM, every other one succeeds. */
void pdk_failalloc_arm(unsigned long n);
/* Stop counting; true when the armed failure happened. */
bool pdk_failalloc_disarm(void);
/* Whether the hook stands in front of the allocator in this build (not under a sanitizer
 * that brings its own); a test that needs it skips when it does not. */
bool pdk_failalloc_works(void);

#endif
