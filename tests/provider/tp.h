/* SPDX-License-Identifier: MIT */
/*
 * tp.h - tiny assertion helpers for the provider unit tests, and a way to
 * open an IA of the reference provider without dat.conf.
 */
#ifndef TP_H
#define TP_H

#include "ref.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int tp_failures;

#define CHECK(cond) do { \
	if (!(cond)) { \
		fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, \
			__LINE__, #cond); \
		tp_failures++; \
	} \
} while (0)

/* DAT codes compare by type (and subtype where the test names one). */
#define CHECK_OK(expr) do { \
	DAT_RETURN rc_ = (expr); \
	if (rc_ != DAT_SUCCESS) { \
		fprintf(stderr, "%s:%d: %s returned 0x%08x, want success\n", \
			__FILE__, __LINE__, #expr, (unsigned int)rc_); \
		tp_failures++; \
	} \
} while (0)

#define CHECK_RC(expr, type) do { \
	DAT_RETURN rc_ = (expr); \
	if (DAT_GET_TYPE(rc_) != (DAT_UINT32)(type) || \
	    !(rc_ & DAT_CLASS_ERROR)) { \
		fprintf(stderr, "%s:%d: %s returned 0x%08x, want type 0x%08x\n", \
			__FILE__, __LINE__, #expr, (unsigned int)rc_, \
			(unsigned int)(type)); \
		tp_failures++; \
	} \
} while (0)

#define CHECK_RC_SUB(expr, type, sub) do { \
	DAT_RETURN rc_ = (expr); \
	if (DAT_GET_TYPE(rc_) != (DAT_UINT32)(type) || \
	    DAT_GET_SUBTYPE(rc_) != (DAT_UINT32)(sub) || \
	    !(rc_ & DAT_CLASS_ERROR)) { \
		fprintf(stderr, "%s:%d: %s returned 0x%08x, want 0x%08x\n", \
			__FILE__, __LINE__, #expr, (unsigned int)rc_, \
			(unsigned int)(DAT_CLASS_ERROR | (type) | (sub))); \
		tp_failures++; \
	} \
} while (0)

static inline int tp_done(const char *name)
{
	if (tp_failures)
		fprintf(stderr, "%s: %d check(s) failed\n", name, tp_failures);
	else
		printf("%s: ok\n", name);
	return tp_failures ? 1 : 0;
}

#define TP_IA_NAME "tp-ref"

/* Registers TP_IA_NAME (once) and opens an IA with a new async EVD. */
static inline struct ref_ia *tp_open(DAT_EVD_HANDLE *async)
{
	static const DAT_PROVIDER_INFO info = { TP_IA_NAME, 1, 2, DAT_FALSE };
	DAT_EVD_HANDLE evd = DAT_HANDLE_NULL;
	DAT_IA_HANDLE ia = DAT_HANDLE_NULL;
	DAT_RETURN rc;

	dat_provider_init(&info, "sock:127.0.0.1");
	rc = ref_ia_open((DAT_NAME_PTR)TP_IA_NAME, 8, &evd, &ia);
	if (rc) {
		fprintf(stderr, "tp_open: ref_ia_open failed 0x%08x\n",
			(unsigned int)rc);
		exit(2);
	}
	if (async)
		*async = evd;
	return (struct ref_ia *)ia;
}

static inline DAT_EVENT tp_se(void *p)
{
	DAT_EVENT ev;

	memset(&ev, 0, sizeof(ev));
	ev.event_number = DAT_SOFTWARE_EVENT;
	ev.event_data.software_event_data.pointer = p;
	return ev;
}

static inline void tp_sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

#endif /* TP_H */
