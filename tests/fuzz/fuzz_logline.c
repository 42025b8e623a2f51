/* fuzz_logline.c - the NCCL / PyTorch line parser: every line of the input
 * (and the whole input as one line) through logline_parse; every span must
 * lie inside the line. */
#include "fuzz_common.h"
#include "logline.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void in_line(const char *line, size_t len, const struct span *s)
{
	if (s->n == 0)
		return;
	FUZZ_ASSERT(s->p >= line && s->p <= line + len);
	FUZZ_ASSERT(s->n <= (size_t)(line + len - s->p));
}

static void one(const char *line, size_t len)
{
	/* exact-size copy: the parser must not read past len */
	char *l = malloc(len ? len : 1);
	memcpy(l, line, len);
	struct logline ll;
	logline_parse(l, len, &ll);
	FUZZ_ASSERT(ll.level >= LINE_PLAIN && ll.level <= LINE_CALL);
	FUZZ_ASSERT(line_level_name(ll.level) != NULL);
	in_line(l, len, &ll.msg);
	in_line(l, len, &ll.ts);
	in_line(l, len, &ll.host);
	in_line(l, len, &ll.file);
	in_line(l, len, &ll.func);
	if (ll.msg.n == 0)
		FUZZ_ASSERT(ll.msg.p == NULL || (ll.msg.p >= l && ll.msg.p <= l + len));
	/* a real prefix leaves a message no longer than the line */
	FUZZ_ASSERT(ll.msg.n <= len);
	free(l);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p = (const char *)data, *end = p + size;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
		one(p, len);
		if (!nl)
			break;
		p = nl + 1;
	}
	one((const char *)data, size);
	return 0;
}
