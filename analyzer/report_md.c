/* report_md.c - a Markdown report to paste into a ticket reply: the verdict
 * and the most likely root cause with its fix first, then the evidence in
 * fenced blocks (log text is never interpreted as Markdown or HTML). */
#include "report.h"

#include <string.h>

#include "bundle.h"
#include "correlate.h"
#include "nextsteps.h" /* ranks */
#include "ranktable.h" /* ranks */
#include "sigdb.h"

/* Inline text: escape Markdown and HTML metacharacters. */
static void md_inline(FILE *out, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '&': fputs("&amp;", out); break;
		case '\\': case '`': case '*': case '_': case '[': case ']': case '|': case '#':
			fputc('\\', out);
			fputc(*s, out);
			break;
		default: fputc(*s, out);
		}
	}
}

/* Fix steps are our own text and may use `code`; keep backticks but escape HTML. */
static void md_own(FILE *out, const char *s)
{
	for (; *s; s++) {
		if (*s == '<') fputs("&lt;", out);
		else if (*s == '>') fputs("&gt;", out);
		else fputc(*s, out);
	}
}

/* A fence longer than any run of backticks inside the block. */
static int fence_len(const struct bundle *b, const struct diagnosis *d, int maxev)
{
	int longest = 0;
	for (size_t k = 0; k < d->nev && (int)k < maxev; k++) {
		int run = 0;
		for (const char *p = b->ev.v[d->ev[k]].text; *p; p++) {
			run = *p == '`' ? run + 1 : 0;
			if (run > longest)
				longest = run;
		}
	}
	return longest >= 3 ? longest + 1 : 3;
}

void report_md(FILE *out, const struct bundle *b, const struct report_opts *o)
{
	int maxev = o->max_evidence > 0 ? o->max_evidence : 5;
	fprintf(out, "## nccl-triage: ");
	md_inline(out, b->name);
	fprintf(out, " — **%s**\n\n", verdict_name(b->verdict));
	const struct diagnosis *top = b->ndiags ? &b->diags[0] : NULL;
	if (top && top->def->severity == SEV_ERROR) {
		fprintf(out, "**Most likely root cause: `%s`** — ", top->def->category);
		md_inline(out, top->title);
		fprintf(out, "\n\n");
	} else if (b->verdict == VERDICT_UNKNOWN_FAILURE) {
		fprintf(out, "The logs show a failure that no known signature explains; the lines are listed below.\n\n");
	}
	if (b->verdict_reason) {
		fprintf(out, "Verdict: ");
		md_inline(out, b->verdict_reason);
		fprintf(out, "\n\n");
	}
	size_t shown = 0;
	for (size_t i = 0; i < b->ndiags; i++) {
		const struct diagnosis *d = &b->diags[i];
		if (d->def->severity == SEV_INFO)
			continue; /* listed compactly below */
		fprintf(out, "### %zu. %s: ", ++shown, d->def->category);
		md_inline(out, d->title);
		fprintf(out, "\n\n*%s, %s%s", severity_name(d->def->severity), role_name(d->role),
		        d->def->derived ? " (derived, no specific signature)" : "");
		if (d->echo_of)
			fprintf(out, " of `%s`", d->echo_of);
		if (d->supports)
			fprintf(out, ", supports `%s`", d->supports);
		fprintf(out, ", confidence %.2f", d->confidence);
		if (d->nranks) {
			fprintf(out, ", rank%s ", d->nranks > 1 ? "s" : "");
			for (size_t k = 0; k < d->nranks; k++)
				fprintf(out, "%s%d", k ? ", " : "", d->ranks[k]);
		}
		fprintf(out, " — `%s`*\n\n", d->def->id);
		md_inline(out, d->explanation);
		fprintf(out, "\n\n");
		if (d->role != ROLE_CASCADE && !d->supports && d->def->fix.n) {
			fprintf(out, "**Fix**\n\n");
			for (size_t k = 0; k < d->def->fix.n; k++) {
				char *s = render_template(d->def->fix.v[k], b, d);
				fprintf(out, "%zu. ", k + 1);
				md_own(out, s);
				fprintf(out, "\n");
				free(s);
			}
			fprintf(out, "\n");
		}
		if (d->nev) {
			int fl = fence_len(b, d, maxev);
			fprintf(out, "**Evidence**\n\n%.*s\n", fl, "``````````````````````````````");
			for (size_t k = 0; k < d->nev && (int)k < maxev; k++) {
				const struct evidence *e = &b->ev.v[d->ev[k]];
				fprintf(out, "%s:%llu: %s\n", e->path, (unsigned long long)e->line, e->text);
			}
			fprintf(out, "%.*s\n", fl, "``````````````````````````````");
			if (d->ev_total > (size_t)maxev)
				fprintf(out, "(%zu more lines)\n", d->ev_total - (size_t)maxev);
			fprintf(out, "\n");
		}
	}
	int infos = 0;
	for (size_t i = 0; i < b->ndiags; i++) {
		const struct diagnosis *d = &b->diags[i];
		if (d->def->severity != SEV_INFO)
			continue;
		if (!infos++)
			fprintf(out, "**Also noted** (information, not failures)\n\n");
		fprintf(out, "- %s: ", d->def->category);
		md_inline(out, d->title);
		fprintf(out, " (`%s`)\n", d->def->id);
	}
	if (infos)
		fprintf(out, "\n");
	rank_table_md(out, b); /* ranks */
	next_steps_text(out, b, 1); /* ranks */
	if (b->verdict == VERDICT_UNKNOWN_FAILURE && b->nfailures) {
		fprintf(out, "### Unexplained failure lines\n\n```\n");
		for (size_t i = 0; i < b->nfailures && i < 10; i++)
			fprintf(out, "%s:%llu: %s\n", b->failures[i].path, (unsigned long long)b->failures[i].line,
			        b->failures[i].text);
		fprintf(out, "```\n\n");
	}
	fprintf(out, "<details><summary>Inputs (%zu)</summary>\n\n", b->ndocs);
	for (size_t i = 0; i < b->ndocs; i++) {
		fprintf(out, "- `");
		for (const char *p = b->docs[i].path; *p; p++)
			fputc(*p == '`' ? '\'' : *p, out);
		fprintf(out, "` — %s, %llu lines\n", doc_kind_name(b->docs[i].kind),
		        (unsigned long long)b->docs[i].lines);
	}
	fprintf(out, "\n</details>\n");
	if (b->warnings.list.n) {
		fprintf(out, "\n**Warnings** (input skipped or cut)\n\n");
		for (size_t i = 0; i < b->warnings.list.n && i < 20; i++) {
			fprintf(out, "- ");
			md_inline(out, b->warnings.list.v[i]);
			fprintf(out, "\n");
		}
	}
	fprintf(out, "\n");
}
