// SPDX-License-Identifier: MIT
/*
 * abi12.c - what is DAT 1.2's own in libdaplref.so: the 1.2 dispatch
 * table (68 functions; dat12-facts.md section 3.2).  Core's entry points
 * have the 1.2 signatures, so the table names them directly, and the
 * attributes and events have no members beyond what core fills.
 */
#include "provider_table.h"

DAT_PROVIDER ref_provider = {
	.device_name = "ref",
	.extension = NULL,
	REF_PROVIDER_SHARED_FUNCS,
	.cr_reject_func = ref_cr_reject,
	.lmr_create_func = ref_lmr_create,
	.rmr_bind_func = ref_rmr_bind,
};

void ref_abi_fill_ia_attr(DAT_IA_ATTR *attr)
{
	(void)attr;
}

void ref_abi_fill_provider_attr(DAT_PROVIDER_ATTR *attr)
{
	(void)attr;
}

void ref_abi_fill_cno_agent(DAT_CNO_PARAM *param,
			    const DAT_OS_WAIT_PROXY_AGENT *agent)
{
	param->agent = *agent;
}

void ref_abi_fill_rmr_param(DAT_RMR_PARAM *param)
{
	(void)param;
}

void ref_abi_fill_dto_event(DAT_EVENT *ev, int op)
{
	(void)ev;
	(void)op;
}
