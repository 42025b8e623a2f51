/* json.c - see json.h. */
#include "json.h"

cJSON *json_get(const cJSON *o, const char *key)
{
	return o ? cJSON_GetObjectItemCaseSensitive(o, key) : NULL;
}

const char *json_str(const cJSON *o, const char *key)
{
	const cJSON *v = json_get(o, key);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

int json_num(const cJSON *o, const char *key, double *out)
{
	const cJSON *v = json_get(o, key);
	if (!cJSON_IsNumber(v))
		return 0;
	*out = v->valuedouble;
	return 1;
}

int json_size(const cJSON *a)
{
	return (cJSON_IsArray(a) || cJSON_IsObject(a)) ? cJSON_GetArraySize(a) : 0;
}
