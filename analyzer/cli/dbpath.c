/* dbpath.c - see dbpath.h. */
#include "cli/dbpath.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/util.h"

#ifndef NT_DATADIR
#define NT_DATADIR "/usr/local/share/nccl-triage"
#endif

static int dir_exists(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

char *builtin_patterns_dir(void)
{
	const char *env = getenv("NCCL_TRIAGE_DATADIR");
	if (env && *env) {
		char *p = xasprintf("%s/patterns", env);
		if (dir_exists(p))
			return p;
		free(p);
	}
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (n > 0) {
		exe[n] = 0;
		char *slash = strrchr(exe, '/');
		if (slash) {
			*slash = 0;
			const char *cands[] = {"%s/patterns", "%s/../patterns", "%s/../share/nccl-triage/patterns"};
			for (size_t i = 0; i < sizeof cands / sizeof *cands; i++) {
				char *p = xasprintf(cands[i], exe);
				if (dir_exists(p))
					return p;
				free(p);
			}
		}
	}
	char *p = xasprintf("%s/patterns", NT_DATADIR);
	if (dir_exists(p))
		return p;
	free(p);
	return NULL;
}
