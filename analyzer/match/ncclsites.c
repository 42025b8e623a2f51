/* ncclsites.c - see ncclsites.h.  The table is small (6500 rows) and looked
 * up a few times per bundle: rows are kept in file order and scanned. */
#include "match/ncclsites.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct site {
	char *file;
	int line;
	char *start;              /* the format's literal start */
	size_t start_len;
	uint64_t mask[2];
};

struct ncclsites {
	struct strvec releases;
	struct site *v;
	size_t n;
};

static int release_index(const struct ncclsites *s, const char *r, size_t n)
{
	for (size_t i = 0; i < s->releases.n; i++)
		if (strlen(s->releases.v[i]) == n && memcmp(s->releases.v[i], r, n) == 0)
			return (int)i;
	return -1;
}

/* "2.6.4-2.7.8 2.9.9" into mask; 0 when a token is no release of the header */
static int parse_runs(const struct ncclsites *s, char *runs, uint64_t mask[2])
{
	mask[0] = mask[1] = 0;
	char *save = NULL;
	for (char *tok = strtok_r(runs, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
		char *dash = strchr(tok, '-');
		int a = release_index(s, tok, dash ? (size_t)(dash - tok) : strlen(tok));
		int b = dash ? release_index(s, dash + 1, strlen(dash + 1)) : a;
		if (a < 0 || b < a)
			return 0;
		for (int i = a; i <= b; i++)
			mask[i / 64] |= (uint64_t)1 << (i % 64);
	}
	return 1;
}

static int add_row(struct ncclsites *s, char *line)
{
	char *f[4];
	int k = 0;
	for (char *p = line; k < 4; k++) {
		f[k] = p;
		char *tab = strchr(p, '\t');
		if (!tab && k < 3)
			return 0;
		if (tab)
			*tab = 0;
		p = tab ? tab + 1 : p + strlen(p);
	}
	char *end = NULL;
	long ln = strtol(f[1], &end, 10);
	if (!*f[0] || *end || ln <= 0 || ln > 1000000 || strlen(f[2]) < 4)
		return 0;
	struct site st = {xstrdup(f[0]), (int)ln, xstrdup(f[2]), strlen(f[2]), {0, 0}};
	if (!parse_runs(s, f[3], st.mask)) {
		free(st.file);
		free(st.start);
		return 0;
	}
	s->v = xrealloc(s->v, (s->n + 1) * sizeof *s->v);
	s->v[s->n++] = st;
	return 1;
}

struct ncclsites *ncclsites_load(const char *path, struct msgs *m)
{
	FILE *fp = fopen(path, "rb");
	if (!fp) {
		msgs_add(m, "%s: cannot read: %s", path, strerror(errno));
		return NULL;
	}
	struct ncclsites *s = xcalloc(1, sizeof *s);
	char *line = NULL;
	size_t cap = 0, lineno = 0;
	ssize_t len;
	int bad = 0;
	while (!bad && (len = getline(&line, &cap, fp)) >= 0) {
		lineno++;
		while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = 0;
		if ((size_t)len != strlen(line)) {
			bad = 1;
		} else if (str_starts(line, "# releases:")) {
			char *save = NULL;
			for (char *tok = strtok_r(line + 11, " ", &save); tok; tok = strtok_r(NULL, " ", &save))
				if (s->releases.n < NCCLSITES_MAX_RELEASES)
					strvec_push(&s->releases, tok);
		} else if (len && line[0] != '#' && !add_row(s, line)) {
			bad = 1;
		}
	}
	free(line);
	fclose(fp);
	if (bad || !s->releases.n) {
		msgs_add(m, "%s:%zu: not a table of NCCL's WARN sites (scripts/nccl_sites.py)", path, lineno);
		ncclsites_free(s);
		return NULL;
	}
	return s;
}

void ncclsites_free(struct ncclsites *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n; i++) {
		free(s->v[i].file);
		free(s->v[i].start);
	}
	free(s->v);
	strvec_free(&s->releases);
	free(s);
}

size_t ncclsites_nreleases(const struct ncclsites *s)
{
	return s ? s->releases.n : 0;
}

const char *ncclsites_release(const struct ncclsites *s, size_t i)
{
	return s && i < s->releases.n ? s->releases.v[i] : NULL;
}

int ncclsites_lookup(const struct ncclsites *s, const char *file, size_t flen, int line, const char *msg, size_t mlen,
                     uint64_t mask[2])
{
	mask[0] = mask[1] = 0;
	int hit = 0;
	for (size_t i = 0; s && i < s->n; i++) {
		const struct site *st = &s->v[i];
		if (st->line != line || strlen(st->file) != flen || memcmp(st->file, file, flen) != 0)
			continue;
		if (mlen < st->start_len || memcmp(msg, st->start, st->start_len) != 0)
			continue;
		mask[0] |= st->mask[0];
		mask[1] |= st->mask[1];
		hit = 1;
	}
	return hit;
}
