/* test_report_pick.c - report_telling_unexplained (report.h): which of a
 * bundle's unexplained lines the summaries quote. */
#include "testlib.h"
#include "report/report.h"

#include <cjson/cJSON.h>
#include <stdlib.h>

/* the line (its "line" number) picked from kinds[0..n), each at line i+1 */
static int pick(const char *const *kinds, int n)
{
	cJSON *un = cJSON_CreateArray();
	for (int i = 0; i < n; i++) {
		cJSON *u = cJSON_CreateObject();
		cJSON_AddStringToObject(u, "kind", kinds[i]);
		cJSON_AddNumberToObject(u, "line", i + 1);
		cJSON_AddItemToArray(un, u);
	}
	const cJSON *u = report_telling_unexplained(un);
	int line = u ? (int)cJSON_GetObjectItem(u, "line")->valuedouble : 0;
	cJSON_Delete(un);
	return line;
}

int main(void)
{
	/* a traceback's header, then its exception: the exception */
	const char *const tb[] = {"traceback", "exit_code", "exception", "exception"};
	CHECK_INT(pick(tb, 4), 3);
	/* a crash banner before a launcher's exit record, whatever the order */
	const char *const cr[] = {"exit_code", "crash", "killed"};
	CHECK_INT(pick(cr, 3), 2);
	/* an NCCL WARN before a watchdog's record */
	const char *const nw[] = {"watchdog", "nccl_warn"};
	CHECK_INT(pick(nw, 2), 2);
	/* nothing ranked: the first */
	const char *const tt[] = {"traceback", "traceback"};
	CHECK_INT(pick(tt, 2), 1);
	const char *const unk[] = {"a kind of a later release"};
	CHECK_INT(pick(unk, 1), 1);
	CHECK_INT(pick(NULL, 0), 0);
	CHECK(report_telling_unexplained(NULL) == NULL);
	TEST_MAIN_END();
}
