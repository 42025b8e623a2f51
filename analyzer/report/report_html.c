/* report_html.c - one self-contained HTML page per report: inline CSS,
 * inline SVG, no script, no external asset (a Content-Security-Policy of
 * default-src 'none' makes the browser refuse any request), printable.
 *
 * Rendered from the JSON document (report_json), so every section appears
 * as soon as its data is there: verdict and top cause first, diagnoses with
 * evidence (cascades folded under their root), rank timeline, topology grid,
 * memory chart with the OOM arithmetic, versions, environment, next steps,
 * inputs and warnings.  All text that comes from logs goes through esc().
 * Reads the cJSON it is given (borrowed); owns nothing it returns. */
#include "report/report_formats.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/json.h"
#include "engine/hypotheses.h" /* confidence_word */
#include "report/frtable.h" /* flight recorder */
#include "base/linkclass.h"
#include "report/report.h" /* verify_env_arg */
#include "base/tstamp.h"
#include "base/util.h"

#define HTML_MAX_LANES 64
#define HTML_MAX_GPUS 64
#define HTML_MAX_POINTS 600
#define HTML_MAX_EVIDENCE 8
#define HTML_MAX_ENV 200

/* ---- small JSON and text helpers ---- */

/* A value that is a string, or an object carrying "value"/"version". */
static const char *jtext(const cJSON *v)
{
	if (cJSON_IsString(v))
		return v->valuestring;
	const char *s = json_str(v, "value");
	if (!s)
		s = json_str(v, "version");
	return s;
}

static void escn(FILE *f, const char *s, size_t n)
{
	for (size_t i = 0; i < n && s[i]; i++) {
		switch (s[i]) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&#39;", f); break;
		default:
			if ((unsigned char)s[i] < 0x20 && s[i] != '\t' && s[i] != '\n')
				fputc('?', f);
			else
				fputc(s[i], f);
		}
	}
}

static void esc(FILE *f, const char *s)
{
	if (s)
		escn(f, s, strlen(s));
}

/* "path:line" of a source object (O's "path" and "line"), escaped; the
 * line only when positive where ONLY_POSITIVE. */
static void esc_path_line(FILE *f, const cJSON *o, int only_positive)
{
	double l = 0;
	esc(f, json_str(o, "path"));
	if (json_num(o, "line", &l) && (!only_positive || l > 0))
		fprintf(f, ":%.0f", l);
}

/* Escaped, with `backticked` parts as <code>: how fixes and explanations
 * written in the database mark commands. */
static void esc_code(FILE *f, const char *s)
{
	if (!s)
		return;
	const char *p = s;
	while (*p) {
		const char *a = strchr(p, '`');
		const char *b = a ? strchr(a + 1, '`') : NULL;
		if (!a || !b) {
			esc(f, p);
			return;
		}
		escn(f, p, (size_t)(a - p));
		fputs("<code>", f);
		escn(f, a + 1, (size_t)(b - a - 1));
		fputs("</code>", f);
		p = b + 1;
	}
}

static void fmt_mib(double mib, char *out, size_t n)
{
	if (fabs(mib) >= 1024)
		snprintf(out, n, "%.2f GiB", mib / 1024.0);
	else
		snprintf(out, n, "%.0f MiB", mib);
}

static const char *verdict_words(const char *v)
{
	if (!v)
		return "unknown";
	if (!strcmp(v, "diagnosed"))
		return "Failure diagnosed";
	if (!strcmp(v, "unknown_failure"))
		return "Failed, cause not recognised";
	if (!strcmp(v, "healthy"))
		return "Healthy";
	if (!strcmp(v, "no_evidence"))
		return "No verdict: not enough evidence";
	return v;
}

/* Plain words for the taxonomy categories (../shared/TAXONOMY.md). */
static const char *category_words(const char *c)
{
	static const struct { const char *k, *v; } t[] = {
		{"P2P_BROKEN", "GPU-to-GPU (P2P) path broken"},
		{"IB_RDMA", "InfiniBand / RDMA network"},
		{"SOCKET_NETWORK", "TCP network between ranks"},
		{"SHM_EXHAUSTED", "Shared memory (/dev/shm) too small"},
		{"GPU_OOM", "GPU out of memory"},
		{"VERSION_MISMATCH", "Incompatible versions"},
		{"COLLECTIVE_TIMEOUT", "Collective hang / timeout"},
		{"RENDEZVOUS", "Job never formed (rendezvous)"},
		{"DEVICE_ASSIGNMENT", "Ranks mapped to GPUs wrongly"},
		{"FABRIC_MANAGER", "NVSwitch Fabric Manager"},
		{"MEMLOCK_LIMITS", "Locked-memory limits"},
		{"NCCL_BUG_UPGRADE", "Known NCCL defect"},
		{"ENV_MISCONFIG", "Environment variable misconfigured"},
		{"RANK_FAILURE", "A rank died or never arrived"},
		{"CUDA_ERROR_OTHER", "GPU hardware / CUDA fault"},
		{"OTHER", "Other known cause"},
	};
	if (!c)
		return "";
	for (size_t i = 0; i < sizeof t / sizeof *t; i++)
		if (!strcmp(t[i].k, c))
			return t[i].v;
	return c;
}

/* ---- page frame ---- */

static const char CSS[] =
	":root{--fg:#1d232b;--mute:#566170;--line:#d7dde4;--bg:#fff;--soft:#f4f6f8;--red:#b3261e;--ora:#a35200;"
	"--grn:#1e7b34;--blu:#1f5fa8}\n"
	"*{box-sizing:border-box}body{font:15px/1.5 system-ui,-apple-system,'Segoe UI',Roboto,'DejaVu Sans',sans-serif;"
	"color:var(--fg);background:var(--bg);margin:0 auto;max-width:1100px;padding:24px;overflow-wrap:anywhere}\n"
	"h1{font-size:1.5em;margin:0 0 .2em}h2{font-size:1.2em;margin:1.6em 0 .5em;padding-bottom:.2em;border-bottom:1px solid var(--line)}"
	"h3{font-size:1.05em;margin:.2em 0}\n"
	"code,pre,.mono{font-family:ui-monospace,'DejaVu Sans Mono',Menlo,Consolas,monospace;font-size:.88em}\n"
	"code{background:var(--soft);padding:0 .25em;border-radius:3px}\n"
	".sub{color:var(--mute);font-size:.9em}.muted{color:var(--mute)}\n"
	".badge{display:inline-block;padding:.1em .6em;border-radius:1em;font-size:.8em;font-weight:600;color:#fff;vertical-align:middle}\n"
	".v-diagnosed,.s-error{background:#b3261e}.v-unknown_failure,.s-warning{background:#a35200}"
	".v-healthy,.s-ok{background:#1e7b34}.v-no_evidence,.s-info{background:#5f6b76}.s-cascade{background:#7a5f2f}\n"
	".hero{border:2px solid var(--line);border-left-width:8px;border-radius:8px;padding:16px 20px;margin:16px 0}\n"
	".hero.diagnosed{border-color:#e8b4b0;border-left-color:var(--red)}.hero.unknown_failure{border-color:#f0cfa8;border-left-color:var(--ora)}"
	".hero.healthy{border-color:#b5dcc0;border-left-color:var(--grn)}\n"
	".hero .cause{font-size:1.25em;font-weight:600;margin:.3em 0}\n"
	".fix{background:#eef6ee;border:1px solid #b5dcc0;border-radius:6px;padding:8px 14px;margin:.6em 0}\n"
	".fix ol{margin:.2em 0;padding-left:1.4em}.fix b{color:var(--grn)}\n"
	".card{border:1px solid var(--line);border-radius:8px;padding:12px 16px;margin:12px 0;break-inside:avoid}\n"
	".card.root{border-left:5px solid var(--red)}.card.warning{border-left:5px solid var(--ora)}.card.info{border-left:5px solid #69737d}\n"
	".ev{margin:.5em 0;border:1px solid var(--line);border-radius:6px;overflow:hidden}\n"
	".ev .loc{background:var(--soft);padding:2px 10px;font-size:.85em;color:var(--mute)}\n"
	".ev pre{margin:0;padding:6px 10px;white-space:pre-wrap;overflow-wrap:anywhere}\n"
	".ev .dtext{margin:0;padding:6px 10px;font-style:italic;overflow-wrap:anywhere}\n"
	".ln{color:var(--mute);user-select:none;display:inline-block;min-width:4.5em}.ctx{color:var(--mute)}\n"
	".hit{background:#fff3c4;display:block}.pfx{color:var(--mute)}.msg{color:var(--fg)}mark{background:#ffc107;color:#000;font-weight:700;padding:0 1px}\n"
	"td.ind{padding-left:2em}\n"
	"details{margin:.5em 0}summary{cursor:pointer;color:var(--blu)}\n"
	"table{border-collapse:collapse;margin:.5em 0;display:block;overflow-x:auto;max-width:100%}"
	"th,td{border:1px solid var(--line);padding:3px 8px;text-align:left;vertical-align:top;overflow-wrap:normal}"
	"th{background:var(--soft)}\n"
	"table.topo td,table.topo th{text-align:center;min-width:3.4em;font-family:ui-monospace,'DejaVu Sans Mono',monospace}\n"
	".l-X{background:#e3e6ea;color:#4f5a66}.l-NV{background:#2e7d32;color:#fff}.l-PIX{background:#9ccc65;color:#000}.l-PXB{background:#d4e157;color:#000}"
	".l-PHB{background:#ffca28;color:#000}.l-NODE{background:#ff8a65;color:#000}.l-SYS{background:#c62828;color:#fff}.l-other{background:#cfd8dc;color:#000}\n"
	".legend span{display:inline-block;margin:2px 10px 2px 0}.sw{display:inline-block;width:1em;height:1em;vertical-align:-2px;margin-right:4px;border:1px solid #999}\n"
	".grid2{display:flex;gap:24px;flex-wrap:wrap;align-items:flex-start}.grid2>*{min-width:0;max-width:100%}\n"
	"svg text{font-family:system-ui,'DejaVu Sans',sans-serif}\n"
	/* charts keep their size (text never under 11 px) and scroll inside their box */
	".bad{color:var(--red)}.scroll{overflow-x:auto;max-width:100%}svg.chart{max-width:none;height:auto;display:block}\n"
	"a.anchor{color:var(--mute);text-decoration:none;font-weight:400;margin-right:.2em}a.anchor:hover{color:var(--blu)}\n"
	":target{outline:2px solid var(--blu);outline-offset:2px}\n"
	/* the rank timeline on a narrow screen: each process's stages downward (timeline_narrow), not the wide SVG */
	".tl-narrow{display:none;list-style:none;padding:0;margin:.5em 0}"
	".tl-narrow>li{border:1px solid var(--line);border-radius:6px;padding:6px 10px;margin:6px 0}"
	".tl-st{list-style:none;margin:.3em 0 .2em .45em;padding:0 0 0 1.1em;border-left:2px solid var(--line);font-size:.9em}"
	".tl-st li{position:relative}.tl-st li::before{content:\"\";position:absolute;left:calc(-1.1em - 6px);top:.45em;"
	"width:10px;height:10px;border-radius:50%}"
	".tl-st li.on::before{background:var(--grn)}.tl-st li.off{color:var(--mute)}"
	".tl-st li.off::before{background:var(--bg);border:1.5px solid #9aa3ad}"
	".tl-out{margin:.2em 0 0;font-size:.9em}.tl-out.first{color:var(--red);font-weight:600}.tl-out.echo{color:#8a4a00}"
	".tl-out.ok{color:var(--grn)}\n"
	"@media (max-width:760px){.tl-wide{display:none}.tl-narrow{display:block}}\n"
	"@media (max-width:600px){body{padding:10px;font-size:14px}.hero{padding:10px 12px}.card{padding:10px}"
	".ev pre,.ev .dtext{padding:4px 6px}.ln{min-width:3em}}\n"
	/* dark scheme */
	"@media (prefers-color-scheme:dark){:root{--fg:#e6e9ed;--mute:#aab4be;--line:#3a434d;--bg:#14181d;--soft:#1e242b;"
	"--blu:#8fb4ff;--grn:#7fd18b;--red:#ff8a80}"
	"a{color:var(--blu)}.hero.diagnosed{border-color:#5c2a27;border-left-color:#e0564c}.hero.unknown_failure{border-color:#5a3f1f;border-left-color:#ffb74d}"
	".hero.healthy{border-color:#24492d;border-left-color:#7fd18b}.fix{background:#15301c;border-color:#2e6b3c}.fix b{color:#7fd18b}"
	".hit{background:#3a3310}.card.root{border-left-color:#e0564c}.card.warning{border-left-color:#ffb74d}"
	".scroll svg{background:#fff;border-radius:6px}.v-no_evidence,.s-info{background:#5f6b76}.tl-out.echo{color:#ffb74d}}\n"
	".toc a{margin-right:1em}\n"
	"footer{margin-top:2em;color:var(--mute);font-size:.85em;border-top:1px solid var(--line);padding-top:.5em}\n"
	"@media print{body{max-width:none;padding:0;font-size:11pt}details::details-content{content-visibility:visible;display:block}"
	"details>summary{color:var(--fg)}.card,.ev,svg,table{break-inside:avoid}a{color:inherit;text-decoration:none}"
	"*{-webkit-print-color-adjust:exact;print-color-adjust:exact}}\n";

static void page_begin(FILE *f, const char *title)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; "
	      "img-src data:\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
	      "<meta name=\"generator\" content=\"nccl-triage\">\n<title>",
	      f);
	esc(f, title);
	fprintf(f, "</title>\n<style>\n%s</style>\n</head>\n<body>\n", CSS);
}

static void page_end(FILE *f, const cJSON *doc)
{
	const cJSON *tool = json_get(doc, "tool"), *db = json_get(doc, "db");
	fputs("<footer>Generated by ", f);
	esc(f, json_str(tool, "name") ? json_str(tool, "name") : "nccl-triage");
	if (json_str(tool, "version")) {
		fputc(' ', f);
		esc(f, json_str(tool, "version"));
	}
	if (db) {
		double n = 0;
		fputs(" · signature database ", f);
		esc(f, json_str(db, "version"));
		if (json_num(db, "signatures", &n))
			fprintf(f, " (%.0f signatures", n);
		if (json_num(db, "diagnoses", &n))
			fprintf(f, ", %.0f diagnoses)", n);
		else
			fputs(")", f);
	}
	if (json_get(doc, "redacted") && cJSON_IsTrue(json_get(doc, "redacted")))
		fputs(" · host names, addresses, user names, GPU UUIDs and bus IDs replaced by pseudonyms", f);
	fputs(". This page is self-contained: it loads nothing from the network.</footer>\n</body>\n</html>\n", f);
}

/* ---- evidence ---- */

struct span {
	size_t a, b;
};

static int span_cmp(const void *x, const void *y)
{
	const struct span *p = x, *q = y;
	return p->a < q->a ? -1 : p->a > q->a;
}

/* Where the message starts after a log prefix (NCCL "host:pid:tid [d] ...
 * NCCL WARN ", torch "[rank0]: "), or 0. */
static size_t message_start(const char *t)
{
	static const char *marks[] = {"NCCL WARN ", "NCCL INFO ", "NCCL ERROR ", "NCCL TRACE ", "NCCL ABORT "};
	for (size_t i = 0; i < sizeof marks / sizeof *marks; i++) {
		const char *p = strstr(t, marks[i]);
		if (p) {
			p += strlen(marks[i]);
			/* skip a "file.cc:123 " source position */
			const char *q = p;
			while (*q && !isspace((unsigned char)*q))
				q++;
			if (q > p && q[-1] >= '0' && q[-1] <= '9' && memchr(p, ':', (size_t)(q - p)) && memchr(p, '.', (size_t)(q - p)))
				p = *q ? q + 1 : q;
			return (size_t)(p - t);
		}
	}
	if (t[0] == '[' && strncmp(t, "[rank", 5) == 0) {
		const char *p = strstr(t, "]: ");
		if (p)
			return (size_t)(p + 3 - t);
	}
	return 0;
}

static int utf8_boundary(const char *t, size_t n, size_t i)
{
	return i == n || (i < n && ((unsigned char)t[i] & 0xc0) != 0x80);
}

/* The evidence line: prefix dimmed, message bold, captured values marked
 * where PCRE2 captured them (spans.captures: byte offsets into the text,
 * issue 15.3), never by searching the text for the value. */
static void evidence_line(FILE *f, const char *t, const cJSON *e)
{
	size_t n = strlen(t), ms = message_start(t);
	struct span sp[16];
	size_t ns = 0;
	const cJSON *c;
	cJSON_ArrayForEach(c, json_get(json_get(e, "spans"), "captures")) {
		const cJSON *a = cJSON_GetArrayItem(c, 0), *z = cJSON_GetArrayItem(c, 1);
		if (ns >= 16 || !cJSON_IsNumber(a) || !cJSON_IsNumber(z) || a->valuedouble < 0 || z->valuedouble > (double)n ||
		    a->valuedouble >= z->valuedouble)
			continue;
		size_t x = (size_t)a->valuedouble, y = (size_t)z->valuedouble;
		if (utf8_boundary(t, n, x) && utf8_boundary(t, n, y))
			sp[ns++] = (struct span){x, y};
	}
	xqsort(sp, ns, sizeof *sp, span_cmp);
	size_t pos = 0, k = 0;
	if (ms) {
		fputs("<span class=\"pfx\">", f);
		escn(f, t, ms);
		fputs("</span>", f);
		pos = ms;
		while (k < ns && sp[k].a < ms)
			k++;
	}
	fputs("<span class=\"msg\">", f);
	for (; k < ns; k++) {
		if (sp[k].a < pos)
			continue;
		escn(f, t + pos, sp[k].a - pos);
		fputs("<mark>", f);
		escn(f, t + sp[k].a, sp[k].b - sp[k].a);
		fputs("</mark>", f);
		pos = sp[k].b;
	}
	if (pos < n)
		esc(f, t + pos);
	fputs("</span>", f);
}

/* The log lines a diagnosis card has shown so far: each once only. */
struct shown {
	const char *path[96];
	double line[96];
	size_t n;
};

static int shown_has(const struct shown *sh, const char *path, double ln)
{
	for (size_t i = 0; sh && i < sh->n; i++)
		if (sh->line[i] == ln && path && !strcmp(sh->path[i], path))
			return 1;
	return 0;
}

static void shown_add(struct shown *sh, const char *path, double ln)
{
	if (sh && path && sh->n < sizeof sh->line / sizeof *sh->line) {
		sh->path[sh->n] = path;
		sh->line[sh->n++] = ln;
	}
}

/* 1 when line ln of path is an evidence item of diagnosis d (shown in a
 * block of its own: not again as context of another). */
static int is_evidence_line(const cJSON *d, const char *path, double ln)
{
	const cJSON *e;
	int k = 0;
	cJSON_ArrayForEach(e, json_get(d, "evidence")) {
		if (k++ == HTML_MAX_EVIDENCE)
			break;
		double l = 0;
		json_num(e, "line", &l);
		if (!report_ev_derived(e) && l == ln && path && json_str(e, "path") && !strcmp(path, json_str(e, "path")))
			return 1;
	}
	return 0;
}

/* Context lines: an array of strings or of {"line": N, "text": ...}; a line
 * that is evidence of the same diagnosis d is left out (it has its block). */
static void context_lines(FILE *f, const cJSON *arr, double first_line, const cJSON *d, const char *path,
                          struct shown *sh)
{
	const cJSON *c;
	double ln = first_line;
	cJSON_ArrayForEach(c, arr) {
		const char *t = cJSON_IsString(c) ? c->valuestring : json_str(c, "text");
		double l = ln;
		json_num(c, "line", &l);
		if ((d && is_evidence_line(d, path, l)) || shown_has(sh, path, l)) {
			ln = l + 1;
			continue;
		}
		shown_add(sh, path, l);
		fprintf(f, "<span class=\"ctx\"><span class=\"ln\">%.0f</span>", l);
		esc(f, t ? t : "");
		fputs("</span>\n", f);
		ln = l + 1;
	}
}

static void evidence_block(FILE *f, const cJSON *d, const cJSON *e, int is_top, struct shown *sh, const char *anchor)
{
	const char *path = json_str(e, "path"), *text = json_str(e, "text");
	double line = 0, rank = -1, pid = -1;
	json_num(e, "line", &line);
	json_num(e, "rank", &rank);
	json_num(e, "pid", &pid);
	int derived = report_ev_derived(e);
	char *note = report_ev_cut_note(e);
	fprintf(f, "<div class=\"ev%s\"", derived ? " derived" : "");
	if (anchor) {
		/* every evidence line has an anchor, and a link to it */
		fputs(" id=\"", f);
		esc(f, anchor);
		fputs("\"><div class=\"loc mono\"><a class=\"anchor\" href=\"#", f);
		esc(f, anchor);
		fputs("\" title=\"link to this line\">&#182;</a> ", f);
	} else {
		fputs("><div class=\"loc mono\">", f);
	}
	if (derived) {
		/* a sentence the tool composed from facts: said so, not drawn as a log line */
		char *from = report_ev_from(e);
		fputs("<b>derived</b>", f);
		if (*from) {
			fputs(" from ", f);
			esc(f, from);
		}
		free(from);
	} else {
		esc(f, path ? path : "?");
		if (line > 0)
			fprintf(f, ":%.0f", line);
	}
	if (rank >= 0)
		fprintf(f, " · rank %.0f", rank);
	if (json_str(e, "host")) {
		fputs(" · host ", f);
		esc(f, json_str(e, "host"));
	}
	if (pid >= 0)
		fprintf(f, " · pid %.0f", pid);
	if (json_str(e, "time")) {
		fputs(" · ", f);
		esc(f, json_str(e, "time"));
	}
	if (*note) {
		fputs(" ·", f);
		esc(f, note);
	}
	free(note);
	if (derived) {
		fputs("</div><p class=\"dtext\">", f);
		if (d && report_ev_in_explanation(d, e) && !is_top)
			fputs("(the sentence above)", f);
		else
			esc(f, text ? text : "");
		fputs("</p></div>\n", f);
		return;
	}
	fputs("</div><pre>", f);
	const cJSON *ctx = json_get(e, "context");
	const cJSON *before = json_get(ctx, "before"), *after = json_get(ctx, "after");
	if (!before)
		before = json_get(e, "before");
	if (!after)
		after = json_get(e, "after");
	if (cJSON_IsArray(before))
		context_lines(f, before, line - json_size(before), d, path, sh);
	fputs("<span class=\"hit\">", f);
	if (line > 0)
		fprintf(f, "<span class=\"ln\">%.0f</span>", line);
	evidence_line(f, text ? text : "", e);
	fputs("</span>", f);
	if (cJSON_IsArray(after)) {
		fputc('\n', f);
		context_lines(f, after, line + 1, d, path, sh);
	}
	fputs("</pre></div>\n", f);
}

static void fix_list(FILE *f, const cJSON *fix, const char *lead)
{
	if (!json_size(fix))
		return;
	fprintf(f, "<div class=\"fix\"><b>%s</b><ol>", lead);
	const cJSON *x;
	cJSON_ArrayForEach(x, fix) {
		fputs("<li>", f);
		esc_code(f, cJSON_IsString(x) ? x->valuestring : "");
		fputs("</li>", f);
	}
	fputs("</ol></div>\n", f);
}

static void ranks_list(FILE *f, const cJSON *ranks)
{
	int n = json_size(ranks), i = 0;
	if (!n)
		return;
	fprintf(f, "%s ", n == 1 ? "rank" : "ranks");
	const cJSON *r;
	cJSON_ArrayForEach(r, ranks) {
		if (i == 16) {
			fprintf(f, "… (%d in all)", n);
			break;
		}
		fprintf(f, "%s%.0f", i++ ? ", " : "", r->valuedouble);
	}
}

static void diagnosis_card(FILE *f, const cJSON *d, int cascade, int is_top, int bidx)
{
	const char *sev = json_str(d, "severity");
	const char *role = json_str(d, "role");
	double conf = 0, total = 0;
	json_num(d, "confidence", &conf);
	json_num(d, "evidence_total", &total);
	/* an anchor on every diagnosis: d-ID in the first bundle, bN-d-ID in others */
	char *card_id = bidx ? xasprintf("b%d-d-%s", bidx, json_str(d, "id") ? json_str(d, "id") : "")
	                     : xasprintf("d-%s", json_str(d, "id") ? json_str(d, "id") : "");
	fprintf(f, "<div class=\"card %s\" id=\"", cascade ? "cascade" : (sev && !strcmp(sev, "error")) ? "root" : sev ? sev : "");
	esc(f, card_id);
	fputs("\">\n<h3><a class=\"anchor\" href=\"#", f);
	esc(f, card_id);
	fputs("\" title=\"link to this finding\">&#182;</a> ", f);
	fprintf(f, "<span class=\"badge s-%s\">%s</span> ", cascade ? "cascade" : sev ? sev : "info",
	        cascade ? "consequence" : role && !strcmp(role, "context") ? "context" : sev ? sev : "");
	esc(f, json_str(d, "title"));
	fputs("</h3>\n<div class=\"sub\">", f);
	esc(f, category_words(json_str(d, "category")));
	fputs(" · <code>", f);
	esc(f, json_str(d, "id"));
	fprintf(f, "</code> · confidence %.0f%% (%s)", conf * 100, confidence_word(conf));
	if (json_size(json_get(d, "ranks"))) {
		fputs(" · ", f);
		ranks_list(f, json_get(d, "ranks"));
	}
	fputs("</div>\n", f);
	if (is_top) {
		fputs("<p class=\"sub\">The most likely cause: its explanation and fix are at the top of the page.</p>\n", f);
	} else {
		fputs("<p>", f);
		esc_code(f, json_str(d, "explanation"));
		fputs("</p>\n", f);
		if (!cascade)
			fix_list(f, json_get(d, "fix"), "What to do");
	}
	const cJSON *env = json_get(json_get(d, "verify"), "env");
	if (!cascade && json_size(env)) {
		/* the proposal of every format (verify_env_arg): null or "" is
		 * "unset it", never "set it to the empty string" */
		fputs("<p class=\"sub\">To confirm on the same machine: <code>nccl-triage verify", f);
		const cJSON *e;
		cJSON_ArrayForEach(e, env) {
			char *arg = verify_env_arg(e->string, cJSON_IsString(e) ? e->valuestring : NULL);
			esc(f, arg);
			free(arg);
		}
		fputs("</code></p>\n", f);
	}
	const cJSON *ev = json_get(d, "evidence"), *e;
	int shown = 0, n = json_size(ev);
	if (n)
		fprintf(f, "<div class=\"sub\">Evidence (%.0f line%s):</div>\n", total > n ? total : n, (total > n ? total : n) == 1 ? "" : "s");
	struct shown sh = {{0}, {0}, 0};
	cJSON_ArrayForEach(e, ev) {
		if (shown++ == HTML_MAX_EVIDENCE)
			break;
		char *an = xasprintf("%s-e%d", card_id, shown);
		evidence_block(f, d, e, is_top, &sh, an);
		free(an);
	}
	if ((total > n ? total : n) > HTML_MAX_EVIDENCE || total > n)
		fprintf(f, "<div class=\"sub\">… and %.0f more (see the JSON report for up to 20).</div>\n",
		        (total > n ? total : n) - (n < HTML_MAX_EVIDENCE ? n : HTML_MAX_EVIDENCE));
	const cJSON *refs = json_get(d, "references"), *r;
	if (!cascade && json_size(refs)) {
		fputs("<div class=\"sub\">References: ", f);
		int i = 0;
		cJSON_ArrayForEach(r, refs) {
			if (!cJSON_IsString(r))
				continue;
			fputs(i++ ? " · " : "", f);
			if (str_starts(r->valuestring, "https://") || str_starts(r->valuestring, "http://")) {
				fputs("<a href=\"", f);
				esc(f, r->valuestring);
				fputs("\" rel=\"noreferrer\">", f);
				esc(f, r->valuestring);
				fputs("</a>", f);
			} else {
				esc(f, r->valuestring);
			}
		}
		fputs("</div>\n", f);
	}
	free(card_id);
}

static int is_cascade(const cJSON *d)
{
	const char *role = json_str(d, "role");
	return role && !strcmp(role, "cascade");
}

/* The root that a cascade hangs under: its echo_of when that diagnosis is
 * in the list, else NULL (then the cascade is shown on its own). */
static const cJSON *cascade_root(const cJSON *diags, const cJSON *d)
{
	const char *of = json_str(d, "echo_of");
	if (!of)
		return NULL;
	const cJSON *x;
	cJSON_ArrayForEach(x, diags)
		if (x != d && json_str(x, "id") && !strcmp(json_str(x, "id"), of) && !is_cascade(x))
			return x;
	return NULL;
}

static void diagnoses_section(FILE *f, const cJSON *b, int bidx)
{
	const cJSON *diags = json_get(b, "diagnoses"), *d;
	if (!json_size(diags))
		return;
	fputs("<h2>What the logs show</h2>\n<p class=\"sub\">Most likely cause first. Consequences on other ranks "
	      "(echoes of the same failure) are folded under the cause they follow from.</p>\n",
	      f);
	const cJSON *top = NULL;
	const char *v = json_str(b, "verdict");
	if (v && !strcmp(v, "diagnosed"))
		cJSON_ArrayForEach(d, diags)
			if (!top && !is_cascade(d))
				top = d;
	cJSON_ArrayForEach(d, diags) {
		if (is_cascade(d) && cascade_root(diags, d))
			continue;
		diagnosis_card(f, d, is_cascade(d), d == top, bidx);
		/* cascades of this one */
		int nc = 0;
		const cJSON *c;
		cJSON_ArrayForEach(c, diags)
			if (is_cascade(c) && cascade_root(diags, c) == d)
				nc++;
		if (nc) {
			fprintf(f, "<details><summary>%d consequence%s of this failure (echoes on other ranks)</summary>\n", nc,
			        nc == 1 ? "" : "s");
			cJSON_ArrayForEach(c, diags)
				if (is_cascade(c) && cascade_root(diags, c) == d) {
					diagnosis_card(f, c, 1, 0, bidx);
					fputs("</div>\n", f);
				}
			fputs("</details>\n", f);
		}
		fputs("</div>\n", f);
	}
}

static void unexplained_section(FILE *f, const cJSON *b, int bidx)
{
	const cJSON *u = json_get(b, "unexplained"), *x;
	int un = 0;
	if (!json_size(u))
		return;
	double total = 0;
	json_num(b, "unexplained_total", &total);
	const char *v = json_str(b, "verdict");
	int open = v && !strcmp(v, "unknown_failure");
	fprintf(f, "<h2>Failure lines no signature explains</h2>\n<details%s><summary>%d line%s", open ? " open" : "",
	        json_size(u), json_size(u) == 1 ? "" : "s");
	if (total > json_size(u))
		fprintf(f, " of %.0f", total);
	fputs(" (tracebacks, NCCL warnings, exit codes)</summary>\n", f);
	cJSON_ArrayForEach(x, u)
		{
		char *an = xasprintf("b%d-u%d", bidx, un++);
		evidence_block(f, NULL, x, 0, NULL, an);
		free(an);
	}
	fputs("</details>\n", f);
}

/* ---- summary (first screen) ---- */

static void quick_facts(FILE *f, const cJSON *b)
{
	const cJSON *facts = json_get(b, "facts"), *ranks = json_get(b, "ranks"), *x;
	struct strvec hosts = {0};
	int nproc = 0;
	double nranks = 0;
	cJSON_ArrayForEach(x, ranks) {
		nproc++;
		double v;
		if (json_num(x, "nranks", &v) && v > nranks)
			nranks = v;
		if (json_str(x, "host") && !strvec_contains(&hosts, json_str(x, "host")))
			strvec_push(&hosts, json_str(x, "host"));
	}
	fputs("<p class=\"sub\">", f);
	int any = 0;
	if (nproc) {
		fprintf(f, "%d NCCL process%s", nproc, nproc == 1 ? "" : "es");
		if (nranks > 0)
			fprintf(f, " (communicator of %.0f rank%s)", nranks, nranks == 1 ? "" : "s");
		fprintf(f, " on %zu host%s", hosts.n, hosts.n == 1 ? "" : "s");
		any = 1;
	}
	strvec_free(&hosts);
	const cJSON *nv = json_get(facts, "nccl_versions");
	if (json_size(nv)) {
		fputs(any ? " · NCCL " : "NCCL ", f);
		int i = 0;
		cJSON_ArrayForEach(x, nv) {
			fputs(i++ ? ", " : "", f);
			esc(f, jtext(x));
		}
		any = 1;
	}
	const cJSON *gpus = json_get(facts, "gpus");
	if (json_size(gpus)) {
		const char *model = NULL;
		cJSON_ArrayForEach(x, gpus)
			if (!model)
				model = json_str(x, "name") ? json_str(x, "name") : json_str(x, "model");
		fprintf(f, "%s%d GPU%s", any ? " · " : "", json_size(gpus), json_size(gpus) == 1 ? "" : "s");
		if (model) {
			fputs(" (", f);
			esc(f, model);
			fputc(')', f);
		}
		any = 1;
	}
	const cJSON *inputs = json_get(b, "inputs");
	fprintf(f, "%s%d input file%s", any ? " · " : "", json_size(inputs), json_size(inputs) == 1 ? "" : "s");
	fputs("</p>\n", f);
}

static void hero(FILE *f, const cJSON *b)
{
	const char *v = json_str(b, "verdict");
	const cJSON *diags = json_get(b, "diagnoses"), *top = NULL, *d;
	cJSON_ArrayForEach(d, diags)
		if (!top && !is_cascade(d))
			top = d;
	if (!top)
		top = cJSON_GetArrayItem(diags, 0);
	fprintf(f, "<div class=\"hero %s\">\n<div><span class=\"badge v-%s\">", v ? v : "", v ? v : "");
	esc(f, verdict_words(v));
	fputs("</span></div>\n", f);
	if (v && !strcmp(v, "diagnosed") && top) {
		fputs("<div class=\"cause\">", f);
		esc(f, json_str(top, "title"));
		fputs("</div>\n<div class=\"sub\">", f);
		double conf = 0;
		json_num(top, "confidence", &conf);
		esc(f, category_words(json_str(top, "category")));
		fprintf(f, " · confidence %.0f%% (%s)", conf * 100, confidence_word(conf));
		if (json_size(json_get(top, "ranks"))) {
			fputs(" · seen on ", f);
			ranks_list(f, json_get(top, "ranks"));
		}
		fputs("</div>\n<p>", f);
		esc_code(f, json_str(top, "explanation"));
		fputs("</p>\n", f);
		fix_list(f, json_get(top, "fix"), "How to fix it");
		int others = 0;
		cJSON_ArrayForEach(d, diags)
			if (d != top)
				others++;
		if (others)
			fprintf(f, "<p class=\"sub\">%d more finding%s below, most likely first.</p>\n", others,
			        others == 1 ? "" : "s");
	} else if (v && !strcmp(v, "unknown_failure")) {
		fputs("<div class=\"cause\">The job failed, but no known cause matched.</div>\n"
		      "<p>The lines below show where it failed (tracebacks, NCCL warnings, exit codes). "
		      "Attach this report to the ticket; the failure lines are what an NCCL expert needs to look at.</p>\n",
		      f);
		const cJSON *u = report_telling_unexplained(json_get(b, "unexplained"));
		if (u)
			evidence_block(f, NULL, u, 0, NULL, NULL);
	} else if (v && !strcmp(v, "healthy")) {
		fputs("<div class=\"cause\">No problem found.</div>\n<p>", f);
		esc(f, json_str(b, "verdict_reason") ? json_str(b, "verdict_reason") : "No failure evidence was found in the inputs.");
		fputs("</p>\n", f);
		if (top) {
			fputs("<p>Worth a look: ", f);
			esc(f, json_str(top, "title"));
			fputs("</p>\n", f);
		}
	} else {
		fputs("<div class=\"cause\">No verdict on the run: not enough evidence either way.</div>\n<p>", f);
		esc(f, json_str(b, "verdict_reason") ? json_str(b, "verdict_reason") : "Nothing recognisable was found in the inputs.");
		fputs(" Collect the job's full output with <code>NCCL_DEBUG=INFO</code> set, plus <code>nvidia-smi topo "
		      "-m</code>, and run the analysis again.</p>\n", f);
	}
	quick_facts(f, b);
	fputs("</div>\n", f);
}

/* ---- rank timeline ---- */

static const char *STAGES[] = {"started", "banner", "init_start", "init_complete", "first_collective"};
static const char *STAGE_LABELS[] = {"process seen", "NCCL banner", "Init START", "Init COMPLETE", "first collective"};
#define NSTAGES 5

static int stage_index(const char *m)
{
	if (!m)
		return 0;
	for (int i = 0; i < NSTAGES; i++)
		if (!strcmp(STAGES[i], m))
			return i;
	if (!strcmp(m, "aborted"))
		return 2; /* an abort needs a communicator: Init START at least */
	if (!strcmp(m, "collective") || !strcmp(m, "running"))
		return 4;
	return 0;
}

/* Highest stage reached: from "milestones" when the ranks module gives it
 * (object or array of names), else from "last_milestone". */
static int reached(const cJSON *r, int *have)
{
	const cJSON *m = json_get(r, "milestones");
	int best = -1;
	for (int i = 0; i < NSTAGES; i++)
		have[i] = 0;
	if (cJSON_IsObject(m)) {
		const cJSON *x;
		cJSON_ArrayForEach(x, m)
			if (!cJSON_IsFalse(x) && !cJSON_IsNull(x) && x->string) {
				/* aborted / destroyed are outcomes, not stages */
				int k = !strcmp(x->string, "collective") ? 4 : stage_index(x->string);
				if (k > 0 && (!strcmp(x->string, STAGES[k]) || k == 4)) {
					have[k] = 1;
					if (k > best)
						best = k;
				}
			}
	} else if (cJSON_IsArray(m)) {
		const cJSON *x;
		cJSON_ArrayForEach(x, m) {
			const char *nm = cJSON_IsString(x) ? x->valuestring : json_str(x, "name");
			if (!nm)
				continue;
			int k = stage_index(nm);
			have[k] = 1;
			if (k > best)
				best = k;
		}
	}
	if (best < 0) {
		best = stage_index(json_str(r, "last_milestone"));
		for (int i = 0; i <= best; i++)
			have[i] = 1;
	}
	have[0] = 1;
	return best;
}

static void svg_text(FILE *f, double x, double y, const char *attrs, const char *s, size_t maxlen)
{
	fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" %s>", x, y, attrs);
	size_t n = strlen(s);
	if (n > maxlen) {
		/* cut on a UTF-8 boundary */
		size_t k = maxlen;
		while (k > 0 && ((unsigned char)s[k] & 0xC0) == 0x80)
			k--;
		escn(f, s, k);
		fputs("…", f);
	} else {
		esc(f, s);
	}
	fputs("</text>", f);
}

/* Where the timeline is drawn, and who failed first. */
struct tl {
	const cJSON *diags, *top;   /* the top root diagnosis */
	double first_rank, first_pid;
	const char *first_host;     /* the place of its earliest evidence */
	int any_failed_first;
	int lanes;
	double left, colw, top_y, laneh, outx, width, height;
	const cJSON *ranks;         /* every lane's process: host labels are made distinct among them */
};

/* A short host name that tells this lane's host from the others': its
 * first DNS label when those differ, else the part after the prefix all
 * hosts share ("…node-0421" for long names that differ only at the end). */
static void host_short(const cJSON *ranks, const char *host, char *out, size_t n)
{
	const cJSON *r;
	size_t cp = (size_t)-1, fl = strcspn(host, ".");
	int first_labels_differ = 1, others = 0;
	cJSON_ArrayForEach(r, ranks) {
		const char *h = json_str(r, "host");
		if (!h || !strcmp(h, host))
			continue;
		others = 1;
		size_t k = 0;
		while (h[k] && h[k] == host[k])
			k++;
		if (k < cp)
			cp = k;
		if (strcspn(h, ".") == fl && !strncmp(h, host, fl))
			first_labels_differ = 0;
	}
	const size_t MAX = 14;
	if (!others || strlen(host) <= MAX) {
		snprintf(out, n, "%s", strlen(host) <= MAX ? host : "");
		if (!*out)
			snprintf(out, n, "%.*s…", (int)(fl < MAX ? fl : MAX - 1), host);
		return;
	}
	if (first_labels_differ && fl <= MAX) {
		snprintf(out, n, "%.*s", (int)fl, host);
		return;
	}
	if (first_labels_differ && cp < fl && fl - cp <= MAX - 1) {
		/* the end of the first label holds the difference: "…node-0421" */
		snprintf(out, n, "…%.*s", (int)(MAX - 1), host + fl - (MAX - 1));
		return;
	}
	/* back to the start of the differing word, keep MAX - 1 characters */
	size_t st = cp;
	while (st > 0 && isalnum((unsigned char)host[st - 1]) && cp - st < 4)
		st--;
	size_t len = strlen(host + st);
	snprintf(out, n, "%s%.*s%s", st ? "…" : "", (int)(len > MAX - 1 ? MAX - 1 : len), host + st,
	         len > MAX - 1 ? "…" : "");
}

/* The outcome of one lane: a failure (first or echo) or "no error seen";
 * drawn at the end of its SVG lane, and written under its stages in the
 * narrow (vertical) timeline. */
struct outcome {
	int failed;            /* the first failure or an echo */
	int is_first;
	int clean_exit;        /* exited with status 0, no error of its own */
	int died;              /* a non-zero exit status */
	const char *why;       /* the tooltip's text: the first error or why the lane failed */
	const char *what;      /* the message shown */
	char exitmsg[64];      /* " [exit 1 SIGKILL]" when died */
};

static void outcome_of(const struct tl *t, const cJSON *r, double rk, double pid, const char *host, struct outcome *oc)
{
	const cJSON *diags = t->diags, *top = t->top, *d;
	const int any_failed_first = t->any_failed_first;
	const double first_rank = t->first_rank, first_pid = t->first_pid;
	const char *first_host = t->first_host;
	const char *err = json_str(r, "first_error");
	memset(oc, 0, sizeof *oc);
	/* named by an error finding (an information note such as "no IB device"
	 * on every rank is no failure of that rank) */
	int in_diag = 0;
	cJSON_ArrayForEach(d, diags) {
		const cJSON *x;
		const char *sv = json_str(d, "severity");
		if (!sv || strcmp(sv, "error"))
			continue;
		cJSON_ArrayForEach(x, json_get(d, "ranks"))
			if (rk >= 0 && x->valuedouble == rk)
				in_diag = 1;
	}
	int is_first;
	if (cJSON_IsBool(json_get(r, "failed_first")) || any_failed_first)
		is_first = cJSON_IsTrue(json_get(r, "failed_first"));
	else
		is_first = (first_rank >= 0 && rk == first_rank) ||
		           (first_rank < 0 && first_pid >= 0 && pid == first_pid && (!first_host || !host || !strcmp(first_host, host)));
	const char *ms = json_str(r, "last_milestone");
	int aborted = (ms && !strcmp(ms, "aborted")) || cJSON_IsTrue(json_get(json_get(r, "milestones"), "aborted"));
	const cJSON *ex = json_get(r, "exit");
	double code = 0;
	int has_code = json_num(ex, "code", &code);
	int died = has_code && code != 0;
	int clean_exit = has_code && code == 0 && !err && !aborted && !json_str(ex, "signal_name");
	if (clean_exit && !is_first)
		in_diag = 0;
	if (died) {
		const char *sn = json_str(ex, "signal_name");
		snprintf(oc->exitmsg, sizeof oc->exitmsg, " [exit %.0f%s%s]", code, sn ? " " : "", sn ? sn : "");
	}
	oc->is_first = is_first;
	oc->clean_exit = clean_exit;
	oc->died = died;
	oc->failed = is_first || err || in_diag || aborted || died;
	if (!oc->failed)
		return;
	oc->why = err ? err : aborted ? "communicator aborted" : "named in a diagnosis";
	const char *what = err;
	/* the glog / NCCL prefix of the first error is noise here */
	if (what && what[0] == '[') {
		const char *q = strstr(what, "] ");
		if (q && q - what < 60)
			what = q + 2;
		if (!strncmp(what, "[Rank ", 6) && (q = strstr(what, "] ")))
			what = q + 2;
	}
	if (!what && is_first && json_str(top, "title"))
		what = json_str(top, "title");
	if (!what)
		what = aborted ? "communicator aborted" : died ? "process exited" : "named in a diagnosis";
	oc->what = what;
}

static void timeline_outcome(FILE *f, const struct tl *t, const cJSON *r, double y, double rk, double pid,
                             const char *host)
{
	const double outx = t->outx;
	struct outcome oc;
	outcome_of(t, r, rk, pid, host, &oc);
	if (oc.failed) {
		const int is_first = oc.is_first;
		const char *col = is_first ? "#b3261e" : "#c25e00";
		fprintf(f, "<g><circle cx=\"%.1f\" cy=\"%.1f\" r=\"8\" fill=\"%s\"/>"
		           "<path d=\"M%.1f %.1fl8 8M%.1f %.1fl-8 8\" stroke=\"#fff\" stroke-width=\"2\"/>",
		        outx, y, col, outx - 4, y - 4, outx + 4, y - 4);
		fputs("<title>", f);
		esc(f, is_first ? "first failure: " : "echo: ");
		esc(f, oc.why);
		fputs("</title></g>", f);
		char msg[200];
		snprintf(msg, sizeof msg, "%s%s", is_first ? "first failure: " : "echo: ", oc.what);
		if (oc.died) {
			/* keep the exit status visible: cut the message to make room */
			size_t room = 40 > strlen(oc.exitmsg) ? 40 - strlen(oc.exitmsg) : 0;
			if (strlen(msg) > room) {
				size_t k = room;
				while (k > 0 && ((unsigned char)msg[k] & 0xC0) == 0x80)
					k--;
				snprintf(msg + k, sizeof msg - k, "…");
			}
			snprintf(msg + strlen(msg), sizeof msg - strlen(msg), "%s", oc.exitmsg);
		}
		svg_text(f, outx + 14, y + 4, is_first ? "font-size=\"11\" fill=\"#b3261e\" font-weight=\"600\"" : "font-size=\"11\" fill=\"#8a4a00\"",
		         msg, 46);
	} else {
		fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"7\" fill=\"#1e7b34\"/>", outx, y);
		svg_text(f, outx + 14, y + 4, "font-size=\"11\" fill=\"#1e7b34\"", oc.clean_exit ? "exited cleanly (status 0)" : "no error seen", 40);
	}
}

/* A lane's name: "rank 3", or "pid 1425" for a process of no known rank. */
static void lane_label(double rk, double pid, char *label, size_t n)
{
	if (rk >= 0)
		snprintf(label, n, "rank %.0f", rk);
	else
		snprintf(label, n, "pid %.0f", pid);
}

/* One lane: the rank's label, the stages it reached, its outcome. */
static void timeline_lane(FILE *f, const struct tl *t, const cJSON *r, int lane)
{
	const double left = t->left, colw = t->colw, top_y = t->top_y, laneh = t->laneh, outx = t->outx,
	             width = t->width;
	double y = top_y + lane * laneh + laneh / 2, rk = -1, pid = -1;
	json_num(r, "rank", &rk);
	json_num(r, "pid", &pid);
	const char *host = json_str(r, "host");
	char label[96];
	lane_label(rk, pid, label, sizeof label);
	if (lane % 2)
		fprintf(f, "<rect x=\"0\" y=\"%.1f\" width=\"%.0f\" height=\"%.0f\" fill=\"#f7f9fa\"/>", y - laneh / 2, width, laneh);
	svg_text(f, 6, y + 4, "font-size=\"12\" font-weight=\"600\"", label, 30);
	if (host) {
		/* the rank, and a short host:pid that no other lane shares */
		char hs[64], hl[96];
		host_short(t->ranks, host, hs, sizeof hs);
		snprintf(hl, sizeof hl, "%s:%.0f", hs, pid);
		fprintf(f, "<g><title>");
		esc(f, host);
		fprintf(f, ":%.0f</title>", pid);
		svg_text(f, 58, y + 4, "font-size=\"11\" fill=\"#5b6673\"", hl, 40);
		fputs("</g>", f);
	}
	int have[NSTAGES];
	int best = reached(r, have);
	double x0 = left + colw / 2, xb = left + best * colw + colw / 2;
	fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#1e7b34\" stroke-width=\"3\"/>", x0, y,
	        xb, y);
	fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#c7cdd3\" stroke-width=\"2\" "
	           "stroke-dasharray=\"4 4\"/>",
	        xb, y, outx - 14, y);
	for (int i = 0; i < NSTAGES; i++) {
		double x = left + i * colw + colw / 2;
		if (have[i])
			fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"6\" fill=\"#1e7b34\"><title>%s</title></circle>", x, y,
			        STAGE_LABELS[i]);
		else
			fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"5\" fill=\"#fff\" stroke=\"#9aa3ad\" stroke-width=\"1.5\">"
			           "<title>%s not reached</title></circle>",
			        x, y, STAGE_LABELS[i]);
	}
	timeline_outcome(f, t, r, y, rk, pid, host);
}

/* The same lanes for a narrow screen, where the SVG would scroll sideways
 * (the CSS shows one or the other): a list of the processes, each with its
 * stages downward and its outcome under them, the message whole. */
static void timeline_narrow(FILE *f, const struct tl *t)
{
	const cJSON *r;
	int lane = 0;
	fputs("<ol class=\"tl-narrow\">\n", f);
	cJSON_ArrayForEach(r, t->ranks) {
		if (lane++ >= t->lanes)
			break;
		double rk = -1, pid = -1;
		json_num(r, "rank", &rk);
		json_num(r, "pid", &pid);
		const char *host = json_str(r, "host");
		char label[96];
		lane_label(rk, pid, label, sizeof label);
		fputs("<li><b>", f);
		esc(f, label);
		fputs("</b>", f);
		if (host) {
			char hs[64];
			host_short(t->ranks, host, hs, sizeof hs);
			fputs(" <span class=\"muted\" title=\"", f);
			esc(f, host);
			fprintf(f, ":%.0f\">", pid);
			esc(f, hs);
			fprintf(f, ":%.0f</span>", pid);
		}
		int have[NSTAGES];
		reached(r, have);
		fputs("<ol class=\"tl-st\">", f);
		for (int i = 0; i < NSTAGES; i++)
			fprintf(f, "<li class=\"%s\">%s%s</li>", have[i] ? "on" : "off", STAGE_LABELS[i],
			        have[i] ? "" : ": not reached");
		fputs("</ol>", f);
		struct outcome oc;
		outcome_of(t, r, rk, pid, host, &oc);
		if (oc.failed) {
			fprintf(f, "<p class=\"tl-out %s\">%s", oc.is_first ? "first" : "echo",
			        oc.is_first ? "&#10005; first failure: " : "&#10005; echo: ");
			esc(f, oc.what);
			esc(f, oc.exitmsg);
		} else {
			fprintf(f, "<p class=\"tl-out ok\">&#9679; %s", oc.clean_exit ? "exited cleanly (status 0)" : "no error seen");
		}
		fputs("</p></li>\n", f);
	}
	fputs("</ol>\n", f);
}

/* the same as a table, for copying and for screen readers */
static void timeline_table(FILE *f, const cJSON *ranks)
{
	const cJSON *r;
	fputs("<details><summary>Rank table</summary>\n<table><tr><th>rank</th><th>host</th><th>pid</th><th>GPU</th>"
	      "<th>bus id</th><th>NCCL</th><th>got to</th><th>first error</th><th>exit</th><th>last line</th></tr>\n",
	      f);
	cJSON_ArrayForEach(r, ranks) {
		double rk = -1, pid = -1, dev = -1;
		json_num(r, "rank", &rk);
		json_num(r, "pid", &pid);
		json_num(r, "cuda_dev", &dev);
		fputs("<tr><td>", f);
		if (rk >= 0)
			fprintf(f, "%.0f", rk);
		fputs("</td><td>", f);
		esc(f, json_str(r, "host"));
		fprintf(f, "</td><td>%.0f</td><td>", pid);
		if (dev >= 0)
			fprintf(f, "%.0f", dev);
		fputs("</td><td class=\"mono\">", f);
		esc(f, json_str(r, "bus_id"));
		fputs("</td><td>", f);
		esc(f, json_str(r, "nccl_version"));
		fputs("</td><td>", f);
		esc(f, json_str(r, "last_milestone"));
		fputs("</td><td class=\"mono\">", f);
		esc(f, json_str(r, "first_error"));
		fputs("</td><td>", f);
		const cJSON *ex = json_get(r, "exit");
		double code;
		if (json_num(ex, "code", &code)) {
			fprintf(f, "%.0f", code);
			if (json_str(ex, "signal_name")) {
				fputc(' ', f);
				esc(f, json_str(ex, "signal_name"));
			}
		}
		fputs("</td><td class=\"mono\">", f);
		const cJSON *ll = json_get(r, "last_line");
		if (ll) {
			double l = 0;
			json_num(ll, "line", &l);
			esc(f, json_str(ll, "path"));
			fprintf(f, ":%.0f ", l);
			esc(f, json_str(ll, "text"));
		}
		fputs("</td></tr>\n", f);
	}
	fputs("</table></details>\n", f);
}

static void timeline_section(FILE *f, const cJSON *b)
{
	const cJSON *ranks = json_get(b, "ranks"), *r, *d;
	int n = json_size(ranks);
	if (!n)
		return;
	struct tl t = {json_get(b, "diagnoses"), NULL, -1, -1, NULL, 0, 0, 190, 110, 46, 26, 0, 0, 0, ranks};
	/* the first failure: the earliest evidence of the top root diagnosis */
	cJSON_ArrayForEach(d, t.diags)
		if (!t.top && !is_cascade(d))
			t.top = d;
	const cJSON *e0 = cJSON_GetArrayItem(json_get(t.top, "evidence"), 0);
	if (e0) {
		json_num(e0, "rank", &t.first_rank);
		t.first_host = json_str(e0, "host");
		json_num(e0, "pid", &t.first_pid);
	}
	t.lanes = n < HTML_MAX_LANES ? n : HTML_MAX_LANES;
	cJSON_ArrayForEach(r, ranks)
		t.any_failed_first |= cJSON_IsTrue(json_get(r, "failed_first"));
	t.outx = t.left + NSTAGES * t.colw + 10;
	t.width = t.outx + 300; /* 1050 px: fits the page at 1:1 (text stays 11 px); under 760 px the narrow list replaces it */
	t.height = t.top_y + t.lanes * t.laneh + 40;
	fputs("<h2>Rank timeline</h2>\n<p class=\"sub\">One lane per NCCL process: how far it got through NCCL "
	      "start-up, and where it failed. <span style=\"color:#b3261e\">&#9679;</span> the first failure, "
	      "<span style=\"color:#c25e00\">&#9679;</span> echoes on other ranks, "
	      "<span style=\"color:#1e7b34\">&#9679;</span> milestones reached, hollow: not reached.</p>\n",
	      f);
	fputs("<div class=\"scroll tl-wide\">", f);
	fprintf(f, "<svg role=\"img\" aria-label=\"rank timeline\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
	           "xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\">\n",
	        t.width, t.height, t.width, t.height);
	for (int i = 0; i < NSTAGES; i++) {
		double x = t.left + i * t.colw + t.colw / 2;
		fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#e3e6ea\"/>", x, t.top_y - 8, x,
		        t.top_y + t.lanes * t.laneh);
		svg_text(f, x, t.top_y - 16, "text-anchor=\"middle\" font-size=\"12\" fill=\"#5b6673\"", STAGE_LABELS[i], 40);
	}
	svg_text(f, t.outx, t.top_y - 16, "font-size=\"12\" fill=\"#5b6673\"", "outcome", 20);
	int lane = 0;
	cJSON_ArrayForEach(r, ranks) {
		if (lane >= t.lanes)
			break;
		timeline_lane(f, &t, r, lane++);
	}
	fputs("</svg></div>\n", f);
	timeline_narrow(f, &t);
	if (n > t.lanes)
		fprintf(f, "<p class=\"sub\">… %d more processes not drawn.</p>\n", n - t.lanes);
	timeline_table(f, ranks);
}

/* ---- topology ---- */

static int gpu_index(const char *name)
{
	if (!name || strncmp(name, "GPU", 3) != 0 || !isdigit((unsigned char)name[3]))
		return -1;
	char *end;
	long v = strtol(name + 3, &end, 10);
	return (*end || v < 0 || v >= HTML_MAX_GPUS) ? -1 : (int)v;
}

static int uf_find(int *p, int x)
{
	while (p[x] != x)
		x = p[x] = p[p[x]];
	return x;
}

/* The matrix of link types: from facts.topology's links, else its matrix
 * rows; returns the number of GPUs. */
static int topo_cells(const cJSON *topo, const char *cell[HTML_MAX_GPUS][HTML_MAX_GPUS])
{
	int n = 0;
	const cJSON *x;
	cJSON_ArrayForEach(x, json_get(topo, "links")) {
		double a, c;
		const char *t = json_str(x, "type");
		if (!json_num(x, "a", &a) || !json_num(x, "b", &c) || !t || a < 0 || c < 0 || a >= HTML_MAX_GPUS || c >= HTML_MAX_GPUS)
			continue;
		cell[(int)a][(int)c] = cell[(int)c][(int)a] = t;
		if (a + 1 > n) n = (int)a + 1;
		if (c + 1 > n) n = (int)c + 1;
	}
	const cJSON *m = json_get(topo, "matrix");
	if (cJSON_IsObject(m)) {
		const cJSON *row;
		cJSON_ArrayForEach(row, m) {
			int i = gpu_index(row->string);
			if (i < 0)
				continue;
			const cJSON *c;
			cJSON_ArrayForEach(c, row) {
				int j = gpu_index(c->string);
				if (j < 0 || !cJSON_IsString(c))
					continue;
				if (!cell[i][j])
					cell[i][j] = c->valuestring;
				if (i + 1 > n) n = i + 1;
				if (j + 1 > n) n = j + 1;
			}
		}
	}
	return n;
}

/* P2P-capable groups: from the facts when given, else connected components
 * over direct links; *computed says which.  Returns their number. */
static int topo_groups(const cJSON *topo, const char *cell[HTML_MAX_GPUS][HTML_MAX_GPUS], int n, int *group,
                       int *computed)
{
	int ngroups = 0;
	*computed = 0;
	for (int i = 0; i < n; i++)
		group[i] = -1;
	const cJSON *groups = json_get(topo, "groups");
	if (!groups)
		groups = json_get(topo, "p2p_groups");
	if (json_size(groups)) {
		const cJSON *g;
		cJSON_ArrayForEach(g, groups) {
			const cJSON *mem = cJSON_IsArray(g) ? g : json_get(g, "gpus");
			const cJSON *y;
			cJSON_ArrayForEach(y, mem)
				if (cJSON_IsNumber(y) && y->valuedouble >= 0 && y->valuedouble < n)
					group[(int)y->valuedouble] = ngroups;
			ngroups++;
		}
	} else {
		int p[HTML_MAX_GPUS];
		for (int i = 0; i < n; i++)
			p[i] = i;
		for (int i = 0; i < n; i++)
			for (int j = i + 1; j < n; j++)
				if (cell[i][j] && topo_link_direct(cell[i][j]))
					p[uf_find(p, i)] = uf_find(p, j);
		int id[HTML_MAX_GPUS];
		for (int i = 0; i < n; i++)
			id[i] = -1;
		for (int i = 0; i < n; i++) {
			int r = uf_find(p, i);
			if (id[r] < 0)
				id[r] = ngroups++;
			group[i] = id[r];
		}
		*computed = 1;
	}
	return ngroups;
}

static void topo_grid(FILE *f, const char *cell[HTML_MAX_GPUS][HTML_MAX_GPUS], int n, const int *group)
{
	fputs("<h2>GPU topology</h2>\n<p class=\"sub\">How each pair of GPUs is connected (from <code>nvidia-smi topo -m</code>). "
	      "Green is fast and direct; red crosses CPU sockets. Thick outlines mark groups of GPUs that can talk to each "
	      "other directly (peer-to-peer).</p>\n<div class=\"grid2\"><table class=\"topo\"><tr><th></th>",
	      f);
	for (int j = 0; j < n; j++)
		fprintf(f, "<th>GPU%d</th>", j);
	fputs("</tr>\n", f);
	for (int i = 0; i < n; i++) {
		fprintf(f, "<tr><th>GPU%d</th>", i);
		for (int j = 0; j < n; j++) {
			const char *t = cell[i][j];
			int in = group[i] >= 0 && group[i] == group[j];
			char style[200] = "";
			if (in) {
				int sz = 0;
				for (int k = 0; k < n; k++)
					sz += group[k] == group[i];
				if (sz > 1) {
					int top = i == 0 || group[i - 1] != group[i];
					int bot = i == n - 1 || group[i + 1] != group[i];
					int lft = j == 0 || group[j - 1] != group[i];
					int rgt = j == n - 1 || group[j + 1] != group[i];
					snprintf(style, sizeof style, " style=\"%s%s%s%s\"", top ? "border-top:3px solid #1d232b;" : "",
					         bot ? "border-bottom:3px solid #1d232b;" : "", lft ? "border-left:3px solid #1d232b;" : "",
					         rgt ? "border-right:3px solid #1d232b;" : "");
				}
			}
			fprintf(f, "<td class=\"l-%s\"%s>", topo_link_legend(t), style);
			esc(f, t ? t : "?");
			fputs("</td>", f);
		}
		fputs("</tr>\n", f);
	}
	fputs("</table>\n<div class=\"legend\" style=\"max-width:420px\">"
	      "<span><i class=\"sw l-NV\"></i>NV# NVLink (# links): fastest</span>"
	      "<span><i class=\"sw l-PIX\"></i>PIX one PCIe switch</span>"
	      "<span><i class=\"sw l-PXB\"></i>PXB several PCIe switches</span>"
	      "<span><i class=\"sw l-PHB\"></i>PHB through the CPU's PCIe host bridge</span>"
	      "<span><i class=\"sw l-NODE\"></i>NODE between host bridges in one NUMA node</span>"
	      "<span><i class=\"sw l-SYS\"></i>SYS across CPU sockets: slowest, P2P often unusable</span></div></div>\n",
	      f);
}

/* The recommendation: the facts', else the largest direct group. */
static void topo_recommend(FILE *f, const cJSON *topo, int n, const int *group, int ngroups, int computed)
{
	const cJSON *rec = json_get(topo, "recommend");
	if (!rec)
		rec = json_get(topo, "recommendation");
	const char *cvd = cJSON_IsString(rec) ? rec->valuestring : json_str(rec, "cuda_visible_devices");
	if (!cvd)
		cvd = json_str(topo, "recommended_cuda_visible_devices");
	const char *why = json_str(rec, "reason");
	if (!why)
		why = json_str(rec, "why");
	if (cvd) {
		fputs("<p>Recommended: <code>CUDA_VISIBLE_DEVICES=", f);
		esc(f, cvd);
		fputs("</code>", f);
		if (why) {
			fputs(" — ", f);
			esc(f, why);
		}
		fputs("</p>\n", f);
	} else if (ngroups == 1 && n > 1) {
		fprintf(f, "<p>All %d GPUs can reach each other directly (peer-to-peer%s).</p>\n", n,
		        computed ? " over NVLink or PCIe switches" : "");
	} else if (ngroups > 1) {
		int best = -1, bestsz = 0;
		for (int g = 0; g < ngroups; g++) {
			int sz = 0;
			for (int i = 0; i < n; i++)
				sz += group[i] == g;
			if (sz > bestsz) {
				bestsz = sz;
				best = g;
			}
		}
		fputs("<p>GPUs are split into groups that cannot use peer-to-peer with each other. ", f);
		if (bestsz > 1) {
			fputs("To keep a job on one direct group, use <code>CUDA_VISIBLE_DEVICES=", f);
			int k = 0;
			for (int i = 0; i < n; i++)
				if (group[i] == best)
					fprintf(f, "%s%d", k++ ? "," : "", i);
			fprintf(f, "</code> (the largest group%s).", computed ? ", computed from the matrix" : "");
		} else {
			fputs("No two GPUs share a direct path: P2P traffic goes through the CPU; "
			      "<code>NCCL_P2P_DISABLE=1</code> is the usual workaround when it fails.",
			      f);
		}
		fputs("</p>\n", f);
	}
}

static void topology_section(FILE *f, const cJSON *b)
{
	const cJSON *topo = json_get(json_get(b, "facts"), "topology");
	if (!topo)
		return;
	static const char *cell[HTML_MAX_GPUS][HTML_MAX_GPUS];
	memset(cell, 0, sizeof cell);
	int n = topo_cells(topo, cell);
	if (n == 0)
		return;
	for (int i = 0; i < n; i++)
		if (!cell[i][i])
			cell[i][i] = "X";
	int group[HTML_MAX_GPUS], computed;
	int ngroups = topo_groups(topo, cell, n, group, &computed);
	topo_grid(f, cell, n, group);
	topo_recommend(f, topo, n, group, ngroups, computed);
}

/* ---- memory ---- */

static const char *PALETTE[] = {"#1f5fa8", "#c25e00", "#1e7b34", "#7b1fa2", "#00838f", "#ad1457", "#5d4037", "#455a64"};

/* "2026/11/30 14:16:53.366" or "2026-11-30 14:16:25[.123]" as seconds
 * (the same clock for both; the zone does not matter). */
static int parse_stamp(const char *s, double *out)
{
	double t = tstamp_epoch_of(s);
	if (isnan(t))
		return 0;
	*out = t;
	return 1;
}

static void oom_table(FILE *f, const cJSON *ev)
{
	static const struct { const char *k, *label; } rows[] = {
		{"capacity_mib", "GPU capacity"},
		{"tried_mib", "PyTorch tried to allocate"},
		{"free_mib", "free on the GPU at that moment"},
		{"process_in_use_mib", "in use by this process"},
		{"allocated_mib", "of which allocated by PyTorch (tensors)"},
		{"reserved_unallocated_mib", "of which reserved by PyTorch but unallocated (cache)"},
		{"reserved_mib", "reserved by PyTorch"},
		{"held_elsewhere_mib", "held elsewhere (CUDA context, NCCL buffers, other libraries)"},
		{"other_processes_mib", "held by other processes"},
	};
	double gpu = -1, rank = -1, v;
	json_num(ev, "gpu", &gpu);
	json_num(ev, "rank", &rank);
	fputs("<div><h3>The out-of-memory arithmetic", f);
	if (gpu >= 0)
		fprintf(f, " (GPU %.0f", gpu);
	if (rank >= 0)
		fprintf(f, "%srank %.0f", gpu >= 0 ? ", " : " (", rank);
	if (gpu >= 0 || rank >= 0)
		fputc(')', f);
	fputs("</h3><table>", f);
	for (size_t i = 0; i < sizeof rows / sizeof *rows; i++)
		if (json_num(ev, rows[i].k, &v)) {
			char s[48];
			fmt_mib(v, s, sizeof s);
			fprintf(f, "<tr><td%s>%s</td><td style=\"text-align:right\">%s</td></tr>",
			        str_starts(rows[i].label, "of which") ? " class=\"ind\"" : "", rows[i].label, s);
		}
	fputs("</table>", f);
	double tried, freem;
	if (json_num(ev, "tried_mib", &tried) && json_num(ev, "free_mib", &freem)) {
		char a[48], c[48], d[48];
		fmt_mib(tried, a, sizeof a);
		fmt_mib(freem, c, sizeof c);
		fmt_mib(tried - freem, d, sizeof d);
		if (tried > freem)
			fprintf(f, "<p>It asked for <b>%s</b> more but only <b>%s</b> was free: short by <b>%s</b>.", a, c, d);
		else
			fprintf(f, "<p>It asked for <b>%s</b> with <b>%s</b> free: the free memory was fragmented or "
			           "taken by another allocation at the same moment.", a, c);
		double inuse, cap;
		if (json_num(ev, "process_in_use_mib", &inuse) && json_num(ev, "capacity_mib", &cap) && cap > 0)
			fprintf(f, " This process already held %.1f%% of the GPU.", inuse / cap * 100);
		fputs("</p>", f);
	}
	const cJSON *src = json_get(ev, "source");
	if (json_str(src, "path")) {
		fputs("<p class=\"sub\">From the message at ", f);
		esc_path_line(f, src, 0);
		fputs(".</p>", f);
	}
	fputs("</div>\n", f);
}

static int same_path(const cJSON *s, const char *path)
{
	const char *p = json_str(s, "path");
	return (!p && !path) || (p && path && !strcmp(p, path));
}

/* One chart for the series of one document (their clocks agree). */
/* One chart: its scale and the moment of failure. */
struct chart {
	double tmax, ymax, cap, start;  /* start: the first series' clock, NAN when none */
	double fail_t;                  /* NAN when it could not be placed */
	int released;                   /* fail_t is where the memory was released */
	double top, pw, ph;
	double ystep;                   /* MiB between two ticks: a round number of GiB */
};
#define CHART_W 700
#define CHART_H 280
#define CHART_L 56
#define CHART_T 16

/* The scale: longest time, highest use, capacity, the start's clock. */
/* 1, 2, 2.5 or 5 times a power of ten, at least x */
static double nice_step(double x)
{
	if (!(x > 0))
		return 1;
	double p = pow(10, floor(log10(x)));
	static const double M[] = {1, 2, 2.5, 5, 10};
	for (size_t i = 0; i < sizeof M / sizeof *M; i++)
		if (M[i] * p >= x * (1 - 1e-9))
			return M[i] * p;
	return 10 * p;
}

static void chart_scan(struct chart *c, const cJSON *series, const char *path)
{
	const cJSON *s;
	double v;
	cJSON_ArrayForEach(s, series) {
		if (!same_path(s, path))
			continue;
		const cJSON *x;
		double idx = 0;
		cJSON_ArrayForEach(x, json_get(s, "samples")) {
			double t = idx;
			if (!json_num(x, "t", &t))
				t = idx;
			idx++;
			if (t > c->tmax) c->tmax = t;
			if (json_num(x, "used_mib", &v) && v > c->ymax) c->ymax = v;
			if (json_num(x, "total_mib", &v) && v > c->cap) c->cap = v;
		}
		if (json_num(s, "total_mib", &v) && v > c->cap)
			c->cap = v;
		double st;
		if (isnan(c->start) && parse_stamp(json_str(s, "start"), &st))
			c->start = st;
	}
}

/* The moment of failure: given by the facts, else the top diagnosis'
 * earliest timestamp against the trace's clock, else where the memory was
 * released after the peak (the processes exited). */
static void chart_failure(struct chart *c, const cJSON *b, const cJSON *series, const char *path, const cJSON *mem)
{
	const cJSON *s;
	double v;
	c->fail_t = NAN;
	if (json_num(mem, "failure_t", &v))
		c->fail_t = v;
	if (isnan(c->fail_t) && !isnan(c->start)) {
		const cJSON *d, *top = NULL, *e;
		cJSON_ArrayForEach(d, json_get(b, "diagnoses"))
			if (!top && !is_cascade(d))
				top = d;
		cJSON_ArrayForEach(e, json_get(top, "evidence")) {
			double ts;
			if (parse_stamp(json_str(e, "time"), &ts) && ts - c->start >= 0 && ts - c->start <= c->tmax + 5) {
				c->fail_t = ts - c->start;
				break;
			}
		}
	}
	c->released = 0;
	if (isnan(c->fail_t)) {
		cJSON_ArrayForEach(s, series) {
			double pk, pt, idx = 0;
			if (!same_path(s, path) || !json_num(s, "peak_mib", &pk) || !json_num(s, "peak_t", &pt) || pk < 1024)
				continue;
			const cJSON *x;
			cJSON_ArrayForEach(x, json_get(s, "samples")) {
				double t = idx, u;
				if (!json_num(x, "t", &t))
					t = idx;
				idx++;
				if (t > pt && json_num(x, "used_mib", &u) && u < pk / 2) {
					if (isnan(c->fail_t) || t < c->fail_t)
						c->fail_t = t;
					c->released = 1;
					break;
				}
			}
		}
	}
}

/* The frame: grid, axes, the capacity line. */
static void chart_axes(FILE *f, const struct chart *c, const char *path)
{
	const double W = CHART_W, H = CHART_H, L = CHART_L, T = CHART_T, pw = c->pw, ph = c->ph, top = c->top,
	             tmax = c->tmax, cap = c->cap;
	fputs("<div><div class=\"sub\">", f);
	esc(f, path ? path : "memory trace");
	fputs("</div>\n", f);
	fputs("<div class=\"scroll\">", f);
	fprintf(f, "<svg role=\"img\" aria-label=\"GPU memory over time\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
	           "xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\">\n",
	        W, H, W, H);
	/* round tick values: multiples of 1, 2, 2.5 or 5 times a power of ten */
	double ystep = c->ystep;
	for (int k = 0; k * ystep <= top + 1e-6; k++) {
		double gv = k * ystep, y = T + ph - gv / top * ph;
		fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#e3e6ea\"/>", L, y, L + pw, y);
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" text-anchor=\"end\" fill=\"#5b6673\">%.*f GiB</text>",
		        L - 4, y + 4, fmod(ystep / 1024, 1) != 0 ? 1 : 0, gv / 1024);
	}
	double tstep = nice_step(tmax / 5);
	for (int k = 0; k * tstep <= tmax + 1e-9; k++) {
		double tv = k * tstep, x = L + tv / tmax * pw;
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" text-anchor=\"middle\" fill=\"#5b6673\">%.*f s</text>", x,
		        T + ph + 16, fmod(tstep, 1) != 0 ? (fmod(tstep * 10, 1) != 0 ? 2 : 1) : 0, tv);
	}
	fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" text-anchor=\"middle\" fill=\"#5b6673\">time since the trace started</text>",
	        L + pw / 2, H - 4);
	fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" stroke=\"#c7cdd3\"/>", L, T, pw, ph);
	if (cap > 0) {
		double y = T + ph - cap / top * ph;
		char cs[48];
		fmt_mib(cap, cs, sizeof cs);
		fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#b3261e\" stroke-width=\"1.5\" "
		           "stroke-dasharray=\"6 4\"/><text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" fill=\"#b3261e\" "
		           "stroke=\"#fff\" stroke-width=\"3\" paint-order=\"stroke\">capacity %s</text>",
		        L, y, L + pw, y, L + 4, y + 13, cs);
		/* at the left, under the line: peaks (the markers) come later and at the top */
	}
}

/* One polyline per GPU of the document, with its peak. */
static void chart_lines(FILE *f, const struct chart *c, const cJSON *series, const char *path)
{
	const double L = CHART_L, T = CHART_T, pw = c->pw, ph = c->ph, top = c->top, tmax = c->tmax;
	const cJSON *s;
	int si = 0;
	cJSON_ArrayForEach(s, series) {
		if (!same_path(s, path))
			continue;
		const cJSON *samples = json_get(s, "samples"), *x;
		int ns = json_size(samples), step = ns > HTML_MAX_POINTS ? (ns + HTML_MAX_POINTS - 1) / HTML_MAX_POINTS : 1;
		double g = si;
		json_num(s, "gpu", &g);
		const char *col = PALETTE[(int)g % 8];
		fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"", col);
		int k = 0;
		double idx = 0;
		cJSON_ArrayForEach(x, samples) {
			double t = idx, u;
			if (!json_num(x, "t", &t))
				t = idx;
			idx++;
			if (k++ % step && k != ns)
				continue;
			if (!json_num(x, "used_mib", &u))
				continue;
			fprintf(f, "%.1f,%.1f ", L + t / tmax * pw, T + ph - u / top * ph);
		}
		fprintf(f, "\"><title>GPU %.0f</title></polyline>\n", g);
		double pk, pt;
		if (json_num(s, "peak_mib", &pk) && json_num(s, "peak_t", &pt))
			fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" fill=\"%s\"><title>GPU %.0f peak %.0f MiB at %.1f s</title></circle>",
			        L + pt / tmax * pw, T + ph - pk / top * ph, col, g, pk, pt);
		si++;
	}
}

/* The failure line and what it means. */
static void chart_failure_line(FILE *f, const struct chart *c)
{
	const double L = CHART_L, T = CHART_T, pw = c->pw, ph = c->ph, tmax = c->tmax, fail_t = c->fail_t;
	const int released = c->released;
	if (!isnan(fail_t) && fail_t >= 0 && fail_t <= tmax * 1.05) {
		double x = L + (fail_t > tmax ? tmax : fail_t) / tmax * pw;
		int right = x > L + pw - 150;
		fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#b3261e\" stroke-width=\"2\"/>"
		           "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" fill=\"#b3261e\" font-weight=\"600\" text-anchor=\"%s\" "
		           "stroke=\"#fff\" stroke-width=\"4\" paint-order=\"stroke\">%s</text>",
		        x, T, x, T + ph, x + (right ? -5 : 5), T + ph * 0.55, right ? "end" : "start",
		        released ? "failed: memory released" : "failure");
	}
	fputs("</svg></div>\n", f);
	if (isnan(fail_t))
		fputs("<p class=\"sub\">The moment of failure could not be placed on this trace (no clock shared with the logs).</p>", f);
	else if (released)
		fprintf(f, "<p class=\"sub\">This trace shares no clock with the logs; the red line marks where the memory "
		           "was released (%.1f s), when the processes exited after the failure.</p>", fail_t);
	fputs("</div>\n", f);
}

static void memory_chart(FILE *f, const cJSON *b, const cJSON *series, const char *path, const cJSON *mem)
{
	struct chart c = {0, 0, 0, NAN, NAN, 0, 0, 0, 0, 0};
	chart_scan(&c, series, path);
	chart_failure(&c, b, series, path, mem);
	double hi = (c.cap > c.ymax ? c.cap : c.ymax) * 1.04;
	if (hi <= 0)
		hi = 1024;
	c.ystep = nice_step(hi / 1024 / 4) * 1024;
	c.top = ceil(hi / c.ystep) * c.ystep;
	if (c.tmax <= 0)
		c.tmax = 1;
	c.pw = CHART_W - CHART_L - 16;
	c.ph = CHART_H - CHART_T - 40;
	chart_axes(f, &c, path);
	chart_lines(f, &c, series, path);
	chart_failure_line(f, &c);
}

static void memory_section(FILE *f, const cJSON *b)
{
	const cJSON *mem = json_get(json_get(b, "facts"), "memory");
	const cJSON *series = json_get(mem, "series"), *s;
	const cJSON *ooms = json_get(mem, "oom_events");
	if (!json_size(series) && !json_size(ooms))
		return;
	fputs("<h2>GPU memory</h2>\n<div class=\"grid2\">\n", f);
	/* one chart per document with a time series (2+ samples) */
	const char *paths[4];
	int np = 0;
	cJSON_ArrayForEach(s, series) {
		if (json_size(json_get(s, "samples")) < 2)
			continue;
		const char *p = json_str(s, "path");
		int seen = 0;
		for (int i = 0; i < np; i++)
			seen |= (!p && !paths[i]) || (p && paths[i] && !strcmp(p, paths[i]));
		if (!seen && np < 4)
			paths[np++] = p;
	}
	for (int i = 0; i < np; i++)
		memory_chart(f, b, series, paths[i], mem);
	if (json_size(series)) {
		fputs("<div><table><tr><th>GPU</th><th>peak</th><th>capacity</th><th>headroom at peak</th><th>from</th></tr>", f);
		int si = 0;
		cJSON_ArrayForEach(s, series) {
			double g = si, pk = NAN, tot = 0, hr;
			json_num(s, "gpu", &g);
			json_num(s, "peak_mib", &pk);
			json_num(s, "total_mib", &tot);
			char a[48] = "?", c[48] = "?", h[48] = "?";
			if (!isnan(pk))
				fmt_mib(pk, a, sizeof a);
			if (tot > 0)
				fmt_mib(tot, c, sizeof c);
			if (json_num(s, "headroom_mib", &hr) || (!isnan(pk) && tot > 0 && ((hr = tot - pk), 1)))
				fmt_mib(hr, h, sizeof h);
			fprintf(f, "<tr><td><i class=\"sw\" style=\"background:%s\"></i>GPU %.0f</td><td>%s</td><td>%s</td><td>%s</td>"
			           "<td class=\"sub\">",
			        PALETTE[(int)g % 8], g, a, c, h);
			esc(f, json_str(s, "path"));
			fputs("</td></tr>", f);
			si++;
		}
		fputs("</table></div>\n", f);
	}
	const cJSON *ev0 = cJSON_GetArrayItem(ooms, 0);
	if (ev0)
		oom_table(f, ev0);
	fputs("</div>\n", f);
	if (json_size(ooms) > 1)
		fprintf(f, "<p class=\"sub\">%d out-of-memory messages in all; the first is shown.</p>\n", json_size(ooms));
}

/* ---- versions, environment, next steps ---- */

/* A line for a lint/compat item that may be a string or an object. */
static void item_line(FILE *f, const cJSON *x)
{
	if (cJSON_IsString(x)) {
		esc_code(f, x->valuestring);
		return;
	}
	const char *st = json_str(x, "verdict");
	if (!st) st = json_str(x, "status");
	if (!st) st = json_str(x, "severity");
	if (!st) st = json_str(x, "level");
	const cJSON *ok = json_get(x, "ok");
	if (!st && cJSON_IsBool(ok))
		st = cJSON_IsTrue(ok) ? "ok" : "error";
	if (st) {
		const char *cls = (!strcmp(st, "ok") || !strcmp(st, "compatible") || !strcmp(st, "pass")) ? "ok"
		                  : (!strcmp(st, "warning") || !strcmp(st, "warn") || !strcmp(st, "unknown")) ? "warning"
		                  : (!strcmp(st, "info") || !strcmp(st, "note")) ? "info" : "error";
		fprintf(f, "<span class=\"badge s-%s\">", cls);
		esc(f, st);
		fputs("</span> ", f);
	}
	const char *name = json_str(x, "name");
	if (!name) name = json_str(x, "check");
	if (!name) name = json_str(x, "var");
	if (name) {
		fputs("<code>", f);
		esc(f, name);
		fputs("</code> ", f);
	}
	const char *msg = json_str(x, "message");
	if (!msg) msg = json_str(x, "text");
	if (!msg) msg = json_str(x, "detail");
	if (!msg) msg = json_str(x, "title");
	if (!msg) msg = json_str(x, "why");
	esc_code(f, msg);
	const char *fix = json_str(x, "fix");
	if (!fix) fix = json_str(x, "hint");
	if (fix) {
		fputs(" — ", f);
		esc_code(f, fix);
	}
}

static int interesting_package(const char *k)
{
	if (str_starts(k, "torch") || str_starts(k, "pytorch") || str_starts(k, "nvidia-") || strstr(k, "nccl") ||
	    strstr(k, "cuda") || strstr(k, "cudnn"))
		return 1;
	static const char *keys[] = {"deepspeed", "vllm", "transformers", "accelerate",
	                             "megatron", "apex", "flash", "triton", "jax", "xformers", "peft", "trl", "llamafactory",
	                             "llama-factory", "bitsandbytes", "nvshmem", "tensorrt", "sglang", "ray"};
	for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
		if (str_starts(k, keys[i]))
			return 1;
	return 0;
}

static const struct { const char *k, *label; } VERSION_TOPS[] = {
	{"nccl_versions", "NCCL (from the logs)"},
	{"nccl_cuda_builds", "CUDA that NCCL was built for"},
	{"cuda_driver_versions", "CUDA version of the driver (from NCCL)"},
};

/* component, version, where it was read */
static void versions_table(FILE *f, const cJSON *facts, const cJSON *ver)
{
	fputs("<div class=\"grid2\"><table><tr><th>component</th><th>version</th><th>from</th></tr>\n", f);
	for (size_t i = 0; i < sizeof VERSION_TOPS / sizeof *VERSION_TOPS; i++) {
		const cJSON *a = json_get(facts, VERSION_TOPS[i].k), *x;
		if (!json_size(a))
			continue;
		fprintf(f, "<tr><td>%s</td><td>", VERSION_TOPS[i].label);
		int k = 0;
		cJSON_ArrayForEach(x, a) {
			fputs(k++ ? ", " : "", f);
			esc(f, jtext(x));
		}
		fprintf(f, "</td><td>%s</td></tr>\n", k > 1 ? "<b class=\"bad\">differs across ranks</b>" : "");
	}
	const cJSON *x;
	cJSON_ArrayForEach(x, ver) {
		if (!strcmp(x->string, "packages") || !strcmp(x->string, "conflicts") || !strcmp(x->string, "compat") ||
		    !strcmp(x->string, "compatibility"))
			continue;
		const char *t = jtext(x);
		if (!t)
			continue;
		fputs("<tr><td>", f);
		esc(f, x->string);
		fputs("</td><td class=\"mono\">", f);
		esc(f, t);
		fputs("</td><td class=\"sub\">", f);
		const cJSON *src = json_get(x, "source");
		if (src)
			esc_path_line(f, src, 1);
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n", f);
}

/* the packages that matter for NCCL jobs, at most 40 */
static void versions_packages(FILE *f, const cJSON *ver)
{
	const cJSON *x;
	const cJSON *pk = json_get(ver, "packages");
	if (json_size(pk)) {
		int shown = 0, total = json_size(pk);
		fputs("<table><tr><th>package</th><th>version</th></tr>", f);
		cJSON_ArrayForEach(x, pk) {
			if (!interesting_package(x->string) || shown >= 40)
				continue;
			shown++;
			fputs("<tr><td>", f);
			esc(f, x->string);
			fputs("</td><td class=\"mono\">", f);
			esc(f, jtext(x));
			fputs("</td></tr>", f);
		}
		fprintf(f, "</table><p class=\"sub\">%d of %d installed packages shown (those that matter for NCCL jobs).</p>",
		        shown, total);
	}
}

static void versions_conflicts(FILE *f, const cJSON *ver)
{
	const cJSON *x;
	const cJSON *conf = json_get(ver, "conflicts");
	if (json_size(conf)) {
		fputs("<p><b>Conflicting reports</b> (two sources disagree):</p><ul>", f);
		cJSON_ArrayForEach(x, conf) {
			fputs("<li><code>", f);
			esc(f, json_str(x, "key"));
			fputs("</code>: ", f);
			esc(f, json_str(x, "first"));
			fputs(" vs ", f);
			esc(f, json_str(x, "value"));
			const cJSON *src = json_get(x, "source");
			if (src) {
				fputs(" <span class=\"sub\">(", f);
				esc_path_line(f, src, 0);
				fputs(")</span>", f);
			}
			fputs("</li>", f);
		}
		fputs("</ul>\n", f);
	}
}

static void versions_section(FILE *f, const cJSON *b)
{
	const cJSON *facts = json_get(b, "facts");
	const cJSON *ver = json_get(facts, "versions");
	int rows = 0;
	for (size_t i = 0; i < sizeof VERSION_TOPS / sizeof *VERSION_TOPS; i++)
		rows += json_size(json_get(facts, VERSION_TOPS[i].k)) > 0;
	const cJSON *compat = json_get(facts, "compat");
	if (!compat) compat = json_get(facts, "compatibility");
	if (!compat) compat = json_get(ver, "compat");
	if (!compat) compat = json_get(ver, "compatibility");
	if (!rows && !json_size(ver) && !json_size(compat))
		return;
	fputs("<h2>Versions</h2>\n", f);
	if (json_size(compat)) {
		fputs("<ul>", f);
		const cJSON *x;
		cJSON_ArrayForEach(x, compat) {
			fputs("<li>", f);
			item_line(f, x);
			fputs("</li>", f);
		}
		fputs("</ul>\n", f);
	}
	versions_table(f, facts, ver);
	versions_packages(f, ver);
	fputs("</div>\n", f);
	versions_conflicts(f, ver);
}

/* Variables that matter to an NCCL job; an env dump holds every other one too. */
static int relevant_env(const char *k)
{
	static const char *pre[] = {"NCCL_", "CUDA_", "TORCH_", "PYTORCH_", "MASTER_", "OMP_", "NVIDIA_", "UCX_", "FI_",
	                            "GLOO_", "TORCHELASTIC_", "PET_", "SLURM_", "OMPI_", "PMIX_", "NVSHMEM_", "CUBLAS_",
	                            "LD_", "DS_", "ACCELERATE_", "VLLM_", "HF_", "TRANSFORMERS_"};
	static const char *exact[] = {"WORLD_SIZE", "RANK", "LOCAL_RANK", "LOCAL_WORLD_SIZE", "GROUP_RANK", "NODE_RANK",
	                              "PATH", "CONDA_PREFIX", "VIRTUAL_ENV"};
	for (size_t i = 0; i < sizeof pre / sizeof *pre; i++)
		if (str_starts(k, pre[i]))
			return 1;
	for (size_t i = 0; i < sizeof exact / sizeof *exact; i++)
		if (!strcmp(k, exact[i]))
			return 1;
	return 0;
}

static void env_section(FILE *f, const cJSON *b)
{
	const cJSON *facts = json_get(b, "facts");
	const cJSON *env = json_get(facts, "env");
	const cJSON *lint = json_get(facts, "env_lint");
	if (!lint) lint = json_get(facts, "lint");
	if (!lint) lint = json_get(env, "lint");
	int nvars = 0, others = 0;
	const cJSON *x;
	cJSON_ArrayForEach(x, env)
		if (x->string && strcmp(x->string, "lint") && jtext(x)) {
			if (relevant_env(x->string))
				nvars++;
			else
				others++;
		}
	if (!nvars && !json_size(lint))
		return;
	fputs("<h2>Environment</h2>\n", f);
	if (json_size(lint)) {
		fputs("<ul>", f);
		cJSON_ArrayForEach(x, lint) {
			fputs("<li>", f);
			item_line(f, x);
			fputs("</li>", f);
		}
		fputs("</ul>\n", f);
	}
	if (nvars) {
		/* sorted by name */
		const cJSON **v = xmalloc((size_t)nvars * sizeof *v);
		int k = 0;
		cJSON_ArrayForEach(x, env)
			if (x->string && strcmp(x->string, "lint") && jtext(x) && relevant_env(x->string))
				v[k++] = x;
		for (int i = 1; i < k; i++)
			for (int j = i; j > 0 && strcmp(v[j - 1]->string, v[j]->string) > 0; j--) {
				const cJSON *t = v[j];
				v[j] = v[j - 1];
				v[j - 1] = t;
			}
		fprintf(f, "<details%s><summary>%d variable%s that NCCL, CUDA or PyTorch read</summary>\n"
		           "<table><tr><th>variable</th><th>value</th><th>from</th></tr>",
		        nvars <= 12 ? " open" : "", nvars, nvars == 1 ? "" : "s");
		for (int i = 0; i < k && i < HTML_MAX_ENV; i++) {
			fputs("<tr><td class=\"mono\">", f);
			esc(f, v[i]->string);
			fputs("</td><td class=\"mono\">", f);
			esc(f, jtext(v[i]));
			fputs("</td><td class=\"sub\">", f);
			esc_path_line(f, v[i], 1);
			if (json_str(v[i], "source")) {
				fputs(" (", f);
				esc(f, json_str(v[i], "source"));
				fputc(')', f);
			}
			fputs("</td></tr>", f);
		}
		fputs("</table>", f);
		if (others)
			fprintf(f, "<p class=\"sub\">%d other variable%s of the environment dump not shown.</p>", others,
			        others == 1 ? "" : "s");
		fputs("</details>\n", f);
		free(v);
	}
}

/* The top three explanations when the first is not certain
 * (hypotheses.c), each with what tells it apart. */
static void hypotheses_section(FILE *f, const cJSON *b)
{
	const cJSON *hs = json_get(b, "hypotheses"), *h;
	if (json_size(hs) < 2)
		return;
	fputs("<h2>Hypotheses</h2>\n<p class=\"sub\">The top diagnosis is not certain; what tells them apart:</p>\n<ol>", f);
	cJSON_ArrayForEach(h, hs) {
		double conf = 0;
		json_num(h, "confidence", &conf);
		fputs("<li><b>", f);
		esc(f, json_str(h, "category"));
		fprintf(f, "</b>, %s (%.0f%%)", confidence_word(conf), conf * 100);
		if (json_str(h, "diagnosis")) {
			fputs(" · <code>", f);
			esc(f, json_str(h, "diagnosis"));
			fputs("</code>", f);
		}
		fputs(": ", f);
		esc_code(f, json_str(h, "tell_apart"));
		fputs("</li>", f);
	}
	fputs("</ol>\n", f);
}

static void next_steps_section(FILE *f, const cJSON *b)
{
	const cJSON *ns = json_get(b, "next_steps"), *x;
	if (!ns)
		ns = json_get(json_get(b, "facts"), "next_steps");
	const char *v = json_str(b, "verdict");
	if (json_size(ns)) {
		fputs("<h2>Next steps</h2>\n<ol>", f);
		cJSON_ArrayForEach(x, ns) {
			fputs("<li>", f);
			if (cJSON_IsString(x)) {
				esc_code(f, x->valuestring);
			} else {
				const char *t = json_str(x, "text");
				if (!t) t = json_str(x, "step");
				if (!t) t = json_str(x, "title");
				esc_code(f, t);
				const char *cmd = json_str(x, "command");
				if (cmd) {
					fputs(" <code>", f);
					esc(f, cmd);
					fputs("</code>", f);
				}
				const char *why = json_str(x, "why");
				if (why) {
					fputs(" <span class=\"sub\">", f);
					esc_code(f, why);
					fputs("</span>", f);
				}
			}
			fputs("</li>", f);
		}
		fputs("</ol>\n", f);
		return;
	}
	/* derived from the findings when no module supplied next steps */
	if (!v || !strcmp(v, "healthy"))
		return;
	fputs("<h2>Next steps</h2>\n<ol>", f);
	const cJSON *d, *top = NULL;
	cJSON_ArrayForEach(d, json_get(b, "diagnoses"))
		if (!top && !is_cascade(d))
			top = d;
	if (top && json_size(json_get(top, "fix"))) {
		fputs("<li>Apply the fix for the most likely cause: ", f);
		esc_code(f, jtext(cJSON_GetArrayItem(json_get(top, "fix"), 0)));
		fputs("</li>", f);
		const cJSON *env = json_get(json_get(top, "verify"), "env");
		if (json_size(env)) {
			fputs("<li>Check it quickly on the same machine with <code>nccl-triage verify", f);
			cJSON_ArrayForEach(x, env) {
				char *arg = verify_env_arg(x->string, cJSON_IsString(x) ? x->valuestring : NULL);
				esc(f, arg);
				free(arg);
			}
			fputs("</code>, then re-run the job.</li>", f);
		} else {
			fputs("<li>Re-run the job and check that this failure is gone.</li>", f);
		}
	} else if (!strcmp(v, "unknown_failure")) {
		fputs("<li>Re-run with <code>NCCL_DEBUG=INFO</code> (and <code>NCCL_DEBUG_SUBSYS=INIT,NET</code>) and "
		      "<code>TORCH_DISTRIBUTED_DEBUG=DETAIL</code>, collect every rank's output, and analyse again.</li>",
		      f);
	} else {
		fputs("<li>Collect the job's complete output (all ranks) with <code>NCCL_DEBUG=INFO</code>.</li>", f);
	}
	if (!json_get(json_get(b, "facts"), "topology"))
		fputs("<li>Add <code>nvidia-smi topo -m</code> and <code>nvidia-smi</code> output to the bundle: the GPU "
		      "topology and memory explain many failures.</li>",
		      f);
	fputs("</ol>\n", f);
}

static void inputs_section(FILE *f, const cJSON *b)
{
	const cJSON *in = json_get(b, "inputs"), *w = json_get(b, "warnings"), *x;
	fprintf(f, "<h2>Inputs</h2>\n<details%s><summary>%d file%s read", json_size(w) ? " open" : "", json_size(in),
	        json_size(in) == 1 ? "" : "s");
	if (json_size(w))
		fprintf(f, ", %d warning%s", json_size(w), json_size(w) == 1 ? "" : "s");
	fputs("</summary>\n", f);
	if (json_size(w)) {
		fputs("<ul>", f);
		cJSON_ArrayForEach(x, w) {
			fputs("<li class=\"mono\">", f);
			esc(f, cJSON_IsString(x) ? x->valuestring : "");
			fputs("</li>", f);
		}
		fputs("</ul>", f);
	}
	if (json_size(in)) {
		fputs("<table><tr><th>file</th><th>recognised as</th><th>lines</th><th>bytes</th></tr>", f);
		cJSON_ArrayForEach(x, in) {
			double l = 0, by = 0;
			json_num(x, "lines", &l);
			json_num(x, "bytes", &by);
			fputs("<tr><td class=\"mono\">", f);
			esc(f, json_str(x, "path"));
			fputs("</td><td>", f);
			esc(f, json_str(x, "kind"));
			if (cJSON_IsFalse(json_get(x, "complete")))
				fputs(" <b>(cut short)</b>", f);
			fprintf(f, "</td><td>%.0f</td><td>%.0f</td></tr>", l, by);
		}
		fputs("</table>", f);
	}
	fputs("</details>\n", f);
}

static void bundle_section(FILE *f, const cJSON *b, int idx)
{
	fprintf(f, "<section id=\"b%d\">\n<h1>", idx);
	esc(f, json_str(b, "name"));
	fputs("</h1>\n", f);
	hero(f, b);
	diagnoses_section(f, b, idx);
	hypotheses_section(f, b);
	unexplained_section(f, b, idx);
	timeline_section(f, b);
	flight_lanes_html(f, b, esc); /* flight recorder */
	topology_section(f, b);
	memory_section(f, b);
	versions_section(f, b);
	env_section(f, b);
	next_steps_section(f, b);
	inputs_section(f, b);
	fputs("</section>\n", f);
}

void report_html(FILE *f, const cJSON *doc)
{
	const cJSON *bundles = json_get(doc, "bundles"), *b;
	int n = json_size(bundles);
	char title[300];
	if (n == 1)
		snprintf(title, sizeof title, "nccl-triage: %s — %s", json_str(cJSON_GetArrayItem(bundles, 0), "name") ?
		         json_str(cJSON_GetArrayItem(bundles, 0), "name") : "report",
		         verdict_words(json_str(cJSON_GetArrayItem(bundles, 0), "verdict")));
	else
		snprintf(title, sizeof title, "nccl-triage: %d bundles", n);
	page_begin(f, title);
	fputs("<div class=\"sub\">nccl-triage report</div>\n", f);
	if (n > 1) {
		fputs("<p class=\"toc\">", f);
		int i = 0;
		cJSON_ArrayForEach(b, bundles) {
			fprintf(f, "<a href=\"#b%d\">", i++);
			esc(f, json_str(b, "name"));
			fprintf(f, "</a> <span class=\"badge v-%s\">", json_str(b, "verdict") ? json_str(b, "verdict") : "");
			esc(f, verdict_words(json_str(b, "verdict")));
			fputs("</span> ", f);
		}
		fputs("</p>\n", f);
	}
	int i = 0;
	cJSON_ArrayForEach(b, bundles)
		bundle_section(f, b, i++);
	page_end(f, doc);
}

/* ---- batch ---- */

struct count {
	const char *k;
	double n;
};

static int count_cmp(const void *x, const void *y)
{
	const struct count *a = x, *b = y;
	if (a->n != b->n)
		return a->n > b->n ? -1 : 1;
	return strcmp(a->k, b->k);
}

static const cJSON *top_diag(const cJSON *b)
{
	const cJSON *d;
	cJSON_ArrayForEach(d, json_get(b, "diagnoses"))
		if (!is_cascade(d))
			return d;
	d = json_get(b, "top");
	return d;
}

/* the four verdicts, counted */
static void batch_verdicts(FILE *f, const cJSON *summary, const cJSON *bundles)
{
	const cJSON *b;
	const cJSON *verd = json_get(summary, "verdicts");
	static const char *VN[] = {"diagnosed", "unknown_failure", "healthy", "no_evidence"};
	double vc[4] = {0};
	for (int i = 0; i < 4; i++) {
		if (cJSON_IsObject(verd))
			json_num(verd, VN[i], &vc[i]);
		else
			cJSON_ArrayForEach(b, bundles)
				if (json_str(b, "verdict") && !strcmp(json_str(b, "verdict"), VN[i]))
					vc[i]++;
	}
	fputs("<p>", f);
	for (int i = 0; i < 4; i++)
		fprintf(f, "<span class=\"badge v-%s\">%s: %.0f</span> ", VN[i], verdict_words(VN[i]), vc[i]);
	fputs("</p>\n", f);
}

/* bundles by the category of their most likely cause: a bar chart */
static void batch_categories(FILE *f, const cJSON *summary, const cJSON *bundles)
{
	const cJSON *x, *b;
	struct count cats[64];
	int nc = 0;
	const cJSON *cs = json_get(summary, "categories");
	if (cJSON_IsObject(cs)) {
		cJSON_ArrayForEach(x, cs)
			if (cJSON_IsNumber(x) && nc < 64)
				cats[nc++] = (struct count){x->string, x->valuedouble};
	} else {
		cJSON_ArrayForEach(b, bundles) {
			const cJSON *d = top_diag(b);
			const char *c = json_str(d, "category");
			if (!c)
				continue;
			int k;
			for (k = 0; k < nc; k++)
				if (!strcmp(cats[k].k, c))
					break;
			if (k == nc && nc < 64)
				cats[nc++] = (struct count){c, 0};
			if (k < nc)
				cats[k].n++;
		}
	}
	xqsort(cats, (size_t)nc, sizeof *cats, count_cmp);
	if (nc) {
		double mx = cats[0].n > 0 ? cats[0].n : 1;
		const double W = 760, L = 300, bh = 22;
		double H = nc * bh + 10;
		fputs("<h2>Failure categories</h2>\n<p class=\"sub\">Bundles by the category of their most likely cause.</p>\n", f);
		fputs("<div class=\"scroll\">", f);
		fprintf(f, "<svg role=\"img\" aria-label=\"failure categories\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
		           "xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\">\n",
		        W, H, W, H);
		for (int i = 0; i < nc; i++) {
			double y = 5 + i * bh, w = cats[i].n / mx * (W - L - 60);
			fputs("<g><title>", f);
			esc(f, cats[i].k);
			fputs("</title>", f);
			svg_text(f, L - 6, y + 15, "font-size=\"12\" text-anchor=\"end\"", category_words(cats[i].k), 40);
			fputs("</g>", f);
			fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"/>"
			           "<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\">%.0f</text>\n",
			        L, y + 3, w < 1 ? 1 : w, bh - 6, PALETTE[i % 8], L + w + 6, y + 15, cats[i].n);
		}
		fputs("</svg></div>\n", f);
	}
}

/* the 25 most frequent fingerprints */
static void batch_fingerprints(FILE *f, const cJSON *summary)
{
	const cJSON *x;
	const cJSON *fps = json_get(summary, "fingerprints");
	if (!fps)
		fps = json_get(summary, "top_fingerprints");
	if (json_size(fps)) {
		int titles = 0;
		cJSON_ArrayForEach(x, fps)
			titles |= json_str(x, "title") != NULL;
		fprintf(f, "<h2>Top fingerprints</h2>\n<table><tr><th>bundles</th><th>fingerprint</th><th>category</th>%s"
		           "<th>example</th></tr>\n",
		        titles ? "<th>cause</th>" : "");
		int i = 0;
		cJSON_ArrayForEach(x, fps) {
			if (i++ >= 25)
				break;
			double c = 0;
			if (!json_num(x, "count", &c))
				json_num(x, "bundles", &c);
			fprintf(f, "<tr><td>%.0f</td><td class=\"mono\">", c);
			const char *id = json_str(x, "fingerprint");
			if (!id) id = json_str(x, "diagnosis");
			if (!id) id = json_str(x, "id");
			esc(f, id);
			const cJSON *caps = json_get(x, "captures"), *cp;
			cJSON_ArrayForEach(cp, caps)
				if (cJSON_IsString(cp)) {
					fputs(" ", f);
					esc(f, cp->string);
					fputc('=', f);
					esc(f, cp->valuestring);
				}
			fputs("</td><td>", f);
			esc(f, category_words(json_str(x, "category")));
			if (titles) {
				fputs("</td><td>", f);
				esc(f, json_str(x, "title"));
			}
			fputs("</td><td class=\"mono\">", f);
			const cJSON *ex = json_get(x, "example");
			if (!ex)
				ex = json_get(x, "examples");
			if (cJSON_IsArray(ex))
				ex = cJSON_GetArrayItem(ex, 0);
			esc(f, cJSON_IsString(ex) ? ex->valuestring : json_str(ex, "name") ? json_str(ex, "name") : json_str(ex, "bundle"));
			fputs("</td></tr>\n", f);
		}
		fputs("</table>\n", f);
	}
}

/* a row per bundle */
static void batch_bundles(FILE *f, const cJSON *bundles)
{
	const cJSON *b;
	if (json_size(bundles)) {
		fputs("<h2>Bundles</h2>\n<table><tr><th>bundle</th><th>verdict</th><th>most likely cause</th><th>category</th>"
		      "<th>first evidence</th></tr>\n",
		      f);
		cJSON_ArrayForEach(b, bundles) {
			const cJSON *d = top_diag(b);
			const char *v = json_str(b, "verdict");
			fputs("<tr><td class=\"mono\">", f);
			esc(f, json_str(b, "name"));
			fprintf(f, "</td><td><span class=\"badge v-%s\">", v ? v : "");
			esc(f, verdict_words(v));
			fputs("</span></td><td>", f);
			esc(f, json_str(d, "title"));
			fputs("</td><td>", f);
			esc(f, json_str(d, "category"));
			fputs("</td><td class=\"mono\">", f);
			const cJSON *e = cJSON_GetArrayItem(json_get(d, "evidence"), 0);
			if (!e && v && !strcmp(v, "unknown_failure"))
				e = cJSON_GetArrayItem(json_get(b, "unexplained"), 0);
			if (e) {
				double l = 0;
				esc(f, json_str(e, "path"));
				if (json_num(e, "line", &l))
					fprintf(f, ":%.0f ", l);
				const char *t = json_str(e, "text");
				if (t) {
					size_t n = strlen(t);
					escn(f, t, n > 140 ? 140 : n);
					if (n > 140)
						fputs("…", f);
				}
			}
			fputs("</td></tr>\n", f);
		}
		fputs("</table>\n", f);
	}
}

void report_html_batch(FILE *f, const cJSON *summary, const cJSON *bundles)
{
	page_begin(f, "nccl-triage: batch summary");
	fputs("<h1>Batch summary</h1>\n", f);
	double nb = json_size(bundles), el = 0;
	json_num(summary, "bundles", &nb);
	fprintf(f, "<p class=\"sub\">%.0f bundle%s analysed", nb, nb == 1 ? "" : "s");
	if (json_num(summary, "elapsed_s", &el))
		fprintf(f, " in %.1f s", el);
	fputs(".</p>\n", f);
	batch_verdicts(f, summary, bundles);
	batch_categories(f, summary, bundles);
	batch_fingerprints(f, summary);
	batch_bundles(f, bundles);
	page_end(f, summary);
}

/* report_formats.h */
cJSON *report_html_row(const cJSON *obj)
{
	cJSON *row = cJSON_CreateObject();
	static const char *const KEYS[] = {"name", "verdict"};
	for (size_t i = 0; i < 2; i++) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, KEYS[i]);
		if (v)
			cJSON_AddItemToObject(row, KEYS[i], cJSON_Duplicate(v, 1));
	}
	cJSON *ds = cJSON_AddArrayToObject(row, "diagnoses");
	const cJSON *d;
	int k = 0;
	cJSON_ArrayForEach(d, cJSON_GetObjectItemCaseSensitive(obj, "diagnoses")) {
		if (k++ == 3)
			break;
		cJSON *x = cJSON_CreateObject();
		static const char *const DK[] = {"id", "title", "category", "severity", "role"};
		for (size_t i = 0; i < 5; i++) {
			const cJSON *v = cJSON_GetObjectItemCaseSensitive(d, DK[i]);
			if (v)
				cJSON_AddItemToObject(x, DK[i], cJSON_Duplicate(v, 1));
		}
		const cJSON *e0 = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(d, "evidence"), 0);
		cJSON *ev = cJSON_AddArrayToObject(x, "evidence");
		if (e0)
			cJSON_AddItemToArray(ev, cJSON_Duplicate(e0, 1));
		cJSON_AddItemToArray(ds, x);
	}
	cJSON *un = cJSON_AddArrayToObject(row, "unexplained");
	const cJSON *u0 = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(obj, "unexplained"), 0);
	if (u0)
		cJSON_AddItemToArray(un, cJSON_Duplicate(u0, 1));
	return row;
}
