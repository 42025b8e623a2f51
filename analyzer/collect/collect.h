/* collect.h - `nccl-triage collect` as a library: run, on this host, the
 * read-only commands whose output the analyzer parses (nvidia-smi and its
 * topology, versions, /dev/shm, RDMA ports, interfaces, lspci, lsmod, the
 * kernel log ...), each with its own timeout inside a total budget, with a
 * clean locale, never through sudo; a missing tool or a permission denial
 * is recorded, not fatal.  The outputs become items sys/NAME.txt, the
 * filtered environment env.txt (secrets masked as the reports mask them),
 * and each command one line of the manifest (JSON Lines, docs/collect.md):
 * its command line, status, exit status, duration, bytes and whether it
 * was cut.  The manifest's first line names the host, the time and the
 * tool version; analyze reads it (parse/parse_collect.c). */
#ifndef NT_COLLECT_H
#define NT_COLLECT_H

#include <stddef.h>
#include "base/util.h"
#include "collect/citems.h"

struct collect_opts {
	double timeout_s;      /* per command (default 10) */
	double budget_s;       /* all commands together (default 120) */
	size_t parallel;       /* commands at a time (default 4) */
	const char *cmdline;   /* the nccl-triage command line, for the manifest */
	int redact;            /* recorded in the manifest: the bundle is redacted */
	char *const *env;      /* the environment to dump (NULL: this process's) */
	const char *sysdir;    /* folder of the outputs in the bundle (default "sys") */
	double since_uptime;   /* run: the kernel log from this time (seconds since boot) on, 0: all */
	long long since_epoch; /* the same time as seconds since 1970 (journalctl --since) */
};
void collect_opts_default(struct collect_opts *o);

struct collect_counts {
	size_t total, ok, failed, missing, denied, timeout, skipped;
};

/* The manifest's first line (a JSON object and '\n') into m. */
void collect_manifest_header(struct buf *m, const struct collect_opts *o, const char *host, const char *kind);
/* Run every command; add their outputs and env.txt to items and one
 * manifest line per command to m; counts in *cnt. */
void collect_host(const struct collect_opts *o, struct citems *items, struct buf *m, struct collect_counts *cnt);
/* This host's name, cut at the first '.', with anything but [A-Za-z0-9._-]
 * replaced by '_' (a file name), and the full name as gethostname gives it. */
void collect_hostname(char *shortname, size_t n, char *full, size_t fn);
/* The environment variables that matter to a GPU job (NCCL_*, TORCH_*,
 * CUDA_*, ... docs/collect.md), sorted, one NAME=value a line, values with
 * a newline escaped, secrets masked (str_mask_secrets).  Caller frees. */
char *collect_env_dump(char *const *env, size_t *count);
/* The NCCL and PyTorch versions a job here most likely loads, read from
 * files without running anything: torch/version.py of the first Python
 * environment that has torch (verify_python_sites) and the nvidia-nccl
 * wheel beside it, else a libnccl.so.2.X.Y on LD_LIBRARY_PATH or in the
 * system folders.  "" when unknown; from says where the NCCL one came from. */
void collect_stack_versions(char *nccl, size_t nn, char *torch, size_t tn, char *from, size_t fn);
/* "2026-12-02T10:11:12Z" of t (now when 0). */
void collect_utc(char *out, size_t n, long long t);

#endif
