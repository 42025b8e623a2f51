/* util.h - small helpers shared by every module: checked allocation, a growable
 * byte buffer, a string vector and the message list that library code uses
 * instead of printing.  Nothing here keeps global state. */
#ifndef NT_UTIL_H
#define NT_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#if defined(__GNUC__)
#define NT_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define NT_PRINTF(a, b)
#endif

/* Allocation that ends the process on exhaustion ("nccl-triage: out of memory
 * (allocating N bytes)" on stderr, exit status 2, no core): an analyzer that
 * cannot allocate a few bytes cannot report anything useful either.  Large,
 * input-sized buffers are bounded by the caps in nt_limits.h before they are
 * requested. */
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) NT_PRINTF(1, 2);
char *xvasprintf(const char *fmt, va_list ap);

/* Growable byte buffer; data is always NUL-terminated (data[len] == 0),
 * and the bytes after the NUL, up to a line regex's read-ahead, are
 * initialised (util.c's BUF_TAIL). */
struct buf {
	char *data;
	size_t len, cap;
	size_t inited; /* bytes [0, inited) of data have been written */
};
void buf_init(struct buf *b);
void buf_free(struct buf *b);
void buf_reserve(struct buf *b, size_t extra);
void buf_add(struct buf *b, const void *p, size_t n);
void buf_adds(struct buf *b, const char *s);
void buf_addc(struct buf *b, char c);
void buf_printf(struct buf *b, const char *fmt, ...) NT_PRINTF(2, 3);
void buf_reset(struct buf *b);
/* Hand the data to the caller (who frees it) and leave b empty. */
char *buf_steal(struct buf *b);
/* Appends what F holds, up to its end or until b holds CAP bytes (a chunk
 * of 64 KiB more at the most).  -1 on a read error (ferror), else 0. */
int buf_read_file(struct buf *b, FILE *f, size_t cap);
/* The span [S, S+N) as a C string in DST (DN bytes: cut to DN-1), its
 * control bytes as spaces (tabs kept where KEEP_TAB), for parsers that
 * sscanf a line.  Returns the length copied. */
size_t str_line_copy(char *dst, size_t dn, const char *s, size_t n, int keep_tab);
/* Writes all N bytes of P to FD (again after EINTR and short writes): at
 * the file offset AT (pwrite) when AT >= 0, else at its current offset.
 * -1 on an error (errno says which), else 0. */
int fd_write_all(int fd, const char *p, size_t n, long long at);

/* Vector of owned strings. */
struct strvec {
	char **v;
	size_t n, cap;
};
void strvec_push(struct strvec *sv, const char *s);       /* copies s */
void strvec_push_owned(struct strvec *sv, char *s);       /* takes s */
int strvec_contains(const struct strvec *sv, const char *s);
void strvec_free(struct strvec *sv);

/* Messages for the user: library code appends, the CLI decides where they go.
 * Each is one line: "file: place: what happened". */
struct msgs {
	struct strvec list;
	size_t dropped; /* messages beyond MSGS_MAX, counted but not kept */
};
#define MSGS_MAX 1000
#define MSG_LEN_MAX 4096 /* bytes kept of one message */
void msgs_add(struct msgs *m, const char *fmt, ...) NT_PRINTF(2, 3);
void msgs_free(struct msgs *m);

/* Text helpers. */
/* memmem(hay, n, lit, len) with the same result, faster on log text: it
 * looks for lit[anchor] with memchr (vectorised) and compares from there, so
 * pick as anchor a byte of lit that is rare in logs (a capital, 'y', 'v'). */
const char *mem_find(const void *hay, size_t n, const char *lit, size_t len, size_t anchor);
/* mem_find with the anchor chosen as the rarest byte of lit (by a fixed
 * estimate of byte frequencies in NCCL/PyTorch logs). */
const char *mem_find_rare(const void *hay, size_t n, const char *lit, size_t len);
/* CPUs this process may run on (affinity mask), at least 1. */
int online_cpus(void);
int str_starts(const char *s, const char *prefix);
/* The length of the run of printable ASCII (0x20..0x7e) at s, 8 bytes a step. */
size_t str_plain_run(const char *s, size_t n);
/* The length of the run of printable ASCII and tabs at s: what str_sanitize
 * copies as it is. */
size_t str_printable_run(const char *s, size_t n);
int str_ends(const char *s, const char *suffix);
/* Copy of s[0..n) with control bytes other than tab, C1 controls
 * (U+0080..U+009F) and bidi overrides (U+202A..U+202E, U+2066..U+2069)
 * replaced by '?' and invalid UTF-8 sequences replaced by U+FFFD, so it is
 * safe in JSON and on a terminal.  Caller frees. */
char *str_sanitize(const char *s, size_t n);
/* 1 when s[0..n) is printable ASCII and tabs with nothing to mask: then
 * str_sanitize(s, n) is s[0..n) itself, and a caller may copy s instead
 * (0 says nothing: valid UTF-8 is kept too). */
int str_sanitize_keeps(const char *s, size_t n);
/* str_sanitize of s[0..n) cut to at most max bytes of input: when n > max
 * the cut falls on a UTF-8 boundary and the result ends with "…" (U+2026),
 * so a cut is never silent (docs/json.md: "cut", "length"). */
char *str_sanitize_cut(const char *s, size_t n, size_t max);
/* The bytes of s (n bytes) that str_sanitize_cut(s, n, max) keeps: n, or
 * max moved back to the start of a UTF-8 sequence. */
size_t str_cut_at(const char *s, size_t n, size_t max);
/* Secrets never reach a report, --redact or not (docs/hardening.md): a
 * variable name that says it holds one (*PASSWORD*, *PASSWD*, *SECRET*,
 * *CREDENTIAL*, *API_KEY*, *ACCESS_KEY*, *PRIVATE_KEY*, *AUTH_TOKEN*, or a
 * last part TOKEN, KEY, PASS, PWD (not PWD alone): HF_TOKEN, WANDB_API_KEY,
 * AWS_SECRET_ACCESS_KEY...).  1 when s[0..n) is such a name. */
int str_secret_name(const char *s, size_t n);
/* In place over s[0..n): the value of NAME=value, NAME: value (a blank after the colon) and
 * "NAME": "value" when NAME is a secret name, and tokens recognisable by
 * their shape (hf_..., ghp_..., github_pat_..., AKIA...), become
 * "***".  Returns the new length (never longer; s is NUL-terminated there).
 * str_sanitize applies it to everything it returns. */
size_t str_mask_secrets(char *s, size_t n);
/* NULL when s is valid UTF-8; otherwise a copy with each invalid byte
 * replaced by U+FFFD (controls are kept: this is for JSON, which escapes
 * them, not for a terminal).  Caller frees. */
char *str_utf8_fix(const char *s);
/* Human size: "12.3 MiB". Writes into out (at least 32 bytes). */
const char *fmt_size(uint64_t bytes, char *out, size_t outsz);
/* Parse "64M", "1G", "4096", "512k" into bytes; -1 on error. */
int64_t parse_size(const char *s);

/* qsort that takes an empty array: qsort(NULL, 0, ...) is undefined behaviour
 * (C11 7.22.5p1), and an empty list is often a NULL vector. */
static inline void xqsort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	if (n > 1)
		qsort(base, n, size, cmp);
}

#endif
