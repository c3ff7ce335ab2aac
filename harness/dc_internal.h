/* SPDX-License-Identifier: MIT */
/* Internals of libdatcts shared between its source files. */
#ifndef DC_INTERNAL_H
#define DC_INTERNAL_H

#include "datcts.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>

/* ---- growing string ---- */

struct dc_str {
	char *p;
	size_t len, cap;
};

void dc_str_add(struct dc_str *s, const char *data, size_t n);
void dc_str_puts(struct dc_str *s, const char *z);
void dc_str_printf(struct dc_str *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void dc_str_vprintf(struct dc_str *s, const char *fmt, va_list ap);
void dc_str_free(struct dc_str *s);
const char *dc_str_c(const struct dc_str *s);	/* never NULL */

/* ---- JSON writing (into a dc_str) ---- */

/* Appends a JSON string literal; invalid UTF-8 becomes U+FFFD. */
void dc_json_str(struct dc_str *s, const char *z);
void dc_json_strn(struct dc_str *s, const char *z, size_t n);
/* Appends `"key":` with a leading comma unless *first. */
void dc_json_key(struct dc_str *s, bool *first, const char *key);

/* ---- JSON reading (small DOM) ---- */

enum dc_jtype { DC_JNULL, DC_JBOOL, DC_JNUM, DC_JSTR, DC_JARR, DC_JOBJ };

struct dc_jv {
	enum dc_jtype type;
	char *key;		/* member name when inside an object */
	char *str;		/* DC_JSTR */
	double num;		/* DC_JNUM, DC_JBOOL */
	struct dc_jv *kids;	/* DC_JARR, DC_JOBJ */
	int n;
};

/* Parses one JSON text; NULL on a syntax error. */
struct dc_jv *dc_json_parse(const char *text);
void dc_json_free(struct dc_jv *v);
const struct dc_jv *dc_json_get(const struct dc_jv *obj, const char *key);
const char *dc_json_get_str(const struct dc_jv *obj, const char *key);
double dc_json_get_num(const struct dc_jv *obj, const char *key, double dflt);
/* Re-serialises a value. */
void dc_json_write(struct dc_str *s, const struct dc_jv *v);

/* The line a crashing case process leaves in its output (case.c), which the
 * supervisor adds to the CRASH message: what last returned as expected. */
#define DC_CRASH_CRUMB "[datcts] the last call checked before the crash: "

/* The supervisor's probe of a case past its deadline: the case answers with
 * a {"hang":{...}} line saying where it waits (case.c, where_report). */
#define DC_WHERE_SIGNAL SIGUSR2
#define DC_WHERE_GRACE_MS 300.0

/* ---- time ---- */

double dc_now_ms(void);		/* CLOCK_MONOTONIC in ms */

/* ---- the run-time state of one case process ---- */

struct dc_msg {
	struct dc_msg *next;
	char *tag;
	char *data;
};

/*
 * What decided a verdict, for the reports to attribute it from data
 * (docs/results-format.md, "cause"): set by the helper that ends the case,
 * just before dc_end_at, which stamps the phase when nobody set it.
 */
struct dc_cause {
	bool set;
	const char *phase;	/* "ia_open", "setup", "check" */
	char call[64];		/* the DAT call (or helper) that answered; "" */
	char expr[200];		/* the expression as the case wrote it; "" */
	bool has_ret;
	DAT_RETURN ret;
	char event_want[64];	/* an event expected on an EVD ... */
	char event_got[64];	/* ... and the one that came instead */
	char needs_kind[24];	/* UNSUPPORTED: "hook", "suite_attr", ... */
	char needs_name[96];
};

/* learn.c: an attribute dat_ia_query left unwritten, learned from a call */
struct dc_learned {
	const char *attr;
	char call[32];
	DAT_RETURN ret;
	int value;		/* -1: the answer taught nothing */
};
#define DC_MAX_LEARNED 8

struct dc_priv {
	jmp_buf jb;
	uint64_t attr_unreported;	/* attrs.c's table: fields dat_ia_query left unwritten */
	struct dc_learned learned[DC_MAX_LEARNED];
	int nlearned;
	bool jb_armed;
	double deadline_ms;	/* dc_now_ms() value */
	int ctl_out;		/* JSON lines to the supervisor */
	int ctl_in;		/* JSON lines from the supervisor (-1: none) */
	struct dc_str inbuf;	/* partial line from ctl_in */
	struct dc_msg *queue;	/* peer messages not yet waited for */
	bool peer_done;
	char peer_state[32];
	char peer_message[512];
	bool announced;
	bool ia_open;
	DAT_PZ_HANDLE fixture_pz;	/* the last PZ dc_pz_or_shared made (fixtures.c) */
	DAT_EVD_HANDLE idle_dto_evd;	/* the streams the case posts nothing on (fixtures.c) */
	DAT_EVD_HANDLE shared_cr_evd;	/* DC_SHARE_CR_EVD: the endpoints' one CR EVD */
	DAT_TIMEOUT unanswered_timeout_us;	/* dc_unanswered_timeout_us (0: not measured yet) */
	double work_fraction;	/* dc_work_shortened: the smallest, 0 for none */
	/* the verdict */
	enum dc_state state;
	bool by_peer;
	struct dc_str message;
	const char *file;
	int line;
	struct dc_cause cause;
	struct dc_str cleanup;	/* JSON objects of failed DC_CLEANUP calls, comma-separated */
	/* timings */
	double t_start, t_ia_open, t_body_start, t_body_end;
	struct dc_str notes;
	void *allocs[64];
	int nallocs;
};

/* case.c */
extern const struct dc_case **dc_cases;
extern int dc_ncases;
const struct dc_case *dc_find_case(const char *id);
void dc_sort_cases(void);
int dc_check_unique(void);
int dc_case_nclauses(const struct dc_case *c);
/* Runs a case (or one half of it) in this process; writes the verdict and
 * teardown messages to ctl_out.  Returns the exit status to use. */
int dc_run_in_process(const struct dc_case *c, enum dc_role role,
		      const char *ia_name, double deadline_ms, int ctl_out,
		      int ctl_in);
/* Starts the case again in a fresh image of this program (case.c). */
_Noreturn void dc_reexec_at(struct dc_ctx *t, const char *file, int line);
/* Zeroed, aligned memory freed after the teardown. */
void *dc_track_alloc_(struct dc_ctx *t, size_t align, size_t len);
/* Splits a blank/comma separated list; calls fn for each item. */
void dc_each_word(const char *list, void (*fn)(const char *w, size_t n,
					       void *arg), void *arg);
bool dc_word_in(const char *list, const char *w);

/* case.c: the cause of the verdict about to be given (struct dc_cause) */
void dc_cause_call(struct dc_ctx *t, const char *phase, const char *expr,
		   const DAT_RETURN *ret);
/* The text of a return code's type / subtype name ("DAT_INVALID_STATE"). */
const char *dc_ret_type_name(DAT_RETURN r, char *buf, size_t len);
const char *dc_ret_subtype_name(DAT_RETURN r, char *buf, size_t len);
/* {"code","type","subtype","answered_by"} of a return code. */
void dc_json_return(struct dc_str *s, DAT_RETURN r);

/* attrs.c */
/* Checks .requires against t->prov_attr; on a miss fills why and returns 0.
 * Returns -1 on a malformed requirement, DC_REQ_UNREPORTED when a required
 * attribute was not written by dat_ia_query (why says which). */
#define DC_REQ_UNREPORTED (-2)
int dc_requirements_met(const struct dc_ctx *t, const char *requires,
			struct dc_str *why);
/* Which attributes of the table dat_ia_query leaves unwritten: queries again
 * into structures filled with a pattern (t->ia_attr and t->prov_attr keep the
 * zero-filled answer). */
void dc_attrs_find_unreported(struct dc_ctx *t);
/* An unreported attribute's value, learned from a call (learn.c): written
 * into t->prov_attr, and no longer unreported. */
void dc_attr_learn(struct dc_ctx *t, const char *name, long long value);

/* learn.c: learns the unreported attributes @requires names (.requires
 * syntax) from the calls of their pages; the "learned" array of a result. */
void dc_learn_unreported(struct dc_ctx *t, const char *requires);
void dc_json_learned(struct dc_str *s, const struct dc_priv *p);
bool dc_page_documents_model_not_supported(const char *page);

/* events.c: the teardown joins the waiter threads that have returned. */
void dc_waiters_join_returned(void);

/* relay.c */
void dc_ctl_write(struct dc_ctx *t, const char *line);
/* Active half: blocks for the passive half's ready message (deadline-bounded). */
void dc_wait_ready(struct dc_ctx *t);

/* supervise.c */
int dc_supervise(int argc, char **argv);
const char *dc_signal_name(int sig);

#endif /* DC_INTERNAL_H */
