/* cmd_verify.c - `nccl-triage verify`: the command line over verify.h.
 * Parses options, probes the host, runs baseline / candidate / survey,
 * analyses the captured logs, prints the report and returns the exit status
 * (docs/verify.md).  This is CLI code: it prints to stdout/stderr. */
#include "cli/cli.h"
#include "cli/clicommon.h"
#include "cli/commands.h"
#include "cli/dbpath.h"
#include "cli/formats.h"
#include "verify/verify_int.h"

#include <errno.h>
#include <limits.h>
#include <linux/limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cjson/cJSON.h>

#ifndef NT_DATADIR
#define NT_DATADIR "/usr/local/share/nccl-triage"
#endif

const char CMD_VERIFY_EXIT_STATUS[] =
	"\n"
	"Exit status: 0 the final configuration works (healthy baseline, or the candidate passes: fix\n"
	"confirmed); 1 it fails (error, wrong values or crash); 2 usage error; 3 verify cannot run here\n"
	"(no CUDA driver, no GPU, no libnccl, too few GPUs); 4 it hangs (the watchdog fired).\n";

struct vopts {
	const char *gpus, *from_report, *format, *output, *logs, *patterns;
	int nranks, survey, no_analysis;
	struct venv_list env;
	struct verify_cfg cfg;
};

static int parse_int(const char *s, long lo, long hi, long *out)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

/* "0,1", "0-3", "0,2-3".  Returns count or -1. */
static int parse_gpus(const char *s, int *out, int max)
{
	int n = 0;
	char *copy = xstrdup(s), *save = NULL;
	for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		long a, b;
		char *dash = strchr(t, '-');
		if (dash) {
			*dash = 0;
			if (parse_int(t, 0, 4095, &a) || parse_int(dash + 1, 0, 4095, &b) || b < a)
				goto bad;
		} else if (parse_int(t, 0, 4095, &a)) {
			goto bad;
		} else {
			b = a;
		}
		for (long v = a; v <= b; v++) {
			if (n >= max)
				goto bad;
			for (int i = 0; i < n; i++)
				if (out[i] == v)
					goto bad;
			out[n++] = (int)v;
		}
	}
	free(copy);
	return n;
bad:
	free(copy);
	return -1;
}

static int usage_error(const char *fmt, const char *arg)
{
	fprintf(stderr, "nccl-triage verify: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\nTry 'nccl-triage verify --help'.\n");
	return VERIFY_EXIT_USAGE;
}

/* The verify.env of the top diagnosis that has one.  Returns 0, or -1 with a
 * message printed. */
static int env_from_report(const char *path, struct venv_list *env, char **source)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
	if (!f) {
		fprintf(stderr, "nccl-triage verify: %s: cannot open: %s\n", path, strerror(errno));
		return -1;
	}
	struct buf b;
	buf_init(&b);
	buf_read_file(&b, f, 64u << 20);
	if (f != stdin)
		fclose(f);
	cJSON *root = cJSON_ParseWithLength(b.data ? b.data : "", b.len);
	buf_free(&b);
	if (!root) {
		fprintf(stderr, "nccl-triage verify: %s: not JSON (expected the output of 'nccl-triage analyze --format json')\n", path);
		return -1;
	}
	const cJSON *bundles = cJSON_GetObjectItemCaseSensitive(root, "bundles"), *bu;
	int found = 0, rank_of_top = 0;
	cJSON_ArrayForEach(bu, bundles) {
		const cJSON *diags = cJSON_GetObjectItemCaseSensitive(bu, "diagnoses"), *d;
		int pos = 0;
		cJSON_ArrayForEach(d, diags) {
			pos++;
			const cJSON *ve = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(d, "verify"), "env");
			if (!cJSON_IsObject(ve) || !ve->child)
				continue;
			const cJSON *it;
			cJSON_ArrayForEach(it, ve) {
				/* analyze writes "" for "unset it" */
				if (cJSON_IsString(it) && it->valuestring[0])
					venv_set(env, it->string, it->valuestring);
				else if (cJSON_IsString(it) || cJSON_IsNull(it))
					venv_set(env, it->string, NULL);
			}
			const cJSON *id = cJSON_GetObjectItemCaseSensitive(d, "id");
			const cJSON *cat = cJSON_GetObjectItemCaseSensitive(d, "category");
			*source = xasprintf("%s: diagnosis %s (%s)%s", path,
			                    cJSON_IsString(id) ? id->valuestring : "?",
			                    cJSON_IsString(cat) ? cat->valuestring : "?",
			                    pos > 1 ? ", the highest-ranked one that proposes an environment" : "");
			found = 1;
			rank_of_top = pos;
			break;
		}
		if (found)
			break;
	}
	(void)rank_of_top;
	cJSON_Delete(root);
	if (!found) {
		fprintf(stderr, "nccl-triage verify: %s: no diagnosis proposes an environment (verify.env); nothing to verify\n", path);
		return -1;
	}
	return 0;
}

static void safe_name(char *s)
{
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '-' || *s == '_' || *s == '.'))
			*s = '-';
}

static void write_logs(const char *dir, const struct verify_run *r)
{
	char *mode = xstrdup(r->mode);
	safe_name(mode);
	char *sub = xasprintf("%s/%s", dir, mode);
	mkdir(dir, 0755);
	mkdir(sub, 0755);
	for (int i = 0; i < r->nranks; i++) {
		char *p = xasprintf("%s/rank%d.log", sub, i);
		FILE *f = fopen(p, "wb");
		if (f) {
			if (r->ranks[i].log.len)
				fwrite(r->ranks[i].log.data, 1, r->ranks[i].log.len, f);
			fclose(f);
		} else {
			fprintf(stderr, "nccl-triage verify: %s: cannot write: %s\n", p, strerror(errno));
		}
		free(p);
	}
	free(sub);
	free(mode);
}

static void progress(const char *what, const struct venv_list *env)
{
	if (!isatty(2))
		return;
	char *d = venv_describe(env);
	fprintf(stderr, "nccl-triage verify: running %s: %s\n", what, d);
	free(d);
}

/* verify's own options (c->args, in order) and the shared ones. */
static int parse_args(const struct common *c, const struct strvec *ops, struct vopts *o)
{
	const struct format *fmt = format_pick(c->format, CMD_VERIFY, "verify");
	if (!fmt)
		return VERIFY_EXIT_USAGE;
	o->format = fmt->name;
	o->output = c->output;
	if (ops->n)
		return usage_error("unexpected operand '%s'", ops->v[0]);
	for (size_t i = 0; i < c->nargs; i++) {
		const char *val = c->args[i].arg;
		long v;
		switch (c->args[i].id) {
		case OPT_VERIFY_GPUS: o->gpus = val; break;
		case OPT_NRANKS:
			if (parse_int(val, 1, 4096, &v))
				return usage_error("--nranks: '%s' is not a number from 1 to 4096", val);
			o->nranks = (int)v;
			break;
		case OPT_ENV:
			if (!strchr(val, '=') || venv_parse(&o->env, val))
				return usage_error("--env: '%s' is not K=V with K a valid variable name", val);
			break;
		case OPT_UNSET:
			if (strchr(val, '=') || venv_parse(&o->env, val))
				return usage_error("--unset: '%s' is not a variable name", val);
			break;
		case OPT_FROM_REPORT: o->from_report = val; break;
		case OPT_SURVEY: o->survey = 1; break;
		case OPT_TIMEOUT: {
			char *end;
			double t = strtod(val, &end);
			if (end == val || *end || !(t > 0) || t > 86400)
				return usage_error("--timeout: '%s' is not a number of seconds (0 < S <= 86400)", val);
			o->cfg.timeout_s = t;
			break;
		}
		case OPT_SIZE: {
			int64_t s = parse_size(val);
			if (s < 4 || s > (int64_t)16 << 30)
				return usage_error("--size: '%s' is not a size from 4 bytes to 16G", val);
			o->cfg.bytes = (size_t)s;
			break;
		}
		case OPT_ITERS:
			if (parse_int(val, 1, 100000, &v))
				return usage_error("--iters: '%s' is not a number from 1 to 100000", val);
			o->cfg.iters = (int)v;
			break;
		case OPT_NCCL_LIB: o->cfg.nccl_lib = val; break;
		case OPT_CUDA_LIB: o->cfg.cuda_lib = val; break;
		case OPT_LOGS: o->logs = val; break;
		case OPT_VERIFY_PATTERNS: o->patterns = val; break;
		case OPT_NO_ANALYSIS: o->no_analysis = 1; break;
		default: break;
		}
	}
	return 0;
}

static void analyze_run(struct verify_session *s, struct verify_run *r, const char *patterns, int *noted)
{
	char *msg = NULL;
	verify_analyze(r, patterns, &msg);
	if (msg && !*noted) {
		strvec_push(&s->notes, msg);
		*noted = 1;
	}
	free(msg);
}

/* The candidate environment: --from-report, then --env/--unset on top. */
static int read_candidate(struct vopts *o, struct verify_session *s, struct venv_list *cand)
{
	if (o->from_report) {
		if (env_from_report(o->from_report, cand, &s->candidate_source) != 0) {
			return VERIFY_EXIT_USAGE;
		}
	}
	for (size_t i = 0; i < o->env.n; i++)
		venv_set(cand, o->env.v[i].key, o->env.v[i].value);
	if (o->env.n && !s->candidate_source)
		s->candidate_source = xstrdup("--env/--unset");
	else if (o->env.n) {
		char *t = xasprintf("%s, with --env/--unset on top", s->candidate_source);
		free(s->candidate_source);
		s->candidate_source = t;
	}
	venv_free(&o->env);
	return 0;
}

/* The GPUs asked for, and the probe of the host: libraries and GPUs. */
static int probe(const struct vopts *o, struct verify_session *s, int *gpus)
{
	int ngpus = -1;
	if (o->gpus && (ngpus = parse_gpus(o->gpus, gpus, 4096)) <= 0) {
		return usage_error("--gpus: '%s' is not a list of distinct GPU ordinals like 0,1 or 0-3", o->gpus);
	}
	if (ngpus > 0 && o->nranks > ngpus) {
		fprintf(stderr, "nccl-triage verify: --nranks %d but --gpus lists %d GPU%s: each rank needs its own GPU\n",
		        o->nranks, ngpus, ngpus == 1 ? "" : "s");
		return VERIFY_EXIT_USAGE;
	}

	/* Probe: libraries and GPUs, in a child. */
	s->cfg = o->cfg;
	verify_probe_host(&o->cfg, o->cfg.timeout_s < 30 ? o->cfg.timeout_s : 30, &s->probe);
	if (s->probe.ok) {
		int want = o->nranks ? o->nranks : ngpus > 0 ? ngpus : (int)s->probe.ngpus;
		if (ngpus <= 0) {
			ngpus = 0;
			for (size_t i = 0; i < s->probe.ngpus && ngpus < 4096; i++)
				gpus[ngpus++] = s->probe.gpus[i].index;
		}
		for (int i = 0; i < ngpus && i < want; i++)
			if (gpus[i] >= (int)s->probe.ngpus)
				strvec_push_owned(&s->probe.missing, xasprintf(
					"GPU %d is not visible: the driver lists %zu GPU%s (CUDA_VISIBLE_DEVICES=%s)",
					gpus[i], s->probe.ngpus, s->probe.ngpus == 1 ? "" : "s",
					getenv("CUDA_VISIBLE_DEVICES") ? getenv("CUDA_VISIBLE_DEVICES") : "unset"));
		if (want > ngpus)
			strvec_push_owned(&s->probe.missing, xasprintf(
				"%d ranks asked for but only %d GPU%s visible: each rank needs its own GPU",
				want, ngpus, ngpus == 1 ? " is" : "s are"));
		if (s->probe.missing.n)
			s->probe.ok = 0;
		s->cfg.nranks = want;
		s->cfg.gpus = gpus;
	}
	s->cfg.resolved_nccl = s->probe.nccl_path;
	s->cfg.resolved_cuda = s->probe.cuda_path;
	return 0;
}

/* Baseline, candidate, survey; the analysis of their logs; --logs. */
static void run_all(const struct vopts *o, struct verify_session *s, const struct venv_list *cand)
{
	char *patterns = NULL;
	if (!o->no_analysis)
		patterns = o->patterns ? xstrdup(o->patterns) : builtin_patterns_dir();
	int noted = 0;
	if (!o->no_analysis && !patterns) {
		strvec_push(&s->notes, "analysis skipped: no signature database found (use --patterns DIR)");
		noted = 1;
	}

	if (s->probe.ok) {
		struct venv_list none = {0};
		s->baseline = xcalloc(1, sizeof *s->baseline);
		progress("baseline", &none);
		verify_run_mode(&s->cfg, "baseline", &none, s->baseline);
		if (cand->n) {
			s->candidate = xcalloc(1, sizeof *s->candidate);
			progress("candidate", cand);
			verify_run_mode(&s->cfg, "candidate", cand, s->candidate);
		}
		if (o->survey && s->cfg.nranks < 2) {
			strvec_push(&s->notes, "transport survey skipped: with 1 rank there is no transport between GPUs");
		} else if (o->survey) {
			s->survey = xcalloc(VERIFY_SURVEY_N, sizeof *s->survey);
			for (size_t i = 0; i < VERIFY_SURVEY_N; i++) {
				struct venv_list e = {0};
				for (size_t j = 0; j < cand->n; j++)
					venv_set(&e, cand->v[j].key, cand->v[j].value);
				for (const char *const *kv = VERIFY_SURVEY[i].env; *kv; kv++)
					venv_parse(&e, *kv);
				char *mode = xasprintf("survey:%s", VERIFY_SURVEY[i].name);
				progress(mode, &e);
				verify_run_mode(&s->cfg, mode, &e, &s->survey[i]);
				s->nsurvey++;
				free(mode);
				venv_free(&e);
			}
			if (cand->n)
				strvec_push(&s->notes, "the survey ran on top of the candidate environment");
		}
		if (patterns) {
			analyze_run(s, s->baseline, patterns, &noted);
			if (s->candidate)
				analyze_run(s, s->candidate, patterns, &noted);
			for (size_t i = 0; i < s->nsurvey; i++)
				analyze_run(s, &s->survey[i], patterns, &noted);
		}
		if (o->logs) {
			write_logs(o->logs, s->baseline);
			if (s->candidate)
				write_logs(o->logs, s->candidate);
			for (size_t i = 0; i < s->nsurvey; i++)
				write_logs(o->logs, &s->survey[i]);
		}
	}
	free(patterns);
	
}

/* The report in the chosen format, to --output or stdout; the exit status. */
static int report(const struct vopts *o, struct verify_session *s)
{
	int rc;
	if (!s->baseline) {
		fprintf(stderr, "nccl-triage verify: cannot run here:\n");
		for (size_t i = 0; i < s->probe.missing.n; i++)
			fprintf(stderr, "  - %s\n", s->probe.missing.v[i]);
		fprintf(stderr, "(exit status %d: verify needs the CUDA driver, at least one GPU per rank and libnccl.so.2;"
		                " see --nccl-lib, --cuda-lib, --gpus)\n", VERIFY_EXIT_UNAVAILABLE);
	}

	char *out;
	if (!strcmp(o->format, "json"))
		out = verify_report_json(s);
	else if (!strcmp(o->format, "md"))
		out = verify_report_md(s);
	else
		out = verify_report_text(s, !o->output && isatty(1) && !getenv("NO_COLOR"));
	rc = s->exit_status;
	/* Without --output, the text report of an unavailable host goes to
	 * stderr only (already printed); JSON and Markdown still go to stdout. */
	if (o->output) {
		FILE *f = fopen(o->output, "wb");
		if (!f || fputs(out, f) < 0 || fclose(f) != 0) {
			fprintf(stderr, "nccl-triage verify: %s: cannot write: %s\n", o->output, strerror(errno));
			if (rc == 0)
				rc = VERIFY_EXIT_USAGE;
		}
	} else if (s->baseline || strcmp(o->format, "text")) {
		fputs(out, stdout);
		fflush(stdout);
	}
	free(out);
	return rc;
}

int cmd_verify(struct common *c, struct strvec *ops)
{
	struct vopts o;
	struct verify_session s;
	int gpus[4096];
	memset(&o, 0, sizeof o);
	memset(&s, 0, sizeof s);
	verify_cfg_default(&o.cfg);
	o.format = "text";
	int rc = parse_args(c, ops, &o);
	struct venv_list cand = {0};
	if (!rc)
		rc = read_candidate(&o, &s, &cand);
	venv_free(&o.env);
	if (!rc)
		rc = probe(&o, &s, gpus);
	if (rc) {
		venv_free(&cand);
		free(s.candidate_source);
		return rc;
	}
	run_all(&o, &s, &cand);
	venv_free(&cand);
	verify_judge(&s);
	rc = report(&o, &s);
	verify_session_free(&s);
	return rc;
}
