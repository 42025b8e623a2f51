/* cli.c - see cli.h. */
#include "cli.h"

#include <string.h>

#define ANY (CMD_ANALYZE | CMD_BATCH | CMD_CHECKDB | CMD_LIST | CMD_EXPLAIN | CMD_MERGE | CMD_COVERAGE)
#define READ (CMD_ANALYZE | CMD_BATCH)
#define DB (CMD_ANALYZE | CMD_BATCH | CMD_CHECKDB | CMD_LIST | CMD_EXPLAIN | CMD_COVERAGE)

const struct cli_opt CLI_OPTS[] = {
	{"help", 'h', NULL, ANY, OPT_HELP, "show this help and exit"},
	{"format", 'f', "FMT", READ | CMD_LIST | CMD_EXPLAIN | CMD_MERGE | CMD_COVERAGE, OPT_FORMAT,
	 "output format: text (default), json, md, html, junit, sarif, github; batch/merge also jsonl; list and coverage also md"},
	{"output", 'o', "FILE", READ | CMD_LIST | CMD_MERGE | CMD_COVERAGE, OPT_OUTPUT, "write the report to FILE instead of standard output"},
	{"patterns", 'p', "DIR", DB, OPT_PATTERNS,
	 "also load signatures from DIR (repeatable; NCCL_TRIAGE_PATTERNS=DIR:DIR does the same)"},
	{"no-builtin", 0, NULL, DB, OPT_NO_BUILTIN, "do not load the built-in signature database"},
	{"color", 0, "WHEN", READ | CMD_MERGE, OPT_COLOR, "colour text output: auto (default: only on a terminal, not with NO_COLOR), always, never"},
	{"quiet", 'q', NULL, READ | CMD_CHECKDB, OPT_QUIET, "print no warnings on standard error"},
	{"evidence", 0, "N", READ, OPT_EVIDENCE, "evidence lines shown per diagnosis in text and md (default 3 and 5)"},
	{"jobs", 'j', "N", CMD_BATCH | CMD_ANALYZE, OPT_JOBS,
	 "worker threads (default: number of cores); analyze uses at most 2 (one reads and scans, one applies), -j1 one"},
	{"summary-only", 0, NULL, CMD_BATCH | CMD_MERGE, OPT_SUMMARY_ONLY, "print only the summary, not each bundle"},
	{"progress", 0, "WHEN", CMD_BATCH, OPT_PROGRESS, "progress bar on standard error: auto (default: on a terminal), always, never"},
	{"redact", 0, NULL, READ, OPT_REDACT,
	 "replace host names, IP/MAC addresses, user names in paths, GPU UUIDs, bus IDs and serials with stable pseudonyms (host-1, ip-1, ...) in every format"},
	{"follow-symlinks", 0, NULL, READ, OPT_FOLLOW_SYMLINKS,
	 "in folders, also follow symbolic links that lead outside the folder (default: skipped, named in warnings)"},
	{"name", 0, "NAME", CMD_ANALYZE, OPT_NAME, "bundle name to report (default: the operand)"},
	{"regex", 0, NULL, CMD_LIST, OPT_REGEX, "print the signatures' regexes, one per line (for rg -f, grep -P -f)"},
	{"rules", 0, NULL, CMD_LIST, OPT_RULES, "list the fact rules (C checks over system reports) instead"},
	{"max-member-bytes", 0, "SIZE", READ, OPT_MAX_MEMBER_BYTES, "bytes analysed per document (default 8G)"},
	{"max-ratio", 0, "N", READ, OPT_MAX_RATIO, "largest decompressed/compressed ratio of a gzip stream (default 1000)"},
	{"max-bundle-bytes", 0, "SIZE", READ, OPT_MAX_BUNDLE_BYTES, "bytes analysed per bundle (default 64G)"},
	{"max-members", 0, "N", READ, OPT_MAX_MEMBERS, "tar members per archive (default 100000)"},
	{"max-nesting", 0, "N", READ, OPT_MAX_NESTING, "archives inside archives (default 4)"},
	{"max-depth", 0, "N", READ, OPT_MAX_DEPTH, "folder depth (default 32)"},
	{"max-entries", 0, "N", READ, OPT_MAX_ENTRIES, "folder entries, and documents, per bundle (default 100000)"},
	{"max-line", 0, "SIZE", READ, OPT_MAX_LINE, "bytes of one line that are analysed (default 64K)"},
	{"max-lines", 0, "N", READ, OPT_MAX_LINES, "lines analysed per document (default 100000000)"},
	{"match-limit", 0, "N", READ | CMD_CHECKDB, OPT_MATCH_LIMIT, "PCRE2 match limit per line and signature (default 1000000)"},
	{"match-budget", 0, "N", READ, OPT_MATCH_BUDGET,
	 "slow matches (over 1% of --match-limit) allowed per signature and bundle before it is skipped (default 1000)"},
	{NULL, 0, NULL, 0, 0, NULL},
};

int cli_next(int argc, char **argv, int *i, unsigned cmd, const char *cmdname,
             enum opt_id *id, const char **arg, int *no_more_opts)
{
	const char *a = argv[*i];
	if (*no_more_opts || a[0] != '-' || strcmp(a, "-") == 0)
		return 0;
	if (strcmp(a, "--") == 0) {
		*no_more_opts = 1;
		(*i)++;
		return 2;
	}
	const struct cli_opt *o = NULL;
	const char *inline_arg = NULL;
	if (a[1] == '-') {
		const char *name = a + 2;
		const char *eq = strchr(name, '=');
		size_t len = eq ? (size_t)(eq - name) : strlen(name);
		for (const struct cli_opt *p = CLI_OPTS; p->name; p++)
			if (strlen(p->name) == len && strncmp(p->name, name, len) == 0) {
				o = p;
				break;
			}
		if (eq)
			inline_arg = eq + 1;
	} else {
		for (const struct cli_opt *p = CLI_OPTS; p->name; p++)
			if (p->shortname && p->shortname == a[1]) {
				o = p;
				break;
			}
		if (o && a[2])
			inline_arg = a + 2;
	}
	if (!o || !(o->cmds & cmd)) {
		fprintf(stderr, "nccl-triage %s: unknown option '%s'\nhint: see 'nccl-triage %s --help'\n",
		        cmdname, a, cmdname);
		return -1;
	}
	*id = o->id;
	*arg = NULL;
	if (o->arg) {
		if (inline_arg) {
			*arg = inline_arg;
		} else if (*i + 1 < argc) {
			*arg = argv[++*i];
		} else {
			fprintf(stderr, "nccl-triage %s: option '--%s' needs a value (%s)\n", cmdname, o->name, o->arg);
			return -1;
		}
	} else if (inline_arg) {
		fprintf(stderr, "nccl-triage %s: option '--%s' takes no value\n", cmdname, o->name);
		return -1;
	}
	(*i)++;
	return 1;
}

void cli_help(FILE *out, unsigned cmd)
{
	for (const struct cli_opt *p = CLI_OPTS; p->name; p++) {
		if (!(p->cmds & cmd))
			continue;
		char left[64];
		if (p->shortname)
			snprintf(left, sizeof left, "-%c, --%s%s%s", p->shortname, p->name, p->arg ? " " : "",
			         p->arg ? p->arg : "");
		else
			snprintf(left, sizeof left, "    --%s%s%s", p->name, p->arg ? " " : "", p->arg ? p->arg : "");
		fprintf(out, "  %-28s %s\n", left, p->help);
	}
}
