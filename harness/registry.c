/* SPDX-License-Identifier: MIT */
/*
 * registry.c - the registry fixture (dc_registry.h): a dat.conf of the
 * case's own and the log of the fixture Provider (regprov.c).
 *
 * Both live in memory files (memfd), named to the registry and the
 * Provider as /proc/self/fd/N: nothing is left behind, and a forked child
 * sees the same files.
 *
 * A registry reads dat.conf once per process, and not always lazily
 * (libdat2 may have read the run's before the case began), so once the
 * files are written the case starts again in a fresh image of the case
 * binary (dc_reexec_at), which finds them through the environment
 * (DATCTS_REGFIX = "<case id> <log fd>") and goes on.
 */
#include "datcts.h"
#include "dc_internal.h"

#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define REGPROV_NAME "libdatcts-regprov.so"

static int log_fd = -1;
static char log_text[65536];
static char max_name[DC_REGFIX_NAME_MAX + 1];
static char long_name[DC_REGFIX_NAME_MAX + 2];

/*
 * The rich fixture.  dat.conf is not specified by the man pages, only its
 * role (the Static Registry); the lines follow the format every registry
 * reads (docs/libdat.md, "dat.conf"), one entry per line, comments on lines
 * of their own.
 */
static const char DC_REGFIX_RICH[] =
	"# datcts registry fixture (harness/registry.c)\n"
	"\n"
	"regfix-one @API@ nonthreadsafe default @LIB@ ri.1.0 \"one nts\" \"\"\n"
	"# the same name with the other thread safety\n"
	"regfix-one @API@ threadsafe default @LIB@ ri.1.0 \"one ts\" \"\"\n"
	"   # the same name with the next minor version (indented comment)\n"
	"regfix-one @APINEXT@ nonthreadsafe default @LIB@ ri.1.1 \"one next\" \"\"\n"
	"regfix-two @API@ threadsafe default \"@LIB@\" ri.2.0 \"two \\\"quoted\\\" data\" \"\"\n"
	"@MAXNAME@ @API@ nonthreadsafe default @LIB@ ri.1.0 \"max\" \"\"\n"
	"# a name past the limit, a nondefault and a kernel entry: never listed\n"
	"@LONGNAME@ @API@ nonthreadsafe default @LIB@ ri.1.0 \"\" \"\"\n"
	"regfix-nondefault @API@ nonthreadsafe nondefault @LIB@ ri.1.0 \"\" \"\"\n"
	"regfix-kernel @KAPI@ nonthreadsafe default @LIB@ ri.1.0 \"\" \"\"\n"
	"# malformed: too few fields, an unknown thread-safety word\n"
	"regfix-short @API@ nonthreadsafe default\n"
	"regfix-badts @API@ sometimes default @LIB@ ri.1.0 \"\" \"\"\n";

const char *dc_regfix_max_name(void)
{
	if (!max_name[0]) {
		/* "regfix-max-" then letters up to the limit */
		memset(max_name, 'm', DC_REGFIX_NAME_MAX);
		memcpy(max_name, "regfix-max-", 11);
		max_name[DC_REGFIX_NAME_MAX] = '\0';
		memset(long_name, 'l', DC_REGFIX_NAME_MAX + 1);
		memcpy(long_name, "regfix-long-", 12);
		long_name[DC_REGFIX_NAME_MAX + 1] = '\0';
	}
	return max_name;
}

/* The fixture Provider sits next to the case binary (cases/ or cases2/). */
static bool regprov_path(char *out, size_t size)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n < 0)
		return false;
	exe[n] = '\0';
	if ((size_t)snprintf(out, size, "%s/" REGPROV_NAME, dirname(exe)) >= size)
		return false;
	return access(out, R_OK) == 0;
}

/* No MFD_CLOEXEC: a child the case forks reads the same files. */
static int memfd(const char *name)
{
	return memfd_create(name, 0);
}

static bool put(int fd, const char *s, size_t n)
{
	while (n) {
		ssize_t w = write(fd, s, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return false;
		s += w;
		n -= (size_t)w;
	}
	return true;
}

void dc_registry_conf_at(struct dc_ctx *t, const char *file, int line, const char *text)
{
	static const struct { const char *key; int which; } subst[] = {
		{ "@LIB@", 0 }, { "@APINEXT@", 1 }, { "@API@", 2 }, { "@KAPI@", 3 },
		{ "@MAXNAME@", 4 }, { "@LONGNAME@", 5 },
	};
	char lib[PATH_MAX], api[32], apinext[32], kapi[32], path[64], mark[320];
	const char *p = text, *again = getenv("DATCTS_REGFIX");
	int fd;

	dc_regfix_max_name();
	/* the fresh image: the files are in place */
	if (again && !strncmp(again, t->c->id, strlen(t->c->id)) &&
	    again[strlen(t->c->id)] == ' ') {
		log_fd = atoi(again + strlen(t->c->id) + 1);
		return;
	}

	if (!regprov_path(lib, sizeof(lib)))
		dc_end_at(t, DC_UNRESOLVED, file, line, false,
			  "set-up: the registry fixture's Provider %s is not next to the case binary",
			  REGPROV_NAME);
	snprintf(api, sizeof(api), "u%d.%d", DAT_VERSION_MAJOR, DAT_VERSION_MINOR);
	snprintf(apinext, sizeof(apinext), "u%d.%d", DAT_VERSION_MAJOR, DAT_VERSION_MINOR + 1);
	snprintf(kapi, sizeof(kapi), "k%d.%d", DAT_VERSION_MAJOR, DAT_VERSION_MINOR);
	fd = memfd("datcts-dat.conf");
	if (fd < 0)
		dc_end_at(t, DC_UNRESOLVED, file, line, false, "set-up: memfd_create: %s",
			  strerror(errno));
	while (*p) {
		const char *val = NULL;
		size_t klen = 0;

		for (size_t i = 0; *p == '@' && i < sizeof(subst) / sizeof(subst[0]); i++) {
			klen = strlen(subst[i].key);
			if (strncmp(p, subst[i].key, klen))
				continue;
			val = (const char *[]){ lib, apinext, api, kapi, max_name,
						long_name }[subst[i].which];
			break;
		}
		if (val) {
			if (!put(fd, val, strlen(val)))
				break;
			p += klen;
		} else {
			if (!put(fd, p, 1))
				break;
			p++;
		}
	}
	if (*p)
		dc_end_at(t, DC_UNRESOLVED, file, line, false, "set-up: writing dat.conf: %s",
			  strerror(errno));
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	setenv("DAT_OVERRIDE", path, 1);
	if (log_fd < 0)
		log_fd = memfd("datcts-regprov.log");
	if (log_fd < 0 || ftruncate(log_fd, 0) != 0)
		dc_end_at(t, DC_UNRESOLVED, file, line, false, "set-up: the Provider's log: %s",
			  strerror(errno));
	snprintf(path, sizeof(path), "/proc/self/fd/%d", log_fd);
	setenv("DATCTS_REGPROV_LOG", path, 1);
	snprintf(mark, sizeof(mark), "%s %d", t->c->id, log_fd);
	setenv("DATCTS_REGFIX", mark, 1);
	dc_reexec_at(t, file, line);
}

void dc_registry_rich_at(struct dc_ctx *t, const char *file, int line)
{
	dc_registry_conf_at(t, file, line, DC_REGFIX_RICH);
}

const char *dc_regprov_log(struct dc_ctx *t)
{
	ssize_t n;

	if (log_fd < 0)
		dc_end_at(t, DC_UNRESOLVED, __FILE__, __LINE__, false,
			  "case bug: the Provider's log before dc_registry_conf()");
	n = pread(log_fd, log_text, sizeof(log_text) - 1, 0);
	log_text[n > 0 ? n : 0] = '\0';
	return log_text;
}

int dc_regprov_count(struct dc_ctx *t, const char *prefix)
{
	const char *p = dc_regprov_log(t);
	size_t len = strlen(prefix);
	int n = 0;

	for (; *p; p = strchrnul(p, '\n'), p += *p == '\n') {
		if (!strncmp(p, prefix, len))
			n++;
	}
	return n;
}
