/* acmatch.c - see acmatch.h.  A full DFA (256 transitions a state) built
 * from the trie with failure links; outputs are merged along failure links
 * so search never walks them. */
#include "acmatch.h"

#include <stdlib.h>
#include <string.h>
#include "util.h"

struct acmatch {
	uint32_t (*next)[256]; /* DFA transitions */
	uint32_t *fail;
	uint32_t **out;        /* per state: values, out_n[state] of them */
	uint32_t *out_n;
	uint8_t *has_out;
	size_t nstates, cap;
	int built;
};

static uint32_t new_state(struct acmatch *ac)
{
	if (ac->nstates == ac->cap) {
		ac->cap = ac->cap ? ac->cap * 2 : 64;
		ac->next = xrealloc(ac->next, ac->cap * sizeof *ac->next);
		ac->fail = xrealloc(ac->fail, ac->cap * sizeof *ac->fail);
		ac->out = xrealloc(ac->out, ac->cap * sizeof *ac->out);
		ac->out_n = xrealloc(ac->out_n, ac->cap * sizeof *ac->out_n);
		ac->has_out = xrealloc(ac->has_out, ac->cap);
	}
	uint32_t s = (uint32_t)ac->nstates++;
	memset(ac->next[s], 0xff, sizeof ac->next[s]);
	ac->fail[s] = 0;
	ac->out[s] = NULL;
	ac->out_n[s] = 0;
	ac->has_out[s] = 0;
	return s;
}

struct acmatch *acmatch_new(void)
{
	struct acmatch *ac = xcalloc(1, sizeof *ac);
	new_state(ac);
	return ac;
}

static void out_add(struct acmatch *ac, uint32_t s, uint32_t v)
{
	for (uint32_t i = 0; i < ac->out_n[s]; i++)
		if (ac->out[s][i] == v)
			return;
	ac->out[s] = xrealloc(ac->out[s], (ac->out_n[s] + 1) * sizeof **ac->out);
	ac->out[s][ac->out_n[s]++] = v;
	ac->has_out[s] = 1;
}

void acmatch_add(struct acmatch *ac, const char *lit, size_t len, uint32_t value)
{
	if (len == 0 || ac->built)
		return;
	uint32_t s = 0;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)lit[i];
		if (ac->next[s][c] == UINT32_MAX) {
			uint32_t t = new_state(ac);
			ac->next[s][c] = t;
		}
		s = ac->next[s][c];
	}
	out_add(ac, s, value);
}

void acmatch_build(struct acmatch *ac)
{
	uint32_t *queue = xmalloc(ac->nstates * sizeof *queue);
	size_t qh = 0, qt = 0;
	for (int c = 0; c < 256; c++) {
		uint32_t t = ac->next[0][c];
		if (t == UINT32_MAX) {
			ac->next[0][c] = 0;
		} else {
			ac->fail[t] = 0;
			queue[qt++] = t;
		}
	}
	while (qh < qt) {
		uint32_t s = queue[qh++];
		/* merge outputs of the failure state (already complete: BFS order) */
		uint32_t f = ac->fail[s];
		for (uint32_t i = 0; i < ac->out_n[f]; i++)
			out_add(ac, s, ac->out[f][i]);
		for (int c = 0; c < 256; c++) {
			uint32_t t = ac->next[s][c];
			if (t == UINT32_MAX) {
				ac->next[s][c] = ac->next[f][c];
			} else {
				ac->fail[t] = ac->next[f][c];
				queue[qt++] = t;
			}
		}
	}
	free(queue);
	ac->built = 1;
}

void acmatch_free(struct acmatch *ac)
{
	if (!ac)
		return;
	for (size_t i = 0; i < ac->nstates; i++)
		free(ac->out[i]);
	free(ac->out);
	free(ac->out_n);
	free(ac->has_out);
	free(ac->next);
	free(ac->fail);
	free(ac);
}

void acmatch_search(const struct acmatch *ac, const char *s, size_t n,
                    void (*hit)(void *ctx, uint32_t value), void *ctx)
{
	uint32_t st = 0;
	const unsigned char *p = (const unsigned char *)s;
	for (size_t i = 0; i < n; i++) {
		st = ac->next[st][p[i]];
		if (ac->has_out[st])
			for (uint32_t k = 0; k < ac->out_n[st]; k++)
				hit(ctx, ac->out[st][k]);
	}
}

size_t acmatch_states(const struct acmatch *ac)
{
	return ac->nstates;
}
