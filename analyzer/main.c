/* main.c - the nccl-triage command line: subcommand dispatch, database
 * discovery, output and exit status.  All analysis lives in the library. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "acmatch.h"
#include "analysis.h"
#include "bundle.h"
#include "cli.h"
#include "clicommon.h"
#include "commands.h"
#include "coverage.h"
#include "dbpath.h"
#include "redact.h"
#include "report.h"
#include "report_formats.h"
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
	        "  coverage            what each failure message NCCL prints maps to (--format md)\n"
	        "  explain ID          show one diagnosis or signature in full\n"
	        "  version             print the version\n"
	        "\n"
	        "Run 'nccl-triage COMMAND --help' for a command's options; 'man nccl-triage' for everything.\n"
	        "Exit status of analyze: 0 every bundle healthy or without evidence, 1 a failure was found,\n"
	        "2 nothing could be analysed (usage, database or input error).\n");
}


/* cJSON's allocations end like ours when memory runs out (util.h): cJSON
 * itself would return NULL and the caller would lose data in silence. */
static void *cjson_malloc(size_t n)
{
	return xmalloc(n);
}

static void cjson_hooks(void)
{
	cJSON_Hooks hooks = {cjson_malloc, free};
	cJSON_InitHooks(&hooks);
}

static int run_analyze(struct common *c, struct strvec *ops)
{
	const char *fmt = c->format ? c->format : "text";
	static const char *const formats[] = {"text", "json", "md", "html", "junit", "sarif", "github", NULL};
	int known = 0;
	for (size_t k = 0; formats[k]; k++)
		known |= strcmp(fmt, formats[k]) == 0;
	if (!known) {
		fprintf(stderr, "nccl-triage analyze: unknown format '%s' (text, json, md, html, junit, sarif, github)\n", fmt);
		return EXIT_TROUBLE;
	}
	if (ops->n == 0) {
		fprintf(stderr, "nccl-triage analyze: no input\nhint: nccl-triage analyze ticket.tar.gz  (or - for stdin)\n");
		return EXIT_TROUBLE;
	}
	struct sigdb db;
	if (load_db(&db, c, 0) < 0) {
		sigdb_free(&db);
		return EXIT_TROUBLE;
	}
	/* -j: a second thread applies the lines while the first reads, parses and scans them */
	int threads = c->jobs > 0 ? c->jobs : online_cpus();
	threads = threads > 1 ? 2 : 1;
	struct bundle **bundles = xcalloc(ops->n, sizeof *bundles);
	size_t readable = 0;
	for (size_t i = 0; i < ops->n; i++) {
		const char *name = c->name ? c->name : (strcmp(ops->v[i], "-") == 0 ? "stdin" : ops->v[i]);
		bundles[i] = bundle_new(name, &db, &c->lim);
		bundle_set_threads(bundles[i], threads);
		int rc = bundle_add_path(bundles[i], ops->v[i]);
		if (rc == 0)
			readable++;
		analysis_finish(bundles[i]);
		if (c->redact)
			continue; /* warnings are printed once redacted, below */
		if (!c->quiet)
			for (size_t k = 0; k < bundles[i]->warnings.list.n; k++)
				fprintf(stderr, "nccl-triage: %s\n", bundles[i]->warnings.list.v[k]);
	}
	/* --redact: after the diagnosis, before anything is shown */
	struct redactor *red = NULL;
	if (c->redact) {
		red = redactor_new();
		for (size_t i = 0; i < ops->n; i++)
			redact_learn_bundle(red, bundles[i]);
		for (size_t i = 0; i < ops->n && !c->quiet; i++)
			for (size_t k = 0; k < bundles[i]->warnings.list.n; k++) {
				char *w = redact_string(red, bundles[i]->warnings.list.v[k]);
				fprintf(stderr, "nccl-triage: %s\n", w);
				free(w);
			}
	}
	int status = EXIT_HEALTHY;
	for (size_t i = 0; i < ops->n; i++)
		if (bundles[i]->verdict == VERDICT_DIAGNOSED || bundles[i]->verdict == VERDICT_UNKNOWN_FAILURE)
			status = EXIT_FOUND;
	if (readable == 0)
		status = EXIT_TROUBLE;

	FILE *out = open_output(c->output);
	if (!out) {
		status = EXIT_TROUBLE;
	} else {
		if (strcmp(fmt, "text") && strcmp(fmt, "md")) {
			/* every format but text and md renders from the JSON document */
			cJSON *doc = report_json(bundles, ops->n, &db);
			if (red) {
				redact_json(red, cJSON_GetObjectItemCaseSensitive(doc, "bundles"));
				cJSON_AddBoolToObject(doc, "redacted", 1);
			}
			if (strcmp(fmt, "html") == 0) {
				report_html(out, doc);
			} else if (strcmp(fmt, "junit") == 0) {
				report_junit(out, doc);
			} else if (strcmp(fmt, "sarif") == 0) {
				report_sarif(out, doc);
			} else if (strcmp(fmt, "github") == 0) {
				report_github(out, doc);
			} else {
				/* the one large print: with cJSON's default hooks it can
				 * realloc its buffer in place (ours cannot: a ~10 MB lower
				 * peak for 100000 documents); no other thread runs now */
				cJSON_InitHooks(NULL);
				char *s = cJSON_Print(doc);
				cjson_hooks();
				if (!s) {
					fprintf(stderr, "nccl-triage: out of memory (printing the JSON report)\n");
					_exit(EXIT_TROUBLE);
				}
				fputs(s, out);
				fputc('\n', out);
				free(s);
			}
			cJSON_Delete(doc);
		} else {
			struct report_opts ro = {want_color(c, out), c->evidence};
			/* --redact: render to memory, then redact the text as a whole */
			char *mem = NULL;
			size_t memlen = 0;
			FILE *to = red ? open_memstream(&mem, &memlen) : out;
			if (!to)
				to = out;
			for (size_t i = 0; i < ops->n; i++) {
				if (i)
					fputc('\n', to);
				if (strcmp(fmt, "md") == 0)
					report_md(to, bundles[i], &ro);
				else
					report_text(to, bundles[i], &ro);
			}
			if (to != out) {
				fclose(to);
				char *x = redact_string(red, mem);
				fputs(x, out);
				free(x);
				free(mem);
			}
		}
		status = output_status(close_output(out, c->output), status);
	}
	for (size_t i = 0; i < ops->n; i++)
		bundle_free(bundles[i]);
	free(bundles);
	redactor_free(red);
	sigdb_free(&db);
	return status;
}

static int run_check_db(struct common *c, struct strvec *ops)
{
	/* operands are databases to check on their own */
	if (ops->n) {
		c->no_builtin = 1;
		for (size_t i = 0; i < ops->n; i++)
			strvec_push(&c->pattern_dirs, ops->v[i]);
	}
	struct sigdb db;
	int errors = load_db(&db, c, 1);
	if (errors < 0) {
		sigdb_free(&db);
		return EXIT_TROUBLE;
	}
	struct msgs m = {0};
	size_t ok = 0;
	int fails = sigdb_selftest(&db, &m, &ok);
	/* the coverage tables (DIR/coverage/NAME.tsv): ids exist, samples match */
	struct covtable *cov = NULL;
	size_t ncov = 0, covrows = 0;
	errors += coverage_load_db(&db, &cov, &ncov, &m);
	fails += coverage_check(&db, cov, ncov, &m, &covrows);
	coverage_free(cov, ncov);
	for (size_t i = 0; i < m.list.n; i++)
		fprintf(stderr, "nccl-triage: %s\n", m.list.v[i]);
	msgs_free(&m);
	size_t derived = 0, nolit = 0;
	for (size_t i = 0; i < db.nsigs; i++) {
		derived += db.sigs[i].literals_derived;
		nolit += db.sigs[i].literals.n == 0;
	}
	/* short literals slow every line down (acmatch.c): name them */
	unsigned stride = acmatch_stride(db.ac);
	for (size_t i = 0; i < db.nsigs && stride < ACMATCH_MAX_STRIDE; i++)
		for (size_t j = 0; j < db.sigs[i].literals.n; j++)
			if (strlen(db.sigs[i].literals.v[j]) < ACMATCH_FAST_LEN)
				fprintf(stderr, "nccl-triage: %s: signatures[%zu].literals[%zu]: \"%s\" is shorter than %d bytes: "
				        "the prefilter tests %s instead of every %dth (slower, not wrong)\n",
				        db.sigs[i].file, db.sigs[i].index, j, db.sigs[i].literals.v[j], ACMATCH_FAST_LEN,
				        stride == 1 ? "every position" : stride == 2 ? "every 2nd position" : "every 3rd position",
				        ACMATCH_MAX_STRIDE);

	printf("check-db: %zu files, %zu signatures (%zu with derived literals, %zu without a prefilter literal), "
	       "%zu diagnoses; %zu samples and %zu coverage rows passed, %d failed; %d load error%s\n",
	       db.files.n, db.nsigs, derived, nolit, db.ndiags, ok, covrows, fails, errors, errors == 1 ? "" : "s");
	sigdb_free(&db);
	return (errors || fails) ? EXIT_TROUBLE : 0;
}

static int run_list(struct common *c, struct strvec *ops)
{
	(void)ops; /* list takes no operands */
	int status = 0;
	FILE *out = open_output(c->output);
	if (!out) {
		return EXIT_TROUBLE;
	}
	if (c->rules) {
		for (size_t p = 0; RULE_PROVIDERS[p]; p++)
			for (size_t i = 0; i < RULE_PROVIDERS[p]->nrules; i++)
				fprintf(out, "%-40s %s\n", RULE_PROVIDERS[p]->rules[i].id, RULE_PROVIDERS[p]->rules[i].summary);
		return output_status(close_output(out, c->output), 0);
	}
	struct sigdb db;
	if (load_db(&db, c, 0) < 0) {
		sigdb_free(&db);
		return EXIT_TROUBLE;
	}
	const char *fmt = c->format ? c->format : "text";
	if (c->regex) {
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
		for (size_t i = 0; i < db.nsigs; i++) {
			const struct signature *s = &db.sigs[i];
			const char *base = strrchr(s->file, '/');
			fprintf(out, "| `%s` | %s | %s | `", s->id, sig_on_name(s->on), base ? base + 1 : s->file);
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
	status = output_status(close_output(out, c->output), status);
	sigdb_free(&db);
	return status;
}

static int run_explain(struct common *c, struct strvec *ops)
{
	if (ops->n != 1) {
		fprintf(stderr, "nccl-triage explain: give one diagnosis or signature id\nhint: nccl-triage list\n");
		return EXIT_TROUBLE;
	}
	struct sigdb db;
	if (load_db(&db, c, 0) < 0) {
		sigdb_free(&db);
		return EXIT_TROUBLE;
	}
	const char *id = ops->v[0];
	const struct diagdef *d = sigdb_diag(&db, id);
	const struct signature *s = sigdb_sig(&db, id);
	int json = c->format && strcmp(c->format, "json") == 0;
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
			printf("%ssignature %s  (%s)\n  on:       %s\n  regex:    %s\n  literals:", d ? "\n" : "", s->id, s->file,
			       sig_on_name(s->on), s->regex);
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
	return status;
}

/* The subcommands that live here: options parsed from one table, then run. */
struct builtin {
	const char *name;
	unsigned bit;
	const char *synopsis;
	int (*run)(struct common *c, struct strvec *ops);
};

static const struct builtin BUILTINS[] = {
	{"analyze", CMD_ANALYZE,
	 "analyze [--format text|json|md|html|junit|sarif|github] [--redact] [-o FILE] [--patterns DIR] PATH...",
	 run_analyze},
	{"check-db", CMD_CHECKDB, "check-db [--patterns DIR] [DIR...]", run_check_db},
	{"list", CMD_LIST, "list [--regex | --rules] [--format text|md|json]", run_list},
	{"explain", CMD_EXPLAIN, "explain [--format text|json] ID", run_explain},
};

static int run_builtin(const struct builtin *bi, int argc, char **argv)
{
	struct common c;
	struct strvec ops = {0};
	int pr = parse_common(argc, argv, bi->bit, bi->name, bi->synopsis, &c, &ops);
	int status = pr > 0 ? 0 : pr < 0 ? EXIT_TROUBLE : bi->run(&c, &ops);
	strvec_free(&ops);
	free_common(&c);
	return status;
}

static int run_command(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return EXIT_TROUBLE;
	}
	const char *cmd = argv[1];
	if (strcmp(cmd, "analyse") == 0)
		cmd = "analyze";
	for (size_t i = 0; i < sizeof BUILTINS / sizeof *BUILTINS; i++)
		if (strcmp(cmd, BUILTINS[i].name) == 0)
			return run_builtin(&BUILTINS[i], argc, argv);
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


/* Standard descriptors closed by the caller (`2>&-`): the first file
 * opened later would take the number, and the progress bar or messages
 * meant for stderr would land in the -o report.  Each closed one is opened
 * on /dev/null, in order, so that each open gets the lowest free number. */
static void std_fds_open(void)
{
	for (int fd = 0; fd <= 2; fd++) {
		if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF)
			continue;
		if (fd == 1)
			stdout_closed = 1;
		int n = open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);
		if (n >= 0 && n != fd) {
			/* a lower one was closed too and is taken by now: move it */
			dup2(n, fd);
			close(n);
		}
	}
}

int main(int argc, char **argv)
{
	std_fds_open();
	cjson_hooks();
	/* A closed pipe is EPIPE on a write (close_output), not a silent kill. */
	signal(SIGPIPE, SIG_IGN);
	int status = run_command(argc, argv);
	/* What a command printed to stdout with printf (explain, version,
	 * check-db): flush it now and report a failure instead of losing it
	 * at exit.  Output already closed by close_output flushes to nothing. */
	errno = 0;
	int bad = ferror(stdout);
	if (fflush(stdout) != 0)
		bad = 1;
	if (bad && status != OUTPUT_EXIT_PIPE && status != EXIT_TROUBLE) {
		int e = errno ? errno : EIO;
		if (e == EPIPE) {
			status = OUTPUT_EXIT_PIPE;
		} else {
			fprintf(stderr, "nccl-triage: error writing 'standard output': %s\n", strerror(e));
			status = EXIT_TROUBLE;
		}
	}
	return status;
}
