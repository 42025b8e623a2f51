/* cisafe.c - see cisafe.h. */
#include "base/cisafe.h"

#include <string.h>

void cisafe_init(struct cisafe *g, enum cisafe_kind kind)
{
	memset(g, 0, sizeof *g);
	g->kind = kind;
	g->bol = 1;
}

/* "[" after "##", in the output's language */
static const char *bracket(enum cisafe_kind k)
{
	return k == CISAFE_JSON ? "\\u005b" : k == CISAFE_XML ? "&#91;" : "\xe2\x80\x8b[";
}

void cisafe_feed(struct cisafe *g, const char *in, size_t n, struct buf *out)
{
	int lead = g->kind == CISAFE_TEXT || g->kind == CISAFE_XML; /* line-leading "::" can occur */
	size_t run = 0; /* bytes of in[i - run, i) copied as they are, not yet added */
	for (size_t i = 0; i < n; i++) {
		if (!lead && !g->colon && !g->hashes) {
			/* JSON: only "##[" is rewritten; the bytes up to the next '#'
			 * go as they are (bol is not read without line-leading "::") */
			const char *h = memchr(in + i, '#', n - i);
			size_t stop = h ? (size_t)(h - in) : n;
			run += stop - i;
			i = stop;
			if (i == n)
				break;
		}
		char c = in[i];
		if (g->colon) {
			g->colon = 0;
			g->bol = 0;
			if (c == ':') {
				buf_adds(out, g->kind == CISAFE_XML ? "&#58;:" : ":\xe2\x80\x8b:");
				g->neutralised++;
				run = 0;
				continue;
			}
			buf_addc(out, ':');
		}
		if (c == '[' && g->hashes >= 2) {
			buf_add(out, in + i - run, run);
			run = 0;
			buf_adds(out, bracket(g->kind));
			g->neutralised++;
			g->hashes = 0;
			g->bol = 0;
			continue;
		}
		if (c == ':' && g->bol && lead) {
			buf_add(out, in + i - run, run);
			run = 0;
			g->colon = 1;
			g->hashes = 0;
			continue;
		}
		g->hashes = c == '#' ? (g->hashes < 2 ? g->hashes + 1 : 2) : 0;
		if (c == '\n' || c == '\r')
			g->bol = 1; /* the runner splits lines at either */
		else if (c != ' ' && c != '\t')
			g->bol = 0;
		run++;
	}
	buf_add(out, in + n - run, run);
}

void cisafe_end(struct cisafe *g, struct buf *out)
{
	if (g->colon)
		buf_addc(out, ':');
	g->colon = 0;
}

char *cisafe_str(const char *s, enum cisafe_kind kind)
{
	struct cisafe g;
	cisafe_init(&g, kind);
	struct buf b;
	buf_init(&b);
	cisafe_feed(&g, s, strlen(s), &b);
	cisafe_end(&g, &b);
	if (!b.data)
		buf_adds(&b, "");
	return buf_steal(&b);
}
