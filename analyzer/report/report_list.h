/* report_list.h - the lists that the text and Markdown reports both print
 * (fix steps, information notes, warnings): the heading before the first
 * item and nothing when there is none, each item after its indent and
 * marker, at most cap items, the tail after the last.  Each format brings
 * its own strings and escaping; the walk is one piece of code. */
#ifndef NT_REPORT_LIST_H
#define NT_REPORT_LIST_H

#include <stddef.h>
#include <stdio.h>
#include <cjson/cJSON.h>

struct report_list {
	const char *head;   /* before the first item */
	const char *indent; /* before each item's marker */
	const char *marker; /* "- ", "" for none; NULL: numbered "1. ", "2. "... */
	/* the item: a string item's text through put (as it is when put is
	 * NULL; a non-string item is empty), or, when item is set, whatever
	 * item prints (without the newline); keep, when set, skips the items
	 * it refuses */
	void (*put)(FILE *out, const char *s);
	void (*item)(FILE *out, const cJSON *it, const void *ctx);
	int (*keep)(const cJSON *it);
	const void *ctx;    /* item's */
	size_t cap;         /* items shown at most; 0: every one */
	const char *tail;   /* after the last item */
};

/* keep for the information notes: a diagnosis of severity info */
int report_is_info(const cJSON *d);

/* Print the items of the array items as l says; returns how many. */
size_t report_list(FILE *out, const struct report_list *l, const cJSON *items);

#endif
