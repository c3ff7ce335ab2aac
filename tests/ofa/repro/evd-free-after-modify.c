/* SPDX-License-Identifier: MIT */
/*
 * Finding evd-free-after-modify (docs/certification/ofa-dapl-2.1.10/):
 * an EP is moved by dat_ep_modify from one connection EVD to another, the
 * first, now unused, is freed, and then the EP. dat_evd_free(3DAT)
 * DESCRIPTION: an EVD no object uses can be freed, and the objects that fed
 * it are unaffected, so the EP frees as any other.
 */
#include "repro.h"

static DAT_RETURN free_ep(DAT_HANDLE ep)
{
	return dat_ep_free(ep);
}

static enum repro_answer body(DAT_IA_HANDLE ia)
{
	static struct repro_waiter w = { .wait = free_ep };
	struct repro_end e;
	DAT_EVD_HANDLE other;
	DAT_EP_PARAM p;
	DAT_RETURN r;

	if ((r = repro_end(ia, &e)) != DAT_SUCCESS ||
	    (r = dat_evd_create(ia, 8, DAT_HANDLE_NULL, DAT_EVD_CONNECTION_FLAG, &other)) !=
		    DAT_SUCCESS)
		return repro_say(REPRO_CANNOT, "making an EP and a second connection EVD failed: %s",
				 REPRO_RET(r));
	memset(&p, 0, sizeof(p));
	p.connect_evd_handle = other;
	if ((r = dat_ep_modify(e.ep, DAT_EP_FIELD_CONNECT_EVD_HANDLE, &p)) != DAT_SUCCESS ||
	    (r = dat_ep_query(e.ep, DAT_EP_FIELD_CONNECT_EVD_HANDLE, &p)) != DAT_SUCCESS ||
	    p.connect_evd_handle != other)
		return repro_say(REPRO_CANNOT, "moving the EP to the second connection EVD failed: %s",
				 REPRO_RET(r));
	r = dat_evd_free(e.conn);
	if (r != DAT_SUCCESS)
		return repro_say(REPRO_SHOWS, "dat_evd_free of the EVD the EP left returned %s",
				 REPRO_RET(r));
	/* in a thread of its own: a dat_ep_free that never returns is the answer */
	w.handle = e.ep;
	repro_waiter_start(&w);
	if (!repro_waiters_return(&w, 1, 5000))
		return repro_say(REPRO_SHOWS, "after the EVD it left was freed, dat_ep_free of the EP "
				 "did not return within 5 s");
	if (w.r != DAT_SUCCESS)
		return repro_say(REPRO_SHOWS, "after the EVD it left was freed, dat_ep_free of the EP "
				 "returned %s", REPRO_RET(w.r));
	return repro_say(REPRO_ABSENT, "the EVD the EP left was freed, and the EP after it");
}

REPRO_MAIN(.finding = "evd-free-after-modify", .body = body,
	   .if_crash = "freeing the connection EVD an EP was moved away from, or the EP after it, "
		       "killed the process")
