/* sysparse.c - the small helpers the system-report parsers (parse_*.c),
 * the registry of their kinds (sysreport.c) and the rules over their facts share: line
 * iteration without ANSI escapes, facts getters and setters that record
 * sources, version comparison, size and time parsing.  Below the dispatcher
 * (sysreport.c): no parser calls back into it.  Facts are merged into the
 * caller's cJSON object (caller owns it); see docs/facts.md for the layout. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/scan.h"
#include "parse/sysparse.h"

/* ---------- lines ---------- */

void sys_lines_init(struct sys_lines *it, const char *text, size_t len)
{
	memset(it, 0, sizeof *it);
	it->p = text;
	it->end = text ? text + len : text;
}

void sys_lines_free(struct sys_lines *it)
{
	free(it->buf);
	it->buf = NULL;
	it->cap = 0;
}

char *sys_lines_next(struct sys_lines *it, size_t *n)
{
	if (!it->p || it->p >= it->end)
		return NULL;
	const char *s = it->p;
	const char *nl = memchr(s, '\n', (size_t)(it->end - s));
	const char *e = nl ? nl : it->end;
	it->p = nl ? nl + 1 : it->end;
	it->lineno++;
	size_t raw = (size_t)(e - s);
	size_t keep = raw > SYS_LINE_MAX ? SYS_LINE_MAX : raw;
	it->truncated = raw > SYS_LINE_MAX;
	if (it->cap < keep + 1) {
		it->cap = keep + 1;
		it->buf = xrealloc(it->buf, it->cap);
	}
	size_t o = 0;
	for (size_t i = 0; i < keep; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == 0x1b) {
			/* CSI: ESC [ params letter; other ESC x: drop both */
			if (i + 1 < keep && s[i + 1] == '[') {
				i += 2;
				while (i < keep && !isalpha((unsigned char)s[i]))
					i++;
			} else if (i + 1 < keep) {
				i++;
			}
			continue;
		}
		if (c == '\r')
			continue;
		if (c < 0x20 && c != '\t')
			c = ' ';
		it->buf[o++] = (char)c;
	}
	it->buf[o] = 0;
	if (n)
		*n = o;
	return it->buf;
}

size_t sys_split_ws(char *s, char **tok, size_t max)
{
	size_t n = 0;
	while (*s) {
		while (*s == ' ' || *s == '\t')
			s++;
		if (!*s)
			break;
		if (n < max)
			tok[n] = s;
		n++;
		while (*s && *s != ' ' && *s != '\t')
			s++;
		if (*s)
			*s++ = 0;
	}
	return n < max ? n : max;
}

char *sys_trim(char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	size_t n = strlen(s);
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		s[--n] = 0;
	return s;
}

size_t sys_split_tab(char *s, char **tok, size_t max)
{
	size_t n = 0;
	for (;;) {
		char *t = strchr(s, '\t');
		if (t)
			*t = 0;
		if (n < max)
			tok[n++] = sys_trim(s);
		if (!t)
			break;
		s = t + 1;
	}
	return n;
}

const char *sys_memcasestr(const char *s, size_t n, const char *needle)
{
	size_t k = strlen(needle);
	if (k == 0)
		return s;
	for (size_t i = 0; i + k <= n; i++)
		if (strncasecmp(s + i, needle, k) == 0)
			return s + i;
	return NULL;
}

/* ---------- JSON helpers ---------- */

cJSON *sys_source(const char *path, uint64_t line)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "path", path ? path : "");
	cJSON_AddNumberToObject(o, "line", (double)line);
	return o;
}

/* The first member of obj named key, moved to the end of obj; NULL when
 * there is none.  sys_put_source and sys_set_* update that node in place
 * when it has the type they would create: the same tree as deleting it and
 * adding a new one (which also goes last), without its free and malloc
 * calls (the line parsers update the same keys on every line). */
static cJSON *take_last(cJSON *obj, const char *key)
{
	cJSON *it = cJSON_GetObjectItemCaseSensitive(obj, key);
	if (it && it->next) { /* not last already */
		cJSON_DetachItemViaPointer(obj, it);
		cJSON_AddItemToArray(obj, it); /* keeps it->string, the key */
	}
	return it;
}

/* Deletes it (take_last's node, NULL or not): the node a first match
 * deletes when no two members share the key, and the right one when two do
 * (after take_last the first match may be the other one). */
static void drop(cJSON *obj, cJSON *it)
{
	if (it)
		cJSON_Delete(cJSON_DetachItemViaPointer(obj, it));
}

/* A plain string node (cJSON_SetValuestring refuses references). */
static int plain_string(const cJSON *it)
{
	return it && it->type == cJSON_String && it->valuestring;
}

/* 1 when v points into it's string: cJSON_SetValuestring copies with
 * strcpy, so v must be copied first. */
static int aliases(const cJSON *it, const char *v)
{
	uintptr_t a = (uintptr_t)it->valuestring, p = (uintptr_t)v;
	return p >= a && p <= a + strlen(it->valuestring);
}

void sys_put_source(cJSON *obj, const char *path, uint64_t line)
{
	cJSON *src = take_last(obj, "source");
	cJSON *p = src && src->type == cJSON_Object ? src->child : NULL;
	cJSON *l = p ? p->next : NULL;
	/* in place only when it is what sys_source makes: {"path": "...", "line": N} */
	if (!path)
		path = "";
	if (plain_string(p) && p->string && strcmp(p->string, "path") == 0 && !aliases(p, path) && l &&
	    !l->next && l->type == cJSON_Number && l->string && strcmp(l->string, "line") == 0) {
		cJSON_SetValuestring(p, path);
		cJSON_SetNumberHelper(l, (double)line);
		return;
	}
	drop(obj, src);
	cJSON_AddItemToObject(obj, "source", sys_source(path, line));
}

cJSON *sys_obj(cJSON *parent, const char *key)
{
	cJSON *o = cJSON_GetObjectItemCaseSensitive(parent, key);
	if (cJSON_IsObject(o))
		return o;
	if (o)
		cJSON_DeleteItemFromObjectCaseSensitive(parent, key);
	o = cJSON_CreateObject();
	cJSON_AddItemToObject(parent, key, o);
	return o;
}

cJSON *sys_arr(cJSON *parent, const char *key)
{
	cJSON *o = cJSON_GetObjectItemCaseSensitive(parent, key);
	if (cJSON_IsArray(o))
		return o;
	if (o)
		cJSON_DeleteItemFromObjectCaseSensitive(parent, key);
	o = cJSON_CreateArray();
	cJSON_AddItemToObject(parent, key, o);
	return o;
}

void sys_set_str(cJSON *obj, const char *key, const char *val)
{
	size_t n = strlen(val);
	cJSON *it = take_last(obj, key);
	/* s: str_sanitize's copy (freed here), or NULL when that would be val
	 * itself and val is not the node's own string */
	char *s = NULL;
	if (!str_sanitize_keeps(val, n) || (plain_string(it) && aliases(it, val)))
		s = str_sanitize(val, n);
	const char *v = s ? s : val;
	if (plain_string(it)) {
		cJSON_SetValuestring(it, v);
	} else {
		drop(obj, it);
		cJSON_AddStringToObject(obj, key, v);
	}
	free(s);
}

void sys_set_num(cJSON *obj, const char *key, double v)
{
	cJSON *it = take_last(obj, key);
	if (it && it->type == cJSON_Number) {
		cJSON_SetNumberHelper(it, v); /* valuedouble and valueint, as cJSON_CreateNumber sets them */
		return;
	}
	drop(obj, it);
	cJSON_AddNumberToObject(obj, key, v);
}

void sys_set_bool(cJSON *obj, const char *key, int v)
{
	cJSON *it = take_last(obj, key);
	if (it && (it->type == cJSON_True || it->type == cJSON_False)) {
		it->type = v ? cJSON_True : cJSON_False;
		return;
	}
	drop(obj, it);
	cJSON_AddBoolToObject(obj, key, v);
}

cJSON *sys_gpu(cJSON *facts, int index, int create)
{
	cJSON *gpus = create ? sys_arr(facts, "gpus") : cJSON_GetObjectItemCaseSensitive(facts, "gpus");
	cJSON *g;
	size_t pos = 0;
	cJSON_ArrayForEach(g, gpus) {
		double v;
		if (json_num(g, "index", &v)) {
			if ((int)v == index)
				return g;
			if ((int)v < index)
				pos++;
		}
	}
	if (!create)
		return NULL;
	g = cJSON_CreateObject();
	cJSON_AddNumberToObject(g, "index", index);
	/* keep the array sorted by index */
	cJSON *at = gpus->child;
	for (size_t i = 0; at && i < pos; i++)
		at = at->next;
	if (!at) {
		cJSON_AddItemToArray(gpus, g);
	} else {
		/* linked in by hand: Debian 12's cJSON 1.7.15 refuses
		 * cJSON_InsertItemInArray in the middle after an insert at 0
		 * (the GPU was lost and leaked).  cJSON keeps child->prev at the
		 * tail and tail->next NULL. */
		g->next = at;
		g->prev = at->prev;
		if (at == gpus->child)
			gpus->child = g;
		else
			g->prev->next = g;
		at->prev = g;
	}
	return g;
}

cJSON *sys_gpu_by_bus(cJSON *facts, const char *bus)
{
	const cJSON *gpus = cJSON_GetObjectItemCaseSensitive(facts, "gpus");
	if (!gpus || !gpus->child)
		return NULL; /* no GPU to find (a kernel log alone): the bus is not even read */
	char *want = sys_bus_norm(bus);
	if (!want)
		return NULL;
	cJSON *g, *found = NULL;
	cJSON_ArrayForEach(g, gpus) {
		const char *b = json_str(g, "bus_id");
		if (b && strcmp(b, want) == 0) {
			found = g;
			break;
		}
	}
	free(want);
	return found;
}

char *sys_bus_norm(const char *bus)
{
	if (!bus)
		return NULL;
	while (*bus == ' ')
		bus++;
	/* domain:bus:dev.fn with domain of 4 or 8 hex digits, or bus:dev.fn */
	unsigned long dom = 0, b, d, f;
	int n = 0;
	char tail;
	if (sscanf(bus, "%lx:%lx:%lx.%lx%n", &dom, &b, &d, &f, &n) == 4) {
	} else if (sscanf(bus, "%lx:%lx.%lx%n", &b, &d, &f, &n) == 3) {
		dom = 0;
	} else {
		return NULL;
	}
	tail = bus[n];
	if (tail && !isspace((unsigned char)tail) && tail != '"' && tail != ',' && tail != ')')
		return NULL;
	if (dom > 0xffffffffUL || b > 0xff || d > 0x1f || f > 7)
		return NULL;
	return xasprintf("%04lx:%02lx:%02lx.%lx", dom & 0xffff, b, d, f);
}

int sys_version_set(cJSON *facts, const char *key, const char *value,
                    const char *path, uint64_t line)
{
	if (!value || !*value)
		return 0;
	cJSON *v = sys_obj(facts, "versions");
	cJSON *cur = cJSON_GetObjectItemCaseSensitive(v, key);
	if (cur) {
		const char *old = json_str(cur, "value");
		size_t ol = old ? strlen(old) : 0, vl = strlen(value);
		/* "2.11.0" and "2.11.0+cu130" agree: keep the more specific one */
		if (old && vl > ol && !strncmp(old, value, ol) && value[ol] == '+') {
			sys_set_str(cur, "value", value);
			sys_put_source(cur, path, line);
			return 1;
		}
		if (old && ol > vl && !strncmp(old, value, vl) && old[vl] == '+')
			return 1;
		if (old && strcmp(old, value) != 0) {
			cJSON *c = cJSON_CreateObject();
			cJSON_AddStringToObject(c, "key", key);
			cJSON_AddStringToObject(c, "value", value);
			cJSON_AddStringToObject(c, "first", old);
			cJSON_AddItemToObject(c, "source", sys_source(path, line));
			cJSON_AddItemToArray(sys_arr(v, "conflicts"), c);
		}
		return 1; /* found: agreeing or conflicting */
	}
	cJSON *o = cJSON_CreateObject();
	char *s = str_sanitize(value, strlen(value));
	cJSON_AddStringToObject(o, "value", s);
	free(s);
	cJSON_AddItemToObject(o, "source", sys_source(path, line));
	cJSON_AddItemToObject(v, key, o);
	return 1;
}

int sys_package_set(cJSON *facts, const char *name, const char *version,
                    const char *path, uint64_t line)
{
	if (!name || !*name || !version || !*version)
		return 0;
	char *k = xstrdup(name);
	for (char *p = k; *p; p++) {
		*p = (char)tolower((unsigned char)*p);
		if (*p == '_' || *p == '.')
			*p = '-';
	}
	cJSON *pk = sys_obj(sys_obj(facts, "versions"), "packages");
	int added = 0;
	cJSON *cur = cJSON_GetObjectItemCaseSensitive(pk, k);
	if (!cur) {
		if (cJSON_GetArraySize(pk) < SYS_MAX_PACKAGES) {
			cJSON *o = cJSON_CreateObject();
			char *s = str_sanitize(version, strlen(version));
			cJSON_AddStringToObject(o, "version", s);
			free(s);
			cJSON_AddItemToObject(o, "source", sys_source(path, line));
			char *ks = str_sanitize(k, strlen(k));
			cJSON_AddItemToObject(pk, ks, o);
			free(ks);
			added = 1;
		}
	} else {
		const char *old = json_str(cur, "version");
		if (old && strcmp(old, version) != 0) {
			cJSON *c = cJSON_CreateObject();
			cJSON_AddStringToObject(c, "key", k);
			char *s = str_sanitize(version, strlen(version));
			cJSON_AddStringToObject(c, "value", s);
			free(s);
			cJSON_AddStringToObject(c, "first", old);
			cJSON_AddItemToObject(c, "source", sys_source(path, line));
			cJSON_AddItemToArray(sys_arr(sys_obj(facts, "versions"), "conflicts"), c);
		}
		added = 1;
	}
	free(k);
	return added;
}

/* ---------- numbers ---------- */

double sys_parse_mib_n(const char *s, const char *lim, const char **end)
{
	scan_blanks(&s, lim);
	double v;
	const char *e = s;
	if (!scan_double(&e, lim, &v) || !isfinite(v) || v < 0)
		return NAN;
	scan_blanks(&e, lim);
	static const struct {
		const char *u;
		size_t n;
		double mul;
	} units[] = {{"MiB", 3, 1}, {"GiB", 3, 1024}, {"KiB", 3, 1.0 / 1024}, {"TiB", 3, 1024.0 * 1024},
	             {"bytes", 5, 1.0 / (1024.0 * 1024)}, {"MB", 2, 1e6 / 1048576.0}, {"GB", 2, 1e9 / 1048576.0}};
	for (size_t i = 0; i < sizeof units / sizeof *units; i++)
		if ((size_t)(lim - e) >= units[i].n && !strncasecmp(e, units[i].u, units[i].n)) {
			if (end)
				*end = e + units[i].n;
			return v * units[i].mul;
		}
	return NAN;
}

int sys_decimal(const char *t, double *v)
{
	static const double P10[] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15};
	uint64_t m = 0;
	int nd = 0, frac = -1; /* digits after the '.'; -1: no '.' */
	if (!(*t >= '0' && *t <= '9'))
		return 0;
	for (const char *p = t; *p; p++) {
		if (*p >= '0' && *p <= '9') {
			if (++nd > 15)
				return 0;
			m = m * 10 + (uint64_t)(*p - '0');
			if (frac >= 0)
				frac++;
		} else if (*p == '.' && frac < 0) {
			frac = 0;
		} else {
			return 0;
		}
	}
	/* m < 10^15 < 2^53 and 10^frac are exact: one correctly rounded division */
	*v = frac > 0 ? (double)m / P10[frac] : (double)m;
	return 1;
}

int sys_hex3(const char *p, int end, unsigned v[3])
{
	const char *q = p;
	for (int i = 0; i < 3; i++) {
		const char *f = q;
		while (isxdigit((unsigned char)*q))
			q++;
		if (q == f || (i < 2 ? *q != ':' : end >= 0 && (unsigned char)*q != end))
			return 0;
		/* digits only, then a byte that is none: strtoul reads just them */
		v[i] = (unsigned)strtoul(f, NULL, 16);
		q++;
	}
	return (int)(q - p);
}

void sys_bdf(char out[13], unsigned dom, unsigned bus, unsigned dev)
{
	static const char HEX[] = "0123456789abcdef";
	const unsigned v[8] = {dom >> 12, dom >> 8, dom >> 4, dom, bus >> 4, bus, dev >> 4, dev};
	static const unsigned char AT[8] = {0, 1, 2, 3, 5, 6, 8, 9};
	for (int i = 0; i < 8; i++)
		out[AT[i]] = HEX[v[i] & 15];
	out[4] = out[7] = ':';
	out[10] = '.';
	out[11] = '0';
	out[12] = 0;
}

size_t sys_scan_until(const char *s, const char *stops, char *out, size_t cap)
{
	size_t n = 0;
	if (!stops[0] || !stops[1] || !stops[2]) {
		/* one or two stop bytes (most callers): compared inline, not a
		 * strchr a byte; b is 0 (the NUL, which stops anyway) for one */
		char a = stops[0], b = a ? stops[1] : 0;
		while (n + 1 < cap && s[n] && s[n] != a && s[n] != b)
			n++;
	} else {
		for (; n + 1 < cap && s[n]; n++)
			if (strchr(stops, s[n]))
				break;
	}
	memcpy(out, s, n);
	out[n] = 0;
	return n;
}

double sys_parse_mib(const char *s, const char **end)
{
	return sys_parse_mib_n(s, s + strlen(s), end);
}

int sys_has(const char *head, size_t len, const char *needle)
{
	return memmem(head, len, needle, strlen(needle)) != NULL;
}

int sys_lines_feed(const char *text, size_t len, sys_line_fn fn, void *ctx, int *nonblank)
{
	struct sys_lines it;
	char *line;
	int used = 0, total = 0;
	sys_lines_init(&it, text, len);
	while ((line = sys_lines_next(&it, NULL))) {
		char *s = sys_trim(line);
		if (!*s)
			continue;
		total++;
		used += fn(ctx, line, s, it.lineno);
	}
	sys_lines_free(&it);
	if (nonblank)
		*nonblank = total;
	return used;
}

int sys_lines_report(sys_line_parser f, const char *text, size_t len, const char *path, cJSON *facts,
                     struct msgs *m, const char *none)
{
	if (!text || !facts)
		return 0;
	int used = f(text, len, path, facts, NULL);
	if (!used && m)
		msgs_add(m, "%s: %s", path ? path : "", none);
	return used;
}

int sys_lines_mostly(sys_line_parser f, const char *head, size_t len)
{
	cJSON *scratch = cJSON_CreateObject();
	int total = 0;
	int used = f(head, len, "", scratch, &total);
	cJSON_Delete(scratch);
	return used >= 2 && used * 10 >= total * 7;
}
