/* frtable.c - see frtable.h.  Rows: the lanes of the section (the culprits
 * first, then ranks waiting, then ranks that completed the stop), each with
 * what it shows at the stop and its last entry. */
#include "report/frtable.h"

#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "base/util.h"
#include "parse/flight.h"
#include "report/ranktable.h"

#define ROWS 8

static const cJSON *main_stop(const cJSON *fr)
{
	const cJSON *s, *best = NULL;
	cJSON_ArrayForEach(s, json_get(fr, "stops")) {
		const char *k = json_str(s, "kind");
		if (!k || strcmp(k, "collective"))
			continue;
		if (!best || (json_size(json_get(s, "behind")) && !json_size(json_get(best, "behind"))))
			best = s;
	}
	return best ? best : cJSON_GetArrayItem(json_get(fr, "stops"), 0);
}

/* "all_reduce #7 (scheduled)" */
static char *call_short(const cJSON *c)
{
	double seq = -1;
	const char *kind = json_get(c, "p2p_seq") ? "p2p #" : "#";
	if (!json_num(c, "seq", &seq))
		json_num(c, "p2p_seq", &seq);
	const char *op = json_str(c, "op"), *st = json_str(c, "state");
	return xasprintf("%s %s%.0f (%s)", op ? op : "?", kind, seq, st ? st : "?");
}

static char *where_short(const cJSON *c)
{
	const char *w = json_str(c, "where");
	return w ? flight_where_short(w) : xstrdup("-");
}

struct frrow {
	char *rank, *role, *last, *where;
};

/* The rows of the lanes: rank, its role at the stop, its last entry, where. */
static size_t rows_of(const cJSON *fr, struct frrow *rows, size_t max)
{
	size_t n = 0;
	const cJSON *l;
	cJSON_ArrayForEach(l, json_get(fr, "lanes")) {
		if (n == max)
			break;
		double rk = -1;
		json_num(l, "rank", &rk);
		const cJSON *calls = json_get(l, "calls");
		const cJSON *last = cJSON_GetArrayItem(calls, json_size(calls) - 1);
		const char *role = json_str(l, "role");
		rows[n].rank = xasprintf("%.0f", rk);
		rows[n].role = xstrdup(role ? role : "-");
		rows[n].last = last ? call_short(last) : xstrdup("-");
		rows[n].where = last ? where_short(last) : xstrdup("-");
		n++;
	}
	return n;
}

static void rows_free(struct frrow *rows, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(rows[i].rank);
		free(rows[i].role);
		free(rows[i].last);
		free(rows[i].where);
	}
}

static char *versions(const cJSON *fr)
{
	struct buf b;
	buf_init(&b);
	const cJSON *v;
	cJSON_ArrayForEach(v, json_get(fr, "versions"))
		buf_printf(&b, "%s%s", b.len ? ", " : "", cJSON_IsString(v) ? v->valuestring : "?");
	return buf_steal(&b);
}

void flight_table_text(FILE *out, const cJSON *bundle, int color)
{
	const cJSON *fr = json_get(bundle, "flight_recorder");
	if (!fr)
		return;
	const char *B = color ? "\033[1m" : "", *R = color ? "\033[0m" : "";
	double nd = 0;
	json_num(fr, "dumps_read", &nd);
	char *ver = versions(fr);
	fprintf(out, "%sFlight recorder%s (%.0f dump%s read, format %s", B, R, nd, nd == 1 ? "" : "s", *ver ? ver : "?");
	int nu = json_size(json_get(fr, "dumps_not_read")), nm = json_size(json_get(fr, "ranks_without_dump"));
	if (nu)
		fprintf(out, "; %d not read, see warnings", nu);
	if (nm)
		fprintf(out, "; %d rank%s without a dump", nm, nm == 1 ? "" : "s");
	fputs("):\n", out);
	free(ver);
	const char *h = json_str(fr, "headline");
	if (h)
		fprintf(out, "   %s\n", h);
	const cJSON *s = main_stop(fr);
	if (s) {
		char *c = call_short(json_get(s, "call"));
		fprintf(out, "   stop: %s of process group %s\n", c, json_str(s, "process_group") ? json_str(s, "process_group") : "?");
		free(c);
	}
	struct frrow rows[ROWS];
	size_t n = rows_of(fr, rows, ROWS);
	if (n) {
		fprintf(out, "   %-6s %-10s %-44s %s\n", "rank", "at stop", "last entry", "where");
		for (size_t i = 0; i < n; i++)
			fprintf(out, "   %-6s %-10s %-44s %s\n", rows[i].rank, rows[i].role, rows[i].last, rows[i].where);
	}
	int total = json_size(json_get(fr, "dumps"));
	if ((size_t)total > n && n)
		fprintf(out, "   (%zu more ranks in the JSON report)\n", (size_t)total - n);
	rows_free(rows, n);
	fputc('\n', out);
}

void flight_table_md(FILE *out, const cJSON *bundle)
{
	const cJSON *fr = json_get(bundle, "flight_recorder");
	if (!fr)
		return;
	double nd = 0;
	json_num(fr, "dumps_read", &nd);
	char *ver = versions(fr);
	fprintf(out, "### Flight recorder\n\n%.0f dump%s read (format %s)", nd, nd == 1 ? "" : "s", *ver ? ver : "?");
	int nm = json_size(json_get(fr, "ranks_without_dump"));
	if (nm)
		fprintf(out, ", %d rank%s without a dump", nm, nm == 1 ? "" : "s");
	fputs(".", out);
	free(ver);
	const char *h = json_str(fr, "headline");
	if (h) {
		fputs(" **", out);
		for (const char *p = h; *p; p++) { /* the headline as plain text */
			if (strchr("\\`*_<>[]|#", *p))
				fputc('\\', out);
			fputc(*p, out);
		}
		fputs("**", out);
	}
	fputs("\n\n", out);
	struct frrow rows[ROWS];
	size_t n = rows_of(fr, rows, ROWS);
	if (n) {
		fputs("| rank | at the stop | last entry | where |\n|---|---|---|---|\n", out);
		for (size_t i = 0; i < n; i++) {
			fputc('|', out);
			ranktable_md_cell(out, rows[i].rank);
			ranktable_md_cell(out, rows[i].role);
			ranktable_md_cell(out, rows[i].last);
			ranktable_md_cell(out, rows[i].where);
			fputc('\n', out);
		}
		fputc('\n', out);
	}
	rows_free(rows, n);
}

static const char *state_class(const char *st)
{
	if (!st)
		return "fr-u";
	return !strcmp(st, "completed") ? "fr-c" : !strcmp(st, "started") ? "fr-s" : !strcmp(st, "scheduled") ? "fr-q" : "fr-u";
}

void flight_lanes_html(FILE *f, const cJSON *bundle, void (*esc)(FILE *, const char *))
{
	const cJSON *fr = json_get(bundle, "flight_recorder");
	if (!fr)
		return;
	/* scoped styles: lanes wrap, so a phone (390 px) reads them without scrolling sideways */
	fputs("<style>.fr-lane{display:flex;flex-wrap:wrap;align-items:center;gap:4px;margin:4px 0;padding:4px 0;"
	      "border-bottom:1px solid var(--line)}.fr-who{flex:0 0 7.5em;font-weight:600}.fr-call{border:1px solid "
	      "var(--line);border-radius:4px;padding:1px 6px;font-size:.85em;white-space:nowrap;max-width:100%;"
	      "overflow:hidden;text-overflow:ellipsis}.fr-c{background:#e6f4ea}.fr-s{background:#fff3d6}"
	      ".fr-q{background:#eceff1}.fr-u{background:#fff}.fr-stop{outline:3px solid var(--red);font-weight:700}"
	      ".fr-behind .fr-who{color:var(--red)}@media (prefers-color-scheme:dark){.fr-c{background:#1d3a24}"
	      ".fr-s{background:#3d3115}.fr-q{background:#2a3038}.fr-u{background:#14181d}}</style>\n", f);
	fputs("<h2>Flight recorder</h2>\n", f);
	const char *h = json_str(fr, "headline");
	if (h) {
		fputs("<p><b>", f);
		esc(f, h);
		fputs("</b></p>\n", f);
	}
	const cJSON *s = main_stop(fr);
	if (s) {
		char *c = call_short(json_get(s, "call"));
		fputs("<p class=\"sub\">stop: ", f);
		esc(f, c);
		fputs(" of process group ", f);
		esc(f, json_str(s, "process_group") ? json_str(s, "process_group") : "?");
		fputs(" (outlined below); green completed, yellow started, grey scheduled</p>\n", f);
		free(c);
	}
	const cJSON *l;
	cJSON_ArrayForEach(l, json_get(fr, "lanes")) {
		double rk = -1;
		json_num(l, "rank", &rk);
		const char *role = json_str(l, "role");
		fprintf(f, "<div class=\"fr-lane%s\"><span class=\"fr-who\">rank %.0f", role && !strcmp(role, "behind") ? " fr-behind" : "",
		        rk);
		if (role) {
			fputs(" <span class=\"sub\">", f);
			esc(f, role);
			fputs("</span>", f);
		}
		fputs("</span>", f);
		const cJSON *c;
		cJSON_ArrayForEach(c, json_get(l, "calls")) {
			char *t = call_short(c), *w = where_short(c);
			fprintf(f, "<span class=\"fr-call %s%s\" title=\"", state_class(json_str(c, "state")),
			        cJSON_IsTrue(json_get(c, "stop")) ? " fr-stop" : "");
			esc(f, t);
			fputs(" at ", f);
			esc(f, w);
			fputs("\">", f);
			esc(f, t);
			fputs("</span>", f);
			free(t);
			free(w);
		}
		fputs("</div>\n", f);
	}
	const cJSON *m;
	int nm = 0;
	cJSON_ArrayForEach(m, json_get(fr, "mismatches")) {
		if (!cJSON_IsTrue(json_get(m, "first_in_group")))
			continue;
		fputs(nm++ ? "<li>" : "<p>Mismatches (the first of each process group):</p><ul><li>", f);
		esc(f, json_str(m, "detail"));
		fputs("</li>", f);
	}
	if (nm)
		fputs("</ul>\n", f);
}
