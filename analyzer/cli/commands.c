/* commands.c - see commands.h. */
#include "cli/commands.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/clicommon.h"
#include "cli/formats.h"

#ifndef NT_VERSION
#define NT_VERSION "0.0.0"
#endif

static int cmd_version(struct common *c, struct strvec *ops)
{
	(void)c;
	(void)ops;
	printf("nccl-triage %s\n", NT_VERSION);
	return 0;
}

static void verify_exit_status(FILE *out)
{
	fputs(CMD_VERIFY_EXIT_STATUS, out);
}

const struct command COMMANDS[] = {
	{"analyze", "analyse", CMD_ANALYZE, "analyze [--format FMT] [--redact] [-o FILE] [--patterns DIR] PATH...",
	 "analyze PATH...", "analyse bundles (a file, folder, .gz, .tar, .tar.gz, or - for stdin);\n"
	                    "each PATH is one bundle (one ticket)",
	 NULL, NULL, cmd_analyze},
	{"batch", NULL, CMD_BATCH,
	 "batch [-j N] [--format FMT] [--summary-only] [--redact] [-o FILE] [--patterns DIR] PATH...",
	 "batch PATH...", "many bundles: each archive and each direct child folder of PATH", NULL, NULL, cmd_batch},
	{"merge", NULL, CMD_MERGE, "merge [--format FMT] [--summary-only] [-o FILE] FILE...",
	 "merge FILE...", "combine the JSONL outputs of batch shards into one summary", NULL, NULL, cmd_merge},
	{"verify", NULL, CMD_VERIFY, "verify [OPTIONS]",
	 "verify [OPTIONS]", "replay a minimal NCCL init on this host's GPUs (needs GPUs + libnccl)",
	 "Replay a minimal NCCL job on this host's GPUs: one process per GPU, unique id from\n"
	 "rank 0, ncclCommInitRank, an all-reduce whose values are checked, a short bandwidth\n"
	 "measurement; first with the environment as it is (baseline), then with a candidate fix.\n",
	 verify_exit_status, cmd_verify},
	{"mem", NULL, CMD_MEM, "mem (--model NAME | --params N) [options]",
	 "mem [OPTIONS]", "will a model fit: per-GPU memory of a sharded model",
	 "Per-GPU memory of a model against a GPU's usable memory, with the verdict and the\n"
	 "smallest change that fits.  Exit status: 0 fits, 1 does not fit, 2 usage error.\n",
	 cmd_mem_help, cmd_mem},
	{"collect", NULL, CMD_COLLECT, "collect [-o FILE.tar.gz | -d DIR] [--redact] [--timeout S] [--budget S]",
	 "collect", "gather this host's system reports into a bundle analyze reads (no root needed)",
	 "Run, on this host, the read-only commands whose output analyze parses (nvidia-smi, its\n"
	 "topology, versions, /dev/shm, RDMA ports, interfaces, lspci, lsmod, the kernel log...),\n"
	 "each with a timeout, and write their output, the filtered environment and a manifest\n"
	 "(each command: status, exit, duration, bytes) as one bundle.  A missing tool or a\n"
	 "permission denial is recorded, not fatal.  Exit status: 0 written, 2 not.  docs/collect.md.\n",
	 NULL, cmd_collect},
	{"run", NULL, CMD_RUN, "run [--bundle DIR] [--collect|--no-collect] [--always] [--redact] [--timeout S] -- CMD ARGS...",
	 "run -- CMD...", "run a job with its evidence switched on; when it fails, collect,\n"
	                  "analyse and print the cause",
	 "Run CMD with NCCL_DEBUG=INFO and PyTorch's flight recorder on (unless set), copy its\n"
	 "output to the terminal and into DIR/HOST/ as it comes, forward SIGINT/SIGTERM/SIGHUP;\n"
	 "when it fails (non-zero, a signal, --timeout) collect this host's system reports,\n"
	 "analyse the bundle, print the cause and the fix to stderr.  Exits with CMD's status.\n",
	 cmd_run_help, cmd_run},
	{"check-db", NULL, CMD_CHECKDB, "check-db [--patterns DIR] [DIR...]",
	 "check-db [DIR...]", "validate and self-test a signature database", NULL, NULL, cmd_check_db},
	{"list", NULL, CMD_LIST, "list [--regex | --rules] [--format FMT]",
	 "list", "list signatures and diagnoses (--regex, --rules, --format md)", NULL, NULL, cmd_list},
	{"coverage", NULL, CMD_COVERAGE, "coverage [--format FMT] [-o FILE] [--patterns DIR]",
	 "coverage", "what each failure message NCCL prints maps to (--format md)", NULL, NULL, cmd_coverage},
	{"explain", NULL, CMD_EXPLAIN, "explain [--format FMT] ID",
	 "explain ID", "show one diagnosis or signature in full", NULL, NULL, cmd_explain},
	{"version", NULL, CMD_VERSION, "version", "version", "print the version", NULL, NULL, cmd_version},
	{NULL, NULL, 0, NULL, NULL, NULL, NULL, NULL, NULL},
};

static void usage(FILE *out)
{
	fprintf(out, "usage: nccl-triage COMMAND [OPTIONS] [ARGS]\n"
	             "\n"
	             "Turn the evidence of a failed multi-GPU (NCCL / PyTorch) job into a root cause and a fix.\n"
	             "\n"
	             "commands:\n");
	for (const struct command *c = COMMANDS; c->name; c++) {
		if (!c->brief)
			continue;
		const char *s = c->summary;
		const char *nl = strchr(s, '\n');
		fprintf(out, "  %-20s%.*s\n", c->brief, (int)(nl ? (size_t)(nl - s) : strlen(s)), s);
		while (nl) {
			s = nl + 1;
			nl = strchr(s, '\n');
			fprintf(out, "%22s%.*s\n", "", (int)(nl ? (size_t)(nl - s) : strlen(s)), s);
		}
	}
	fprintf(out, "\n"
	             "Run 'nccl-triage COMMAND --help' for a command's options; 'man nccl-triage' for everything.\n"
	             "Exit status of analyze: 0 every bundle healthy or without evidence, 1 a failure was found,\n"
	             "2 nothing could be analysed (usage, database or input error).\n");
}

static void command_help(const struct command *cmd)
{
	printf("usage: nccl-triage %s\n", cmd->synopsis);
	if (cmd->about)
		printf("%s", cmd->about);
	printf("\noptions:\n");
	char *formats = format_list(cmd->bit, 1);
	cli_help(stdout, cmd->bit, formats);
	free(formats);
	if (cmd->help_more)
		cmd->help_more(stdout);
}

static int run(const struct command *cmd, int argc, char **argv)
{
	struct common c;
	struct strvec ops = {0};
	int pr = parse_common(argc, argv, 2, cmd->bit, cmd->name, &c, &ops);
	int status;
	if (pr > 0) {
		command_help(cmd);
		status = 0;
	} else {
		status = pr < 0 ? EXIT_TROUBLE : cmd->run(&c, &ops);
	}
	strvec_free(&ops);
	free_common(&c);
	return status;
}

int commands_main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return EXIT_TROUBLE;
	}
	const char *name = argv[1];
	if (strcmp(name, "help") == 0 || strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0) {
		usage(stdout);
		return 0;
	}
	if (strcmp(name, "--version") == 0 || strcmp(name, "-V") == 0)
		name = "version";
	for (const struct command *c = COMMANDS; c->name; c++)
		if (strcmp(name, c->name) == 0 || (c->alias && strcmp(name, c->alias) == 0))
			return run(c, argc, argv);
	fprintf(stderr, "nccl-triage: unknown command '%s'\nhint: nccl-triage --help\n", name);
	return EXIT_TROUBLE;
}
