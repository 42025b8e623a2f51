/* fuzz_pickle.c - the safe pickle reader (base/pickle.c) and the
 * flight-recorder reader over it (parse/flight*.c).  Any bytes are a pickle:
 * pickle_read either returns a tree or one printable line with an offset
 * inside the input; the tree is walked (bounded depth) to check it is
 * acyclic and its strings lie inside the input.  The same bytes, and a
 * PROTO-2 header in front of them, also go through flight_add_doc as a
 * dump document (pickle or JSON by its head) and flight_finish, whose JSON
 * section must print and every message must be one line naming the file. */
#include <cjson/cJSON.h>

#include "base/pickle.h"
#include "fuzz_common.h"
#include "parse/flight.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static size_t walk(const struct pyval *v, const uint8_t *lo, const uint8_t *hi, int depth)
{
	FUZZ_ASSERT(depth <= PYVAL_WALK_DEPTH);
	size_t n = 1;
	switch (v->type) {
	case PV_STR:
	case PV_BYTES:
		FUZZ_ASSERT(v->n == 0 || ((const uint8_t *)v->u.s >= lo && (const uint8_t *)v->u.s + v->n <= hi));
		break;
	case PV_LIST:
	case PV_TUPLE:
	case PV_SET:
	case PV_DICT:
		FUZZ_ASSERT(v->type != PV_DICT || v->n % 2 == 0);
		for (uint32_t i = 0; i < v->n && n < 100000; i++)
			n += walk(v->u.items[i], lo, hi, depth + 1);
		break;
	default:
		break;
	}
	return n;
}

static void as_dump(const char *name, const char *p, size_t n)
{
	struct flight *f = flight_new();
	struct msgs m = {0};
	flight_add_doc(f, name, p, n, 1, &m);
	flight_add_doc(f, "fuzz/nccl_trace_rank_1", p, n, 0, &m);
	flight_finish(f, NULL);
	cJSON *j = flight_json(f);
	if (j) {
		char *s = cJSON_PrintUnformatted(j);
		FUZZ_ASSERT(s != NULL);
		free(s);
		cJSON_Delete(j);
	}
	for (size_t i = 0; i < m.list.n; i++) {
		FUZZ_ASSERT(strchr(m.list.v[i], '\n') == NULL);
		FUZZ_ASSERT(strncmp(m.list.v[i], "fuzz/", 5) == 0);
	}
	msgs_free(&m);
	flight_free(f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *buf = malloc(size ? size : 1); /* exact size: nothing to lean on past the end */
	memcpy(buf, data, size);
	struct arena a = {.max = 64u << 20};
	struct pickle_error err;
	struct pyval *root = pickle_read(&a, buf, size, NULL, &err);
	if (root) {
		walk(root, buf, buf + size, 0);
	} else {
		FUZZ_ASSERT(strncmp(err.msg, "offset ", 7) == 0);
		FUZZ_ASSERT(err.offset <= size);
		for (const char *c = err.msg; *c; c++)
			FUZZ_ASSERT((unsigned char)*c >= 0x20 && (unsigned char)*c < 0x7f);
	}
	arena_free(&a);
	as_dump("fuzz/rank_0", (const char *)buf, size);
	char *pre = malloc(size + 2);
	pre[0] = (char)0x80;
	pre[1] = 2;
	memcpy(pre + 2, buf, size);
	as_dump("fuzz/nccl_trace_rank_0", pre, size + 2);
	free(pre);
	free(buf);
	return 0;
}
