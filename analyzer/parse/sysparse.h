/* sysparse.h - internal helpers shared by the system-report parsers
 * (parse_topo.c, parse_p2p.c, parse_topoxml.c, parse_nvsmi.c,
 * parse_versions.c, parse_memory.c, parse_env.c, parse_ib.c, parse_lspci.c,
 * parse_netif.c, parse_host.c; the line-fed parse_nccltests.c, parse_kmsg.c,
 * parse_nodes.c), the registry of their
 * kinds (sysreport.c) and the rules over their facts (rules_sys.c, sys_eval.c);
 * implemented in sysparse.c, below the dispatcher (sysreport.c), and the
 * parsers' entry points that the dispatcher calls.  Not a public
 * interface: sysreport.h is.
 *
 * Ownership: every cJSON node these helpers create is attached to the facts
 * object passed in (the caller owns that tree).  Strings returned by
 * sys_lines_next() are borrowed and valid until the next call; strings
 * returned by sys_*dup/sys_bus_norm are owned by the caller. */
#ifndef NT_SYSPARSE_H
#define NT_SYSPARSE_H

#include <stddef.h>
#include <stdint.h>
#include <cjson/cJSON.h>
#include "base/hash.h"
#include "base/json.h"
#include "base/linkclass.h"
#include "base/tstamp.h"
#include "base/version.h"
#include "parse/detect.h"
#include "base/util.h"

#define SYS_LINE_MAX 65536      /* bytes of one line kept; the rest is cut */
#define SYS_MAX_GPUS 1024       /* GPU/NIC columns in one matrix */
#define SYS_MEM_MAX_SAMPLES 4096 /* samples kept per memory series */
#define SYS_MAX_PACKAGES 20000

/* Line iterator: strips '\r', ANSI escape sequences (ESC [ ... letter) and
 * replaces other control bytes but tab with a space.  Lines are mutable
 * copies so that callers may split them in place. */
struct sys_lines {
	const char *p, *end;
	uint64_t lineno;   /* 1-based number of the line last returned */
	char *buf;
	size_t cap;
	int truncated;     /* the last line was cut at SYS_LINE_MAX */
};
void sys_lines_init(struct sys_lines *it, const char *text, size_t len);
char *sys_lines_next(struct sys_lines *it, size_t *n);
void sys_lines_free(struct sys_lines *it);

/* Split s in place on blanks (space, tab); returns the number of tokens. */
size_t sys_split_ws(char *s, char **tok, size_t max);
/* Split s in place on tabs, keeping empty fields; trims spaces of each. */
size_t sys_split_tab(char *s, char **tok, size_t max);
char *sys_trim(char *s);
/* Case-insensitive search of needle in s[0..n). */
const char *sys_memcasestr(const char *s, size_t n, const char *needle);

/* facts helpers */
cJSON *sys_source(const char *path, uint64_t line);
void sys_put_source(cJSON *obj, const char *path, uint64_t line);
cJSON *sys_obj(cJSON *parent, const char *key);   /* get or create */
cJSON *sys_arr(cJSON *parent, const char *key);   /* get or create */
void sys_set_str(cJSON *obj, const char *key, const char *val);
void sys_set_num(cJSON *obj, const char *key, double v);
void sys_set_bool(cJSON *obj, const char *key, int v);
/* getters: json.h (json_str, json_num) */

/* facts.gpus[]: the entry with that index (created when create). */
cJSON *sys_gpu(cJSON *facts, int index, int create);
/* facts.gpus[]: the entry with that (normalised) bus id, or NULL. */
cJSON *sys_gpu_by_bus(cJSON *facts, const char *bus);
/* "00000000:00:06.0" / "0000:00:06.0" / "00:06.0" -> "0000:00:06.0"
 * (lowercase); NULL when it does not look like a PCI address.  Caller frees. */
char *sys_bus_norm(const char *bus);

/* facts.versions.<key> = {"value": v, "source": {...}}.  The first value
 * wins; a different later value is appended to versions.conflicts.
 * Returns 1 when the value was readable (new, agreeing or conflicting). */
int sys_version_set(cJSON *facts, const char *key, const char *value,
                    const char *path, uint64_t line);
/* facts.versions.packages.<name> = {"version":, "source":}; name is
 * lowercased and '_' / '.' become '-' (PEP 503).  First wins. */
int sys_package_set(cJSON *facts, const char *name, const char *version,
                    const char *path, uint64_t line);
/* facts.env.<name> (see parse_env.c for the layout).  Returns 1 when new,
 * 0 when known, -1 when facts.env holds SYS_ENV_MAX variables already (the
 * caller counts it). */
int sys_env_set(cJSON *facts, const char *name, const char *value,
                const char *path, uint64_t line, const char *source);
/* facts.env keeps at most SYS_ENV_MAX variables, and of a value its first
 * SYS_ENV_VALUE_MAX bytes (then "…" and "length": the bytes it had). */
#define SYS_ENV_MAX 4096
#define SYS_ENV_VALUE_MAX 1024
/* facts.env by name, hashed (a log may name 80000 variables): owned by the
 * caller, one per facts object (bundle.c).  Variables added to facts.env by
 * anyone are indexed at the next lookup: facts.env only grows while input
 * is read, and the index is not used after that. */
struct env_index {
	const cJSON *env;   /* the facts.env it indexes */
	cJSON *last;        /* its last child indexed */
	cJSON **v;
	size_t n, cap;
	struct hindex ix;
	uint64_t work;      /* probes (tests bound it) */
};
void env_index_free(struct env_index *x);
/* While x is set (NULL: none) on this thread, sys_env_set finds names
 * through it: bundle.c sets it around the system-report parsers. */
void sys_env_index_use(struct env_index *x);
/* facts.env (created when missing) and in it name, or NULL; *count = the
 * variables it holds.  Through x when x is not NULL. */
cJSON *sys_env_find(cJSON *facts, struct env_index *x, const char *name, cJSON **env, size_t *count);
/* The value object {"value", "path", "line", "source"[, "length"]} of a new
 * variable, its value sanitised and cut (SYS_ENV_VALUE_MAX). */
cJSON *sys_env_value(const char *value, size_t n, const char *path, uint64_t line, const char *source);

/* Memory: one sample of GPU gpu in the series of document path.  t is in
 * seconds (any origin, NAN when unknown), ts the timestamp as printed. */
void sys_mem_sample(cJSON *facts, const char *path, uint64_t line, int gpu,
                    const char *ts, double t, double used_mib, double total_mib);
/* Parse "1234 MiB", "1.5 GiB", "512MiB", "23.65 GiB" to MiB; NAN on error.
 * *end is set after the unit when end is not NULL. */
double sys_parse_mib(const char *s, const char **end);
/* The same within [s, lim) only (a span of a log line, not a C string). */
double sys_parse_mib_n(const char *s, const char *lim, const char **end);
/* strtod's value of t when t is all digits, with at most one '.' after the
 * first digit, 15 digits at most ("96", "17.49"): 1 and *v, which is the
 * double strtod(t) returns (the digits as an integer, exact in a double,
 * divided by an exact power of ten: one correctly rounded operation, as
 * strtod's result is correctly rounded; the C locale: nothing in the tree
 * calls setlocale).  0, *v untouched: any other form (a sign, an exponent,
 * more digits, a blank): strtod decides. */
int sys_decimal(const char *t, double *v);
/* sscanf(p, "%x:%x:%x") where the three fields are hex digits only and
 * ':' follows the first two: v[] is what sscanf stores (strtoul's value of
 * each field as an unsigned int).  end: the byte that must follow the
 * third field (')' in a kernel Xid's "(0000:01:00)"), or -1: any byte (a
 * bus id "0009:01:00" cut at its ']').  Returns the bytes read, the one
 * after the third field included (for sscanf's "%n" after the ')' when end
 * >= 0), or 0: another form (a sign, a blank, "0x", fewer fields, another
 * byte after the third): the caller asks sscanf, which decides. */
int sys_hex3(const char *p, int end, unsigned v[3]);
/* snprintf(out, 13, "%04x:%02x:%02x.0", dom, bus, dev) for a PCI address
 * in range (dom <= 0xffff, bus <= 0xff, dev <= 0x1f, which the callers
 * check first): "0000:01:00.0", 12 bytes and a NUL. */
void sys_bdf(char out[13], unsigned dom, unsigned bus, unsigned dev);
/* sscanf(s, "%N[^STOPS]", out) with N = cap - 1: the 1 to cap - 1 bytes of
 * s before the first of the bytes of stops (or the NUL) go to out, with a
 * NUL after them.  Returns how many (0: s starts with a stop byte or is
 * empty, sscanf's 0 conversions; out then holds "").  cap >= 2. */
size_t sys_scan_until(const char *s, const char *stops, char *out, size_t cap);
/* Times: tstamp_epoch_of (tstamp.h) for "2026/11/30 14:16:53.366" or
 * "Mon Nov 30 14:30:31 2026". */

/* Versions compare with version_cmp_str (version.h). */

/* ---- the registry of system-report kinds (sysreport.c lists them) ----
 * Each parse_*.c defines the kinds it reads: how to recognise one from the
 * head of a document and how to parse it.  Detection runs in two passes
 * over the list in sysreport.c, in its order: first every kind's marker
 * (a legend, a banner), then, when no marker spoke, every kind's test of
 * the line counts of struct sys_head. */

/* The first 400 non-blank lines of a document's head, counted by kind of
 * line (sysreport.c: each line is counted once, as the first that fits). */
struct sys_head {
	const char *p;          /* the head */
	size_t n;
	int lines;              /* non-blank lines looked at */
	int gpu_l;              /* "GPU 0: NAME (UUID: GPU-...)" (nvidia-smi -L) */
	int nvlink_l;           /* "Link 0: 26.562 GB/s" / "Link 3: <inactive>" (nvidia-smi nvlink -s) */
	int topo_rows;          /* "GPU0  X  NV18 ..." (topo -m row) */
	int p2p_rows;           /* "GPU0  X  OK ..." (topo -p2p row) */
	int header_gpu0;        /* a matrix header "GPU0 GPU1 ..." */
	int pip_eq, pip_hdr;    /* "name==1.2" lines; a "Package Version" header */
	int conda_hdr;          /* "# packages in environment", "# Name" */
	int env_kv, exports;    /* "NAME=value"; "export NAME=..." / "declare -x" */
	int env_cmd;            /* of env_kv: commands with the environment in front ("NCCL_DEBUG=INFO mpirun ...") */
	int csv_mem;            /* "1234 MiB, ..." rows without a header */
	int other;
};

struct sysreport_kind {
	enum doc_kind kind;
	const char *name;       /* doc_kind_name, the report's "kind" */
	/* 1 when a marker of the head names this kind (first pass); or NULL */
	int (*marker)(const char *head, size_t len);
	/* 1 when the line counts say this kind (second pass); or NULL */
	int (*lines)(const struct sys_head *h);
	/* the parser: facts added */
	int (*parse)(const char *text, size_t len, const char *path, cJSON *facts, struct msgs *m);
	/* 1: signatures read its lines too, as a log's (sysreport_kind_scanned) */
	int lines_scanned;
};

/* Whether needle occurs in head[0..len). */
int sys_has(const char *head, size_t len, const char *needle);

/* The host reports read line by line (ibstat, lspci, ip, ulimit...) share
 * one shape: a parser that returns the lines it used (and, when nonblank is
 * not NULL, the non-blank lines it saw).  sys_lines_report runs it as a
 * kind's parser and says "PATH: <none>" in m when it used no line;
 * sys_lines_mostly is the detection: at least 2 lines used and 70% of the
 * non-blank ones (the facts go to a scratch object, freed here). */
typedef int (*sys_line_parser)(const char *text, size_t len, const char *path, cJSON *facts, int *nonblank);
/* The loop of such a parser: every line of text (sys_lines: bounded,
 * control bytes cleaned) with its blanks trimmed at both ends (s, in the
 * line's own buffer: raw is the line as it stood, but for its trailing
 * blanks); a blank line is skipped, the others are counted in *nonblank
 * (when not NULL) and handed to fn.  Returns the sum of fn's results: the
 * lines it used. */
typedef int (*sys_line_fn)(void *ctx, const char *raw, char *s, uint64_t lineno);
int sys_lines_feed(const char *text, size_t len, sys_line_fn fn, void *ctx, int *nonblank);
int sys_lines_report(sys_line_parser f, const char *text, size_t len, const char *path, cJSON *facts,
                     struct msgs *m, const char *none);
int sys_lines_mostly(sys_line_parser f, const char *head, size_t len);

/* Per-kind parsers: each returns the number of facts added. */
int sys_parse_topo(const char *text, size_t len, const char *path, cJSON *facts, struct msgs *m);
int sys_parse_p2p(const char *text, size_t len, const char *path, cJSON *facts, struct msgs *m);
int sys_parse_p2pbw(const char *text, size_t len, const char *path, cJSON *facts, struct msgs *m);
int sys_parse_topoxml(const char *text, size_t len, const char *path, cJSON *facts, struct msgs *m);
int sys_parse_nvsmi(const char *text, size_t len, const char *path, cJSON *facts, struct msgs *m);
int sys_parse_nvsmi_q(const char *text, size_t len, const char *path, cJSON *facts, struct msgs *m);
int sys_parse_nvsmi_l(const char *text, size_t len, const char *path, cJSON *facts, struct msgs *m);
int sys_parse_mem_csv(const char *text, size_t len, const char *path, cJSON *facts, struct msgs *m);
int sys_parse_versions(const char *text, size_t len, const char *path, cJSON *facts, struct msgs *m);
int sys_parse_env(const char *text, size_t len, const char *path, cJSON *facts, struct msgs *m);
/* Reports recognised by the share of their lines a parser reads
 * (parse_ib.c, parse_lspci.c, parse_netif.c, parse_host.c): _detect says
 * whether a document's head is one (70% of its non-blank lines; the
 * marker of its kind), _scan reads the blocks of one embedded in free
 * text (a pasted ticket). */
int sys_parse_ib(const char *text, size_t len, const char *path, cJSON *facts, struct msgs *m);
int sys_parse_lspci(const char *text, size_t len, const char *path, cJSON *facts, struct msgs *m);
int sys_parse_netif(const char *text, size_t len, const char *path, cJSON *facts, struct msgs *m);
int sys_parse_host(const char *text, size_t len, const char *path, cJSON *facts, struct msgs *m);
int sys_detect_ib(const char *head, size_t len);
int sys_detect_lspci(const char *head, size_t len);
int sys_detect_netif(const char *head, size_t len);
int sys_detect_host(const char *head, size_t len);
int sys_scan_ib(const char *text, size_t len, const char *path, cJSON *facts);
int sys_scan_lspci(const char *text, size_t len, const char *path, cJSON *facts);
int sys_scan_netif(const char *text, size_t len, const char *path, cJSON *facts);
int sys_scan_host(const char *text, size_t len, const char *path, cJSON *facts);

/* Whole texts of the line-fed parsers (sysreport.h): nccl-tests output
 * (launcher prefixes removed here), kernel messages. */
int sys_parse_nccltests(const char *text, size_t len, const char *path, cJSON *facts, struct msgs *m);
int sys_parse_kmsg(const char *text, size_t len, const char *path, cJSON *facts, struct msgs *m);
/* What an NVIDIA Xid code means (NULL when not in the table). */
const char *sys_xid_meaning(int xid);
/* PyTorch OOM messages in any text (one per line). */
int sys_parse_oom_text(const char *text, size_t len, const char *path, cJSON *facts, struct msgs *m);

/* sysreport_torch_oom (a PyTorch OOM line into facts) is declared in sysreport.h. */

/* Derived facts (link classes, P2P groups, memory headroom): idempotent,
 * called by rules before they look at the facts. */
void sys_derive(cJSON *facts);

#endif
