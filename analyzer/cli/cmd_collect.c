/* cmd_collect.c - `nccl-triage collect [-o FILE.tar.gz | -d DIR] [--redact]
 * [--timeout S] [--budget S]`: this host's system reports, their manifest
 * and the filtered environment (collect/collect.h) as one bundle that
 * `analyze` reads directly.  Exit status: 0 the bundle was written, 2 not
 * (usage, or the output could not be written).  docs/collect.md. */
#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/clicommon.h"
#include "cli/commands.h"
#include "collect/citems.h"
#include "collect/credact.h"
#include "collect/collect.h"

/* "--timeout 5" and the like: a number of seconds > 0. */
int cli_seconds(const char *opt, const char *v, double *out)
{
	char *end;
	errno = 0;
	double x = strtod(v, &end);
	if (errno || end == v || *end || !(x > 0) || x > 1e7) {
		fprintf(stderr, "nccl-triage: --%s: invalid number of seconds '%s'\n", opt, v);
		return -1;
	}
	*out = x;
	return 0;
}

/* The names --redact must hide besides what the files show: this host's
 * and the user's. */
void cli_own_names(const char *shortname, const char *full, const char *hosts[4], const char *users[4])
{
	size_t h = 0, u = 0;
	hosts[h++] = shortname;
	if (strcmp(full, shortname))
		hosts[h++] = full;
	hosts[h] = NULL;
	struct passwd *pw = getpwuid(geteuid());
	if (pw && pw->pw_name)
		users[u++] = pw->pw_name;
	const char *e = getenv("USER");
	if (e && *e && u < 3)
		users[u++] = e;
	e = getenv("LOGNAME");
	if (e && *e && u < 3)
		users[u++] = e;
	users[u] = NULL;
}

/* The manifest's "command": this command line as the options gave it. */
static char *cmdline(const struct common *c, const char *dir, double timeout, double budget)
{
	struct buf b;
	buf_init(&b);
	buf_adds(&b, "nccl-triage collect");
	if (dir)
		buf_printf(&b, " -d %s", dir);
	else if (c->output)
		buf_printf(&b, " -o %s", c->output);
	if (c->redact)
		buf_adds(&b, " --redact");
	buf_printf(&b, " --timeout %g --budget %g", timeout, budget);
	return buf_steal(&b);
}

static void print_counts(const char *where, const struct collect_counts *k)
{
	fprintf(stderr, "nccl-triage collect: wrote %s: %zu commands: %zu ok", where, k->total, k->ok);
	if (k->missing)
		fprintf(stderr, ", %zu not installed or absent", k->missing);
	if (k->denied)
		fprintf(stderr, ", %zu not allowed", k->denied);
	if (k->timeout)
		fprintf(stderr, ", %zu timed out", k->timeout);
	if (k->skipped)
		fprintf(stderr, ", %zu skipped (budget)", k->skipped);
	if (k->failed)
		fprintf(stderr, ", %zu failed", k->failed);
	fprintf(stderr, " (manifest.jsonl says which; nccl-triage analyze %s)\n", where);
}

int cmd_collect(struct common *c, struct strvec *ops)
{
	struct collect_opts o;
	collect_opts_default(&o);
	const char *dir = NULL;
	for (size_t i = 0; i < c->nargs; i++) {
		const struct cli_arg *a = &c->args[i];
		if (a->id == OPT_DIR)
			dir = a->arg;
		else if (a->id == OPT_TIMEOUT && cli_seconds("timeout", a->arg, &o.timeout_s))
			return EXIT_TROUBLE;
		else if (a->id == OPT_BUDGET && cli_seconds("budget", a->arg, &o.budget_s))
			return EXIT_TROUBLE;
	}
	if (ops->n) {
		fprintf(stderr, "nccl-triage collect: unexpected operand '%s'\nhint: nccl-triage collect -o FILE.tar.gz\n",
		        ops->v[0]);
		return EXIT_TROUBLE;
	}
	if (dir && c->output) {
		fprintf(stderr, "nccl-triage collect: -o and -d exclude each other\n");
		return EXIT_TROUBLE;
	}
	char host[128], full[256];
	collect_hostname(host, sizeof host, full, sizeof full);
	o.redact = c->redact;
	char *line = cmdline(c, dir, o.timeout_s, o.budget_s);
	o.cmdline = line;
	struct citems items = {0};
	citems_add(&items, "manifest.jsonl", NULL, 0);
	struct buf m;
	buf_init(&m);
	collect_manifest_header(&m, &o, full, "collect");
	struct collect_counts k;
	collect_host(&o, &items, &m, &k);
	buf_add(&items.v[0].data, m.data, m.len);
	buf_free(&m);
	char *prefix = xstrdup(host);
	if (c->redact) {
		const char *hosts[4], *users[4];
		cli_own_names(host, full, hosts, users);
		char *pseudo = NULL;
		citems_redact(&items, hosts, users, &pseudo);
		free(prefix);
		prefix = pseudo ? pseudo : xstrdup("host");
	}
	char *path = NULL, *err = NULL;
	int rc;
	if (dir) {
		rc = citems_write_dir(&items, dir, &err);
		path = xstrdup(dir);
	} else {
		if (c->output) {
			path = xstrdup(c->output);
		} else {
			char t[32];
			time_t now = time(NULL);
			struct tm tm;
			localtime_r(&now, &tm);
			strftime(t, sizeof t, "%Y%m%d-%H%M%S", &tm);
			path = xasprintf("nccl-triage-collect-%s-%s.tar.gz", prefix, t);
		}
		rc = citems_write_tgz(&items, path, prefix, (uint64_t)time(NULL), &err);
	}
	if (rc < 0)
		fprintf(stderr, "nccl-triage collect: %s\n", err ? err : "cannot write the bundle");
	else if (!c->quiet)
		print_counts(strcmp(path, "-") ? path : "standard output", &k);
	free(err);
	free(path);
	free(prefix);
	free(line);
	citems_free(&items);
	return rc < 0 ? EXIT_TROUBLE : 0;
}
