/* rules_flight.c - the flight-recorder findings (parse/flight.h, computed
 * by flight_finish over every dump of the bundle and the rank timelines) as
 * evidence for the diagnoses of patterns/flight.json: ranks behind at the
 * first collective that did not complete, a desync in user code, a send or
 * recv without its peer, ranks without a dump, and whether the log agrees. */
#include "rules/rules.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse/flight.h"

static const struct rule_def DEFS[] = {
	{"flight.ranks_behind", "flight-recorder dumps: ranks never scheduled the first collective that did not complete on every rank"},
	{"flight.stalled", "flight-recorder dumps: every rank entered a collective and none completed it"},
	{"flight.desync", "flight-recorder dumps: ranks called different collectives, sizes or dtypes at one sequence number"},
	{"flight.p2p_unmatched", "flight-recorder dumps: a rank waits in a send or recv whose peer never posted its side"},
	{"flight.waiting_on_missing", "flight-recorder dumps: every dumped rank waits; only ranks without a dump can be behind"},
	{"flight.missing_dumps", "flight-recorder dumps: ranks of the process groups left no dump"},
	{"flight.log_disagrees", "the log's watchdog lines and the flight-recorder dumps disagree"},
	{"flight.log_agrees", "the log's watchdog lines and the flight-recorder dumps agree"},
	{"flight.all_completed", "flight-recorder dumps: every recorded collective completed"},
};

static const char *id_of(enum flight_finding k)
{
	switch (k) {
	case FF_BEHIND: return "flight.ranks_behind";
	case FF_STALLED: return "flight.stalled";
	case FF_DESYNC: return "flight.desync";
	case FF_P2P: return "flight.p2p_unmatched";
	case FF_WAIT_MISSING: return "flight.waiting_on_missing";
	case FF_MISSING: return "flight.missing_dumps";
	case FF_LOG: return "flight.log_disagrees";
	case FF_AGREE: return "flight.log_agrees";
	default: return "flight.all_completed";
	}
}

static void run(struct rule_ctx *rc)
{
	size_t n;
	const struct flight_item *it = flight_items(rc->flight, &n);
	for (size_t i = 0; i < n; i++) {
		struct caplist caps = {0};
		for (size_t k = 0; k < it[i].caps.n; k++)
			caplist_add(&caps, it[i].caps.v[k].name, "%s", it[i].caps.v[k].value);
		if (it[i].nranks) /* {rank}: the first culprit, for fix steps */
			caplist_add(&caps, "rank", "%d", it[i].ranks[0]);
		const char *path = it[i].path && *it[i].path ? it[i].path : rc->name;
		/* one piece of evidence per rank named, so that {ranks} lists them */
		size_t nr = it[i].nranks ? it[i].nranks : 1;
		for (size_t r = 0; r < nr && r < 64; r++) {
			struct evidence *e = rule_emit(rc, id_of(it[i].kind), path, it[i].line, it[i].text, caps.v, caps.n);
			if (e && it[i].nranks)
				e->rank = it[i].ranks[r];
		}
		caplist_free(&caps);
	}
}

const struct rule_provider RULES_FLIGHT = {
	"flight", DEFS, sizeof DEFS / sizeof DEFS[0], run,
};
