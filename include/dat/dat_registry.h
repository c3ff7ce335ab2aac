/*
 * DAT 1.2 public headers (datcts implementation).
 * Provider side of the registry: how a provider library is found and
 * how it registers itself with libdat.
 */
#ifndef DAT_REGISTRY_H_
#define DAT_REGISTRY_H_

#include <dat/dat.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * OFA 1.2 declares the provider const here (illumos does not); a const
 * parameter accepts both kinds of caller.
 */
extern DAT_RETURN dat_registry_add_provider(const DAT_PROVIDER *provider,
					    const DAT_PROVIDER_INFO *provider_info);
extern DAT_RETURN dat_registry_remove_provider(const DAT_PROVIDER *provider,
					       const DAT_PROVIDER_INFO *provider_info);

/* Entry points the static registry looks up in a provider library. */
#define DAT_PROVIDER_INIT_FUNC_NAME	dat_provider_init
#define DAT_PROVIDER_FINI_FUNC_NAME	dat_provider_fini
#define DAT_PROVIDER_INIT_FUNC_STR	"dat_provider_init"
#define DAT_PROVIDER_FINI_FUNC_STR	"dat_provider_fini"

typedef void (*DAT_PROVIDER_INIT_FUNC)(const DAT_PROVIDER_INFO *,
				       const char *);
typedef void (*DAT_PROVIDER_FINI_FUNC)(const DAT_PROVIDER_INFO *);

/* Implemented by providers, not by libdat. */
extern void DAT_PROVIDER_INIT_FUNC_NAME(const DAT_PROVIDER_INFO *provider_info,
					const char *instance_data);
extern void DAT_PROVIDER_FINI_FUNC_NAME(const DAT_PROVIDER_INFO *provider_info);

#ifdef __cplusplus
}
#endif

#endif /* DAT_REGISTRY_H_ */
