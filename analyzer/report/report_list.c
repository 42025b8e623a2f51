/* report_list.c - see report_list.h. */
#include "report/report_list.h"

#include <string.h>

#include "base/json.h"

int report_is_info(const cJSON *d)
{
	return strcmp(json_strz(d, "severity"), "info") == 0;
}

size_t report_list(FILE *out, const struct report_list *l, const cJSON *items)
{
	size_t n = 0;
	const cJSON *it;
	cJSON_ArrayForEach(it, items) {
		if (l->keep && !l->keep(it))
			continue;
		if (l->cap && n == l->cap)
			break;
		if (!n++ && l->head)
			fputs(l->head, out);
		if (l->indent)
			fputs(l->indent, out);
		if (l->marker)
			fputs(l->marker, out);
		else
			fprintf(out, "%zu. ", n);
		if (l->item)
			l->item(out, it, l->ctx);
		else if (l->put)
			l->put(out, cJSON_IsString(it) ? it->valuestring : "");
		else
			fputs(cJSON_IsString(it) ? it->valuestring : "", out);
		fputc('\n', out);
	}
	if (n && l->tail)
		fputs(l->tail, out);
	return n;
}
