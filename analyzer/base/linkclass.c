/* linkclass.c - see linkclass.h. */
#include "base/linkclass.h"

#include <string.h>

static const struct link_type {
	const char *token;   /* exact, or "NV" for NV# and NVB */
	const char *cls;
	const char *legend;
	int direct, through_cpu;
} TYPES[] = {
	{"X", "self", "X", 0, 0},
	{"NV", "nvlink", "NV", 1, 0},
	{"C2C", "c2c", "other", 1, 0},
	{"PIX", "pcie_switch", "PIX", 1, 0},
	{"PXB", "pcie_switch", "PXB", 1, 0},
	{"P2C", "pcie_switch", "other", 1, 0},
	{"PHB", "host_bridge", "PHB", 0, 1},
	{"NODE", "numa_node", "NODE", 0, 1},
	{"SYS", "cross_socket", "SYS", 0, 1},
	{"SOC", "cross_socket", "SYS", 0, 1}, /* older name of SYS */
};
static const struct link_type UNKNOWN = {NULL, "unknown", "other", 0, 0};

static const struct link_type *lookup(const char *t)
{
	if (!t)
		return &UNKNOWN;
	if (t[0] == 'N' && t[1] == 'V')
		return &TYPES[1];
	for (size_t i = 0; i < sizeof TYPES / sizeof TYPES[0]; i++)
		if (strcmp(t, TYPES[i].token) == 0)
			return &TYPES[i];
	return &UNKNOWN;
}

int topo_is_link_token(const char *t)
{
	if (!strcmp(t, "NVB") || !strcmp(t, "PXN"))
		return 1;
	if (t[0] == 'N' && t[1] == 'V') {
		if (!(t[2] >= '0' && t[2] <= '9'))
			return 0;
		for (const char *p = t + 2; *p; p++)
			if (!(*p >= '0' && *p <= '9'))
				return 0;
		return 1;
	}
	return lookup(t) != &UNKNOWN;
}

const char *topo_link_class(const char *t)
{
	return lookup(t)->cls;
}

int topo_link_direct(const char *t)
{
	return lookup(t)->direct;
}

int topo_link_through_cpu(const char *t)
{
	return lookup(t)->through_cpu;
}

const char *topo_link_legend(const char *t)
{
	return lookup(t)->legend;
}
