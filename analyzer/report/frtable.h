/* frtable.h - the flight-recorder dumps of a bundle in every format, drawn
 * from the report document's "flight_recorder" section (parse/flight_json.c):
 * a short table of the ranks around the stop (text, Markdown) and a lane of
 * each such rank's last collectives with the stop marked (HTML).  Each
 * prints nothing when the bundle has no dumps. */
#ifndef NT_FRTABLE_H
#define NT_FRTABLE_H

#include <stdio.h>
#include <cjson/cJSON.h>

void flight_table_text(FILE *out, const cJSON *bundle, int color);
void flight_table_md(FILE *out, const cJSON *bundle);
/* esc writes text HTML-escaped (report_html.c's). */
void flight_lanes_html(FILE *out, const cJSON *bundle, void (*esc)(FILE *, const char *));

#endif
