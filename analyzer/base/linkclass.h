/* linkclass.h - the link types of `nvidia-smi topo -m` (X, NV#, NVB, C2C,
 * PIX, PXB, P2C, PHB, NODE, SYS, SOC on old drivers, PXN), one table for
 * the parser (facts), the rules and the HTML grid.
 *
 * Classes: self, nvlink, c2c, pcie_switch, host_bridge, numa_node,
 * cross_socket, unknown.  Direct (P2P without the CPU in the path): NVLink,
 * C2C and PCIe switches.  Through the CPU: PHB, NODE, SYS. */
#ifndef NT_LINKCLASS_H
#define NT_LINKCLASS_H

/* Whether t is a link token of the matrix (NV followed by digits too). */
int topo_is_link_token(const char *t);
const char *topo_link_class(const char *t);
int topo_link_direct(const char *t);
int topo_link_through_cpu(const char *t);
/* The legend entry the HTML grid colours it with: X NV PIX PXB PHB NODE
 * SYS, or "other"; NULL t gives "other". */
const char *topo_link_legend(const char *t);

#endif
