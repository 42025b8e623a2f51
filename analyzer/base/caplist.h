/* caplist.h - named values: a finding's captures ({name} in a diagnosis's
 * text is the value of the capture "name").  A struct caplist is the one
 * list they are built in (the fact rules, the flight recorder): it owns
 * every name and value until caplist_free, which empties it for the next
 * finding; the evidence that takes them copies them again.  Past
 * CAPLIST_MAX a capture is dropped (no finding names that many). */
#ifndef NT_CAPLIST_H
#define NT_CAPLIST_H

#include <stddef.h>
#include "base/util.h"

struct capture {
	char *name, *value;
};

#define CAPLIST_MAX 16
struct caplist {
	struct capture v[CAPLIST_MAX];
	size_t n;
};
void caplist_add(struct caplist *c, const char *name, const char *fmt, ...) NT_PRINTF(3, 4);
/* The same with a value already allocated: the list takes it. */
void caplist_take(struct caplist *c, const char *name, char *value);
void caplist_free(struct caplist *c);

#endif
