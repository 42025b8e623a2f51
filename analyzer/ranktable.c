/* ranktable.c - see ranktable.h. */
#include "ranktable.h"

#include <stdlib.h>
#include <string.h>

#include "bundle.h"
#include "ranks.h"
#include "util.h"

#define ROWS_MAX 64
#define ERR_WIDTH 70

static int cmp_rank(const void *a, const void *b)
{
	const struct rank_proc *x = *(const struct rank_proc *const *)a, *y = *(const struct rank_proc *const *)b;
	unsigned rx = (unsigned)x->rank, ry = (unsigned)y->rank; /* unknown (-1) last */
	if (rx != ry)
		return rx < ry ? -1 : 1;
	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

static const struct rank_proc **sorted(const struct ranks *r)
{
	const struct rank_proc **v = xmalloc((r->n + 1) * sizeof *v);
	for (size_t i = 0; i < r->n; i++)
		v[i] = &r->v[i];
	qsort(v, r->n, sizeof *v, cmp_rank);
	return v;
}

static char *col_rank(const struct rank_proc *p)
{
	return p->rank >= 0 ? xasprintf("%d%s", p->rank, p->first_failure ? "*" : "") :
	                      xstrdup(p->first_failure ? "?*" : "?");
}

static char *col_host(const struct rank_proc *p)
{
	const char *h = p->host ? p->host : p->launcher_host ? p->launcher_host : "?";
	/* host names come raw from log prefixes: no control bytes on a terminal */
	char *hs = str_sanitize(h, strlen(h));
	char *s = p->pid >= 0 ? xasprintf("%s:%ld", hs, p->pid) : xstrdup(hs);
	free(hs);
	return s;
}

static char *col_gpu(const struct rank_proc *p)
{
	if (p->cuda_dev >= 0 && p->bus_id) {
		char *b = str_sanitize(p->bus_id, strlen(p->bus_id));
		char *s = xasprintf("%d (%s)", p->cuda_dev, b);
		free(b);
		return s;
	}
	if (p->cuda_dev >= 0)
		return xasprintf("%d", p->cuda_dev);
	return xstrdup("-");
}

static char *col_milestone(const struct rank_proc *p)
{
	const char *m = rank_proc_milestone(p);
	if (p->wd_where.path && p->wd_seq >= 0)
		return xasprintf("%s (timeout SeqNum %ld %s)", m, p->wd_seq, p->wd_op ? p->wd_op : "");
	if (p->last_enqueued > -2)
		return xasprintf("%s (SeqNum %ld)", m, p->last_enqueued);
	return xstrdup(m);
}

static char *col_error(const struct rank_proc *p, size_t width)
{
	const char *t = p->first_error.text;
	if (!t)
		return xstrdup("-");
	/* drop a glog header "[E1130 14:19:17.71 File.cpp:689] " and "[Rank N] " */
	if (t[0] == '[' && t[1] && t[2] >= '0' && t[2] <= '9') {
		const char *e = strstr(t, "] ");
		if (e)
			t = e + 2;
	}
	if (strncmp(t, "[Rank ", 6) == 0) {
		const char *e = strstr(t, "] ");
		if (e)
			t = e + 2;
	}
	size_t n = strlen(t);
	if (n <= width)
		return xstrdup(t);
	/* cut on a UTF-8 boundary */
	size_t k = width - 3;
	while (k > 0 && ((unsigned char)t[k] & 0xC0) == 0x80)
		k--;
	return xasprintf("%.*s...", (int)k, t);
}

static char *col_exit(const struct rank_proc *p)
{
	if (p->has_exit) {
		const char *sn = p->exitcode < 0 ? ranks_signal_name(-p->exitcode) : NULL;
		return xasprintf("%d%s%s%s", p->exitcode, sn ? " " : "", sn ? sn : "",
		                 p->root_cause ? " (launcher: first)" : "");
	}
	if (p->sigterm_sent)
		return xstrdup("SIGTERM sent");
	if (p->saw_destroy)
		return xstrdup("destroyed");
	if (p->saw_abort)
		return xstrdup("aborted");
	return xstrdup("-");
}

struct row {
	char *c[6];
};

static void rows_make(const struct ranks *r, struct row *rows, size_t n, const struct rank_proc **v, size_t ew)
{
	for (size_t i = 0; i < n; i++) {
		rows[i].c[0] = col_rank(v[i]);
		rows[i].c[1] = col_host(v[i]);
		rows[i].c[2] = col_gpu(v[i]);
		rows[i].c[3] = col_milestone(v[i]);
		rows[i].c[4] = col_error(v[i], ew);
		rows[i].c[5] = col_exit(v[i]);
	}
	(void)r;
}

static void rows_free(struct row *rows, size_t n)
{
	for (size_t i = 0; i < n; i++)
		for (int k = 0; k < 6; k++)
			free(rows[i].c[k]);
}

static const char *const HEAD[6] = {"rank", "host:pid", "GPU", "last milestone", "first error", "exit"};

/* Display width: count UTF-8 lead bytes. */
static size_t width(const char *s)
{
	size_t w = 0;
	for (; *s; s++)
		w += ((unsigned char)*s & 0xC0) != 0x80;
	return w;
}

void rank_table_text(FILE *out, const struct bundle *b, int color)
{
	const struct ranks *r = b->ranks;
	if (!r || r->n == 0)
		return;
	const struct rank_proc **v = sorted(r);
	size_t n = r->n < ROWS_MAX ? r->n : ROWS_MAX;
	struct row *rows = xcalloc(n + 1, sizeof *rows);
	rows_make(r, rows, n, v, ERR_WIDTH);
	size_t w[6];
	for (int k = 0; k < 6; k++) {
		w[k] = width(HEAD[k]);
		for (size_t i = 0; i < n; i++)
			if (width(rows[i].c[k]) > w[k])
				w[k] = width(rows[i].c[k]);
	}
	fprintf(out, "\n%sRanks%s (* = failed first):\n", color ? "\033[1m" : "", color ? "\033[0m" : "");
	fprintf(out, "   %s", color ? "\033[2m" : "");
	for (int k = 0; k < 6; k++)
		fprintf(out, "%s%-*s", k ? "  " : "", k == 5 ? 0 : (int)w[k], HEAD[k]);
	fprintf(out, "%s\n", color ? "\033[0m" : "");
	for (size_t i = 0; i < n; i++) {
		int bad = v[i]->first_failure;
		fprintf(out, "   %s", bad && color ? "\033[31m" : "");
		for (int k = 0; k < 6; k++) {
			const char *s = rows[i].c[k];
			size_t pad = k == 5 ? 0 : w[k] - width(s);
			fprintf(out, "%s%s%*s", k ? "  " : "", s, (int)pad, "");
		}
		fprintf(out, "%s\n", bad && color ? "\033[0m" : "");
	}
	if (r->n > n)
		fprintf(out, "   (%zu more processes; see --format json)\n", r->n - n);
	for (size_t c = 0; c < r->ncomms && r->ncomms > 1; c++)
		fprintf(out, "   communicator %s: %d ranks, %zu seen\n", r->comms[c].id, r->comms[c].nranks, r->comms[c].n);
	rows_free(rows, n);
	free(rows);
	free(v);
}

static void md_cell(FILE *out, const char *s)
{
	fputc(' ', out);
	for (; *s; s++) {
		if (*s == '|' || *s == '\\' || *s == '`' || *s == '*' || *s == '_' || *s == '<' || *s == '>' || *s == '[' ||
		    *s == ']')
			fputc('\\', out);
		fputc(*s, out);
	}
	fputs(" |", out);
}

void rank_table_md(FILE *out, const struct bundle *b)
{
	const struct ranks *r = b->ranks;
	if (!r || r->n == 0)
		return;
	const struct rank_proc **v = sorted(r);
	size_t n = r->n < ROWS_MAX ? r->n : ROWS_MAX;
	struct row *rows = xcalloc(n + 1, sizeof *rows);
	rows_make(r, rows, n, v, 120);
	fprintf(out, "**Ranks** (\\* = failed first)\n\n|");
	for (int k = 0; k < 6; k++)
		fprintf(out, " %s |", HEAD[k]);
	fprintf(out, "\n|");
	for (int k = 0; k < 6; k++)
		fprintf(out, "---|");
	fprintf(out, "\n");
	for (size_t i = 0; i < n; i++) {
		fputc('|', out);
		for (int k = 0; k < 6; k++)
			md_cell(out, rows[i].c[k]);
		fputc('\n', out);
	}
	if (r->n > n)
		fprintf(out, "\n(%zu more processes; see the JSON report)\n", r->n - n);
	fprintf(out, "\n");
	rows_free(rows, n);
	free(rows);
	free(v);
}
