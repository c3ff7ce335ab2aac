/* SPDX-License-Identifier: MIT */
/*
 * verbs.h - the rdma-core transport ("verbs:<device>[:<address>]").
 * Built only when rdma-core headers are present (REF_WITH_VERBS).
 * Documentation: docs/verbs.md.
 */
#ifndef REF_VERBS_H
#define REF_VERBS_H

#include "transport.h"

#ifdef REF_WITH_VERBS
extern const struct ref_transport_ops ref_verbs_ops;

/*
 * Memory registration for LMRs and RMR windows (lmr.c / rmr.c through
 * ref_conn_mem_reg): registers [addr, addr+len) in the protection domain
 * of @pz with the access @priv asks for.  *@mem is the registration
 * (an ibv_mr), *@rkey its remote key - on verbs the rmr_context IS the
 * rkey, so a peer can name the memory in its work requests.
 */
DAT_RETURN ref_verbs_mem_reg(struct ref_transport *tp, struct ref_pz *pz,
			     DAT_VADDR addr, DAT_VLEN len,
			     DAT_MEM_PRIV_FLAGS priv, void **mem,
			     uint32_t *rkey);
void ref_verbs_mem_dereg(struct ref_transport *tp, void *mem);
/* The device's limits into the IA / provider attributes (ia.c). */
void ref_verbs_attrs(struct ref_transport *tp, DAT_IA_ATTR *ia,
		     DAT_PROVIDER_ATTR *pr);
/* An SRQ is going away: its hardware SRQ goes with it (srq.c). */
void ref_verbs_srq_free(struct ref_transport *tp, struct ref_srq *srq);
/* A QP of the SRQ can take its buffers (a message may be arriving into one). */
bool ref_verbs_srq_receiving(struct ref_transport *tp, const struct ref_srq *srq);
#endif

#endif /* REF_VERBS_H */
