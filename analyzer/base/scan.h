/* scan.h - bounded scanning of a byte span [p, end): numbers, words and
 * literals read without ever looking at a byte at or past end.
 *
 * Log lines reach the parsers as spans, not C strings: with two threads
 * (`analyze -j2`) the lines of a batch are packed back to back without a
 * terminator, and a single-threaded line is followed by the next one in the
 * read buffer.  strtol, strtod, sscanf, strstr, strchr and strlen on such a
 * span read past it, take digits from the next line, or run off the end of
 * the buffer; these functions are their bounded replacements.
 *
 * Self-contained (standard C only), so it can move to any base layer.
 * Conventions: a cursor is `const char **pp`, advanced past what was read
 * only when the function succeeds (returns 1); end is one past the last
 * byte that may be read.  Numbers are ASCII decimal, no locale. */
#ifndef NT_SCAN_H
#define NT_SCAN_H

#include <stddef.h>
#include <stdint.h>

/* Skips spaces and tabs; returns how many. */
size_t scan_blanks(const char **pp, const char *end);
/* The literal lit (n bytes) at *pp: 1 and advanced past it, else 0. */
int scan_lit(const char **pp, const char *end, const char *lit, size_t n);
/* The first occurrence of lit (n bytes, n > 0) in [p, end), or NULL. */
const char *scan_find(const char *p, const char *end, const char *lit, size_t n);
/* The first byte c in [p, end), or NULL. */
const char *scan_chr(const char *p, const char *end, char c);

/* Decimal integer: an optional '-' (scan_long only), then 1 to 18 digits
 * (more digits: 0, nothing read; a longer number is not a value this tool
 * trusts).  1 and *v on success. */
int scan_long(const char **pp, const char *end, long *v);
int scan_u64(const char **pp, const char *end, uint64_t *v);
/* Decimal number: [-]digits[.digits][e[+-]digits] or [-].digits, at most 63
 * bytes; no hex, inf or nan.  1 and *v on success. */
int scan_double(const char **pp, const char *end, double *v);
/* A word: the bytes up to the first byte of stop (a C string of stop
 * bytes; NUL is always a stop) or end, at most max bytes.  Returns its
 * length (0: none) and advances *pp over it. */
size_t scan_word(const char **pp, const char *end, const char *stop, size_t max);

#endif
