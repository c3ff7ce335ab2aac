/* SPDX-License-Identifier: MIT */
/*
 * dc_registry.h - the registry fixture (harness/registry.c): dat.conf files
 * of a case's own, rich enough for a registry to get wrong, and a Provider
 * (libdatcts-regprov.so, harness/regprov.c) that logs every init, fini and
 * unload the registry causes.  Included by datcts.h.
 *
 * A case that uses it has .flags = DC_NO_IA and calls dc_registry_conf()
 * (or dc_registry_rich()) before its first registry call: the registry
 * reads dat.conf once per process, at its first use.
 */
#ifndef DC_REGISTRY_H
#define DC_REGISTRY_H

/* The longest IA name dat.conf can give (DAT_NAME_MAX_LENGTH counts the NUL). */
#define DC_REGFIX_NAME_MAX (DAT_NAME_MAX_LENGTH - 1)

/*
 * Writes @text as this process's dat.conf and points DAT_OVERRIDE at it; the
 * fixture Provider's log starts empty.  In @text, "@LIB@" is the fixture
 * Provider's path, "@API@" the build's API ("u1.2" or "u2.0"), "@APINEXT@"
 * the same with the next minor version, "@KAPI@" the kernel form ("k1.2"),
 * "@MAXNAME@" an IA name of DC_REGFIX_NAME_MAX characters and "@LONGNAME@"
 * one character longer.  UNRESOLVED when the fixture Provider is missing.
 */
void dc_registry_conf_at(struct dc_ctx *t, const char *file, int line, const char *text);
#define dc_registry_conf(text) dc_registry_conf_at(t, __FILE__, __LINE__, (text))

/*
 * The rich fixture (DC_REGFIX_RICH, registry.c): listable entries
 *   regfix-one   @API@     nonthreadsafe  (instance data "one nts")
 *   regfix-one   @API@     threadsafe     (same name, other thread safety)
 *   regfix-one   @APINEXT@ nonthreadsafe  (same name, next minor version)
 *   regfix-two   @API@     threadsafe     (quoted library and instance data)
 *   @MAXNAME@    @API@     nonthreadsafe  (a name at the length limit)
 * and lines that must not be listed: a name past the limit, a nondefault
 * and a kernel entry, a line with too few fields, a bad thread-safety word,
 * comments and blank lines.
 */
void dc_registry_rich_at(struct dc_ctx *t, const char *file, int line);
#define dc_registry_rich() dc_registry_rich_at(t, __FILE__, __LINE__)

/* The names the rich fixture lists, and how many entries it lists. */
#define DC_REGFIX_LISTED 5
const char *dc_regfix_max_name(void);

/* The fixture Provider's log so far: "init NAME M.m TS DATA", "fini NAME M.m TS", "unload". */
const char *dc_regprov_log(struct dc_ctx *t);
/* Lines of the log that start with @prefix (e.g. "init regfix-one "). */
int dc_regprov_count(struct dc_ctx *t, const char *prefix);

#endif /* DC_REGISTRY_H */
