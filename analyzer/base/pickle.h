/* pickle.h - a safe reader of Python pickles that hold plain data only.
 *
 * Unlike Python's pickle.load, this reader never executes, imports or calls
 * anything: it implements the data opcodes of protocols 0-5 (None, bool,
 * int, long, float, str, bytes, list, tuple, set, dict, marks, the memo,
 * frames) and refuses every opcode that names, builds or calls an object
 * (GLOBAL, STACK_GLOBAL, REDUCE, BUILD, INST, OBJ, NEWOBJ, NEWOBJ_EX, PERSID,
 * BINPERSID, EXT1/2/4, out-of-band buffers) with a message that names the
 * opcode and its byte offset.  Depth, the value count (through the arena's
 * byte cap), string sizes, the memo and the stack are bounded, and the tree
 * it returns has no cycle (a container placed inside another is frozen: a
 * later change to it is refused).  What it reads: PyTorch's flight-recorder
 * dumps (torch's C++ pickler: protocol 2) and anything Python's pickler
 * writes of plain data (protocol 2-5).  Knows nothing of NCCL. */
#ifndef NT_PICKLE_H
#define NT_PICKLE_H

#include <stddef.h>
#include "base/pyval.h"

struct pickle_limits {
	int max_depth;        /* nesting of containers */
	size_t max_stack;     /* values on the stack at once */
	size_t max_marks;     /* open MARKs */
	size_t max_str;       /* bytes of one str / bytes value */
	size_t max_memo;      /* memo slots (the highest index + 1) */
};

void pickle_limits_default(struct pickle_limits *l);

struct pickle_error {
	size_t offset;        /* of the opcode at fault (the end of the data when it is cut) */
	char msg[320];        /* "offset N: ...", one line, printable ASCII */
};

/* Read the pickle p[0..n) into the arena a (whose byte cap bounds the
 * values).  str and bytes values point into p, which must outlive the tree.
 * Returns the value STOP leaves, or NULL with *err set. */
struct pyval *pickle_read(struct arena *a, const unsigned char *p, size_t n,
                          const struct pickle_limits *lim, struct pickle_error *err);

/* The opcode's name ("BINUNICODE"), or NULL for a byte that is no opcode. */
const char *pickle_opcode_name(unsigned char op);

#endif
