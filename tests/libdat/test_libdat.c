/*
 * libdat unit tests. One scenario per process (libdat reads dat.conf once
 * per process): test_libdat SCENARIO. Each scenario writes its own
 * dat.conf, points DAT_OVERRIDE at it and captures stderr to check
 * libdat's diagnostics.
 */
#include <dat/udat.h>

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fake_provider.h"

static int failures;

#define CHECK(cond, ...)						\
	do {								\
		if (!(cond)) {						\
			failures++;					\
			printf("FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond); \
			printf(__VA_ARGS__);				\
			putchar('\n');					\
		}							\
	} while (0)

static const char *code_str(DAT_RETURN st)
{
	static char buf[4][256];
	static int n;
	const char *major, *minor;
	char *b = buf[n++ % 4];

	if (dat_strerror(st, &major, &minor) == DAT_SUCCESS)
		snprintf(b, sizeof(buf[0]), "0x%08x %s / %s", (unsigned int)st,
			 major, minor);
	else
		snprintf(b, sizeof(buf[0]), "0x%08x (unknown)", (unsigned int)st);
	return b;
}

/* Type and subtype as the DESIGN rules say; exact class too. */
static void expect_code(const char *what, int line, DAT_RETURN got,
			DAT_UINT32 type, DAT_UINT32 subtype)
{
	DAT_RETURN want = type == DAT_SUCCESS ? DAT_SUCCESS :
			  (DAT_CLASS_ERROR | type | subtype);

	if (got != want) {
		failures++;
		printf("FAIL %s:%d: %s returned %s, expected %s\n", __FILE__,
		       line, what, code_str(got), code_str(want));
	}
}

#define EXPECT(call, type, subtype) expect_code(#call, __LINE__, (call), type, subtype)
#define EXPECT_OK(call) expect_code(#call, __LINE__, (call), DAT_SUCCESS, 0)

/* ---- fixtures ---- */

static char conf_path[64];
static int saved_stderr = -1;
static char cap_path[64];
static char captured[16384];

static void write_conf(const char *fmt, ...)
{
	va_list ap;
	FILE *f;
	int fd;

	strcpy(conf_path, "/tmp/datcts-conf-XXXXXX");
	fd = mkstemp(conf_path);
	if (fd < 0 || !(f = fdopen(fd, "w"))) {
		perror("dat.conf");
		exit(2);
	}
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fclose(f);
	setenv("DAT_OVERRIDE", conf_path, 1);
}

static void capture_start(void)
{
	int fd;

	strcpy(cap_path, "/tmp/datcts-err-XXXXXX");
	fd = mkstemp(cap_path);
	if (fd < 0) {
		perror("capture");
		exit(2);
	}
	fflush(stderr);
	saved_stderr = dup(2);
	dup2(fd, 2);
	close(fd);
}

/* Stop capturing; the text is in `captured` and echoed for the log. */
static void capture_end(void)
{
	ssize_t n;
	int fd;

	fflush(stderr);
	dup2(saved_stderr, 2);
	close(saved_stderr);
	fd = open(cap_path, O_RDONLY);
	n = fd < 0 ? 0 : read(fd, captured, sizeof(captured) - 1);
	captured[n > 0 ? n : 0] = '\0';
	if (fd >= 0)
		close(fd);
	unlink(cap_path);
	printf("--- captured stderr ---\n%s--- end ---\n", captured);
}

static int count_lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

/* The captured line for "conf:LINE:", or NULL. */
static const char *line_for(int line)
{
	static char buf[512];
	char key[96];
	const char *p, *end;

	snprintf(key, sizeof(key), "libdat: %s:%d: ", conf_path, line);
	p = strstr(captured, key);
	if (!p)
		return NULL;
	end = strchr(p, '\n');
	snprintf(buf, sizeof(buf), "%.*s", (int)(end ? end - p : (long)strlen(p)), p);
	return buf;
}

static struct fakeprov_stats *stats(void)
{
	void *h = dlopen(FAKEPROV_PATH, RTLD_NOW | RTLD_NOLOAD);
	struct fakeprov_stats *s;

	if (!h)
		return NULL;
	s = dlsym(h, FAKEPROV_STATS_SYMBOL);
	dlclose(h);
	return s;
}

static DAT_RETURN open_ia(const char *name, DAT_IA_HANDLE *ia)
{
	DAT_EVD_HANDLE evd = DAT_HANDLE_NULL;

	return dat_ia_open((DAT_NAME_PTR)name, 4, &evd, ia);
}

#define GOOD_LINE(name, extra) \
	name " u1.2 nonthreadsafe default " FAKEPROV_PATH " datcts.0.1 \"" extra "\" \"\"\n"

/* ---- scenarios ---- */

static void t_open_close(void)
{
	DAT_IA_HANDLE ia1 = NULL, ia2 = NULL;
	DAT_PZ_HANDLE pz = NULL;
	DAT_IA_ATTR ia_attr;
	DAT_PROVIDER_ATTR pa;
	DAT_HANDLE_TYPE type;
	DAT_CONTEXT ctx = { .as_64 = 42 };
	struct fakeprov_stats *s;

	write_conf("# a comment\n\n   \t\n" GOOD_LINE("fake0", "with \\\"quotes\\\" and \\\\") );
	capture_start();
	EXPECT_OK(open_ia("fake0", &ia1));
	capture_end();
	CHECK(captured[0] == '\0', "no diagnostics expected");
	s = stats();
	CHECK(s != NULL, "fake provider not loaded");
	if (!s)
		return;
	CHECK(s->init_calls == 1, "init_calls %d", s->init_calls);
	CHECK(strcmp(s->last_instance_data, "with \"quotes\" and \\") == 0,
	      "instance data '%s'", s->last_instance_data);
	EXPECT_OK(s->last_add_status);
	/* The provider's own handle comes back, first word = its table. */
	CHECK(ia1 && strcmp(DAT_HANDLE_TO_PROVIDER(ia1)->device_name, "fake0") == 0,
	      "IA handle does not lead to the provider");

	EXPECT_OK(dat_ia_query(ia1, NULL, DAT_IA_FIELD_ALL, &ia_attr,
			       DAT_PROVIDER_FIELD_ALL, &pa));
	CHECK(ia_attr.max_eps == 7 && strcmp(pa.provider_name, "fakeprov") == 0,
	      "query did not reach the provider");
	EXPECT_OK(dat_pz_create(ia1, &pz));
	EXPECT_OK(dat_get_handle_type(pz, &type));
	CHECK(type == DAT_HANDLE_TYPE_PZ, "handle type %d", type);
	EXPECT_OK(dat_set_consumer_context(pz, ctx));
	ctx.as_64 = 0;
	EXPECT_OK(dat_get_consumer_context(pz, &ctx));
	CHECK(ctx.as_64 == 42, "context %llu", (unsigned long long)ctx.as_64);
	/* A slot the provider left NULL. */
	EXPECT(dat_ep_reset(pz), DAT_NOT_IMPLEMENTED, 0);
	EXPECT(dat_cr_reject(pz), DAT_NOT_IMPLEMENTED, 0);
	EXPECT_OK(dat_pz_free(pz));

	/* Second instance: same entry, init not repeated. */
	EXPECT_OK(open_ia("fake0", &ia2));
	CHECK(s->init_calls == 1, "init ran again: %d", s->init_calls);

	EXPECT_OK(dat_ia_close(ia1, DAT_CLOSE_GRACEFUL_FLAG));
	CHECK(s->last_close_flags == DAT_CLOSE_GRACEFUL_FLAG, "flags not passed");
	CHECK(s->fini_calls == 0, "fini while an IA is open");
	/* A closed IA is no longer a valid handle. */
	EXPECT(dat_ia_close(ia1, DAT_CLOSE_ABRUPT_FLAG), DAT_INVALID_HANDLE,
	       DAT_INVALID_HANDLE_IA);
	EXPECT(dat_pz_create(ia1, &pz), DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA);

	/* The exported dat_ia_close symbol (for other headers) works too. */
	EXPECT_OK((dat_ia_close)(ia2, DAT_CLOSE_ABRUPT_FLAG));
	CHECK(s->last_close_flags == DAT_CLOSE_ABRUPT_FLAG, "flags not passed");
	CHECK(s->fini_calls == 1, "fini_calls %d after the last close", s->fini_calls);
	EXPECT_OK(s->last_remove_status);
	CHECK(s->open_ias == 0, "provider still has %d IAs", s->open_ias);

	/* Opening again re-initialises the provider. */
	EXPECT_OK(open_ia("fake0", &ia1));
	CHECK(s->init_calls == 2, "init_calls %d", s->init_calls);
	EXPECT_OK(dat_ia_closev(ia1, DAT_CLOSE_DEFAULT));
	CHECK(s->fini_calls == 2, "fini_calls %d", s->fini_calls);
}

static void t_bare_name(void)
{
	DAT_IA_HANDLE ia = NULL;

	/* Found through the loader's search path (LD_LIBRARY_PATH set by ctest). */
	write_conf("fake0 u1.2 nonthreadsafe default " FAKEPROV_NAME " datcts.0.1 \"\" \"\"\n");
	capture_start();
	EXPECT_OK(open_ia("fake0", &ia));
	capture_end();
	CHECK(captured[0] == '\0', "no diagnostics expected");
	EXPECT_OK(dat_ia_close(ia, DAT_CLOSE_ABRUPT_FLAG));
}

static void t_malformed(void)
{
	DAT_PROVIDER_INFO infos[8], *ptrs[8];
	DAT_IA_HANDLE ia = NULL;
	DAT_COUNT n = 0;
	int i;
	static const struct {
		int line;
		const char *reason;
	} bad[] = {
		{ 3, "3 fields, expected 8" },
		{ 4, "bad API version 'x1.2'" },
		{ 5, "bad thread safety 'sometimes'" },
		{ 6, "unterminated quote in field 8" },
		{ 7, "bad default flag 'always'" },
		{ 8, "more than 8 fields" },
		{ 9, "bad provider version 'nodots'" },
		{ 12, "duplicate of line 1" },
	};

	write_conf(GOOD_LINE("fake0", "")				/* 1 */
		   "# comment line\n"					/* 2 */
		   "short u1.2 nonthreadsafe\n"				/* 3 */
		   "bad1 x1.2 nonthreadsafe default lib.so a.1.2 \"\" \"\"\n" /* 4 */
		   "bad2 u1.2 sometimes default lib.so a.1.2 \"\" \"\"\n" /* 5 */
		   "bad3 u1.2 nonthreadsafe default lib.so a.1.2 \"\" \"open\n" /* 6 */
		   "bad4 u1.2 nonthreadsafe always lib.so a.1.2 \"\" \"\"\n" /* 7 */
		   "bad5 u1.2 nonthreadsafe default lib.so a.1.2 \"\" \"\" extra\n" /* 8 */
		   "bad6 u1.2 nonthreadsafe default lib.so nodots \"\" \"\"\n" /* 9 */
		   "kern u1.2 nonthreadsafe default lib.so a.1.2 \"\" \"\"  # trailing comment\n" /* 10 */
		   GOOD_LINE("fake1", "")				/* 11 */
		   GOOD_LINE("fake0", "")				/* 12 */
		   "kdapl k1.2 nonthreadsafe default lib.so a.1.2 \"\" \"\"\n" /* 13 */
		   "other u1.2 nonthreadsafe nondefault lib.so a.1.2 \"\" \"\"\n" /* 14 */
		   "ts u1.2 threadsafe default " FAKEPROV_PATH " datcts.0.1 \"\" \"\"\n"); /* 15 */
	for (i = 0; i < 8; i++)
		ptrs[i] = &infos[i];
	capture_start();
	EXPECT_OK(dat_registry_list_providers(8, &n, ptrs));
	EXPECT_OK(open_ia("fake0", &ia));
	EXPECT_OK(dat_ia_close(ia, DAT_CLOSE_ABRUPT_FLAG));
	EXPECT_OK(open_ia("fake1", &ia));
	EXPECT_OK(dat_ia_close(ia, DAT_CLOSE_ABRUPT_FLAG));
	/* Parsing happens once: another call must not repeat the messages. */
	EXPECT_OK(dat_registry_list_providers(8, &n, ptrs));
	capture_end();

	for (i = 0; i < (int)(sizeof(bad) / sizeof(bad[0])); i++) {
		const char *l = line_for(bad[i].line);

		CHECK(l && strstr(l, bad[i].reason) && strstr(l, "line skipped"),
		      "line %d: want '%s', got '%s'", bad[i].line, bad[i].reason,
		      l ? l : "(no message)");
	}
	CHECK(count_lines(captured) == (int)(sizeof(bad) / sizeof(bad[0])),
	      "expected exactly one message per bad line, got %d lines",
	      count_lines(captured));
	/* fake0, kern, fake1, ts: 'k' and nondefault entries are not loaded */
	CHECK(n == 4, "%d entries listed", n);
	if (n == 4) {
		CHECK(strcmp(infos[0].ia_name, "fake0") == 0, "[0] %s", infos[0].ia_name);
		CHECK(strcmp(infos[1].ia_name, "kern") == 0, "[1] %s", infos[1].ia_name);
		CHECK(strcmp(infos[2].ia_name, "fake1") == 0, "[2] %s", infos[2].ia_name);
		CHECK(strcmp(infos[3].ia_name, "ts") == 0 &&
		      infos[3].is_thread_safe == DAT_TRUE &&
		      infos[3].dapl_version_major == 1 &&
		      infos[3].dapl_version_minor == 2, "[3] %s", infos[3].ia_name);
	}
}

static void t_not_found(void)
{
	DAT_EVD_HANDLE evd = DAT_HANDLE_NULL;
	DAT_IA_HANDLE ia = NULL;
	char longname[DAT_NAME_MAX_LENGTH + 1];

	write_conf(GOOD_LINE("fake0", ""));
	EXPECT(open_ia("nosuch", &ia), DAT_PROVIDER_NOT_FOUND, DAT_NAME_NOT_REGISTERED);
	EXPECT(dat_ia_openv("fake0", 4, &evd, &ia, 2, 2, DAT_FALSE),
	       DAT_PROVIDER_NOT_FOUND, DAT_MAJOR_NOT_FOUND);
	EXPECT(dat_ia_openv("fake0", 4, &evd, &ia, 1, 1, DAT_FALSE),
	       DAT_PROVIDER_NOT_FOUND, DAT_MINOR_NOT_FOUND);
	EXPECT(dat_ia_openv("fake0", 4, &evd, &ia, 1, 2, DAT_TRUE),
	       DAT_PROVIDER_NOT_FOUND, DAT_THREAD_SAFETY_NOT_FOUND);
	EXPECT(dat_ia_openv(NULL, 4, &evd, &ia, 1, 2, DAT_FALSE),
	       DAT_INVALID_PARAMETER, DAT_INVALID_ARG1);
	memset(longname, 'a', DAT_NAME_MAX_LENGTH);
	longname[DAT_NAME_MAX_LENGTH] = '\0';
	EXPECT(dat_ia_openv(longname, 4, &evd, &ia, 1, 2, DAT_FALSE),
	       DAT_INVALID_PARAMETER, DAT_INVALID_ARG1);
	EXPECT(dat_ia_openv("fake0", 4, &evd, NULL, 1, 2, DAT_FALSE),
	       DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA);
	/* None of these may have loaded the provider. */
	CHECK(stats() == NULL || stats()->init_calls == 0, "provider initialised");
}

static void t_missing_library(void)
{
	DAT_IA_HANDLE ia = NULL;

	write_conf("gone u1.2 nonthreadsafe default /nonexistent/libgone.so x.1.0 \"\" \"\"\n");
	capture_start();
	EXPECT(open_ia("gone", &ia), DAT_PROVIDER_NOT_FOUND, DAT_NAME_NOT_REGISTERED);
	EXPECT(open_ia("gone", &ia), DAT_PROVIDER_NOT_FOUND, DAT_NAME_NOT_REGISTERED);
	capture_end();
	CHECK(line_for(1) && strstr(line_for(1), "/nonexistent/libgone.so") &&
	      strstr(line_for(1), "No such file"),
	      "message must name the library and the loader error");
	CHECK(count_lines(captured) == 1, "reported %d times", count_lines(captured));
}

static void t_no_init(void)
{
	DAT_IA_HANDLE ia = NULL;

	write_conf("noinit u1.2 nonthreadsafe default " NOINIT_PATH " x.1.0 \"\" \"\"\n");
	capture_start();
	EXPECT(open_ia("noinit", &ia), DAT_PROVIDER_NOT_FOUND, DAT_NAME_NOT_REGISTERED);
	EXPECT(open_ia("noinit", &ia), DAT_PROVIDER_NOT_FOUND, DAT_NAME_NOT_REGISTERED);
	capture_end();
	CHECK(line_for(1) && strstr(line_for(1), NOINIT_PATH) &&
	      strstr(line_for(1), "dat_provider_init") &&
	      strstr(line_for(1), "undefined symbol"),
	      "message must name the library, the symbol and the loader error");
	CHECK(count_lines(captured) == 1, "reported %d times", count_lines(captured));
}

static void t_not_registered(void)
{
	DAT_IA_HANDLE ia = NULL;

	write_conf(GOOD_LINE("lazy", "noregister"));
	capture_start();
	EXPECT(open_ia("lazy", &ia), DAT_PROVIDER_NOT_FOUND, DAT_NAME_NOT_REGISTERED);
	EXPECT(open_ia("lazy", &ia), DAT_PROVIDER_NOT_FOUND, DAT_NAME_NOT_REGISTERED);
	capture_end();
	CHECK(line_for(1) && strstr(line_for(1), "did not register"),
	      "message must say the provider did not register");
	CHECK(count_lines(captured) == 1, "reported %d times", count_lines(captured));
	/* Each failed open is balanced: init and fini alike. */
	CHECK(stats() && stats()->init_calls == 2 && stats()->fini_calls == 2,
	      "init/fini not balanced");
}

static void t_override_missing(void)
{
	DAT_COUNT n = -1;
	DAT_IA_HANDLE ia = NULL;

	setenv("DAT_OVERRIDE", "/nonexistent/dir/dat.conf", 1);
	capture_start();
	EXPECT(dat_registry_list_providers(0, &n, NULL), DAT_INTERNAL_ERROR, 0);
	EXPECT(open_ia("fake0", &ia), DAT_PROVIDER_NOT_FOUND, DAT_NAME_NOT_REGISTERED);
	capture_end();
	CHECK(strstr(captured, "/nonexistent/dir/dat.conf") &&
	      strstr(captured, strerror(ENOENT)),
	      "missing DAT_OVERRIDE file must be reported with path and reason");
	CHECK(count_lines(captured) == 1, "reported %d times", count_lines(captured));
	CHECK(n == 0, "entries %d", n);
}

/* A provider linked into the test itself, registered directly. */
struct direct_obj {
	const DAT_PROVIDER *provider;
};

static DAT_PROVIDER direct_table;
static DAT_PROVIDER empty_table;	/* every slot NULL */
static struct direct_obj direct_ia = { &direct_table };
static int direct_closes;

static DAT_RETURN direct_open(const DAT_NAME_PTR name, DAT_COUNT q,
			      DAT_EVD_HANDLE *evd, DAT_IA_HANDLE *ia)
{
	(void)name;
	(void)q;
	(void)evd;
	*ia = &direct_ia;
	return DAT_SUCCESS;
}

static DAT_RETURN direct_close(DAT_IA_HANDLE ia, DAT_CLOSE_FLAGS f)
{
	(void)ia;
	(void)f;
	direct_closes++;
	return DAT_SUCCESS;
}

static DAT_PROVIDER_INFO direct_info(const char *name)
{
	DAT_PROVIDER_INFO i;

	memset(&i, 0, sizeof(i));
	strcpy(i.ia_name, name);
	i.dapl_version_major = DAT_VERSION_MAJOR;
	i.dapl_version_minor = DAT_VERSION_MINOR;
	i.is_thread_safe = DAT_THREADSAFE;
	return i;
}

static void t_registry(void)
{
	DAT_PROVIDER_INFO info = direct_info("direct0"), ts = info, bad = info;
	DAT_IA_HANDLE ia = NULL;

	write_conf("# empty\n");
	direct_table.device_name = "direct0";
	direct_table.ia_open_func = direct_open;
	direct_table.ia_close_func = direct_close;

	EXPECT(dat_registry_add_provider(NULL, &info), DAT_INVALID_PARAMETER, DAT_INVALID_ARG1);
	EXPECT(dat_registry_add_provider(&direct_table, NULL), DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	EXPECT(dat_registry_add_provider(&empty_table, &info), DAT_INVALID_PARAMETER, DAT_INVALID_ARG1);
	memset(bad.ia_name, 'x', sizeof(bad.ia_name));
	EXPECT(dat_registry_add_provider(&direct_table, &bad), DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	EXPECT_OK(dat_registry_add_provider(&direct_table, &info));
	EXPECT(dat_registry_add_provider(&direct_table, &info), DAT_PROVIDER_ALREADY_REGISTERED, 0);
	/* Another key (thread safety differs) is another registration. */
	ts.is_thread_safe = DAT_TRUE;
	EXPECT_OK(dat_registry_add_provider(&direct_table, &ts));

	/* No dat.conf entry needed for a directly registered provider. */
	EXPECT_OK(open_ia("direct0", &ia));
	CHECK(ia == &direct_ia, "provider handle not passed through");
	EXPECT(dat_registry_remove_provider(&direct_table, &info), DAT_PROVIDER_IN_USE, 0);
	EXPECT_OK(dat_ia_close(ia, DAT_CLOSE_ABRUPT_FLAG));
	CHECK(direct_closes == 1, "ia_close_func calls %d", direct_closes);

	EXPECT(dat_registry_remove_provider(NULL, &info), DAT_INVALID_PARAMETER, DAT_INVALID_ARG1);
	EXPECT(dat_registry_remove_provider(&direct_table, NULL), DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	EXPECT(dat_registry_remove_provider(&empty_table, &info), DAT_INVALID_PARAMETER, DAT_INVALID_ARG1);
	EXPECT_OK(dat_registry_remove_provider(&direct_table, &info));
	EXPECT(dat_registry_remove_provider(&direct_table, &info), DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	EXPECT(open_ia("direct0", &ia), DAT_PROVIDER_NOT_FOUND, DAT_THREAD_SAFETY_NOT_FOUND);
	EXPECT_OK(dat_registry_remove_provider(&direct_table, &ts));
	EXPECT(open_ia("direct0", &ia), DAT_PROVIDER_NOT_FOUND, DAT_NAME_NOT_REGISTERED);
}

static void t_list(void)
{
	DAT_PROVIDER_INFO infos[3], *ptrs[3] = { &infos[0], &infos[1], &infos[2] };
	DAT_PROVIDER_INFO *holes[3] = { &infos[0], NULL, &infos[2] };
	DAT_PROVIDER_INFO info = direct_info("direct-only");
	DAT_COUNT n;

	write_conf(GOOD_LINE("fake0", "") GOOD_LINE("fake1", ""));
	direct_table.ia_open_func = direct_open;
	EXPECT_OK(dat_registry_add_provider(&direct_table, &info));

	EXPECT(dat_registry_list_providers(3, NULL, ptrs), DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	EXPECT(dat_registry_list_providers(3, &n, NULL), DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	n = -1;
	EXPECT(dat_registry_list_providers(0, &n, NULL), DAT_INVALID_PARAMETER, DAT_INVALID_ARG1);
	CHECK(n == 2, "count %d", n);
	n = -1;
	EXPECT(dat_registry_list_providers(1, &n, ptrs), DAT_INVALID_PARAMETER, DAT_INVALID_ARG1);
	CHECK(n == 2, "count %d when the list is too small", n);
	EXPECT(dat_registry_list_providers(3, &n, holes), DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	n = -1;
	EXPECT_OK(dat_registry_list_providers(3, &n, ptrs));
	/* Static entries only; listing loads nothing. */
	CHECK(n == 2 && strcmp(infos[0].ia_name, "fake0") == 0 &&
	      strcmp(infos[1].ia_name, "fake1") == 0, "listed %d", n);
	CHECK(infos[0].dapl_version_major == 1 && infos[0].dapl_version_minor == 2 &&
	      infos[0].is_thread_safe == DAT_FALSE, "key fields wrong");
	CHECK(stats() == NULL, "listing loaded a provider");
	EXPECT_OK(dat_registry_remove_provider(&direct_table, &info));
}

static void t_graceful_busy(void)
{
	DAT_IA_HANDLE ia = NULL;
	struct fakeprov_stats *s;

	write_conf(GOOD_LINE("busy", "graceful-busy"));
	EXPECT_OK(open_ia("busy", &ia));
	s = stats();
	CHECK(s != NULL, "not loaded");
	if (!s)
		return;
	/* The provider refuses: the IA must stay open and usable. */
	EXPECT(dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG), DAT_INVALID_STATE,
	       DAT_INVALID_STATE_IA_IN_USE);
	CHECK(s->fini_calls == 0, "fini after a failed close");
	EXPECT_OK(dat_ia_query(ia, NULL, 0, NULL, 0, NULL));
	EXPECT_OK(dat_ia_close(ia, DAT_CLOSE_ABRUPT_FLAG));
	CHECK(s->fini_calls == 1, "fini_calls %d", s->fini_calls);
}

/*
 * Every object-dispatched function: X(call, handle subtype). H is the
 * object handle, IA the IA handle.
 */
#define DISPATCHED(X, H, IA)							\
	X(dat_ia_query(IA, NULL, 0, NULL, 0, NULL), DAT_INVALID_HANDLE_IA)	\
	X(dat_set_consumer_context(H, ctx), DAT_INVALID_HANDLE1)		\
	X(dat_get_consumer_context(H, &ctx), DAT_INVALID_HANDLE1)		\
	X(dat_get_handle_type(H, &htype), DAT_INVALID_HANDLE1)			\
	X(dat_cno_create(IA, agent, &h), DAT_INVALID_HANDLE_IA)			\
	X(dat_cno_modify_agent(H, agent), DAT_INVALID_HANDLE_CNO)		\
	X(dat_cno_query(H, DAT_CNO_FIELD_ALL, &cno_param), DAT_INVALID_HANDLE_CNO) \
	X(dat_cno_free(H), DAT_INVALID_HANDLE_CNO)				\
	X(dat_cno_wait(H, 0, &h), DAT_INVALID_HANDLE_CNO)			\
	X(dat_cr_query(H, DAT_CR_FIELD_ALL, &cr_param), DAT_INVALID_HANDLE_CR)	\
	X(dat_cr_accept(H, NULL, 0, NULL), DAT_INVALID_HANDLE_CR)		\
	X(dat_cr_reject(H), DAT_INVALID_HANDLE_CR)				\
	X(dat_cr_handoff(H, 1), DAT_INVALID_HANDLE_CR)				\
	X(dat_evd_create(IA, 1, NULL, DAT_EVD_DEFAULT_FLAG, &h), DAT_INVALID_HANDLE_IA) \
	X(dat_evd_query(H, DAT_EVD_FIELD_ALL, &evd_param), DAT_INVALID_HANDLE1)	\
	X(dat_evd_modify_cno(H, NULL), DAT_INVALID_HANDLE1)			\
	X(dat_evd_enable(H), DAT_INVALID_HANDLE1)				\
	X(dat_evd_disable(H), DAT_INVALID_HANDLE1)				\
	X(dat_evd_wait(H, 0, 1, &event, &cnt), DAT_INVALID_HANDLE1)		\
	X(dat_evd_resize(H, 1), DAT_INVALID_HANDLE1)				\
	X(dat_evd_post_se(H, &event), DAT_INVALID_HANDLE1)			\
	X(dat_evd_dequeue(H, &event), DAT_INVALID_HANDLE1)			\
	X(dat_evd_free(H), DAT_INVALID_HANDLE1)					\
	X(dat_evd_set_unwaitable(H), DAT_INVALID_HANDLE1)			\
	X(dat_evd_clear_unwaitable(H), DAT_INVALID_HANDLE1)			\
	X(dat_ep_create(IA, NULL, NULL, NULL, NULL, NULL, &h), DAT_INVALID_HANDLE_IA) \
	X(dat_ep_create_with_srq(IA, NULL, NULL, NULL, NULL, NULL, NULL, &h), DAT_INVALID_HANDLE_IA) \
	X(dat_ep_query(H, DAT_EP_FIELD_ALL, &ep_param), DAT_INVALID_HANDLE_EP)	\
	X(dat_ep_modify(H, 0, &ep_param), DAT_INVALID_HANDLE_EP)		\
	X(dat_ep_connect(H, NULL, 1, 0, 0, NULL, DAT_QOS_BEST_EFFORT, DAT_CONNECT_DEFAULT_FLAG), DAT_INVALID_HANDLE_EP) \
	X(dat_ep_dup_connect(H, NULL, 0, 0, NULL, DAT_QOS_BEST_EFFORT), DAT_INVALID_HANDLE_EP) \
	X(dat_ep_disconnect(H, DAT_CLOSE_ABRUPT_FLAG), DAT_INVALID_HANDLE_EP)	\
	X(dat_ep_post_send(H, 1, &lt, cookie, 0), DAT_INVALID_HANDLE_EP)	\
	X(dat_ep_post_recv(H, 1, &lt, cookie, 0), DAT_INVALID_HANDLE_EP)	\
	X(dat_ep_post_rdma_read(H, 1, &lt, cookie, &rt, 0), DAT_INVALID_HANDLE_EP) \
	X(dat_ep_post_rdma_write(H, 1, &lt, cookie, &rt, 0), DAT_INVALID_HANDLE_EP) \
	X(dat_ep_get_status(H, &ep_state, NULL, NULL), DAT_INVALID_HANDLE_EP)	\
	X(dat_ep_free(H), DAT_INVALID_HANDLE_EP)				\
	X(dat_ep_reset(H), DAT_INVALID_HANDLE_EP)				\
	X(dat_ep_recv_query(H, &cnt, &cnt), DAT_INVALID_HANDLE_EP)		\
	X(dat_ep_set_watermark(H, 1, 1), DAT_INVALID_HANDLE_EP)			\
	X(dat_lmr_create(IA, DAT_MEM_TYPE_VIRTUAL, region, 1, NULL, 0, &h, &lctx, &rctx, &vlen, &vaddr), DAT_INVALID_HANDLE_IA) \
	X(dat_lmr_query(H, DAT_LMR_FIELD_ALL, &lmr_param), DAT_INVALID_HANDLE_LMR) \
	X(dat_lmr_free(H), DAT_INVALID_HANDLE_LMR)				\
	X(dat_lmr_sync_rdma_read(IA, &lt, 1), DAT_INVALID_HANDLE_IA)		\
	X(dat_lmr_sync_rdma_write(IA, &lt, 1), DAT_INVALID_HANDLE_IA)		\
	X(dat_rmr_create(H, &h), DAT_INVALID_HANDLE_PZ)				\
	X(dat_rmr_query(H, DAT_RMR_FIELD_ALL, &rmr_param), DAT_INVALID_HANDLE_RMR) \
	X(dat_rmr_bind(H, &lt, 0, NULL, cookie, 0, &rctx), DAT_INVALID_HANDLE_RMR) \
	X(dat_rmr_free(H), DAT_INVALID_HANDLE_RMR)				\
	X(dat_psp_create(IA, 1, NULL, DAT_PSP_CONSUMER_FLAG, &h), DAT_INVALID_HANDLE_IA) \
	X(dat_psp_create_any(IA, &qual, NULL, DAT_PSP_CONSUMER_FLAG, &h), DAT_INVALID_HANDLE_IA) \
	X(dat_psp_query(H, DAT_PSP_FIELD_ALL, &psp_param), DAT_INVALID_HANDLE_PSP) \
	X(dat_psp_free(H), DAT_INVALID_HANDLE_PSP)				\
	X(dat_rsp_create(IA, 1, NULL, NULL, &h), DAT_INVALID_HANDLE_IA)		\
	X(dat_rsp_query(H, DAT_RSP_FIELD_ALL, &rsp_param), DAT_INVALID_HANDLE_RSP) \
	X(dat_rsp_free(H), DAT_INVALID_HANDLE_RSP)				\
	X(dat_pz_create(IA, &h), DAT_INVALID_HANDLE_IA)				\
	X(dat_pz_query(H, DAT_PZ_FIELD_ALL, &pz_param), DAT_INVALID_HANDLE_PZ)	\
	X(dat_pz_free(H), DAT_INVALID_HANDLE_PZ)				\
	X(dat_srq_create(IA, NULL, &srq_attr, &h), DAT_INVALID_HANDLE_IA)	\
	X(dat_srq_free(H), DAT_INVALID_HANDLE_SRQ)				\
	X(dat_srq_post_recv(H, 1, &lt, cookie), DAT_INVALID_HANDLE_SRQ)		\
	X(dat_srq_query(H, DAT_SRQ_FIELD_ALL, &srq_param), DAT_INVALID_HANDLE_SRQ) \
	X(dat_srq_resize(H, 1), DAT_INVALID_HANDLE_SRQ)				\
	X(dat_srq_set_lw(H, 1), DAT_INVALID_HANDLE_SRQ)

static void t_dispatch(void)
{
	DAT_CONTEXT ctx = { 0 }, cookie = { 0 };
	DAT_HANDLE_TYPE htype;
	DAT_OS_WAIT_PROXY_AGENT agent = DAT_OS_WAIT_PROXY_AGENT_NULL;
	DAT_HANDLE h;
	DAT_CNO_PARAM cno_param;
	DAT_CR_PARAM cr_param;
	DAT_EVD_PARAM evd_param;
	DAT_EVENT event;
	DAT_COUNT cnt;
	DAT_EP_PARAM ep_param;
	DAT_EP_STATE ep_state;
	DAT_LMR_TRIPLET lt = { 0 };
	DAT_RMR_TRIPLET rt = { 0 };
	DAT_REGION_DESCRIPTION region = { .for_va = NULL };
	DAT_LMR_CONTEXT lctx;
	DAT_RMR_CONTEXT rctx;
	DAT_VLEN vlen;
	DAT_VADDR vaddr;
	DAT_LMR_PARAM lmr_param;
	DAT_RMR_PARAM rmr_param;
	DAT_CONN_QUAL qual;
	DAT_PSP_PARAM psp_param;
	DAT_RSP_PARAM rsp_param;
	DAT_PZ_PARAM pz_param;
	DAT_SRQ_ATTR srq_attr = { 1, 1, 0 };
	DAT_SRQ_PARAM srq_param;
	DAT_PROVIDER_INFO info = direct_info("bare");
	struct direct_obj empty_obj = { &empty_table }, null_obj = { NULL };
	char misaligned_buf[16] __attribute__((aligned(8)));
	DAT_HANDLE misaligned = misaligned_buf + 4;
	DAT_IA_HANDLE ia = NULL;
	int n = 0;

	memset(&ep_param, 0, sizeof(ep_param));
	memset(&event, 0, sizeof(event));
	write_conf("# empty\n");

#define X_NULL(call, sub) EXPECT(call, DAT_INVALID_HANDLE, sub); n++;
	DISPATCHED(X_NULL, NULL, NULL)
	/* all 72 functions but ia_openv/ia_close, the registry and strerror */
	CHECK(n == 66, "%d dispatched functions covered", n);

	/* Handles that cannot point at a provider pointer are rejected too. */
#define X_BAD(call, sub) EXPECT(call, DAT_INVALID_HANDLE, sub);
	DISPATCHED(X_BAD, misaligned, misaligned)
	DISPATCHED(X_BAD, &null_obj, &null_obj)
	DISPATCHED(X_BAD, DAT_EVD_ASYNC_EXISTS, DAT_EVD_OUT_OF_SCOPE)

	/* Slots the provider leaves NULL: DAT_NOT_IMPLEMENTED, never a crash. */
	direct_table.ia_open_func = direct_open;
	direct_table.ia_close_func = direct_close;
	direct_ia.provider = &empty_table;	/* its IA carries the empty table */
	empty_table.ia_open_func = NULL;
	EXPECT_OK(dat_registry_add_provider(&direct_table, &info));
	EXPECT_OK(open_ia("bare", &ia));
#define X_NI(call, sub) EXPECT(call, DAT_NOT_IMPLEMENTED, 0);
	DISPATCHED(X_NI, &empty_obj, ia)
	/* ia_close goes through the table the IA was registered with */
	EXPECT_OK(dat_ia_close(ia, DAT_CLOSE_ABRUPT_FLAG));
	direct_ia.provider = &direct_table;
	EXPECT_OK(dat_registry_remove_provider(&direct_table, &info));
}

static void t_strerror(void)
{
	static const struct {
		const char *name;
		DAT_UINT32 value;
		char kind;
	} codes[] = {
#include "dat_codes.inc"
	};
	const char *major, *minor;
	size_t i, ntype = 0, nsub = 0;
	DAT_RETURN st;

	for (i = 0; i < sizeof(codes) / sizeof(codes[0]); i++) {
		DAT_RETURN code;
		const char *want_major, *want_minor;

		if (codes[i].kind == 'T') {
			ntype++;
			code = (codes[i].value ? DAT_CLASS_ERROR : 0) | codes[i].value;
			want_major = codes[i].name;
			want_minor = "DAT_NO_SUBTYPE";
		} else {
			nsub++;
			code = DAT_CLASS_ERROR | DAT_INVALID_STATE | codes[i].value;
			want_major = "DAT_INVALID_STATE";
			want_minor = codes[i].name;
		}
		major = minor = NULL;
		st = dat_strerror(code, &major, &minor);
		CHECK(st == DAT_SUCCESS && major && minor &&
		      strncmp(major, want_major, strlen(want_major)) == 0 &&
		      major[strlen(want_major)] == ' ' &&
		      strncmp(minor, want_minor, strlen(want_minor)) == 0 &&
		      minor[strlen(want_minor)] == ' ',
		      "0x%08x -> %s / %s, want %s / %s", (unsigned int)code,
		      major ? major : "(null)", minor ? minor : "(null)",
		      want_major, want_minor);
	}
	CHECK(ntype == 22 && nsub == 102, "%zu types, %zu subtypes from the ABI data",
	      ntype, nsub);

	/* The other headers' DAT_NOT_IMPLEMENTED values are named too. */
	EXPECT_OK(dat_strerror(0x3FFF0000, &major, &minor));
	CHECK(strncmp(major, "DAT_NOT_IMPLEMENTED ", 20) == 0, "%s", major);
	EXPECT_OK(dat_strerror(0xFFFF0000, &major, &minor));
	CHECK(strncmp(major, "DAT_NOT_IMPLEMENTED ", 20) == 0, "%s", major);
	EXPECT_OK(dat_strerror(DAT_CLASS_ERROR | DAT_NOT_IMPLEMENTED, &major, &minor));
	CHECK(strncmp(major, "DAT_NOT_IMPLEMENTED ", 20) == 0, "%s", major);
	/* A warning class bit does not hide the type. */
	EXPECT_OK(dat_strerror(DAT_CLASS_WARNING | DAT_QUEUE_EMPTY, &major, &minor));
	CHECK(strncmp(major, "DAT_QUEUE_EMPTY ", 16) == 0, "%s", major);

	EXPECT(dat_strerror(0x00770000, &major, &minor), DAT_INVALID_PARAMETER, DAT_INVALID_ARG1);
	EXPECT(dat_strerror(DAT_CLASS_ERROR | DAT_INVALID_STATE | 0x99, &major, &minor),
	       DAT_INVALID_PARAMETER, DAT_INVALID_ARG1);
}

static const struct {
	const char *name;
	void (*fn)(void);
} scenarios[] = {
	{ "open_close", t_open_close },
	{ "bare_name", t_bare_name },
	{ "malformed", t_malformed },
	{ "not_found", t_not_found },
	{ "missing_library", t_missing_library },
	{ "no_init", t_no_init },
	{ "not_registered", t_not_registered },
	{ "override_missing", t_override_missing },
	{ "registry", t_registry },
	{ "list", t_list },
	{ "graceful_busy", t_graceful_busy },
	{ "dispatch", t_dispatch },
	{ "strerror", t_strerror },
};

int main(int argc, char **argv)
{
	size_t i;

	setvbuf(stdout, NULL, _IONBF, 0);
	for (i = 0; argc == 2 && i < sizeof(scenarios) / sizeof(scenarios[0]); i++) {
		if (strcmp(argv[1], scenarios[i].name) != 0)
			continue;
		scenarios[i].fn();
		if (conf_path[0])
			unlink(conf_path);
		printf("%s: %s (%d failures)\n", argv[1],
		       failures ? "FAILED" : "passed", failures);
		return failures ? 1 : 0;
	}
	fprintf(stderr, "usage: test_libdat SCENARIO\nscenarios:");
	for (i = 0; i < sizeof(scenarios) / sizeof(scenarios[0]); i++)
		fprintf(stderr, " %s", scenarios[i].name);
	fputc('\n', stderr);
	return 2;
}
