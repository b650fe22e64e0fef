/* fuzz_shparse.c - libFuzzer harness for the sh -c parser: any bytes must
 * parse or fail cleanly, never crash, leak or overflow the stack. */
#include <stddef.h>
#include <stdint.h>

#include "shparse/shparse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	pdk_sh_parse_bytes(data, size);
	return 0;
}
