/* report_text.c - the terminal report: verdict first, then each diagnosis
 * with its evidence and fix.  Colour only when o->color is set (the CLI
 * decides: a terminal, NO_COLOR unset, or --color=always). */
#include "report.h"

#include <string.h>

#include "bundle.h"
#include "correlate.h"
#include "nextsteps.h" /* ranks */
#include "ranktable.h" /* ranks */
#include "sigdb.h"
#include "verify.h" /* verify_env_arg */

#define C_RESET "\033[0m"
#define C_BOLD "\033[1m"
#define C_RED "\033[31m"
#define C_YELLOW "\033[33m"
#define C_GREEN "\033[32m"
#define C_DIM "\033[2m"
#define C_CYAN "\033[36m"

static const char *col(const struct report_opts *o, const char *c)
{
	return o->color ? c : "";
}

static const char *verdict_colour(enum verdict v)
{
	switch (v) {
	case VERDICT_DIAGNOSED: return C_RED;
	case VERDICT_UNKNOWN_FAILURE: return C_YELLOW;
	case VERDICT_HEALTHY: return C_GREEN;
	default: return C_DIM;
	}
}

static const char *sev_colour(enum severity s)
{
	return s == SEV_ERROR ? C_RED : s == SEV_WARNING ? C_YELLOW : C_CYAN;
}

/* Log lines can be very long (PyTorch OOM messages are 600 bytes): keep the
 * terminal readable; JSON keeps the full text. */
#define TEXT_CLIP 200

static void print_clipped(FILE *out, const char *s)
{
	size_t n = strlen(s);
	if (n <= TEXT_CLIP) {
		fprintf(out, "%s\n", s);
		return;
	}
	size_t cut = TEXT_CLIP;
	while (cut > 0 && ((unsigned char)s[cut] & 0xc0) == 0x80)
		cut--; /* do not split a UTF-8 sequence */
	fprintf(out, "%.*s…\n", (int)cut, s);
}

static void print_ranks(FILE *out, const struct diagnosis *d)
{
	if (!d->nranks)
		return;
	fprintf(out, d->nranks == 1 ? ", rank " : ", ranks ");
	for (size_t i = 0; i < d->nranks; i++)
		fprintf(out, "%s%d", i ? "," : "", d->ranks[i]);
}

void report_text(FILE *out, const struct bundle *b, const struct report_opts *o)
{
	int maxev = o->max_evidence > 0 ? o->max_evidence : 3;
	fprintf(out, "%s%s%s: %s%s%s\n", col(o, C_BOLD), b->name, col(o, C_RESET),
	        col(o, verdict_colour(b->verdict)), verdict_name(b->verdict), col(o, C_RESET));
	fprintf(out, "%s  %zu document%s:", col(o, C_DIM), b->ndocs, b->ndocs == 1 ? "" : "s");
	for (size_t i = 0; i < b->ndocs && i < 8; i++)
		fprintf(out, "%s %s (%s)", i ? "," : "", b->docs[i].path, doc_kind_name(b->docs[i].kind));
	if (b->ndocs > 8)
		fprintf(out, ", ... %zu more", b->ndocs - 8);
	fprintf(out, "%s\n", col(o, C_RESET));

	if (b->ndiags == 0 && b->verdict == VERDICT_HEALTHY)
		fprintf(out, "\n  No failure found: NCCL initialised and nothing in the evidence points to a problem.\n");
	if (b->ndiags == 0 && b->verdict == VERDICT_NO_EVIDENCE)
		fprintf(out, "\n  Nothing recognisable: no NCCL or PyTorch output and no system report in these inputs.\n");

	size_t shown = 0;
	for (size_t i = 0; i < b->ndiags; i++) {
		const struct diagnosis *d = &b->diags[i];
		if (d->def->severity == SEV_INFO)
			continue; /* listed compactly below */
		shown++;
		fprintf(out, "\n%s%zu. [%s%s%s%s] %s%s — %s\n", col(o, C_BOLD), shown,
		        col(o, sev_colour(d->def->severity)), severity_name(d->def->severity),
		        col(o, C_RESET), col(o, C_BOLD), d->def->category, col(o, C_RESET), d->title);
		fprintf(out, "   %s%s", col(o, C_DIM), role_name(d->role));
		if (d->echo_of)
			fprintf(out, " of %s", d->echo_of);
		if (d->supports)
			fprintf(out, ", supports %s", d->supports);
		fprintf(out, ", confidence %.2f", d->confidence);
		print_ranks(out, d);
		fprintf(out, ", id %s%s\n", d->def->id, col(o, C_RESET));
		fprintf(out, "   %s\n", d->explanation);
		if (d->nev) {
			fprintf(out, "   Evidence:\n");
			for (size_t k = 0; k < d->nev && (int)k < maxev; k++) {
				const struct evidence *e = &b->ev.v[d->ev[k]];
				if (e->line)
					fprintf(out, "     %s%s:%llu%s  ", col(o, C_CYAN), e->path,
					        (unsigned long long)e->line, col(o, C_RESET));
				else
					fprintf(out, "     %s%s%s  ", col(o, C_CYAN), e->path, col(o, C_RESET));
				print_clipped(out, e->text);
			}
			if (d->ev_total > (size_t)maxev)
				fprintf(out, "     %s(%zu more)%s\n", col(o, C_DIM), d->ev_total - (size_t)maxev,
				        col(o, C_RESET));
		}
		if (d->role != ROLE_CASCADE && !d->supports && d->def->fix.n) {
			fprintf(out, "   Fix:\n");
			for (size_t k = 0; k < d->def->fix.n; k++) {
				char *s = render_template(d->def->fix.v[k], b, d);
				fprintf(out, "     %zu. %s\n", k + 1, s);
				free(s);
			}
		}
		if (d->role != ROLE_CASCADE && !d->supports && d->def->verify_env && cJSON_GetArraySize(d->def->verify_env) > 0) {
			fprintf(out, "   Confirm: nccl-triage verify");
			const cJSON *it;
			cJSON_ArrayForEach(it, d->def->verify_env) {
				char *s = render_template(it->valuestring, b, d);
				char *arg = verify_env_arg(it->string, s);
				fputs(arg, out);
				free(arg);
				free(s);
			}
			fprintf(out, "\n");
		}
	}
	int infos = 0;
	for (size_t i = 0; i < b->ndiags; i++) {
		const struct diagnosis *d = &b->diags[i];
		if (d->def->severity != SEV_INFO)
			continue;
		if (!infos++)
			fprintf(out, "\n%sAlso noted%s (information, not failures):\n", col(o, C_BOLD), col(o, C_RESET));
		fprintf(out, "   - %s: %s %s(%s", d->def->category, d->title, col(o, C_DIM), d->def->id);
		print_ranks(out, d);
		fprintf(out, ")%s\n", col(o, C_RESET));
	}
	rank_table_text(out, b, o->color); /* ranks */
	if (b->verdict == VERDICT_UNKNOWN_FAILURE && b->nfailures) {
		fprintf(out, "\n%sUnexplained failure evidence%s (no signature matched):\n", col(o, C_BOLD), col(o, C_RESET));
		for (size_t i = 0; i < b->nfailures && i < 10; i++)
		{
			fprintf(out, "     %s%s:%llu%s  [%s] ", col(o, C_CYAN), b->failures[i].path,
			        (unsigned long long)b->failures[i].line, col(o, C_RESET), b->failures[i].what);
			print_clipped(out, b->failures[i].text);
		}
		if (b->failure_count > 10)
			fprintf(out, "     (%llu more)\n", (unsigned long long)(b->failure_count - 10));
	}
	next_steps_text(out, b, 0); /* ranks */
	if (b->warnings.list.n) {
		fprintf(out, "\n%sWarnings%s (input that was skipped or cut):\n", col(o, C_YELLOW), col(o, C_RESET));
		for (size_t i = 0; i < b->warnings.list.n && i < 20; i++)
			fprintf(out, "   %s\n", b->warnings.list.v[i]);
		size_t more = b->warnings.list.n > 20 ? b->warnings.list.n - 20 : 0;
		more += b->warnings.dropped;
		if (more)
			fprintf(out, "   (%zu more; see --format json)\n", more);
	}
}
