/* verify_report.c - the verdict of a verify session (what worked, what the
 * fix costs, which exit status) and its text, Markdown and JSON reports.
 * Every function returns a string the caller frees. */
#include "verify/verify_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>

#include "base/json.h"
#include "report/report.h" /* verify_env_arg, report_tool_json */

static const char *const SURVEY_P2P[] = {"NCCL_P2P_DISABLE=0", "NCCL_SHM_DISABLE=1", NULL};
static const char *const SURVEY_SHM[] = {"NCCL_P2P_DISABLE=1", "NCCL_SHM_DISABLE=0", NULL};
static const char *const SURVEY_NET[] = {"NCCL_P2P_DISABLE=1", "NCCL_SHM_DISABLE=1", "NCCL_NET=Socket", NULL};

const struct verify_survey_row VERIFY_SURVEY[] = {
	{"P2P", "P2P", SURVEY_P2P},
	{"SHM", "SHM", SURVEY_SHM},
	{"NET/Socket", "NET/Socket", SURVEY_NET},
};
const size_t VERIFY_SURVEY_N = sizeof VERIFY_SURVEY / sizeof *VERIFY_SURVEY;

int verify_survey_used(const struct verify_run *r, const struct verify_survey_row *row)
{
	for (size_t i = 0; i < r->transports.n; i++)
		if (str_starts(r->transports.v[i], row->expect))
			return 1;
	return 0;
}

void verify_session_free(struct verify_session *s)
{
	verify_probe_free(&s->probe);
	if (s->baseline) {
		verify_run_free(s->baseline);
		free(s->baseline);
	}
	if (s->candidate) {
		verify_run_free(s->candidate);
		free(s->candidate);
	}
	for (size_t i = 0; i < s->nsurvey; i++)
		verify_run_free(&s->survey[i]);
	free(s->survey);
	free(s->candidate_source);
	free(s->summary);
	strvec_free(&s->notes);
	memset(s, 0, sizeof *s);
}

double verify_bw(const struct verify_run *r)
{
	return r->nranks > 1 ? r->busbw : r->algbw;
}

static const char *bw_name(const struct verify_run *r)
{
	return r->nranks > 1 ? "bus bandwidth" : "algorithm bandwidth";
}

/* What went wrong, short: the first NCCL WARN when there is one, else the
 * run's reason. */
static char *what_failed(const struct verify_run *r)
{
	if (r->result == VR_HANG)
		return xstrdup(r->reason ? r->reason : "a timeout");
	if (r->result == VR_WRONG_VALUES)
		return xasprintf("wrong all-reduce results (%s)", r->reason ? r->reason : "");
	if (r->warns.n && r->first_failed_rank >= 0 && r->ranks[r->first_failed_rank].error) {
		const struct verify_rank *k = &r->ranks[r->first_failed_rank];
		const char *cut = strstr(k->error, " (run with");
		int len = cut ? (int)(cut - k->error) : (int)strlen(k->error);
		return xasprintf("NCCL WARN '%s' (rank %d, %.*s)", r->warns.v[0], k->rank, len, k->error);
	}
	return xstrdup(r->reason ? r->reason : vresult_name(r->result));
}

static int exit_of(const struct verify_run *r)
{
	switch (r->result) {
	case VR_PASS: return VERIFY_EXIT_OK;
	case VR_HANG: return VERIFY_EXIT_HANG;
	default: return VERIFY_EXIT_FAIL;
	}
}

/* Reference bandwidth for a fix's cost: the baseline's when it passed, else
 * the best survey row. */
static double reference_bw(const struct verify_session *s, const char **what)
{
	if (s->baseline && s->baseline->result == VR_PASS) {
		*what = "the baseline";
		return verify_bw(s->baseline);
	}
	double best = -1;
	for (size_t i = 0; i < s->nsurvey; i++) {
		if (s->survey[i].result == VR_PASS && verify_survey_used(&s->survey[i], &VERIFY_SURVEY[i]) &&
		    verify_bw(&s->survey[i]) > best) {
			best = verify_bw(&s->survey[i]);
			*what = VERIFY_SURVEY[i].name;
		}
	}
	return best;
}

void verify_judge(struct verify_session *s)
{
	free(s->summary);
	s->summary = NULL;
	if (!s->probe.ok || !s->baseline) {
		s->verdict = "unavailable";
		s->exit_status = VERIFY_EXIT_UNAVAILABLE;
		struct buf b;
		buf_init(&b);
		buf_adds(&b, "verify cannot run on this machine: ");
		for (size_t i = 0; i < s->probe.missing.n; i++)
			buf_printf(&b, "%s%s", i ? "; " : "", s->probe.missing.v[i]);
		s->summary = buf_steal(&b);
		return;
	}
	const struct verify_run *b = s->baseline, *c = s->candidate;
	char *bf = b->result == VR_PASS ? NULL : what_failed(b);
	if (!c) {
		s->exit_status = exit_of(b);
		if (b->result == VR_PASS) {
			s->verdict = "healthy";
			s->summary = xasprintf("baseline passes: init, all-reduce values and %.1f GB/s %s on %d rank%s",
			                       verify_bw(b), bw_name(b), b->nranks, b->nranks == 1 ? "" : "s");
		} else {
			s->verdict = b->result == VR_HANG ? "hangs" : "fails";
			s->summary = xasprintf("baseline %s %s", b->result == VR_HANG ? "hangs:" : "fails with", bf);
		}
		free(bf);
		return;
	}
	char *env = venv_describe(&c->env);
	s->exit_status = exit_of(c);
	if (c->result == VR_PASS) {
		const char *refname = NULL;
		double ref = reference_bw(s, &refname), bw = verify_bw(c);
		char cost[160] = "";
		if (ref > 0)
			snprintf(cost, sizeof cost, " instead of %.1f GB/s (%s)", ref, refname);
		if (b->result == VR_PASS) {
			s->verdict = "both_pass";
			double pct = ref > 0 ? 100.0 * (bw - ref) / ref : 0;
			s->summary = xasprintf("baseline already passes at %.1f GB/s; with %s it passes at %.1f GB/s "
			                       "(%+.0f%%): nothing to fix", verify_bw(b), env, bw, pct);
		} else {
			s->verdict = "fix_confirmed";
			s->summary = xasprintf("baseline %s %s; with %s it passes at %.1f GB/s %s%s: fix confirmed",
			                       b->result == VR_HANG ? "hangs:" : "fails with", bf, env, bw, bw_name(c), cost);
		}
	} else {
		char *cf = what_failed(c);
		if (b->result == VR_PASS) {
			s->verdict = "candidate_breaks";
			s->summary = xasprintf("baseline passes at %.1f GB/s, but with %s the replay %s %s: "
			                       "do not apply it", verify_bw(b), env,
			                       c->result == VR_HANG ? "hangs:" : "fails with", cf);
		} else {
			s->verdict = c->result == VR_HANG ? "fix_hangs" : "fix_failed";
			s->summary = xasprintf("baseline %s %s; with %s it still %s %s: fix not confirmed",
			                       b->result == VR_HANG ? "hangs:" : "fails with", bf, env,
			                       c->result == VR_HANG ? "hangs:" : "fails with", cf);
		}
		free(cf);
	}
	free(env);
	free(bf);
}

/* ---- helpers ------------------------------------------------------------ */

static void nccl_version_str(int v, char *out, size_t n)
{
	if (v >= 10000)
		snprintf(out, n, "%d.%d.%d", v / 10000, (v / 100) % 100, v % 100);
	else if (v > 0)
		snprintf(out, n, "%d.%d.%d", v / 1000, (v / 100) % 10, v % 100);
	else
		snprintf(out, n, "unknown");
}

static void driver_str(int v, char *out, size_t n)
{
	if (v > 0)
		snprintf(out, n, "%d.%d", v / 1000, (v % 1000) / 10);
	else
		snprintf(out, n, "unknown");
}

static const struct verify_gpu *gpu_info(const struct verify_session *s, int idx)
{
	for (size_t i = 0; i < s->probe.ngpus; i++)
		if (s->probe.gpus[i].index == idx)
			return &s->probe.gpus[i];
	return NULL;
}

static const char *result_word(const struct verify_run *r)
{
	switch (r->result) {
	case VR_PASS: return "PASS";
	case VR_FAIL: return "FAIL";
	case VR_WRONG_VALUES: return "WRONG VALUES";
	case VR_HANG: return "HANG";
	case VR_CRASH: return "CRASH";
	case VR_SETUP: return "SETUP ERROR";
	}
	return "?";
}

static char *transports_str(const struct verify_run *r)
{
	struct buf b;
	buf_init(&b);
	for (size_t i = 0; i < r->transports.n && i < 6; i++)
		buf_printf(&b, "%s%s", i ? ", " : "", r->transports.v[i]);
	if (r->transports.n > 6)
		buf_printf(&b, ", +%zu more", r->transports.n - 6);
	if (!b.len)
		buf_adds(&b, r->nranks > 1 ? "none seen" : "none (1 rank)");
	return buf_steal(&b);
}

/* The highest-ranked diagnosis that claims to be a root cause; context
 * notes ("no InfiniBand here") do not explain a failure. */
static const cJSON *top_diag(const struct verify_run *r)
{
	const cJSON *ds = r->analysis ? cJSON_GetObjectItemCaseSensitive(r->analysis, "diagnoses") : NULL, *d;
	cJSON_ArrayForEach(d, ds) {
		const char *role = json_str(d, "role");
		if (!role || !strcmp(role, "root"))
			return d;
	}
	return NULL;
}

static void header(struct buf *o, const struct verify_session *s, int md)
{
	char nv[32], dv[32];
	nccl_version_str(s->probe.nccl_version, nv, sizeof nv);
	driver_str(s->probe.driver_version, dv, sizeof dv);
	const char *q = md ? "`" : "";
	buf_printf(o, "%sNCCL %s (%s%s%s), CUDA driver %s (%s%s%s)\n", md ? "- " : "", nv, q,
	           s->probe.nccl_path ? s->probe.nccl_path : "?", q, dv, q,
	           s->probe.cuda_path ? s->probe.cuda_path : "?", q);
	buf_printf(o, "%s%d rank%s, one process each:", md ? "- " : "", s->cfg.nranks, s->cfg.nranks == 1 ? "" : "s");
	for (int i = 0; i < s->cfg.nranks; i++) {
		const struct verify_gpu *g = gpu_info(s, s->cfg.gpus[i]);
		buf_printf(o, "%s rank %d on GPU %d (%s, %s)", i ? "," : "", i, s->cfg.gpus[i],
		           g ? g->name : "?", g ? g->bus_id : "?");
	}
	char sz[32];
	fmt_size(s->cfg.bytes, sz, sizeof sz);
	size_t count = s->cfg.bytes / 4 ? s->cfg.bytes / 4 : 1;
	buf_printf(o, "\n%svalue check: all-reduce of ", md ? "- " : "");
	if (count > 262144)
		buf_printf(o, "256, 262144 and %zu floats", count);
	else if (count > 256)
		buf_printf(o, "256 and %zu floats", count);
	else
		buf_printf(o, "%zu floats", count);
	buf_printf(o, "; bandwidth: %s float sum, %d warm-up + %d timed; timeout %.0f s per run\n",
	           sz, s->cfg.warmup, s->cfg.iters, s->cfg.timeout_s);
}

static void run_detail_text(struct buf *o, const struct verify_run *r, const char *ind)
{
	if (r->result == VR_PASS) {
		char *t = transports_str(r);
		buf_printf(o, "%s%.1f GB/s %s (algbw %.1f GB/s), values correct, init %.2f s, transports: %s\n",
		           ind, verify_bw(r), bw_name(r), r->algbw, r->ranks[0].init_ms / 1e3, t);
		free(t);
		return;
	}
	buf_printf(o, "%s%s\n", ind, r->reason ? r->reason : "");
	for (size_t i = 0; i < r->warns.n && i < 5; i++)
		buf_printf(o, "%sNCCL WARN %s\n", ind, r->warns.v[i]);
	for (int i = 0; i < r->nranks; i++) {
		const struct verify_rank *k = &r->ranks[i];
		buf_printf(o, "%srank %d (GPU %d, pid %ld): %s", ind, k->rank, k->gpu, k->pid,
		           k->done ? "finished" : k->error ? "failed" : "stopped");
		if (!k->done)
			buf_printf(o, " in %s", vstage_doing(k->stage));
		if (k->killed_by_us)
			buf_printf(o, ", killed by verify (%s)", r->result == VR_HANG ? "timeout" : "after another rank failed");
		else if (k->term_signal)
			buf_printf(o, ", signal %d", k->term_signal);
		buf_adds(o, "\n");
		struct strvec last = {0};
		verify_last_lines(k, r->result == VR_HANG ? 5 : 3, &last);
		for (size_t j = 0; j < last.n; j++)
			buf_printf(o, "%s  | %s\n", ind, last.v[j]);
		strvec_free(&last);
	}
	const cJSON *d = top_diag(r);
	if (d) {
		buf_printf(o, "%sdiagnosis: %s [%s] %s\n", ind, json_str(d, "id") ? json_str(d, "id") : "?",
		           json_str(d, "category") ? json_str(d, "category") : "?", json_str(d, "title") ? json_str(d, "title") : "");
		const cJSON *fix = cJSON_GetObjectItemCaseSensitive(d, "fix"), *it;
		cJSON_ArrayForEach(it, fix)
			if (cJSON_IsString(it))
				buf_printf(o, "%s  fix: %s\n", ind, it->valuestring);
		const cJSON *ve = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(d, "verify"), "env");
		if (cJSON_IsObject(ve) && ve->child) {
			buf_printf(o, "%s  try: nccl-triage verify", ind);
			cJSON_ArrayForEach(it, ve) {
				if (!cJSON_IsString(it) && !cJSON_IsNull(it))
					continue;
				char *arg = verify_env_arg(it->string, cJSON_IsString(it) ? it->valuestring : NULL);
				buf_adds(o, arg);
				free(arg);
			}
			buf_adds(o, "\n");
		}
	} else if (r->analysis) {
		const char *v = json_str(r->analysis, "verdict");
		buf_printf(o, "%sanalysis: verdict %s, no root-cause diagnosis matched the captured logs\n", ind, v ? v : "?");
	}
}

/* ---- text -------------------------------------------------------------- */

char *verify_report_text(const struct verify_session *s, int color)
{
	struct buf o;
	buf_init(&o);
	const char *B = color ? "\033[1m" : "", *R = color ? "\033[0m" : "";
	const char *G = color ? "\033[32m" : "", *E = color ? "\033[31m" : "";
	buf_printf(&o, "%snccl-triage verify%s\n", B, R);
	if (!s->baseline) {
		buf_printf(&o, "%scannot run here%s (exit status %d):\n", E, R, s->exit_status);
		for (size_t i = 0; i < s->probe.missing.n; i++)
			buf_printf(&o, "  - %s\n", s->probe.missing.v[i]);
		for (size_t i = 0; i < s->notes.n; i++)
			buf_printf(&o, "note: %s\n", s->notes.v[i]);
		return buf_steal(&o);
	}
	header(&o, s, 0);
	const struct verify_run *runs[2] = {s->baseline, s->candidate};
	for (int i = 0; i < 2; i++) {
		const struct verify_run *r = runs[i];
		if (!r)
			continue;
		char *env = venv_describe(&r->env);
		buf_printf(&o, "\n%s%-9s%s %s%s%s  %s (%.1f s)\n", B, r->mode, R,
		           r->result == VR_PASS ? G : E, result_word(r), R, env, r->seconds);
		if (i == 1 && s->candidate_source)
			buf_printf(&o, "  candidate from %s\n", s->candidate_source);
		run_detail_text(&o, r, "  ");
		free(env);
	}
	if (s->nsurvey) {
		buf_printf(&o, "\n%stransport survey%s (one path at a time)\n", B, R);
		buf_printf(&o, "  %-11s %-14s %10s %10s  %-22s %s\n", "transport", "result", "busbw GB/s",
		           "algbw GB/s", "seen in the log", "env");
		for (size_t i = 0; i < s->nsurvey; i++) {
			const struct verify_run *r = &s->survey[i];
			const struct verify_survey_row *row = &VERIFY_SURVEY[i];
			char *t = transports_str(r), *env = venv_describe(&r->env);
			const char *res = r->result != VR_PASS ? vresult_name(r->result)
			                  : verify_survey_used(r, row) ? "works" : "not used";
			char bus[32] = "-", alg[32] = "-";
			if (r->result == VR_PASS) {
				snprintf(bus, sizeof bus, "%.1f", r->busbw);
				snprintf(alg, sizeof alg, "%.1f", r->algbw);
			}
			buf_printf(&o, "  %-11s %-14s %10s %10s  %-22s %s\n", row->name, res, bus, alg, t, env);
			if (r->result != VR_PASS)
				buf_printf(&o, "  %-11s %s\n", "", r->reason ? r->reason : "");
			free(t);
			free(env);
		}
	}
	for (size_t i = 0; i < s->notes.n; i++)
		buf_printf(&o, "note: %s\n", s->notes.v[i]);
	buf_printf(&o, "\n%sverdict: %s%s (exit status %d)\n%s\n", B, s->verdict, R, s->exit_status, s->summary);
	return buf_steal(&o);
}

/* ---- Markdown ------------------------------------------------------------ */

static void md_cell(struct buf *o, const char *s)
{
	for (; s && *s; s++) {
		if (*s == '|')
			buf_adds(o, "\\|");
		else if (*s == '`')
			buf_adds(o, "'");
		else
			buf_addc(o, *s);
	}
}

char *verify_report_md(const struct verify_session *s)
{
	struct buf o;
	buf_init(&o);
	buf_adds(&o, "## nccl-triage verify\n\n");
	buf_printf(&o, "**Verdict: %s** (exit status %d): ", s->verdict, s->exit_status);
	md_cell(&o, s->summary);
	buf_adds(&o, "\n\n");
	if (!s->baseline) {
		for (size_t i = 0; i < s->probe.missing.n; i++) {
			buf_adds(&o, "- ");
			md_cell(&o, s->probe.missing.v[i]);
			buf_adds(&o, "\n");
		}
		return buf_steal(&o);
	}
	header(&o, s, 1);
	buf_adds(&o, "\n| run | environment | result | busbw GB/s | algbw GB/s | transports | reason |\n|---|---|---|---|---|---|---|\n");
	const struct verify_run *runs[2] = {s->baseline, s->candidate};
	for (int i = 0; i < 2; i++) {
		const struct verify_run *r = runs[i];
		if (!r)
			continue;
		char *env = venv_describe(&r->env), *t = transports_str(r);
		buf_printf(&o, "| %s | `%s` | %s | ", r->mode, env, result_word(r));
		if (r->result == VR_PASS)
			buf_printf(&o, "%.1f | %.1f | ", r->busbw, r->algbw);
		else
			buf_adds(&o, "- | - | ");
		md_cell(&o, t);
		buf_adds(&o, " | ");
		md_cell(&o, r->reason);
		buf_adds(&o, " |\n");
		free(env);
		free(t);
	}
	for (int i = 0; i < 2; i++) {
		const struct verify_run *r = runs[i];
		if (!r || r->result == VR_PASS)
			continue;
		buf_printf(&o, "\n<details><summary>%s: last NCCL lines per rank</summary>\n\n```\n", r->mode);
		for (int k = 0; k < r->nranks; k++) {
			struct strvec last = {0};
			verify_last_lines(&r->ranks[k], 5, &last);
			buf_printf(&o, "# rank %d (GPU %d)%s\n", k, r->ranks[k].gpu, r->ranks[k].killed_by_us ? " - killed by verify" : "");
			for (size_t j = 0; j < last.n; j++) {
				/* no fence breaking */
				char *t = xstrdup(last.v[j]);
				for (char *p = t; (p = strstr(p, "```")); )
					p[0] = '\'';
				buf_printf(&o, "%s\n", t);
				free(t);
			}
			strvec_free(&last);
		}
		buf_adds(&o, "```\n\n</details>\n");
		const cJSON *d = top_diag(r);
		if (d) {
			buf_printf(&o, "\n%s diagnosis: **%s** `%s` - ", r->mode, json_str(d, "category") ? json_str(d, "category") : "?",
			           json_str(d, "id") ? json_str(d, "id") : "?");
			md_cell(&o, json_str(d, "title"));
			buf_adds(&o, "\n");
		}
	}
	if (s->nsurvey) {
		buf_adds(&o, "\n### Transport survey\n\n| transport | result | busbw GB/s | algbw GB/s | seen in the log | environment |\n|---|---|---|---|---|---|\n");
		for (size_t i = 0; i < s->nsurvey; i++) {
			const struct verify_run *r = &s->survey[i];
			char *t = transports_str(r), *env = venv_describe(&r->env);
			const char *res = r->result != VR_PASS ? vresult_name(r->result)
			                  : verify_survey_used(r, &VERIFY_SURVEY[i]) ? "works" : "not used";
			buf_printf(&o, "| %s | %s | ", VERIFY_SURVEY[i].name, res);
			if (r->result == VR_PASS)
				buf_printf(&o, "%.1f | %.1f | ", r->busbw, r->algbw);
			else
				buf_adds(&o, "- | - | ");
			md_cell(&o, t);
			buf_printf(&o, " | `%s` |\n", env);
			free(t);
			free(env);
		}
	}
	for (size_t i = 0; i < s->notes.n; i++) {
		buf_adds(&o, "\n> note: ");
		md_cell(&o, s->notes.v[i]);
		buf_adds(&o, "\n");
	}
	return buf_steal(&o);
}

/* ---- JSON -------------------------------------------------------------- */

static void num_or_null(cJSON *o, const char *k, double v)
{
	if (v >= 0 && isfinite(v))
		cJSON_AddNumberToObject(o, k, round(v * 100) / 100);
	else
		cJSON_AddNullToObject(o, k);
}

static cJSON *env_json(const struct venv_list *l)
{
	cJSON *e = cJSON_CreateObject();
	for (size_t i = 0; i < l->n; i++) {
		if (l->v[i].value)
			cJSON_AddStringToObject(e, l->v[i].key, l->v[i].value);
		else
			cJSON_AddNullToObject(e, l->v[i].key);
	}
	return e;
}

static cJSON *strvec_json(const struct strvec *v)
{
	cJSON *a = cJSON_CreateArray();
	for (size_t i = 0; i < v->n; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(v->v[i]));
	return a;
}

static cJSON *run_json(const struct verify_run *r)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "mode", r->mode);
	cJSON_AddItemToObject(o, "env", env_json(&r->env));
	cJSON_AddStringToObject(o, "result", vresult_name(r->result));
	if (r->reason)
		cJSON_AddStringToObject(o, "reason", r->reason);
	else
		cJSON_AddNullToObject(o, "reason");
	cJSON_AddNumberToObject(o, "seconds", round(r->seconds * 100) / 100);
	num_or_null(o, "busbw_gbs", r->busbw);
	num_or_null(o, "algbw_gbs", r->algbw);
	cJSON_AddItemToObject(o, "transports", strvec_json(&r->transports));
	cJSON_AddItemToObject(o, "nccl_warnings", strvec_json(&r->warns));
	cJSON *ranks = cJSON_AddArrayToObject(o, "ranks");
	for (int i = 0; i < r->nranks; i++) {
		const struct verify_rank *k = &r->ranks[i];
		cJSON *x = cJSON_CreateObject();
		cJSON_AddNumberToObject(x, "rank", k->rank);
		cJSON_AddNumberToObject(x, "gpu", k->gpu);
		cJSON_AddNumberToObject(x, "pid", (double)k->pid);
		cJSON_AddStringToObject(x, "stage", vstage_name(k->stage));
		cJSON_AddBoolToObject(x, "finished", k->done);
		num_or_null(x, "init_ms", k->stage > VS_INIT || k->done ? k->init_ms : -1);
		cJSON_AddNumberToObject(x, "checks_ok", k->checks_ok);
		cJSON_AddNumberToObject(x, "checks_bad", k->checks_bad);
		if (k->check_detail)
			cJSON_AddStringToObject(x, "check_detail", k->check_detail);
		num_or_null(x, "busbw_gbs", k->busbw);
		num_or_null(x, "algbw_gbs", k->algbw);
		if (k->error)
			cJSON_AddStringToObject(x, "error", k->error);
		if (k->last_error)
			cJSON_AddStringToObject(x, "nccl_last_error", k->last_error);
		if (k->exited && !k->term_signal)
			cJSON_AddNumberToObject(x, "exit_code", k->exit_code);
		if (k->term_signal)
			cJSON_AddNumberToObject(x, "signal", k->term_signal);
		cJSON_AddBoolToObject(x, "killed_by_verify", k->killed_by_us);
		cJSON_AddNumberToObject(x, "log_bytes", (double)k->log.len);
		if (k->log_dropped)
			cJSON_AddNumberToObject(x, "log_bytes_dropped", (double)k->log_dropped);
		struct strvec last = {0};
		verify_last_lines(k, 8, &last);
		cJSON_AddItemToObject(x, "last_lines", strvec_json(&last));
		strvec_free(&last);
		cJSON_AddItemToArray(ranks, x);
	}
	if (r->analysis)
		cJSON_AddItemToObject(o, "analysis", cJSON_Duplicate(r->analysis, 1));
	else
		cJSON_AddNullToObject(o, "analysis");
	return o;
}

char *verify_report_json(const struct verify_session *s)
{
	cJSON *root = report_tool_json();
	cJSON_AddStringToObject(root, "command", "verify");
	cJSON_AddStringToObject(root, "verdict", s->verdict ? s->verdict : "?");
	cJSON_AddStringToObject(root, "summary", s->summary ? s->summary : "");
	cJSON_AddNumberToObject(root, "exit_status", s->exit_status);
	cJSON *host = cJSON_AddObjectToObject(root, "host");
	char nv[32];
	nccl_version_str(s->probe.nccl_version, nv, sizeof nv);
	cJSON *n = cJSON_AddObjectToObject(host, "nccl");
	if (s->probe.nccl_path) {
		cJSON_AddStringToObject(n, "version", nv);
		cJSON_AddNumberToObject(n, "code", s->probe.nccl_version);
		cJSON_AddStringToObject(n, "path", s->probe.nccl_path);
	}
	cJSON *d = cJSON_AddObjectToObject(host, "cuda_driver");
	if (s->probe.cuda_path) {
		cJSON_AddNumberToObject(d, "version", s->probe.driver_version);
		cJSON_AddStringToObject(d, "path", s->probe.cuda_path);
	}
	cJSON *gpus = cJSON_AddArrayToObject(host, "gpus");
	for (size_t i = 0; i < s->probe.ngpus; i++) {
		cJSON *g = cJSON_CreateObject();
		cJSON_AddNumberToObject(g, "index", s->probe.gpus[i].index);
		cJSON_AddStringToObject(g, "name", s->probe.gpus[i].name);
		cJSON_AddStringToObject(g, "bus_id", s->probe.gpus[i].bus_id);
		cJSON_AddItemToArray(gpus, g);
	}
	cJSON_AddItemToObject(host, "missing", strvec_json(&s->probe.missing));
	cJSON_AddItemToObject(host, "libraries_tried", strvec_json(&s->probe.tried));
	if (s->baseline) {
		cJSON *cfg = cJSON_AddObjectToObject(root, "config");
		cJSON_AddNumberToObject(cfg, "nranks", s->cfg.nranks);
		cJSON *g = cJSON_AddArrayToObject(cfg, "gpus");
		for (int i = 0; i < s->cfg.nranks; i++)
			cJSON_AddItemToArray(g, cJSON_CreateNumber(s->cfg.gpus[i]));
		cJSON_AddNumberToObject(cfg, "bytes", (double)s->cfg.bytes);
		cJSON_AddNumberToObject(cfg, "iters", s->cfg.iters);
		cJSON_AddNumberToObject(cfg, "warmup", s->cfg.warmup);
		cJSON_AddNumberToObject(cfg, "timeout_s", s->cfg.timeout_s);
		cJSON_AddItemToObject(root, "baseline", run_json(s->baseline));
	}
	if (s->candidate) {
		cJSON *c = run_json(s->candidate);
		if (s->candidate_source)
			cJSON_AddStringToObject(c, "source", s->candidate_source);
		cJSON_AddItemToObject(root, "candidate", c);
	}
	if (s->nsurvey) {
		cJSON *a = cJSON_AddArrayToObject(root, "survey");
		for (size_t i = 0; i < s->nsurvey; i++) {
			cJSON *r = run_json(&s->survey[i]);
			cJSON_AddStringToObject(r, "transport", VERIFY_SURVEY[i].name);
			cJSON_AddBoolToObject(r, "transport_used", verify_survey_used(&s->survey[i], &VERIFY_SURVEY[i]));
			cJSON_AddItemToArray(a, r);
		}
	}
	cJSON_AddItemToObject(root, "notes", strvec_json(&s->notes));
	char *out = cJSON_Print(root);
	cJSON_Delete(root);
	char *res = xasprintf("%s\n", out ? out : "{}");
	free(out);
	return res;
}
