/* pickle.c - see pickle.h.  A stack machine over the data opcodes only.
 * Every read is checked against the end of the input; every value comes
 * from the arena (its byte cap bounds the count); a container is frozen
 * when it is placed in another one, so the result is acyclic and its depth
 * is known at each insertion. */
#include "base/pickle.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"

void pickle_limits_default(struct pickle_limits *l)
{
	l->max_depth = 32;
	l->max_stack = 1u << 20;
	l->max_marks = 64;
	l->max_str = 4u << 20;
	l->max_memo = 1u << 22;
}

static const struct {
	unsigned char op;
	const char *name;
} NAMES[] = {
	{'(', "MARK"}, {'.', "STOP"}, {'0', "POP"}, {'1', "POP_MARK"}, {'2', "DUP"}, {'F', "FLOAT"},
	{'I', "INT"}, {'J', "BININT"}, {'K', "BININT1"}, {'L', "LONG"}, {'M', "BININT2"}, {'N', "NONE"},
	{'P', "PERSID"}, {'Q', "BINPERSID"}, {'R', "REDUCE"}, {'S', "STRING"}, {'T', "BINSTRING"},
	{'U', "SHORT_BINSTRING"}, {'V', "UNICODE"}, {'X', "BINUNICODE"}, {'a', "APPEND"}, {'b', "BUILD"},
	{'c', "GLOBAL"}, {'d', "DICT"}, {'}', "EMPTY_DICT"}, {'e', "APPENDS"}, {'g', "GET"}, {'h', "BINGET"},
	{'i', "INST"}, {'j', "LONG_BINGET"}, {'l', "LIST"}, {']', "EMPTY_LIST"}, {'o', "OBJ"}, {'p', "PUT"},
	{'q', "BINPUT"}, {'r', "LONG_BINPUT"}, {'s', "SETITEM"}, {'t', "TUPLE"}, {')', "EMPTY_TUPLE"},
	{'u', "SETITEMS"}, {'G', "BINFLOAT"}, {0x80, "PROTO"}, {0x81, "NEWOBJ"}, {0x82, "EXT1"},
	{0x83, "EXT2"}, {0x84, "EXT4"}, {0x85, "TUPLE1"}, {0x86, "TUPLE2"}, {0x87, "TUPLE3"},
	{0x88, "NEWTRUE"}, {0x89, "NEWFALSE"}, {0x8a, "LONG1"}, {0x8b, "LONG4"}, {'B', "BINBYTES"},
	{'C', "SHORT_BINBYTES"}, {0x8c, "SHORT_BINUNICODE"}, {0x8d, "BINUNICODE8"}, {0x8e, "BINBYTES8"},
	{0x8f, "EMPTY_SET"}, {0x90, "ADDITEMS"}, {0x91, "FROZENSET"}, {0x92, "NEWOBJ_EX"},
	{0x93, "STACK_GLOBAL"}, {0x94, "MEMOIZE"}, {0x95, "FRAME"}, {0x96, "BYTEARRAY8"},
	{0x97, "NEXT_BUFFER"}, {0x98, "READONLY_BUFFER"},
};

const char *pickle_opcode_name(unsigned char op)
{
	for (size_t i = 0; i < sizeof NAMES / sizeof *NAMES; i++)
		if (NAMES[i].op == op)
			return NAMES[i].name;
	return NULL;
}

struct pk {
	struct arena *a;
	const struct pickle_limits *lim;
	const unsigned char *p, *end, *base;
	struct pyval **stack;
	size_t nstack, capstack;
	size_t *marks;
	size_t nmarks;
	struct pyval **memo;
	size_t capmemo, nmemo; /* nmemo: MEMOIZE's next index (the memo's size) */
	struct pickle_error *err;
	size_t at;             /* offset of the current opcode */
	int failed;
};

static int fail(struct pk *k, const char *fmt, ...) NT_PRINTF(2, 3);
static int fail(struct pk *k, const char *fmt, ...)
{
	if (k->failed)
		return -1;
	k->failed = 1;
	k->err->offset = k->at;
	int w = snprintf(k->err->msg, sizeof k->err->msg, "offset %zu: ", k->at);
	va_list ap;
	va_start(ap, fmt);
	if (w > 0 && (size_t)w < sizeof k->err->msg)
		vsnprintf(k->err->msg + w, sizeof k->err->msg - (size_t)w, fmt, ap);
	va_end(ap);
	for (char *c = k->err->msg; *c; c++) /* one printable line whatever a name held */
		if ((unsigned char)*c < 0x20 || (unsigned char)*c >= 0x7f)
			*c = '?';
	return -1;
}

static int need(struct pk *k, size_t n, const char *what)
{
	if ((size_t)(k->end - k->p) < n)
		return fail(k, "%s needs %zu more bytes but the data ends at offset %zu (a cut or damaged file)",
		            what, n, (size_t)(k->end - k->base));
	return 0;
}

static uint64_t le(const unsigned char *p, size_t n)
{
	uint64_t v = 0;
	for (size_t i = 0; i < n; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

static int push(struct pk *k, struct pyval *v)
{
	if (!v)
		return fail(k, "more values than the memory cap allows (%zu bytes)", k->a->max);
	if (k->nstack >= k->lim->max_stack)
		return fail(k, "more than %zu values on the stack", k->lim->max_stack);
	if (k->nstack == k->capstack) {
		k->capstack = k->capstack ? k->capstack * 2 : 64;
		k->stack = xrealloc(k->stack, k->capstack * sizeof *k->stack);
	}
	k->stack[k->nstack++] = v;
	return 0;
}

static struct pyval *pop(struct pk *k, const char *what)
{
	size_t floor = k->nmarks ? k->marks[k->nmarks - 1] : 0;
	if (k->nstack <= floor) {
		fail(k, "%s with no value on the stack%s", what, k->nmarks ? " above the mark" : "");
		return NULL;
	}
	return k->stack[--k->nstack];
}

static struct pyval *top(struct pk *k, const char *what)
{
	size_t floor = k->nmarks ? k->marks[k->nmarks - 1] : 0;
	if (k->nstack <= floor) {
		fail(k, "%s with no value on the stack", what);
		return NULL;
	}
	return k->stack[k->nstack - 1];
}

/* Put item into container c (checked: c is a container not yet frozen). */
static int add_item(struct pk *k, struct pyval *c, struct pyval *item)
{
	if (item == c)
		return fail(k, "a container placed inside itself (refused: a cycle)");
	if (item->depth + 1 > k->lim->max_depth)
		return fail(k, "values nested more than %d deep", k->lim->max_depth);
	item->frozen = 1;
	if (pyval_push(k->a, c, item) < 0)
		return fail(k, "more values than the memory cap allows (%zu bytes)", k->a->max);
	if (item->depth + 1 > c->depth)
		c->depth = (uint16_t)(item->depth + 1);
	return 0;
}

static int mutable_container(struct pk *k, struct pyval *c, enum pyval_type t, const char *op)
{
	if (!c)
		return -1;
	if (c->type != t && !(t == PV_LIST && c->type == PV_SET))
		return fail(k, "%s on a value that is not a %s", op, t == PV_DICT ? "dict" : "list");
	if (c->frozen)
		return fail(k, "%s changes a container already placed inside another one (refused: it could make a cycle)", op);
	return 0;
}

/* The values above the top mark, and the mark removed. */
static struct pyval **pop_mark(struct pk *k, size_t *n, const char *what)
{
	if (!k->nmarks) {
		fail(k, "%s without a MARK", what);
		return NULL;
	}
	size_t m = k->marks[--k->nmarks];
	*n = k->nstack - m;
	k->nstack = m;
	return k->stack + m;
}

static int memo_put(struct pk *k, uint64_t idx, const char *op)
{
	struct pyval *v = top(k, op);
	if (!v)
		return -1;
	if (idx >= k->lim->max_memo)
		return fail(k, "%s index %llu above the memo cap (%zu)", op, (unsigned long long)idx, k->lim->max_memo);
	if (idx >= k->capmemo) {
		size_t nc = k->capmemo ? k->capmemo : 256;
		while (nc <= idx)
			nc *= 2;
		k->memo = xrealloc(k->memo, nc * sizeof *k->memo);
		memset(k->memo + k->capmemo, 0, (nc - k->capmemo) * sizeof *k->memo);
		k->capmemo = nc;
	}
	k->memo[idx] = v;
	if (idx >= k->nmemo)
		k->nmemo = idx + 1;
	return 0;
}

static int memo_get(struct pk *k, uint64_t idx, const char *op)
{
	if (idx >= k->capmemo || !k->memo[idx])
		return fail(k, "%s of memo index %llu that was never stored", op, (unsigned long long)idx);
	return push(k, k->memo[idx]);
}

static struct pyval *str_val(struct pk *k, enum pyval_type t, uint64_t len, const char *op)
{
	if (len > k->lim->max_str) {
		fail(k, "%s of %llu bytes, above the cap of %zu", op, (unsigned long long)len, k->lim->max_str);
		return NULL;
	}
	if (need(k, (size_t)len, op) < 0)
		return NULL;
	struct pyval *v = pyval_new(k->a, t);
	if (!v) {
		fail(k, "more values than the memory cap allows (%zu bytes)", k->a->max);
		return NULL;
	}
	v->u.s = (const char *)k->p;
	v->n = (uint32_t)len;
	k->p += len;
	return v;
}

/* The text argument of a protocol-0 opcode: up to '\n' (at most 64 bytes). */
static int text_arg(struct pk *k, char *out, size_t outsz, const char *op)
{
	const unsigned char *nl = memchr(k->p, '\n', (size_t)(k->end - k->p) < 80 ? (size_t)(k->end - k->p) : 80);
	if (!nl || (size_t)(nl - k->p) >= outsz)
		return fail(k, "%s without its newline-terminated argument", op);
	memcpy(out, k->p, (size_t)(nl - k->p));
	out[nl - k->p] = 0;
	k->p = nl + 1;
	return 0;
}

static int int_val(struct pk *k, int64_t v)
{
	struct pyval *x = pyval_new(k->a, PV_INT);
	if (x)
		x->u.i = v;
	return push(k, x);
}

/* LONG1 / LONG4: n bytes, little-endian two's complement. */
static int long_val(struct pk *k, uint64_t n, const char *op)
{
	if (n >= 1u << 30)
		return fail(k, "%s of %llu bytes", op, (unsigned long long)n);
	if (need(k, (size_t)n, op) < 0)
		return -1;
	struct pyval *x = pyval_new(k->a, PV_INT);
	if (x && n > 0) {
		int neg = (k->p[n - 1] & 0x80) != 0;
		size_t sig = (size_t)n; /* significant bytes: strip sign-extension bytes */
		while (sig > 1 && k->p[sig - 1] == (neg ? 0xff : 0x00) && ((k->p[sig - 2] & 0x80) != 0) == neg)
			sig--;
		if (sig > 8) {
			x->big = 1;
			x->u.i = neg ? INT64_MIN : INT64_MAX;
		} else {
			uint64_t u = le(k->p, sig);
			if (neg && sig < 8)
				u |= ~(uint64_t)0 << (8 * sig);
			x->u.i = (int64_t)u;
		}
	}
	k->p += n;
	return push(k, x);
}

static int make_seq(struct pk *k, enum pyval_type t, struct pyval **items, size_t n)
{
	struct pyval *c = pyval_new(k->a, t);
	if (!c)
		return push(k, NULL);
	for (size_t i = 0; i < n; i++)
		if (add_item(k, c, items[i]) < 0)
			return -1;
	return push(k, c);
}

static int refused(struct pk *k, unsigned char op)
{
	const char *name = pickle_opcode_name(op);
	if (op == 'c' || op == 'i') { /* GLOBAL / INST: "module\nname\n" */
		char mod[96] = "", nm[96] = "";
		const unsigned char *q = k->p, *e = k->end;
		for (int part = 0; part < 2; part++) {
			char *dst = part ? nm : mod;
			size_t j = 0;
			while (q < e && *q != '\n' && j < 95)
				dst[j++] = (char)*q++;
			dst[j] = 0;
			if (q < e && *q == '\n')
				q++;
		}
		return fail(k, "%s (0x%02x) names the Python global %s.%s: refused, this reader reads data only and never "
		            "imports or calls anything", name, op, mod, nm);
	}
	return fail(k, "%s (0x%02x) %s: refused, this reader reads data only and never imports or calls anything", name, op,
	            op == 0x93 ? "names a Python global" : op == 'R' || op == 'b' || op == 0x81 || op == 0x92 || op == 'o'
	                             ? "builds or calls an object"
	                             : op == 'P' || op == 'Q' ? "asks for a persistent object"
	                             : op == 0x97 || op == 0x98 ? "asks for an out-of-band buffer"
	                                                        : "asks for a registered extension object");
}

/* One opcode of the data subset; 1 at STOP. */
static int step_data(struct pk *k, unsigned char op);

static int step(struct pk *k)
{
	k->at = (size_t)(k->p - k->base);
	if (k->p >= k->end)
		return fail(k, "the data ends without STOP (a cut or damaged file)");
	unsigned char op = *k->p++;
	switch (op) {
	case 'c': case 0x93: case 'R': case 'b': case 'i': case 'o': case 0x81: case 0x92:
	case 'P': case 'Q': case 0x82: case 0x83: case 0x84: case 0x97: case 0x98:
		return refused(k, op);
	case 'S': case 'V':
		return fail(k, "%s (0x%02x), the escaped text strings of protocol 0, is not supported", pickle_opcode_name(op), op);
	default:
		return step_data(k, op);
	}
}

static int step_seq(struct pk *k, unsigned char op)
{
	size_t n;
	struct pyval **items, *v, *c;
	switch (op) {
	case ']': return push(k, pyval_new(k->a, PV_LIST));
	case ')': return push(k, pyval_new(k->a, PV_TUPLE));
	case '}': return push(k, pyval_new(k->a, PV_DICT));
	case 0x8f: return push(k, pyval_new(k->a, PV_SET));
	case 'l': case 't': case 0x91: case 'd':
		if (!(items = pop_mark(k, &n, pickle_opcode_name(op))))
			return -1;
		if (op == 'd') {
			if (n % 2)
				return fail(k, "DICT with an odd number of values");
			return make_seq(k, PV_DICT, items, n);
		}
		return make_seq(k, op == 'l' ? PV_LIST : op == 't' ? PV_TUPLE : PV_SET, items, n);
	case 0x85: case 0x86: case 0x87:
		n = (size_t)(op - 0x84);
		if (k->nstack < n + (k->nmarks ? k->marks[k->nmarks - 1] : 0))
			return fail(k, "%s with fewer than %zu values on the stack", pickle_opcode_name(op), n);
		k->nstack -= n;
		return make_seq(k, PV_TUPLE, k->stack + k->nstack, n);
	case 'a':
		if (!(v = pop(k, "APPEND")) || mutable_container(k, c = top(k, "APPEND"), PV_LIST, "APPEND") < 0)
			return -1;
		return add_item(k, c, v);
	case 'e': case 0x90:
		if (!(items = pop_mark(k, &n, pickle_opcode_name(op))))
			return -1;
		if (mutable_container(k, c = top(k, pickle_opcode_name(op)), op == 'e' ? PV_LIST : PV_SET, pickle_opcode_name(op)) < 0)
			return -1;
		for (size_t i = 0; i < n; i++)
			if (add_item(k, c, items[i]) < 0)
				return -1;
		return 0;
	case 's': {
		struct pyval *val = pop(k, "SETITEM"), *key = val ? pop(k, "SETITEM") : NULL;
		if (!key || mutable_container(k, c = top(k, "SETITEM"), PV_DICT, "SETITEM") < 0)
			return -1;
		return add_item(k, c, key) < 0 ? -1 : add_item(k, c, val);
	}
	case 'u':
		if (!(items = pop_mark(k, &n, "SETITEMS")))
			return -1;
		if (n % 2)
			return fail(k, "SETITEMS with an odd number of values");
		if (mutable_container(k, c = top(k, "SETITEMS"), PV_DICT, "SETITEMS") < 0)
			return -1;
		for (size_t i = 0; i < n; i++)
			if (add_item(k, c, items[i]) < 0)
				return -1;
		return 0;
	default:
		return fail(k, "byte 0x%02x is not a pickle opcode", op);
	}
}

static int step_data(struct pk *k, unsigned char op)
{
	char t[96];
	struct pyval *v;
	switch (op) {
	case 0x80:
		if (need(k, 1, "PROTO") < 0)
			return -1;
		if (*k->p > 5)
			return fail(k, "protocol %u is newer than 5", *k->p);
		k->p++;
		return 0;
	case 0x95:
		if (need(k, 8, "FRAME") < 0)
			return -1;
		if (le(k->p, 8) > (uint64_t)(k->end - k->p - 8))
			return fail(k, "FRAME of %llu bytes runs past the end of the data (offset %zu)",
			            (unsigned long long)le(k->p, 8), (size_t)(k->end - k->base));
		k->p += 8;
		return 0;
	case '.':
		if (k->nmarks)
			return fail(k, "STOP with a MARK still open");
		if (k->nstack != 1)
			return fail(k, "STOP with %zu values on the stack (1 expected)", k->nstack);
		return 1;
	case '(':
		if (k->nmarks >= k->lim->max_marks)
			return fail(k, "more than %zu MARKs open", k->lim->max_marks);
		k->marks = xrealloc(k->marks, (k->nmarks + 1) * sizeof *k->marks);
		k->marks[k->nmarks++] = k->nstack;
		return 0;
	case '0': return pop(k, "POP") ? 0 : -1;
	case '1': { size_t n; return pop_mark(k, &n, "POP_MARK") ? 0 : -1; }
	case '2': return (v = top(k, "DUP")) ? push(k, v) : -1;
	case 'N': return push(k, pyval_new(k->a, PV_NONE));
	case 0x88: case 0x89:
		v = pyval_new(k->a, PV_BOOL);
		if (v)
			v->u.i = op == 0x88;
		return push(k, v);
	case 'J': return need(k, 4, "BININT") < 0 ? -1 : (k->p += 4, int_val(k, (int32_t)(uint32_t)le(k->p - 4, 4)));
	case 'K': return need(k, 1, "BININT1") < 0 ? -1 : (k->p += 1, int_val(k, k->p[-1]));
	case 'M': return need(k, 2, "BININT2") < 0 ? -1 : (k->p += 2, int_val(k, (int64_t)le(k->p - 2, 2)));
	case 0x8a: return need(k, 1, "LONG1") < 0 ? -1 : (k->p += 1, long_val(k, k->p[-1], "LONG1"));
	case 0x8b: return need(k, 4, "LONG4") < 0 ? -1 : (k->p += 4, long_val(k, le(k->p - 4, 4), "LONG4"));
	case 'I': case 'L': {
		if (text_arg(k, t, sizeof t, op == 'I' ? "INT" : "LONG") < 0)
			return -1;
		if (op == 'I' && (!strcmp(t, "01") || !strcmp(t, "00"))) {
			v = pyval_new(k->a, PV_BOOL);
			if (v)
				v->u.i = t[1] == '1';
			return push(k, v);
		}
		char *e;
		size_t l = strlen(t);
		if (op == 'L' && l && t[l - 1] == 'L')
			t[--l] = 0;
		long long x = strtoll(t, &e, 10);
		if (e == t || *e)
			return fail(k, "%s with a malformed number", op == 'I' ? "INT" : "LONG");
		return int_val(k, x);
	}
	case 'F': {
		if (text_arg(k, t, sizeof t, "FLOAT") < 0)
			return -1;
		char *e;
		double d = strtod(t, &e);
		if (e == t || *e)
			return fail(k, "FLOAT with a malformed number");
		v = pyval_new(k->a, PV_FLOAT);
		if (v)
			v->u.f = d;
		return push(k, v);
	}
	case 'G': {
		if (need(k, 8, "BINFLOAT") < 0)
			return -1;
		uint64_t u = 0;
		for (int i = 0; i < 8; i++)
			u = u << 8 | k->p[i];
		k->p += 8;
		double d;
		memcpy(&d, &u, sizeof d);
		v = pyval_new(k->a, PV_FLOAT);
		if (v)
			v->u.f = d;
		return push(k, v);
	}
	case 'X': return need(k, 4, "BINUNICODE") < 0 ? -1 : (k->p += 4, push(k, str_val(k, PV_STR, le(k->p - 4, 4), "BINUNICODE")));
	case 0x8c: return need(k, 1, "SHORT_BINUNICODE") < 0 ? -1 : (k->p += 1, push(k, str_val(k, PV_STR, k->p[-1], "SHORT_BINUNICODE")));
	case 0x8d: return need(k, 8, "BINUNICODE8") < 0 ? -1 : (k->p += 8, push(k, str_val(k, PV_STR, le(k->p - 8, 8), "BINUNICODE8")));
	case 'T': return need(k, 4, "BINSTRING") < 0 ? -1 : (k->p += 4, push(k, str_val(k, PV_BYTES, le(k->p - 4, 4), "BINSTRING")));
	case 'U': return need(k, 1, "SHORT_BINSTRING") < 0 ? -1 : (k->p += 1, push(k, str_val(k, PV_BYTES, k->p[-1], "SHORT_BINSTRING")));
	case 'B': return need(k, 4, "BINBYTES") < 0 ? -1 : (k->p += 4, push(k, str_val(k, PV_BYTES, le(k->p - 4, 4), "BINBYTES")));
	case 'C': return need(k, 1, "SHORT_BINBYTES") < 0 ? -1 : (k->p += 1, push(k, str_val(k, PV_BYTES, k->p[-1], "SHORT_BINBYTES")));
	case 0x8e: case 0x96:
		return need(k, 8, pickle_opcode_name(op)) < 0 ? -1
		       : (k->p += 8, push(k, str_val(k, PV_BYTES, le(k->p - 8, 8), pickle_opcode_name(op))));
	case 'q': return need(k, 1, "BINPUT") < 0 ? -1 : (k->p += 1, memo_put(k, k->p[-1], "BINPUT"));
	case 'r': return need(k, 4, "LONG_BINPUT") < 0 ? -1 : (k->p += 4, memo_put(k, le(k->p - 4, 4), "LONG_BINPUT"));
	case 0x94: return memo_put(k, k->nmemo, "MEMOIZE");
	case 'h': return need(k, 1, "BINGET") < 0 ? -1 : (k->p += 1, memo_get(k, k->p[-1], "BINGET"));
	case 'j': return need(k, 4, "LONG_BINGET") < 0 ? -1 : (k->p += 4, memo_get(k, le(k->p - 4, 4), "LONG_BINGET"));
	case 'p': case 'g': {
		if (text_arg(k, t, sizeof t, op == 'p' ? "PUT" : "GET") < 0)
			return -1;
		char *e;
		unsigned long long x = strtoull(t, &e, 10);
		if (e == t || *e)
			return fail(k, "%s with a malformed index", op == 'p' ? "PUT" : "GET");
		return op == 'p' ? memo_put(k, x, "PUT") : memo_get(k, x, "GET");
	}
	default:
		return step_seq(k, op);
	}
}

struct pyval *pickle_read(struct arena *a, const unsigned char *p, size_t n,
                          const struct pickle_limits *lim, struct pickle_error *err)
{
	struct pickle_limits dl;
	if (!lim) {
		pickle_limits_default(&dl);
		lim = &dl;
	}
	struct pk k = {0};
	k.a = a;
	k.lim = lim;
	k.p = k.base = p;
	k.end = p + n;
	k.err = err;
	k.capstack = 64; /* never NULL: pop_mark's empty run of values is stack + m */
	k.stack = xmalloc(k.capstack * sizeof *k.stack);
	err->offset = 0;
	err->msg[0] = 0;
	int rc;
	while ((rc = step(&k)) == 0)
		;
	struct pyval *root = rc == 1 && !k.failed ? k.stack[0] : NULL;
	free(k.stack);
	free(k.marks);
	free(k.memo);
	return root;
}
