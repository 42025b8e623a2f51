/* verify.h - replay a minimal NCCL job on this host's GPUs.
 *
 * One process per rank, as torchrun would start them.  The parent never
 * loads CUDA or NCCL: a probe child finds the libraries and the GPUs, then
 * for each run (a "mode": the environment as it is, or with a candidate fix)
 * the parent forks one child per rank.  Each child applies the mode's
 * environment, dlopens libcuda.so.1 and libnccl.so.2, and walks the stages
 * load -> cuda -> uid -> init -> check -> bw -> destroy, reporting each on a
 * control socket.  Rank 0 creates the unique id (ncclGetUniqueId starts the
 * bootstrap root inside the calling process, so that process must live as
 * long as the init) and the parent relays it to the other ranks.  NCCL's
 * NCCL_DEBUG=INFO output of each child is captured through a pipe.  A
 * watchdog kills the whole process group when a run outlives its timeout.
 *
 * Ownership: verify_* functions that return pointers give them to the
 * caller unless said otherwise; free structs with the matching *_free. */
#ifndef NT_VERIFY_H
#define NT_VERIFY_H

#include <stddef.h>
#include <stdint.h>
#include "base/util.h"

/* Exit statuses of `nccl-triage verify` (docs/verify.md). */
enum {
	VERIFY_EXIT_OK = 0,          /* the final configuration works (fix confirmed, or healthy) */
	VERIFY_EXIT_FAIL = 1,        /* the final configuration fails (error, wrong values, crash) */
	VERIFY_EXIT_USAGE = 2,       /* bad command line or unreadable --from-report */
	VERIFY_EXIT_UNAVAILABLE = 3, /* no driver, no GPU, no libnccl: verify cannot run here */
	VERIFY_EXIT_HANG = 4         /* the final configuration hangs (watchdog fired) */
};

/* One environment change: value NULL means "unset". */
struct venv {
	char *key, *value;
};
struct venv_list {
	struct venv *v;
	size_t n, cap;
};
void venv_set(struct venv_list *l, const char *key, const char *value); /* replaces same key */
/* Parse "K=V" (set) or "K" / "-K" (unset).  Returns -1 when the key is not a
 * valid environment name. */
int venv_parse(struct venv_list *l, const char *arg);
void venv_free(struct venv_list *l);
/* "K=V K2=V2 -K3" (caller frees); "(environment as is)" when empty. */
char *venv_describe(const struct venv_list *l);
/* verify_env_arg (the proposal as verify's argument): report.h */

/* What the probe found.  Strings owned by the struct. */
struct verify_gpu {
	int index;
	char *name, *bus_id;
};
struct verify_probe {
	int ok;                  /* 1: driver, >=1 GPU and libnccl are all there */
	char *cuda_path;         /* libcuda that was loaded, NULL if none */
	int driver_version;      /* cuDriverGetVersion: 13000 = 13.0; 0 unknown */
	char *nccl_path;
	int nccl_version;        /* ncclGetVersion: 22809 = 2.28.9; 0 unknown */
	struct verify_gpu *gpus;
	size_t ngpus;
	struct strvec missing;   /* one line each: what is missing and what was tried */
	struct strvec tried;     /* library paths tried, in order */
};
void verify_probe_free(struct verify_probe *p);

/* Run configuration. */
struct verify_cfg {
	int nranks;
	int *gpus;                 /* device ordinal per rank (nranks entries) */
	size_t bytes;              /* all-reduce size for the bandwidth measurement */
	int iters, warmup;
	double timeout_s;          /* per run */
	double grace_s;            /* after one rank failed, how long the others may go on */
	const char *nccl_lib;      /* --nccl-lib: file or folder; NULL: search */
	const char *cuda_lib;      /* --cuda-lib: file or folder; NULL: libcuda.so.1 */
	const char *resolved_nccl; /* set from the probe: what the ranks dlopen */
	const char *resolved_cuda;
	size_t log_cap;            /* bytes of NCCL output kept per rank */
};
void verify_cfg_default(struct verify_cfg *c);

enum vstage {
	VS_START, VS_LOAD, VS_CUDA, VS_UID, VS_INIT, VS_CHECK, VS_BW, VS_DESTROY, VS_DONE,
	VS_COUNT
};
const char *vstage_name(enum vstage s);
/* What a rank was doing in words: "ncclCommInitRank". */
const char *vstage_doing(enum vstage s);

enum vresult {
	VR_PASS,          /* init, values and bandwidth all fine */
	VR_FAIL,          /* an API call returned an error */
	VR_WRONG_VALUES,  /* all-reduce completed but the result is wrong */
	VR_HANG,          /* watchdog fired */
	VR_CRASH,         /* a rank died of a signal we did not send */
	VR_SETUP          /* the rank could not even load its libraries / GPU */
};
const char *vresult_name(enum vresult r);

struct verify_rank {
	int rank, gpu;
	long pid;
	enum vstage stage;        /* last stage reported */
	int done;                 /* reported "done" */
	int exited, exit_code, term_signal, killed_by_us, reaped;
	double init_ms;
	int checks_ok, checks_bad;
	char *check_detail;       /* first mismatch, NULL when none */
	double bw_ms;             /* total time of the timed iterations */
	double algbw, busbw;      /* GB/s; <0 when not measured */
	char *error;              /* "ncclCommInitRank: invalid usage (...)", NULL when none */
	char *last_error;         /* ncclGetLastError text */
	struct buf log;           /* NCCL output (stdout+stderr), capped */
	uint64_t log_dropped;     /* bytes beyond log_cap */
	struct strvec status;     /* raw status lines (debugging, tests) */
};

struct verify_run {
	char *mode;               /* "baseline", "candidate", "survey:P2P" ... */
	struct venv_list env;     /* changes applied on top of the environment */
	int nranks;
	struct verify_rank *ranks;
	enum vresult result;
	int first_failed_rank;    /* -1 none */
	double seconds;
	double algbw, busbw;      /* slowest rank's, GB/s; <0 when not measured */
	char *reason;             /* one line: why it failed / hung */
	struct strvec transports; /* "P2P/CUMEM/read", "SHM/direct/direct", "NET/Socket/0" seen in the logs */
	struct strvec warns;      /* distinct "NCCL WARN" texts, in order of arrival */
	void *analysis;           /* owned by verify_analyze.c (a cJSON object), NULL when none */
};
void verify_run_free(struct verify_run *r);

/* Library lookup (pure, testable): the list of files to try for libnccl.so.2,
 * in order, given --nccl-lib (file or folder, may be NULL) and the
 * environment (LD_LIBRARY_PATH, PATH, VIRTUAL_ENV, CONDA_PREFIX, HOME).
 * The bare name "libnccl.so.2" stands for "what dlopen finds": the dynamic
 * linker's own search (LD_LIBRARY_PATH, ld.so.cache, system paths).  When
 * --nccl-lib is given only it is tried. */
void verify_nccl_candidates(const char *nccl_lib, struct strvec *out);
/* The site-packages (and dist-packages) folders of this host's Python
 * environments, most likely first: VIRTUAL_ENV, CONDA_PREFIX, the python3
 * of each PATH entry, ~/.local, /usr/local, /usr, /opt/conda, /opt/NAME/.venv. */
void verify_python_sites(struct strvec *out);
void verify_cuda_candidates(const char *cuda_lib, struct strvec *out);

/* Probe the host in a child process (bounded by timeout_s).  Always fills p;
 * returns 0 when verify can run, -1 otherwise (p->missing says why). */
int verify_probe_host(const struct verify_cfg *cfg, double timeout_s, struct verify_probe *p);

/* Run one mode: fork cfg->nranks children, collect, judge.  r is filled
 * (caller frees with verify_run_free).  env is copied. */
void verify_run_mode(const struct verify_cfg *cfg, const char *mode,
                     const struct venv_list *env, struct verify_run *r);

/* Fill r->transports and r->warns from the captured logs (verify_run_mode
 * calls it; exposed for tests). */
void verify_scan_logs(struct verify_run *r);
/* Last n lines of a rank's log that came from NCCL (or any, when none). */
void verify_last_lines(const struct verify_rank *k, size_t n, struct strvec *out);

/* ---- a whole `verify` invocation: runs, verdict, reports (verify_report.c) */

struct verify_session {
	struct verify_probe probe;
	struct verify_cfg cfg;          /* gpus borrowed from the caller */
	struct verify_run *baseline;    /* NULL when the probe failed */
	struct verify_run *candidate;   /* NULL without --env / --from-report */
	char *candidate_source;         /* "--env", "report.json: diagnosis ID (CATEGORY)" */
	struct verify_run *survey;      /* transport survey rows, nsurvey of them */
	size_t nsurvey;
	struct strvec notes;            /* one-line remarks shown in every format */
	/* set by verify_judge */
	const char *verdict;            /* healthy | fails | hangs | fix_confirmed | fix_failed |
	                                   fix_hangs | both_pass | candidate_breaks | unavailable */
	char *summary;                  /* one sentence */
	int exit_status;
};
void verify_session_free(struct verify_session *s);

/* Transport survey: the rows to try (name, what the log must show, env). */
struct verify_survey_row {
	const char *name;       /* "P2P", "SHM", "NET/Socket" */
	const char *expect;     /* prefix of the "via" token that proves it: "P2P", "SHM", "NET/Socket" */
	const char *const *env; /* NULL-terminated "K=V" list */
};
extern const struct verify_survey_row VERIFY_SURVEY[];
extern const size_t VERIFY_SURVEY_N;
/* Whether a survey run really used the transport it asked for. */
int verify_survey_used(const struct verify_run *r, const struct verify_survey_row *row);

/* Bandwidth used in sentences: bus bandwidth with >1 rank, else algbw. */
double verify_bw(const struct verify_run *r);
void verify_judge(struct verify_session *s);
/* Reports.  Caller frees. */
char *verify_report_text(const struct verify_session *s, int color);
char *verify_report_md(const struct verify_session *s);
char *verify_report_json(const struct verify_session *s);

/* Analysis of a run's captured logs with the signature database in
 * patterns_dir; stored in r->analysis.  Returns 0, or -1 with *msg (owned). */
int verify_analyze(struct verify_run *r, const char *patterns_dir, char **msg);

#endif
