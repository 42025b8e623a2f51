/* sysreport.h - system reports (nvidia-smi, topo matrices, version listings,
 * memory traces, env dumps) to typed facts.
 *
 * Each parser is pure: text in, facts merged into the bundle's facts object
 * (cJSON, documented in docs/facts.md), problems appended to msgs.  Every
 * fact that a diagnosis may rest on records where it came from as
 * {"path": ..., "line": N} so that the report can cite it. */
#ifndef NT_SYSREPORT_H
#define NT_SYSREPORT_H

#include <stddef.h>
#include <stdint.h>
#include <cjson/cJSON.h>
#include "parse/detect.h"
#include "base/util.h"

/* Parse a whole document of the given kind into facts.  Returns the number of
 * facts added (0 when nothing sound was found). */
int sysreport_parse(enum doc_kind kind, const char *text, size_t len,
                    const char *path, cJSON *facts, struct msgs *m);

/* Embedded reports (a topo matrix, version lines, OOM messages) inside a
 * document of another kind, e.g. a pasted ticket.  Returns facts added. */
int sysreport_scan_text(const char *text, size_t len, const char *path, cJSON *facts, struct msgs *m);

/* A PyTorch OOM message line ("CUDA out of memory. Tried to allocate ...")
 * into facts.memory.oom_events (parse_memory.c).  Returns 1 when parsed and
 * kept; nothing is kept past SYS_OOM_EVENTS_MAX events (a caller that has
 * counted that many returns of 1 need not call it again). */
#define SYS_OOM_EVENTS_MAX 256
int sysreport_torch_oom(const char *line, size_t len, cJSON *facts, const char *path, uint64_t lineno);

/* Facts that log lines carry, fed line by line by the log side (bundle.c).
 * Lines are s[0..n) (no NUL needed) and never read past n. */

/* nccl-tests output (parse_nccltests.c): one state per document.  Feed it
 * the plain lines (launcher prefixes removed) that carry an nccl-tests
 * keyword, and those _wants() names while a run is open;
 * _end() closes the last run and frees the state (NULL is fine). */
struct nccltests;
struct nccltests *sysreport_nccltests_new(cJSON *facts, const char *path);
int sysreport_nccltests_active(const struct nccltests *nt);
/* Whether a line that holds no KW_NCCLTESTS keyword (linekw.h) can change
 * the parser's state (a run is open and it is a '#' line or a table row):
 * only those, and the lines with a keyword, need sysreport_nccltests_line. */
int sysreport_nccltests_wants(const struct nccltests *nt, const char *line, size_t len);
/* Whether a line with no run open (no header read) starts like a row of
 * nccl-tests' table (SIZE COUNT TYPE): a table pasted alone opens a run
 * marked "headerless"; feed it with sysreport_nccltests_line_nokw. */
int sysreport_nccltests_bare_row(const char *line, size_t len);
void sysreport_nccltests_line(struct nccltests *nt, const char *line, size_t len, uint64_t lineno);
/* The same for a line in which the keyword scan (linekw.h, over at least
 * line[0..len)) found no KW_NCCLTESTS literal: the searches for the kinds
 * that hold one (failures, the footer) are skipped. */
void sysreport_nccltests_line_nokw(struct nccltests *nt, const char *line, size_t len, uint64_t lineno);
void sysreport_nccltests_end(struct nccltests *nt);

/* A kernel message (dmesg / journalctl -k / syslog line) into
 * facts.kernel (parse_kmsg.c).  Returns 1 when it recorded something. */
int sysreport_kmsg_line(cJSON *facts, const char *line, size_t len, const char *path, uint64_t lineno);

/* An NCCL INFO message of host host[0..hn) into facts.nodes.<host>
 * (parse_nodes.c).  Returns 1 when it recorded something. */
int sysreport_node_info(cJSON *facts, const char *host, size_t hn, const char *msg, size_t mn,
                        const char *path, uint64_t lineno);

#endif
