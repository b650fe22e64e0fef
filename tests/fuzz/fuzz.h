/* fuzz.h - what the libFuzzer harnesses share: the entry point's prototype,
 * a private temporary directory, and a file in it rewritten with each input. */
#ifndef PDK_FUZZ_H
#define PDK_FUZZ_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A directory made once per process and removed, with all in it, at exit;
 * aborts when it cannot be made. */
const char *fuzz_dir(void);
/* Write data as the file NAME in fuzz_dir() (replacing it) and return its
 * path, a static buffer; aborts on failure. */
const char *fuzz_write(const char *name, const void *data, size_t size);
/* Abort unless s is what paddock promises a reader: valid UTF-8 with no
 * control character (C0, DEL or C1) but the newline and the tab. */
void fuzz_check_clean(const char *what, const char *s, size_t len);
/* Abort with a message when the library broke one of its promises. */
void fuzz_fail(const char *what, const char *text, size_t len) __attribute__((noreturn));

#endif
