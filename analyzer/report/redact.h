/* redact.h - replace what identifies a customer (host names, IPv4/IPv6 and
 * MAC addresses, user names in paths, GPU UUIDs, PCI bus IDs, serial
 * numbers) with stable pseudonyms: the same host is host-1 everywhere in one
 * report, the same GPU's bus id is busid-1 in "00000000:60:00.0" and in
 * NCCL's short "busId 600000" alike.
 *
 * Redaction runs after analysis_finish(), on the report document that every
 * format renders from (report.h), so the diagnosis is made on the original
 * text and does not change, and every format shows the same pseudonyms.
 * redact_json() knows the fields (a "bus_id" of "60" is a bus id, a "host"
 * is a host name) and learns the names from the document itself, so a
 * field added to the report later is covered without a change here.
 *
 * Two phases, so that a name learned from one bundle is also hidden in the
 * others: learn from every bundle, then apply to every bundle.  Batch
 * redacts each bundle's object in bundle order on one thread, so
 * pseudonyms are numbered the same whatever -j; a redactor holds a mutex
 * all the same.  Loopback and unspecified addresses
 * (127.0.0.0/8, 0.0.0.0, ::1, ::) and "localhost" are kept: they identify
 * nobody and help the reader.  Owned by the caller: redactor_free(). */
#ifndef NT_REDACT_H
#define NT_REDACT_H

#include <cjson/cJSON.h>

struct redactor;

struct redactor *redactor_new(void);
void redactor_free(struct redactor *r);

/* Learn host and user names from everything below item (hosts of ranks
 * and evidence, NCCL line prefixes, torchrun summaries, env facts, home
 * paths), then rewrite every string value and object key below it, in
 * place: one call on the report's "bundles" redacts every bundle with the
 * names of all. */
void redact_json(struct redactor *r, cJSON *item);
/* One string: a new copy with every identifying token replaced (and new
 * addresses numbered).  Caller frees. */
char *redact_string(struct redactor *r, const char *s);

/* Raw text, line by line (`collect --redact` rewrites the bundle's own
 * files before they leave the machine): learn from every line first, then
 * rewrite every line.  redact_learn_line learns as redact_json learns
 * from text, and from NAME=value lines whose NAME holds a host or user
 * (HOSTNAME=, MASTER_ADDR=, USER=...); redact_learn_name learns a name
 * known otherwise (user 0: a host, 1: a user).  redact_line rewrites with
 * what was learned, learning nothing more; the value of a "Key : value"
 * line whose key names a serial number or a UUID (nvidia-smi -q) is
 * replaced as those fields of the JSON are.  Caller frees. */
void redact_learn_line(struct redactor *r, const char *s);
void redact_learn_name(struct redactor *r, const char *s, int user);
char *redact_line(struct redactor *r, const char *s);
/* A host name whose pseudonym is given (run --redact: this host is its
 * folder's name, host-HASH, in every file of every process on it), its
 * FQDN's first label too; the pseudonym is kept wherever it is found. */
void redact_learn_host_as(struct redactor *r, const char *s, const char *pseudo);
/* After redact_line: text already rewritten (a run's redacted bundle,
 * analysed) shows the pseudonyms in their form (192.0.2.1); so that the
 * report's redaction names them as the originals are named (ip-1, not a
 * new ip-7), every form becomes another key of its pseudonym (and
 * serial-N, which redact_line writes, of itself). */
void redact_alias_forms(struct redactor *r);



#endif
