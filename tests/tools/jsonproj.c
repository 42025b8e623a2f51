/* jsonproj.c - project an `analyze --format json` document onto the lines a
 * golden test compares: verdict, inputs, diagnoses (id, category, severity,
 * role, echo, ranks), warnings and the key facts.  Stable across database
 * growth in everything but what the test is about.  Reads stdin. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>

static const char *str(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
	return cJSON_IsString(v) ? v->valuestring : "";
}

static void print_str_array(const char *label, const cJSON *arr)
{
	if (!cJSON_IsArray(arr))
		return;
	printf("%s", label);
	const cJSON *it;
	int first = 1;
	cJSON_ArrayForEach(it, arr) {
		if (cJSON_IsString(it))
			printf("%s%s", first ? " " : ",", it->valuestring);
		else if (cJSON_IsNumber(it))
			printf("%s%g", first ? " " : ",", it->valuedouble);
		first = 0;
	}
	printf("\n");
}

int main(int argc, char **argv)
{
	int with_warnings = argc > 1 && strcmp(argv[1], "--warnings") == 0;
	size_t cap = 1 << 20, n = 0;
	char *buf = malloc(cap);
	size_t r;
	while ((r = fread(buf + n, 1, cap - n, stdin)) > 0) {
		n += r;
		if (n == cap)
			buf = realloc(buf, cap *= 2);
	}
	cJSON *doc = cJSON_ParseWithLength(buf, n);
	free(buf);
	if (!doc) {
		printf("INVALID JSON\n");
		return 1;
	}
	const cJSON *bundles = cJSON_GetObjectItemCaseSensitive(doc, "bundles"), *b;
	cJSON_ArrayForEach(b, bundles) {
		printf("bundle %s verdict %s\n", str(b, "name"), str(b, "verdict"));
		const cJSON *in;
		cJSON_ArrayForEach(in, cJSON_GetObjectItemCaseSensitive(b, "inputs")) {
			const cJSON *lines = cJSON_GetObjectItemCaseSensitive(in, "lines");
			printf("input %s %s %.0f\n", str(in, "path"), str(in, "kind"),
			       cJSON_IsNumber(lines) ? lines->valuedouble : -1);
		}
		const cJSON *d;
		cJSON_ArrayForEach(d, cJSON_GetObjectItemCaseSensitive(b, "diagnoses")) {
			printf("diag %s %s %s %s", str(d, "id"), str(d, "category"), str(d, "severity"), str(d, "role"));
			if (*str(d, "echo_of"))
				printf(" echo_of=%s", str(d, "echo_of"));
			print_str_array(" ranks", cJSON_GetObjectItemCaseSensitive(d, "ranks"));
		}
		const cJSON *facts = cJSON_GetObjectItemCaseSensitive(b, "facts");
		print_str_array("fact nccl_versions", cJSON_GetObjectItemCaseSensitive(facts, "nccl_versions"));
		if (with_warnings) {
			const cJSON *w;
			cJSON_ArrayForEach(w, cJSON_GetObjectItemCaseSensitive(b, "warnings"))
				printf("warning %s\n", cJSON_IsString(w) ? w->valuestring : "?");
		} else {
			printf("warnings %d\n", cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(b, "warnings")));
		}
	}
	cJSON_Delete(doc);
	return 0;
}
