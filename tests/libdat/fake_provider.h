/* What the fake provider lets a test observe. */
#ifndef FAKE_PROVIDER_H
#define FAKE_PROVIDER_H

#include <dat/udat.h>

struct fakeprov_stats {
	int		init_calls;
	int		fini_calls;
	int		open_calls;
	int		close_calls;
	int		open_ias;
	DAT_CLOSE_FLAGS	last_close_flags;
	DAT_RETURN	last_add_status;
	DAT_RETURN	last_remove_status;
	char		last_instance_data[256];
};

#define FAKEPROV_STATS_SYMBOL "fakeprov_stats"

#endif
