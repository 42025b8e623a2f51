/* redact.h - replace what identifies a customer (host names, IPv4/IPv6 and
 * MAC addresses, user names in paths, GPU UUIDs, PCI bus IDs, serial
 * numbers) with stable pseudonyms: the same host is host-1 everywhere in one
 * report, the same GPU's bus id is busid-1 in "00000000:60:00.0" and in
 * NCCL's short "busId 600000" alike.
 *
 * Redaction runs after analysis_finish(), on what the reports show, so the
 * diagnosis is made on the original text and does not change.  Formats
 * rendered from the JSON document (json, html, junit, sarif, github) go
 * through redact_json(), which knows the fields (a "bus_id" of "60" is a bus
 * id, a "host" is a host name); text and Markdown are rendered to memory and
 * go through redact_string() as a whole.  Names are learned from the bundles
 * through their JSON object (report_bundle_json), so a field added to the
 * report later is covered without a change here.
 *
 * Two phases, so that a name learned from one bundle is also hidden in the
 * others: learn from every bundle, then apply to every bundle.  A redactor
 * holds a mutex, so batch workers may share one (numbering then follows the
 * order in which workers reach it).  Loopback and unspecified addresses
 * (127.0.0.0/8, 0.0.0.0, ::1, ::) and "localhost" are kept: they identify
 * nobody and help the reader.  Owned by the caller: redactor_free(). */
#ifndef NT_REDACT_H
#define NT_REDACT_H

#include <cjson/cJSON.h>

struct bundle;
struct redactor;

struct redactor *redactor_new(void);
void redactor_free(struct redactor *r);

/* Learn host and user names from a bundle (hosts of ranks and evidence,
 * NCCL line prefixes, torchrun summaries, env facts, home paths). */
void redact_learn_bundle(struct redactor *r, const struct bundle *b);
/* The same from a bundle's report object (report_bundle_json and more). */
void redact_learn_json(struct redactor *r, const cJSON *obj);

/* Rewrite every string value and object key below item, in place. */
void redact_json(struct redactor *r, cJSON *item);
/* One string: a new copy with every identifying token replaced (and new
 * addresses numbered).  Caller frees. */
char *redact_string(struct redactor *r, const char *s);



#endif
