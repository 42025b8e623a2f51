/* fuzz_logline.c - the NCCL / PyTorch line parser: every line of the input
 * (and the whole input as one line) through logline_parse; every span must
 * lie inside the line, and the parse must not depend on the line before
 * (the parser remembers the previous NCCL prefix): the same fields after an
 * unrelated line. */
#include "fuzz_common.h"
#include "parse/logline.h"

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
	static const char other[] = "fuzz-reset:1:1 [0] NCCL INFO x";
	struct logline reset, fresh;
	logline_parse(other, sizeof other - 1, &reset);
	logline_parse(l, len, &fresh);
	FUZZ_ASSERT(fresh.level == ll.level && fresh.pid == ll.pid && fresh.tid == ll.tid && fresh.dev == ll.dev &&
	            fresh.rank == ll.rank && fresh.srcline == ll.srcline);
	FUZZ_ASSERT(fresh.msg.p == ll.msg.p && fresh.msg.n == ll.msg.n && fresh.ts.p == ll.ts.p &&
	            fresh.ts.n == ll.ts.n && fresh.host.p == ll.host.p && fresh.host.n == ll.host.n &&
	            fresh.file.p == ll.file.p && fresh.file.n == ll.file.n && fresh.func.p == ll.func.p &&
	            fresh.func.n == ll.func.n);
	/* and again right after itself (the memo now holds its own prefix) */
	struct logline again;
	logline_parse(l, len, &again);
	FUZZ_ASSERT(again.level == ll.level && again.msg.p == ll.msg.p && again.msg.n == ll.msg.n &&
	            again.host.n == ll.host.n && again.pid == ll.pid && again.tid == ll.tid && again.dev == ll.dev);
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
