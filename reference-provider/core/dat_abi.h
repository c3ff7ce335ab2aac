/* SPDX-License-Identifier: MIT */
/*
 * dat_abi.h - the one place where the DAT ABI the provider is built for
 * shows.  core/ and transport/ are compiled twice from the same source:
 * against include/dat (DAT 1.2, libdaplref.so) and, with REF_DAT2, against
 * Debian's <dat2/...> (DAT 2.0, libdaplref2.so).  Both header sets use the
 * same names for the same things, so core is written against the names;
 * what differs in layout or signature is bridged here or in the per-ABI
 * file (abi12.c / abi20.c: the dispatch table, the entry points whose
 * signatures differ and the attributes only one ABI has).
 */
#ifndef REF_DAT_ABI_H
#define REF_DAT_ABI_H

#include <stdint.h>

#ifdef REF_DAT2
#include <netinet/in.h>		/* <dat2/udat.h> needs sockaddr_in(6) */
#include <dat2/udat.h>
#include <dat2/dat_registry.h>
#else
#include <dat/udat.h>
#endif

/* DAT 2.0 renamed the RMR triplet's target_address to virtual_address. */
#ifdef REF_DAT2
#define REF_RMR_TRIPLET_ADDRESS(t) ((t)->virtual_address)
#else
#define REF_RMR_TRIPLET_ADDRESS(t) ((t)->target_address)
#endif

/*
 * Largest value a DAT length field can hold: DAT_VLEN (64 bits) in 1.2;
 * the IA and EP size attributes became DAT_SEG_LENGTH (32 bits) in 2.0.
 */
#ifdef REF_DAT2
#define REF_SEG_LENGTH_MAX ((DAT_SEG_LENGTH)UINT32_MAX)
#else
#define REF_SEG_LENGTH_MAX ((DAT_VLEN)UINT64_MAX)
#endif

/*
 * Every bit a dat_cno_query mask may carry.  1.2: the field bits, whose union
 * is DAT_CNO_FIELD_ALL.  2.0 numbers the fields 1, 2, 3 (PROXY = both others)
 * and ALL 4, so ALL alone does not cover the single fields.
 */
#ifdef REF_DAT2
#define REF_CNO_FIELD_VALID (DAT_CNO_FIELD_IA_HANDLE | DAT_CNO_FIELD_PROXY_TYPE | \
			     DAT_CNO_FIELD_PROXY | DAT_CNO_FIELD_ALL)
#else
#define REF_CNO_FIELD_VALID DAT_CNO_FIELD_ALL
#endif

struct ref_dto;

/* Per-ABI parts of the query results and events (abi12.c, abi20.c). */
void ref_abi_fill_ia_attr(DAT_IA_ATTR *attr);
void ref_abi_fill_provider_attr(DAT_PROVIDER_ATTR *attr);
void ref_abi_fill_cno_agent(DAT_CNO_PARAM *param,
			    const DAT_OS_WAIT_PROXY_AGENT *agent);
void ref_abi_fill_rmr_param(DAT_RMR_PARAM *param);
void ref_abi_fill_dto_event(DAT_EVENT *ev, int op);

/* The dispatch table of this ABI (abi12.c, abi20.c). */
extern DAT_PROVIDER ref_provider;

#endif
