// SPDX-License-Identifier: MIT
/*
 * fz_core.c - the API fuzzer's machinery: the input reader, the handle
 * pool, the reproducer log, the per-call checks and the watchdog.  The
 * calls themselves are in fz_api.c.
 */
#include "fz.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- input -------------------------------------------------------------------- */

uint8_t fz_u8(struct fz_in *in)
{
	uint8_t v;

	if (!in->n)
		return 0;
	v = *in->p++;
	in->n--;
	return v;
}

uint32_t fz_u32(struct fz_in *in)
{
	uint32_t v = 0;

	for (int i = 0; i < 4; i++)
		v = v << 8 | fz_u8(in);
	return v;
}

uint64_t fz_u64(struct fz_in *in)
{
	return (uint64_t)fz_u32(in) << 32 | fz_u32(in);
}

unsigned int fz_below(struct fz_in *in, unsigned int n)
{
	return fz_u8(in) % n;
}

int32_t fz_count(struct fz_in *in)
{
	static const int32_t edges[] = { 0, 1, 2, -1, 16, 64, 255, 256, 4096,
					 65536, INT32_MAX, INT32_MIN };
	uint8_t sel = fz_u8(in);

	if (sel < 128)
		return sel % 9;
	if (sel < 224)
		return edges[sel % (sizeof(edges) / sizeof(edges[0]))];
	return (int32_t)fz_u32(in);
}

DAT_TIMEOUT fz_timeout(struct fz_in *in)
{
	uint8_t sel = fz_u8(in);

	/* DAT_TIMEOUT_INFINITE would wait for events nobody sends: clamped. */
	if (sel < 96)
		return 0;
	return fz_u32(in) % (FZ_MAX_WAIT_US + 1);
}

/* ---- pool ------------------------------------------------------------------------ */

struct fz_slot fz_pool[FZ_KINDS][FZ_SLOTS];
DAT_IA_HANDLE fz_ia;

static const char *const kind_names[FZ_KINDS] = {
	"pz", "evd", "cno", "ep", "lmr", "rmr", "psp", "rsp", "srq", "cr"
};
static const char *const kind_types[FZ_KINDS] = {
	"DAT_PZ_HANDLE", "DAT_EVD_HANDLE", "DAT_CNO_HANDLE", "DAT_EP_HANDLE",
	"DAT_LMR_HANDLE", "DAT_RMR_HANDLE", "DAT_PSP_HANDLE", "DAT_RSP_HANDLE",
	"DAT_SRQ_HANDLE", "DAT_CR_HANDLE"
};

/*
 * A forged object: its first word is the provider's dispatch table (taken
 * from a live handle, so the registry passes it on), the rest is input
 * bytes.  The provider must see that it never made it.
 */
static struct {
	void *table;
	uint8_t rest[248];
} __attribute__((aligned(16))) forged;

const char *fz_slot_name(enum fz_kind kind, int i)
{
	static __thread char b[4][16];
	static __thread int k;
	char *s = b[k++ % 4];

	snprintf(s, sizeof(b[0]), "%s%d", kind_names[kind], i);
	return s;
}

int fz_slot(struct fz_in *in)
{
	return (int)fz_below(in, FZ_SLOTS);
}

void fz_created(enum fz_kind kind, int i, DAT_HANDLE h)
{
	struct fz_slot *s = &fz_pool[kind][i];

	s->state = FZ_LIVE;
	s->h = h;
	if (!forged.table && h)
		forged.table = *(void **)h;
}

void fz_freed(DAT_HANDLE h)
{
	for (int k = 0; k < FZ_KINDS; k++)
		for (int i = 0; i < FZ_SLOTS; i++)
			if (fz_pool[k][i].state == FZ_LIVE && fz_pool[k][i].h == h)
				fz_pool[k][i].state = FZ_FREED;
}

static struct fz_arg arg_of(DAT_HANDLE h, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static struct fz_arg arg_of(DAT_HANDLE h, const char *fmt, ...)
{
	struct fz_arg a = { .h = h };
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(a.text, sizeof(a.text), fmt, ap);
	va_end(ap);
	return a;
}

/* want FZ_KINDS: an IA handle argument. */
static struct fz_arg slot_arg(enum fz_kind kind, int i, enum fz_kind want)
{
	const struct fz_slot *s = &fz_pool[kind][i];
	const char *freed = s->state == FZ_FREED ? "/*freed*/" : "";
	const char *type = want == FZ_KINDS ? "DAT_IA_HANDLE" : kind_types[want];

	if (kind == want)
		return arg_of(s->h, "%s%s", fz_slot_name(kind, i), freed);
	return arg_of(s->h, "(%s)%s%s", type, fz_slot_name(kind, i), freed);
}

/*
 * Mostly a slot of the wanted kind (live, freed or never filled, which is
 * DAT_HANDLE_NULL); else a handle of another kind, the IA, NULL, a
 * misaligned pointer or the forged object.
 */
struct fz_arg fz_handle(struct fz_in *in, enum fz_kind want)
{
	uint8_t sel = fz_u8(in);
	unsigned int i = fz_below(in, FZ_SLOTS);

	if (sel < 160)
		return slot_arg(want, (int)i, want);
	if (sel < 200)
		return slot_arg((enum fz_kind)(sel % FZ_KINDS), (int)i, want);
	if (sel < 215 && fz_registry_admits(FZ_H_IA_AS_OTHER))
		return arg_of(fz_ia, "(%s)ia", kind_types[want]);
	if (sel < 230)
		return arg_of(DAT_HANDLE_NULL, "DAT_HANDLE_NULL");
	if (sel < 240 && fz_registry_admits(FZ_H_MISALIGNED)) {
		uintptr_t v = (uintptr_t)fz_u32(in) << 4 | (1 + i);

		return arg_of((DAT_HANDLE)v, "(%s)0x%lx", kind_types[want], (unsigned long)v);
	}
	if (!forged.table)
		return arg_of(DAT_HANDLE_NULL, "DAT_HANDLE_NULL");
	for (size_t k = 0; k < sizeof(forged.rest); k++)
		forged.rest[k] = fz_u8(in);
	return arg_of((DAT_HANDLE)&forged, "(%s)&forged", kind_types[want]);
}

struct fz_arg fz_ia_arg(struct fz_in *in)
{
	uint8_t sel = fz_u8(in);

	if (sel < 200)
		return arg_of(fz_ia, "ia");
	if (sel < 215)
		return arg_of(DAT_HANDLE_NULL, "DAT_HANDLE_NULL");
	if (sel < 230) {
		unsigned int i = fz_below(in, FZ_SLOTS);

		return slot_arg((enum fz_kind)(sel % FZ_KINDS), (int)i, FZ_KINDS);
	}
	if (sel < 240 && fz_registry_admits(FZ_H_MISALIGNED))
		return arg_of((DAT_HANDLE)(uintptr_t)0x1001, "(DAT_IA_HANDLE)0x1001");
	if (!forged.table)
		return arg_of(fz_ia, "ia");
	return arg_of((DAT_HANDLE)&forged, "(DAT_IA_HANDLE)&forged");
}

/* ---- the reproducer log ------------------------------------------------------- */

#define FZ_LOG_MAX	(256 * 1024)

static char log_buf[FZ_LOG_MAX];
static size_t log_len;
static bool log_echo;		/* DATCTS_FUZZ_ECHO: print each line as it is made */
static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;

/* The call being made, printed as the last line when it does not return. */
static char pending[1024];

static void vappend(bool echo, const char *fmt, va_list ap)
{
	char line[1024];
	int n;

	n = vsnprintf(line, sizeof(line) - 1, fmt, ap);
	if (n < 0)
		return;
	if ((size_t)n > sizeof(line) - 2)
		n = (int)sizeof(line) - 2;
	line[n++] = '\n';
	line[n] = '\0';
	pthread_mutex_lock(&log_lock);
	if (log_len + (size_t)n < sizeof(log_buf)) {
		memcpy(log_buf + log_len, line, (size_t)n);
		log_len += (size_t)n;
	}
	pthread_mutex_unlock(&log_lock);
	if (echo) {
		fputs(line, stderr);
		fflush(stderr);
	}
}

static void append(bool echo, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void append(bool echo, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vappend(echo, fmt, ap);
	va_end(ap);
}

void fz_log(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vappend(log_echo, fmt, ap);
	va_end(ap);
}

void fz_log_reset(void);
void fz_log_reset(void)
{
	pthread_mutex_lock(&log_lock);
	log_len = 0;
	pending[0] = '\0';
	pthread_mutex_unlock(&log_lock);
}

void fz_log_init(void);
void fz_log_init(void)
{
	const char *e = getenv("DATCTS_FUZZ_ECHO");

	log_echo = e && *e && strcmp(e, "0") != 0;
}

static void print_repro(void)
{
	/* The log is printed as is: a crash elsewhere must not wait for the lock. */
	fprintf(stderr,
		"==== datcts fuzz: C reproducer (%s, IA \"%s\") ====\n"
		"/* Handles are named by kind and pool slot (pz0, ep3, ...); bufN is\n"
		" * the Consumer memory of lmrN; `forged` is a block whose first word\n"
		" * is the provider's dispatch table and whose rest is input bytes. */\n",
		fz_abi_name(), getenv("DATCTS_IA") ? getenv("DATCTS_IA") : "?");
	fwrite(log_buf, 1, log_len, stderr);
	if (pending[0])
		fprintf(stderr, "r = %s;\t/* <- did not return */\n", pending);
	fputs("==== end of reproducer ====\n", stderr);
	fflush(stderr);
}

void fz_finding(const char *fmt, ...)
{
	va_list ap;

	fputs("==== datcts fuzz: FINDING: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs(" ====\n", stderr);
	if (!log_echo)
		print_repro();
	abort();
}

/* On a crash libFuzzer calls this before it exits: the sequence so far. */
void fz_on_crash(void);
void fz_on_crash(void)
{
	if (!log_echo)
		print_repro();
}

/* ---- return types from the catalog ------------------------------------------- */

struct fz_returns {
	const char *page;
	int n;
	DAT_RETURN types[16];
};

#define FZ_RETURNS(page, n, ...) { page, n, { __VA_ARGS__ } },
static const struct fz_returns returns_table[] = {
#include "fz_returns.inc"
};
#undef FZ_RETURNS

static const struct fz_returns *returns_of(const char *page)
{
	for (size_t i = 0; i < sizeof(returns_table) / sizeof(returns_table[0]); i++)
		if (strcmp(returns_table[i].page, page) == 0)
			return &returns_table[i];
	return NULL;
}

bool fz_page_lists(const char *page, DAT_RETURN type)
{
	const struct fz_returns *rt = returns_of(page);

	for (int i = 0; rt && i < rt->n; i++)
		if (rt->types[i] == type)
			return true;
	return false;
}

bool fz_null(struct fz_in *in, const char *page)
{
	return fz_u8(in) > 240 && fz_page_lists(page, DAT_INVALID_PARAMETER);
}

unsigned int fz_nulls(struct fz_in *in, const char *page)
{
	uint8_t v = fz_u8(in);

	return v >= 224 && fz_page_lists(page, DAT_INVALID_PARAMETER) ? v & 7u : 0u;
}

static void check(const char *page, DAT_RETURN r, const struct fz_harg *hargs,
		  int nharg)
{
	const struct fz_returns *rt = returns_of(page);
	DAT_RETURN type = DAT_GET_TYPE(r);
	bool listed = false;

	if (!rt)
		fz_finding("no catalog entry for %s (clauses/%s.toml)", page, page);
	for (int i = 0; i < rt->n; i++)
		listed |= rt->types[i] == type;
	if (!listed)
		fz_finding("%s returned %s, a type its page does not list "
			   "(the catalog's return types of clauses/%s.toml)",
			   page, dc_ret_text(r), page);
	if (type == DAT_INVALID_HANDLE) {
		for (int i = 0; i < nharg; i++)
			if (dc_invalid_handle_ok(r, hargs[i].pos, hargs[i].kind))
				return;
		fz_finding("%s returned %s: the subtype names none of its handle "
			   "arguments (docs/clauses.md, \"Invalid-handle clauses\")",
			   page, dc_ret_text(r));
	}
}

/* ---- watchdog --------------------------------------------------------------------- */

/* Slack over a call's own timeout before it counts as hung. */
#define FZ_HANG_SLACK_S	10

static pthread_mutex_t wd_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wd_cond = PTHREAD_COND_INITIALIZER;
static const char *wd_page;
static struct timespec wd_deadline;
static DAT_TIMEOUT wd_timeout;

static void *watchdog(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&wd_lock);
	for (;;) {
		struct timespec now;

		if (!wd_page) {
			pthread_cond_wait(&wd_cond, &wd_lock);
			continue;
		}
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec > wd_deadline.tv_sec ||
		    (now.tv_sec == wd_deadline.tv_sec && now.tv_nsec >= wd_deadline.tv_nsec))
			fz_finding("hang: %s (timeout %u us) did not return within %d s "
				   "past its timeout", wd_page, (unsigned int)wd_timeout,
				   FZ_HANG_SLACK_S);
		pthread_cond_timedwait(&wd_cond, &wd_lock, &wd_deadline);
	}
	return NULL;
}

void fz_watchdog_start(void);
void fz_watchdog_start(void)
{
	pthread_condattr_t ca;
	pthread_t th;

	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&wd_cond, &ca);
	if (pthread_create(&th, NULL, watchdog, NULL) == 0)
		pthread_detach(th);
}

void fz_call_begin(const char *page, DAT_TIMEOUT timeout_us, const char *fmt, ...)
{
	struct timespec d;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(pending, sizeof(pending), fmt, ap);
	va_end(ap);
	if (log_echo) {
		fprintf(stderr, "r = %s;\n", pending);
		fflush(stderr);
	}

	clock_gettime(CLOCK_MONOTONIC, &d);
	d.tv_sec += FZ_HANG_SLACK_S + (time_t)(timeout_us / 1000000u);
	d.tv_nsec += (long)(timeout_us % 1000000u) * 1000;
	if (d.tv_nsec >= 1000000000L) {
		d.tv_sec++;
		d.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&wd_lock);
	wd_page = page;
	wd_timeout = timeout_us;
	wd_deadline = d;
	pthread_cond_signal(&wd_cond);
	pthread_mutex_unlock(&wd_lock);
}

void fz_call_end(const char *page, DAT_RETURN r, const struct fz_harg *hargs, int nharg)
{
	pthread_mutex_lock(&wd_lock);
	wd_page = NULL;
	pthread_mutex_unlock(&wd_lock);
	append(false, "r = %s;\t/* %s */", pending, dc_ret_text(r));
	if (log_echo) {
		fprintf(stderr, "\t/* %s */\n", dc_ret_text(r));
		fflush(stderr);
	}
	pending[0] = '\0';
	check(page, r, hargs, nharg);
}
