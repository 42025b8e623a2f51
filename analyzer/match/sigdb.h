/* sigdb.h - the signature database: the JSON files of patterns/, loaded with cJSON,
 * regexes compiled with PCRE2 (JIT), validated, and self-tested.
 * See docs/signature-format.md for the file format.
 *
 * The database is immutable after loading and shared read-only by every
 * bundle and worker thread; per-thread scratch lives in struct matcher.
 * One exception, owned by sigdb.c: a signature's code.  Every regex is
 * compiled (pcre2_compile: validated, capture names read) at load, or, for
 * the built-in database outside check-db (sigdb_set_lazy: make check
 * validates it, as it runs its samples), on its first use; it is
 * JIT-compiled only on its first use (sigdb_code).  Both are what start-up
 * costs most: most signatures never see a candidate line in a small input.
 * The compile of a signature runs once, under sigdb.c's lock, before any
 * pcre2_match on its code; jit_done publishes it (release/acquire), so every
 * thread that calls sigdb_code() and matches the code it returns sees the
 * finished code and capture names.  Nothing may call pcre2_match on
 * s->code directly. */
#ifndef NT_SIGDB_H
#define NT_SIGDB_H

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdatomic.h>
#include <stddef.h>
#include <cjson/cJSON.h>
#include "base/util.h"
#include "base/arena.h"
#include "base/acmatch.h"
#include "base/hash.h"
#include "base/json.h"
#include "match/derive.h"

enum sig_on { ON_WARN, ON_INFO, ON_NCCL, ON_PLAIN, ON_ANY };
enum severity { SEV_ERROR, SEV_WARNING, SEV_INFO };
enum role { ROLE_ROOT, ROLE_CASCADE, ROLE_CONTEXT };

struct signature {
	char *id;
	char *file;               /* pattern file it came from */
	size_t index;             /* position in the file's "signatures" array */
	enum sig_on on;
	char *regex;
	pcre2_code *code;         /* compiled at load, or on first use (sigdb_set_lazy); match it
	                             only through sigdb_code(): NULL there = it does not compile */
	atomic_uchar jit_done;    /* code is compiled and JIT-compiled (or JIT failed: the interpreter
	                             runs it), capnames are read */
	char *lazy_err;           /* owned: why the regex did not compile at its first use (a lazy
	                             database whose installed file was edited); NULL otherwise.
	                             Set under sigdb_jit's lock, read by sigdb_lazy_failures */
	struct strvec literals;   /* declared or derived; empty = always tried */
	int literals_derived;
	cJSON *json;              /* the entry itself (samples etc.); owned by the db; NULL in a
	                             slim database (sigdb_set_slim) */
	const char *benign;       /* "benign" (owned): why the line is harmless (patterns/benign.json);
	                             NULL for a failure signature.  A benign line is neither
	                             evidence nor a failure line (docs/verdicts.md). */
	int benign_block;         /* "benign_block": "traceback": the Python traceback that
	                             follows the line, to its exception line, is benign too */
	size_t ncapnames;
	char **capnames;          /* index = capture group number; NULL when unnamed (set with code) */
};

struct version_range {
	int has_min, has_max;
	int min_incl, max_incl;
	long min, max;            /* encoded maj*10000 + min*100 + patch */
};

struct diagdef {
	char *id;
	char *file;
	size_t index;
	char *category;
	enum severity severity;
	enum role role;
	double confidence;
	char *title, *explanation;
	struct strvec fix;
	struct strvec fix_launchers; /* per fix step: "" for every job, else "vllm,sglang": only for jobs
	                                such a launcher ran (report_json drops it when another one did) */
	cJSON *verify_env;        /* object or NULL; a copy, owned (a slim database has no json) */
	struct strvec when_any, when_all, when_none;
	int has_nccl_range;
	struct version_range nccl;
	int nccl_implied;         /* "when.nccl_implied": the signatures in any/all match messages
	                             that exist only in releases inside the range (check-db proves it
	                             from the coverage table), so the range holds without a version */
	struct strvec cascade_of;
	struct strvec references;
	int derived;              /* "derived": true - a category derived from NCCL's or
	                             torch's structure, not a specific signature: ranked
	                             after every specific diagnosis (docs/derived.md) */
	int generic;              /* "generic": true - its message is a generic result (a CUDA
	                             error string, ncclSystemError, 'unknown error') that names no
	                             component: the WARN's source file or the return chain's
	                             deepest frame may say more (rules_derived.c, cascade.c) */
	struct strvec blames_env, blames_any; /* "blames": the user action it blames is visible
	                             when one of these variables is set (facts.env) or one
	                             of these ids is evidence; else it is a lead (correlate.c) */
	cJSON *json;              /* the entry itself; NULL in a slim database (sigdb_set_slim) */
};

/* An id that diagnoses may name besides the signatures': a fact rule written
 * in C (rules.h).  The loader knows no rule code: the engine hands it the
 * rules' tables (rules_register) before sigdb_finalize checks the ids. */
struct rule_def {
	const char *id;
	const char *summary;
};

struct rule_table {
	const struct rule_def *v;
	size_t n;
};

struct sigdb {
	struct signature *sigs;
	size_t nsigs, sigs_cap;
	struct diagdef *diags;
	size_t ndiags, diags_cap;
	cJSON **docs;             /* parsed files, each in arenas[i] (json_parse_arena): read-only */
	struct json_arena **arenas;
	size_t ndocs;
	struct strvec files;
	struct strvec texts;      /* the texts of sigdb_load_text's files, until sigdb_finalize (lines of
	                             messages); NULL for a file of sigdb_load_dir: read again when needed */
	char version[40];         /* "N.M-<hash>" from the files' contents */
	uint64_t text_hash;       /* hash_words over every pattern file's text, in load order */
	/* matching acceleration, built by sigdb_finalize() */
	struct acmatch *ac;       /* literal -> signature indexes */
	size_t *always[5];        /* per line class: signatures without literals */
	size_t nalways[5];
	size_t max_capture_groups; /* an upper bound when lazy: every '(' of the regexes */
	int lazy;                 /* regexes compiled on first use (sigdb_set_lazy) */
	int slim;                 /* no parsed files kept (sigdb_set_slim) */
	/* the derived categories: rows of the files' "derived" arrays, loaded,
	 * owned and self-tested by derive.c */
	struct derive_rows derived;
	uint32_t match_limit, depth_limit;
	struct rule_table *rules;  /* the fact rules' ids, borrowed tables (sigdb_add_rules) */
	struct arena strs;         /* the strings of every signature and diagnosis (ids, file, regex,
	                              texts, the lists and their elements): freed at once by sigdb_free */
	struct ncclsites *sites;   /* nccl_sites.tsv beside the patterns: read on first use (sigdb_sites) */
	int sites_tried;
	size_t nrules;
	/* id -> position, built by sigdb_finalize for its nsigs and ndiags
	 * (sigdb_sig, sigdb_diag search every entry when more were loaded since) */
	struct hindex sig_ix, diag_ix;
	size_t sig_ix_n, diag_ix_n;
	/* the fact rules' ids likewise (sigdb_rule): rule_at[i] the i-th rule
	 * of the tables in order, owned; nrule_defs rules in all, rule_ix_n of
	 * them indexed */
	const struct rule_def **rule_at;
	struct hindex rule_ix;
	size_t nrule_defs, rule_ix_n;
};

/* The launchers a fix step may be conditioned on ("launcher" of a fix
 * object), NULL-terminated. */
extern const char *const LAUNCHERS[];

void sigdb_init(struct sigdb *db);
/* Before loading: compile each regex on its first use instead of at load
 * (a regex that does not compile then makes sigdb_code() return NULL, and
 * the matcher skips the signature with a message). */
void sigdb_set_lazy(struct sigdb *db, int lazy);
/* Before loading: keep no parsed file (docs, and each entry's json, are
 * NULL; derived rows' json too), for the commands that never read them
 * (analyze, batch, run: no self-test, no list or explain).  Each file's
 * tree is freed once the file is loaded, so the next one reuses its
 * memory: ~3.5 MB of trees, 500 page faults of each start-up. */
void sigdb_set_slim(struct sigdb *db, int slim);
void sigdb_free(struct sigdb *db);
/* Load every *.json in dir (sorted), appending to db.  Errors are appended
 * to m as "file: json.path: problem"; returns the number of errors. */
int sigdb_load_dir(struct sigdb *db, const char *dir, struct msgs *m);
/* Load one file's text (used by the fuzzer and tests). */
int sigdb_load_text(struct sigdb *db, const char *name, const char *text, size_t len, struct msgs *m);
/* The fact rules' ids (a static table, borrowed) that "when" lists may name:
 * before sigdb_finalize. */
void sigdb_add_rules(struct sigdb *db, const struct rule_def *v, size_t n);
/* Cross-checks (ids unique, references resolve) and build the prefilter.
 * Returns the number of errors. */
int sigdb_finalize(struct sigdb *db, struct msgs *m);
/* The keys a pattern file may hold in one kind of object ("file",
 * "signature", "sample", "diagnosis", "when"), NULL-terminated; NULL for
 * another kind.  Any other key is a load error. */
const char *const *sigdb_known_keys(const char *object);
/* Run every sample and negative sample.  Returns failures; counts in *ok. */
int sigdb_selftest(const struct sigdb *db, struct msgs *m, size_t *ok);
/* Check every id C code names (PATIDS, patids.h) against db (loaded, rules
 * registered, finalized); one message per id that is missing.  Returns
 * their number. */
int sigdb_check_patids(const struct sigdb *db, struct msgs *m);

/* The JIT compile of s's regex, once (see the top of this file); the slow
 * path of sigdb_code(). */
void sigdb_jit(const struct signature *s);
/* s's compiled regex, JIT-compiled on the first call: the one way to get
 * code to match.  After the first call per signature, one load and one
 * predictable branch. */
static inline const pcre2_code *sigdb_code(const struct signature *s)
{
	if (__builtin_expect(!atomic_load_explicit((atomic_uchar *)&s->jit_done, memory_order_acquire), 0))
		sigdb_jit(s);
	return s->code;
}
/* JIT-compile every signature's regex now (check-db: the engine analyze uses). */
void sigdb_jit_all(const struct sigdb *db);
/* How many signatures have been JIT-compiled so far (tests, start-up). */
size_t sigdb_jit_count(const struct sigdb *db);
/* One message per regex of a lazy database that did not compile at its
 * first use (the signature or derived row was skipped): "FILE: PATH: why".
 * Call after the analysis, with no thread still matching.  The count. */
size_t sigdb_lazy_failures(const struct sigdb *db, struct msgs *m);

const struct signature *sigdb_sig(const struct sigdb *db, const char *id);
const struct diagdef *sigdb_diag(const struct sigdb *db, const char *id);
/* A fact rule given with sigdb_add_rules, or NULL. */
const struct rule_def *sigdb_rule(const struct sigdb *db, const char *id);

/* Version codes (22809 for "2.28.9") are version_code's (version.h). */
int version_in_range(long v, const struct version_range *r);
/* A range as "when.nccl" writes it (">=2.24 <2.27.3", "<2.5", "=2.18.1"):
 * 1 and *r filled, or 0 when s is none (check-db of the defect table). */
int sigdb_parse_range(const char *s, struct version_range *r);
/* The table of NCCL's WARN sites (match/ncclsites.h) of the database's
 * folder, read on the first call (under sigdb.c's lock, like the JIT);
 * NULL when the folder has none.  Owned by the database. */
const struct ncclsites *sigdb_sites(const struct sigdb *db);

const char *severity_name(enum severity s);
const char *sig_on_name(enum sig_on on);
/* Whether a signature with this "on" is tried on a line of this level (enum line_level). */
int sig_accepts_level(enum sig_on on, int level);
const char *role_name(enum role r);

#endif
