/* dbpath.h - where the built-in signature database lives. */
#ifndef NT_DBPATH_H
#define NT_DBPATH_H

/* $NCCL_TRIAGE_DATADIR/patterns, then next to the binary (patterns/,
 * ../patterns, ../share/nccl-triage/patterns), then the install prefix.
 * Returns a folder the caller frees, or NULL when none exists. */
char *builtin_patterns_dir(void);

#endif
