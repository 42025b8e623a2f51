/* caplist.c - see caplist.h. */
#include "base/caplist.h"

#include <stdarg.h>
#include <stdlib.h>

void caplist_take(struct caplist *c, const char *name, char *value)
{
	if (c->n >= CAPLIST_MAX) {
		free(value);
		return;
	}
	c->v[c->n].name = xstrdup(name);
	c->v[c->n].value = value;
	c->n++;
}

void caplist_add(struct caplist *c, const char *name, const char *fmt, ...)
{
	if (c->n >= CAPLIST_MAX)
		return;
	va_list ap;
	va_start(ap, fmt);
	char *v = xvasprintf(fmt, ap);
	va_end(ap);
	caplist_take(c, name, v);
}

void caplist_free(struct caplist *c)
{
	for (size_t i = 0; i < c->n; i++) {
		free(c->v[i].name);
		free(c->v[i].value);
	}
	c->n = 0;
}
