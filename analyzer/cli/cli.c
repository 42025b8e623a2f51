/* cli.c - see cli.h. */
#include "cli/cli.h"

#include <string.h>

#define ANY (CMD_ANALYZE | CMD_BATCH | CMD_CHECKDB | CMD_LIST | CMD_EXPLAIN | CMD_MERGE | CMD_MEM | CMD_VERIFY | CMD_VERSION | \
             CMD_COVERAGE | CMD_COLLECT | CMD_RUN)
#define READ (CMD_ANALYZE | CMD_BATCH)
#define DB (CMD_ANALYZE | CMD_BATCH | CMD_CHECKDB | CMD_LIST | CMD_EXPLAIN | CMD_COVERAGE)

const struct cli_opt CLI_OPTS[] = {
	{"help", 'h', NULL, ANY, OPT_HELP, "show this help and exit"},
	{"format", 'f', "FMT", READ | CMD_LIST | CMD_EXPLAIN | CMD_MERGE | CMD_MEM | CMD_VERIFY | CMD_COVERAGE, OPT_FORMAT,
	 "output format"},
	{"output", 'o', "FILE", READ | CMD_LIST | CMD_MERGE | CMD_VERIFY | CMD_COVERAGE, OPT_OUTPUT, "write the report to FILE instead of standard output"},
	{"patterns", 'p', "DIR", DB, OPT_PATTERNS,
	 "also load signatures from DIR (repeatable; NCCL_TRIAGE_PATTERNS=DIR:DIR does the same)"},
	{"no-builtin", 0, NULL, DB, OPT_NO_BUILTIN, "do not load the built-in signature database"},
	{"color", 0, "WHEN", READ | CMD_MERGE, OPT_COLOR, "colour text output: auto (default: only on a terminal, not with NO_COLOR), always, never"},
	{"quiet", 'q', NULL, READ | CMD_CHECKDB, OPT_QUIET, "print no warnings on standard error"},
	{"evidence", 0, "N", READ, OPT_EVIDENCE, "evidence lines shown per diagnosis in text and md (default 3 and 5)"},
	{"jobs", 'j', "N", CMD_BATCH | CMD_ANALYZE, OPT_JOBS,
	 "worker threads (default: number of cores); analyze uses at most 2 (one reads and scans, one applies; one for a plain file under 64 KiB), -j1 one"},
	{"summary-only", 0, NULL, CMD_BATCH | CMD_MERGE, OPT_SUMMARY_ONLY, "print only the summary, not each bundle"},
	{"progress", 0, "WHEN", CMD_BATCH, OPT_PROGRESS, "progress bar on standard error: auto (default: on a terminal), always, never"},
	{"redact", 0, NULL, READ, OPT_REDACT,
	 "replace host names, IP/MAC addresses, user names in paths, GPU UUIDs, bus IDs and serials with stable pseudonyms (host-1, ip-1, ...) in every format, "
	 "and bundle and document names with neutral ones (bundle-1, doc-2.log)"},
	{"keep-names", 0, NULL, READ, OPT_KEEP_NAMES,
	 "with --redact, keep bundle and document names (hosts learned elsewhere are still replaced inside them)"},
	{"follow-symlinks", 0, NULL, READ, OPT_FOLLOW_SYMLINKS,
	 "in folders, also follow symbolic links that lead outside the folder (default: skipped, named in warnings)"},
	{"name", 0, "NAME", CMD_ANALYZE, OPT_NAME, "bundle name to report (default: the operand)"},
	{"fail-on", 0, "LEVEL", READ, OPT_FAIL_ON,
	 "exit status 1 when: error (an error finding or an unexplained failure), warning (also a warning), never "
	 "(default: a bundle diagnosed or unknown_failure)"},
	{"quiet-info", 0, NULL, READ, OPT_QUIET_INFO, "leave information-level findings out of the CI formats (junit, sarif, github)"},
	{"unexplained", 0, NULL, CMD_ANALYZE, OPT_UNEXPLAINED,
	 "instead of the report, print every line that holds a failure word (error, fail, fatal, abort, killed, signal, "
	 "exception, timed out, warn) and that nothing explains: no signature, benign entry, derived row, launcher record, "
	 "traceback or crash-report frame (for reviewing the database)"},
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
	/* mem */
	{"model", 0, "NAME", CMD_MEM, OPT_MODEL, "a model preset (listed below)"},
	{"params", 0, "N", CMD_MEM, OPT_PARAMS, "custom parameter count: 8B, 70e9, 1.5T"},
	{"unit-params", 0, "N", CMD_MEM, OPT_UNIT_PARAMS,
	 "parameters FSDP/ZeRO-3 gathers at once (default: one decoder layer of the preset; none for --params unless given)"},
	{"dtype", 0, "T", CMD_MEM, OPT_DTYPE, "bf16 (default), fp16, fp32, fp8, int8, int4"},
	{"mode", 0, "M", CMD_MEM, OPT_MODE,
	 "infer (default) or train (mixed-precision AdamW: + gradients, fp32 master weights, 2 Adam states)"},
	{"gpus", 0, "N", CMD_MEM, OPT_MEM_GPUS, "number of GPUs the model is spread over (default 1)"},
	{"shard", 0, "S", CMD_MEM, OPT_SHARD,
	 "none|ddp, zero1, zero2|shard_grad_op, zero3|fsdp|full_shard, tp (default: fsdp when --gpus > 1, else none)"},
	{"prefetch", 0, "K", CMD_MEM, OPT_PREFETCH, "units resident at once while unsharding (default 1 infer, 2 train)"},
	{"extra", 0, "X", CMD_MEM, OPT_EXTRA, "activations / KV cache per GPU, e.g. 6GiB (default 0)"},
	{"gpu", 0, "NAME", CMD_MEM, OPT_GPU, "a GPU preset (listed below)"},
	{"gpu-mem", 0, "X", CMD_MEM, OPT_GPU_MEM, "GPU memory.total instead of a preset, e.g. 24564MiB, 80GiB"},
	{"reserve", 0, "X", CMD_MEM, OPT_RESERVE,
	 "memory not available to the model: CUDA context, NCCL buffers, allocator slack (default 1GiB)"},
	{"usable", 0, "X", CMD_MEM, OPT_USABLE, "usable memory per GPU directly (overrides --gpu-mem/--reserve)"},
	/* verify */
	{"gpus", 0, "LIST", CMD_VERIFY, OPT_VERIFY_GPUS, "GPU ordinals, e.g. 0,1 or 0-3 (default: every visible GPU)"},
	{"nranks", 0, "N", CMD_VERIFY, OPT_NRANKS,
	 "number of ranks (default: one per GPU in --gpus); each rank needs its own GPU"},
	{"env", 0, "K=V", CMD_VERIFY, OPT_ENV, "candidate: set K=V on top of the environment (repeatable)"},
	{"unset", 0, "K", CMD_VERIFY, OPT_UNSET, "candidate: remove K from the environment (repeatable)"},
	{"from-report", 0, "FILE", CMD_VERIFY, OPT_FROM_REPORT, "candidate: the verify.env of the top diagnosis in analyze's JSON"},
	{"survey", 0, NULL, CMD_VERIFY, OPT_SURVEY, "also try P2P, SHM and NET/Socket one at a time and tabulate them"},
	{"timeout", 0, "S", CMD_VERIFY, OPT_TIMEOUT, "watchdog per run, seconds (default 60)"},
	{"size", 0, "BYTES", CMD_VERIFY, OPT_SIZE, "all-reduce size for the bandwidth measurement (default 64M)"},
	{"iters", 0, "N", CMD_VERIFY, OPT_ITERS, "timed iterations (default 20, after 5 warm-up)"},
	{"nccl-lib", 0, "PATH", CMD_VERIFY, OPT_NCCL_LIB,
	 "libnccl.so.2 file or folder (default: LD_LIBRARY_PATH, system, pip's nvidia/nccl/lib)"},
	{"cuda-lib", 0, "PATH", CMD_VERIFY, OPT_CUDA_LIB, "libcuda.so.1 file or folder (default: the dynamic linker's search)"},
	{"logs", 0, "DIR", CMD_VERIFY, OPT_LOGS, "also write every rank's captured NCCL output to DIR/RUN/rankN.log"},
	{"patterns", 0, "DIR", CMD_VERIFY, OPT_VERIFY_PATTERNS,
	 "signature database for the analysis of the captured logs (default: the built-in one)"},
	{"no-analysis", 0, NULL, CMD_VERIFY, OPT_NO_ANALYSIS, "do not analyse the captured logs"},
	/* collect */
	{"output", 'o', "FILE", CMD_COLLECT, OPT_OUTPUT,
	 "write the bundle to FILE (a .tar.gz; default nccl-triage-collect-HOST-TIME.tar.gz in the current folder)"},
	{"dir", 'd', "DIR", CMD_COLLECT, OPT_DIR, "write the bundle into the folder DIR instead (created; files in it are never replaced)"},
	{"redact", 0, NULL, CMD_COLLECT, OPT_REDACT,
	 "rewrite the bundle's files with analyze's --redact (hosts, addresses, users, GPU UUIDs, bus IDs, serials) before writing them"},
	{"timeout", 0, "S", CMD_COLLECT, OPT_TIMEOUT, "seconds each command may run (default 10; python ones 3 times that)"},
	{"budget", 0, "S", CMD_COLLECT | CMD_RUN, OPT_BUDGET, "seconds all commands of the collection may take together (default 120)"},
	/* run */
	{"bundle", 0, "DIR", CMD_RUN, OPT_BUNDLE,
	 "the bundle folder; this host's files go to DIR/HOST (default nccl-triage-run-JOB: the Slurm job or the time)"},
	{"collect", 0, NULL, CMD_RUN, OPT_COLLECT, "collect this host's system reports into the bundle when the job fails (the default)"},
	{"no-collect", 0, NULL, CMD_RUN, OPT_NO_COLLECT, "do not collect them (the job's output and the analysis only)"},
	{"always", 0, NULL, CMD_RUN, OPT_ALWAYS, "collect and analyse after a successful job too"},
	{"timeout", 0, "S", CMD_RUN, OPT_TIMEOUT, "stop the job after S seconds (SIGTERM to its process group): a hang becomes a bundle"},
	{"kill-after", 0, "S", CMD_RUN, OPT_KILL_AFTER, "SIGKILL this long after a SIGTERM the job ignores (default 10)"},
	{"nccl-debug-file", 0, NULL, CMD_RUN, OPT_NCCL_DEBUG_FILE,
	 "also set NCCL_DEBUG_FILE=DIR/HOST/nccl.%h.%p.log: one NCCL log per process (unless already set)"},
	{"redact", 0, NULL, CMD_RUN, OPT_REDACT,
	 "keep no file that shows this host, the user, addresses, GPU UUIDs, bus IDs or serials: the log, sys/, the manifest "
	 "and the NCCL logs rewritten as collect --redact does, the report redacted, the folder DIR/host-HASH"},
	{NULL, 0, NULL, 0, 0, NULL},
};

const char *cli_opt_name(enum opt_id id)
{
	for (const struct cli_opt *p = CLI_OPTS; p->name; p++)
		if (p->id == id)
			return p->name;
	return "?";
}

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
			if ((p->cmds & cmd) && strlen(p->name) == len && strncmp(p->name, name, len) == 0) {
				o = p;
				break;
			}
		if (eq)
			inline_arg = eq + 1;
	} else {
		for (const struct cli_opt *p = CLI_OPTS; p->name; p++)
			if ((p->cmds & cmd) && p->shortname && p->shortname == a[1]) {
				o = p;
				break;
			}
		if (o && a[2])
			inline_arg = a + 2;
	}
	if (!o) {
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

void cli_help(FILE *out, unsigned cmd, const char *formats)
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
		if (p->id == OPT_FORMAT) {
			fprintf(out, "  %-28s %s: %s\n", left, p->help, formats ? formats : "text");
		} else {
			fprintf(out, "  %-28s %s\n", left, p->help);
		}
	}
}
