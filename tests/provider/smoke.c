// SPDX-License-Identifier: MIT
/*
 * End to end through libdat: dat_ia_open("ref-sock") with
 * DAT_OVERRIDE=<build>/dat.conf, PZ, LMR, EVD, a software event posted
 * and waited for, everything freed, graceful close.
 */
#include <dat/udat.h>

#include <stdio.h>
#include <string.h>

static int failures;

#define OK(expr) do { \
	DAT_RETURN rc_ = (expr); \
	if (rc_ != DAT_SUCCESS) { \
		fprintf(stderr, "%s:%d: %s -> 0x%08x\n", __FILE__, __LINE__, \
			#expr, (unsigned int)rc_); \
		failures++; \
	} \
} while (0)

int main(void)
{
	static char buf[4096];
	DAT_IA_HANDLE ia = DAT_HANDLE_NULL;
	DAT_EVD_HANDLE async = DAT_HANDLE_NULL, evd = DAT_HANDLE_NULL;
	DAT_PZ_HANDLE pz = DAT_HANDLE_NULL;
	DAT_LMR_HANDLE lmr = DAT_HANDLE_NULL;
	DAT_LMR_CONTEXT lc;
	DAT_RMR_CONTEXT rc;
	DAT_VLEN size;
	DAT_VADDR addr;
	DAT_REGION_DESCRIPTION rd;
	DAT_PROVIDER_ATTR pa;
	DAT_EVENT ev, out;
	DAT_COUNT nmore = -1;
	DAT_HANDLE_TYPE type;
	DAT_RETURN r;

	r = dat_ia_open("ref-sock", 8, &async, &ia);
	if (r != DAT_SUCCESS) {
		fprintf(stderr, "dat_ia_open(ref-sock) -> 0x%08x\n",
			(unsigned int)r);
		return 1;
	}
	OK(dat_ia_query(ia, NULL, 0, NULL, DAT_PROVIDER_FIELD_ALL, &pa));
	if (pa.dapl_version_major != 1 || pa.dapl_version_minor != 2)
		failures++;
	OK(dat_pz_create(ia, &pz));
	rd.for_va = buf;
	OK(dat_lmr_create(ia, DAT_MEM_TYPE_VIRTUAL, rd, sizeof(buf), pz,
			  DAT_MEM_PRIV_ALL_FLAG, &lmr, &lc, &rc, &size, &addr));
	OK(dat_evd_create(ia, 4, DAT_HANDLE_NULL, DAT_EVD_SOFTWARE_FLAG, &evd));
	OK(dat_get_handle_type(evd, &type));
	if (type != DAT_HANDLE_TYPE_EVD)
		failures++;
	memset(&ev, 0, sizeof(ev));
	ev.event_number = DAT_SOFTWARE_EVENT;
	ev.event_data.software_event_data.pointer = buf;
	OK(dat_evd_post_se(evd, &ev));
	OK(dat_evd_wait(evd, 1000000, 1, &out, &nmore));
	if (out.event_number != DAT_SOFTWARE_EVENT ||
	    out.event_data.software_event_data.pointer != buf || nmore != 0)
		failures++;
	OK(dat_evd_free(evd));
	/* a freed handle is rejected, not a crash */
	if (DAT_GET_TYPE(dat_evd_free(evd)) != DAT_INVALID_HANDLE)
		failures++;
	OK(dat_lmr_free(lmr));
	OK(dat_pz_free(pz));
	OK(dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
	if (failures)
		fprintf(stderr, "provider.smoke: %d failure(s)\n", failures);
	else
		printf("provider.smoke: ok\n");
	return failures ? 1 : 0;
}
