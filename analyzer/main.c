/* main.c - the nccl-triage command line: subcommand dispatch, database
 * discovery, output and exit status.  All analysis lives in the library. */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bundle.h"
#include "cli.h"
#include "commands.h"
#include "dbpath.h"
#include "report.h"
#include "rules.h"
#include "sigdb.h"

#ifndef NT_VERSION
#define NT_VERSION "0.0.0"
#endif

/* Exit statuses (documented in the man page, EXIT STATUS). */
enum { EXIT_HEALTHY = 0, EXIT_FOUND = 1, EXIT_TROUBLE = 2 };

static void usage(FILE *out)
{
	fprintf(out,
	        "usage: nccl-triage COMMAND [OPTIONS] [ARGS]\n"
	        "\n"
	        "Turn the evidence of a failed multi-GPU (NCCL / PyTorch) job into a root cause and a fix.\n"
	        "\n"
	        "commands:\n"
	        "  analyze PATH...     analyse bundles (a file, folder, .gz, .tar, .tar.gz, or - for stdin);\n"
	        "                      each PATH is one bundle (one ticket)\n"
	        "  batch PATH...       many bundles: each archive and each direct child folder of PATH\n"
	        "  merge FILE...       combine the JSONL outputs of batch shards into one summary\n"
	        "  verify [OPTIONS]    replay a minimal NCCL init on this host's GPUs (needs GPUs + libnccl)\n"
	        "  mem [OPTIONS]       will a model fit: per-GPU memory of a sharded model\n"
	        "  check-db [DIR...]   validate and self-test a signature database\n"
	        "  list                list signatures and diagnoses (--regex, --rules, --format md)\n"
	        "  explain ID          show one diagnosis or signature in full\n"
	        "  version             print the version\n"
	        "\n"
	        "Run 'nccl-triage COMMAND --help' for a command's options; 'man nccl-triage' for everything.\n"
	        "Exit status of analyze: 0 every bundle healthy or without evidence, 1 a failure was found,\n"
	        "2 nothing could be analysed (usage, database or input error).\n");
}

/* ---- database discovery ---- */

struct common {
	struct strvec pattern_dirs;
	int no_builtin;
	int quiet;
	const char *format;
	const char *output;
	const char *color;
	int evidence;
	struct limits lim;
	const char *name;
	int regex, rules, summary_only, jobs;
	const char *progress;
};

/* Load dir unless the same folder (by real path) was loaded already, so
 * that --patterns naming the built-in folder does not duplicate every id. */
static int load_dir_once(struct sigdb *db, const char *dir, struct strvec *seen, struct msgs *m)
{
	char *real = realpath(dir, NULL);
	const char *key = real ? real : dir;
	if (strvec_contains(seen, key)) {
		free(real);
		return 0;
	}
	strvec_push(seen, key);
	free(real);
	return sigdb_load_dir(db, dir, m);
}

static int load_db(struct sigdb *db, const struct common *c, int for_check)
{
	struct msgs m = {0};
	struct strvec seen = {0};
	int errors = 0;
	sigdb_init(db);
	db->match_limit = c->lim.match_limit;
	db->depth_limit = c->lim.depth_limit;
	if (!c->no_builtin) {
		char *dir = builtin_patterns_dir();
		if (!dir) {
			fprintf(stderr, "nccl-triage: cannot find the built-in signature database (patterns/)\n"
			                "hint: set NCCL_TRIAGE_DATADIR, or pass --patterns DIR\n");
			return -1;
		}
		errors += load_dir_once(db, dir, &seen, &m);
		free(dir);
	}
	const char *envp = getenv("NCCL_TRIAGE_PATTERNS");
	if (envp && *envp) {
		char *copy = xstrdup(envp), *save = NULL;
		for (char *d = strtok_r(copy, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
			errors += load_dir_once(db, d, &seen, &m);
		}
		free(copy);
	}
	for (size_t i = 0; i < c->pattern_dirs.n; i++) {
		errors += load_dir_once(db, c->pattern_dirs.v[i], &seen, &m);
	}
	errors += sigdb_finalize(db, &m);
	for (size_t i = 0; i < m.list.n; i++)
		fprintf(stderr, "nccl-triage: %s\n", m.list.v[i]);
	msgs_free(&m);
	strvec_free(&seen);
	if (errors && !for_check) {
		fprintf(stderr, "nccl-triage: the signature database has %d error%s; run 'nccl-triage check-db' for details\n",
		        errors, errors == 1 ? "" : "s");
		return -1;
	}
	return errors;
}

static int parse_num(const char *opt, const char *v, long long min, long long *out)
{
	char *end;
	errno = 0;
	long long x = strtoll(v, &end, 10);
	if (errno || *end || end == v || x < min) {
		fprintf(stderr, "nccl-triage: --%s: invalid number '%s'\n", opt, v);
		return -1;
	}
	*out = x;
	return 0;
}

static int parse_sz(const char *opt, const char *v, uint64_t *out)
{
	int64_t x = parse_size(v);
	if (x <= 0) {
		fprintf(stderr, "nccl-triage: --%s: invalid size '%s' (e.g. 64M, 1G)\n", opt, v);
		return -1;
	}
	*out = (uint64_t)x;
	return 0;
}

/* Parse options for a subcommand; operands go to *ops.  Returns 0, 1 for
 * --help (printed), -1 on error. */
static int parse_common(int argc, char **argv, unsigned cmd, const char *cmdname, const char *synopsis,
                        struct common *c, struct strvec *ops)
{
	memset(c, 0, sizeof *c);
	limits_default(&c->lim);
	c->color = "auto";
	int i = 2, nomore = 0;
	while (i < argc) {
		enum opt_id id;
		const char *arg;
		int r = cli_next(argc, argv, &i, cmd, cmdname, &id, &arg, &nomore);
		if (r < 0)
			return -1;
		if (r == 2)
			continue;
		if (r == 0) {
			strvec_push(ops, argv[i++]);
			continue;
		}
		long long v;
		uint64_t sz;
		switch (id) {
		case OPT_HELP:
			printf("usage: nccl-triage %s\n\noptions:\n", synopsis);
			cli_help(stdout, cmd);
			return 1;
		case OPT_FORMAT: c->format = arg; break;
		case OPT_OUTPUT: c->output = arg; break;
		case OPT_PATTERNS: strvec_push(&c->pattern_dirs, arg); break;
		case OPT_NO_BUILTIN: c->no_builtin = 1; break;
		case OPT_COLOR: c->color = arg; break;
		case OPT_QUIET: c->quiet = 1; break;
		case OPT_NAME: c->name = arg; break;
		case OPT_REGEX: c->regex = 1; break;
		case OPT_RULES: c->rules = 1; break;
		case OPT_SUMMARY_ONLY: c->summary_only = 1; break;
		case OPT_PROGRESS: c->progress = arg; break;
		case OPT_EVIDENCE:
			if (parse_num("evidence", arg, 1, &v)) return -1;
			c->evidence = (int)v;
			break;
		case OPT_JOBS:
			if (parse_num("jobs", arg, 1, &v)) return -1;
			c->jobs = (int)v;
			break;
		case OPT_MAX_MEMBER_BYTES:
			if (parse_sz("max-member-bytes", arg, &sz)) return -1;
			c->lim.max_member_bytes = sz;
			break;
		case OPT_MAX_BUNDLE_BYTES:
			if (parse_sz("max-bundle-bytes", arg, &sz)) return -1;
			c->lim.max_bundle_bytes = sz;
			break;
		case OPT_MAX_LINE:
			if (parse_sz("max-line", arg, &sz)) return -1;
			c->lim.max_line = (size_t)sz;
			break;
		case OPT_MAX_RATIO:
			if (parse_num("max-ratio", arg, 1, &v)) return -1;
			c->lim.max_ratio = (double)v;
			break;
		case OPT_MAX_MEMBERS:
			if (parse_num("max-members", arg, 1, &v)) return -1;
			c->lim.max_members = (size_t)v;
			break;
		case OPT_MAX_NESTING:
			if (parse_num("max-nesting", arg, 0, &v)) return -1;
			c->lim.max_nesting = (int)v;
			break;
		case OPT_MAX_DEPTH:
			if (parse_num("max-depth", arg, 0, &v)) return -1;
			c->lim.max_depth = (int)v;
			break;
		case OPT_MAX_ENTRIES:
			if (parse_num("max-entries", arg, 1, &v)) return -1;
			c->lim.max_entries = (size_t)v;
			break;
		case OPT_MAX_LINES:
			if (parse_num("max-lines", arg, 1, &v)) return -1;
			c->lim.max_lines = (uint64_t)v;
			break;
		case OPT_MATCH_LIMIT:
			if (parse_num("match-limit", arg, 1, &v)) return -1;
			c->lim.match_limit = (uint32_t)v;
			break;
		}
	}
	return 0;
}

static void free_common(struct common *c)
{
	strvec_free(&c->pattern_dirs);
}

static int want_color(const struct common *c, FILE *out)
{
	if (strcmp(c->color, "always") == 0)
		return 1;
	if (strcmp(c->color, "never") == 0)
		return 0;
	const char *nc = getenv("NO_COLOR");
	if (nc && *nc)
		return 0;
	return isatty(fileno(out));
}

/* Open the output; "-" or NULL is stdout. */
static FILE *open_output(const char *path)
{
	if (!path || strcmp(path, "-") == 0)
		return stdout;
	FILE *f = fopen(path, "w");
	if (!f)
		fprintf(stderr, "nccl-triage: cannot write '%s': %s\n", path, strerror(errno));
	return f;
}

/* ---- output errors: ENOSPC, EPIPE (see docs/hardening.md, "Faults") ----
 * SIGPIPE is ignored (main), so a reader that goes away (`| head -1`) shows
 * up as EPIPE on a write.  That is not an error of the analysis: the
 * program stops writing quietly and exits EXIT_PIPE, 141, the status a shell
 * shows for a filter killed by SIGPIPE, so pipelines behave as usual.  Any
 * other write error (ENOSPC on -o /dev/full, EIO) gets one message and exit
 * status 2.  out_errno remembers the first failure's errno. */
#define EXIT_PIPE 141
static int out_errno;

/* Flush and close; reports a write error once.  Returns 0, -1 on a write
 * error (message printed), -2 when the reader closed the pipe (quiet). */
static int close_output(FILE *f, const char *path)
{
	int bad = ferror(f);
	errno = 0;
	if (fflush(f) != 0)
		bad = 1;
	int e = errno;
	if (f != stdout && fclose(f) != 0) {
		if (!e)
			e = errno;
		bad = 1;
	}
	if (!bad)
		return 0;
	if (!e)
		e = out_errno ? out_errno : EIO;
	if (!out_errno)
		out_errno = e;
	if (e == EPIPE)
		return -2;
	fprintf(stderr, "nccl-triage: error writing '%s': %s\n", path ? path : "standard output", strerror(e));
	return -1;
}

/* Exit status for a close_output result on top of the command's status. */
static int output_status(int rc, int status)
{
	return rc == -2 ? EXIT_PIPE : rc < 0 ? EXIT_TROUBLE : status;
}

static int cmd_analyze(int argc, char **argv)
{
	struct common c;
	struct strvec ops = {0};
	int pr = parse_common(argc, argv, CMD_ANALYZE, "analyze",
	                      "analyze [--format text|json|md] [-o FILE] [--patterns DIR] PATH...", &c, &ops);
	if (pr) {
		strvec_free(&ops);
		free_common(&c);
		return pr > 0 ? 0 : EXIT_TROUBLE;
	}
	const char *fmt = c.format ? c.format : "text";
	if (strcmp(fmt, "text") && strcmp(fmt, "json") && strcmp(fmt, "md")) {
		fprintf(stderr, "nccl-triage analyze: unknown format '%s' (text, json, md)\n", fmt);
		free_common(&c);
		strvec_free(&ops);
		return EXIT_TROUBLE;
	}
	if (ops.n == 0) {
		fprintf(stderr, "nccl-triage analyze: no input\nhint: nccl-triage analyze ticket.tar.gz  (or - for stdin)\n");
		free_common(&c);
		return EXIT_TROUBLE;
	}
	struct sigdb db;
	if (load_db(&db, &c, 0) < 0) {
		sigdb_free(&db);
		free_common(&c);
		strvec_free(&ops);
		return EXIT_TROUBLE;
	}
	struct bundle **bundles = xcalloc(ops.n, sizeof *bundles);
	size_t readable = 0;
	for (size_t i = 0; i < ops.n; i++) {
		const char *name = c.name ? c.name : (strcmp(ops.v[i], "-") == 0 ? "stdin" : ops.v[i]);
		bundles[i] = bundle_new(name, &db, &c.lim);
		int rc = bundle_add_path(bundles[i], ops.v[i]);
		if (rc == 0)
			readable++;
		bundle_finish(bundles[i]);
		if (!c.quiet)
			for (size_t k = 0; k < bundles[i]->warnings.list.n; k++)
				fprintf(stderr, "nccl-triage: %s\n", bundles[i]->warnings.list.v[k]);
	}
	int status = EXIT_HEALTHY;
	for (size_t i = 0; i < ops.n; i++)
		if (bundles[i]->verdict == VERDICT_DIAGNOSED || bundles[i]->verdict == VERDICT_UNKNOWN_FAILURE)
			status = EXIT_FOUND;
	if (readable == 0)
		status = EXIT_TROUBLE;

	FILE *out = open_output(c.output);
	if (!out) {
		status = EXIT_TROUBLE;
	} else {
		if (strcmp(fmt, "json") == 0) {
			cJSON *doc = report_json(bundles, ops.n, &db);
			char *s = cJSON_Print(doc);
			fputs(s, out);
			fputc('\n', out);
			free(s);
			cJSON_Delete(doc);
		} else {
			struct report_opts ro = {want_color(&c, out), c.evidence};
			for (size_t i = 0; i < ops.n; i++) {
				if (i)
					fputc('\n', out);
				if (strcmp(fmt, "md") == 0)
					report_md(out, bundles[i], &ro);
				else
					report_text(out, bundles[i], &ro);
			}
		}
		status = output_status(close_output(out, c.output), status);
	}
	for (size_t i = 0; i < ops.n; i++)
		bundle_free(bundles[i]);
	free(bundles);
	sigdb_free(&db);
	free_common(&c);
	strvec_free(&ops);
	return status;
}

static int cmd_check_db(int argc, char **argv)
{
	struct common c;
	struct strvec ops = {0};
	int pr = parse_common(argc, argv, CMD_CHECKDB, "check-db", "check-db [--patterns DIR] [DIR...]", &c, &ops);
	if (pr) {
		strvec_free(&ops);
		free_common(&c);
		return pr > 0 ? 0 : EXIT_TROUBLE;
	}
	/* operands are databases to check on their own */
	if (ops.n) {
		c.no_builtin = 1;
		for (size_t i = 0; i < ops.n; i++)
			strvec_push(&c.pattern_dirs, ops.v[i]);
	}
	struct sigdb db;
	int errors = load_db(&db, &c, 1);
	if (errors < 0) {
		sigdb_free(&db);
		free_common(&c);
		strvec_free(&ops);
		return EXIT_TROUBLE;
	}
	struct msgs m = {0};
	size_t ok = 0;
	int fails = sigdb_selftest(&db, &m, &ok);
	for (size_t i = 0; i < m.list.n; i++)
		fprintf(stderr, "nccl-triage: %s\n", m.list.v[i]);
	msgs_free(&m);
	size_t derived = 0, nolit = 0;
	for (size_t i = 0; i < db.nsigs; i++) {
		derived += db.sigs[i].literals_derived;
		nolit += db.sigs[i].literals.n == 0;
	}
	printf("check-db: %zu files, %zu signatures (%zu with derived literals, %zu without a prefilter literal), "
	       "%zu diagnoses; %zu samples passed, %d failed; %d load error%s\n",
	       db.files.n, db.nsigs, derived, nolit, db.ndiags, ok, fails, errors, errors == 1 ? "" : "s");
	sigdb_free(&db);
	free_common(&c);
	strvec_free(&ops);
	return (errors || fails) ? EXIT_TROUBLE : 0;
}

static int cmd_list(int argc, char **argv)
{
	struct common c;
	struct strvec ops = {0};
	int pr = parse_common(argc, argv, CMD_LIST, "list", "list [--regex | --rules] [--format text|md|json]", &c, &ops);
	if (pr) {
		strvec_free(&ops);
		free_common(&c);
		return pr > 0 ? 0 : EXIT_TROUBLE;
	}
	int status = 0;
	FILE *out = open_output(c.output);
	if (!out) {
		free_common(&c);
		strvec_free(&ops);
		return EXIT_TROUBLE;
	}
	if (c.rules) {
		for (size_t p = 0; RULE_PROVIDERS[p]; p++)
			for (size_t i = 0; i < RULE_PROVIDERS[p]->nrules; i++)
				fprintf(out, "%-40s %s\n", RULE_PROVIDERS[p]->rules[i].id, RULE_PROVIDERS[p]->rules[i].summary);
		int st = output_status(close_output(out, c.output), 0);
		free_common(&c);
		strvec_free(&ops);
		return st;
	}
	struct sigdb db;
	if (load_db(&db, &c, 0) < 0) {
		sigdb_free(&db);
		free_common(&c);
		strvec_free(&ops);
		return EXIT_TROUBLE;
	}
	const char *fmt = c.format ? c.format : "text";
	if (c.regex) {
		for (size_t i = 0; i < db.nsigs; i++)
			fprintf(out, "%s\n", db.sigs[i].regex);
	} else if (strcmp(fmt, "md") == 0) {
		fprintf(out, "# Signature catalog\n\nGenerated by `nccl-triage list --format md` from `patterns/` "
		             "(database %s): %zu signatures, %zu diagnoses. Do not edit by hand; `make catalog` "
		             "regenerates it and `make check` fails when it is stale.\n\n",
		        db.version, db.nsigs, db.ndiags);
		fprintf(out, "| id | category | severity | role | title | first fix |\n|---|---|---|---|---|---|\n");
		for (size_t i = 0; i < db.ndiags; i++) {
			const struct diagdef *d = &db.diags[i];
			fprintf(out, "| `%s` | %s | %s | %s | ", d->id, d->category, severity_name(d->severity), role_name(d->role));
			for (const char *p = d->title; *p; p++)
				fputs(*p == '|' ? "\\|" : (char[]){*p, 0}, out);
			fprintf(out, " | ");
			for (const char *p = d->fix.n ? d->fix.v[0] : ""; *p; p++)
				fputs(*p == '|' ? "\\|" : *p == '\n' ? " " : (char[]){*p, 0}, out);
			fprintf(out, " |\n");
		}
		fprintf(out, "\n## Signatures\n\n| id | on | file | regex |\n|---|---|---|---|\n");
		static const char *onn[] = {"warn", "info", "nccl", "plain", "any"};
		for (size_t i = 0; i < db.nsigs; i++) {
			const struct signature *s = &db.sigs[i];
			const char *base = strrchr(s->file, '/');
			fprintf(out, "| `%s` | %s | %s | `", s->id, onn[s->on], base ? base + 1 : s->file);
			for (const char *p = s->regex; *p; p++)
				fputs(*p == '|' ? "\\|" : *p == '`' ? "'" : (char[]){*p, 0}, out);
			fprintf(out, "` |\n");
		}
	} else if (strcmp(fmt, "json") == 0) {
		cJSON *root = cJSON_CreateObject();
		cJSON_AddStringToObject(root, "version", db.version);
		cJSON *ds = cJSON_AddArrayToObject(root, "diagnoses");
		for (size_t i = 0; i < db.ndiags; i++)
			cJSON_AddItemToArray(ds, cJSON_Duplicate(db.diags[i].json, 1));
		cJSON *ss = cJSON_AddArrayToObject(root, "signatures");
		for (size_t i = 0; i < db.nsigs; i++)
			cJSON_AddItemToArray(ss, cJSON_Duplicate(db.sigs[i].json, 1));
		char *s = cJSON_Print(root);
		fprintf(out, "%s\n", s);
		free(s);
		cJSON_Delete(root);
	} else if (strcmp(fmt, "text") == 0) {
		for (size_t i = 0; i < db.ndiags; i++)
			fprintf(out, "%-44s %-18s %-7s %s\n", db.diags[i].id, db.diags[i].category,
			        severity_name(db.diags[i].severity), db.diags[i].title);
		fprintf(out, "(%zu diagnoses, %zu signatures; database %s)\n", db.ndiags, db.nsigs, db.version);
	} else {
		fprintf(stderr, "nccl-triage list: unknown format '%s' (text, md, json)\n", fmt);
		status = EXIT_TROUBLE;
	}
	status = output_status(close_output(out, c.output), status);
	sigdb_free(&db);
	free_common(&c);
	strvec_free(&ops);
	return status;
}

static int cmd_explain(int argc, char **argv)
{
	struct common c;
	struct strvec ops = {0};
	int pr = parse_common(argc, argv, CMD_EXPLAIN, "explain", "explain [--format text|json] ID", &c, &ops);
	if (pr || ops.n != 1) {
		if (!pr)
			fprintf(stderr, "nccl-triage explain: give one diagnosis or signature id\nhint: nccl-triage list\n");
		strvec_free(&ops);
		free_common(&c);
		return pr > 0 ? 0 : EXIT_TROUBLE;
	}
	struct sigdb db;
	if (load_db(&db, &c, 0) < 0) {
		sigdb_free(&db);
		free_common(&c);
		strvec_free(&ops);
		return EXIT_TROUBLE;
	}
	const char *id = ops.v[0];
	const struct diagdef *d = sigdb_diag(&db, id);
	const struct signature *s = sigdb_sig(&db, id);
	int json = c.format && strcmp(c.format, "json") == 0;
	int status = 0;
	if (!d && !s) {
		fprintf(stderr, "nccl-triage explain: no diagnosis or signature '%s'\nhint: nccl-triage list\n", id);
		status = EXIT_TROUBLE;
	} else if (json) {
		cJSON *o = cJSON_CreateObject();
		if (d) cJSON_AddItemToObject(o, "diagnosis", cJSON_Duplicate(d->json, 1));
		if (s) cJSON_AddItemToObject(o, "signature", cJSON_Duplicate(s->json, 1));
		char *t = cJSON_Print(o);
		printf("%s\n", t);
		free(t);
		cJSON_Delete(o);
	} else {
		if (d) {
			printf("diagnosis %s  (%s)\n  category:   %s\n  severity:   %s\n  role:       %s\n  confidence: %.2f\n  title:      %s\n\n  %s\n\n  fix:\n",
			       d->id, d->file, d->category, severity_name(d->severity), role_name(d->role), d->confidence,
			       d->title, d->explanation);
			for (size_t i = 0; i < d->fix.n; i++)
				printf("    %zu. %s\n", i + 1, d->fix.v[i]);
			printf("\n  when any of: ");
			for (size_t i = 0; i < d->when_any.n; i++)
				printf("%s%s", i ? ", " : "", d->when_any.v[i]);
			if (d->when_all.n) {
				printf("\n  and all of:  ");
				for (size_t i = 0; i < d->when_all.n; i++)
					printf("%s%s", i ? ", " : "", d->when_all.v[i]);
			}
			if (d->when_none.n) {
				printf("\n  and none of: ");
				for (size_t i = 0; i < d->when_none.n; i++)
					printf("%s%s", i ? ", " : "", d->when_none.v[i]);
			}
			if (d->cascade_of.n) {
				printf("\n  echo of:     ");
				for (size_t i = 0; i < d->cascade_of.n; i++)
					printf("%s%s", i ? ", " : "", d->cascade_of.v[i]);
			}
			printf("\n");
			for (size_t i = 0; i < d->references.n; i++)
				printf("  ref: %s\n", d->references.v[i]);
		}
		if (s) {
			printf("%ssignature %s  (%s)\n  on:       %d\n  regex:    %s\n  literals:", d ? "\n" : "", s->id, s->file,
			       (int)s->on, s->regex);
			for (size_t i = 0; i < s->literals.n; i++)
				printf(" \"%s\"", s->literals.v[i]);
			printf("%s\n", s->literals_derived ? " (derived)" : "");
			const cJSON *samples = cJSON_GetObjectItemCaseSensitive(s->json, "samples"), *it;
			printf("  samples:\n");
			cJSON_ArrayForEach(it, samples) {
				const cJSON *l = cJSON_IsString(it) ? it : cJSON_GetObjectItemCaseSensitive(it, "line");
				if (cJSON_IsString(l))
					printf("    %s\n", l->valuestring);
			}
		}
	}
	sigdb_free(&db);
	free_common(&c);
	strvec_free(&ops);
	return status;
}

static int run_command(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return EXIT_TROUBLE;
	}
	const char *cmd = argv[1];
	if (strcmp(cmd, "analyze") == 0 || strcmp(cmd, "analyse") == 0)
		return cmd_analyze(argc, argv);
	if (strcmp(cmd, "check-db") == 0)
		return cmd_check_db(argc, argv);
	if (strcmp(cmd, "list") == 0)
		return cmd_list(argc, argv);
	if (strcmp(cmd, "explain") == 0)
		return cmd_explain(argc, argv);
	if (strcmp(cmd, "version") == 0 || strcmp(cmd, "--version") == 0 || strcmp(cmd, "-V") == 0) {
		printf("nccl-triage %s\n", NT_VERSION);
		return 0;
	}
	if (strcmp(cmd, "help") == 0 || strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0) {
		usage(stdout);
		return 0;
	}
	for (const struct command *c = EXTRA_COMMANDS; c->name; c++)
		if (strcmp(cmd, c->name) == 0)
			return c->run(argc - 1, argv + 1);
	fprintf(stderr, "nccl-triage: unknown command '%s'\nhint: nccl-triage --help\n", cmd);
	return EXIT_TROUBLE;
}

int main(int argc, char **argv)
{
	/* A closed pipe is EPIPE on write, handled above, not a silent kill. */
	signal(SIGPIPE, SIG_IGN);
	int status = run_command(argc, argv);
	/* Whatever a command printed to stdout with printf: flush it now and
	 * report a failure instead of losing it at exit. */
	errno = 0;
	int bad = ferror(stdout);
	if (fflush(stdout) != 0)
		bad = 1;
	if (bad && !out_errno) {
		int e = errno ? errno : EIO;
		out_errno = e;
		if (e != EPIPE)
			fprintf(stderr, "nccl-triage: error writing 'standard output': %s\n", strerror(e));
		if (status != EXIT_TROUBLE)
			status = e == EPIPE ? EXIT_PIPE : EXIT_TROUBLE;
	}
	return status;
}
