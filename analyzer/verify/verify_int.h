/* verify_int.h - internals shared by the verify_*.c files (not a public API). */
#ifndef NT_VERIFY_INT_H
#define NT_VERIFY_INT_H

#include "verify/verify.h"

#define VERIFY_UID_BYTES 128

/* Body of a child process.  fd is the control socket to the parent; the
 * child's stdout/stderr already go to the log pipe.  Returns the exit code;
 * the caller _exit()s with it. */
struct vchild_arg {
	const struct verify_cfg *cfg;
	const struct venv_list *env;
	int rank;
};
int verify_child_rank(int fd, const struct vchild_arg *a);
int verify_child_probe(int fd, const struct vchild_arg *a);

/* Apply a mode's environment plus the logging verify needs. */
void verify_apply_env(const struct venv_list *env);

/* Generic group runner: fork n children running body(fd, arg+i), relay a
 * "uid HEX" line from child 0 to the others, enforce the deadline.
 * Fills r->ranks[i] (log, status, exit info). */
typedef int (*vchild_fn)(int fd, const struct vchild_arg *a);
struct vgroup_result {
	int hung;          /* the deadline passed with children still running */
	int killed_after_fail;
	double seconds;
};
void verify_group_run(const struct verify_cfg *cfg, const struct venv_list *env, int n,
                      vchild_fn body, struct verify_rank *ranks, double timeout_s,
                      struct vgroup_result *res);

/* The analysis of captured logs (verify_analyze.c): each rank's log goes
 * into one bundle of the analysis engine.  Returns an owned cJSON object
 * (as void *) or NULL; *msg (owned) gets a one-line note when the analysis
 * could not run or ran on a damaged database. */
void *verify_analyze_run(const struct verify_run *r, const char *patterns_dir, char **msg);
void verify_analysis_free(void *a);

/* hex helpers */
void verify_hex(const unsigned char *p, size_t n, char *out); /* out: 2n+1 */
int verify_unhex(const char *s, unsigned char *p, size_t n);

#endif
