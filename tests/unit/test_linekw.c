/* The line keywords found by the prefilter pass (matcher_scan, the fast
 * path every analysed line takes) must equal the slow search (linekw_scan)
 * on every line of the real logs and pasted reports in fixtures/ and
 * tests/: a keyword missed there would silently change rank timelines. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "linekw.h"
#include "logline.h"
#include "match.h"
#include "sigdb.h"
#include "testlib.h"

static struct matcher *mt;
static size_t lines, mismatches;
static uint64_t seen;

static void check_text(const char *path, const char *p, size_t n)
{
	while (n > 0) {
		const char *nl = memchr(p, '\n', n);
		size_t len = nl ? (size_t)(nl - p) : n;
		struct logline ll;
		logline_parse(p, len, &ll);
		matcher_scan(mt, &ll);
		uint64_t slow = linekw_scan(ll.msg.p, ll.msg.n);
		if (!ll.kw_known || ll.kw != slow) {
			if (mismatches++ < 5)
				fprintf(stderr, "%s: keywords %llx, slow search %llx: %.*s\n", path,
				        (unsigned long long)ll.kw, (unsigned long long)slow, (int)(len > 200 ? 200 : len), p);
		}
		seen |= slow;
		lines++;
		if (!nl)
			break;
		p = nl + 1;
		n -= len + 1;
	}
}

static void walk(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		char path[4096];
		snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
		struct stat st;
		if (stat(path, &st) != 0)
			continue;
		if (S_ISDIR(st.st_mode)) {
			walk(path);
			continue;
		}
		size_t l = strlen(path);
		if (!S_ISREG(st.st_mode) || st.st_size > (32 << 20) ||
		    !((l > 4 && strcmp(path + l - 4, ".log") == 0) || (l > 4 && strcmp(path + l - 4, ".txt") == 0)))
			continue;
		FILE *f = fopen(path, "rb");
		if (!f)
			continue;
		char *buf = malloc((size_t)st.st_size + 1);
		size_t got = fread(buf, 1, (size_t)st.st_size, f);
		fclose(f);
		check_text(path, buf, got);
		free(buf);
	}
	closedir(d);
}

int main(void)
{
	struct msgs m = {0};
	struct sigdb db;
	sigdb_init(&db);
	CHECK(sigdb_load_dir(&db, "patterns", &m) == 0);
	CHECK(sigdb_finalize(&db, &m) == 0);
	mt = matcher_new(&db);
	walk("fixtures");
	walk("tests/corpus");
	walk("tests/heldout");
	CHECK(lines > 10000);
	CHECK(mismatches == 0);
	/* the sample exercises most keywords */
	int bits = 0;
	for (int k = 0; k < KW_COUNT; k++)
		bits += (seen >> k) & 1;
	CHECK(bits >= KW_COUNT * 2 / 3);
	fprintf(stderr, "test_linekw: %zu lines, %d of %d keywords seen\n", lines, bits, KW_COUNT);
	matcher_free(mt);
	sigdb_free(&db);
	msgs_free(&m);
	TEST_MAIN_END();
}
