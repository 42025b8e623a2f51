/* json.h - reading cJSON trees: the one set of getters every layer uses
 * (facts, the report document, summaries, pattern files).  Every getter
 * takes NULL and values of the wrong type, and then answers "absent".
 * Returned pointers are borrowed from the tree. */
#ifndef NT_JSON_H
#define NT_JSON_H

#include <stdio.h>
#include <cjson/cJSON.h>

/* o[key] (case-sensitive), or NULL when o is NULL or has no such key.
 * Mutable like strchr's result: the caller decides whether it may write. */
cJSON *json_get(const cJSON *o, const char *key);
/* o[key] when it is a string, else NULL. */
const char *json_str(const cJSON *o, const char *key);
/* 1 and *out = o[key] when it is a number; 0 (and *out untouched) else. */
int json_num(const cJSON *o, const char *key, double *out);
/* Number of items of an array or object; 0 for anything else and NULL. */
int json_size(const cJSON *a);
/* json_str, "" when absent; json_num's value, 0 when absent (renderers). */
const char *json_strz(const cJSON *o, const char *key);
double json_numz(const cJSON *o, const char *key);

/* The 1-based line of JSON text where the value at path is named: the
 * line of the key of an object member, of the first byte of an array
 * element, 1 for "" or "$" (the whole document).  path is written as the
 * signature loader writes it: keys joined by '.', elements as "[i]"
 * ("diagnoses[3].when.nccl").  0 when the path is not in the text or the
 * text is not JSON (at most JSON_LINE_DEPTH levels deep are followed). */
#define JSON_LINE_DEPTH 256
size_t json_path_line(const char *text, size_t len, const char *path);
/* A path of a loader's message into dst (n bytes, cut like snprintf): a, b
 * and, when idx >= 0, "[idx]" ("signatures" "" 3 -> "signatures[3]", path
 * ".samples" 0 -> "signatures[3].samples[0]").  The loaders build one per
 * entry, for the messages of the few that fail: snprintf cost 2 M
 * instructions of each start-up. */
void json_path(char *dst, size_t n, const char *a, const char *b, long idx);

/* cJSON's allocations end like ours when memory runs out (util.h's
 * xmalloc): cJSON itself would return NULL and the caller would lose data
 * in silence.  Called once at start (main). */
void json_use_xmalloc(void);
/* Parse text into a tree that lives in an arena: one allocation per 64
 * KiB instead of one per node, and freed at once with json_arena_free
 * (the signature database's files: ~40000 nodes at every start-up).
 * Returns the tree and *arena, or NULL (a syntax error; *end as cJSON
 * sets it, cJSON_GetErrorPtr) with *arena NULL.  The tree is read-only
 * to its users: never cJSON_Delete it, nor add to it or detach from it
 * (cJSON_Duplicate makes an ordinary copy).  Thread-safe: the arena is
 * the calling thread's while it parses. */
struct json_arena;
cJSON *json_parse_arena(struct json_arena **arena, const char *text, size_t len, const char **end);
/* The same within max bytes of tree (0: no bound): a text whose tree needs
 * more is refused (NULL, *over set), so memory follows a count, not the
 * shape of hostile JSON (`merge`: 64 bytes a node, [{},{},...] is 21 times
 * its text). */
cJSON *json_parse_arena_max(struct json_arena **arena, const char *text, size_t len, size_t max, int *over);
void json_arena_free(struct json_arena *a);
/* A scope of one owner's trees (a bundle's facts in batch): from
 * json_arena_enter(a) until json_arena_enter(the previous arena it
 * returned), every node and string cJSON allocates on this thread comes
 * from a (json_arena_new: no bound) and what cJSON frees in the scope is
 * recycled there (a pointer from before the scope is freed);
 * json_arena_free(a) frees them all at once, with no walk of the trees.
 * So nothing that outlives a may be allocated in the scope, no block of a
 * may be freed outside a scope of a, and no text cJSON_Print makes in it
 * may be passed to free(). */
struct json_arena *json_arena_new(void);
struct json_arena *json_arena_enter(struct json_arena *a);
/* json_parse_arena's tree, built without cJSON: the same nodes (type,
 * names, values, links) for every text cJSON 1.7 parses, ~5 times faster
 * (the signature database at start-up).  A text it does not take goes
 * to cJSON (json_parse_arena), so a syntax error, *end and
 * cJSON_GetErrorPtr are cJSON's own.  *arena NULL: a new arena; else an
 * arena of an earlier parse whose tree is no longer used: emptied and
 * reused (its memory), or freed when the parse fails. */
cJSON *json_parse_arena_fast(struct json_arena **arena, const char *text, size_t len, const char **end);
/* The fast parser alone: NULL (and *arena NULL) where it hands the text
 * to cJSON (tests: tests/unit/test_json.c). */
cJSON *json_parse_fast_only(struct json_arena **arena, const char *text, size_t len, const char **end);
/* cJSON_Print(doc)'s text, byte for byte (formatted: tabs, "key":\tvalue,
 * ", " between the elements of an array; numbers as cJSON 1.7.15 prints
 * them), written to out as it is made: no copy of the whole text in memory
 * (analyze's JSON report), no allocation per value, integers without
 * printf.  Returns 0, or -1 where cJSON_Print would return NULL (a raw
 * value without text, an unknown type; what came before it is written).
 * A write error is left in ferror(out). */
int json_print_file(FILE *out, const cJSON *doc);

#endif
