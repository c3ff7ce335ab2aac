/* SPDX-License-Identifier: MIT */
/*
 * Finding close-leaks-descriptors (docs/certification/ofa-dapl-2.1.10/):
 * the process opens and closes its only IA again and again, counting its
 * open descriptors after each close. dat_ia_close(3DAT) USAGE: closing the
 * IA leaves none of the instance's resources behind, so the count stays
 * where the first cycle left it. libdat2 unloads the provider at the last
 * close, which is when what the provider's libraries opened is lost.
 */
#include "repro.h"

#include <dirent.h>

enum { CYCLES = 8 };

static int open_descriptors(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n - 1;	/* the directory's own */
}

static enum repro_answer body(DAT_IA_HANDLE ia)
{
	DAT_EVD_HANDLE async = DAT_HANDLE_NULL;
	int first = -1, now = -1;
	DAT_RETURN r = dat_ia_close(ia, DAT_CLOSE_ABRUPT_FLAG);

	for (int i = 0; r == DAT_SUCCESS && i < CYCLES; i++) {
		now = open_descriptors();
		if (i == 0)
			first = now;
		async = DAT_HANDLE_NULL;
		if ((r = dat_ia_open(repro_ia_name, 8, &async, &ia)) == DAT_SUCCESS)
			r = dat_ia_close(ia, DAT_CLOSE_ABRUPT_FLAG);
	}
	if (r != DAT_SUCCESS || first < 0)
		return repro_say(REPRO_CANNOT, "an open/close cycle failed: %s", REPRO_RET(r));
	now = open_descriptors();
	if (now <= first)
		return repro_say(REPRO_ABSENT, "%d open descriptors after the first close, %d after "
				 "%d more cycles", first, now, CYCLES);
	return repro_say(REPRO_SHOWS, "%d open descriptors after the first close, %d after %d more "
			 "open/close cycles of the process's only IA", first, now, CYCLES);
}

REPRO_MAIN(.finding = "close-leaks-descriptors", .body = body,
	   .if_hang = "an open/close cycle of the only IA hung")
