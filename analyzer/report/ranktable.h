/* ranktable.h - the ranks of a bundle side by side: rank, host, pid, GPU,
 * furthest milestone, first error, exit.  One row per process, sorted by
 * rank; the rank that failed first is marked.  Rendered from a bundle's
 * object of the report document ("ranks", "communicators"). */
#ifndef NT_RANKTABLE_H
#define NT_RANKTABLE_H

#include <stdio.h>
#include <cjson/cJSON.h>

/* Text table (ANSI colour when color is set); prints nothing without ranks. */
void rank_table_text(FILE *out, const cJSON *bundle, int color);
/* Markdown table; prints nothing without ranks. */
void rank_table_md(FILE *out, const cJSON *bundle);
/* One Markdown table cell " text |", the text escaped (frtable.c uses it too). */
void ranktable_md_cell(FILE *out, const char *s);

#endif
