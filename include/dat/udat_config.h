/*
 * DAT 1.2 public headers (datcts implementation).
 * The version and thread-safety a consumer asks for through dat_ia_open().
 */
#ifndef UDAT_CONFIG_H_
#define UDAT_CONFIG_H_

#define DAT_VERSION_MAJOR	1
#define DAT_VERSION_MINOR	2

/*
 * The 1.2 reference configuration is not thread safe, so stock consumers
 * look up "nonthreadsafe" dat.conf entries.
 */
#define DAT_THREADSAFE		DAT_FALSE

#endif /* UDAT_CONFIG_H_ */
