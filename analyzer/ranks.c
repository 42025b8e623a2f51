/* ranks.c - see ranks.h. */
#include "ranks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util.h"

struct ranks *ranks_new(void)
{
	return xcalloc(1, sizeof(struct ranks));
}

void ranks_free(struct ranks *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->n; i++) {
		struct rank_proc *p = &r->v[i];
		free(p->host);
		free(p->bus_id);
		free(p->comm_id);
		free(p->nccl_version);
		free(p->last_path);
		free(p->last_text);
		free(p->first_warn);
	}
	free(r->v);
	free(r->index);
	free(r);
}

static size_t proc_hash(const char *host, size_t hn, long pid)
{
	uint64_t h = 1469598103934665603ULL; /* FNV-1a */
	for (size_t i = 0; i < hn; i++)
		h = (h ^ (unsigned char)host[i]) * 1099511628211ULL;
	h = (h ^ (uint64_t)pid) * 1099511628211ULL;
	return (size_t)(h ^ (h >> 29));
}

/* Slot of host:pid in the index: its entry, or the free slot to fill. */
static size_t proc_slot(const struct ranks *r, const char *host, size_t hn, long pid)
{
	size_t i = proc_hash(host, hn, pid) & (r->icap - 1);
	while (r->index[i]) {
		const struct rank_proc *p = &r->v[r->index[i] - 1];
		if (p->pid == pid && strlen(p->host) == hn && memcmp(p->host, host, hn) == 0)
			break;
		i = (i + 1) & (r->icap - 1);
	}
	return i;
}

/* The process host:pid, created on first sight; NULL beyond RANKS_MAX.
 * (A linear search here made a log with 100000 distinct pids take minutes.) */
static struct rank_proc *proc_get(struct ranks *r, const char *host, size_t hn, long pid)
{
	if (!r->index) {
		r->icap = 4 * RANKS_MAX;
		r->index = xcalloc(r->icap, sizeof *r->index);
	}
	size_t slot = proc_slot(r, host, hn, pid);
	if (r->index[slot])
		return &r->v[r->index[slot] - 1];
	if (r->n >= RANKS_MAX)
		return NULL;
	r->index[slot] = (uint32_t)r->n + 1;
	if (r->n == r->cap) {
		r->cap = r->cap ? r->cap * 2 : 8;
		r->v = xrealloc(r->v, r->cap * sizeof *r->v);
	}
	struct rank_proc *p = &r->v[r->n++];
	memset(p, 0, sizeof *p);
	p->host = xstrndup(host, hn);
	p->pid = pid;
	p->rank = p->nranks = p->cuda_dev = -1;
	return p;
}

static int span_has(const struct span *s, const char *lit)
{
	return memmem(s->p, s->n, lit, strlen(lit)) != NULL;
}

/* "... comm 0x.. rank 1 nranks 2 cudaDev 0 nvmlDev 0 busId 60 commId 0x.. - Init START" */
static void parse_init_line(struct rank_proc *p, const struct span *msg)
{
	char tmp[512];
	size_t n = msg->n < sizeof tmp - 1 ? msg->n : sizeof tmp - 1;
	memcpy(tmp, msg->p, n);
	tmp[n] = 0;
	const char *s;
	if ((s = strstr(tmp, " rank ")))
		p->rank = atoi(s + 6);
	if ((s = strstr(tmp, " nranks ")) || (s = strstr(tmp, " nRanks ")))
		p->nranks = atoi(s + 8);
	if ((s = strstr(tmp, " cudaDev ")))
		p->cuda_dev = atoi(s + 9);
	if ((s = strstr(tmp, " busId "))) {
		s += 7;
		size_t l = strcspn(s, " ");
		free(p->bus_id);
		p->bus_id = xstrndup(s, l);
	}
	if ((s = strstr(tmp, " commId "))) {
		s += 8;
		size_t l = strcspn(s, " ");
		free(p->comm_id);
		p->comm_id = xstrndup(s, l);
	}
}

void ranks_note(struct ranks *r, const struct logline *ll, const char *path, uint64_t lineno, uint64_t seq)
{
	if (ll->host.n == 0 || ll->pid < 0)
		return;
	struct rank_proc *p = proc_get(r, ll->host.p, ll->host.n, ll->pid);
	if (!p) {
		r->untracked_lines++;
		return;
	}
	const struct span *m = &ll->msg;
	if (ll->level == LINE_INFO) {
		if (m->n > 13 && memcmp(m->p, "NCCL version ", 13) == 0) {
			p->saw_banner = 1;
			size_t l = 13;
			while (l < m->n && m->p[l] != '+' && m->p[l] != ' ')
				l++;
			free(p->nccl_version);
			p->nccl_version = xstrndup(m->p + 13, l - 13);
		} else if (span_has(m, "Init START")) {
			p->saw_init_start = 1;
			parse_init_line(p, m);
		} else if (span_has(m, "Init COMPLETE")) {
			p->saw_init_complete = 1;
			parse_init_line(p, m);
		} else if (span_has(m, "Abort START") || span_has(m, "Abort COMPLETE")) {
			p->saw_abort = 1;
		}
	} else if (ll->level == LINE_WARN && !p->saw_warn) {
		p->saw_warn = 1;
		p->first_warn = str_sanitize(m->p, m->n > 300 ? 300 : m->n);
		p->first_warn_seq = seq;
	}
	if (!p->last_path || strcmp(p->last_path, path) != 0) {
		free(p->last_path);
		p->last_path = xstrdup(path);
	}
	p->last_line = lineno;
	free(p->last_text);
	p->last_text = str_sanitize(m->p, m->n > 300 ? 300 : m->n);
}

int ranks_lookup(const struct ranks *r, const char *host, long pid)
{
	if (!r->index)
		return -1;
	size_t slot = proc_slot(r, host, strlen(host), pid);
	return r->index[slot] ? r->v[r->index[slot] - 1].rank : -1;
}

static int cmp_proc(const void *a, const void *b)
{
	const struct rank_proc *x = a, *y = b;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	int c = strcmp(x->host, y->host);
	if (c)
		return c;
	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

static const char *milestone(const struct rank_proc *p)
{
	if (p->saw_abort)
		return "aborted";
	if (p->saw_init_complete)
		return "init_complete";
	if (p->saw_init_start)
		return "init_start";
	if (p->saw_banner)
		return "banner";
	return "started";
}

cJSON *ranks_to_json(const struct ranks *r)
{
	struct rank_proc *sorted = xmalloc((r->n ? r->n : 1) * sizeof *sorted);
	if (r->n)
		memcpy(sorted, r->v, r->n * sizeof *sorted);
	qsort(sorted, r->n, sizeof *sorted, cmp_proc);
	cJSON *arr = cJSON_CreateArray();
	for (size_t i = 0; i < r->n; i++) {
		const struct rank_proc *p = &sorted[i];
		cJSON *o = cJSON_CreateObject();
		cJSON_AddNumberToObject(o, "rank", p->rank);
		if (p->nranks >= 0)
			cJSON_AddNumberToObject(o, "nranks", p->nranks);
		cJSON_AddStringToObject(o, "host", p->host);
		cJSON_AddNumberToObject(o, "pid", (double)p->pid);
		if (p->cuda_dev >= 0)
			cJSON_AddNumberToObject(o, "cuda_dev", p->cuda_dev);
		if (p->bus_id)
			cJSON_AddStringToObject(o, "bus_id", p->bus_id);
		if (p->comm_id)
			cJSON_AddStringToObject(o, "comm_id", p->comm_id);
		if (p->nccl_version)
			cJSON_AddStringToObject(o, "nccl_version", p->nccl_version);
		cJSON_AddStringToObject(o, "last_milestone", milestone(p));
		if (p->first_warn)
			cJSON_AddStringToObject(o, "first_error", p->first_warn);
		if (p->last_path) {
			cJSON *l = cJSON_AddObjectToObject(o, "last_line");
			cJSON_AddStringToObject(l, "path", p->last_path);
			cJSON_AddNumberToObject(l, "line", (double)p->last_line);
			cJSON_AddStringToObject(l, "text", p->last_text ? p->last_text : "");
		}
		cJSON_AddItemToArray(arr, o);
	}
	free(sorted);
	return arr;
}
