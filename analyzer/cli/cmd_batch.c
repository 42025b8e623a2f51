/* cmd_batch.c - `nccl-triage batch PATH...`: many bundles at once.
 *
 * Every operand that is a file is one bundle; every operand that is a folder
 * contributes each direct child that is a folder, an archive (.gz, .tgz,
 * .tar, .tar.gz) or a log (.log, .txt) as one bundle (sorted by name).
 * Worker threads (-j) take bundles in that order, each with its own bundle
 * and matcher over the shared read-only database; the main thread writes
 * their reports in the same order whatever finished first (a bounded buffer
 * of finished reports; workers wait when it is full), draws the progress bar
 * and finally prints the summary (summary.h).  A damaged bundle (empty,
 * corrupt, truncated) is analysed as far as it can be read and listed with
 * its error; it never stops the batch. */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "engine/analysis.h"
#include "engine/bundle.h"
#include "cli/cli.h"
#include "cli/clicommon.h"
#include "cli/commands.h"
#include "cli/formats.h"
#include "base/json.h"
#include "cli/progress.h"
#include "report/report.h"
#include "report/redact.h"
#include "report/redact_names.h"
#include "report/report_formats.h"
#include "match/sigdb.h"
#include "report/summary.h"
#include "base/tarhdr.h"

#ifndef NT_VERSION
#define NT_VERSION "0.0.0"
#endif

/* FMT_DOC: any other format of the registry (md, junit, sarif, github):
 * the bundles' objects are gathered into one report document and rendered
 * by analyze's renderer of that format (formats.c) at the end */
enum fmt { FMT_TEXT, FMT_JSONL, FMT_JSON, FMT_HTML, FMT_DOC };

/* finished reports waiting for an earlier one beyond this many bytes make
 * workers wait before they start another bundle */
#define PENDING_MAX (8u << 20)

struct item {
	char *path;      /* as opened */
	char *name;      /* as reported */
	uint64_t size;   /* bytes on disk (progress); folders: sum of their files */
};

/* what a finished, unwritten object counts for in PENDING_MAX (--redact) */
#define OBJ_PENDING (64u << 10)

struct slot {
	char *out;       /* rendered report, NULL when nothing to print */
	cJSON *obj;      /* --redact: the bundle's object, redacted and rendered when written */
	size_t len;
	int done;
};

struct batch {
	const struct sigdb *db;
	struct limits lim;
	enum fmt fmt;
	const char *fail_on;    /* --fail-on (report_fails) */
	int quiet_info;         /* --quiet-info with a CI format */
	size_t nfail;           /* bundles that fail --fail-on (atomic) */
	int summary_only;
	struct redactor *red;   /* --redact: shared by the workers (it locks itself) */
	int keep_names;         /* --keep-names; else bundle-N, doc-K (redact_names) */
	unsigned named;         /* bundles renamed so far, in bundle order */
	struct item *items;
	size_t nitems;

	pthread_mutex_t mu;
	pthread_cond_t ready;   /* a slot finished */
	pthread_cond_t room;    /* pending output shrank */
	size_t next;            /* next item to take */
	struct slot *slots;
	size_t pending;         /* bytes of finished, unwritten reports */
	size_t finished;
	uint64_t bytes_done;    /* item sizes of finished bundles */
};

struct worker {
	struct batch *bt;
	struct summary *sum;
	pthread_t th;
};

/* ---- operands to bundles ---- */

static int is_archive_name(const char *n)
{
	return str_ends(n, ".gz") || str_ends(n, ".tgz") || str_ends(n, ".tar");
}

static int is_log_name(const char *n)
{
	return str_ends(n, ".log") || str_ends(n, ".txt");
}

/* Folders on the current path of tree_size: a link to "." or to a folder
 * above would otherwise be walked without end (the progress bar's sizes). */
struct tree_walk {
	dev_t dev[34];
	ino_t ino[34];
	int depth;
	size_t entries;
};

static uint64_t tree_size_at(const char *path, struct tree_walk *tw)
{
	struct stat st;
	if (stat(path, &st) != 0)
		return 0;
	if (!S_ISDIR(st.st_mode))
		return S_ISREG(st.st_mode) ? (uint64_t)st.st_size : 0;
	if (tw->depth > 32)
		return 0;
	for (int k = 0; k < tw->depth; k++)
		if (tw->dev[k] == st.st_dev && tw->ino[k] == st.st_ino)
			return 0; /* a loop: counted once already */
	DIR *d = opendir(path);
	if (!d)
		return 0;
	tw->dev[tw->depth] = st.st_dev;
	tw->ino[tw->depth] = st.st_ino;
	tw->depth++;
	uint64_t sum = 0;
	struct dirent *de;
	/* the progress bar's estimate only: bounded like the walk itself */
	while ((de = readdir(d)) && tw->entries < 1000000) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		tw->entries++;
		char *p = xasprintf("%s/%s", path, de->d_name);
		sum += tree_size_at(p, tw);
		free(p);
	}
	tw->depth--;
	closedir(d);
	return sum;
}

static uint64_t tree_size(const char *path, int depth)
{
	struct tree_walk tw;
	memset(&tw, 0, sizeof tw);
	(void)depth;
	return tree_size_at(path, &tw);
}

static void add_item(struct item **v, size_t *n, size_t *cap, const char *path, uint64_t size)
{
	if (*n == *cap) {
		*cap = *cap ? *cap * 2 : 64;
		*v = xrealloc(*v, *cap * sizeof **v);
	}
	(*v)[*n].path = xstrdup(path);
	/* a bundle's name is shown everywhere: sanitised like document names */
	(*v)[*n].name = strcmp(path, "-") == 0 ? xstrdup("stdin") : str_sanitize(path, strlen(path));
	(*v)[*n].size = size;
	(*n)++;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Expand the operands: a file is one bundle, a folder gives one bundle per
 * folder/archive/log in it, @LIST (@- for stdin) names one bundle per line.
 * Returns the number of files skipped in folders. */
/* A child of a folder operand that is a symbolic link leading outside the
 * folder: not taken unless --follow-symlinks (as in a folder walk). */
static int link_leaves(const char *root_real, const char *child)
{
	struct stat ls;
	if (lstat(child, &ls) != 0 || !S_ISLNK(ls.st_mode))
		return 0;
	char *real = realpath(child, NULL);
	size_t rl = root_real ? strlen(root_real) : 0;
	int in = real && root_real && strncmp(real, root_real, rl) == 0 &&
	         (real[rl] == 0 || real[rl] == '/' || (rl == 1 && root_real[0] == '/'));
	free(real);
	return !in;
}

static size_t expand(const struct strvec *ops, int want_sizes, struct item **items, size_t *nitems, int quiet,
                     int *bad_lists, int follow_symlinks)
{
	size_t cap = 0, skipped = 0, shown = 0;
	for (size_t i = 0; i < ops->n; i++) {
		const char *op = ops->v[i];
		struct stat st;
		if (op[0] == '@' && op[1]) {
			/* a list of bundles, one path a line: each is one bundle as it is */
			FILE *f = strcmp(op + 1, "-") == 0 ? stdin : fopen(op + 1, "r");
			if (!f) {
				char *sn = str_sanitize(op + 1, strlen(op + 1));
				fprintf(stderr, "nccl-triage batch: cannot read the bundle list '%s': %s\n", sn, strerror(errno));
				free(sn);
				*bad_lists += 1;
				continue;
			}
			char *line = NULL;
			size_t cap_line = 0;
			ssize_t n;
			while ((n = getline(&line, &cap_line, f)) > 0) {
				while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
					line[--n] = 0;
				if (n == 0)
					continue;
				add_item(items, nitems, &cap, line, want_sizes ? tree_size(line, 0) : 0);
			}
			free(line);
			if (f != stdin)
				fclose(f);
			continue;
		}
		if (strcmp(op, "-") == 0 || stat(op, &st) != 0 || !S_ISDIR(st.st_mode)) {
			/* a file, stdin, or something unreadable: one bundle (errors reported in it) */
			add_item(items, nitems, &cap, op, strcmp(op, "-") && stat(op, &st) == 0 ? (uint64_t)st.st_size : 0);
			continue;
		}
		DIR *d = opendir(op);
		if (!d) {
			add_item(items, nitems, &cap, op, 0);
			continue;
		}
		struct strvec names = {0};
		struct dirent *de;
		size_t hidden = 0;
		while ((de = readdir(d))) {
			if (de->d_name[0] != '.')
				strvec_push(&names, de->d_name);
			else if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
				hidden++;
		}
		closedir(d);
		if (hidden && !quiet) {
			char *sn = str_sanitize(op, strlen(op));
			fprintf(stderr, "nccl-triage batch: skipping %zu hidden entr%s in '%s' (names that start with '.')\n",
			        hidden, hidden == 1 ? "y" : "ies", sn);
			free(sn);
		}
		skipped += hidden;
		if (names.n > 1)
			xqsort(names.v, names.n, sizeof *names.v, cmp_str);
		size_t oplen = strlen(op);
		char *root_real = realpath(op, NULL);
		for (size_t k = 0; k < names.n; k++) {
			char *p = oplen && op[oplen - 1] == '/' ? xasprintf("%s%s", op, names.v[k])
			                                        : xasprintf("%s/%s", op, names.v[k]);
			struct stat cs;
			if (!follow_symlinks && link_leaves(root_real, p)) {
				skipped++;
				if (!quiet) {
					char *sn = str_sanitize(p, strlen(p));
					fprintf(stderr, "nccl-triage batch: skipping '%s': a symbolic link that leads outside the folder "
					        "(--follow-symlinks follows it)\n", sn);
					free(sn);
				}
			} else if (stat(p, &cs) == 0 && S_ISDIR(cs.st_mode)) {
				add_item(items, nitems, &cap, p, want_sizes ? tree_size(p, 0) : 0);
			} else if (is_archive_name(names.v[k]) || is_log_name(names.v[k])) {
				add_item(items, nitems, &cap, p, stat(p, &cs) == 0 ? (uint64_t)cs.st_size : 0);
			} else {
				skipped++;
				if (!quiet && ++shown <= 5) {
					char *sn = str_sanitize(p, strlen(p));
					fprintf(stderr, "nccl-triage batch: skipping '%s': not a folder, archive (.gz .tgz .tar) or log (.log .txt)\n", sn);
					free(sn);
				}
			}
			free(p);
		}
		free(root_real);
		strvec_free(&names);
	}
	if (!quiet && shown > 5)
		fprintf(stderr, "nccl-triage batch: skipped %zu files in all that are not folders, archives or logs\n", shown);
	return skipped;
}

/* ---- one bundle ---- */

/* What the name promises and the first bytes contradict: an empty file, a
 * .gz that is not gzip, a .tar that is neither tar nor gzip.  Adds a message
 * and returns 1 when the file should not be read at all. */
static int precheck(const struct item *it, struct msgs *m)
{
	if (strcmp(it->path, "-") == 0)
		return 0;
	struct stat st;
	if (stat(it->path, &st) != 0 || !S_ISREG(st.st_mode))
		return 0; /* the walk reports it */
	int gz = str_ends(it->path, ".gz") || str_ends(it->path, ".tgz");
	int tar = str_ends(it->path, ".tar");
	if (!gz && !tar)
		return 0;
	if (st.st_size == 0) {
		msgs_add(m, "%s: empty file (0 bytes), not a %s archive", it->name, gz ? "gzip" : "tar");
		return 1;
	}
	FILE *f = fopen(it->path, "rb");
	if (!f)
		return 0;
	unsigned char h[512];
	size_t n = fread(h, 1, sizeof h, f);
	fclose(f);
	int is_gzip = n >= 2 && h[0] == 0x1f && h[1] == 0x8b;
	if (gz && !is_gzip) {
		msgs_add(m, "%s: not a gzip file (it does not start with the gzip magic bytes 1f 8b)", it->name);
		return 1;
	}
	if (tar && !is_gzip && (n < TAR_BLOCK || !(tar_zero_block(h) || tar_checksum_ok(h)))) {
		msgs_add(m, "%s: not a tar archive (%s)", it->name,
		         n < 512 ? "shorter than one 512-byte header" : "the first header's checksum is wrong");
		return 1;
	}
	return 0;
}

static int cmp_count(const void *a, const void *b)
{
	const cJSON *x = *(const cJSON *const *)a, *y = *(const cJSON *const *)b;
	return strcmp(x->string, y->string);
}

/* One line of the text listing, from the bundle's (redacted) object. */
static char *text_row(const cJSON *obj)
{
	const char *name = json_str(obj, "name") ? json_str(obj, "name") : "?";
	const char *v = json_str(obj, "verdict");
	int readable = !cJSON_IsFalse(json_get(obj, "readable"));
	const char *verdict = readable ? (v ? v : "?") : "unreadable";
	char what[160];
	what[0] = 0;
	const cJSON *e0 = cJSON_GetArrayItem(json_get(obj, "input_errors"), 0);
	const char *err = cJSON_IsString(e0) ? e0->valuestring : NULL;
	if (err) {
		size_t nl = strlen(name);
		if (strncmp(err, name, nl) == 0 && err[nl] == ':' && err[nl + 1] == ' ')
			err += nl + 2;
	}
	const cJSON *diags = json_get(obj, "diagnoses");
	const cJSON *u0 = cJSON_GetArrayItem(json_get(obj, "unexplained"), 0);
	if (!readable && err) {
		snprintf(what, sizeof what, "%s", err);
	} else if (json_size(diags)) {
		const cJSON *d = cJSON_GetArrayItem(diags, 0);
		const char *id = json_str(d, "id"), *cat = json_str(d, "category");
		snprintf(what, sizeof what, "%s (%s)%s", id ? id : "?", cat ? cat : "?", json_size(diags) > 1 ? " +more" : "");
	} else if (v && !strcmp(v, "unknown_failure") && u0) {
		const char *kind = json_str(u0, "kind"), *text = json_str(u0, "text");
		snprintf(what, sizeof what, "%s: %.100s", kind ? kind : "?", text ? text : "");
	}
	if (readable && err)
		snprintf(what + strlen(what), sizeof what - strlen(what), "%s[input error: %s]", what[0] ? " " : "", err);
	return xasprintf("%-15s %-52s %s\n", verdict, what, name);
}

/* One row of the HTML batch table (report_html_row), as a line. */
static char *html_row(const cJSON *obj)
{
	cJSON *row = report_html_row(obj);
	char *s = cJSON_PrintUnformatted(row);
	cJSON_Delete(row);
	char *line = xasprintf("%s\n", s);
	free(s);
	return line;
}

/* The last steps of a bundle: --redact, the summary, the rendering.  Takes
 * obj; returns the report to print (NULL: nothing). */
static char *finish_obj(struct batch *bt, cJSON *obj, struct summary *sum)
{
	if (bt->red) {
		/* in bundle order, on one thread: pseudonyms are numbered the same
		 * whatever -j and whichever bundle finished first */
		if (!bt->keep_names)
			redact_names(obj, ++bt->named);
		redact_json(bt->red, obj);
	}
	summary_add_bundle(sum, obj);
	if (report_fails(obj, bt->fail_on))
		__atomic_fetch_add(&bt->nfail, 1, __ATOMIC_RELAXED);
	if (bt->quiet_info)
		report_drop_info(obj);
	char *out = NULL;
	if (!bt->summary_only) {
		if (bt->fmt == FMT_TEXT) {
			out = text_row(obj);
		} else if (bt->fmt == FMT_HTML) {
			out = html_row(obj);
		} else {
			char *s = cJSON_PrintUnformatted(obj);
			out = xasprintf("%s\n", s);
			free(s);
		}
	}
	cJSON_Delete(obj);
	return out;
}

/* Analyse one bundle; return its object (--redact), or fold it into sum
 * and return its rendered report (finish_obj). */
static void *run_bundle(struct batch *bt, const struct item *it, struct summary *sum)
{
	struct msgs inerr = {0};
	/* --summary-only (without --redact) shows no evidence text: no context
	 * lines, no spans (report_bundle_summary_json reads only captures) */
	/* the bundle's facts in its arena: its report copies them (report_bundle_json) */
	struct analysis_opts ao = {bt->db, &bt->lim, 1, 0, bt->summary_only && !bt->red, 1};
	int pre = precheck(it, &inerr), readable = 0;
	struct bundle *b = analysis_run(it->name, pre ? NULL : it->path, &ao, &inerr, &readable);
	if (pre) {
		readable = 0;
		msgs_add(&b->warnings, "%s", inerr.list.v[0]);
	} else if (readable && b->stats.bytes_out == 0 && inerr.list.n == 0) {
		msgs_add(&inerr, "%s: empty: no document with any content", it->name);
		msgs_add(&b->warnings, "%s", inerr.list.v[0]);
	}

	/* --summary-only prints no bundle: its object only feeds the summary
	 * (with --redact the whole object, whose strings number the pseudonyms) */
	cJSON *obj = bt->summary_only && !bt->red ? report_bundle_summary_json(b) : report_bundle_json(b, 0);
	cJSON_AddBoolToObject(obj, "readable", readable);
	cJSON *ie = cJSON_AddArrayToObject(obj, "input_errors");
	for (size_t i = 0; i < inerr.list.n; i++)
		cJSON_AddItemToArray(ie, cJSON_CreateString(inerr.list.v[i]));
	cJSON_AddNumberToObject(obj, "input_bytes", (double)b->stats.bytes_in);
	cJSON *ec = cJSON_AddObjectToObject(obj, "evidence_counts");
	if (b->ev.ncounts) {
		cJSON **v = xmalloc(b->ev.ncounts * sizeof *v);
		for (size_t i = 0; i < b->ev.ncounts; i++) {
			v[i] = cJSON_CreateNumber((double)b->ev.counts[i].count);
			v[i]->string = b->ev.counts[i].id; /* borrowed only for sorting */
		}
		xqsort(v, b->ev.ncounts, sizeof *v, cmp_count);
		for (size_t i = 0; i < b->ev.ncounts; i++) {
			const char *id = v[i]->string;
			v[i]->string = NULL;
			cJSON_AddItemToObject(ec, id, v[i]);
		}
		free(v);
	}
	msgs_free(&inerr);
	bundle_free(b);
	if (bt->red)
		return obj; /* redacted and written in bundle order by the main thread (finish_obj) */
	return finish_obj(bt, obj, sum);
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct batch *bt = w->bt;
	for (;;) {
		pthread_mutex_lock(&bt->mu);
		while (bt->pending > PENDING_MAX && bt->next < bt->nitems)
			pthread_cond_wait(&bt->room, &bt->mu);
		if (bt->next >= bt->nitems) {
			pthread_mutex_unlock(&bt->mu);
			break;
		}
		size_t i = bt->next++;
		pthread_mutex_unlock(&bt->mu);

		void *res = run_bundle(bt, &bt->items[i], w->sum);

		pthread_mutex_lock(&bt->mu);
		if (bt->red) {
			bt->slots[i].obj = res;
			bt->slots[i].len = OBJ_PENDING; /* an estimate: the object is written later */
		} else {
			bt->slots[i].out = res;
			bt->slots[i].len = res ? strlen(res) : 0;
		}
		bt->slots[i].done = 1;
		bt->pending += bt->slots[i].len;
		bt->finished++;
		bt->bytes_done += bt->items[i].size;
		pthread_cond_signal(&bt->ready);
		pthread_mutex_unlock(&bt->mu);
	}
	return NULL;
}

/* The document's head without its closing brace: the bundles and the
 * summary are streamed after it. */
static void json_header(FILE *out, const struct sigdb *db)
{
	cJSON *h = report_header_json(db);
	/* merge rebuilds this head from the summary, which records the
	 * database's version and signature count only */
	cJSON_DeleteItemFromObjectCaseSensitive(cJSON_GetObjectItemCaseSensitive(h, "db"), "diagnoses");
	char *s = cJSON_PrintUnformatted(h);
	size_t n = strlen(s);
	fwrite(s, 1, n ? n - 1 : 0, out);
	free(s);
	cJSON_Delete(h);
}

/* How the bundles' reports are written, from the format's name. */
static enum fmt batch_fmt(const struct format *f)
{
	return !strcmp(f->name, "jsonl") ? FMT_JSONL : !strcmp(f->name, "json") ? FMT_JSON
	     : !strcmp(f->name, "html") ? FMT_HTML : !strcmp(f->name, "text") ? FMT_TEXT : FMT_DOC;
}

/* --progress: whether the bar is drawn; -1 (a message) when the value is
 * not auto, always or never. */
static int progress_wanted(const struct common *c)
{
	const char *prog = c->progress ? c->progress : "auto";
	if (strcmp(prog, "auto") && strcmp(prog, "always") && strcmp(prog, "never")) {
		fprintf(stderr, "nccl-triage batch: --progress: '%s' is not auto, always or never\n", prog);
		return -1;
	}
	return !c->quiet && (strcmp(prog, "always") == 0 || (strcmp(prog, "auto") == 0 && isatty(2)));
}

/* The slots and locks the workers share, and up to JOBS workers started;
 * *STARTED of them run (each owns its summary until joined).  NULL (a
 * message) when none could start. */
static struct worker *start_workers(struct batch *bt, int jobs, int *started)
{
	bt->slots = xcalloc(bt->nitems, sizeof *bt->slots);
	pthread_mutex_init(&bt->mu, NULL);
	pthread_cond_init(&bt->ready, NULL);
	pthread_cond_init(&bt->room, NULL);
	struct worker *ws = xcalloc((size_t)jobs, sizeof *ws);
	*started = 0;
	for (int k = 0; k < jobs; k++) {
		ws[k].bt = bt;
		ws[k].sum = summary_new();
		if (pthread_create(&ws[k].th, NULL, worker_main, &ws[k]) != 0) {
			summary_free(ws[k].sum);
			break;
		}
		(*started)++;
	}
	if (!*started) {
		fprintf(stderr, "nccl-triage batch: cannot start worker threads: %s\n", strerror(errno));
		free(ws);
		return NULL;
	}
	return ws;
}

/* With BT->mu held: until a slot finishes, or 200 ms pass when the
 * progress bar PG is drawn (then it is redrawn without the lock). */
static void wait_for_report(struct batch *bt, struct progress *pg)
{
	if (!pg) {
		pthread_cond_wait(&bt->ready, &bt->mu);
		return;
	}
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_nsec += 200000000L;
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	pthread_cond_timedwait(&bt->ready, &bt->mu, &ts);
	size_t fin = bt->finished;
	uint64_t bd = bt->bytes_done;
	pthread_mutex_unlock(&bt->mu);
	progress_update(pg, fin, bd, 0);
	pthread_mutex_lock(&bt->mu);
}

/* Bundle I's report S (LEN bytes, its newline last) to OUT: an element of
 * the json array, a row of ROWS for the HTML page or the report document
 * written at the end, or the text or jsonl as it is. */
static void write_report(const struct batch *bt, FILE *out, size_t i, const char *s, size_t len, cJSON *rows)
{
	if (bt->fmt == FMT_JSON) {
		if (i)
			fputc(',', out);
		fwrite(s, 1, len - 1, out); /* without the newline */
	} else if (bt->fmt == FMT_HTML || bt->fmt == FMT_DOC) {
		cJSON *row = cJSON_Parse(s);
		if (row)
			cJSON_AddItemToArray(rows, row);
	} else {
		fwrite(s, 1, len, out);
	}
}

/* The main thread's loop: each bundle's report in bundle order, whatever
 * finished first; a --redact object is redacted and rendered here, its
 * summary into MSUM. */
static void write_in_order(struct batch *bt, FILE *out, struct progress *pg, cJSON *rows, struct summary *msum)
{
	size_t emit = 0;
	pthread_mutex_lock(&bt->mu);
	while (emit < bt->nitems) {
		if (!bt->slots[emit].done) {
			wait_for_report(bt, pg);
			continue;
		}
		char *s = bt->slots[emit].out;
		cJSON *obj = bt->slots[emit].obj;
		size_t len = bt->slots[emit].len;
		bt->slots[emit].out = NULL;
		bt->slots[emit].obj = NULL;
		pthread_mutex_unlock(&bt->mu);
		if (obj) {
			s = finish_obj(bt, obj, msum);
			len = s ? strlen(s) : 0;
		}
		if (s) {
			write_report(bt, out, emit, s, len, rows);
			free(s);
		}
		pthread_mutex_lock(&bt->mu);
		bt->pending -= obj ? OBJ_PENDING : len;
		emit++;
		pthread_cond_broadcast(&bt->room);
	}
	pthread_mutex_unlock(&bt->mu);
}

/* The batch's summary: the database, the bundles finished by the main
 * thread (MSUM, freed) and those of each of the STARTED workers, joined
 * here (WS freed). */
static struct summary *join_workers(struct worker *ws, int started, const struct sigdb *db, struct summary *msum)
{
	struct summary *sum = summary_new();
	summary_set_db(sum, db->version, (double)db->nsigs);
	summary_merge(sum, msum);
	summary_free(msum);
	for (int k = 0; k < started; k++) {
		pthread_join(ws[k].th, NULL);
		summary_merge(sum, ws[k].sum);
		summary_free(ws[k].sum);
	}
	free(ws);
	return sum;
}

/* What follows the reports: the summary in the format's way; the HTML
 * page or the report document of every bundle from ROWS (taken). */
static void write_end(FILE *out, const struct common *c, const struct format *f, const struct batch *bt,
                      const struct summary *sum, cJSON *rows)
{
	cJSON *sj = summary_json(sum);
	if (bt->fmt == FMT_HTML) {
		report_html_batch(out, sj, rows);
		cJSON_Delete(rows);
	} else if (bt->fmt == FMT_DOC) {
		/* one report document of every bundle, as analyze would render it */
		cJSON *doc = report_header_json(bt->db);
		cJSON_AddItemToObject(doc, "bundles", rows);
		if (c->redact)
			cJSON_AddBoolToObject(doc, "redacted", 1);
		struct report_opts ro = {want_color(c, out), c->evidence, term_width(out)};
		f->render(out, doc, &ro);
		cJSON_Delete(doc);
	} else if (bt->fmt == FMT_JSON) {
		if (!bt->summary_only)
			fputc(']', out);
		char *s = cJSON_PrintUnformatted(sj);
		fprintf(out, ",\"summary\":%s}\n", s);
		free(s);
	} else if (bt->fmt == FMT_JSONL) {
		json_header(out, bt->db);
		char *s = cJSON_PrintUnformatted(sj);
		fprintf(out, ",\"summary\":%s}\n", s);
		free(s);
	} else {
		if (!bt->summary_only)
			fputc('\n', out);
		summary_text(out, sum, want_color(c, out));
	}
	cJSON_Delete(sj);
}

/* The exit status: found when a bundle failed (or one fails --fail-on),
 * trouble when no bundle could be read. */
static int batch_status(const struct batch *bt, const struct summary *sum)
{
	int status = summary_failed(sum) ? EXIT_FOUND : EXIT_HEALTHY;
	if (bt->fail_on)
		status = bt->nfail ? EXIT_FOUND : EXIT_HEALTHY;
	if (summary_unreadable(sum) == summary_bundles(sum))
		status = EXIT_TROUBLE;
	return status;
}

int cmd_batch(struct common *c, struct strvec *ops)
{
	int status = EXIT_TROUBLE;
	struct batch bt;
	memset(&bt, 0, sizeof bt);
	struct sigdb db;
	int db_loaded = 0;
	FILE *out = NULL;
	const struct format *f = format_pick(c->format, CMD_BATCH, "batch");
	if (!f)
		goto done;
	bt.fmt = batch_fmt(f);
	if (bt.fmt == FMT_DOC && !f->render)
		goto done;
	bt.fail_on = c->fail_on;
	bt.quiet_info = c->quiet_info && f->ci;
	int show_progress = progress_wanted(c);
	if (show_progress < 0)
		goto done;
	if (ops->n == 0) {
		fprintf(stderr, "nccl-triage batch: no input\nhint: nccl-triage batch /var/log/jobs/  (each archive and folder in it is one bundle)\n");
		goto done;
	}
	if (load_db(&db, c, LOAD_SLIM) < 0) {
		sigdb_free(&db);
		goto done;
	}
	db_loaded = 1;
	bt.db = &db;
	bt.lim = c->lim;
	bt.summary_only = c->summary_only;
	if (c->redact)
		bt.red = redactor_new();
	bt.keep_names = c->keep_names;
	int bad_lists = 0;
	expand(ops, show_progress, &bt.items, &bt.nitems, c->quiet, &bad_lists, c->lim.follow_symlinks);
	if (bad_lists)
		goto done;
	if (bt.nitems == 0) {
		fprintf(stderr, "nccl-triage batch: no bundles found in the operands\n");
		goto done;
	}
	out = open_output_safe(c->output, format_cisafe(f));
	if (!out)
		goto done;

	int jobs = c->jobs > 0 ? c->jobs : online_cpus();
	if ((size_t)jobs > bt.nitems)
		jobs = (int)bt.nitems;
	uint64_t total_bytes = 0;
	for (size_t i = 0; i < bt.nitems; i++)
		total_bytes += bt.items[i].size;
	int started;
	struct worker *ws = start_workers(&bt, jobs, &started);
	if (!ws)
		goto done;
	struct progress *pg = show_progress ? progress_new(stderr, bt.nitems, total_bytes) : NULL;

	if (bt.fmt == FMT_JSON) {
		json_header(out, &db);
		if (!bt.summary_only)
			fputs(",\"bundles\":[", out);
	}
	cJSON *rows = bt.fmt == FMT_HTML || bt.fmt == FMT_DOC ? cJSON_CreateArray() : NULL;
	struct summary *msum = summary_new(); /* bundles finished here (--redact) */
	write_in_order(&bt, out, pg, rows, msum);
	struct summary *sum = join_workers(ws, started, &db, msum);
	if (pg) {
		progress_update(pg, bt.finished, bt.bytes_done, 1);
		progress_free(pg);
	}
	write_end(out, c, f, &bt, sum, rows);
	status = batch_status(&bt, sum);
	summary_free(sum);
	pthread_mutex_destroy(&bt.mu);
	pthread_cond_destroy(&bt.ready);
	pthread_cond_destroy(&bt.room);
	status = output_status(close_output(out, c->output), status);
	out = NULL;

done:
	abandon_output(out);
	for (size_t i = 0; i < bt.nitems; i++) {
		free(bt.items[i].path);
		free(bt.items[i].name);
		if (bt.slots) {
			free(bt.slots[i].out);
			cJSON_Delete(bt.slots[i].obj);
		}
	}
	free(bt.items);
	free(bt.slots);
	if (db_loaded)
		unload_db(&db);
	redactor_free(bt.red);
	return status;
}
