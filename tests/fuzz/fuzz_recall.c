/* fuzz_recall.c - libFuzzer harness for reading a stored output back
 * (paddock recall --from, --match, --summary) from a hostile stored file.
 * The input: 4 bytes of options, then for --match the pattern up to the
 * first newline, then the stored file. What comes back is clean text. */
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/fmt.h"
#include "fuzz.h"
#include "output/recall.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const size_t bounds[] = {0, 1, 64, 401, 1024, 16384};
	struct pdk_recall_opts o = {.id = "fuzz0000"};
	struct pdk_error err = {0};
	struct pdk_buf out = {0};
	char pattern[256] = "";
	int fd, r;

	if (size < 4)
		return 0;
	o.mode = data[0] % 3;
	o.lines = data[0] / 3 % 8;
	o.from = data[1] % 64;
	o.bound = bounds[data[2] % (sizeof(bounds) / sizeof(bounds[0]))] + data[3];
	data += 4;
	size -= 4;
	if (o.mode == PDK_RECALL_MATCH) {
		const uint8_t *nl = memchr(data, '\n', size);
		size_t n = nl ? (size_t)(nl - data) : size;

		if (n >= sizeof(pattern) || memchr(data, '\0', n))
			return 0;
		memcpy(pattern, data, n);
		pattern[n] = '\0';
		data += n + (nl != NULL);
		size -= n + (nl != NULL);
		o.pattern = pattern;
	}
	fd = memfd_create("stored-output", MFD_CLOEXEC);
	if (fd < 0 || (size && write(fd, data, size) != (ssize_t)size))
		fuzz_fail("memfd_create or write failed", "", 0);
	lseek(fd, 0, SEEK_SET);
	r = pdk_recall(fd, &o, &out, &err);
	close(fd);
	if (r == 0)
		fuzz_check_clean("recall's text is not clean", out.data, out.len);
	if (r < 0 && memchr(err.message, '\0', sizeof(err.message)) == NULL)
		fuzz_fail("an unterminated error", "", 0);
	pdk_buf_free(&out);
	return 0;
}
