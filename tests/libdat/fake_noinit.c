/* A library that looks like a provider but lacks dat_provider_init. */
#include <dat/udat.h>

__attribute__((visibility("default")))
void dat_provider_fini(const DAT_PROVIDER_INFO *info)
{
	(void)info;
}
