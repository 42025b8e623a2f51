/* cmd_db.c - the commands over the signature database: `check-db` (load,
 * self-test, the ids C names), `list` and `explain`. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/acmatch.h"
#include "cli/cli.h"
#include "cli/clicommon.h"
#include "cli/commands.h"
#include "report/coverage.h"
#include "report/defects.h"
#include "match/ncclsites.h"
#include "cli/formats.h"
#include "match/patids.h"
#include "rules/rules.h"
#include "match/sigdb.h"

int cmd_check_db(struct common *c, struct strvec *ops)
{
	/* operands are databases to check on their own */
	if (ops->n) {
		c->no_builtin = 1;
		for (size_t i = 0; i < ops->n; i++)
			strvec_push(&c->pattern_dirs, ops->v[i]);
	}
	struct sigdb db;
	int errors = load_db(&db, c, LOAD_CHECK);
	if (errors < 0) {
		sigdb_free(&db);
		return EXIT_TROUBLE;
	}
	struct msgs m = {0};
	size_t ok = 0;
	/* every regex JIT-compiled, as analyze does on first use: the self-test
	 * runs the engine analyze runs */
	sigdb_jit_all(&db);
	int fails = sigdb_selftest(&db, &m, &ok);
	/* the coverage tables (DIR/coverage/NAME.tsv): ids exist, samples match */
	struct covtable *cov = NULL;
	size_t ncov = 0, covrows = 0;
	errors += coverage_load_db(&db, &cov, &ncov, &m);
	fails += coverage_check(&db, cov, ncov, &m, &covrows);
	coverage_free(cov, ncov);
	/* the defect table (DIR/coverage/NAME_defects.tsv): versions, ranges, diagnoses */
	struct strvec sites_seen = {0};
	struct deftable *def = NULL;
	size_t ndef = 0, defrows = 0, defmatch = 0;
	errors += defects_load_db(&db, &def, &ndef, &m);
	fails += defects_check(&db, def, ndef, &m, &defrows, &defmatch);
	defects_free(def, ndef);
	/* the WARN sites (DIR/nccl_sites.tsv): a damaged table would silently
	 * take the version fingerprint away (sigdb_sites reads it quietly) */
	size_t nsites = 0;
	for (size_t i = 0; i < db.files.n; i++) {
		const char *f = db.files.v[i], *slash = strrchr(f, '/');
		char *path = slash ? xasprintf("%.*s/nccl_sites.tsv", (int)(slash - f), f) : xstrdup("nccl_sites.tsv");
		FILE *t = strvec_contains(&sites_seen, path) ? NULL : fopen(path, "rb");
		strvec_push(&sites_seen, path);
		if (t) {
			fclose(t);
			struct ncclsites *st = ncclsites_load(path, &m);
			errors += st == NULL;
			nsites += ncclsites_nreleases(st);
			ncclsites_free(st);
		}
		free(path);
	}
	strvec_free(&sites_seen);
	/* the other direction: the ids C code names (patids.h) are in the
	 * database; only a database with the built-in patterns must have them */
	int refs_missing = -1;
	if (!c->no_builtin) {
		refs_missing = sigdb_check_patids(&db, &m);
		errors += refs_missing;
	}
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
	       "%zu diagnoses; %zu samples and %zu coverage rows passed, %d failed; %d load error%s",
	       db.files.n, db.nsigs, derived, nolit, db.ndiags, ok, covrows, fails, errors, errors == 1 ? "" : "s");
	if (ndef)
		printf("; %zu defect rows passed (%zu matchable)", defrows, defmatch);
	if (nsites)
		printf("; WARN sites of %zu releases read", nsites);
	if (refs_missing >= 0)
		printf("; %zu of %zu ids named in C found", NPATIDS - (size_t)refs_missing, NPATIDS);
	printf("\n");
	sigdb_free(&db);
	return (errors || fails) ? EXIT_TROUBLE : 0;
}

int cmd_list(struct common *c, struct strvec *ops)
{
	(void)ops; /* list takes no operands */
	const struct format *f = format_pick(c->format, CMD_LIST, "list");
	if (!f)
		return EXIT_TROUBLE;
	const char *fmt = f->name;
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
	} else {
		for (size_t i = 0; i < db.ndiags; i++)
			fprintf(out, "%-44s %-18s %-7s %s\n", db.diags[i].id, db.diags[i].category,
			        severity_name(db.diags[i].severity), db.diags[i].title);
		fprintf(out, "(%zu diagnoses, %zu signatures; database %s)\n", db.ndiags, db.nsigs, db.version);
	}
	status = output_status(close_output(out, c->output), status);
	sigdb_free(&db);
	return status;
}

/* LABEL, then the ids of V joined by ", " (explain's text). */
static void print_ids(const char *label, const struct strvec *v)
{
	printf("%s", label);
	for (size_t i = 0; i < v->n; i++)
		printf("%s%s", i ? ", " : "", v->v[i]);
}

int cmd_explain(struct common *c, struct strvec *ops)
{
	const struct format *f = format_pick(c->format, CMD_EXPLAIN, "explain");
	if (!f)
		return EXIT_TROUBLE;
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
	int json = strcmp(f->name, "json") == 0;
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
			print_ids("\n  when any of: ", &d->when_any);
			if (d->when_all.n)
				print_ids("\n  and all of:  ", &d->when_all);
			if (d->when_none.n)
				print_ids("\n  and none of: ", &d->when_none);
			if (d->cascade_of.n)
				print_ids("\n  echo of:     ", &d->cascade_of);
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

