// SPDX-License-Identifier: MIT
/* Case registration, the in-process case runner, verdicts and assertions. */
#include "dc_internal.h"

#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

const struct dc_case **dc_cases;
int dc_ncases;
static int dc_cap;

void dc_register(const struct dc_case *c)
{
	if (dc_ncases == dc_cap) {
		int cap = dc_cap ? dc_cap * 2 : 64;
		const struct dc_case **p = realloc(dc_cases, sizeof(*p) * (size_t)cap);

		if (!p)
			abort();
		dc_cases = p;
		dc_cap = cap;
	}
	dc_cases[dc_ncases++] = c;
}

static int case_cmp(const void *a, const void *b)
{
	const struct dc_case *x = *(const struct dc_case *const *)a;
	const struct dc_case *y = *(const struct dc_case *const *)b;
	int r = strcmp(x->file, y->file);

	return r ? r : x->line - y->line;
}

/* Source order: file, then line (constructors run in link order). */
void dc_sort_cases(void)
{
	if (dc_ncases > 1)
		qsort(dc_cases, (size_t)dc_ncases, sizeof(*dc_cases), case_cmp);
}

int dc_check_unique(void)
{
	int i, j, bad = 0;

	for (i = 0; i < dc_ncases; i++)
		for (j = i + 1; j < dc_ncases; j++)
			if (!strcmp(dc_cases[i]->id, dc_cases[j]->id)) {
				fprintf(stderr,
					"datcts: case id %s registered twice (%s:%d and %s:%d)\n",
					dc_cases[i]->id, dc_cases[i]->file,
					dc_cases[i]->line, dc_cases[j]->file,
					dc_cases[j]->line);
				bad = 1;
			}
	return bad;
}

const struct dc_case *dc_find_case(const char *id)
{
	int i;

	for (i = 0; i < dc_ncases; i++)
		if (!strcmp(dc_cases[i]->id, id))
			return dc_cases[i];
	return NULL;
}

void dc_each_word(const char *list, void (*fn)(const char *w, size_t n, void *arg),
		  void *arg)
{
	const char *p = list;

	if (!p)
		return;
	while (*p) {
		size_t n;

		while (*p == ' ' || *p == '\t' || *p == ',' || *p == '\n')
			p++;
		n = strcspn(p, " \t,\n");
		if (n)
			fn(p, n, arg);
		p += n;
	}
}

struct word_find {
	const char *w;
	bool found;
};

static void word_find_fn(const char *w, size_t n, void *arg)
{
	struct word_find *f = arg;

	if (strlen(f->w) == n && !memcmp(f->w, w, n))
		f->found = true;
}

bool dc_word_in(const char *list, const char *w)
{
	struct word_find f = { .w = w };

	dc_each_word(list, word_find_fn, &f);
	return f.found;
}

static void count_fn(const char *w, size_t n, void *arg)
{
	(void)w;
	(void)n;
	(*(int *)arg)++;
}

int dc_case_nclauses(const struct dc_case *c)
{
	int n = 0;

	dc_each_word(c->clauses, count_fn, &n);
	return n;
}

const char *dc_state_name(enum dc_state s)
{
	switch (s) {
	case DC_PASS:
		return "PASS";
	case DC_FAIL:
		return "FAIL";
	case DC_UNSUPPORTED:
		return "UNSUPPORTED";
	case DC_UNRESOLVED:
		return "UNRESOLVED";
	case DC_TIMEOUT:
		return "TIMEOUT";
	case DC_CRASH:
		return "CRASH";
	}
	return "?";
}

long dc_remaining_ms(const struct dc_ctx *t)
{
	double left = t->priv->deadline_ms - dc_now_ms();

	return left > 0 ? (long)left : 0;
}

void dc_work_shortened(struct dc_ctx *t, double fraction)
{
	if (fraction > 0 && fraction < 1 &&
	    (t->priv->work_fraction == 0 || fraction < t->priv->work_fraction))
		t->priv->work_fraction = fraction;
}

void dc_note(struct dc_ctx *t, const char *fmt, ...)
{
	va_list ap;

	(void)t;
	va_start(ap, fmt);
	fputs("note: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

_Noreturn void dc_end_at(struct dc_ctx *t, enum dc_state st, const char *file,
			 int line, bool by_peer, const char *fmt, ...)
{
	struct dc_priv *p = t->priv;
	va_list ap;

	if (!p->cause.set) {
		memset(&p->cause, 0, sizeof(p->cause));
		p->cause.set = true;
		p->cause.phase = !p->t_ia_open && !(t->c->flags & DC_NO_IA) ? "ia_open" :
				 st == DC_FAIL ? "check" : "setup";
	}
	p->state = st;
	p->by_peer = by_peer;
	p->file = file;
	p->line = line;
	p->message.len = 0;
	va_start(ap, fmt);
	dc_str_vprintf(&p->message, fmt, ap);
	va_end(ap);
	if (p->jb_armed)
		longjmp(p->jb, 1);
	/* Outside a body (cannot happen through the public macros). */
	fprintf(stderr, "datcts: verdict outside a case body: %s\n",
		dc_str_c(&p->message));
	_exit(3);
}

/* ---- DAT return codes ---- */

bool dc_ret_is(DAT_RETURN r, DAT_RETURN type, int subtype)
{
	if (DAT_GET_TYPE(r) != DAT_GET_TYPE(type))
		return false;
	if (DAT_GET_TYPE(type) == DAT_SUCCESS && (r & DAT_CLASS_ERROR))
		return false;
	return subtype < 0 || DAT_GET_SUBTYPE(r) == (DAT_UINT32)subtype;
}

/*
 * dat_strerror's texts are "NAME (description)": results quote the NAME,
 * which is what a reader compares with the man page.
 */
static const char *first_word(const char *z, char *buf, size_t len)
{
	size_t n = strcspn(z, " \t");

	if (n >= len)
		n = len - 1;
	memcpy(buf, z, n);
	buf[n] = '\0';
	return buf;
}

static const char *type_name(DAT_RETURN type, char *buf, size_t len)
{
	const char *major = NULL, *minor = NULL;

	if (DAT_GET_TYPE(type) == DAT_SUCCESS)
		return "DAT_SUCCESS";
	if (dat_strerror(DAT_CLASS_ERROR | DAT_GET_TYPE(type), &major, &minor) ==
	    DAT_SUCCESS && major && *major)
		return first_word(major, buf, len);
	snprintf(buf, len, "type 0x%08x", (unsigned int)DAT_GET_TYPE(type));
	return buf;
}

static const char *subtype_name(DAT_RETURN type, int subtype, char *buf,
				size_t len)
{
	const char *major = NULL, *minor = NULL;
	DAT_RETURN code = DAT_CLASS_ERROR | DAT_GET_TYPE(type) |
			  ((DAT_UINT32)subtype & DAT_SUBTYPE_MASK);

	if (dat_strerror(code, &major, &minor) == DAT_SUCCESS && minor && *minor)
		return first_word(minor, buf, len);
	snprintf(buf, len, "%d", subtype);
	return buf;
}

const char *dc_ret_type_name(DAT_RETURN r, char *buf, size_t len)
{
	return type_name(r, buf, len);
}

const char *dc_ret_subtype_name(DAT_RETURN r, char *buf, size_t len)
{
	if (!(r & DAT_CLASS_ERROR) || !DAT_GET_SUBTYPE(r))
		return NULL;
	return subtype_name(r, (int)DAT_GET_SUBTYPE(r), buf, len);
}

/* The call an expression makes: its leading identifier when a '(' follows
 * ("dat_ep_free(ep)"), or when it names a DAT call alone ("dat_pz_create"). */
static void call_of(const char *expr, char *out, size_t len)
{
	size_t n = 0;
	const char *p = expr;

	out[0] = '\0';
	while (*p == ' ' || *p == '(' || *p == '!')
		p++;
	while ((p[n] >= 'a' && p[n] <= 'z') || (p[n] >= 'A' && p[n] <= 'Z') ||
	       (p[n] >= '0' && p[n] <= '9') || p[n] == '_')
		n++;
	if (!n || n >= len || (p[0] >= '0' && p[0] <= '9'))
		return;
	if (p[n + strspn(p + n, " ")] != '(' && (strncmp(p, "dat_", 4) || p[n]))
		return;
	memcpy(out, p, n);
	out[n] = '\0';
	/* the 1.2 headers' dat_ia_open/close are macros over the v forms */
	if (!strcmp(out, "dat_ia_openv") || !strcmp(out, "dat_ia_closev"))
		out[n - 1] = '\0';
}

void dc_cause_call(struct dc_ctx *t, const char *phase, const char *expr,
		   const DAT_RETURN *ret)
{
	struct dc_cause *c = &t->priv->cause;

	memset(c, 0, sizeof(*c));
	c->set = true;
	c->phase = phase;
	if (expr) {
		snprintf(c->expr, sizeof(c->expr), "%s", expr);
		call_of(expr, c->call, sizeof(c->call));
	}
	if (ret) {
		c->has_ret = true;
		c->ret = *ret;
	}
}

void dc_for_clause_at(struct dc_ctx *t, const char *file, int line, const char *id)
{
	struct dc_str s = { 0 };
	bool first = true;

	if (!t->c->clauses || !dc_word_in(t->c->clauses, id))
		dc_end_at(t, DC_UNRESOLVED, file, line, false,
			  "case bug: DC_FOR_CLAUSE(%s) names a clause the case does not", id);
	/* to the supervisor at once: a crash or a hang further on is then
	 * charged to this clause too */
	dc_str_puts(&s, "{");
	dc_json_key(&s, &first, "clause_at");
	dc_json_str(&s, id);
	dc_str_puts(&s, "}");
	dc_ctl_write(t, dc_str_c(&s));
	dc_str_free(&s);
}

struct needs_find {
	char want[160];
	bool found;
};

static void needs_match(const char *w, size_t n, void *arg)
{
	struct needs_find *nf = arg;

	if (n == strlen(nf->want) && !strncmp(w, nf->want, n))
		nf->found = true;
}

/* Hooks and datcts.* attributes are the suite's own: the case must say so. */
static bool needs_declared(const struct dc_case *c, const char *kind, const char *name)
{
	struct needs_find nf = { .found = false };

	if (strcmp(kind, "hook") && strcmp(kind, "suite_attr"))
		return true;
	snprintf(nf.want, sizeof(nf.want), "%s:%s", kind, name);
	dc_each_word(c->needs, needs_match, &nf);
	return nf.found;
}

void dc_cause_needs(struct dc_ctx *t, const char *kind, const char *name)
{
	struct dc_cause *c = &t->priv->cause;

	kind = kind ? kind : "";
	name = name ? name : "";
	if (!needs_declared(t->c, kind, name))
		dc_end_at(t, DC_UNRESOLVED, t->c->file, t->c->line, false,
			  "case bug: it needs %s:%s, which its .needs does not declare",
			  kind, name);

	memset(c, 0, sizeof(*c));
	c->set = true;
	c->phase = t->priv->t_body_start > 0 ? "check" : "ia_open";
	snprintf(c->needs_kind, sizeof(c->needs_kind), "%s", kind);
	snprintf(c->needs_name, sizeof(c->needs_name), "%s", name);
}

const char *dc_ret_str(DAT_RETURN r, char *buf, size_t len)
{
	const char *major = NULL, *minor = NULL;
	char a[96], b[96];

	if (r == DAT_SUCCESS) {
		snprintf(buf, len, "DAT_SUCCESS");
		return buf;
	}
	if (dat_strerror(r, &major, &minor) == DAT_SUCCESS && major && *major) {
		if (DAT_GET_SUBTYPE(r) && minor && *minor)
			snprintf(buf, len, "%s (subtype %s) [0x%08x]",
				 first_word(major, a, sizeof(a)),
				 first_word(minor, b, sizeof(b)), (unsigned int)r);
		else
			snprintf(buf, len, "%s [0x%08x]",
				 first_word(major, a, sizeof(a)), (unsigned int)r);
	} else {
		snprintf(buf, len, "0x%08x (no name from dat_strerror)",
			 (unsigned int)r);
	}
	return buf;
}

/*
 * Crash evidence: the last DAT call a check saw return as expected, kept
 * preformatted so a fatal signal's handler can write it (async-signal-safe)
 * before the process dies; the supervisor adds it to the CRASH message.
 */
static char crumb[400];
static volatile size_t crumb_len;

static void set_crumb(const char *fmt, ...)
{
	va_list ap;
	int n;

	crumb_len = 0;
	va_start(ap, fmt);
	n = vsnprintf(crumb, sizeof(crumb), fmt, ap);
	va_end(ap);
	if (n > 0)
		crumb_len = (size_t)n < sizeof(crumb) ? (size_t)n : sizeof(crumb) - 1;
}

/*
 * Where a fatal signal struck, for the reports (docs/results-format.md,
 * "cause"): the handler walks the stack (backtrace, dladdr1) and writes one
 * {"crash":{...}} line to the supervisor: the innermost frame outside the
 * system libraries, which side it belongs to (provider, registry or this
 * harness), the entry into that side, and the harness fixture the call came
 * from (then the crash was in the set-up).  Not async-signal-safe in theory
 * (dladdr, snprintf); the process is dying anyway, and the supervisor judges
 * by the signal alone when the line does not come.  Then the previous
 * action (the default, or a sanitizer's report) takes over.
 */
#define CRASH_FRAMES 48
/* glibc's own backtrace (libgcc's unwinder, which steps through the signal
 * frame): a sanitizer intercepts backtrace() with a frame-pointer walk that
 * loses the interrupted frames. */
extern int __backtrace(void **buffer, int size);
static const int crash_sigs[] = { SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL };
static struct sigaction crash_prev[sizeof(crash_sigs) / sizeof(crash_sigs[0])];
static int crash_ctl = -1;
static char self_obj[512], registry_obj[512];
/* The clean-up call under way (DC_CLEANUP), so that a crash or hang in it is
 * told apart from one in the clause's checks. */
static const char *volatile cleanup_expr;
/* The same for a set-up call under way (DC_SETUP). */
static const char *volatile setup_expr;

static const char *base_name(const char *path)
{
	const char *b = path ? strrchr(path, '/') : NULL;

	return b ? b + 1 : path ? path : "";
}

static bool system_object(const char *path)
{
	static const char *const sys[] = { "libc.so", "libc-", "ld-linux", "libpthread",
					   "libasan", "libubsan", "liblsan", "libgcc_s",
					   "linux-vdso", "libdl" };
	const char *b = base_name(path);

	for (size_t i = 0; i < sizeof(sys) / sizeof(sys[0]); i++)
		if (!strncmp(b, sys[i], strlen(sys[i])))
			return true;
	return false;
}

struct frame {
	const char *obj;
	const char *sym;	/* NULL unless the symbol really contains the pc */
};

static void frame_at(void *pc, struct frame *f)
{
	Dl_info di;
	const ElfW(Sym) *sym = NULL;

	f->obj = NULL;
	f->sym = NULL;
	if (!dladdr1(pc, &di, (void **)&sym, RTLD_DL_SYMENT))
		return;
	f->obj = di.dli_fname;
	if (di.dli_sname && di.dli_saddr && sym &&
	    (uintptr_t)pc - (uintptr_t)di.dli_saddr < (uintptr_t)(sym->st_size ? sym->st_size : 1))
		f->sym = di.dli_sname;
}

/* A harness function that builds what a case needs (its failure is a set-up failure). */
static bool fixture_name(const char *sym)
{
	size_t n = sym ? strlen(sym) : 0;

	return n > 6 && !strncmp(sym, "dc_", 3) && !strcmp(sym + n - 3, "_at") &&
	       strncmp(sym, "dc_assert", 9) && strncmp(sym, "dc_expect", 9) &&
	       strncmp(sym, "dc_allow", 8) && strcmp(sym, "dc_end_at");
}

static void crash_json_frame(struct dc_str *s, bool *first, const char *key,
			     const struct frame *f)
{
	bool ff = true;

	dc_json_key(s, first, key);
	if (!f || !f->obj) {
		dc_str_puts(s, "null");
		return;
	}
	dc_str_puts(s, "{");
	dc_json_key(s, &ff, "object");
	dc_json_str(s, base_name(f->obj));
	dc_json_key(s, &ff, "symbol");
	dc_json_str(s, f->sym);
	dc_str_puts(s, "}");
}

/* @key "crash" (a fatal @sig) or "hang" (the supervisor's probe of a case
 * past its deadline: where the case's thread was waiting). */
static void describe_stack(const char *key, int sig)
{
	void *pcs[CRASH_FRAMES];
	struct frame fr[CRASH_FRAMES], *inner = NULL, *entry = NULL;
	const char *side = NULL, *fixture = NULL, *phase = "check";
	struct dc_str s = { 0 };
	bool first = true;
	int n = __backtrace(pcs, CRASH_FRAMES), i = 0;

	for (int k = 0; k < n; k++)
		frame_at(k < 3 ? pcs[k] : (char *)pcs[k] - 1, &fr[k]);
	/* skip this handler and the signal trampoline */
	while (i < n && fr[i].obj && !strcmp(fr[i].obj, self_obj))
		i++;
	if (i < n && system_object(fr[i].obj))
		i++;
	for (; i < n; i++) {
		if (!fr[i].obj || system_object(fr[i].obj))
			continue;
		if (!inner) {
			inner = &fr[i];
			side = !strcmp(fr[i].obj, self_obj) ? "harness" :
			       !strcmp(fr[i].obj, registry_obj) ? "registry" : "provider";
		}
		if (!strcmp(fr[i].obj, self_obj)) {
			if (fixture_name(fr[i].sym)) {
				fixture = fr[i].sym;
				phase = !strcmp(fixture, "dc_open_ia_at") ? "ia_open" : "setup";
				break;
			}
			if (fr[i].sym && !strncmp(fr[i].sym, "dc_", 3) &&
			    !fixture_name(fr[i].sym) && strncmp(fr[i].sym, "dc_expect", 9) &&
			    strcmp(fr[i].sym, "dc_wait_event"))
				break;	/* dc_run_in_process: the case body */
			continue;
		}
		entry = &fr[i];
	}
	dc_str_printf(&s, "{\"%s\":{", key);
	dc_json_key(&s, &first, "signal");
	dc_json_str(&s, sig ? dc_signal_name(sig) : NULL);
	if (cleanup_expr && !fixture)
		phase = "cleanup";
	else if (setup_expr && !fixture)
		phase = "setup";
	dc_json_key(&s, &first, "phase");
	dc_json_str(&s, phase);
	if (!strcmp(phase, "cleanup") || (setup_expr && !fixture && !strcmp(phase, "setup"))) {
		dc_json_key(&s, &first, "expr");
		dc_json_str(&s, cleanup_expr ? cleanup_expr : setup_expr);
	}
	dc_json_key(&s, &first, "answered_by");
	dc_json_str(&s, side);
	crash_json_frame(&s, &first, "frame", inner);
	crash_json_frame(&s, &first, "entry", entry);
	dc_json_key(&s, &first, "fixture");
	dc_json_str(&s, fixture);
	dc_str_puts(&s, "}}\n");
	if (crash_ctl >= 0 && s.p) {
		ssize_t unused = write(crash_ctl, s.p, s.len);
		(void)unused;
	}
}

static void crash_report(int sig, siginfo_t *si, void *uc)
{
	static volatile sig_atomic_t busy;
	size_t k;
	ssize_t unused;

	(void)uc;
	if (crumb_len)
		unused = write(2, crumb, crumb_len);	/* best effort */
	(void)unused;
	if (!busy++)
		describe_stack("crash", sig);
	for (k = 0; k < sizeof(crash_sigs) / sizeof(crash_sigs[0]); k++)
		if (crash_sigs[k] == sig)
			sigaction(sig, &crash_prev[k], NULL);
	/* A fault strikes again on return, now under the previous action;
	 * a sent signal (abort, kill) is raised again. */
	if (!si || si->si_code <= 0 || sig == SIGABRT)
		raise(sig);
}

/*
 * The supervisor's probe of a case past its deadline (DC_WHERE_SIGNAL): the
 * case's own thread says where it waits, so a hang in a set-up helper is told
 * from a hang in the call under test, as a crash is.  A signal that lands on
 * another thread (the provider's) is passed on to the case's thread.  The
 * process goes on; the supervisor kills it a moment later.
 */
static pid_t case_tid;

static void where_report(int sig)
{
	static volatile sig_atomic_t said;
	int saved = errno;

	if ((pid_t)syscall(SYS_gettid) != case_tid)
		syscall(SYS_tgkill, getpid(), case_tid, sig);
	else if (!said++)
		describe_stack("hang", 0);
	errno = saved;
}

static void install_crash_report(int ctl)
{
	struct sigaction sa;
	Dl_info di;
	void *warm[1];

	crash_ctl = ctl;
	__backtrace(warm, 1);	/* loads libgcc_s now, not in the handler */
	if (dladdr((void *)&dc_run_in_process, &di) && di.dli_fname)
		snprintf(self_obj, sizeof(self_obj), "%s", di.dli_fname);
	if (dladdr((void *)&dat_strerror, &di) && di.dli_fname)
		snprintf(registry_obj, sizeof(registry_obj), "%s", di.dli_fname);
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = crash_report;
	sa.sa_flags = SA_SIGINFO | SA_NODEFER;
	for (size_t i = 0; i < sizeof(crash_sigs) / sizeof(crash_sigs[0]); i++)
		sigaction(crash_sigs[i], &sa, &crash_prev[i]);
	case_tid = (pid_t)syscall(SYS_gettid);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = where_report;
	sa.sa_flags = SA_RESTART;
	sigaction(DC_WHERE_SIGNAL, &sa, NULL);
}

void dc_assert_ret_at(struct dc_ctx *t, const char *file, int line,
		      const char *expr, DAT_RETURN got, enum dc_state on_miss,
		      int n, const DAT_RETURN *types, int subtype)
{
	struct dc_str want = { 0 };
	char b1[200], b2[96], b3[96];
	int i;

	for (i = 0; i < n; i++)
		if (dc_ret_is(got, types[i], subtype)) {
			set_crumb(DC_CRASH_CRUMB "%s at %s:%d\n", expr, file, line);
			return;
		}
	dc_cause_call(t, on_miss == DC_UNRESOLVED ? "setup" : "check", expr, &got);
	if (n > 1)
		dc_str_puts(&want, "one of ");
	for (i = 0; i < n; i++) {
		if (i)
			dc_str_puts(&want, ", ");
		dc_str_puts(&want, type_name(types[i], b2, sizeof(b2)));
	}
	if (subtype >= 0)
		dc_str_printf(&want, " (subtype %s)",
			      subtype_name(types[0], subtype, b3, sizeof(b3)));
	dc_end_at(t, on_miss, file, line, false, "%s%s: expected %s, got %s at %s:%d",
		  on_miss == DC_UNRESOLVED ? "set-up " : "", expr,
		  dc_str_c(&want), dc_ret_str(got, b1, sizeof(b1)), file, line);
}

void dc_assert_int_at(struct dc_ctx *t, const char *file, int line,
		      const char *ea, long long a, const char *op,
		      const char *eb, long long b)
{
	dc_end_at(t, DC_FAIL, file, line, false,
		  "expected %s %s %s, got %lld and %lld at %s:%d", ea, op, eb,
		  a, b, file, line);
}

void dc_beyond_suite_bound_at(struct dc_ctx *t, const char *file, int line,
			      const char *what, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	dc_cause_needs(t, "suite_bound", what);
	dc_end_at(t, DC_UNSUPPORTED, file, line, false,
		  "not reached within the case's own bound (%s): %s", what, msg);
}

void dc_need_limit_at(struct dc_ctx *t, const char *file, int line,
		      const char *what, long long have, long long need)
{
	char name[160];

	if (have >= need)
		return;
	snprintf(name, sizeof(name), "%s >= %lld", what, need);
	dc_cause_needs(t, "attribute", name);
	dc_end_at(t, DC_UNSUPPORTED, file, line, false,
		  "the IA reports %s = %lld; the case needs %lld to reach the state its clause speaks of",
		  what, have, need);
}

void dc_need_reported_limit_at(struct dc_ctx *t, const char *file, int line,
			       const char *what, long long limit, long long need)
{
	if (limit > 0)
		dc_need_limit_at(t, file, line, what, limit, need);
}

void dc_allow_model_not_supported_at(struct dc_ctx *t, const char *file,
				     int line, const char *expr,
				     DAT_RETURN ret, const char *page,
				     const char *why)
{
	if (!dc_ret_is(ret, DAT_MODEL_NOT_SUPPORTED, DC_ANY_SUBTYPE))
		return;
	if (!page || !dc_page_documents_model_not_supported(page))
		dc_end_at(t, DC_UNRESOLVED, file, line, false,
			  "case bug: %s returned DAT_MODEL_NOT_SUPPORTED and the case cites page %s, which does not list that code",
			  expr, page ? page : "(none)");
	dc_cause_call(t, "check", expr, &ret);
	snprintf(t->priv->cause.needs_kind, sizeof(t->priv->cause.needs_kind),
		 "model_not_supported");
	snprintf(t->priv->cause.needs_name, sizeof(t->priv->cause.needs_name), "%s", page);
	dc_end_at(t, DC_UNSUPPORTED, file, line, false,
		  "%s returned DAT_MODEL_NOT_SUPPORTED, allowed by %s(3DAT)%s%s",
		  expr, page, why && *why ? ": " : "", why ? why : "");
}

/* ---- running one case in this process ---- */

static void track_alloc(struct dc_ctx *t, void *p);

void *dc_track_alloc_(struct dc_ctx *t, size_t align, size_t len)
{
	void *p = NULL;

	if (align < sizeof(void *))
		align = sizeof(void *);
	if (posix_memalign(&p, align, len ? len : 1))
		return NULL;
	memset(p, 0, len ? len : 1);
	track_alloc(t, p);
	return p;
}

static void track_alloc(struct dc_ctx *t, void *p)
{
	struct dc_priv *pr = t->priv;

	if (pr->nallocs < (int)(sizeof(pr->allocs) / sizeof(pr->allocs[0])))
		pr->allocs[pr->nallocs++] = p;
	/* else: leaked until exit, which is moments away */
}

/* DAT_PROVIDER_* types come from the registry: it found no provider to answer. */
static bool registry_answer(DAT_RETURN r)
{
	DAT_RETURN ty = DAT_GET_TYPE(r);

	return (r & DAT_CLASS_ERROR) &&
	       (ty == DAT_PROVIDER_NOT_FOUND || ty == DAT_PROVIDER_ALREADY_REGISTERED ||
		ty == DAT_PROVIDER_IN_USE);
}

void dc_json_return(struct dc_str *s, DAT_RETURN r)
{
	char b1[96], b2[96], code[16];
	bool first = true;
	const char *sub = dc_ret_subtype_name(r, b2, sizeof(b2));

	snprintf(code, sizeof(code), "0x%08x", (unsigned int)r);
	dc_str_puts(s, "{");
	dc_json_key(s, &first, "code");
	dc_json_str(s, code);
	dc_json_key(s, &first, "type");
	dc_json_str(s, dc_ret_type_name(r, b1, sizeof(b1)));
	dc_json_key(s, &first, "subtype");
	dc_json_str(s, sub);
	dc_json_key(s, &first, "answered_by");
	dc_json_str(s, registry_answer(r) ? "registry" : "provider");
	dc_str_puts(s, "}");
}

static void emit_cause(struct dc_str *s, bool *first, const struct dc_cause *c)
{
	bool cf = true;

	if (!c->set)
		return;
	dc_json_key(s, first, "cause");
	dc_str_puts(s, "{");
	dc_json_key(s, &cf, "phase");
	dc_json_str(s, c->phase);
	dc_json_key(s, &cf, "call");
	dc_json_str(s, c->call[0] ? c->call : NULL);
	dc_json_key(s, &cf, "expr");
	dc_json_str(s, c->expr[0] ? c->expr : NULL);
	dc_json_key(s, &cf, "return");
	if (c->has_ret)
		dc_json_return(s, c->ret);
	else
		dc_str_puts(s, "null");
	dc_json_key(s, &cf, "answered_by");
	dc_json_str(s, !c->has_ret ? NULL : registry_answer(c->ret) ? "registry" : "provider");
	if (c->event_want[0]) {
		bool ef = true;

		dc_json_key(s, &cf, "event");
		dc_str_puts(s, "{");
		dc_json_key(s, &ef, "expected");
		dc_json_str(s, c->event_want);
		dc_json_key(s, &ef, "got");
		dc_json_str(s, c->event_got[0] ? c->event_got : NULL);
		dc_str_puts(s, "}");
	}
	dc_json_key(s, &cf, "needs");
	if (c->needs_kind[0]) {
		bool nf = true;

		dc_str_puts(s, "{");
		dc_json_key(s, &nf, "kind");
		dc_json_str(s, c->needs_kind);
		dc_json_key(s, &nf, "name");
		dc_json_str(s, c->needs_name);
		dc_str_puts(s, "}");
	} else {
		dc_str_puts(s, "null");
	}
	dc_str_puts(s, "}");
}

void dc_assert_success_unless_short_at(struct dc_ctx *t, const char *file, int line,
				       const char *expr, DAT_RETURN got)
{
	if (DAT_GET_TYPE(got) == DAT_INSUFFICIENT_RESOURCES) {
		dc_cause_call(t, "check", expr, &got);
		dc_end_at(t, DC_UNRESOLVED, file, line, false,
			  "%s returned %s, which its page allows: the clause could not be checked",
			  expr, dc_ret_text(got));
	}
	dc_assert_ret_at(t, file, line, expr, got, DC_FAIL, 1,
			 (const DAT_RETURN[]){ DAT_SUCCESS }, DC_ANY_SUBTYPE);
}

void dc_cleanup_begin(const char *expr)
{
	cleanup_expr = expr;
}

void dc_setup_begin(const char *expr)
{
	setup_expr = expr;
}

void dc_setup_at(struct dc_ctx *t, const char *file, int line, const char *expr,
		 DAT_RETURN got)
{
	setup_expr = NULL;
	dc_assert_ret_at(t, file, line, expr, got, DC_UNRESOLVED, 1,
			 (const DAT_RETURN[]){ DAT_SUCCESS }, DC_ANY_SUBTYPE);
}

void dc_cleanup_at(struct dc_ctx *t, const char *file, int line,
		   const char *expr, DAT_RETURN got)
{
	struct dc_str *s = &t->priv->cleanup;
	char call[64], b[200];
	bool first = true;

	cleanup_expr = NULL;
	if (got == DAT_SUCCESS)
		return;
	call_of(expr, call, sizeof(call));
	dc_note(t, "clean-up %s returned %s at %s:%d", expr, dc_ret_str(got, b, sizeof(b)),
		file, line);
	if (s->len)
		dc_str_puts(s, ",");
	dc_str_puts(s, "{");
	dc_json_key(s, &first, "call");
	dc_json_str(s, call[0] ? call : NULL);
	dc_json_key(s, &first, "expr");
	dc_json_str(s, expr);
	dc_json_key(s, &first, "return");
	dc_json_return(s, got);
	dc_json_key(s, &first, "file");
	dc_json_str(s, file);
	dc_json_key(s, &first, "line");
	dc_str_printf(s, "%d", line);
	dc_str_puts(s, "}");
}

static void send_verdict(struct dc_ctx *t)
{
	struct dc_priv *p = t->priv;
	struct dc_str s = { 0 };
	bool first = true, pf = true;
	double now = dc_now_ms();

	dc_str_puts(&s, "{\"verdict\":{");
	dc_json_key(&s, &first, "state");
	dc_json_str(&s, dc_state_name(p->state));
	dc_json_key(&s, &first, "message");
	dc_json_str(&s, dc_str_c(&p->message));
	dc_json_key(&s, &first, "file");
	dc_json_str(&s, p->file);
	dc_json_key(&s, &first, "line");
	dc_str_printf(&s, "%d", p->line);
	dc_json_key(&s, &first, "by_peer");
	dc_str_puts(&s, p->by_peer ? "true" : "false");
	dc_json_key(&s, &first, "phases");
	dc_str_puts(&s, "{");
	if (p->t_ia_open > 0) {
		dc_json_key(&s, &pf, "ia_open_ms");
		dc_str_printf(&s, "%.3f", p->t_ia_open - p->t_start);
	}
	if (p->t_body_start > 0) {
		dc_json_key(&s, &pf, "body_ms");
		dc_str_printf(&s, "%.3f", now - p->t_body_start);
	}
	dc_str_puts(&s, "}");
	if (p->state != DC_PASS)
		emit_cause(&s, &first, &p->cause);
	if (p->cleanup.len) {
		dc_json_key(&s, &first, "cleanup_failures");
		dc_str_printf(&s, "[%s]", dc_str_c(&p->cleanup));
	}
	if (p->work_fraction > 0) {
		dc_json_key(&s, &first, "work_fraction");
		dc_str_printf(&s, "%.3f", p->work_fraction);
	}
	if (p->nlearned) {
		dc_json_key(&s, &first, "learned");
		dc_json_learned(&s, p);
	}
	dc_str_puts(&s, "}}");
	dc_ctl_write(t, dc_str_c(&s));
	dc_str_free(&s);
}

/* close: what the teardown's abrupt dat_ia_close returned (NULL: not made). */
static void send_teardown(struct dc_ctx *t, double ms, const DAT_RETURN *close)
{
	struct dc_str s = { 0 };

	dc_str_printf(&s, "{\"teardown\":{\"ms\":%.3f", ms);
	if (close && *close != DAT_SUCCESS) {
		dc_str_puts(&s, ",\"call\":\"dat_ia_close\",\"flags\":\"DAT_CLOSE_ABRUPT_FLAG\",\"return\":");
		dc_json_return(&s, *close);
	}
	dc_str_puts(&s, "}}");
	dc_ctl_write(t, dc_str_c(&s));
	dc_str_free(&s);
}

/* The case said the streams on its idle DTO EVD (fixtures.c: DC_NO_DTOS,
 * few_evds) carry nothing, so that EVD must have seen nothing; an event there
 * means the case posts where it declared it would not. */
static void idle_streams_kept(struct dc_ctx *t)
{
	DAT_EVENT ev;

	if (!t->priv->idle_dto_evd ||
	    dat_evd_dequeue(t->priv->idle_dto_evd, &ev) != DAT_SUCCESS)
		return;
	dc_end_at(t, DC_UNRESOLVED, t->c->file, t->c->line, false,
		  "case bug: the case's idle DTO EVD (streams it declared it posts nothing on) received %s (0x%x)",
		  dc_event_name(ev.event_number), (unsigned int)ev.event_number);
}

int dc_run_in_process(const struct dc_case *c, enum dc_role role,
		      const char *ia_name, double deadline_ms, int ctl_out,
		      int ctl_in)
{
	static struct dc_priv priv;
	static struct dc_ctx ctx;
	struct dc_ctx *t = &ctx;
	static DAT_RETURN close_ret;
	static bool closed;
	double t0;
	int i;

	memset(&priv, 0, sizeof(priv));
	memset(&ctx, 0, sizeof(ctx));
	close_ret = DAT_SUCCESS;
	closed = false;
	t->c = c;
	t->role = role;
	t->ia_name = ia_name;
	t->priv = &priv;
	priv.ctl_out = ctl_out;
	priv.ctl_in = ctl_in;
	priv.deadline_ms = deadline_ms;
	priv.state = DC_PASS;
	priv.file = c->file;
	priv.line = c->line;
	priv.t_start = dc_now_ms();
	install_crash_report(ctl_out);

	if (setjmp(priv.jb) == 0) {
		priv.jb_armed = true;
		if (!(c->flags & DC_NO_IA))
			dc_open_ia(t);
		if (role == DC_ROLE_ACTIVE)
			dc_wait_ready(t);
		priv.t_body_start = dc_now_ms();
		if (role == DC_ROLE_PASSIVE)
			c->passive(t);
		else if (role == DC_ROLE_ACTIVE)
			c->active(t);
		else
			c->run(t);
		if (role == DC_ROLE_PASSIVE && !priv.announced)
			dc_end_at(t, DC_UNRESOLVED, c->file, c->line, false,
				  "case bug: the passive half returned without dc_announce()");
		idle_streams_kept(t);
	}
	priv.jb_armed = false;
	fflush(stdout);
	fflush(stderr);
	send_verdict(t);
	dc_exhaust_end(t);	/* the teardown gets every resource back */
	crumb_len = 0;		/* the supervisor says "during teardown" */

	/* Teardown: the abrupt close destroys every object of the IA. */
	t0 = dc_now_ms();
	if (priv.ia_open) {
		char b[200];

		close_ret = dat_ia_close(t->ia, DAT_CLOSE_ABRUPT_FLAG);
		closed = true;
		if (close_ret != DAT_SUCCESS)
			fprintf(stderr,
				"teardown: dat_ia_close(ABRUPT) returned %s\n",
				dc_ret_str(close_ret, b, sizeof(b)));
		priv.ia_open = false;
	}
	dc_waiters_join_returned();
	for (i = 0; i < priv.nallocs; i++)
		free(priv.allocs[i]);
	priv.nallocs = 0;
	fflush(stdout);
	fflush(stderr);
	send_teardown(t, dc_now_ms() - t0, closed ? &close_ret : NULL);
	while (priv.queue) {
		struct dc_msg *m = priv.queue;

		priv.queue = m->next;
		free(m->tag);
		free(m->data);
		free(m);
	}
	dc_str_free(&priv.message);
	dc_str_free(&priv.inbuf);
	dc_str_free(&priv.cleanup);
	return priv.state == DC_PASS || priv.state == DC_UNSUPPORTED ? 0 : 1;
}

/*
 * Runs the case again from its start in a new image of this program, in
 * this process (the supervisor keeps watching the same pid and pipes), so
 * that the libraries the case uses start afresh and read the environment
 * the case has set up: a registry reads dat.conf once per process, and
 * libdat2 may have read it before the case began (dc_registry_conf).
 * The new image runs the case alone (--no-fork) on the same control pipes
 * with what is left of the deadline.
 */
_Noreturn void dc_reexec_at(struct dc_ctx *t, const char *file, int line)
{
	struct dc_priv *p = t->priv;
	char exe[PATH_MAX], fds[32], tmo[32];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	double left = (p->deadline_ms - dc_now_ms()) / 1000.0;

	if (n < 0)
		dc_end_at(t, DC_UNRESOLVED, file, line, false, "set-up: /proc/self/exe unreadable");
	exe[n] = '\0';
	if (t->role != DC_ROLE_SINGLE)
		dc_end_at(t, DC_UNRESOLVED, file, line, false,
			  "case bug: a two-node case cannot start afresh");
	snprintf(fds, sizeof(fds), "%d,%d", p->ctl_out, p->ctl_in);
	snprintf(tmo, sizeof(tmo), "%.3f", left > 0.1 ? left : 0.1);
	fflush(NULL);
	if (t->ia_name)
		execl(exe, exe, "--no-fork", "--ctl-fds", fds, "--timeout", tmo, "--ia",
		      t->ia_name, "--run", t->c->id, (char *)NULL);
	else
		execl(exe, exe, "--no-fork", "--ctl-fds", fds, "--timeout", tmo, "--run",
		      t->c->id, (char *)NULL);
	dc_end_at(t, DC_UNRESOLVED, file, line, false, "set-up: re-executing %s failed", exe);
}
