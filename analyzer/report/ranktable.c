/* ranktable.c - see ranktable.h. */
#include "report/ranktable.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "base/util.h"

#define ROWS_MAX 64
#define ERR_WIDTH 70

/* One row of "ranks" in the report document (ranks_to_json). */
static int num(const cJSON *o, const char *k, double dflt)
{
	double v;
	return json_num(o, k, &v) ? (int)v : (int)dflt;
}

static long lnum(const cJSON *o, const char *k, long dflt)
{
	double v;
	return json_num(o, k, &v) ? (long)v : dflt;
}

static int flag(const cJSON *o, const char *k)
{
	return cJSON_IsTrue(json_get(o, k));
}

/* By rank (unknown -1 last), then pid. */
static int cmp_rank(const void *a, const void *b)
{
	const cJSON *x = *(const cJSON *const *)a, *y = *(const cJSON *const *)b;
	unsigned rx = (unsigned)num(x, "rank", -1), ry = (unsigned)num(y, "rank", -1);
	if (rx != ry)
		return rx < ry ? -1 : 1;
	long px = lnum(x, "pid", -1), py = lnum(y, "pid", -1);
	return px < py ? -1 : px > py;
}

static const cJSON **sorted(const cJSON *ranks, size_t *n)
{
	*n = (size_t)json_size(ranks);
	const cJSON **v = xmalloc((*n + 1) * sizeof *v);
	size_t i = 0;
	const cJSON *p;
	cJSON_ArrayForEach(p, ranks) v[i++] = p;
	xqsort(v, *n, sizeof *v, cmp_rank);
	return v;
}

static char *col_rank(const cJSON *p)
{
	int rank = num(p, "rank", -1), first = flag(p, "failed_first");
	return rank >= 0 ? xasprintf("%d%s", rank, first ? "*" : "") : xstrdup(first ? "?*" : "?");
}

static char *col_host(const cJSON *p)
{
	const char *h = json_str(p, "host");
	if (!h)
		h = "?";
	/* host names come raw from log prefixes: no control bytes on a terminal */
	char *hs = str_sanitize(h, strlen(h));
	long pid = lnum(p, "pid", -1);
	char *s = pid >= 0 ? xasprintf("%s:%ld", hs, pid) : xstrdup(hs);
	free(hs);
	return s;
}

static char *col_gpu(const cJSON *p)
{
	int dev = num(p, "cuda_dev", -1);
	const char *bus = json_str(p, "bus_id");
	if (dev >= 0 && bus) {
		char *b = str_sanitize(bus, strlen(bus));
		char *s = xasprintf("%d (%s)", dev, b);
		free(b);
		return s;
	}
	if (dev >= 0)
		return xasprintf("%d", dev);
	return xstrdup("-");
}

static char *col_milestone(const cJSON *p)
{
	const char *m = json_str(p, "last_milestone");
	if (!m)
		m = "?";
	const cJSON *w = json_get(p, "watchdog");
	const char *op = json_str(w, "op");
	if (flag(w, "timed_out") && lnum(w, "seq", -1) >= 0)
		return xasprintf("%s (timeout SeqNum %ld %s)", m, lnum(w, "seq", -1), op ? op : "");
	if (json_get(w, "last_enqueued"))
		return xasprintf("%s (SeqNum %ld)", m, lnum(w, "last_enqueued", -1));
	return xstrdup(m);
}

static char *col_error(const cJSON *p, size_t width)
{
	const char *t = json_str(p, "first_error");
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

static char *col_exit(const cJSON *p)
{
	const cJSON *e = json_get(p, "exit");
	if (json_get(e, "code")) {
		int code = num(e, "code", 0);
		const char *sn = json_str(e, "signal_name");
		return xasprintf("%d%s%s%s", code, sn ? " " : "", sn ? sn : "",
		                 flag(e, "launcher_root_cause") ? " (launcher: first)" : "");
	}
	if (flag(e, "sigterm_from_launcher"))
		return xstrdup("SIGTERM sent");
	const cJSON *ms = json_get(p, "milestones");
	if (flag(ms, "destroyed"))
		return xstrdup("destroyed");
	if (flag(ms, "aborted"))
		return xstrdup("aborted");
	return xstrdup("-");
}

struct row {
	char *c[6];
};

static void rows_make(struct row *rows, size_t n, const cJSON **v, size_t ew)
{
	for (size_t i = 0; i < n; i++) {
		rows[i].c[0] = col_rank(v[i]);
		rows[i].c[1] = col_host(v[i]);
		rows[i].c[2] = col_gpu(v[i]);
		rows[i].c[3] = col_milestone(v[i]);
		rows[i].c[4] = col_error(v[i], ew);
		rows[i].c[5] = col_exit(v[i]);
	}
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

void rank_table_text(FILE *out, const cJSON *bundle, int color)
{
	size_t total;
	const cJSON **v = sorted(json_get(bundle, "ranks"), &total);
	if (total == 0) {
		free(v);
		return;
	}
	size_t n = total < ROWS_MAX ? total : ROWS_MAX;
	struct row *rows = xcalloc(n + 1, sizeof *rows);
	rows_make(rows, n, v, ERR_WIDTH);
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
		int bad = flag(v[i], "failed_first");
		fprintf(out, "   %s", bad && color ? "\033[31m" : "");
		for (int k = 0; k < 6; k++) {
			const char *s = rows[i].c[k];
			size_t pad = k == 5 ? 0 : w[k] - width(s);
			fprintf(out, "%s%s%*s", k ? "  " : "", s, (int)pad, "");
		}
		fprintf(out, "%s\n", bad && color ? "\033[0m" : "");
	}
	if (total > n)
		fprintf(out, "   (%zu more processes; see --format json)\n", total - n);
	const cJSON *comms = json_get(bundle, "communicators"), *cm;
	if (json_size(comms) > 1)
		cJSON_ArrayForEach(cm, comms)
			fprintf(out, "   communicator %s: %d ranks, %d seen\n", json_str(cm, "comm_id") ? json_str(cm, "comm_id") : "?",
			        num(cm, "nranks", 0), json_size(json_get(cm, "ranks_seen")));
	rows_free(rows, n);
	free(rows);
	free(v);
}

/* A cell of log text: Markdown escaped, and "@name" / "#123" broken with a
 * zero-width space so that a ticket reply notifies nobody and links no
 * issue (report_md.c does the same). */
static void md_cell(FILE *out, const char *s)
{
	fputc(' ', out);
	for (const char *p = s; *p; p++) {
		if (*p == '|' || *p == '\\' || *p == '`' || *p == '*' || *p == '_' || *p == '<' || *p == '>' || *p == '[' ||
		    *p == ']')
			fputc('\\', out);
		fputc(*p, out);
		if ((*p == '@' && (isalnum((unsigned char)p[1]) || p[1] == '-')) || (*p == '#' && isdigit((unsigned char)p[1])))
			fputs("\xe2\x80\x8b", out); /* U+200B */
	}
	fputs(" |", out);
}

void ranktable_md_cell(FILE *out, const char *s)
{
	md_cell(out, s);
}

void rank_table_md(FILE *out, const cJSON *bundle)
{
	size_t total;
	const cJSON **v = sorted(json_get(bundle, "ranks"), &total);
	if (total == 0) {
		free(v);
		return;
	}
	size_t n = total < ROWS_MAX ? total : ROWS_MAX;
	struct row *rows = xcalloc(n + 1, sizeof *rows);
	rows_make(rows, n, v, 120);
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
	if (total > n)
		fprintf(out, "\n(%zu more processes; see the JSON report)\n", total - n);
	fprintf(out, "\n");
	rows_free(rows, n);
	free(rows);
	free(v);
}
