/* parse_nccltests.c - the output of NVIDIA's nccl-tests (all_reduce_perf and
 * friends) to facts.nccl_tests (docs/facts.md): the version header, the
 * devices, the result table, the #wrong counts, the "Out of bounds values"
 * and "Avg bus bandwidth" footer, and the "Test NCCL failure" / "Test CUDA
 * failure" / "Test failure" lines.
 *
 * The one parser of nccl-tests output in the tree.  It produces one fact,
 * facts.nccl_tests: runs[] (per run: version, nccl_headers/nccl_library,
 * program, devices[], rows, wrong, rows_wrong, first_wrong, oob, avg_busbw,
 * max_busbw, failures[], completed/validated/failed/healthy, each with its
 * source {path, line}) and the bundle-wide run_count, completed, healthy,
 * failed, wrong, avg_busbw (docs/facts.md).  Whatever else wants nccl-tests
 * results (rules, verdicts) reads that fact, never the text again.
 *
 * The formats are those of nccl-tests' src/common.cu, util.cu and common.h,
 * v1.0.0 to v2.19.6 (the tags read):
 *   # nccl-tests version 2.17.8 nccl-headers=22902 nccl-library=22902  (2.17.x+)
 *   # Collective test starting: all_reduce_perf                        (2.17+)
 *   # nThread 1 nGpus 1 minBytes 8 ... validation: 1 graph: 0         (v1: no '#')
 *   #  Rank  0 Group  0 Pid 662195 on gpu-1-1 device  0 [0009:01:00] NVIDIA GH200 120GB
 *   #   Rank  0 Pid  29565 on server device  0 [0x01] A40             (2.0-2.13)
 *   #       size  count  type  redop  root  time  algbw  busbw  #wrong  time ...
 *   (before 2.13: no root column, "error" instead of "#wrong": the largest
 *   error of the row, 2e-07 on a good run, not a count)
 *   # Out of bounds values : 4 FAILED        (v1: no '#')
 *   # Avg bus bandwidth    : 4.79995
 *   # Collective test concluded: all_reduce_perf
 *   HOST: Test NCCL failure common.cu:1012 'internal error ... / '
 *   HOST: Test CUDA failure common.cu:1304 'CUDA-capable device(s) is/are busy or unavailable'
 *    .. HOST pid P: Test failure common.cu:1189
 *   NCCL failure common.cu:343 'unhandled cuda error'                  (v1.0.0: no host, no "Test")
 *   Cuda failure common.cu:891 'CUDA driver version is insufficient ...'  (v1.0.0 src/common.h)
 *
 * nccl-tests output is a log: its failure lines are matched by signatures,
 * so documents holding it stay logs and bundle.c feeds their plain lines to
 * the streaming parser below (sysreport_nccltests_line), with the launcher prefixes
 * ([1,0]<stdout>:, "3: ") already removed.  sys_parse_nccltests() does the
 * same for a whole text (tests, fuzzing) and removes those prefixes itself.
 * Every line is copied into a bounded buffer first: nothing reads past it. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse/sysparse.h"
#include "parse/sysreport.h"

#define NT_LINE 1024          /* bytes of a line looked at */
#define NT_MAX_RUNS 256
#define NT_MAX_DEVICES 4096   /* device lines kept per run */
#define NT_MAX_FAILURES 64    /* failure lines kept per run */
#define NT_MAX_COLS 64
#define NT_ROWS_SHOWN 3       /* rows of a headerless table that make it a run shown (facts.nccl_tests.rows_only) */

struct nccltests {
	cJSON *facts;
	char *path;
	cJSON *run;               /* the run being read (in facts.nccl_tests.runs), or NULL */
	int ncols;                /* columns of the table header (0: no header yet) */
	int col_wrong[8], nwrong; /* "#wrong" columns (counts) */
	int col_err[8], nerr;     /* "error" columns (largest error, nccl-tests < 2.13) */
	int col_busbw[8], nbusbw;
	int in_table;             /* header seen, footer not yet */
	int rows, rows_wrong, rows_unchecked;
	double wrong, max_error, max_busbw, max_busbw_size;
	uint64_t first_wrong_line;
	double first_wrong_size;
	int ndevices, nfailures;
	int expect_nthread;       /* a version/program line opened the run: the nThread line belongs to it */
	int runs_full;            /* facts.nccl_tests.runs holds NT_MAX_RUNS (it only grows) */
	int finished;             /* a run of this document was finished: the summary is due */
};

/* ---------- small helpers on a NUL-terminated copy ---------- */

static const char *skip_ws(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

/* p is never empty: its first byte rules out nearly every line without a call */
static int starts(const char *s, const char *p)
{
	return s[0] == p[0] && strncmp(s, p, strlen(p)) == 0;
}

/* "22902" -> "2.29.2", "2708" -> "2.7.8" (NCCL_VERSION_CODE before 2.9) */
static int code_to_version(long code, char *out, size_t n)
{
	if (code >= 20900 && code < 1000000)
		snprintf(out, n, "%ld.%ld.%ld", code / 10000, (code / 100) % 100, code % 100);
	else if (code >= 2000 && code < 2900)
		snprintf(out, n, "%ld.%ld.%ld", code / 1000, (code / 100) % 10, code % 100);
	else
		return 0;
	return 1;
}

static int is_int_token(const char *t)
{
	if (*t == '-' || *t == '+')
		t++;
	if (!isdigit((unsigned char)*t))
		return 0;
	while (isdigit((unsigned char)*t))
		t++;
	return *t == 0;
}

/* a number as nccl-tests prints it: "0", "96", "17.49", "2e-07", "1.2e+03" */
static int num_token(const char *t, double *v)
{
	char *e;
	if (!*t)
		return 0;
	if (sys_decimal(t, v)) /* the usual cells, without strtod */
		return 1;
	double d = strtod(t, &e);
	if (e == t || *e)
		return 0;
	*v = d;
	return 1;
}

/* ---------- sscanf's directives ----------
 * Each does what the directive does in glibc's sscanf on a NUL-terminated
 * string (C locale), and returns 0 where sscanf would stop: a blank in the
 * format skips any isspace() bytes (none too); a literal must follow as it
 * is; %d / %ld skip isspace() bytes and read what strtol reads (sscanf
 * converts with strtol; %d stores the long as an int); %Ns skips isspace()
 * bytes and takes 1 to N bytes up to the next isspace() byte or NUL.  The
 * callers use the values only where the whole format matched. */
static void sc_blank(const char **p)
{
	while (isspace((unsigned char)**p))
		(*p)++;
}

static int sc_lit(const char **p, const char *lit, size_t n)
{
	if (strncmp(*p, lit, n) != 0)
		return 0;
	*p += n;
	return 1;
}

static int sc_long(const char **p, long *v)
{
	char *e;
	sc_blank(p);
	long x = strtol(*p, &e, 10);
	if (e == *p)
		return 0;
	*v = x;
	*p = e;
	return 1;
}

static int sc_int(const char **p, int *v)
{
	long x;
	if (!sc_long(p, &x))
		return 0;
	*v = (int)x;
	return 1;
}

/* sscanf's "%Ns" (N = max): blanks skipped, then 1 to max bytes up to one
 * of isspace's (the C locale's six) into out */
static int sc_word(const char **p, char *out, size_t max)
{
	sc_blank(p);
	size_t n = sys_scan_until(*p, " \t\n\v\f\r", out, max + 1);
	*p += n;
	return n != 0;
}

static cJSON *tests_root(struct nccltests *nt)
{
	return sys_obj(nt->facts, "nccl_tests");
}

/* ---------- runs ---------- */

static void summarise(cJSON *facts);

static void finish_run(struct nccltests *nt)
{
	cJSON *r = nt->run;
	if (!r)
		return;
	sys_set_num(r, "rows", nt->rows);
	if (nt->ncols) {
		sys_set_str(r, "error_column", nt->nwrong ? "#wrong" : nt->nerr ? "error" : "none");
		if (nt->nwrong) {
			sys_set_num(r, "wrong", nt->wrong);
			sys_set_num(r, "rows_wrong", nt->rows_wrong);
			if (nt->rows_wrong) {
				cJSON *fw = sys_obj(r, "first_wrong");
				sys_set_num(fw, "size", nt->first_wrong_size);
				sys_put_source(fw, nt->path, nt->first_wrong_line);
			}
		}
		if (nt->nerr)
			sys_set_num(r, "max_error", nt->max_error);
		if (nt->rows_unchecked)
			sys_set_num(r, "rows_unchecked", nt->rows_unchecked);
		if (nt->rows && nt->nbusbw) {
			cJSON *mb = sys_obj(r, "max_busbw");
			sys_set_num(mb, "value", nt->max_busbw);
			sys_set_num(mb, "size", nt->max_busbw_size);
		}
	}
	const cJSON *oob = cJSON_GetObjectItemCaseSensitive(r, "oob");
	const cJSON *avg = cJSON_GetObjectItemCaseSensitive(r, "avg_busbw");
	double oobn = -1;
	if (oob)
		json_num(oob, "count", &oobn);
	const char *st = oob ? json_str(oob, "status") : NULL;
	int completed = avg != NULL;
	int validated = nt->rows > 0 && nt->rows_unchecked < nt->rows && (nt->nwrong || nt->nerr);
	int failed = nt->wrong > 0 || oobn > 0 || (st && !strcmp(st, "FAILED")) || nt->nfailures > 0;
	sys_set_bool(r, "completed", completed);
	sys_set_bool(r, "validated", validated);
	sys_set_bool(r, "failed", failed);
	sys_set_bool(r, "healthy", completed && !failed && oob && oobn == 0);
	nt->run = NULL;
	nt->finished = 1; /* summarised at the end of the document (sysreport_nccltests_end) */
}

static cJSON *start_run(struct nccltests *nt, uint64_t lineno)
{
	finish_run(nt);
	if (nt->runs_full)
		return NULL;
	cJSON *runs = sys_arr(tests_root(nt), "runs");
	if (cJSON_GetArraySize(runs) >= NT_MAX_RUNS) {
		nt->runs_full = 1;
		return NULL;
	}
	cJSON *r = cJSON_CreateObject();
	cJSON_AddItemToObject(r, "source", sys_source(nt->path, lineno));
	cJSON_AddItemToArray(runs, r);
	nt->run = r;
	nt->ncols = nt->nwrong = nt->nerr = nt->nbusbw = 0;
	nt->in_table = 0;
	nt->rows = nt->rows_wrong = nt->rows_unchecked = 0;
	nt->wrong = nt->max_error = nt->max_busbw = nt->max_busbw_size = 0;
	nt->first_wrong_line = 0;
	nt->first_wrong_size = 0;
	nt->ndevices = nt->nfailures = 0;
	nt->expect_nthread = 0;
	return r;
}

static cJSON *cur_run(struct nccltests *nt, uint64_t lineno)
{
	return nt->run ? nt->run : start_run(nt, lineno);
}

/* facts.nccl_tests summary over every run of the bundle */
static void summarise(cJSON *facts)
{
	cJSON *root = cJSON_GetObjectItemCaseSensitive(facts, "nccl_tests");
	cJSON *runs = cJSON_GetObjectItemCaseSensitive(root, "runs");
	int n = 0, completed = 0, healthy = 0, failed = 0, rows_only = 0;
	double wrong = 0, rows = 0;
	const cJSON *r, *first_avg = NULL;
	cJSON_ArrayForEach(r, runs) {
		n++;
		int done = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r, "completed"));
		int bad = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r, "failed"));
		completed += done;
		healthy += cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r, "healthy"));
		failed += bad;
		/* a table pasted alone: rows, no header, no footer, nothing wrong */
		double k = 0;
		rows_only += cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r, "headerless")) && !done && !bad &&
		             json_num(r, "rows", &k) && k >= NT_ROWS_SHOWN;
		rows += k;
		double w;
		if (json_num(r, "wrong", &w))
			wrong += w;
		if (!first_avg)
			first_avg = cJSON_GetObjectItemCaseSensitive(r, "avg_busbw");
	}
	sys_set_num(root, "run_count", n);
	sys_set_bool(root, "completed", n > 0 && completed == n);
	sys_set_bool(root, "healthy", n > 0 && healthy == n);
	sys_set_bool(root, "failed", failed > 0);
	sys_set_num(root, "wrong", wrong);
	cJSON_DeleteItemFromObjectCaseSensitive(root, "rows_only"); /* summarised again after another document */
	cJSON_DeleteItemFromObjectCaseSensitive(root, "rows_shown");
	if (n > 0 && rows_only == n) { /* only then: the facts of other runs unchanged */
		sys_set_bool(root, "rows_only", 1);
		sys_set_num(root, "rows_shown", rows);
	}
	cJSON_DeleteItemFromObjectCaseSensitive(root, "avg_busbw");
	if (first_avg)
		cJSON_AddItemToObject(root, "avg_busbw", cJSON_Duplicate(first_avg, 1));
}

/* ---------- line kinds ---------- */

/* "# nccl-tests version 2.17.8 nccl-headers=22902 nccl-library=22902" */
static void version_line(struct nccltests *nt, const char *s, uint64_t lineno)
{
	cJSON *r = start_run(nt, lineno);
	if (!r)
		return;
	char ver[32] = "";
	long h = -1, l = -1;
	const char *p = strstr(s, "nccl-tests version ");
	if (p && sscanf(p + 19, "%31s", ver) == 1)
		sys_set_str(r, "version", ver);
	if ((p = strstr(s, "nccl-headers=")) && sscanf(p + 13, "%ld", &h) == 1) {
		char v[32];
		if (code_to_version(h, v, sizeof v))
			sys_set_str(r, "nccl_headers", v);
	}
	if ((p = strstr(s, "nccl-library=")) && sscanf(p + 13, "%ld", &l) == 1) {
		char v[32];
		if (code_to_version(l, v, sizeof v))
			sys_set_str(r, "nccl_library", v);
	}
	nt->expect_nthread = 1;
}

/* "# Collective test starting: all_reduce_perf" */
static void starting_line(struct nccltests *nt, const char *s, uint64_t lineno)
{
	char prog[128];
	const char *p = strstr(s, "test starting: ");
	if (!p || sscanf(p + 15, "%127s", prog) != 1)
		return;
	cJSON *r = nt->run && nt->expect_nthread && !cJSON_GetObjectItemCaseSensitive(nt->run, "program")
	               ? nt->run : start_run(nt, lineno);
	if (!r)
		return;
	sys_set_str(r, "program", prog);
	nt->expect_nthread = 1;
}

/* "# nThread 1 nGpus 8 minBytes ... validation: 1 graph: 0" */
static void nthread_line(struct nccltests *nt, const char *s, uint64_t lineno)
{
	int th, g, val;
	const char *q = s; /* sscanf(s, "nThread %d nGpus %d") == 2, by the sc_ directives */
	if (!sc_lit(&q, "nThread", 7) || !sc_int(&q, &th) || (sc_blank(&q), !sc_lit(&q, "nGpus", 5)) || !sc_int(&q, &g))
		return;
	cJSON *r = nt->run && nt->expect_nthread && !cJSON_GetObjectItemCaseSensitive(nt->run, "nthread")
	               ? nt->run : start_run(nt, lineno);
	if (!r)
		return;
	nt->expect_nthread = 0;
	sys_set_num(r, "nthread", th);
	sys_set_num(r, "ngpus", g);
	q = strstr(s, "validation: ");
	if (q && (q += 12, sc_int(&q, &val)))
		sys_set_num(r, "validation", val);
}

/* sscanf(s, "Rank %d [Group %d ][Pid %ld ]on %255s device %d %n", ...)
 * == the number of its conversions, the parts in [] where group / pid:
 * 1 and the values, *k the bytes read; 0 where sscanf would not match it all. */
static int device_scan(const char *s, int with_group, int with_pid, int *rank, int *group, long *pid, char *host,
                       int *dev, int *k)
{
	const char *p = s;
	if (!sc_lit(&p, "Rank", 4) || !sc_int(&p, rank)) /* %d skips the format's blank's bytes itself */
		return 0;
	sc_blank(&p);
	if (with_group) {
		if (!sc_lit(&p, "Group", 5) || !sc_int(&p, group))
			return 0;
		sc_blank(&p);
	}
	if (with_pid) {
		if (!sc_lit(&p, "Pid", 3) || !sc_long(&p, pid))
			return 0;
		sc_blank(&p);
	}
	if (!sc_lit(&p, "on", 2) || !sc_word(&p, host, 255))
		return 0;
	sc_blank(&p);
	if (!sc_lit(&p, "device", 6) || !sc_int(&p, dev))
		return 0;
	sc_blank(&p); /* the blank before %n */
	*k = (int)(p - s);
	return 1;
}

/* "#  Rank  0 Group  0 Pid 662195 on gpu-1-1 device  0 [0009:01:00] NVIDIA GH200 120GB",
 * "#   Rank  0 Pid  29565 on server device  0 [0x01] A40",
 * "#   Rank  0 on host device  0 [0x01] Tesla P100" (v1) */
static void device_line(struct nccltests *nt, const char *s, uint64_t lineno)
{
	int rank = -1, group = -1, dev = -1, k = 0;
	long pid = -1;
	char host[256] = "";
	const char *p = s; /* after "Rank" */
	/* sscanf's "Rank %d Group %d Pid %ld on %255s device %d %n", then without
	 * "Group %d ", then without "Pid %ld " too (device_scan) */
	if (device_scan(p, 1, 1, &rank, &group, &pid, host, &dev, &k) ||
	    (group = -1, device_scan(p, 0, 1, &rank, &group, &pid, host, &dev, &k)) ||
	    (pid = -1, device_scan(p, 0, 0, &rank, &group, &pid, host, &dev, &k))) {
	} else {
		return;
	}
	if (k == 0 || rank < 0)
		return;
	cJSON *r = cur_run(nt, lineno);
	if (!r || nt->ndevices >= NT_MAX_DEVICES)
		return;
	nt->ndevices++;
	cJSON *d = cJSON_CreateObject();
	cJSON_AddNumberToObject(d, "rank", rank);
	if (group >= 0)
		cJSON_AddNumberToObject(d, "group", group);
	if (pid >= 0)
		cJSON_AddNumberToObject(d, "pid", (double)pid);
	sys_set_str(d, "host", host);
	cJSON_AddNumberToObject(d, "device", dev);
	const char *b = p + k;
	if (*b == '[') {
		const char *e = strchr(b, ']');
		if (e && e - b < 32) {
			char bus[32];
			memcpy(bus, b + 1, (size_t)(e - b - 1));
			bus[e - b - 1] = 0;
			unsigned f[3], dom, bb, dd;
			int nf = 3;
			if (sys_hex3(bus, -1, f)) /* sscanf's "%x:%x:%x" on the usual form */
				dom = f[0], bb = f[1], dd = f[2];
			else
				nf = sscanf(bus, "%x:%x:%x", &dom, &bb, &dd);
			if (nf == 3 && dom <= 0xffff && bb <= 0xff && dd <= 0x1f) {
				char norm[24];
				sys_bdf(norm, dom, bb, dd);
				sys_set_str(d, "bus_id", norm);
			} else {
				sys_set_str(d, "bus_id_text", bus); /* "0x01": the bus number only */
			}
			b = skip_ws(e + 1);
		}
	}
	if (*b)
		sys_set_str(d, "name", b);
	sys_put_source(d, nt->path, lineno);
	cJSON_AddItemToArray(sys_arr(r, "devices"), d);
	sys_set_num(r, "device_count", nt->ndevices);
}

/* the column header: "#       size  count  type  redop  root  time  algbw  busbw  #wrong ..." */
static void header_line(struct nccltests *nt, char *s, uint64_t lineno)
{
	if (!cur_run(nt, lineno))
		return;
	char *tok[NT_MAX_COLS];
	size_t n = sys_split_ws(s, tok, NT_MAX_COLS);
	nt->ncols = 0;
	nt->nwrong = nt->nerr = nt->nbusbw = 0;
	for (size_t i = 0; i < n; i++) {
		if (!strcmp(tok[i], "#wrong") && nt->nwrong < 8)
			nt->col_wrong[nt->nwrong++] = (int)i;
		else if (!strcmp(tok[i], "error") && nt->nerr < 8)
			nt->col_err[nt->nerr++] = (int)i;
		else if (!strcmp(tok[i], "busbw") && nt->nbusbw < 8)
			nt->col_busbw[nt->nbusbw++] = (int)i;
	}
	nt->ncols = (int)n;
	nt->in_table = 1;
}

/* a row: "  1048576  262144  float  sum  -1  477.32  2.20  2.20  96  492.81  2.13  2.13  32" */
static void row_tokens(struct nccltests *nt, char **tok, size_t n, uint64_t lineno)
{
	if ((int)n != nt->ncols || n < 2 || !is_int_token(tok[0]) || !is_int_token(tok[1]))
		return;
	double size;
	if (!sys_decimal(tok[0], &size))
		size = strtod(tok[0], NULL);
	nt->rows++;
	int unchecked = 0;
	double roww = 0;
	for (int i = 0; i < nt->nwrong; i++) {
		double v;
		if (!strcmp(tok[nt->col_wrong[i]], "N/A"))
			unchecked = 1;
		else if (num_token(tok[nt->col_wrong[i]], &v) && v > 0)
			roww += v;
	}
	for (int i = 0; i < nt->nerr; i++) {
		double v;
		if (!strcmp(tok[nt->col_err[i]], "N/A"))
			unchecked = 1;
		else if (num_token(tok[nt->col_err[i]], &v) && v > nt->max_error)
			nt->max_error = v;
	}
	for (int i = 0; i < nt->nbusbw; i++) {
		double v;
		if (num_token(tok[nt->col_busbw[i]], &v) && v > nt->max_busbw) {
			nt->max_busbw = v;
			nt->max_busbw_size = size;
		}
	}
	if (unchecked)
		nt->rows_unchecked++;
	if (roww > 0) {
		if (!nt->rows_wrong) {
			nt->first_wrong_line = lineno;
			nt->first_wrong_size = size;
		}
		nt->rows_wrong++;
		nt->wrong += roww;
	}
}

static void row_line(struct nccltests *nt, char *s, uint64_t lineno)
{
	char *tok[NT_MAX_COLS];
	size_t n = sys_split_ws(s, tok, NT_MAX_COLS);
	row_tokens(nt, tok, n, lineno);
}

/* nccl-tests' type names in every release (common.cu's test_typenames;
 * "char" and "int" in the builds for NCCL before 2.0) */
static int is_type_name(const char *t, size_t n)
{
	static const char *const names[] = {"int8",  "uint8", "int32",    "uint32", "int64",  "uint64", "half",
	                                    "float", "double", "bfloat16", "f8e4m3", "f8e5m2", "char",   "int"};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (strlen(names[i]) == n && memcmp(names[i], t, n) == 0)
			return 1;
	return 0;
}

/* The first three cells of a table row, on the line as it is: SIZE and
 * COUNT (digits) and a type name, each followed by blanks.  The cheap test
 * before a row with no header read is copied and split (bare_row). */
int sysreport_nccltests_bare_row(const char *line, size_t len)
{
	size_t i = 0;
	while (i < len && (line[i] == ' ' || line[i] == '\t'))
		i++;
	for (int cell = 0; cell < 2; cell++) {
		size_t d = i;
		while (i < len && line[i] >= '0' && line[i] <= '9')
			i++;
		if (i == d || i == len || (line[i] != ' ' && line[i] != '\t'))
			return 0;
		while (i < len && (line[i] == ' ' || line[i] == '\t'))
			i++;
	}
	size_t w = i;
	while (i < len && ((line[i] >= 'a' && line[i] <= 'z') || (line[i] >= '0' && line[i] <= '9')))
		i++;
	return i < len && (line[i] == ' ' || line[i] == '\t') && is_type_name(line + w, i - w);
}

/* A table row with no header read before it (a paste of the table alone):
 * "SIZE COUNT TYPE [REDOP] [ROOT] TIME ALGBW BUSBW ERR TIME ALGBW BUSBW ERR",
 * 11 to 13 cells (util.cu's writeBenchmarkLinePreamble and -Body; before
 * 2.13 all_gather printed neither redop nor root), the last eight the
 * out-of-place and in-place results.  It opens a run marked "headerless",
 * its columns taken from the row: busbw the 6th and 2nd from the end, the
 * error cell the 5th and last ("#wrong", a count, or before 2.13 "error",
 * the largest error; N/A without validation).  Later rows of as many cells
 * are read as the run's rows. */
static void bare_row(struct nccltests *nt, char *s, uint64_t lineno)
{
	char *tok[NT_MAX_COLS];
	size_t n = sys_split_ws(s, tok, NT_MAX_COLS);
	if (n < 11 || n > 13 || !is_int_token(tok[0]) || !is_int_token(tok[1]) || !is_type_name(tok[2], strlen(tok[2])))
		return;
	double v;
	for (size_t i = n - 8; i < n; i++)
		if (!num_token(tok[i], &v) && !((i == n - 5 || i == n - 1) && !strcmp(tok[i], "N/A")))
			return;
	if (!start_run(nt, lineno))
		return;
	sys_set_bool(nt->run, "headerless", 1);
	int count = is_int_token(tok[n - 5]) || !strcmp(tok[n - 5], "N/A");
	int *cols = count ? nt->col_wrong : nt->col_err;
	cols[0] = (int)n - 5;
	cols[1] = (int)n - 1;
	*(count ? &nt->nwrong : &nt->nerr) = 2;
	nt->col_busbw[0] = (int)n - 6;
	nt->col_busbw[1] = (int)n - 2;
	nt->nbusbw = 2;
	nt->ncols = (int)n;
	nt->in_table = 1;
	row_tokens(nt, tok, n, lineno);
}

/* A run's result line, "LABEL : N [WORD]": N (read as an integer where
 * INTEGER) into the run's KEY object as NUM, the word after it as WORD.
 * "# Out of bounds values : 4 FAILED", " Out of bounds values : 0 OK",
 * "# Avg bus bandwidth    : 4.79995 " (maybe followed by OK/FAILED with -G) */
static void result_line(struct nccltests *nt, const char *s, uint64_t lineno, const char *label, int integer,
                        const char *key, const char *num, const char *word)
{
	const char *p = strstr(s, label);
	const char *c = p ? strchr(p, ':') : NULL;
	double v;
	long iv;
	char st[16] = "";
	if (!c)
		return;
	if (integer) {
		if (sscanf(c + 1, "%ld %15s", &iv, st) < 1)
			return;
		v = (double)iv;
	} else if (sscanf(c + 1, "%lf %15s", &v, st) < 1) {
		return;
	}
	cJSON *r = cur_run(nt, lineno);
	if (!r)
		return;
	cJSON *o = sys_obj(r, key);
	sys_set_num(o, num, v);
	if (*st)
		sys_set_str(o, word, st);
	sys_put_source(o, nt->path, lineno);
	nt->in_table = 0;
}

/* sys_set_bool(r, "failed", 1) and sys_set_num(r, "failure_count", n):
 * both go last, in that order.  When they are r's last two members already
 * (the previous failure line of the run set them, nothing was set since)
 * that order is kept and "failed" is true: only the count changes.  The
 * first members of those names are they: a run's members are set by
 * sys_set_*, sys_obj, sys_arr and sys_put_source only, which keep one of
 * each name. */
static void set_failed(cJSON *r, int n)
{
	const cJSON *last = r->child ? r->child->prev : NULL, *before = last ? last->prev : NULL;
	if (last && before != last && last->type == cJSON_Number && last->string &&
	    !strcmp(last->string, "failure_count") && before->type == cJSON_True && before->string &&
	    !strcmp(before->string, "failed")) {
		cJSON_SetNumberHelper((cJSON *)last, n);
		return;
	}
	sys_set_bool(r, "failed", 1);
	sys_set_num(r, "failure_count", n);
}

/* "HOST: Test NCCL failure FILE:LINE 'error'", "HOST: Test CUDA failure ...",
 * " .. HOST pid P: Test failure FILE:LINE" */
static void failure_line(struct nccltests *nt, const char *s, const char *at, const char *kind, uint64_t lineno)
{
	cJSON *r = cur_run(nt, lineno);
	if (!r)
		return;
	nt->nfailures++;
	set_failed(r, nt->nfailures);
	if (nt->nfailures > NT_MAX_FAILURES)
		return;
	cJSON *f = cJSON_CreateObject();
	sys_set_str(f, "kind", kind);
	/* the host before ": Test", or after " .. " */
	const char *h = s;
	if (starts(h, ".. "))
		h += 3;
	const char *he = h;
	while (*he && *he != ':' && *he != ' ')
		he++;
	if (he > h && he - h < 256 && he <= at) {
		char host[256];
		memcpy(host, h, (size_t)(he - h));
		host[he - h] = 0;
		sys_set_str(f, "host", host);
	}
	long pid;
	const char *pp = strstr(s, " pid ");
	if (pp && pp < at && (pp += 5, sc_long(&pp, &pid))) /* sscanf's "%ld" */
		cJSON_AddNumberToObject(f, "pid", (double)pid);
	const char *loc = strstr(at, "failure ");
	if (loc) {
		char where[128]; /* sscanf's "%127[^ ']" */
		if (sys_scan_until(loc + 8, " '", where, sizeof where))
			sys_set_str(f, "at", where);
		const char *q = strchr(loc, '\'');
		if (q) {
			const char *qe = strrchr(q + 1, '\'');
			size_t len = qe && qe > q ? (size_t)(qe - q - 1) : strlen(q + 1);
			char *err = xstrndup(q + 1, len);
			/* 2.13+: "'%s / %s'": the error string, then ncclGetLastError() */
			char *slash = strstr(err, " / ");
			if (slash) {
				char *last = sys_trim(slash + 3);
				if (*last)
					sys_set_str(f, "last_error", last);
				*slash = 0;
			}
			sys_set_str(f, "error", sys_trim(err));
			free(err);
		}
	}
	sys_put_source(f, nt->path, lineno);
	cJSON_AddItemToArray(sys_arr(r, "failures"), f);
}

/* nccl-tests v1's "NCCL failure FILE:LINE 'error'" / "Cuda failure
 * FILE:LINE 'error'" (src/common.h of v1.0.0): FILE:LINE must follow, so
 * NCCL's own "Cuda failure 'error'" (a WARN message) is not one. */
static const char *v1_failure(const char *s)
{
	if (!starts(s, "NCCL failure ") && !starts(s, "Cuda failure "))
		return NULL;
	const char *f = s + 13, *c = f;
	while (*c && *c != ':' && *c != ' ' && *c != '\'')
		c++;
	if (c == f || *c != ':' || !isdigit((unsigned char)c[1]))
		return NULL;
	c++;
	while (isdigit((unsigned char)*c))
		c++;
	return c[0] == ' ' && c[1] == '\'' ? s : NULL;
}

/* ---------- the streaming interface ---------- */

struct nccltests *sysreport_nccltests_new(cJSON *facts, const char *path)
{
	struct nccltests *nt = xcalloc(1, sizeof *nt);
	nt->facts = facts;
	nt->path = xstrdup(path ? path : "");
	return nt;
}

int sysreport_nccltests_active(const struct nccltests *nt)
{
	return nt && nt->run != NULL;
}

/* The lines sysreport_nccltests_line acts on without a keyword of its own:
 * a '#' line (the header, device lines, the column header) or, in a
 * table, a row; its first byte after the blanks it skips decides.  Every
 * other line it reads holds one of KW_NCCLTESTS's literals (linekw.c). */
int sysreport_nccltests_wants(const struct nccltests *nt, const char *line, size_t len)
{
	if (!nt || !nt->run)
		return 0;
	size_t n = len < NT_LINE - 1 ? len : NT_LINE - 1;
	for (size_t i = 0; i < n; i++) {
		char c = line[i];
		if (c == ' ' || c == '\t' || c == '\r' || c == 0 || c == '\n')
			continue;
		return c == '#' || (nt->in_table && c >= '0' && c <= '9');
	}
	return 0;
}

/* kw: the line may hold a KW_NCCLTESTS literal (0: the keyword scan over
 * line[0..len) found none). */
static void nt_line(struct nccltests *nt, const char *line, size_t len, uint64_t lineno, int kw)
{
	if (!nt || !line)
		return;
	/* runs full and none open: every line kind below would start a run
	 * (start_run: NULL, nothing written) or needs one (device, header and
	 * result lines, "concluded"); a table row only counts into nt's
	 * counters, which nothing reads once no run can start (finish_run and
	 * start_run are their only readers).  So nothing to do: return before
	 * the copy and the searches. */
	if (nt->runs_full && !nt->run)
		return;
	char buf[NT_LINE];
	size_t k = len < sizeof buf - 1 ? len : sizeof buf - 1;
	memcpy(buf, line, k);
	buf[k] = 0;
	/* CR, NUL and LF become blanks (rare: one strcspn says whether buf has
	 * any, as it stops at the first of them or at buf[k], the NUL put
	 * there; memchr finds each when it has) */
	static const char odd[3] = {'\r', 0, '\n'};
	for (int c = 0; c < 3 && strcspn(buf, "\r\n") < k; c++)
		for (char *p = buf; (p = memchr(p, odd[c], (size_t)(buf + k - p))) != NULL; p++) {
			*p = ' ';
			kw = 1; /* a blank made here may complete a literal the scan did not see */
		}
	char *s = (char *)skip_ws(buf);
	const char *at;
	/* The next six kinds each need a KW_NCCLTESTS literal in buf ("Test
	 * NCCL failure", "Test CUDA failure", ": Test failure ", "NCCL failure ",
	 * "Cuda failure ", "Out of bounds values", "Avg bus bandwidth": linekw.c);
	 * buf is line's first bytes unchanged, so without kw none can match and
	 * the searches are skipped (the '#' lines and rows of an open run).  The
	 * first three hold "Test ": one search rules them all out (most lines
	 * with a keyword are NCCL's own "Cuda failure '...'" WARN messages). */
	int test = kw && strstr(s, "Test ") != NULL;
	if (test && (at = strstr(s, "Test NCCL failure ")))
		failure_line(nt, s, at, "nccl", lineno);
	else if (test && (at = strstr(s, "Test CUDA failure ")))
		failure_line(nt, s, at, "cuda", lineno);
	else if (test && (at = strstr(s, ": Test failure ")) && starts(s, ".."))
		failure_line(nt, s, at + 2, "test", lineno);
	else if (kw && (at = v1_failure(s)))
		failure_line(nt, s, at, s[0] == 'N' ? "nccl" : "cuda", lineno);
	else if (kw && strstr(s, "Out of bounds values"))
		result_line(nt, s, lineno, "Out of bounds values", 1, "oob", "count", "status");
	else if (kw && strstr(s, "Avg bus bandwidth"))
		result_line(nt, s, lineno, "Avg bus bandwidth", 0, "avg_busbw", "value", "check");
	else if (s[0] == '#') {
		const char *b = skip_ws(s + 1);
		if (starts(b, "nccl-tests version "))
			version_line(nt, b, lineno);
		else if (starts(b, "Collective test starting: "))
			starting_line(nt, b, lineno);
		else if (starts(b, "Collective test concluded: ")) {
			if (nt->run)
				sys_set_bool(nt->run, "concluded", 1);
		} else if (starts(b, "nThread "))
			nthread_line(nt, b, lineno);
		else if (starts(b, "Rank ") && nt->run)
			device_line(nt, b, lineno);
		else if (nt->run && strstr(b, "size") && strstr(b, "count") &&
		         (strstr(b, "#wrong") || strstr(b, "error") || strstr(b, "busbw")))
			header_line(nt, (char *)b, lineno);
	} else if (starts(s, "nThread ") && strstr(s, " nGpus ")) {
		nthread_line(nt, s, lineno); /* v1 */
	} else if (nt->in_table && isdigit((unsigned char)s[0])) {
		row_line(nt, s, lineno);
	} else if (!nt->run && isdigit((unsigned char)s[0])) {
		bare_row(nt, s, lineno);
	}
}

void sysreport_nccltests_line(struct nccltests *nt, const char *line, size_t len, uint64_t lineno)
{
	nt_line(nt, line, len, lineno, 1);
}

void sysreport_nccltests_line_nokw(struct nccltests *nt, const char *line, size_t len, uint64_t lineno)
{
	nt_line(nt, line, len, lineno, 0);
}

void sysreport_nccltests_end(struct nccltests *nt)
{
	if (!nt)
		return;
	finish_run(nt);
	if (nt->finished)
		summarise(nt->facts); /* once per document, over every run of the bundle */
	free(nt->path);
	free(nt);
}

/* ---------- whole text ---------- */

/* launcher prefixes nccl-tests output carries: "[1,0]<stdout>:" (Open MPI
 * --tag-output), "3: " (srun -l) */
static const char *strip_launcher(const char *s, size_t *n)
{
	const char *e = s + *n;
	if (*n > 4 && s[0] == '[') {
		const char *p = s + 1;
		while (p < e && (isdigit((unsigned char)*p) || *p == ','))
			p++;
		if (p + 1 < e && p[0] == ']' && p[1] == '<') {
			const char *q = memchr(p, '>', (size_t)(e - p));
			if (q && q + 1 < e && q[1] == ':') {
				*n = (size_t)(e - (q + 2));
				return q + 2;
			}
		}
	}
	const char *p = s;
	while (p < e && p - s < 6 && isdigit((unsigned char)*p))
		p++;
	if (p > s && p + 1 < e && p[0] == ':' && p[1] == ' ') {
		*n = (size_t)(e - (p + 2));
		return p + 2;
	}
	return s;
}

int sys_parse_nccltests(const char *text, size_t len, const char *path, cJSON *facts, struct msgs *m)
{
	if (!text || !facts)
		return 0;
	struct nccltests *nt = sysreport_nccltests_new(facts, path);
	const char *p = text, *end = text + len;
	uint64_t lineno = 0;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		lineno++;
		const char *s = strip_launcher(p, &n);
		sysreport_nccltests_line(nt, s, n, lineno);
		if (!nl)
			break;
		p = nl + 1;
	}
	sysreport_nccltests_end(nt);
	const cJSON *runs = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(facts, "nccl_tests"), "runs");
	int n = cJSON_GetArraySize(runs);
	if (n == 0 && m)
		msgs_add(m, "%s: no nccl-tests output found", path ? path : "");
	return n;
}
