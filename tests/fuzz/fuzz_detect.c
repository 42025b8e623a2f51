/* fuzz_detect.c - input kind detection: detect_kind() on any bytes, and the
 * content sniffing of the input layer (gzip / tar / other compressors /
 * plain document) on the same bytes. */
#include "parse/detect.h"
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* exact-size copies: detect_kind must not read past len */
	char *h = malloc(size ? size : 1);
	memcpy(h, data, size);
	for (int complete = 0; complete < 2; complete++) {
		enum doc_kind k = detect_kind(h, size, complete);
		FUZZ_ASSERT((int)k >= 0 && k < DOC_KIND_COUNT);
		FUZZ_ASSERT(strcmp(doc_kind_name(k), "unknown") != 0);
		FUZZ_ASSERT(size != 0 || k == DOC_EMPTY);
		FUZZ_ASSERT(size == 0 || k != DOC_EMPTY);
	}
	/* every prefix is a possible head of a document */
	if (size > 1)
		(void)detect_kind(h, size / 2, 0);
	free(h);
	fuzz_walk("fuzz.bin", data, size);
	return 0;
}
