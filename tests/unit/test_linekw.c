/* Two fast paths checked against the slow ones on every line of the real
 * logs and pasted reports in fixtures/ and tests/:
 *   - the line keywords found by the prefilter pass (matcher_scan) must
 *     equal the slow search (linekw_scan): a keyword missed there would
 *     silently change rank timelines;
 *   - logline_parse remembers the previous NCCL prefix (per thread): each
 *     line parsed right after its predecessor (the memo may apply) must get
 *     the same fields as after an unrelated line (the memo cannot). */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "parse/linekw.h"
#include "parse/logline.h"
#include "match/match.h"
#include "rules/rules.h"
#include "match/sigdb.h"
#include "testlib.h"

static struct matcher *mt;
static size_t lines, mismatches, parse_mismatches, floor_mismatches;
static uint64_t seen, floor_seen;

static int same_span(struct span a, const char *la, struct span b, const char *lb)
{
	if (!a.p || !b.p)
		return !a.p && !b.p && a.n == b.n;
	return a.p - la == b.p - lb && a.n == b.n;
}

/* The parse of line (len n) as it comes in the file, and again after a
 * line with another NCCL prefix has replaced the memo. */
static void check_parse(const char *path, const char *p, size_t n, const struct logline *in_order)
{
	static const char other[] = "memo-reset:1:1 [0] NCCL INFO x";
	struct logline reset, fresh;
	logline_parse(other, sizeof other - 1, &reset);
	logline_parse(p, n, &fresh);
	const struct logline *a = in_order, *b = &fresh;
	if (a->level != b->level || a->pid != b->pid || a->tid != b->tid || a->dev != b->dev || a->rank != b->rank ||
	    a->srcline != b->srcline || !same_span(a->msg, p, b->msg, p) || !same_span(a->ts, p, b->ts, p) ||
	    !same_span(a->host, p, b->host, p) || !same_span(a->file, p, b->file, p) ||
	    !same_span(a->func, p, b->func, p)) {
		if (parse_mismatches++ < 5)
			fprintf(stderr, "%s: the remembered prefix parses differently: %.*s\n", path,
			        (int)(n > 200 ? 200 : n), p);
	}
}

static void check_text(const char *path, const char *p, size_t n)
{
	while (n > 0) {
		const char *nl = memchr(p, '\n', n);
		size_t len = nl ? (size_t)(nl - p) : n;
		struct logline ll;
		logline_parse(p, len, &ll);
		matcher_scan(mt, &ll);
		const char *k0 = ll.head ? ll.head : ll.msg.p; /* from the logger header on (logline.h) */
		uint64_t slow = linekw_scan(k0, (size_t)(ll.msg.p + ll.msg.n - k0));
		check_parse(path, p, len, &ll);
		/* the floor's tier-1 keywords ride on the same pass (linekw.h) */
		if (ll.floor != floorkw_scan(k0, (size_t)(ll.msg.p + ll.msg.n - k0))) {
			if (floor_mismatches++ < 5)
				fprintf(stderr, "%s: floor keywords %llx, slow search %llx: %.*s\n", path,
				        (unsigned long long)ll.floor, (unsigned long long)floorkw_scan(k0, (size_t)(ll.msg.p + ll.msg.n - k0)),
				        (int)(len > 200 ? 200 : len), p);
		}
		floor_seen |= ll.floor;
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
	rules_register(&db);
	CHECK(sigdb_load_dir(&db, "patterns", &m) == 0);
	CHECK(sigdb_finalize(&db, &m) == 0);
	mt = matcher_new(&db);
	walk("fixtures");
	walk("tests/corpus");
	walk("tests/heldout");
	CHECK(lines > 10000);
	CHECK(mismatches == 0);
	CHECK(parse_mismatches == 0);
	CHECK(floor_mismatches == 0);
	CHECK(floor_seen != 0); /* the captures hold floor keywords (out of memory, Watchdog caught, ...) */
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
