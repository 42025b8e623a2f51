/* category.h - the closed list of root-cause categories (../shared/TAXONOMY.md):
 * what a diagnosis, a derived row (derive.h) or a coverage row may name. */
#ifndef NT_CATEGORY_H
#define NT_CATEGORY_H

extern const char *const CATEGORIES[]; /* NULL-terminated */
int category_valid(const char *c);

#endif
