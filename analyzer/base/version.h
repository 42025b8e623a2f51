/* version.h - version strings, one rule for all of them (NCCL, CUDA,
 * drivers, packages, the ranges in patterns/):
 *
 *   [v|V] N[.N[.N[.N]]] [suffix]
 *
 * N is a decimal number; more than four numbers are read as part of the
 * suffix.  The suffix starts with '+', '-', '_', '.', ' ', '(' or a letter
 * ("+cu128", "+cuda13.0", ".post1", "-1", "rc1", "a0") and is ignored.
 * Anything else (no digit first, "2..3", "2.x") is not a version. */
#ifndef NT_VERSION_H
#define NT_VERSION_H

#define VERSION_PARTS 4

struct version {
	long part[VERSION_PARTS]; /* missing parts are 0 */
	int n;                    /* numbers read, 1..VERSION_PARTS */
};

/* 1 and *v filled when s is a version by the rule above, else 0. */
int version_parse(const char *s, struct version *v);
/* <0, 0, >0 part by part (a missing part is 0: "2.28" == "2.28.0"). */
int version_cmp(const struct version *a, const struct version *b);
/* version_cmp of two strings; a string that is no version sorts first. */
int version_cmp_str(const char *a, const char *b);
/* major*10000 + minor*100 + patch ("2.28.9+cuda13.0" -> 22809); -1 when
 * s is no version, has no minor, or minor or patch is over 99. */
long version_code(const char *s);

#endif
