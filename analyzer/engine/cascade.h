/* cascade.h - echoes across ranks.  After correlate(), pick the anchor of
 * the failure (a rank killed by a signal, a rank that never joined, a rank
 * whose watchdog sequence is behind or whose collective differs, else the
 * root diagnosis that covers the rank that failed first) and mark as its
 * echo (role cascade, echo_of) every root diagnosis of an echo-prone
 * category (RANK_FAILURE, COLLECTIVE_TIMEOUT, SOCKET_NETWORK, IB_RDMA,
 * RENDEZVOUS) that is seen only on other ranks, every less specific
 * diagnosis of the anchor's own category, and every cascade diagnosis left
 * without a target.  Then re-rank.  Operates on b->diags in place. */
#ifndef NT_CASCADE_H
#define NT_CASCADE_H

struct bundle;

void cascade_link(struct bundle *b);

#endif
