/*
 * dat.conf parser. One entry per line, eight blank-separated fields; a
 * field may be double-quoted (then blanks are literal and \" and \\ are
 * escapes); '#' outside quotes starts a comment.
 */
#include "dat_internal.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CONF_FIELDS 8

enum { F_IA_NAME, F_API, F_THREADSAFE, F_DEFAULT, F_LIB, F_PROV_VERSION,
       F_IA_PARAMS, F_PLATFORM };

static const char *const field_names[CONF_FIELDS] = {
	"IA name", "API version", "thread safety", "default flag",
	"library path", "provider version", "instance data", "platform data",
};

static void conf_error(const char *path, int line, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, LIBDAT_PREFIX "%s:%d: ", path, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("; line skipped\n", stderr);
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' ||
	       c == '\f';
}

/*
 * Split @line into at most CONF_FIELDS fields, unquoting in place (the
 * unquoted text is never longer than the quoted text). Returns the field
 * count, or -1 with *why set.
 */
static int split_fields(char *line, char *fields[CONF_FIELDS], const char **why,
			char *whybuf, size_t whylen)
{
	char *p = line;
	int n = 0;

	for (;;) {
		while (is_blank(*p))
			p++;
		if (*p == '\0' || *p == '#')
			return n;
		if (n == CONF_FIELDS) {
			*why = "more than 8 fields";
			return -1;
		}
		if (*p == '"') {
			char *out = ++p;

			fields[n] = out;
			while (*p != '\0' && *p != '"') {
				if (*p == '\\' && (p[1] == '"' || p[1] == '\\'))
					p++;
				*out++ = *p++;
			}
			if (*p != '"') {
				snprintf(whybuf, whylen,
					 "unterminated quote in field %d (%s)",
					 n + 1, field_names[n]);
				*why = whybuf;
				return -1;
			}
			p++;
			if (*p != '\0' && !is_blank(*p) && *p != '#') {
				snprintf(whybuf, whylen,
					 "text after closing quote in field %d (%s)",
					 n + 1, field_names[n]);
				*why = whybuf;
				return -1;
			}
			*out = '\0';
		} else {
			fields[n] = p;
			while (*p != '\0' && !is_blank(*p) && *p != '#') {
				if (*p == '"') {
					snprintf(whybuf, whylen,
						 "stray quote in field %d (%s)",
						 n + 1, field_names[n]);
					*why = whybuf;
					return -1;
				}
				p++;
			}
			if (*p == '#') {
				*p = '\0';
				return n + 1;
			}
			if (*p != '\0')
				*p++ = '\0';
		}
		n++;
	}
}

/* Decimal number that fits a DAT_UINT32; whole string. */
static bool parse_u32(const char *s, size_t len, DAT_UINT32 *val)
{
	unsigned long long v = 0;
	size_t i;

	if (len == 0 || len > 10)
		return false;
	for (i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		v = v * 10 + (unsigned long long)(s[i] - '0');
	}
	if (v > 0xFFFFFFFFull)
		return false;
	*val = (DAT_UINT32)v;
	return true;
}

/* "<major>.<minor>" */
static bool parse_version(const char *s, DAT_UINT32 *major, DAT_UINT32 *minor)
{
	const char *dot = strchr(s, '.');

	return dot && parse_u32(s, (size_t)(dot - s), major) &&
	       parse_u32(dot + 1, strlen(dot + 1), minor);
}

/* "<id>.<major>.<minor>", the id may itself contain dots. */
static bool provider_version_ok(const char *s)
{
	const char *last = strrchr(s, '.');
	const char *mid;
	DAT_UINT32 a, b;

	if (!last || last == s)
		return false;
	for (mid = last - 1; mid > s && *mid != '.'; mid--)
		;
	if (mid == s)
		return false;
	return parse_u32(mid + 1, (size_t)(last - mid - 1), &a) &&
	       parse_u32(last + 1, strlen(last + 1), &b);
}

static char *xstrdup(const char *s)
{
	char *d = strdup(s);

	if (!d) {
		fputs(LIBDAT_PREFIX "out of memory reading dat.conf\n", stderr);
		abort();
	}
	return d;
}

/*
 * Validate one split line. Returns true and fills @e->info for a
 * well-formed line; *load says whether the registry uses it.
 */
static bool check_entry(const char *path, int line, char *f[CONF_FIELDS],
			DAT_PROVIDER_INFO *info, bool *load)
{
	DAT_UINT32 major, minor;
	const char *api = f[F_API];

	if (f[F_IA_NAME][0] == '\0') {
		conf_error(path, line, "empty IA name");
		return false;
	}
	if (strlen(f[F_IA_NAME]) >= DAT_NAME_MAX_LENGTH) {
		conf_error(path, line, "IA name longer than %d characters",
			   DAT_NAME_MAX_LENGTH - 1);
		return false;
	}
	if ((api[0] != 'u' && api[0] != 'k') ||
	    !parse_version(api + 1, &major, &minor)) {
		conf_error(path, line,
			   "bad API version '%s' (expected u<major>.<minor> or k<major>.<minor>)",
			   api);
		return false;
	}
	if (strcmp(f[F_THREADSAFE], "threadsafe") != 0 &&
	    strcmp(f[F_THREADSAFE], "nonthreadsafe") != 0) {
		conf_error(path, line,
			   "bad thread safety '%s' (expected threadsafe or nonthreadsafe)",
			   f[F_THREADSAFE]);
		return false;
	}
	if (strcmp(f[F_DEFAULT], "default") != 0 &&
	    strcmp(f[F_DEFAULT], "nondefault") != 0) {
		conf_error(path, line,
			   "bad default flag '%s' (expected default or nondefault)",
			   f[F_DEFAULT]);
		return false;
	}
	if (f[F_LIB][0] == '\0') {
		conf_error(path, line, "empty library path");
		return false;
	}
	if (!provider_version_ok(f[F_PROV_VERSION])) {
		conf_error(path, line,
			   "bad provider version '%s' (expected <id>.<major>.<minor>)",
			   f[F_PROV_VERSION]);
		return false;
	}

	memset(info, 0, sizeof(*info));
	strcpy(info->ia_name, f[F_IA_NAME]);
	info->dapl_version_major = major;
	info->dapl_version_minor = minor;
	info->is_thread_safe = strcmp(f[F_THREADSAFE], "threadsafe") == 0 ?
			       DAT_TRUE : DAT_FALSE;
	/* kDAPL and non-default entries are valid but not ours to load. */
	*load = api[0] == 'u' && strcmp(f[F_DEFAULT], "default") == 0;
	return true;
}

void dat_conf_parse(const char *path, const char *origin, bool quiet_missing,
		    struct dat_conf *conf)
{
	struct dat_sr_entry **tail = &conf->entries;
	char *buf = NULL;
	size_t cap = 0;
	ssize_t len;
	int line = 0;
	FILE *fp;

	memset(conf, 0, sizeof(*conf));
	tail = &conf->entries;
	fp = fopen(path, "re");
	if (!fp) {
		if (!(quiet_missing && errno == ENOENT))
			fprintf(stderr, LIBDAT_PREFIX "cannot open dat.conf %s (%s): %s\n",
				path, origin, strerror(errno));
		return;
	}
	conf->readable = true;

	while ((len = getline(&buf, &cap, fp)) >= 0) {
		char *f[CONF_FIELDS];
		char whybuf[96];
		const char *why = NULL;
		DAT_PROVIDER_INFO info;
		struct dat_sr_entry *e, *dup;
		bool load;
		int n;

		line++;
		if ((size_t)len != strlen(buf)) {
			conf_error(path, line, "NUL byte in line");
			continue;
		}
		n = split_fields(buf, f, &why, whybuf, sizeof(whybuf));
		if (n < 0) {
			conf_error(path, line, "%s", why);
			continue;
		}
		if (n == 0)
			continue;
		if (n < CONF_FIELDS) {
			conf_error(path, line, "%d field%s, expected 8 (missing %s)",
				   n, n == 1 ? "" : "s", field_names[n]);
			continue;
		}
		if (!check_entry(path, line, f, &info, &load) || !load)
			continue;
		for (dup = conf->entries; dup; dup = dup->next) {
			if (dat_info_key_equal(&dup->info, &info))
				break;
		}
		if (dup) {
			conf_error(path, line,
				   "duplicate of line %d (same IA name, API version and thread safety)",
				   dup->line);
			continue;
		}

		e = calloc(1, sizeof(*e));
		if (!e) {
			fputs(LIBDAT_PREFIX "out of memory reading dat.conf\n", stderr);
			abort();
		}
		e->info = info;
		e->lib_path = xstrdup(f[F_LIB]);
		e->provider_version = xstrdup(f[F_PROV_VERSION]);
		e->ia_params = xstrdup(f[F_IA_PARAMS]);
		e->platform_params = xstrdup(f[F_PLATFORM]);
		e->conf_path = xstrdup(path);
		e->line = line;
		*tail = e;
		tail = &e->next;
		conf->count++;
	}
	if (ferror(fp))
		fprintf(stderr, LIBDAT_PREFIX "error reading dat.conf %s: %s\n",
			path, strerror(errno));
	free(buf);
	fclose(fp);
}

void dat_conf_free(struct dat_conf *conf)
{
	while (conf->entries) {
		struct dat_sr_entry *e = conf->entries;

		conf->entries = e->next;
		free(e->lib_path);
		free(e->provider_version);
		free(e->ia_params);
		free(e->platform_params);
		free(e->conf_path);
		free(e);
	}
	conf->count = 0;
}
