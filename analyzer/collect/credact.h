/* credact.h - --redact on a bundle's own files (`collect --redact`, `run
 * --redact`): one redactor (report/redact.h) that first learns from
 * everything the bundle will hold (the names given: this host's, the
 * user's; every collected item; the manifest; every log), then rewrites
 * everything with what it learned, so that a name has the same pseudonym
 * in every file.  Learning and rewriting take the same pieces: collected
 * items and text buffers in memory, and files streamed line by line (a
 * job's log can be gigabytes: never whole in memory), both cut the same way
 * (credact_piece: a line, a longer one in pieces).  A NUL byte becomes
 * '?'.  The redactor is the caller's: redactor_free(). */
#ifndef NT_CREDACT_H
#define NT_CREDACT_H

#include <stddef.h>
#include "base/util.h"
#include "collect/citems.h"

struct redactor;

/* A redactor that knows hosts[] and users[] (NULL-terminated, may be NULL). */
struct redactor *credact_new(const char *const *hosts, const char *const *users);

void credact_learn_buf(struct redactor *r, struct buf *b);
void credact_rewrite_buf(struct redactor *r, struct buf *b);
void credact_learn_items(struct redactor *r, struct citems *c);
void credact_rewrite_items(struct redactor *r, struct citems *c);

/* The file behind fd, from its start (pread: the offset is left alone),
 * line by line; a line longer than CREDACT_PIECE is taken in pieces cut
 * after a blank where there is one (credact_piece).  credact_copy_fd
 * writes every line rewritten to out at its current offset, the line ends
 * as they were, so the copy has as many lines.  0, or -1 with errno. */
#define CREDACT_PIECE (1u << 20)
int credact_learn_fd(struct redactor *r, int fd);
int credact_copy_fd(struct redactor *r, int in, int out);
/* The length of the next piece of p[0..n): through the first '\n' within
 * max bytes (*nl = 1); else (*nl = 0) all of it when n < max (the end of
 * the file), else up to and including the last blank in the second half
 * of the max bytes, else max bytes. */
size_t credact_piece(const char *p, size_t n, size_t max, int *nl);

/* `collect --redact` in one call: learn from the names and every item,
 * rewrite every item.  *host_pseudo gets the pseudonym of hosts[0]
 * (caller frees), for the archive's top folder. */
void citems_redact(struct citems *c, const char *const *hosts, const char *const *users, char **host_pseudo);

/* `run --redact`'s host folder: "host-" and 12 hex digits of a hash of the
 * boot id and the host name, so that every process of a job on one host
 * agrees on it and different hosts (and boots) differ.  out: 18 bytes. */
void credact_host_folder(const char *boot_id, const char *host, char out[18]);

#endif
