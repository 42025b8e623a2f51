/* pyval.h - a tree of plain data values (None, bool, int, float, str,
 * bytes, list, tuple, set, dict) in one arena: what the safe pickle reader
 * (pickle.h) and a JSON document (pyval_from_json) both give, so that one
 * walker reads a flight-recorder dump in either form.
 *
 * Values live in a base/arena (arena.h) and are freed with it (arena_free,
 * arena_reset); nothing else owns memory.  Its cap (max) bounds a tree from
 * untrusted input: past it pyval_new, pyval_push, pyval_from_json and
 * pickle_read fail.  Pickle memo references make the tree a DAG (a value may
 * be shared; pickle.c refuses what would make a cycle); a walker still bounds
 * its depth (PYVAL_WALK_DEPTH) and never follows values it does not expect.
 * Strings keep their bytes as given (not sanitised, not NUL-terminated: use
 * len); a pickle's point into its input. */
#ifndef NT_PYVAL_H
#define NT_PYVAL_H

#include <stddef.h>
#include <stdint.h>
#include <cjson/cJSON.h>

#include "base/arena.h"

enum pyval_type { PV_NONE, PV_BOOL, PV_INT, PV_FLOAT, PV_STR, PV_BYTES, PV_LIST, PV_TUPLE, PV_SET, PV_DICT };

struct pyval {
	enum pyval_type type;
	uint32_t n;              /* items (list, tuple, set; a dict: 2 per pair), bytes (str, bytes) */
	uint32_t cap;            /* containers: room in items */
	uint8_t big;             /* PV_INT: the pickled integer did not fit 64 bits (i is clamped) */
	uint8_t frozen;          /* pickle.c: placed inside another container, no longer changed */
	uint16_t depth;          /* pickle.c: nesting below it (0 for a scalar) */
	union {
		int64_t i;           /* bool (0/1), int */
		double f;
		const char *s;       /* str, bytes: n bytes */
		struct pyval **items; /* list, tuple, set: n; dict: n = 2 per pair, key then value */
	} u;
};

/* Bounded depth for every walker of a tree from untrusted input. */
#define PYVAL_WALK_DEPTH 64

/* A new value of type t (a container with no items); NULL past the cap. */
struct pyval *pyval_new(struct arena *a, enum pyval_type t);
/* Append item (and for a dict, key then value with two calls); 0 or -1 past the cap. */
int pyval_push(struct arena *a, struct pyval *c, struct pyval *item);

/* Dict lookup by a str key (the last one wins, as in Python); NULL when
 * d is not a dict or has no such key. */
const struct pyval *pyval_get(const struct pyval *d, const char *key);
/* Whether v is a str equal to s. */
int pyval_str_is(const struct pyval *v, const char *s);
/* An int (or bool, or an integral float) as int64; 1 when v is one. */
int pyval_int(const struct pyval *v, int64_t *out);
/* Items of a list or tuple (NULL, *n = 0 for anything else). */
struct pyval *const *pyval_items(const struct pyval *v, uint32_t *n);

/* The same tree from a cJSON value (objects become dicts with str keys,
 * arrays lists, numbers int when integral and within 2^53, else float).
 * depth bounds the nesting; NULL past it or past the arena's cap. */
struct pyval *pyval_from_json(struct arena *a, const cJSON *j, int depth);

#endif
