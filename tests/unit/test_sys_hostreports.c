/* test_sys_hostreports.c - the host-report parsers where a whole report in
 * and its facts out (tests/cases: nccl_tests, kmsg, ib, lspci, netif, host,
 * versions) cannot say it: lines fed one at a time (nccl-tests, kernel
 * messages, per-node NCCL facts), the Xid reports the CLI reads another way,
 * version lines written for a test; then the rules of rules_host.c end to
 * end on bundles of the real fixtures with the real pattern database. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/analysis.h"
#include "engine/bundle.h"
#include "engine/correlate.h"
#include "parse/detect.h"
#include "rules/rules.h"
#include "match/sigdb.h"
#include "parse/sysparse.h"
#include "parse/sysreport.h"
#include "testlib.h"

#define PUB "fixtures/sys/public/"
#define LOC "fixtures/sys/local/"
#define MORE "fixtures/captures/h200-2gpu-more/"

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "cannot open %s\n", path);
		*len = 0;
		return xstrdup("");
	}
	struct buf b;
	buf_init(&b);
	char tmp[8192];
	size_t n;
	while ((n = fread(tmp, 1, sizeof tmp, f)) > 0)
		buf_add(&b, tmp, n);
	fclose(f);
	*len = b.len;
	return b.len ? buf_steal(&b) : (buf_free(&b), xstrdup(""));
}

static const cJSON *get(const cJSON *o, const char *dotted)
{
	char buf[256];
	snprintf(buf, sizeof buf, "%s", dotted);
	char *save = NULL;
	for (char *k = strtok_r(buf, ".", &save); k && o; k = strtok_r(NULL, ".", &save)) {
		if (cJSON_IsArray(o))
			o = cJSON_GetArrayItem(o, atoi(k));
		else
			o = cJSON_GetObjectItemCaseSensitive(o, k);
	}
	return o;
}

static const char *gs(const cJSON *o, const char *dotted)
{
	const cJSON *x = get(o, dotted);
	return cJSON_IsString(x) ? x->valuestring : NULL;
}

static double gn(const cJSON *o, const char *dotted)
{
	const cJSON *x = get(o, dotted);
	return cJSON_IsNumber(x) ? x->valuedouble : NAN;
}

static int gb(const cJSON *o, const char *dotted)
{
	const cJSON *x = get(o, dotted);
	return cJSON_IsBool(x) ? cJSON_IsTrue(x) : -1;
}

/* parse a fixture as a whole document with one parser */
static int parse_as(cJSON *facts, const char *path, int (*fn)(const char *, size_t, const char *, cJSON *, struct msgs *))
{
	size_t len;
	char *t = slurp(path, &len);
	struct msgs m = {0};
	const char *base = strrchr(path, '/');
	int n = fn(t, len, base ? base + 1 : path, facts, &m);
	msgs_free(&m);
	free(t);
	return n;
}

/* nccl-tests output line at a time (the real outputs are tests/cases/nccl_tests):
 * NCCL's own "Cuda failure 'error'" (no FILE:LINE) is no failure line; a line
 * cut in the middle of a row must not be read past */
static void test_nccl_tests(void)
{
	cJSON *f = cJSON_CreateObject();
	struct nccltests *nw = sysreport_nccltests_new(f, "x");
	const char *warnmsg = "Cuda failure 'out of memory'";
	sysreport_nccltests_line(nw, warnmsg, strlen(warnmsg), 1);
	CHECK(!sysreport_nccltests_active(nw));
	sysreport_nccltests_end(nw);
	CHECK(get(f, "nccl_tests") == NULL);
	cJSON_Delete(f);

	/* streaming: a line cut in the middle of a row must not be read past */
	f = cJSON_CreateObject();
	struct nccltests *nt = sysreport_nccltests_new(f, "x");
	const char *hdr = "#       size         count      type   redop    root     time   algbw   busbw  #wrong     time   algbw   busbw  #wrong";
	const char *ver = "# nccl-tests version 2.17.8 nccl-headers=22902 nccl-library=22902";
	sysreport_nccltests_line(nt, ver, strlen(ver), 1);
	sysreport_nccltests_line(nt, hdr, strlen(hdr), 2);
	const char *row = "     1048576        262144     float     sum      -1   477.32    2.20    2.20      96   492.81    2.13    2.13      32";
	sysreport_nccltests_line(nt, row, 60, 3); /* cut: fewer columns, not a row */
	sysreport_nccltests_line(nt, row, strlen(row), 4);
	CHECK(sysreport_nccltests_active(nt));
	sysreport_nccltests_end(nt);
	CHECK_INT(gn(f, "nccl_tests.runs.0.rows"), 1);
	CHECK_INT(gn(f, "nccl_tests.runs.0.wrong"), 128);
	CHECK_INT(gb(f, "nccl_tests.runs.0.completed"), 0);
	cJSON_Delete(f);
}

/* A table pasted alone (no header, no footer): the rows open a run marked
 * headerless, columns from the row (13 cells: #wrong; 12 cells of a
 * broadcast; 11 of an old all_gather with the "error" column); the summary's
 * rows_only needs three clean rows in every run.  Negative cases: a
 * timestamp, a row with an unknown type word, one with too few cells, a
 * row with a #wrong count (failed, not rows_only), two rows only. */
static void bare(const char *const *lines, size_t n, cJSON *f)
{
	struct nccltests *nt = sysreport_nccltests_new(f, "x");
	for (size_t i = 0; i < n; i++) {
		size_t len = strlen(lines[i]);
		if (sysreport_nccltests_wants(nt, lines[i], len) ||
		    (!sysreport_nccltests_active(nt) && sysreport_nccltests_bare_row(lines[i], len)))
			sysreport_nccltests_line_nokw(nt, lines[i], len, i + 1);
	}
	sysreport_nccltests_end(nt);
}

static void test_nccl_tests_bare_rows(void)
{
	static const char *const ok[] = {
		"       32768          8192     float     sum      -1    18.66    1.76    3.07       0    17.95    1.83    3.20       0",
		"       65536         16384     float     sum      -1    18.95    3.46    6.05       0    18.25    3.59    6.28       0",
		"      131072         32768     float     sum      -1    19.25    6.81   11.91       0    18.43    7.11   12.44       0",
	};
	cJSON *f = cJSON_CreateObject();
	bare(ok, 3, f);
	CHECK_INT(gb(f, "nccl_tests.runs.0.headerless"), 1);
	CHECK_INT(gn(f, "nccl_tests.runs.0.rows"), 3);
	CHECK(gs(f, "nccl_tests.runs.0.error_column") && !strcmp(gs(f, "nccl_tests.runs.0.error_column"), "#wrong"));
	CHECK(fabs(gn(f, "nccl_tests.runs.0.max_busbw.value") - 12.44) < 1e-9);
	CHECK_INT(gb(f, "nccl_tests.rows_only"), 1);
	CHECK_INT(gn(f, "nccl_tests.rows_shown"), 3);
	CHECK_INT(gb(f, "nccl_tests.healthy"), 0);
	cJSON_Delete(f);

	static const char *const bcast_old[] = {
		"           8             2   float       0    45.82    0.00    0.00    N/A    38.17    0.00    0.00    N/A",
		"          16             4   float       0    45.10    0.00    0.00    N/A    38.00    0.00    0.00    N/A",
		"          32             8   float       0    45.33    0.00    0.00    N/A    38.51    0.00    0.00    N/A",
		"        1024           256    char    25.1    0.04    0.04  0e+00    24.9    0.04    0.04  0e+00",
	};
	f = cJSON_CreateObject();
	bare(bcast_old, 3, f);
	CHECK_INT(gn(f, "nccl_tests.runs.0.rows"), 3);
	CHECK_INT(gn(f, "nccl_tests.runs.0.rows_unchecked"), 3);
	CHECK_INT(gb(f, "nccl_tests.rows_only"), 1);
	cJSON_Delete(f);
	f = cJSON_CreateObject();
	bare(bcast_old + 3, 1, f); /* 11 cells, the old "error" column */
	CHECK(gs(f, "nccl_tests.runs.0.error_column") && !strcmp(gs(f, "nccl_tests.runs.0.error_column"), "error"));
	CHECK_INT(gb(f, "nccl_tests.rows_only"), -1); /* one row only */
	cJSON_Delete(f);

	static const char *const not_rows[] = {
		"2024 10 float sum -1 1.0 1.0 1.0 0 1.0 1.0 1.0 0x",   /* a last cell that is no number */
		"2024-05-01 12:00:00 float sum -1 1.0 1.0 1.0 0 1.0 1.0 1.0 0",
		"       32768          8192     floaty     sum      -1    18.66    1.76    3.07       0    17.95    1.83    3.20       0",
		"       32768          8192     float     sum    18.66    1.76    3.07       0",
		"       32768          8192     float     sum      -1    18.66    1.76    3.07       0    17.95    1.83    3.20       0       7",   /* 14 cells */
	};
	for (size_t i = 0; i < sizeof not_rows / sizeof not_rows[0]; i++) {
		f = cJSON_CreateObject();
		bare(not_rows + i, 1, f);
		CHECK(get(f, "nccl_tests") == NULL);
		cJSON_Delete(f);
	}
	CHECK(!sysreport_nccltests_bare_row("2024-05-01 12:00:00 float", 25));
	CHECK(sysreport_nccltests_bare_row("  8  2  bfloat16  sum", 21));

	static const char *const wrong[] = {
		"       32768          8192     float     sum      -1    18.66    1.76    3.07       0    17.95    1.83    3.20       0",
		"       65536         16384     float     sum      -1    18.95    3.46    6.05      12    18.25    3.59    6.28       0",
		"      131072         32768     float     sum      -1    19.25    6.81   11.91       0    18.43    7.11   12.44       0",
	};
	f = cJSON_CreateObject();
	bare(wrong, 3, f);
	CHECK_INT(gb(f, "nccl_tests.failed"), 1);
	CHECK_INT(gn(f, "nccl_tests.wrong"), 12);
	CHECK_INT(gb(f, "nccl_tests.rows_only"), -1);
	cJSON_Delete(f);
	f = cJSON_CreateObject();
	bare(ok, 2, f);
	CHECK_INT(gb(f, "nccl_tests.rows_only"), -1); /* two rows: not enough */
	cJSON_Delete(f);
}

/* sysreport_nccltests_line_nokw (bundle.c: a '#' line or a row of an open
 * run that holds no KW_NCCLTESTS literal) gives the facts _line gives: the
 * same lines fed both ways print the same facts.  Its negative case: a CR
 * or NUL inside a line becomes a blank in the parser's copy and may
 * complete a literal the keyword scan did not see ("Out of bounds\rvalues"):
 * such a line is still read as its kind. */
static void test_nccl_tests_nokw(void)
{
	static const struct {
		const char *s;
		size_t n; /* 0: strlen */
		int kw;   /* the line holds a KW_NCCLTESTS literal */
	} L[] = {
		{"# nccl-tests version 2.17.8 nccl-headers=22902 nccl-library=22902", 0, 1},
		{"# Collective test starting: all_reduce_perf", 0, 0},
		{"# nThread 1 nGpus 2 minBytes 8 maxBytes 128 step: 2(factor) warmup iters: 5 iters: 20 validation: 1 graph: 0", 0, 1},
		{"#  Rank  0 Group  0 Pid 662195 on gpu-1-1 device  0 [0009:01:00] NVIDIA GH200 120GB", 0, 0},
		{"# source: https://example.com/an/issue (a comment, no kind)", 0, 0},
		{"#       size         count      type   redop    root     time   algbw   busbw  #wrong", 0, 0},
		{"           8             2     float     sum      -1    17.49    0.00    0.00       0", 0, 0},
		{"         128            32     float     sum      -1    18.02    0.01    0.01       3", 0, 0},
		{"# Out of bounds\rvalues : 3 FAILED", 0, 0},
		{"# Avg bus bandwidth\0   : 4.79995 ", 34, 0},
		{"# Collective test concluded: all_reduce_perf", 0, 0},
	};
	cJSON *f1 = cJSON_CreateObject(), *f2 = cJSON_CreateObject();
	struct nccltests *a = sysreport_nccltests_new(f1, "x"), *b = sysreport_nccltests_new(f2, "x");
	for (size_t i = 0; i < sizeof L / sizeof L[0]; i++) {
		size_t n = L[i].n ? L[i].n : strlen(L[i].s);
		sysreport_nccltests_line(a, L[i].s, n, i + 1);
		if (L[i].kw)
			sysreport_nccltests_line(b, L[i].s, n, i + 1);
		else
			sysreport_nccltests_line_nokw(b, L[i].s, n, i + 1);
	}
	sysreport_nccltests_end(a);
	sysreport_nccltests_end(b);
	char *j1 = cJSON_PrintUnformatted(f1), *j2 = cJSON_PrintUnformatted(f2);
	CHECK(j1 && j2 && strcmp(j1, j2) == 0);
	CHECK_INT(gn(f2, "nccl_tests.runs.0.rows"), 2);
	CHECK_INT(gn(f2, "nccl_tests.runs.0.device_count"), 1);
	CHECK_INT(gn(f2, "nccl_tests.runs.0.oob.count"), 3); /* the CR case */
	CHECK(gs(f2, "nccl_tests.runs.0.oob.status") && !strcmp(gs(f2, "nccl_tests.runs.0.oob.status"), "FAILED"));
	CHECK(fabs(gn(f2, "nccl_tests.runs.0.avg_busbw.value") - 4.79995) < 1e-9); /* the NUL case */
	CHECK_INT(gb(f2, "nccl_tests.runs.0.concluded"), 1);
	free(j1);
	free(j2);
	cJSON_Delete(f1);
	cJSON_Delete(f2);
}

/* CR, NUL and LF in a line the keyword scan found nothing in: the parser
 * reads it as the same line with blanks there and a keyword possible
 * (parse_nccltests.c: one strcspn, then memchr, finds them).  So the facts
 * of _nokw on such a line are those of sysreport_nccltests_line on the line
 * with those bytes made blanks: lines of every kind with one to three of
 * them anywhere (the first byte, the last, next to each other). */
static void test_nccl_tests_odd_bytes(void)
{
	static const char *const BASE[] = {
	    "# Out of bounds values : 3 FAILED", "# Avg bus bandwidth    : 4.79995 ",
	    "#  Rank  0 Group  0 Pid 662195 on gpu-1-1 device  0 [0009:01:00] NVIDIA GH200 120GB",
	    "           8             2     float     sum      -1    17.49    0.00    0.00       3",
	    "# Collective test concluded: all_reduce_perf", "gpu-1-1: Test NCCL failure common.cu:1012 'internal'",
	    "#       size         count      type   redop    root     time   algbw   busbw  #wrong"};
	static const char ODD[3] = {'\r', 0, '\n'};
	const char *ver = "# nccl-tests version 2.17.8 nccl-headers=22902 nccl-library=22902";
	const char *hdr = "#       size         count      type   redop    root     time   algbw   busbw  #wrong";
	unsigned long long x = 0x853C49E6748FEA9BULL;
	int bad = 0;
	for (int it = 0; it < 3000; it++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		const char *b0 = BASE[x % (sizeof BASE / sizeof BASE[0])];
		char line[200], blank[200];
		size_t n = strlen(b0);
		memcpy(line, b0, n);
		for (int k = 0, nk = 1 + (int)((x >> 8) % 3); k < nk; k++) {
			size_t at = (x >> (12 + 8 * k)) % 4 == 0 ? n - 1 : (x >> (14 + 8 * k)) % n; /* the last byte often */
			line[at] = ODD[(x >> (20 + 8 * k)) % 3];
		}
		for (size_t i = 0; i < n; i++)
			blank[i] = line[i] == '\r' || line[i] == 0 || line[i] == '\n' ? ' ' : line[i];
		cJSON *f1 = cJSON_CreateObject(), *f2 = cJSON_CreateObject();
		struct nccltests *a = sysreport_nccltests_new(f1, "x"), *c = sysreport_nccltests_new(f2, "x");
		sysreport_nccltests_line(a, ver, strlen(ver), 1);
		sysreport_nccltests_line(c, ver, strlen(ver), 1);
		sysreport_nccltests_line(a, hdr, strlen(hdr), 2);
		sysreport_nccltests_line(c, hdr, strlen(hdr), 2);
		sysreport_nccltests_line_nokw(a, line, n, 3);
		sysreport_nccltests_line(c, blank, n, 3);
		sysreport_nccltests_end(a);
		sysreport_nccltests_end(c);
		char *j1 = cJSON_PrintUnformatted(f1), *j2 = cJSON_PrintUnformatted(f2);
		if (strcmp(j1, j2) && bad++ < 5)
			fprintf(stderr, "odd bytes in [%.*s]: _nokw %s\n  blanks %s\n", (int)n, blank, j1, j2);
		free(j1);
		free(j2);
		cJSON_Delete(f1);
		cJSON_Delete(f2);
	}
	CHECK_INT(bad, 0);
}

/* The device line as parse_nccltests.c read it with sscanf before
 * device_scan / bus_scan replaced it there: the reference. */
static cJSON *ref_device(const char *p)
{
	int rank = -1, group = -1, dev = -1, k = 0;
	long pid = -1;
	char host[256] = "";
	if (sscanf(p, "Rank %d Group %d Pid %ld on %255s device %d %n", &rank, &group, &pid, host, &dev, &k) == 5 ||
	    (group = -1, sscanf(p, "Rank %d Pid %ld on %255s device %d %n", &rank, &pid, host, &dev, &k) == 4) ||
	    (pid = -1, sscanf(p, "Rank %d on %255s device %d %n", &rank, host, &dev, &k) == 3)) {
	} else {
		return NULL;
	}
	if (k == 0 || rank < 0)
		return NULL;
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
			unsigned dom, bb, dd;
			if (sscanf(bus, "%x:%x:%x", &dom, &bb, &dd) == 3 && dom <= 0xffff && bb <= 0xff && dd <= 0x1f) {
				char norm[24];
				snprintf(norm, sizeof norm, "%04x:%02x:%02x.0", dom, bb, dd);
				sys_set_str(d, "bus_id", norm);
			} else {
				sys_set_str(d, "bus_id_text", bus);
			}
			b = e + 1;
			while (*b == ' ' || *b == '\t')
				b++;
		}
	}
	if (*b)
		sys_set_str(d, "name", b);
	return d;
}

/* nccl-tests' device lines: what the parser records is what sscanf read
 * (ref_device), on lines built from the pieces of the three forms, blanks
 * of every kind, numbers at the edges of int and long, hosts of 254 to 256
 * bytes (%255s takes 255), and bus ids sscanf's %x reads its own way ("0x", signs,
 * blanks: bus_scan leaves those to sscanf). */
static void test_nccl_tests_devices(void)
{
	static const char *const PIECE[] = {
		"Rank", "Group", "Pid", "on", "device", " ", "  ", "\t", "\v", "\f", "0", "3", "-1", "+7", "007",
		"2147483648", "99999999999999999999", "-", "gpu-1-1", "h", "[0009:01:00]", "[0x01]", "[0x:1:2]", "[ 5:1:2]",
		"[-1:2:3]", "[1:2]", "[fffff:1:2]", "[0000:ff:1f]", "[0000:100:00]", "NVIDIA GH200 120GB", "A40", "x",
		"Rankx", "devic", "[", "]", "LONG"};
	char longhost[300];
	memset(longhost, 'a', 299);
	longhost[299] = 0;
	unsigned long long x = 0x9E3779B97F4A7C15ULL;
	int bad = 0, parsed = 0;
	for (int it = 0; it < 20000; it++) {
		char b[1000] = "Rank ";
		/* mostly the real order, each piece sometimes swapped for a random one */
		static const char *const FORM[] = {"0", " ", "Group", " ", "0", " ", "Pid", " ", "3", " ", "on", " ", "h",
		                                   " ", "device", " ", "0", " ", "[0009:01:00]", " ", "A40"};
		for (size_t i = 0; i < sizeof FORM / sizeof FORM[0]; i++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			const char *pc = FORM[i];
			if (x % 12 == 0)
				pc = PIECE[(x >> 8) % (sizeof PIECE / sizeof PIECE[0])];
			else if ((FORM[i][0] == 'G' || FORM[i][0] == 'P') && x % 3 == 0)
				pc = ""; /* the older forms */
			if (FORM[i][0] == 'h' && pc == FORM[i] && x % 7 == 1)
				pc = "LONG";
			if (!strcmp(pc, "LONG"))
				pc = longhost + 299 - 254 - (x >> 20) % 3; /* 254 to 256 bytes: %255s's edge */
			if (strlen(b) + strlen(pc) < sizeof b - 1)
				strcat(b, pc);
		}
		char line[1010];
		snprintf(line, sizeof line, "#  %s", b);
		cJSON *f = cJSON_CreateObject();
		struct nccltests *nt = sysreport_nccltests_new(f, "x");
		const char *ver = "# nccl-tests version 2.17.8 nccl-headers=22902 nccl-library=22902";
		sysreport_nccltests_line(nt, ver, strlen(ver), 1);
		sysreport_nccltests_line_nokw(nt, line, strlen(line), 2);
		sysreport_nccltests_end(nt);
		cJSON *got = cJSON_Duplicate(cJSON_GetArrayItem(get(f, "nccl_tests.runs.0.devices"), 0), 1);
		if (got)
			cJSON_DeleteItemFromObjectCaseSensitive(got, "source");
		cJSON *want = ref_device(b);
		char *g = got ? cJSON_PrintUnformatted(got) : NULL, *w = want ? cJSON_PrintUnformatted(want) : NULL;
		if ((g == NULL) != (w == NULL) || (g && strcmp(g, w))) {
			if (bad++ < 5)
				fprintf(stderr, "device line [%s]: parser %s, sscanf %s\n", b, g ? g : "none", w ? w : "none");
		}
		parsed += g != NULL;
		free(g);
		free(w);
		cJSON_Delete(got);
		cJSON_Delete(want);
		cJSON_Delete(f);
	}
	CHECK_INT(bad, 0);
	CHECK(parsed > 2000 && parsed < 19000); /* both outcomes were tried */
}

/* nThread lines and failure lines: the numbers and the place the parser
 * records are what sscanf read there before ("nThread %d nGpus %d",
 * "validation: %d", " pid %ld", "failure %127[^ ']"). */
static void test_nccl_tests_scans(void)
{
	static const char *const NTH[] = {
		"# nThread 1 nGpus 8 minBytes 8 maxBytes 128 step: 2(factor) warmup iters: 5 iters: 20 validation: 1 graph: 0",
		"# nThread \t2\vnGpus  +3 validation:  -1", "# nThread 1nGpus 2", "# nThread 1 nGpus", "# nThread x nGpus 2",
		"# nThread 4294967297 nGpus 99999999999999999999 validation: 2147483648", "# nThread 1 nGpusx 2",
		"# nThread 1 nGpus 2 validation: x", "# nThread - nGpus 2", "# nThread 007 nGpus 0x1f"};
	for (size_t i = 0; i < sizeof NTH / sizeof NTH[0]; i++) {
		cJSON *f = cJSON_CreateObject();
		struct nccltests *nt = sysreport_nccltests_new(f, "x");
		sysreport_nccltests_line(nt, NTH[i], strlen(NTH[i]), 1);
		sysreport_nccltests_end(nt);
		int th = 0, g = 0, val = 0;
		const char *b = NTH[i] + 2;
		int ok = sscanf(b, "nThread %d nGpus %d", &th, &g) == 2;
		const char *vp = strstr(b, "validation: ");
		int vok = ok && vp && sscanf(vp + 12, "%d", &val) == 1;
		CHECK(!ok == !get(f, "nccl_tests.runs.0.nthread"));
		if (ok) {
			CHECK_INT(gn(f, "nccl_tests.runs.0.nthread"), th);
			CHECK_INT(gn(f, "nccl_tests.runs.0.ngpus"), g);
		}
		CHECK(!vok == !get(f, "nccl_tests.runs.0.validation"));
		if (vok)
			CHECK_INT(gn(f, "nccl_tests.runs.0.validation"), val);
		cJSON_Delete(f);
	}
	static const char *const FAIL[] = {
		" .. gpu-1-1 pid 29565: Test failure common.cu:1189",
		"gpu-1-1: Test NCCL failure common.cu:1012 'internal error - please report this issue to the NCCL developers / '",
		" .. h pid  -12: Test failure common.cu:1189", " .. h pid x: Test failure common.cu:1189",
		" .. h pid 99999999999999999999: Test failure a'b", "h: Test CUDA failure  common.cu:1 'x'",
		"h: Test CUDA failure 'busy'", "h: Test NCCL failure ", "NCCL failure common.cu:343 'unhandled cuda error'"};
	for (size_t i = 0; i < sizeof FAIL / sizeof FAIL[0]; i++) {
		cJSON *f = cJSON_CreateObject();
		struct nccltests *nt = sysreport_nccltests_new(f, "x");
		sysreport_nccltests_line(nt, FAIL[i], strlen(FAIL[i]), 1);
		sysreport_nccltests_end(nt);
		const char *s = FAIL[i];
		while (*s == ' ')
			s++;
		const char *at = strstr(s, "Test ") ? strstr(s, "Test ") : s;
		if (strstr(s, ": Test failure "))
			at = strstr(s, ": Test failure ") + 2;
		long pid = 0;
		char where[128];
		const char *pp = strstr(s, " pid ");
		int pok = pp && pp < at && sscanf(pp + 5, "%ld", &pid) == 1;
		const char *loc = strstr(at, "failure ");
		int wok = loc && sscanf(loc + 8, "%127[^ ']", where) == 1;
		CHECK(get(f, "nccl_tests.runs.0.failures.0") != NULL);
		CHECK(!pok == !get(f, "nccl_tests.runs.0.failures.0.pid"));
		if (pok)
			CHECK(gn(f, "nccl_tests.runs.0.failures.0.pid") == (double)pid);
		CHECK(!wok == !get(f, "nccl_tests.runs.0.failures.0.at"));
		if (wok)
			CHECK_STR(gs(f, "nccl_tests.runs.0.failures.0.at"), where);
		cJSON_Delete(f);
	}
}

/* Xid lines: what the kernel parser records is what the sscanf calls that
 * pci_scan and strtol replaced there read ("%x:%x:%x GPU-I:%x)%n",
 * "%x:%x:%x)%n", "%x:%x)%n", "%d", "pid=%ld", "name=%127[^, ]"), on lines
 * built from the pieces of the real forms and the odd ones (signs, blanks,
 * "0x", MIG instances, two fields, overflowing numbers, long names). */
static void test_kmsg_xid_scans(void)
{
	static const char *const ADDR[] = {"PCI:0000:01:00)", "0000:01:00)", "PCI:0000:01:00 GPU-I:05)", "01:00)",
	                                   "0x0:1:2)", "PCI: 0000:01:00)", "+1:2:3)", "0000:01:00 )", "fffffffff:1:2)",
	                                   "0000:01:", "0000:1c:1f)", "0000:100:00)", "10000:01:00)", "1:2:3:4)"};
	static const char *const NUM[] = {": 31", ": 79,", ":  -5", ":+48", ": x", ": 2147483648", ": 99999999999999999999",
	                                  "", ": 100000", ": 100001"};
	static const char *const REST[] = {", pid=2168, name=python, channel 0x1", ", pid=-3, name=", ", pid=x name=a b",
	                                   ", pid= 12, name=torch,x", ", GPU has fallen off the bus.", "",
	                                   ", name=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"};
	int bad = 0, kept = 0;
	for (size_t a = 0; a < sizeof ADDR / sizeof ADDR[0]; a++)
		for (size_t n = 0; n < sizeof NUM / sizeof NUM[0]; n++)
			for (size_t r = 0; r < sizeof REST / sizeof REST[0]; r++) {
				char line[400];
				snprintf(line, sizeof line, "[  108.577117] NVRM: Xid (%s%s%s", ADDR[a], NUM[n], REST[r]);
				/* the reference: the old calls on the same bytes */
				const char *p = strstr(line, "NVRM: Xid") + 9;
				while (*p == ' ')
					p++;
				p++;
				if (!strncmp(p, "PCI:", 4))
					p += 4;
				unsigned dom = 0, bus = 0, dev = 0, inst = 0;
				int k = 0, xid = 0, has_gi = 0, ok = 1;
				if (sscanf(p, "%x:%x:%x GPU-I:%x)%n", &dom, &bus, &dev, &inst, &k) == 4 && k) {
					has_gi = 1;
				} else if (k = 0, sscanf(p, "%x:%x:%x)%n", &dom, &bus, &dev, &k) != 3 || k == 0) {
					dom = 0;
					if (sscanf(p, "%x:%x)%n", &bus, &dev, &k) != 2 || k == 0)
						ok = 0;
				}
				const char *q = ok ? p + k : NULL;
				while (q && (*q == ':' || *q == ' '))
					q++;
				ok = ok && dom <= 0xffff && bus <= 0xff && dev <= 0x1f && sscanf(q, "%d", &xid) == 1 && xid >= 0 &&
				     xid <= 100000;
				long pid = 0;
				char name[128];
				const char *pp = ok ? strstr(q, "pid=") : NULL, *np = ok ? strstr(q, "name=") : NULL;
				int pok = pp && sscanf(pp + 4, "%ld", &pid) == 1, nok = np && sscanf(np + 5, "%127[^, ]", name) == 1;
				cJSON *f = cJSON_CreateObject();
				int got = sysreport_kmsg_line(f, line, strlen(line), "dmesg", 1);
				const cJSON *x = get(f, "kernel.xids.0");
				char want_bus[24];
				snprintf(want_bus, sizeof want_bus, "%04x:%02x:%02x.0", dom, bus, dev);
				int same = ok ? got == 1 && x && gn(x, "xid") == xid && gs(x, "bus_id") && !strcmp(gs(x, "bus_id"), want_bus) &&
				                    !get(x, "gpu_instance") == !has_gi && (!has_gi || gn(x, "gpu_instance") == inst) &&
				                    !get(x, "pid") == !pok && (!pok || gn(x, "pid") == (double)pid) &&
				                    !get(x, "process") == !nok && (!nok || !strcmp(gs(x, "process"), name))
				              : x == NULL;
				if (!same && bad++ < 5)
					fprintf(stderr, "xid line [%s]: not what sscanf read\n", line);
				kept += ok;
				cJSON_Delete(f);
			}
	CHECK_INT(bad, 0);
	CHECK(kept > 50 && kept < 900); /* both outcomes were tried */
}

/* OOM lines: what the kernel parser records is what the sscanf calls
 * that strtol and sys_scan_until replaced there read ("%ld (%127[^)])"
 * after "Killed process", ",pid=%ld", "%63[^,]" after "constraint=",
 * "%127[^,]" after ",task=" and "task_memcg="), on lines built from the
 * real forms and odd ones (signs, blanks before '(', "()", no ')', empty
 * and long fields, overflowing pids). */
static void test_kmsg_oom_scans(void)
{
	static const char *const PID[] = {"7899", "-3", "+12", " 42", "x", "", "99999999999999999999", "0", "12a"};
	static const char *const COMM[] = {" (python)", "(python)", " \t(pt_main_thread)", " ()", " (", " python", "  (a b)",
	                                   " (aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa)",
	                                   " (x"};
	static const char *const FIELD[] = {"CONSTRAINT_NONE", "", "CONSTRAINT_MEMCG,x", "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb", "a b"};
	int bad = 0;
	for (size_t a = 0; a < sizeof PID / sizeof PID[0]; a++)
		for (size_t c = 0; c < sizeof COMM / sizeof COMM[0]; c++) {
			char line[400];
			snprintf(line, sizeof line, "[  9.1] Out of memory: Killed process %s%s total-vm:1kB, anon-rss:5kB", PID[a], COMM[c]);
			long pid = 0;
			char comm[128];
			const char *k = strstr(line, "Killed process ") + 15;
			int ok = sscanf(k, "%ld (%127[^)])", &pid, comm) == 2 && pid > 0;
			cJSON *f = cJSON_CreateObject();
			sysreport_kmsg_line(f, line, strlen(line), "dmesg", 1);
			const cJSON *o = get(f, "kernel.oom_kills.0");
			int same = ok ? o && gn(o, "pid") == (double)pid && gs(o, "process") && !strcmp(gs(o, "process"), comm) : !o;
			if (!same && bad++ < 5)
				fprintf(stderr, "oom line [%s]: not what sscanf read\n", line);
			cJSON_Delete(f);
		}
	for (size_t a = 0; a < sizeof PID / sizeof PID[0]; a++)
		for (size_t c = 0; c < sizeof FIELD / sizeof FIELD[0]; c++)
			for (size_t t = 0; t < sizeof FIELD / sizeof FIELD[0]; t++) {
				char line[600];
				snprintf(line, sizeof line,
				         "[  9.0] oom-kill:constraint=%s,nodemask=(null),task_memcg=/k/%s,task=%s,pid=%s,uid=0", FIELD[c],
				         FIELD[t], FIELD[(c + t) % 5], PID[a]);
				long pid = 0;
				char cst[64], task[128], memcg[128];
				const char *p = strstr(line, "oom-kill:constraint="), *tp = strstr(p, ",task="),
				           *q = strstr(p, ",pid="), *mc = strstr(p, "task_memcg=");
				int ok = q && sscanf(q + 5, "%ld", &pid) == 1 && pid > 0;
				int cok = sscanf(p + 20, "%63[^,]", cst) == 1, tok = tp && sscanf(tp + 6, "%127[^,]", task) == 1,
				    mok = mc && sscanf(mc + 11, "%127[^,]", memcg) == 1;
				cJSON *f = cJSON_CreateObject();
				sysreport_kmsg_line(f, line, strlen(line), "dmesg", 1);
				const cJSON *o = get(f, "kernel.oom_kills.0");
				int same = ok ? o && gn(o, "pid") == (double)pid && !get(o, "constraint") == !cok &&
				                    (!cok || !strcmp(gs(o, "constraint"), cst)) && !get(o, "process") == !tok &&
				                    (!tok || !strcmp(gs(o, "process"), task)) && !get(o, "memcg") == !mok &&
				                    (!mok || !strcmp(gs(o, "memcg"), memcg))
				              : !o;
				if (!same && bad++ < 5)
					fprintf(stderr, "oom-kill line [%s]: not what sscanf read\n", line);
				cJSON_Delete(f);
			}
	CHECK_INT(bad, 0);
}

/* kernel messages as sys_parse_kmsg reads a whole text (the OOM reports are
 * tests/cases/kmsg).  The Xid reports stay here: through `analyze` only the
 * lines with a KW_KMSG keyword reach sysreport_kmsg_line, so the other NVRM
 * lines (nvrm[], nvrm_lines) are not counted there and the CLI's facts
 * differ from these. */
static void test_kmsg(void)
{
	cJSON *f = cJSON_CreateObject();
	parse_as(f, PUB "dmesg-xid79-gpuburn-1.txt", sys_parse_kmsg);
	CHECK_INT(gn(f, "kernel.xids.0.xid"), 79);
	CHECK_STR(gs(f, "kernel.xids.0.bus_id"), "0000:02:00.0");
	CHECK(gs(f, "kernel.xids.0.meaning") && strstr(gs(f, "kernel.xids.0.meaning"), "fallen off the bus"));
	CHECK_INT(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(get(f, "kernel.xid_by_gpu"), "0000:02:00.0"), 0)->valuedouble, 79);
	CHECK_INT(gn(f, "kernel.nvrm_lines"), 2); /* "GPU at PCI:..." and "GPU Board Serial Number" */
	cJSON_Delete(f);

	/* a MIG GPU instance in the address (the driver's own example line,
	 * open-gpu-kernel-modules kern_gpu_error_cont_ga100.c) */
	f = cJSON_CreateObject();
	{
		static const char mig[] = "NVRM: Xid (PCI:0000:01:00 GPU-I:05): 94, pid=7194, Contained: CE User Channel (0x9). RST: No, D-RST: No\n";
		CHECK_INT(sys_parse_kmsg(mig, sizeof mig - 1, "mig.txt", f, NULL), 1);
	}
	CHECK_INT(gn(f, "kernel.xids.0.xid"), 94);
	CHECK_STR(gs(f, "kernel.xids.0.bus_id"), "0000:01:00.0");
	CHECK_INT(gn(f, "kernel.xids.0.gpu_instance"), 5);
	CHECK_INT(gn(f, "kernel.xids.0.pid"), 7194);
	cJSON_Delete(f);

	/* the 2 x H200 host: Xid 31 and 43 on one GPU, the driver version */
	f = cJSON_CreateObject();
	parse_as(f, MORE "sys/dmesg-grep-NVRM.txt", sys_parse_kmsg);
	CHECK_INT(cJSON_GetArraySize(get(f, "kernel.xids")), 2);
	CHECK_INT(gn(f, "kernel.xids.0.xid"), 31);
	CHECK_INT(gn(f, "kernel.xids.0.pid"), 2168);
	CHECK_STR(gs(f, "kernel.xids.0.process"), "python");
	CHECK_INT(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(get(f, "kernel.xid_by_gpu"), "0000:00:07.0")), 2);
	CHECK_STR(gs(f, "versions.driver.value"), "580.159.04");
	cJSON_Delete(f);

	/* a syslog line gives the host; no read past a short line */
	f = cJSON_CreateObject();
	const char *sl = "Mar 10 01:33:03 cpu-6-2 kernel: Out of memory: Killed process 4182 (python) total-vm:1kB";
	CHECK_INT(sysreport_kmsg_line(f, sl, strlen(sl), "syslog", 7), 1);
	CHECK_STR(gs(f, "kernel.oom_kills.0.host"), "cpu-6-2");
	CHECK_INT(sysreport_kmsg_line(f, sl, 20, "syslog", 8), 0);
	cJSON_Delete(f);

	/* the caps: a dmesg paste many times over keeps the first 512 Xids and
	 * 256 kills and counts the rest (once full, kernel.dropped says so
	 * without a walk of the array at every line) */
	f = cJSON_CreateObject();
	{
		static const char mig[] = "NVRM: Xid (PCI:0000:01:00 GPU-I:05): 94, pid=7194, Contained: CE User Channel (0x9). RST: No, D-RST: No";
		for (int i = 0; i < 600; i++)
			sysreport_kmsg_line(f, mig, sizeof mig - 1, "many.txt", (uint64_t)i + 1);
		size_t len;
		char *t = slurp(PUB "dmesg-T-oom-autovod-7.txt", &len);
		struct buf b;
		buf_init(&b);
		for (int i = 0; i < 300; i++)
			buf_add(&b, t, len);
		sys_parse_kmsg(b.data, b.len, "oom-many.txt", f, NULL);
		buf_free(&b);
		free(t);
	}
	CHECK_INT(cJSON_GetArraySize(get(f, "kernel.xids")), 512);
	CHECK_INT(gn(f, "kernel.dropped.xids"), 88);
	CHECK_INT(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(get(f, "kernel.xid_by_gpu"), "0000:01:00.0")), 1);
	CHECK_INT(cJSON_GetArraySize(get(f, "kernel.oom_kills")), 256); /* one kill a copy: its two lines merged */
	CHECK_INT(gn(f, "kernel.oom_kills.255.pid"), 7899);
	CHECK_INT(gn(f, "kernel.dropped.oom_kills"), 2 * 44); /* both lines of each kill past the cap */
	cJSON_Delete(f);
}

static void test_nodes(void)
{
	cJSON *f = cJSON_CreateObject();
	static const char *const L[][2] = {
		{"learn01", "NET/IB : GPU Direct RDMA Disabled for HCA 0 'mlx5_0'"},
		{"hostname1", "NET/IB : Using [0]mlx5_0:1/RoCE [1]mlx5_1:1/RoCE [RO]; OOB primaryip:10.10.10.10<0>"},
		{"hostname1", "Using network IB"},
		{"vm", "Bootstrap: Using lo:127.0.0.1<0>"},
		{"192-222-53-60", "NET/Plugin: Using internal network plugin."},
		{"192-222-53-60", "cudaDriverVersion 12040"},
		{"ip-172-31-20-228", "NCCL version 2.21.5+cuda12.4"},
	};
	for (size_t i = 0; i < sizeof L / sizeof L[0]; i++)
		CHECK_INT(sysreport_node_info(f, L[i][0], strlen(L[i][0]), L[i][1], strlen(L[i][1]), "log", i + 1), 1);
	CHECK_INT(gb(f, "nodes.learn01.gdr.mlx5_0.enabled"), 0);
	CHECK_STR(gs(f, "nodes.hostname1.ib_devices.value"), "[0]mlx5_0:1/RoCE [1]mlx5_1:1/RoCE [RO]");
	CHECK_STR(gs(f, "nodes.hostname1.network.value"), "IB");
	CHECK_STR(gs(f, "nodes.vm.bootstrap.value"), "lo:127.0.0.1<0>");
	CHECK_STR(gs(f, "nodes.192-222-53-60.net_plugin.value"), "internal");
	CHECK_STR(gs(f, "nodes.192-222-53-60.cuda_driver.value"), "12.4");
	CHECK_STR(gs(f, "nodes.ip-172-31-20-228.nccl_version.value"), "2.21.5");
	CHECK_STR(gs(f, "nodes.ip-172-31-20-228.nccl_build.value"), "cuda12.4");
	/* a second version on the same host is kept apart */
	CHECK_INT(sysreport_node_info(f, "ip-172-31-20-228", 16, "NCCL version 2.18.1+cuda12.1", 28, "log2", 3), 1);
	CHECK_STR(gs(f, "nodes.ip-172-31-20-228.nccl_version.others.0.value"), "2.18.1");
	CHECK_INT(sysreport_node_info(f, "h", 1, "Init COMPLETE", 13, "log", 9), 0);
	/* the driver's CUDA version as snprintf's "%ld.%ld" wrote it, at the ends of its range */
	static const long CODES[] = {1, 9, 10, 999, 1000, 11080, 12090, 13000, 99999, 100000, 0, 100001};
	for (size_t i = 0; i < sizeof CODES / sizeof CODES[0]; i++) {
		char h[16], m[40], want[32], key[48];
		snprintf(h, sizeof h, "drv%zu", i);
		snprintf(m, sizeof m, "cudaDriverVersion %ld", CODES[i]);
		int ok = CODES[i] > 0 && CODES[i] <= 100000;
		CHECK_INT(sysreport_node_info(f, h, strlen(h), m, strlen(m), "log", 20 + i), ok);
		snprintf(want, sizeof want, "%ld.%ld", CODES[i] / 1000, (CODES[i] % 1000) / 10);
		snprintf(key, sizeof key, "nodes.%s.cuda_driver.value", h);
		if (ok)
			CHECK_STR(gs(f, key), want);
		else
			CHECK(gs(f, key) == NULL);
	}
	cJSON_Delete(f);
}

static void test_versions_bare_nccl(void)
{
	/* NCCL's own version strings are never torch's (lines in the layouts of a
	 * version print and of `conda list`, written for this test; vLLM's
	 * collect_env is tests/cases/versions) */
	cJSON *f = cJSON_CreateObject();
	const char *t = "2.18.3+cuda12.2\n";
	struct msgs m0 = {0};
	sys_parse_versions(t, strlen(t), "x", f, &m0);
	msgs_free(&m0);
	CHECK(get(f, "versions.torch") == NULL);
	cJSON_Delete(f);
	f = cJSON_CreateObject();
	t = "# Name                    Version                   Build  Channel\n"
	    "nccl                      2.21.5.1             h6103f9a_0    conda-forge\n"
	    "pytorch                   2.3.1           py3.11_cuda12.1_cudnn8.9.2_0    pytorch\n";
	struct msgs m = {0};
	sys_parse_versions(t, strlen(t), "conda.txt", f, &m);
	msgs_free(&m);
	CHECK_STR(gs(f, "versions.nccl_conda.value"), "2.21.5.1");
	CHECK_STR(gs(f, "versions.torch.value"), "2.3.1");
	CHECK_STR(gs(f, "versions.torch_cuda.value"), "12.1");
	cJSON_Delete(f);
}

/* ---------- rules, end to end ---------- */

static struct sigdb db;

static struct bundle *run_paths(const char *const *paths)
{
	struct bundle *b = bundle_new("t", &db, NULL);
	for (size_t i = 0; paths[i]; i++)
		bundle_add_path(b, paths[i], NULL);
	analysis_finish(b);
	return b;
}

static const struct evidence *ev(const struct bundle *b, const char *id)
{
	for (size_t i = 0; i < b->ev.n; i++)
		if (!strcmp(b->ev.v[i].id, id))
			return &b->ev.v[i];
	return NULL;
}

static int diagnosed(const struct bundle *b, const char *id)
{
	for (size_t i = 0; i < b->ndiags; i++)
		if (!strcmp(b->diags[i].def->id, id))
			return 1;
	return 0;
}

static void test_rules(void)
{
	/* wrong values in a real nccl-tests run */
	const char *p1[] = {PUB "nccl-tests-2.17.8-gh200-wrong-values.txt", NULL};
	struct bundle *b = run_paths(p1);
	const struct evidence *e = ev(b, "host.nccl_tests_wrong_values");
	CHECK(e != NULL);
	if (e) {
		CHECK_INT(e->line, 29);
		CHECK_STR(evidence_cap(e, "wrong"), "128");
		CHECK_STR(evidence_cap(e, "nccl_library"), "2.29.2");
	}
	CHECK(diagnosed(b, "sys.nccl_tests_wrong_values"));
	bundle_free(b);

	/* a healthy tail: no finding */
	const char *p2[] = {PUB "nccl-tests-tail-ok-119.txt", NULL};
	b = run_paths(p2);
	CHECK(ev(b, "host.nccl_tests_wrong_values") == NULL);
	bundle_free(b);

	/* 1 MiB /dev/shm with NCCL_CUMEM_ENABLE=0: the shm failure and the size together */
	const char *p3[] = {MORE "shm_small_cumem_off", NULL};
	b = run_paths(p3);
	e = ev(b, "host.shm_small");
	CHECK(e != NULL);
	if (e)
		CHECK_STR(evidence_cap(e, "shm_size"), "1.0M");
	CHECK(diagnosed(b, "sys.shm_small_with_failure"));
	CHECK(!diagnosed(b, "sys.shm_small"));
	bundle_free(b);
	/* the same 1 MiB /dev/shm on a run that worked: context only */
	const char *p4[] = {MORE "shm_small", NULL};
	b = run_paths(p4);
	CHECK(diagnosed(b, "sys.shm_small"));
	CHECK(!diagnosed(b, "sys.shm_small_with_failure"));
	bundle_free(b);

	/* NCCL_SOCKET_IFNAME=^eth with /proc/net/dev of the same host (eth0 ifb0 ifb1 lo):
	 * names only, no state or address, so whether only lo is left cannot be told */
	const char *p5[] = {MORE "env_socket_ifname_not_eth/run.log", MORE "sys/net.txt", NULL};
	b = run_paths(p5);
	CHECK_INT(cJSON_GetArraySize(get(b->facts, "interfaces")), 4);
	CHECK(ev(b, "host.socket_ifname_absent") == NULL);
	bundle_free(b);
	/* the same runs next to `ip addr` of the build machine, which has the same
	 * interfaces (lo, ifb0 and ifb1 down, eth0 up): two real reports of two
	 * machines, paired here to exercise the comparison */
	const char *p5b[] = {MORE "env_socket_ifname_not_eth/run.log", LOC "ip-addr.txt", NULL};
	b = run_paths(p5b);
	e = ev(b, "host.socket_ifname_absent");
	CHECK(e != NULL);
	if (e) {
		CHECK(strstr(e->text, "leaves only the loopback interface lo") != NULL);
		CHECK_STR(e->path, "run.log");
		CHECK_INT(e->line, 8);
	}
	CHECK(diagnosed(b, "sys.socket_ifname_absent"));
	bundle_free(b);
	const char *p5c[] = {"fixtures/captures/h200-2gpu/scenarios/bad_socket_ifname/run.log", LOC "ip-br-addr.txt", NULL};
	b = run_paths(p5c);
	e = ev(b, "host.socket_ifname_absent");
	CHECK(e != NULL);
	if (e)
		CHECK(strstr(e->text, "NCCL_SOCKET_IFNAME=nonexist0") && strstr(e->text, "matches none"));
	bundle_free(b);

	/* per-host facts from the real log: one host, nothing differs */
	const char *p6[] = {MORE "env_socket_ifname_not_eth/run.log", NULL};
	b = run_paths(p6);
	CHECK_STR(gs(b->facts, "nodes.vm.nccl_version.value"), "2.28.9");
	CHECK_STR(gs(b->facts, "nodes.vm.network.value"), "Socket");
	CHECK(get(b->facts, "nodes.vm.ib_devices") == NULL); /* "NET/IB : Using [RO]; OOB ...": no device */
	CHECK(ev(b, "host.nodes_nccl_differs") == NULL);
	bundle_free(b);

	/* memlock 64 KiB and an IB port list: the limit matters */
	const char *p7[] = {PUB "ulimit-a-memlock-64-ucx-8229.txt", PUB "ibstat-8xcx7-1591-truncated.txt", NULL};
	b = run_paths(p7);
	CHECK(ev(b, "host.memlock_small_with_ib") == NULL); /* an ibstat alone does not say NCCL uses IB */
	bundle_free(b);

	/* a host_config document is parsed into facts and its lines still go
	 * through the signatures (ulimit -a's memlock line), counted once */
	const char *p7b[] = {PUB "ulimit-a-memlock-64-ucx-8229.txt", NULL};
	b = run_paths(p7b);
	CHECK_INT(b->ndocs, 1);
	if (b->ndocs == 1) {
		CHECK_INT(b->docs[0].kind, DOC_HOST_CONFIG);
		CHECK_INT(b->docs[0].lines, 17);
	}
	CHECK(get(b->facts, "limits.memlock") != NULL);
	CHECK(ev(b, "memlock.ulimit_a_small") != NULL);
	CHECK(diagnosed(b, "memlock.limit_too_low"));
	bundle_free(b);

	/* a Down port in ibstat: a fact, a finding only where the job uses RDMA */
	const char *p8[] = {PUB "ibstat-port-down-188-truncated.txt", NULL};
	b = run_paths(p8);
	CHECK(ev(b, "host.ib_ports_down") == NULL);
	bundle_free(b);
	{
		struct bundle *bb = bundle_new("t", &db, NULL);
		bundle_add_path(bb, PUB "ibstat-port-down-188-truncated.txt", NULL);
		/* the error line of nccl#426 (tests/learn/ib-nccl-426-gid.log) */
		const char *log = "-worker-1:946:988 [0] transport/net_ib.cc:839 NCCL WARN NET/IB : Got completion with error 12, opcode 1, len 0, vendor err 129\n";
		bundle_add_memory(bb, "rank0.log", log, strlen(log));
		analysis_finish(bb);
		e = ev(bb, "host.ib_ports_down");
		CHECK(e != NULL);
		if (e)
			CHECK(strstr(e->text, "mlx5_1:1 Down/Disabled") && strstr(e->text, "InfiniBand/RoCE error"));
		bundle_free(bb);
	}

	/* RoCE GID index: the variable names an index the HCA does not have
	 * (nccl#1573's pod has indexes 4-7); an env line set next to the listing */
	{
		struct bundle *bb = bundle_new("t", &db, NULL);
		bundle_add_path(bb, PUB "show_gids-k8s-tabs-1573.txt", NULL);
		const char *env = "NCCL_IB_GID_INDEX=3\nNCCL_IB_HCA=mlx5_0\nNCCL_DEBUG=INFO\n";
		bundle_add_memory(bb, "env.txt", env, strlen(env));
		analysis_finish(bb);
		e = ev(bb, "host.roce_gid_index");
		CHECK(e != NULL);
		if (e) {
			CHECK(strstr(e->text, "GID index 3 on mlx5_0:1") && strstr(e->text, "does not exist (4 GIDs listed)"));
			CHECK(strstr(e->text, "NCCL_IB_GID_INDEX=7 (the RoCE v2 GID with IPv4 10.152.0.12 on mlx5_0)") != NULL);
		}
		CHECK(diagnosed(bb, "sys.roce_gid_index"));
		bundle_free(bb);
	}
	/* NCCL before 2.21 uses index 0, the link-local RoCE v1 GID of nccl#1131's listing */
	{
		struct bundle *bb = bundle_new("t", &db, NULL);
		bundle_add_path(bb, PUB "show_gids-spaces-1131-truncated.txt", NULL);
		const char *log = "NCCL version 2.18.3+cuda12.2\n";
		bundle_add_memory(bb, "rank0.log", log, strlen(log));
		analysis_finish(bb);
		e = ev(bb, "host.roce_gid_index");
		CHECK(e != NULL);
		if (e)
			CHECK(strstr(e->text, "the default of NCCL before 2.21") && strstr(e->text, "link-local") &&
			      strstr(e->text, "NCCL_IB_GID_INDEX=3"));
		bundle_free(bb);
	}

	/* Xid 31 on the H200 host's GPU 0000:00:07 from pid 2168 = rank 1 of the
	 * cuda_illegal_address run (NCCL busId 70); the Xid 43 on the same GPU came
	 * from pid 2291, another job: not tied to this run's rank */
	const char *p12[] = {MORE "cuda_illegal_address/run.log", MORE "sys/dmesg-grep-NVRM.txt", NULL};
	b = run_paths(p12);
	e = ev(b, "host.xid_on_rank_gpu");
	CHECK(e != NULL);
	if (e) {
		CHECK_INT(e->rank, 1);
		CHECK_STR(evidence_cap(e, "xid_code"), "31");
		CHECK(strstr(e->text, "the bus ids and the pids match") != NULL);
	}
	int n43 = 0;
	for (size_t i = 0; i < b->ev.n; i++)
		if (!strcmp(b->ev.v[i].id, "host.xid_on_rank_gpu") && evidence_cap(&b->ev.v[i], "xid_code") &&
		    !strcmp(evidence_cap(&b->ev.v[i], "xid_code"), "43"))
			n43++;
	CHECK_INT(n43, 0);
	CHECK(diagnosed(b, "sys.xid_on_rank_gpu"));
	bundle_free(b);
	/* a SIGKILLed rank and an OOM kill of another pid: not tied */
	const char *p13[] = {MORE "sigkill_coll/run.log", PUB "dmesg-T-oom-autovod-7.txt", NULL};
	b = run_paths(p13);
	CHECK(get(b->facts, "kernel.oom_kills.0") != NULL);
	CHECK(ev(b, "host.oom_killed_rank") == NULL);
	bundle_free(b);

	/* nccl#1537: nvidia_peermem loaded, GDR disabled on hostname1; the paste shows
	 * no NCCL version, so the old-NCCL explanation cannot be claimed */
	{
		struct bundle *bb = bundle_new("t", &db, NULL);
		bundle_add_path(bb, PUB "lsmod-peermem-1537.txt", NULL);
		const char *log = "hostname1:25668:27396 [0] NCCL INFO Using network IB\n"
		                  "hostname1:25668:27396 [0] NCCL INFO NET/IB : GPU Direct RDMA Disabled for HCA 0 'mlx5_0'\n"
		                  "hostname1:25668:27396 [0] NCCL INFO NET/IB : GPU Direct RDMA Disabled for HCA 1 'mlx5_1'\n";
		bundle_add_memory(bb, "nccldebug-hostname1", log, strlen(log));
		analysis_finish(bb);
		CHECK_INT(gb(bb->facts, "nodes.hostname1.gdr.mlx5_1.enabled"), 0);
		CHECK(ev(bb, "host.peermem_name_old_nccl") == NULL);
		CHECK(ev(bb, "host.peermem_not_loaded") == NULL); /* a filtered listing proves no absence */
		bundle_free(bb);
	}

	/* vLLM's own NCCL wheel next to nvidia-nccl-cu12 (vllm#4211): two NCCLs */
	const char *p14[] = {PUB "collect_env-pip3-vllm-nccl-4211.txt", NULL};
	b = run_paths(p14);
	e = ev(b, "versions.multiple_nccl");
	CHECK(e != NULL);
	if (e)
		CHECK(strstr(e->text, "2.19.3") && strstr(e->text, "vllm-nccl-cu12 2.18.1.0.3.0"));
	bundle_free(b);

	/* two NCCL versions installed (nccl#1784) */
	const char *p10[] = {PUB "ls-l-libnccl-two-versions-1784.txt", NULL};
	b = run_paths(p10);
	e = ev(b, "host.libnccl_several");
	CHECK(e != NULL);
	if (e)
		CHECK(strstr(e->text, "(2.27.0)") && strstr(e->text, "(2.23.4)"));
	bundle_free(b);
	/* the H200 host's listing: one versioned file, one pip copy without a version in its name */
	const char *p11[] = {"fixtures/captures/h200-2gpu/sys/libnccl-paths.txt", NULL};
	b = run_paths(p11);
	CHECK(ev(b, "host.libnccl_several") == NULL);
	CHECK_INT(cJSON_GetArraySize(get(b->facts, "libnccl")), 4);
	bundle_free(b);

	/* NCCL_IB_HCA naming an HCA the listing does not have, or a Down port */
	{
		struct bundle *bb = bundle_new("t", &db, NULL);
		bundle_add_path(bb, PUB "ibstat-port-down-188-truncated.txt", NULL);
		const char *env = "NCCL_IB_HCA=mlx5_99\n";
		bundle_add_memory(bb, "env.txt", env, strlen(env));
		analysis_finish(bb);
		e = ev(bb, "host.ib_hca_absent");
		CHECK(e != NULL);
		if (e)
			CHECK(strstr(e->text, "mlx5_0:1, mlx5_1:1, mlx5_2:1") != NULL);
		CHECK(ev(bb, "host.ib_hca_down_selected") == NULL);
		bundle_free(bb);
		bb = bundle_new("t", &db, NULL);
		bundle_add_path(bb, PUB "ibstat-port-down-188-truncated.txt", NULL);
		env = "NCCL_IB_HCA==mlx5_1:1\n";
		bundle_add_memory(bb, "env.txt", env, strlen(env));
		analysis_finish(bb);
		CHECK(ev(bb, "host.ib_hca_absent") == NULL);
		e = ev(bb, "host.ib_hca_down_selected");
		CHECK(e != NULL);
		if (e)
			CHECK(strstr(e->text, "mlx5_1:1 Down") != NULL);
		bundle_free(bb);
	}

	/* no ACS finding where no GPU sits below the bridge */
	const char *p9[] = {PUB "lspci-vvv-amd-gpp-bridges-acs-kvm-2023.txt", PUB "lspci-grep-acsctl-606.txt", NULL};
	b = run_paths(p9);
	CHECK(ev(b, "host.acs_redirect_above_gpu") == NULL);
	bundle_free(b);
}

int main(void)
{
	test_nccl_tests();
	test_nccl_tests_nokw();
	test_nccl_tests_bare_rows();
	test_nccl_tests_odd_bytes();
	test_nccl_tests_devices();
	test_nccl_tests_scans();
	test_kmsg_xid_scans();
	test_kmsg_oom_scans();
	test_kmsg();
	test_nodes();
	test_versions_bare_nccl();
	struct msgs m = {0};
	sigdb_init(&db);
	rules_register(&db);
	CHECK_INT(sigdb_load_dir(&db, "patterns", &m), 0);
	CHECK_INT(sigdb_finalize(&db, &m), 0);
	for (size_t i = 0; i < m.list.n; i++)
		fprintf(stderr, "%s\n", m.list.v[i]);
	msgs_free(&m);
	test_rules();
	sigdb_free(&db);
	TEST_MAIN_END();
}
