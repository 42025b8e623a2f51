/* formats.h - the one registry of output formats: which command offers
 * which format, and how analyze renders each from the report document
 * (report.h).  --help, the "unknown format" messages and every command's
 * check of --format read this table; a format a command does not list here
 * is refused by that command, never silently rendered as another. */
#ifndef NT_FORMATS_H
#define NT_FORMATS_H

#include <stdio.h>
#include <cjson/cJSON.h>
#include "base/cisafe.h"

struct report_opts;

struct format {
	const char *name;
	unsigned cmds;  /* the commands (CMD_* of cli.h) that offer it; the first listed is the default */
	/* analyze: render the report document; NULL for formats of other commands */
	void (*render)(FILE *out, const cJSON *doc, const struct report_opts *o);
	int more_evidence; /* the renderer shows --evidence N lines (text, md) */
	int ci;            /* a CI format: --quiet-info leaves info findings out */
};

extern const struct format FORMATS[];

/* How text is made safe for a CI log in format f (cisafe.h: the escapes of
 * its language). */
enum cisafe_kind format_cisafe(const struct format *f);

/* The format name of cmd (NULL: the command's default), or NULL with a
 * message on stderr ("nccl-triage CMD: unknown format 'x' (text, json)"). */
const struct format *format_pick(const char *name, unsigned cmd, const char *cmdname);
/* "text (default), json, md" for cmd (with_default: mark the default).
 * Caller frees. */
char *format_list(unsigned cmd, int with_default);

#endif
