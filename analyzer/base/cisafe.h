/* cisafe.h - output that is safe to print in a CI log.  GitHub's Actions
 * runner reads a workflow command in every line a step prints, on standard
 * output and standard error: "::name ...::" at the start of a line (after
 * blanks) and the legacy "##[name]" anywhere in a line.  A bundle's text
 * (document names, log lines: a log that came from a GitHub run holds
 * "##[error]" lines) must never become one: "##[" gets a character between
 * "##" and "[", a ":" that starts a line's "::" another after it, each in
 * the escape of the output's language (docs/formats.md, "What is safe to
 * print in a CI log").  Streaming: the state carries from one chunk to the
 * next (a "##[" split across two writes is found). */
#ifndef NT_CISAFE_H
#define NT_CISAFE_H

#include <stddef.h>
#include "base/util.h"

enum cisafe_kind {
	CISAFE_TEXT, /* text, Markdown, messages: U+200B (zero width space) in "##[" and a line-leading "::" */
	CISAFE_CMD,  /* our own workflow commands (--format github): "##[" only, our lines start with "::" */
	CISAFE_JSON, /* JSON, SARIF: "##\u005b" (a JSON escape: the string is unchanged); a line never starts
	                with "::" outside a string */
	CISAFE_XML   /* HTML, JUnit: "##&#91;", a line-leading "&#58;:" (character references) */
};

struct cisafe {
	enum cisafe_kind kind;
	int bol;     /* only blanks since the line began */
	int colon;   /* a ':' at the start of a line, held back */
	int hashes;  /* '#' just before (0..2) */
	size_t neutralised; /* commands made harmless (tests count them) */
};

void cisafe_init(struct cisafe *g, enum cisafe_kind kind);
/* in[0..n) made safe, appended to out. */
void cisafe_feed(struct cisafe *g, const char *in, size_t n, struct buf *out);
/* The end of the output: what is held back. */
void cisafe_end(struct cisafe *g, struct buf *out);
/* One string at once (a message of one line or more).  Caller frees. */
char *cisafe_str(const char *s, enum cisafe_kind kind);

#endif
