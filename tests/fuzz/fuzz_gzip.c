/* fuzz_gzip.c - the gzip layer (input_gzip.c) through input_walk_memory.
 * The first two bytes are forced to the gzip magic so that every input
 * reaches zlib; the rest is the fuzzer's: member headers, deflate data,
 * trailers, concatenated members, trailing garbage, nested tar/gzip. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *p = malloc(size + 2);
	p[0] = 0x1f;
	p[1] = 0x8b;
	size_t n = 2;
	if (size >= 2 && data[0] == 0x1f && data[1] == 0x8b) {
		memcpy(p, data, size);
		n = size;
	} else {
		memcpy(p + 2, data, size);
		n = size + 2;
	}
	fuzz_walk("fuzz.log.gz", p, n);
	free(p);
	return 0;
}
