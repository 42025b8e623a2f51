/* linekind.c - see linekind.h. */
#include "parse/linekind.h"

#include <string.h>
#include "parse/linekw.h"
#include "parse/peel.h"

/* The bytes of a dotted identifier ("torch.distributed.DistBackendError") */
#define LK_R(a, b) [a] = 1, [a + 1] = 1, [a + 2] = 1, [a + 3] = 1, [a + 4] = 1, [a + 5] = 1, [a + 6] = 1, [a + 7] = 1
static const unsigned char IDENT[256] = {
	['_'] = 1, ['.'] = 1, LK_R('0', 0), ['8'] = 1, ['9'] = 1,
	LK_R('A', 0), LK_R('I', 0), LK_R('Q', 0), ['Y'] = 1, ['Z'] = 1,
	LK_R('a', 0), LK_R('i', 0), LK_R('q', 0), ['y'] = 1, ['z'] = 1,
};
#undef LK_R

static int letter(char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
}

/* classify() past its first test: a plain line, or an NCCL line without
 * host:pid:tid.  A call of its own, so that an NCCL line (most of an NCCL
 * log) is answered without this one's registers and frame. */
static __attribute__((noinline)) void classify_plain(const struct logline *ll, struct linekind *out)
{
	struct linekind k = {LK_OTHER, 0, 0, 0, 0};
	const char *p = ll->msg.p;
	size_t n = ll->msg.n;
	/* the exception test, on the message or on what follows its indent */
	size_t sp = 0, sl = n < 16 ? n : 16;
	while (sp < sl && (p[sp] == ' ' || p[sp] == '\t'))
		sp++;
	const char *q = p;
	size_t qn = n;
	if (sp && sp < n && letter(p[sp])) {
		q = p + sp;
		qn = n - sp;
		k.indent = (unsigned char)sp;
	}
	size_t i = 0;
	while (i < qn && IDENT[(unsigned char)q[i]])
		i++;
	int typed = i > 5 && (memcmp(q + i - 5, "Error", 5) == 0 || (i >= 9 && memcmp(q + i - 9, "Exception", 9) == 0));
	/* "a.b.RendezvousTimeoutError" alone (looked for only when typed: it counts only then) */
	int alone = typed && i == qn && memchr(q, '.', qn) != NULL;
	/* a wrapper's type with the type it wraps: "ray.exceptions.RayTaskError(OutOfMemoryError): " */
	const char *paren = typed && i + 2 < qn && q[i] == '(' ? memchr(q + i, ')', qn - i) : NULL;
	int wraps = paren && (size_t)(paren - q) + 1 < qn && paren[1] == ':';
	k.exception = (unsigned char)(typed && ((i < qn && q[i] == ':') || alone || wraps));
	if (!k.exception)
		k.indent = 0;
	k.torch_record = ll->logger_kind == PL_C10; /* peel took its header off the message */
	/* the first byte that is not a blank (the nccl-tests parser skips
	 * these, and reads at most its line buffer's 1023 bytes) */
	size_t lim = n < 1023 ? n : 1023;
	for (size_t j = sp; j < lim; j++) { /* p[0..sp) are blanks (sp <= 16) */
		char c = p[j];
		if (c == ' ' || c == '\t' || c == '\r' || c == 0 || c == '\n')
			continue;
		k.table_row = c == '#' || (c >= '0' && c <= '9');
		break;
	}
	uint64_t kw;
	if (ll->level != LINE_PLAIN)
		k.kind = LK_NCCL;
	else if ((kw = ll->kw_known ? ll->kw : logline_keywords(ll)), /* the keywords: plain lines only */
	         (kw & KW_BIT(KW_TRACEBACK)) || k.exception ||
	    (sp >= 2 && n - sp > 6 && memcmp(p + sp, "File \"", 6) == 0))
		k.kind = LK_TRACEBACK;
	else if (k.torch_record || (kw & (KW_BIT(KW_WORKNCCL) | KW_BIT(KW_WD_TIMEOUT) | KW_BIT(KW_LAST_ENQUEUED) |
	                                  KW_BIT(KW_BLOCKING_WAIT) | KW_BIT(KW_DUMP_OBSERVED) | KW_BIT(KW_DUMP_RECEIVED))))
		k.kind = LK_TORCH;
	else if (k.table_row)
		k.kind = LK_TABLE;
	*out = k;
}

static inline __attribute__((always_inline)) void classify(const struct logline *ll, struct linekind *out)
{
	if (ll->level != LINE_PLAIN && ll->pid >= 0) {
		/* what the flags say is asked of plain lines, and of NCCL lines
		 * without host:pid:tid (ranks.c reads those as plain) */
		*out = (struct linekind){LK_NCCL, 0, 0, 0, 0};
		return;
	}
	classify_plain(ll, out);
}

void linekind_classify(struct logline *ll)
{
	ll->lk_known = 1; /* first: the plain line's call is the last thing (a jump; classify reads no lk) */
	classify(ll, &ll->lk);
}

const struct linekind *linekind_compute(const struct logline *ll, struct linekind *tmp)
{
	classify(ll, tmp);
	return tmp;
}

const char *line_kind_name(enum line_kind k)
{
	switch (k) {
	case LK_NCCL: return "nccl";
	case LK_TRACEBACK: return "traceback";
	case LK_TORCH: return "torch";
	case LK_TABLE: return "table";
	default: return "other";
	}
}
