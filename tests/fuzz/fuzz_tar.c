/* fuzz_tar.c - the tar reader (input_tar.c) through input_walk_memory.
 * Tar headers carry a checksum that random mutations almost always break, so
 * when the input's last byte is odd the checksum of every 512-byte block
 * that looks like a header (ustar magic, or a non-empty name field followed
 * by octal-ish mode) is recomputed first; the fuzzer then reaches the name,
 * size, type, pax and GNU long-name logic.  An even last byte leaves the
 * input as it is (resynchronisation after corrupt headers). */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fix_checksums(uint8_t *p, size_t n)
{
	for (size_t off = 0; off + 512 <= n; off += 512) {
		uint8_t *h = p + off;
		int looks = memcmp(h + 257, "ustar", 5) == 0 || (h[0] && h[100] >= '0' && h[100] <= '7');
		if (!looks)
			continue;
		memset(h + 148, ' ', 8);
		unsigned sum = 0;
		for (int i = 0; i < 512; i++)
			sum += h[i];
		snprintf((char *)h + 148, 8, "%06o", sum & 0777777);
		h[155] = ' ';
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size == 0) {
		fuzz_walk("fuzz.tar", data, 0);
		return 0;
	}
	size_t n = size - 1;
	uint8_t *p = malloc(n ? n : 1);
	memcpy(p, data, n);
	if (data[size - 1] & 1)
		fix_checksums(p, n);
	fuzz_walk("fuzz.tar", p, n);
	free(p);
	return 0;
}
