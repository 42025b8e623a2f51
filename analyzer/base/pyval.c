/* pyval.c - see pyval.h.  A value's item array grows by copying into a
 * larger piece of the arena (the old piece is left unused), so a container
 * costs at most twice its final size. */
#include "base/pyval.h"

#include <stdlib.h>
#include <string.h>

#include "base/util.h"

struct pyval *pyval_new(struct arena *a, enum pyval_type t)
{
	struct pyval *v = arena_zalloc(a, sizeof *v);
	if (v)
		v->type = t;
	return v;
}

int pyval_push(struct arena *a, struct pyval *c, struct pyval *item)
{
	if (c->n >= c->cap) {
		uint32_t ncap = c->cap ? c->cap * 2 : 4;
		if (ncap < c->cap || ncap > (1u << 28))
			return -1;
		struct pyval **ni = arena_zalloc(a, (size_t)ncap * sizeof *ni);
		if (!ni)
			return -1;
		if (c->n)
			memcpy(ni, c->u.items, (size_t)c->n * sizeof *ni);
		c->u.items = ni;
		c->cap = ncap;
	}
	c->u.items[c->n++] = item;
	return 0;
}

const struct pyval *pyval_get(const struct pyval *d, const char *key)
{
	if (!d || d->type != PV_DICT)
		return NULL;
	const struct pyval *found = NULL;
	for (uint32_t i = 0; i + 1 < d->n; i += 2)
		if (pyval_str_is(d->u.items[i], key))
			found = d->u.items[i + 1];
	return found;
}

int pyval_str_is(const struct pyval *v, const char *s)
{
	size_t l = strlen(s);
	return v && v->type == PV_STR && v->n == l && memcmp(v->u.s, s, l) == 0;
}

int pyval_int(const struct pyval *v, int64_t *out)
{
	if (!v)
		return 0;
	if (v->type == PV_INT || v->type == PV_BOOL) {
		*out = v->u.i;
		return !v->big;
	}
	if (v->type == PV_FLOAT && v->u.f == (double)(int64_t)v->u.f && v->u.f > -9.2e18 && v->u.f < 9.2e18) {
		*out = (int64_t)v->u.f;
		return 1;
	}
	return 0;
}

struct pyval *const *pyval_items(const struct pyval *v, uint32_t *n)
{
	if (!v || (v->type != PV_LIST && v->type != PV_TUPLE)) {
		*n = 0;
		return NULL;
	}
	*n = v->n;
	return v->u.items;
}

struct pyval *pyval_from_json(struct arena *a, const cJSON *j, int depth)
{
	if (!j || depth <= 0)
		return NULL;
	struct pyval *v;
	if (cJSON_IsNull(j)) {
		v = pyval_new(a, PV_NONE);
	} else if (cJSON_IsBool(j)) {
		v = pyval_new(a, PV_BOOL);
		if (v)
			v->u.i = cJSON_IsTrue(j);
	} else if (cJSON_IsNumber(j)) {
		double d = j->valuedouble;
		int integral = d == (double)(int64_t)d && d > -9007199254740992.0 && d < 9007199254740992.0;
		v = pyval_new(a, integral ? PV_INT : PV_FLOAT);
		if (v && integral)
			v->u.i = (int64_t)d;
		else if (v)
			v->u.f = d;
	} else if (cJSON_IsString(j)) {
		v = pyval_new(a, PV_STR);
		size_t l = strlen(j->valuestring);
		char *s = v && l < (1u << 30) ? arena_zalloc(a, l + 1) : NULL;
		if (!s)
			return NULL;
		memcpy(s, j->valuestring, l);
		v->u.s = s;
		v->n = (uint32_t)l;
	} else if (cJSON_IsArray(j) || cJSON_IsObject(j)) {
		int obj = cJSON_IsObject(j);
		v = pyval_new(a, obj ? PV_DICT : PV_LIST);
		if (!v)
			return NULL;
		const cJSON *it;
		cJSON_ArrayForEach(it, j) {
			if (obj) {
				struct pyval *k = pyval_new(a, PV_STR);
				size_t l = it->string ? strlen(it->string) : 0;
				char *s = k && l < (1u << 30) ? arena_zalloc(a, l + 1) : NULL;
				if (!s)
					return NULL;
				memcpy(s, it->string ? it->string : "", l);
				k->u.s = s;
				k->n = (uint32_t)l;
				if (pyval_push(a, v, k) < 0)
					return NULL;
			}
			struct pyval *c = pyval_from_json(a, it, depth - 1);
			if (!c || pyval_push(a, v, c) < 0)
				return NULL;
		}
	} else {
		v = pyval_new(a, PV_NONE);
	}
	return v;
}
