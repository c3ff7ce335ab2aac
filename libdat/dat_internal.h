/*
 * libdat internals: the static registry (dat.conf), the dynamic registry
 * (providers that registered themselves) and the open-IA table.
 */
#ifndef LIBDAT_DAT_INTERNAL_H
#define LIBDAT_DAT_INTERNAL_H

#include <dat/udat.h>
#include <stdbool.h>

/* Providers build errors the same way (no public macro exists in 1.2). */
#define DAT_ERROR(type, subtype) \
	((DAT_RETURN)(DAT_CLASS_ERROR | (DAT_UINT32)(type) | (DAT_UINT32)(subtype)))

#define LIBDAT_PREFIX "libdat: "

/* One loadable dat.conf entry ('u' API, 'default'). */
struct dat_sr_entry {
	DAT_PROVIDER_INFO	info;		/* the registry key */
	char			*lib_path;
	char			*provider_version;
	char			*ia_params;
	char			*platform_params;
	char			*conf_path;	/* for diagnostics */
	int			line;

	/* run time, protected by the registry lock */
	void			*dl;
	DAT_PROVIDER_FINI_FUNC	fini;
	int			refs;		/* IAs (and opens in flight) */
	bool			load_reported;
	bool			reg_reported;
	struct dat_sr_entry	*next;
};

struct dat_conf {
	struct dat_sr_entry	*entries;	/* in file order */
	int			count;
	bool			readable;	/* false: file missing or unreadable */
};

/*
 * Parse the dat.conf at @path (@origin says where the path came from, for
 * messages). Malformed lines are reported on stderr (one line each) and
 * skipped. @quiet_missing: stay silent when the file does not exist (the
 * built-in default path on a host without providers).
 */
void dat_conf_parse(const char *path, const char *origin, bool quiet_missing,
		    struct dat_conf *conf);

/* Frees the entries of a parsed dat.conf (the registry keeps its own for the
 * life of the process; the parser fuzzer frees each). */
void dat_conf_free(struct dat_conf *conf);

/* Registry key equality: name, major, minor and thread safety. */
bool dat_info_key_equal(const DAT_PROVIDER_INFO *a, const DAT_PROVIDER_INFO *b);

/*
 * The dynamic registry's documented limit (docs/libdat.md): a registration
 * past it is refused with DAT_INSUFFICIENT_RESOURCES
 * (dat_registry_add_provider(3DAT), RETURN VALUES).
 */
#define DAT_DR_MAX_PROVIDERS 256

/* True when @ia was returned by dat_ia_openv and is not closed yet. */
bool dat_ia_is_open(DAT_IA_HANDLE ia);

#endif /* LIBDAT_DAT_INTERNAL_H */
