/* derive.c - see derive.h. */
#include "match/derive.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <cjson/cJSON.h>

#include "base/json.h"
#include "parse/crash.h"
#include "match/category.h"
#include "match/patids.h"
#include "base/util.h"

static const char *const FROM_NAMES[] = {"nccl_file", "nccl_result", "exception", "message", "crash"};

const char *derive_from_name(enum derive_from f)
{
	return f >= DERIVE_NCCL_FILE && f <= DERIVE_CRASH ? FROM_NAMES[f] : "?";
}

/* Where derive_load reports: "file:line: path: problem", the line of path
 * in the file's text (json_path_line), or "file: path: problem". */
struct dload {
	const char *file;
	const char *text;
	size_t len;
	struct msgs *m;
};

static void derr(const struct dload *d, const char *path, const char *suffix, const char *fmt, ...) NT_PRINTF(4, 5);
static void derr(const struct dload *d, const char *path, const char *suffix, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s = xvasprintf(fmt, ap);
	va_end(ap);
	char *full = xasprintf("%s%s", path, suffix);
	size_t line = d->text ? json_path_line(d->text, d->len, full) : 0;
	if (line)
		msgs_add(d->m, "%s:%zu: %s: %s", d->file, line, full, s);
	else
		msgs_add(d->m, "%s: %s: %s", d->file, full, s);
	free(full);
	free(s);
}

/* The row's regular expression RE of FIELD (".file"...), NULL without one;
 * a bad one is reported at PATH.FIELD and counted in *ERRORS. */
static pcre2_code *compile(const char *re, const struct dload *dl, const char *row, const char *field, int *errors)
{
	if (!re)
		return NULL;
	char path[96];
	json_path(path, sizeof path, row, field, -1);
	int err;
	PCRE2_SIZE off;
	pcre2_code *c = pcre2_compile((PCRE2_SPTR)re, PCRE2_ZERO_TERMINATED, 0, &err, &off, NULL);
	if (!c) {
		PCRE2_UCHAR buf[256];
		pcre2_get_error_message(err, buf, sizeof buf);
		derr(dl, path, "", "%s at offset %zu", (char *)buf, (size_t)off);
		(*errors)++;
		return NULL;
	}
	return c; /* no JIT: rows run on failure lines only, and JIT compiling costs more at start-up */
}

/* Lazy rows (derive_rows.lazy: the built-in database outside check-db,
 * which make check validates): the regexes are compiled at the first
 * derive_match, all at once, under this lock; a start-up that sees no
 * failure line compiles none (1.7 M instructions).  A regex that does not
 * compile then (an installed file edited since) makes its row never match,
 * as a lazy signature's is skipped; derive_lazy_failures names it. */
static pthread_mutex_t lazy_lock = PTHREAD_MUTEX_INITIALIZER;

/* The fields of derive_row.re_src, in its order, as a row's JSON names them. */
static const char *const LAZY_FIELD[5] = {"file", "message", "exception", "signal", "frame"};

static void compile_lazy(const struct derive_rows *crows)
{
	struct derive_rows *rows = (struct derive_rows *)crows; /* the one change to a shared database */
	pthread_mutex_lock(&lazy_lock);
	if (!atomic_load_explicit(&rows->ready, memory_order_relaxed)) {
		for (size_t i = 0; i < rows->n; i++) {
			struct derive_row *r = &rows->v[i];
			void **code[5] = {&r->file_re, &r->msg_re, &r->type_re, &r->signal_re, &r->frame_re};
			for (int k = 0; k < 5; k++) {
				if (!r->re_src[k])
					continue;
				int err;
				PCRE2_SIZE off;
				*code[k] = pcre2_compile((PCRE2_SPTR)r->re_src[k], PCRE2_ZERO_TERMINATED, 0, &err, &off, NULL);
				if (!*code[k] && !r->broken) {
					PCRE2_UCHAR why[256];
					pcre2_get_error_message(err, why, sizeof why);
					r->broken = xasprintf("%s: %s at offset %zu", LAZY_FIELD[k], (char *)why, (size_t)off);
				}
				free(r->re_src[k]);
				r->re_src[k] = NULL;
			}
		}
		atomic_store_explicit(&rows->ready, 1, memory_order_release);
	}
	pthread_mutex_unlock(&lazy_lock);
}

size_t derive_lazy_failures(const struct derive_rows *rows, struct msgs *m)
{
	size_t n = 0;
	for (size_t i = 0; i < rows->n; i++) {
		const struct derive_row *r = &rows->v[i];
		if (!r->broken)
			continue;
		msgs_add(m, "%s: derived[%zu] (%s): a regex does not compile at its first use: %s: the row was skipped "
		         "(run 'nccl-triage check-db')", r->file, r->index, r->id, r->broken);
		n++;
	}
	return n;
}

static void row_free(struct derive_row *r)
{
	free(r->broken);
	for (int k = 0; k < 5; k++)
		free(r->re_src[k]);
	free(r->id);
	free(r->file);
	free(r->category);
	free(r->why);
	pcre2_code_free(r->file_re);
	pcre2_code_free(r->msg_re);
	pcre2_code_free(r->type_re);
	pcre2_code_free(r->signal_re);
	pcre2_code_free(r->frame_re);
}

void derive_truncate(struct derive_rows *rows, size_t n)
{
	while (rows->n > n)
		row_free(&rows->v[--rows->n]);
}

void derive_free_rows(struct derive_rows *rows)
{
	derive_truncate(rows, 0);
	free(rows->v);
	rows->v = NULL;
}

int derive_load(struct derive_rows *rows, const char *file, const cJSON *arr, const char *text, size_t len,
                struct msgs *m)
{
	struct dload dl = {file, text, len, m};
	int errors = 0;
	if (!cJSON_IsArray(arr)) {
		derr(&dl, "derived", "", "must be an array");
		return 1;
	}
	size_t idx = 0;
	const cJSON *o;
	cJSON_ArrayForEach(o, arr) {
		char path[64];
		json_path(path, sizeof path, "derived", "", (long)idx);
		int before = errors;
		struct derive_row r;
		memset(&r, 0, sizeof r);
		r.code = -1;
		if (!cJSON_IsObject(o)) {
			derr(&dl, path, "", "must be an object");
			errors++;
			idx++;
			continue;
		}
		const char *id = json_str(o, "id"), *from = json_str(o, "from"), *cat = json_str(o, "category"),
		           *why = json_str(o, "why"), *fre = json_str(o, "file"), *mre = json_str(o, "message"),
		           *tre = json_str(o, "exception"), *sre = json_str(o, "signal"), *frre = json_str(o, "frame");
		const cJSON *code = json_get(o, "code");
		if (!id || strncmp(id, FAMILY_DERIVED, strlen(FAMILY_DERIVED)) != 0) {
			derr(&dl, path, ".id", "a string starting \"derived.\" is required");
			errors++;
		}
		if (!why || !*why) {
			derr(&dl, path, ".why", "say why this row gives this category");
			errors++;
		}
		if (!cat || !category_valid(cat)) {
			derr(&dl, path, ".category", "unknown category \"%s\" (see TAXONOMY)", cat ? cat : "");
			errors++;
		}
		int f = -1;
		for (int k = 0; from && k < 5; k++)
			if (strcmp(from, FROM_NAMES[k]) == 0)
				f = k;
		if (f < 0) {
			derr(&dl, path, ".from", "\"%s\" (expected nccl_file, nccl_result, exception, message or crash)",
			         from ? from : "");
			errors++;
		}
		r.from = f < 0 ? DERIVE_NCCL_FILE : (enum derive_from)f;
		if (f == DERIVE_NCCL_FILE && !fre) {
			derr(&dl, path, "", "a nccl_file row needs \"file\"");
			errors++;
		}
		if (f == DERIVE_EXCEPTION && !tre) {
			derr(&dl, path, "", "an exception row needs \"exception\"");
			errors++;
		}
		if (f == DERIVE_MESSAGE && !mre) {
			derr(&dl, path, "", "a message row needs \"message\"");
			errors++;
		}
		if (f == DERIVE_CRASH && !sre && !frre) {
			derr(&dl, path, "", "a crash row needs \"signal\" or \"frame\"");
			errors++;
		}
		if ((sre || frre) && f != DERIVE_CRASH) {
			derr(&dl, path, "", "\"signal\" and \"frame\" belong to crash rows");
			errors++;
		}
		if (f == DERIVE_NCCL_RESULT && !mre && !cJSON_IsNumber(code)) {
			derr(&dl, path, "", "a nccl_result row needs \"message\" or \"code\"");
			errors++;
		}
		if (code && (!cJSON_IsNumber(code) || code->valuedouble < 0 || code->valuedouble > 64)) {
			derr(&dl, path, ".code", "an ncclResult number (0..64)");
			errors++;
		} else if (code) {
			r.code = (int)code->valuedouble;
		}
		const cJSON *smp = json_get(o, "samples");
		if (!cJSON_IsArray(smp) || cJSON_GetArraySize(smp) < 1) {
			derr(&dl, path, "", "\"samples\" must be a non-empty array of lines");
			errors++;
		}
		if (rows->lazy) {
			const char *src[5] = {fre, mre, tre, sre, frre};
			for (int k = 0; k < 5; k++)
				r.re_src[k] = src[k] ? xstrdup(src[k]) : NULL;
		} else {
			r.file_re = compile(fre, &dl, path, ".file", &errors);
			r.msg_re = compile(mre, &dl, path, ".message", &errors);
			r.type_re = compile(tre, &dl, path, ".exception", &errors);
			r.signal_re = compile(sre, &dl, path, ".signal", &errors);
			r.frame_re = compile(frre, &dl, path, ".frame", &errors);
		}
		for (size_t k = 0; id && errors == before && k < rows->n; k++)
			if (strcmp(rows->v[k].id, id) == 0) {
				derr(&dl, path, ".id", "duplicate id \"%s\" (first in %s)", id, rows->v[k].file);
				errors++;
			}
		if (errors != before) {
			row_free(&r);
			idx++;
			continue;
		}
		r.id = xstrdup(id);
		r.file = xstrdup(file);
		r.index = idx;
		r.category = xstrdup(cat);
		r.why = xstrdup(why);
		r.json = o;
		rows->v = xrealloc(rows->v, (rows->n + 1) * sizeof *rows->v);
		rows->v[rows->n++] = r;
		idx++;
	}
	return errors;
}

/* Whether re matches s[0..n): md has room for the whole match only (a
 * regex with groups returns 0 then, still a match), one for every regex
 * derive_match runs */
static int re_on(pcre2_match_data *md, void *re, const char *s, size_t n)
{
	if (!re || !s)
		return 0;
	return pcre2_match(re, (PCRE2_SPTR)s, n, 0, 0, md, NULL) >= 0;
}

static int type_char(char c)
{
	return c == '_' || c == '.' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/* "torch.distributed.DistNetworkError: text" -> "torch.distributed.DistNetworkError";
 * a wrapper's "ray.exceptions.RayTaskError(OutOfMemoryError): text" -> the type it
 * wraps, "OutOfMemoryError" (*off its start): the content, not the wrapper. */
static size_t exception_type_at(const char *p, size_t n, size_t *off)
{
	size_t i = 0;
	*off = 0;
	while (i < n && type_char(p[i]))
		i++;
	if (i > 0 && i + 2 < n && p[i] == '(') {
		size_t j = i + 1;
		while (j < n && type_char(p[j]))
			j++;
		if (j > i + 1 && j + 1 < n && p[j] == ')' && p[j + 1] == ':') {
			*off = i + 1;
			return j - i - 1;
		}
	}
	if (i < n && p[i] == ':')
		return i;
	/* the type alone on its line (raised without a message) */
	if (i == n && i > 5 && memchr(p, '.', n) &&
	    ((memcmp(p + i - 5, "Error", 5) == 0) || (i >= 9 && memcmp(p + i - 9, "Exception", 9) == 0)))
		return i;
	return 0;
}

static size_t exception_type(const char *p, size_t n)
{
	size_t off;
	return exception_type_at(p, n, &off);
}

static const struct derive_row *match_rows(const struct derive_rows *rows, const struct derive_input *in0,
                                           pcre2_match_data *md);

const struct derive_row *derive_match(const struct derive_rows *rows, const struct derive_input *in0)
{
	pcre2_match_data *md = pcre2_match_data_create(1, NULL); /* NULL: no row matches, as pcre2_match says */
	const struct derive_row *r = match_rows(rows, in0, md);
	pcre2_match_data_free(md);
	return r;
}

static const struct derive_row *match_rows(const struct derive_rows *rows, const struct derive_input *in0,
                                           pcre2_match_data *md)
{
	/* the indent of a paste that is indented as a whole */
	struct derive_input cp = *in0;
	const struct derive_input *in = &cp;
	while (cp.msgn > 0 && cp.exception && (cp.msg[0] == ' ' || cp.msg[0] == '\t')) {
		cp.msg++;
		cp.msgn--;
	}
	if (rows->lazy && !atomic_load_explicit((atomic_int *)&rows->ready, memory_order_acquire))
		compile_lazy(rows);
	size_t toff = 0, tn = in->exception ? exception_type_at(in->msg, in->msgn, &toff) : 0;
	/* a component's own line structure ("[TensorRT-LLM][ERROR] CUDA runtime
	 * error in ...") says more than the words of an ncclResult in it
	 * ("invalid argument" is also a CUDA error string): message rows first */
	for (size_t i = 0; i < 2 * rows->n; i++) {
		const struct derive_row *r = &rows->v[i % rows->n];
		if ((r->from == DERIVE_MESSAGE) != (i < rows->n) || r->broken)
			continue;
		switch (r->from) {
		case DERIVE_NCCL_FILE:
			if (!in->src || !re_on(md, r->file_re, in->src, strlen(in->src)))
				continue;
			if (r->msg_re && !re_on(md, r->msg_re, in->msg, in->msgn))
				continue;
			return r;
		case DERIVE_EXCEPTION:
			if (!tn || !re_on(md, r->type_re, in->msg + toff, tn))
				continue;
			if (r->msg_re && !re_on(md, r->msg_re, in->msg, in->msgn))
				continue;
			return r;
		case DERIVE_NCCL_RESULT:
			if (r->code >= 0 && in->code == r->code)
				return r;
			if (r->msg_re && re_on(md, r->msg_re, in->msg, in->msgn))
				return r;
			continue;
		case DERIVE_MESSAGE:
			if (!in->src && !in->crash && re_on(md, r->msg_re, in->msg, in->msgn))
				return r;
			continue;
		case DERIVE_CRASH:
			if (!in->crash)
				continue;
			/* no signal (a dump of a live process) is the empty name: "^$" */
			if (r->signal_re && !re_on(md, r->signal_re, in->signal ? in->signal : "", in->signal ? strlen(in->signal) : 0))
				continue;
			if (r->frame_re && !(in->frames && re_on(md, r->frame_re, in->frames, strlen(in->frames))))
				continue;
			return r;
		}
	}
	return NULL;
}

int derive_chain_frame(const struct span *m, struct span *file, int *code)
{
	const char *p = m->p;
	size_t n = m->n;
	if (n < 10 || n > 160 || p[0] < 'a' || p[0] > 'z')
		return 0;
	/* " -> " comes within the first 64 bytes ("transport/net_ib/p2p_resiliency.cc:1234 -> 6"):
	 * one memchr for '>' rules out nearly every other INFO line */
	const char *gt = memchr(p, '>', n < 64 ? n : 64);
	if (!gt || gt - p < 6 || gt[-1] != '-' || gt[-2] != ' ')
		return 0;
	size_t i = 0;
	while (i < n && i < 80 && p[i] != ':' && p[i] != ' ')
		i++;
	if (i < 4 || i >= n || p[i] != ':')
		return 0;
	/* a source file: ends in .cc, .c, .h or .cu */
	if (!((i > 3 && memcmp(p + i - 3, ".cc", 3) == 0) || memcmp(p + i - 2, ".c", 2) == 0 ||
	      memcmp(p + i - 2, ".h", 2) == 0 || (i > 3 && memcmp(p + i - 3, ".cu", 3) == 0)))
		return 0;
	size_t j = i + 1;
	while (j < n && p[j] >= '0' && p[j] <= '9')
		j++;
	if (j == i + 1 || n - j < 5 || memcmp(p + j, " -> ", 4) != 0)
		return 0;
	j += 4;
	int v = 0;
	size_t d = j;
	while (j < n && p[j] >= '0' && p[j] <= '9' && j - d < 4)
		v = v * 10 + (p[j++] - '0');
	if (j == d)
		return 0;
	file->p = p;
	file->n = i;
	*code = v;
	return 1;
}

int derive_input_from_line(const struct logline *ll, struct derive_input *in)
{
	static _Thread_local char src[128];
	memset(in, 0, sizeof *in);
	in->code = -1;
	in->msg = ll->msg.p;
	in->msgn = ll->msg.n;
	if (ll->level == LINE_WARN && ll->file.n) {
		size_t l = ll->file.n < sizeof src - 1 ? ll->file.n : sizeof src - 1;
		memcpy(src, ll->file.p, l);
		src[l] = 0;
		in->src = src;
		return 1;
	}
	if (ll->level == LINE_WARN) {
		in->src = ""; /* a WARN that names no file (a plugin's function): its message decides, as in rules_derived.c */
		return 1;
	}
	struct span f;
	int code;
	if (ll->level == LINE_INFO && derive_chain_frame(&ll->msg, &f, &code)) {
		size_t l = f.n < sizeof src - 1 ? f.n : sizeof src - 1;
		memcpy(src, f.p, l);
		src[l] = 0;
		in->src = src;
		in->code = code;
		return 1;
	}
	if (ll->level == LINE_PLAIN) {
		size_t sp = 0;
		while (sp < ll->msg.n && sp < 16 && (ll->msg.p[sp] == ' ' || ll->msg.p[sp] == '\t'))
			sp++;
		if (exception_type(ll->msg.p + sp, ll->msg.n - sp) > 0) { /* "Type: text" or "a.b.TypeError" */
			in->exception = 1;
			return 1;
		}
	}
	return ll->level == LINE_PLAIN && ll->msg.n > 0;
}

int derive_input_from_block(const char *text, struct derive_input *in, char *sigbuf, size_t sign, char *framesbuf,
                            size_t framesn)
{
	memset(in, 0, sizeof *in);
	in->code = -1;
	struct crash c, done, got;
	memset(&c, 0, sizeof c);
	int closed, have = 0;
	uint64_t lineno = 0;
	const char *p = text;
	for (;;) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		struct logline ll;
		logline_parse(p, len, &ll);
		crash_line(&c, &ll, ++lineno, 1, &done, &closed);
		if (closed && !have) {
			got = done;
			have = 1;
		}
		if (!nl)
			break;
		p = nl + 1;
	}
	crash_end(&c, &done, &closed);
	if (closed && !have) {
		got = done;
		have = 1;
	}
	if (!have)
		return 0;
	in->crash = 1;
	const char *sn = crash_signal_name(got.sig);
	if (sn) {
		snprintf(sigbuf, sign, "%s", sn);
		in->signal = sigbuf;
	}
	if (got.textn) {
		snprintf(framesbuf, framesn, "%s", got.text);
		in->frames = framesbuf;
	}
	return 1;
}

int derive_selftest(const struct derive_rows *rows, struct msgs *m, size_t *ok)
{
	int fails = 0;
	for (size_t i = 0; i < rows->n; i++) {
		const struct derive_row *r = &rows->v[i];
		for (int neg = 0; neg < 2; neg++) {
			const cJSON *arr = json_get(r->json, neg ? "negative_samples" : "samples");
			size_t k = 0;
			const cJSON *it;
			cJSON_ArrayForEach(it, arr) {
				if (!cJSON_IsString(it)) {
					msgs_add(m, "%s: %s[%zu].%s[%zu]: must be a string", r->file, "derived", r->index,
					         neg ? "negative_samples" : "samples", k++);
					fails++;
					continue;
				}
				struct logline ll;
				struct derive_input in;
				const struct derive_row *got;
				char sigbuf[16], framesbuf[CRASH_FRAMES_TEXT];
				if (r->from == DERIVE_CRASH) /* a block: the banner and its frames */
					got = derive_input_from_block(it->valuestring, &in, sigbuf, sizeof sigbuf, framesbuf,
					                              sizeof framesbuf) ? derive_match(rows, &in) : NULL;
				else {
					logline_parse(it->valuestring, strlen(it->valuestring), &ll);
					got = derive_input_from_line(&ll, &in) ? derive_match(rows, &in) : NULL;
				}
				if (!neg && got != r) {
					msgs_add(m, "%s: derived[%zu].samples[%zu]: \"%s\" derives %s%s%s", r->file, r->index, k,
					         r->id, got ? "row " : "nothing", got ? got->id : "",
					         got ? " (an earlier row matches first)" : "");
					fails++;
				} else if (neg && got == r) {
					msgs_add(m, "%s: derived[%zu].negative_samples[%zu]: \"%s\" derives it but must not", r->file,
					         r->index, k, r->id);
					fails++;
				} else {
					(*ok)++;
				}
				k++;
			}
		}
	}
	return fails;
}
