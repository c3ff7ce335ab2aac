/* SPDX-License-Identifier: MIT */
/*
 * datcts.h - the case-writer's interface of libdatcts.
 *
 * A case is one C function that checks one clause of one man page.  It is
 * registered with DC_CASE (single node) or DC_TWO_NODE_CASE + DC_PASSIVE +
 * DC_ACTIVE (two halves), and its body receives the case context as `t`.
 *
 * Three families of calls, told apart by their spelling:
 *   DC_ASSERT_*   check the clause; a miss ends the case with FAIL.
 *   dc_*()        set-up helpers (fixtures); a miss ends it UNRESOLVED.
 *   DC_SETUP*     ad-hoc set-up checks; a miss ends it UNRESOLVED.
 * UNSUPPORTED comes only from .requires (provider attributes), from
 * DC_ALLOW_MODEL_NOT_SUPPORTED on a page that documents that code, or from
 * dc_provider_hook() when the provider offers no such hook.
 *
 * See docs/writing-cases.md for the full guide.
 */
#ifndef DATCTS_H
#define DATCTS_H

#ifdef DATCTS_DAT2
#include <dat2/udat.h>		/* the DAT 2.0 build (libdatcts2, cases2/) */
#include <dat2/dat_registry.h>
#else
#include <dat/udat.h>
#include <dat/dat_registry.h>
#endif

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- results ------------------------------------------------------------ */

enum dc_state {
	DC_PASS,
	DC_FAIL,
	DC_UNSUPPORTED,
	DC_UNRESOLVED,
	DC_TIMEOUT,
	DC_CRASH,
};

const char *dc_state_name(enum dc_state s);

/* ---- registration ------------------------------------------------------- */

struct dc_ctx;

/* Case flags (.flags). */
#define DC_NO_IA	0x1u	/* do not open the IA before the body */
/*
 * The case's endpoints (dc_endpoint) carry no DTOs: their Receive and
 * Request streams are idle (DC_IDLE_RECV | DC_IDLE_REQUEST below, for every
 * endpoint). Only for cases that never post on them nor look at those EVDs.
 */
#define DC_NO_DTOS	0x2u

struct dc_case {
	const char *id;		/* "<page>.<name>" */
	const char *page;	/* man page without .3dat */
	const char *name;
	const char *area;	/* from DATCTS_AREA (set by CMake) */
	const char *clauses;	/* blank/comma separated clause ids; default: id */
	const char *summary;	/* one line */
	const char *requires;	/* provider attribute conditions, see below */
	/*
	 * What of the suite's own the case cannot run without, blank separated
	 * "hook:<daplref_test_* symbol>" or "suite_attr:<datcts.* attribute>".
	 * A third-party provider has none of these: its run leaves the clause
	 * not demonstrated, and `datcts coverage` lists it as needing a test
	 * hook.  Reaching for an undeclared one is a case bug (UNRESOLVED).
	 */
	const char *needs;
	unsigned int flags;
	void (*run)(struct dc_ctx *t);		/* single node */
	void (*passive)(struct dc_ctx *t);	/* two node */
	void (*active)(struct dc_ctx *t);
	const char *file;
	int line;
};

void dc_register(const struct dc_case *c);

#ifdef DATCTS_AREA
#define DC_AREA_ DATCTS_AREA
#else
#define DC_AREA_ NULL
#endif

#define DC_UNUSED_ __attribute__((unused))
#define DC_SYM_(kind, pg_, nm_) dc_##kind##__##pg_##__##nm_

/*
 * DC_CASE(page, name, .clauses = "...", .summary = "...", .requires = "...")
 * { body; `t` is the case context }
 */
#define DC_CASE(pg_, nm_, ...)						\
	static void DC_SYM_(fn, pg_, nm_)(struct dc_ctx *t DC_UNUSED_);	\
	static const struct dc_case DC_SYM_(case, pg_, nm_) = {		\
		.id = #pg_ "." #nm_, .page = #pg_, .name = #nm_,	\
		.area = DC_AREA_, .file = __FILE__, .line = __LINE__,	\
		.run = DC_SYM_(fn, pg_, nm_), __VA_ARGS__		\
	};								\
	__attribute__((constructor)) static void			\
	DC_SYM_(reg, pg_, nm_)(void)					\
	{								\
		dc_register(&DC_SYM_(case, pg_, nm_));			\
	}								\
	static void DC_SYM_(fn, pg_, nm_)(struct dc_ctx *t DC_UNUSED_)

/*
 * DC_TWO_NODE_CASE(page, name, .clauses = ..., ...);
 * DC_PASSIVE(page, name) { ... dc_announce() or dc_connect_passive() ... }
 * DC_ACTIVE(page, name)  { ... runs after the passive half announced ... }
 */
#define DC_TWO_NODE_CASE(pg_, nm_, ...)					\
	static void DC_SYM_(passive, pg_, nm_)(struct dc_ctx *t DC_UNUSED_); \
	static void DC_SYM_(active, pg_, nm_)(struct dc_ctx *t DC_UNUSED_); \
	static const struct dc_case DC_SYM_(case, pg_, nm_) = {		\
		.id = #pg_ "." #nm_, .page = #pg_, .name = #nm_,	\
		.area = DC_AREA_, .file = __FILE__, .line = __LINE__,	\
		.passive = DC_SYM_(passive, pg_, nm_),			\
		.active = DC_SYM_(active, pg_, nm_), __VA_ARGS__	\
	};								\
	__attribute__((constructor)) static void			\
	DC_SYM_(reg, pg_, nm_)(void)					\
	{								\
		dc_register(&DC_SYM_(case, pg_, nm_));			\
	}								\
	struct dc_two_node_case_needs_a_semicolon_

#define DC_PASSIVE(pg_, nm_)						\
	static void DC_SYM_(passive, pg_, nm_)(struct dc_ctx *t DC_UNUSED_)
#define DC_ACTIVE(pg_, nm_)						\
	static void DC_SYM_(active, pg_, nm_)(struct dc_ctx *t DC_UNUSED_)

/* ---- the case context ---------------------------------------------------- */

enum dc_role {
	DC_ROLE_SINGLE,
	DC_ROLE_PASSIVE,
	DC_ROLE_ACTIVE,
};

/* What the passive half announced; valid in the active half's body. */
struct dc_peer {
	char host[64];			/* numeric address as announced */
	struct sockaddr_storage addr;	/* port 0; the conn_qual selects */
	DAT_CONN_QUAL conn_qual;
	char data[256];			/* free-form text from dc_announce_data */
};

struct dc_priv;

struct dc_ctx {
	const struct dc_case *c;
	enum dc_role role;
	const char *ia_name;
	DAT_IA_HANDLE ia;		/* open unless the case has DC_NO_IA */
	DAT_EVD_HANDLE async_evd;
	DAT_IA_ATTR ia_attr;		/* dat_ia_query(DAT_IA_FIELD_ALL) */
	DAT_PROVIDER_ATTR prov_attr;	/* dat_ia_query(DAT_PROVIDER_FIELD_ALL) */
	struct dc_peer peer;		/* active half only */
	struct dc_priv *priv;
};

/*
 * Whether dat_ia_query wrote the attribute @name ("srq_supported",
 * "ia.max_rmrs"; the gating table's names) when the IA was opened. An
 * unwritten one reads as zero in t->ia_attr / t->prov_attr, which is not the
 * provider's answer.
 */
bool dc_attr_reported(const struct dc_ctx *t, const char *name);

/* Milliseconds left before the case's deadline (never negative). */
long dc_remaining_ms(const struct dc_ctx *t);

/*
 * The case sized its work by the time it had (dc_remaining_ms) and does
 * @fraction (0 < fraction < 1) of what it would with enough time: the result
 * carries the smallest such fraction ("work_fraction"), so that a runner can
 * tell a PASS that a longer limit might judge otherwise (datcts mutate asks
 * it again with the full limit before it counts a survivor).
 */
void dc_work_shortened(struct dc_ctx *t, double fraction);

/* Default wait for one expected event or peer message, capped by the deadline. */
#define DC_WAIT_MS 10000L

/* Adds a line to the case's output (kept in the result's "output"). */
void dc_note(struct dc_ctx *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* ---- ending a case (file:line recorded) ---------------------------------- */

_Noreturn void dc_end_at(struct dc_ctx *t, enum dc_state st, const char *file,
			 int line, bool by_peer, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));

#define DC_FAIL(...)							\
	dc_end_at(t, DC_FAIL, __FILE__, __LINE__, false, __VA_ARGS__)
#define DC_UNRESOLVED(...)						\
	dc_end_at(t, DC_UNRESOLVED, __FILE__, __LINE__, false, __VA_ARGS__)

/* ---- DAT return codes -------------------------------------------------- */

/* "DAT_INVALID_STATE (subtype DAT_INVALID_STATE_SRQ_IN_USE) [0x80070056]" */
const char *dc_ret_str(DAT_RETURN r, char *buf, size_t len);
bool dc_ret_is(DAT_RETURN r, DAT_RETURN type, int subtype);	/* subtype -1: any */
#define DC_ANY_SUBTYPE (-1)

void dc_assert_ret_at(struct dc_ctx *t, const char *file, int line,
		      const char *expr, DAT_RETURN got, enum dc_state on_miss,
		      int n, const DAT_RETURN *types, int subtype);

/* Type must match; the subtype is not looked at. */
#define DC_ASSERT_RET(ret, type)					\
	dc_assert_ret_at(t, __FILE__, __LINE__, #ret, (ret), DC_FAIL,	\
			 1, (const DAT_RETURN[]){ (type) }, DC_ANY_SUBTYPE)
/* Type and subtype must match. */
#define DC_ASSERT_RET_SUB(ret, type, subtype)				\
	dc_assert_ret_at(t, __FILE__, __LINE__, #ret, (ret), DC_FAIL,	\
			 1, (const DAT_RETURN[]){ (type) }, (int)(subtype))
/* Any one of the listed types (for pages that allow several). */
#define DC_ASSERT_RET_ANY(ret, ...)					\
	dc_assert_ret_at(t, __FILE__, __LINE__, #ret, (ret), DC_FAIL,	\
			 (int)(sizeof((const DAT_RETURN[]){ __VA_ARGS__ }) / \
			       sizeof(DAT_RETURN)),			\
			 (const DAT_RETURN[]){ __VA_ARGS__ }, DC_ANY_SUBTYPE)
#define DC_ASSERT_SUCCESS(ret) DC_ASSERT_RET(ret, DAT_SUCCESS)
/*
 * The call the clause governs must succeed, except that a page which lists
 * DAT_INSUFFICIENT_RESOURCES lets any such call run short: that answer ends
 * the case UNRESOLVED (the clause could not be checked), never FAIL.
 */
void dc_assert_success_unless_short_at(struct dc_ctx *t, const char *file, int line,
				       const char *expr, DAT_RETURN got);
#define DC_ASSERT_SUCCESS_UNLESS_SHORT(ret)				\
	dc_assert_success_unless_short_at(t, __FILE__, __LINE__, #ret, (ret))
/*
 * Type must match; a subtype is optional (the page names none), but one
 * that is given must be this one (another would misinform the Consumer).
 */
#define DC_ASSERT_RET_SUB_OR_NONE(ret, type, subtype)			\
	do {								\
		DAT_RETURN r_ = (ret);					\
		dc_assert_ret_at(t, __FILE__, __LINE__, #ret, r_, DC_FAIL, \
				 1, (const DAT_RETURN[]){ (type) },	\
				 DAT_GET_SUBTYPE(r_) == DAT_NO_SUBTYPE ?	\
				 DC_ANY_SUBTYPE : (int)(subtype));	\
	} while (0)

/* Set-up call that must succeed, else UNRESOLVED. */
/*
 * A set-up call's answer @r, made by a helper (not through DC_SETUP): unless
 * DAT_SUCCESS, the case ends UNRESOLVED with the call named in its cause
 * (phase setup), so the reports can tell which page stopped it.
 */
void dc_setup_call_at(struct dc_ctx *t, const char *file, int line, DAT_RETURN r,
		      const char *call);

/* A crash or hang inside the set-up call is one of the set-up too (phase
 * "setup", the call named), never the clause's. */
#define DC_SETUP(ret)							\
	(dc_setup_begin(#ret),						\
	 dc_setup_at(t, __FILE__, __LINE__, #ret, (ret)))
void dc_setup_begin(const char *expr);
void dc_setup_at(struct dc_ctx *t, const char *file, int line, const char *expr,
		 DAT_RETURN got);
#define DC_SETUP_ASSERT(cond, ...)					\
	do {								\
		if (!(cond))						\
			dc_end_at(t, DC_UNRESOLVED, __FILE__, __LINE__,	\
				  false, __VA_ARGS__);			\
	} while (0)

/*
 * Clean-up after the clause's checks (a close or a free the clause does not
 * govern): a failure does not change the verdict; it is recorded in the
 * result's cleanup_failures (call, return, who answered, file:line), and the
 * reports charge it to the clause of the call that failed. A crash or hang
 * inside the call is phase "cleanup": the clause is not demonstrated, the
 * call's own clause is charged.
 */
void dc_cleanup_begin(const char *expr);
void dc_cleanup_at(struct dc_ctx *t, const char *file, int line,
		   const char *expr, DAT_RETURN got);
#define DC_CLEANUP(ret)							\
	(dc_cleanup_begin(#ret),					\
	 dc_cleanup_at(t, __FILE__, __LINE__, #ret, (ret)))

/*
 * In a case that names several clauses, the checks that follow belong to
 * clause @id (one of the case's .clauses) until the next DC_FOR_CLAUSE. A
 * miss then fails that clause alone: the clauses whose checks came before
 * it held, those after it are not demonstrated (docs/writing-cases.md,
 * "Several clauses in one case"). Without it, a miss fails every clause the
 * case names.
 */
void dc_for_clause_at(struct dc_ctx *t, const char *file, int line, const char *id);
#define DC_FOR_CLAUSE(id) dc_for_clause_at(t, __FILE__, __LINE__, (id))

/* ---- plain assertions ------------------------------------------------- */

#define DC_ASSERT(cond, ...)						\
	do {								\
		if (!(cond))						\
			dc_end_at(t, DC_FAIL, __FILE__, __LINE__, false, \
				  __VA_ARGS__);				\
	} while (0)

void dc_assert_int_at(struct dc_ctx *t, const char *file, int line,
		      const char *ea, long long a, const char *op,
		      const char *eb, long long b);
#define DC_ASSERT_INT_(a, op, b)					\
	do {								\
		long long dc_a_ = (long long)(a), dc_b_ = (long long)(b); \
		if (!(dc_a_ op dc_b_))					\
			dc_assert_int_at(t, __FILE__, __LINE__, #a, dc_a_, \
					 #op, #b, dc_b_);		\
	} while (0)
#define DC_ASSERT_EQ(a, b) DC_ASSERT_INT_(a, ==, b)
#define DC_ASSERT_NE(a, b) DC_ASSERT_INT_(a, !=, b)
#define DC_ASSERT_LT(a, b) DC_ASSERT_INT_(a, <, b)
#define DC_ASSERT_LE(a, b) DC_ASSERT_INT_(a, <=, b)
#define DC_ASSERT_GT(a, b) DC_ASSERT_INT_(a, >, b)
#define DC_ASSERT_GE(a, b) DC_ASSERT_INT_(a, >=, b)
#define DC_ASSERT_PTR_EQ(a, b)						\
	DC_ASSERT((const void *)(a) == (const void *)(b),		\
		  "expected %s == %s, got %p and %p", #a, #b,		\
		  (const void *)(a), (const void *)(b))

/* ---- UNSUPPORTED, the honest ways ----------------------------------------- */

/*
 * When `ret` has type DAT_MODEL_NOT_SUPPORTED, end the case UNSUPPORTED,
 * citing `page`, which must be a man page that lists that code among its
 * return values (the harness knows which ones do; citing another page is a
 * case bug and ends the case UNRESOLVED).  Any other `ret` returns.
 */
void dc_allow_model_not_supported_at(struct dc_ctx *t, const char *file,
				     int line, const char *expr,
				     DAT_RETURN ret, const char *page,
				     const char *why);
#define DC_ALLOW_MODEL_NOT_SUPPORTED(ret, page, why)			\
	dc_allow_model_not_supported_at(t, __FILE__, __LINE__, #ret,	\
					(ret), (page), (why))

/*
 * A provider-specific test hook, found by symbol name in the loaded
 * provider.  Absent: the case ends UNSUPPORTED, "provider offers no <name>".
 */
void *dc_provider_hook_at(struct dc_ctx *t, const char *file, int line,
			  const char *name);
#define dc_provider_hook(name) dc_provider_hook_at(t, __FILE__, __LINE__, (name))
/* Same lookup, without ending the case: NULL when absent. */
void *dc_provider_hook_find(const char *name);

/*
 * A provider-specific attribute (DAT_PROVIDER_ATTR.provider_specific_attr,
 * by name) the provider publishes for the suite, e.g. the range of
 * connection qualifiers its transport can use.  Absent: the case ends
 * UNSUPPORTED, "provider publishes no <name>".  _find: NULL when absent.
 */
const char *dc_provider_attr_at(struct dc_ctx *t, const char *file, int line,
				const char *name);
#define dc_provider_attr(name) dc_provider_attr_at(t, __FILE__, __LINE__, (name))
const char *dc_provider_attr_find(const struct dc_ctx *t, const char *name);

/*
 * Records what the case is about to end UNSUPPORTED for when it is something
 * of the suite's own (kind "hook": a daplref_test_* symbol; "suite_attr": a
 * datcts.* provider attribute), so the reports count the clause as not
 * demonstrated rather than against the provider.  dc_provider_hook and
 * dc_provider_attr do it themselves.
 */
void dc_cause_needs(struct dc_ctx *t, const char *kind, const char *name);

/*
 * A case whose clause ties a behaviour to a Provider attribute both ways
 * ("accepted if and only if the attribute says so") needs its reported
 * value: when dat_ia_query did not write it, the case ends UNSUPPORTED as
 * "unreported" (not demonstrated, never against the provider for lacking
 * the feature; the unwritten attribute fails dat_ia_query's own clause).
 * Never learned from a call (harness/learn.c): that call is the one the
 * clause judges.
 */
void dc_need_reported_at(struct dc_ctx *t, const char *file, int line, const char *attr);
#define DC_NEED_REPORTED(attr) dc_need_reported_at(t, __FILE__, __LINE__, (attr))

/*
 * A bound of the case's own (how many objects it will create, how long it
 * will wait) stopped it before the state the clause speaks of was reached,
 * e.g. max_eps is larger than the EPs the case will make.  Ends the case
 * UNSUPPORTED saying what was tried; the reports count the clause as not
 * demonstrated ("suite_bound"), never against the provider.
 */
_Noreturn void dc_beyond_suite_bound_at(struct dc_ctx *t, const char *file, int line,
					const char *what, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
#define DC_BEYOND_SUITE_BOUND(what, ...)					\
	dc_beyond_suite_bound_at(t, __FILE__, __LINE__, (what), __VA_ARGS__)

/*
 * A limit the IA reports (an ia_attr field, a queue depth it granted) is
 * below what the case needs before it can check its clause, e.g. 3 IOV
 * segments to see them filled in order.  The provider may legally be that
 * small: the case ends UNSUPPORTED, cause needs kind "attribute" (not
 * demonstrated for a shall clause), never FAIL or UNRESOLVED.
 */
void dc_need_limit_at(struct dc_ctx *t, const char *file, int line,
		      const char *what, long long have, long long need);
#define DC_NEED_LIMIT(what, have, need)					\
	dc_need_limit_at(t, __FILE__, __LINE__, (what), (long long)(have),	\
			 (long long)(need))
/* The same for a dat_ia_query maximum, where 0 or less means none reported. */
void dc_need_reported_limit_at(struct dc_ctx *t, const char *file, int line,
			       const char *what, long long limit, long long need);
#define DC_NEED_REPORTED_LIMIT(what, limit, need)			\
	dc_need_reported_limit_at(t, __FILE__, __LINE__, (what),	\
				  (long long)(limit), (long long)(need))

/* A default of the suite's own, lowered to the IA's maximum where it
 * reports one (more than 0). */
static inline DAT_COUNT dc_within_limit(DAT_COUNT want, DAT_COUNT limit)
{
	return limit > 0 && limit < want ? limit : want;
}

/* A reported limit less `spare` the case keeps for later, at least 1 (0, no
 * limit reported, stays 0): for dc_within_limit. */
static inline DAT_COUNT dc_limit_less(DAT_COUNT limit, DAT_COUNT spare)
{
	return limit <= 0 ? limit : limit > spare ? limit - spare : 1;
}

/* ---- fixtures (set-up; failure = UNRESOLVED) ------------------------------ */

/* Opens the IA under test and queries it; done before the body unless DC_NO_IA. */
void dc_open_ia_at(struct dc_ctx *t, const char *file, int line);
#define dc_open_ia(t) dc_open_ia_at((t), __FILE__, __LINE__)

/* t->ia_attr and t->prov_attr from @ia, an instance of the IA under test
 * that a DC_NO_IA case opened itself (they are zero until then). */
void dc_attrs_of_at(struct dc_ctx *t, const char *file, int line, DAT_IA_HANDLE ia);
#define dc_attrs_of(t, ia) dc_attrs_of_at((t), __FILE__, __LINE__, (ia))

DAT_PZ_HANDLE dc_pz_at(struct dc_ctx *t, const char *file, int line);
#define dc_pz(t) dc_pz_at((t), __FILE__, __LINE__)
/*
 * A PZ for a fixture whose PZ the case did not name (dc_endpoint's, an SRQ
 * link's): a new one, or where the IA has none left (Max PZs,
 * dat_ia_query(3DAT)) the last one this made, said in a note. A case about
 * distinct PZs makes them with dc_pz.
 */
DAT_PZ_HANDLE dc_pz_or_shared_at(struct dc_ctx *t, const char *file, int line);
#define dc_pz_or_shared(t) dc_pz_or_shared_at((t), __FILE__, __LINE__)

DAT_EVD_HANDLE dc_evd_at(struct dc_ctx *t, const char *file, int line,
			 DAT_COUNT qlen, DAT_EVD_FLAGS flags);
#define dc_evd(t, qlen, flags) dc_evd_at((t), __FILE__, __LINE__, (qlen), (flags))

/* Sensible EP attributes for fixtures: RC, small queues, 1 IOV. */
void dc_ep_attr_default(const struct dc_ctx *t, DAT_EP_ATTR *attr);
/* The same with no DTO queues at all (no DTOs, no segments): an EP whose
 * EVDs may all be DAT_HANDLE_NULL without any combination a provider may
 * refuse as invalid (dat_ep_create(3DAT) RETURN VALUES). */
void dc_ep_attr_no_dtos(const struct dc_ctx *t, DAT_EP_ATTR *attr);

DAT_EP_HANDLE dc_ep_at(struct dc_ctx *t, const char *file, int line,
		       DAT_PZ_HANDLE pz, DAT_EVD_HANDLE recv_evd,
		       DAT_EVD_HANDLE req_evd, DAT_EVD_HANDLE conn_evd,
		       DAT_SRQ_HANDLE srq, const DAT_EP_ATTR *attr);
/*
 * attr NULL: the provider's defaults for dat_ep_create; dc_ep_attr_default()
 * for dat_ep_create_with_srq, whose page does not allow NULL.
 */
#define dc_ep(t, pz, recv, req, conn, attr)				\
	dc_ep_at((t), __FILE__, __LINE__, (pz), (recv), (req), (conn),	\
		 DAT_HANDLE_NULL, (attr))
#define dc_ep_with_srq(t, pz, recv, req, conn, srq, attr)		\
	dc_ep_at((t), __FILE__, __LINE__, (pz), (recv), (req), (conn),	\
		 (srq), (attr))

DAT_SRQ_HANDLE dc_srq_at(struct dc_ctx *t, const char *file, int line,
			 DAT_PZ_HANDLE pz, DAT_COUNT max_recv_dtos,
			 DAT_COUNT max_recv_iov, DAT_COUNT low_watermark);
#define dc_srq(t, pz, dtos, iov, lw)					\
	dc_srq_at((t), __FILE__, __LINE__, (pz), (dtos), (iov), (lw))

/* A registered buffer (malloc'd, aligned, zero-filled; freed at exit). */
struct dc_lmr {
	DAT_LMR_HANDLE lmr;
	DAT_LMR_CONTEXT lmr_context;
	DAT_RMR_CONTEXT rmr_context;
	unsigned char *buf;
	DAT_VLEN len;
	DAT_VLEN registered_length;
	DAT_VADDR registered_address;
};
void dc_lmr_at(struct dc_ctx *t, const char *file, int line, DAT_PZ_HANDLE pz,
	       DAT_VLEN len, DAT_MEM_PRIV_FLAGS priv, struct dc_lmr *out);
#define dc_lmr(t, pz, len, priv, out)					\
	dc_lmr_at((t), __FILE__, __LINE__, (pz), (len), (priv), (out))

/*
 * An lmr_context the IA never handed out (derived from @m's, so it differs
 * from it; a clash with another live context is a 2^-32 chance).  Not a
 * freed LMR's context: for those dat_lmr_free(3DAT) asks for a protection
 * violation, while the post pages call an invalid LMR a privileges one.
 */
static inline DAT_LMR_CONTEXT dc_unissued_lmr_context(const struct dc_lmr *m)
{
	return ~m->lmr_context ^ 0x5a5a0000u;
}

/* One side of a connection: the objects a connected EP lives with. */
struct dc_endpoint {
	DAT_PZ_HANDLE pz;
	DAT_EVD_HANDLE recv_evd;	/* DTO completions of receives */
	DAT_EVD_HANDLE req_evd;		/* DTO completions of requests */
	DAT_EVD_HANDLE conn_evd;	/* connection events */
	DAT_EVD_HANDLE cr_evd;		/* connection requests (passive) */
	DAT_PSP_HANDLE psp;		/* passive */
	DAT_EP_HANDLE ep;
	DAT_CONN_QUAL conn_qual;	/* the passive side's qualifier */
};

/*
 * dc_conn_opts.few_evds: streams of an endpoint the case never posts on, and
 * its PSP's CR EVD, take EVDs the case shares among its endpoints, so that a
 * case of several endpoints fits an IA of few EVDs (Max EVDs,
 * dat_ia_query(3DAT), has no floor). An idle stream completes on the case's
 * idle DTO EVD, which the harness checks is still empty when the body returns
 * (an event there ends the case UNRESOLVED as a case bug).
 */
#define DC_IDLE_RECV	0x1u	/* the case posts no Receive on the EP */
#define DC_IDLE_REQUEST	0x2u	/* nor any request (Send, RDMA) */
#define DC_SHARE_CR_EVD	0x4u	/* the PSP reports to the case's one CR EVD */
#define DC_PAIR_ONE_WAY	0x8u	/* dc_pair_up: a only sends, b only receives */

/* Options; a zeroed struct (or NULL) gives the defaults. */
struct dc_conn_opts {
	DAT_PZ_HANDLE pz;		/* use this PZ instead of a new one */
	DAT_SRQ_HANDLE srq;		/* create the EP with this SRQ */
	const DAT_EP_ATTR *attr;	/* default: dc_ep_attr_default */
	DAT_COUNT evd_qlen;		/* default 16 */
	DAT_COUNT private_data_size;	/* sent with connect / accept */
	const void *private_data;
	unsigned int few_evds;		/* DC_IDLE_* | DC_SHARE_CR_EVD | DC_PAIR_ONE_WAY */
};

/* The case's idle DTO EVD and shared CR EVD (above), made on first use. */
DAT_EVD_HANDLE dc_idle_dto_evd_at(struct dc_ctx *t, const char *file, int line);
DAT_EVD_HANDLE dc_shared_cr_evd_at(struct dc_ctx *t, const char *file, int line);
#define dc_idle_dto_evd(t) dc_idle_dto_evd_at((t), __FILE__, __LINE__)
#define dc_shared_cr_evd(t) dc_shared_cr_evd_at((t), __FILE__, __LINE__)

/*
 * Creates the objects of an endpoint, unconnected (zeroes *e first).  The
 * connect helpers below take an endpoint made this way (ep set: used as is,
 * e.g. with receives already posted) or a zeroed one (made for you).
 */
void dc_endpoint_at(struct dc_ctx *t, const char *file, int line,
		    struct dc_endpoint *e, const struct dc_conn_opts *o);
#define dc_endpoint(t, e, o) dc_endpoint_at((t), __FILE__, __LINE__, (e), (o))

/*
 * An endpoint (dc_endpoint, default attributes) created with one field of its
 * DAT_EP_ATTR at @created, then changed to @now by dat_ep_modify with @mask
 * while Unconnected (noted); returns the value the EP reports after the
 * change.  For the cases that show the limit dat_ep_modify set is the one used.
 */
uint64_t dc_endpoint_modified_at(struct dc_ctx *t, const char *file, int line,
				 struct dc_endpoint *e, const char *name, size_t off,
				 size_t size, DAT_EP_PARAM_MASK mask, uint64_t created,
				 uint64_t now);
#define dc_endpoint_modified(t, e, field, mask, created, now)			\
	dc_endpoint_modified_at((t), __FILE__, __LINE__, (e), #field,		\
				offsetof(DAT_EP_ATTR, field),			\
				sizeof(((DAT_EP_ATTR *)0)->field), (mask), (created), (now))

/* Two-node: passive creates a PSP (any qualifier), announces, accepts. */
void dc_connect_passive_at(struct dc_ctx *t, const char *file, int line,
			   struct dc_endpoint *e, const struct dc_conn_opts *o);
#define dc_connect_passive(t, e, o)					\
	dc_connect_passive_at((t), __FILE__, __LINE__, (e), (o))
/* Two-node: active connects to what the passive half announced. */
void dc_connect_active_at(struct dc_ctx *t, const char *file, int line,
			  struct dc_endpoint *e, const struct dc_conn_opts *o);
#define dc_connect_active(t, e, o)					\
	dc_connect_active_at((t), __FILE__, __LINE__, (e), (o))
/* Single node: a connected pair over the IA's own address (a: active, b: passive). */
void dc_connect_local_at(struct dc_ctx *t, const char *file, int line,
			 struct dc_endpoint *a, struct dc_endpoint *b,
			 const struct dc_conn_opts *o);
#define dc_connect_local(t, a, b, o)					\
	dc_connect_local_at((t), __FILE__, __LINE__, (a), (b), (o))

/* ---- posting and events ------------------------------------------------- */

void dc_post_recv_at(struct dc_ctx *t, const char *file, int line,
		     DAT_EP_HANDLE ep, const struct dc_lmr *m, DAT_VLEN off,
		     DAT_VLEN len, uint64_t cookie);
#define dc_post_recv(t, ep, m, off, len, cookie)			\
	dc_post_recv_at((t), __FILE__, __LINE__, (ep), (m), (off), (len), (cookie))
void dc_post_send_at(struct dc_ctx *t, const char *file, int line,
		     DAT_EP_HANDLE ep, const struct dc_lmr *m, DAT_VLEN off,
		     DAT_VLEN len, uint64_t cookie);
#define dc_post_send(t, ep, m, off, len, cookie)			\
	dc_post_send_at((t), __FILE__, __LINE__, (ep), (m), (off), (len), (cookie))
void dc_srq_post_recv_at(struct dc_ctx *t, const char *file, int line,
			 DAT_SRQ_HANDLE srq, const struct dc_lmr *m,
			 DAT_VLEN off, DAT_VLEN len, uint64_t cookie);
#define dc_srq_post_recv(t, srq, m, off, len, cookie)			\
	dc_srq_post_recv_at((t), __FILE__, __LINE__, (srq), (m), (off), (len), (cookie))

/*
 * Waits for the next event on `evd` for at most `timeout_ms` (capped by the
 * case deadline; < 0 means DC_WAIT_MS).  Returns what dat_evd_wait returned
 * (DAT_TIMEOUT_EXPIRED when nothing came); never ends the case.
 */
DAT_RETURN dc_wait_event(struct dc_ctx *t, DAT_EVD_HANDLE evd, long timeout_ms,
			 DAT_EVENT *ev);

void dc_expect_event_at(struct dc_ctx *t, const char *file, int line,
			enum dc_state on_miss, DAT_EVD_HANDLE evd,
			DAT_EVENT_NUMBER num, DAT_EVENT *ev);
/* Set-up: the next event must be `num` (else UNRESOLVED). ev may be NULL. */
#define dc_await_event(t, evd, num, ev)					\
	dc_expect_event_at((t), __FILE__, __LINE__, DC_UNRESOLVED, (evd), (num), (ev))
/* Clause: the next event must be `num` (else FAIL). */
#define DC_ASSERT_EVENT(evd, num, ev)					\
	dc_expect_event_at(t, __FILE__, __LINE__, DC_FAIL, (evd), (num), (ev))
/* Clause: nothing is queued on evd (dat_evd_dequeue says DAT_QUEUE_EMPTY). */
void dc_assert_no_event_at(struct dc_ctx *t, const char *file, int line,
			   DAT_EVD_HANDLE evd);
#define DC_ASSERT_NO_EVENT(evd) dc_assert_no_event_at(t, __FILE__, __LINE__, (evd))
/* Clause: of what is queued on evd (all dequeued), no DTO completion carries
 * `cookie` (a refused post completes nothing; other completions, e.g. of a
 * set-up's own posts, are not the clause's). */
void dc_assert_no_completion_of_at(struct dc_ctx *t, const char *file, int line,
				   DAT_EVD_HANDLE evd, uint64_t cookie);
#define DC_ASSERT_NO_COMPLETION_OF(evd, cookie)				\
	dc_assert_no_completion_of_at(t, __FILE__, __LINE__, (evd), (cookie))

/* Set-up: waits for the DTO completion with `cookie`; returns its data. */
DAT_DTO_COMPLETION_EVENT_DATA dc_await_dto_at(struct dc_ctx *t,
					      const char *file, int line,
					      DAT_EVD_HANDLE evd,
					      uint64_t cookie);
#define dc_await_dto(t, evd, cookie)					\
	dc_await_dto_at((t), __FILE__, __LINE__, (evd), (cookie))

/* Dequeues until empty; returns how many events it took. */
int dc_drain(struct dc_ctx *t, DAT_EVD_HANDLE evd);

const char *dc_event_name(DAT_EVENT_NUMBER n);
const char *dc_dto_status_name(DAT_DTO_COMPLETION_STATUS s);

/* ---- "nothing changed" ---------------------------------------------------- */

enum dc_obj {
	DC_OBJ_SRQ,
	DC_OBJ_EP,
	DC_OBJ_EVD,
	DC_OBJ_LMR,
	DC_OBJ_RMR,
	DC_OBJ_PZ,
	DC_OBJ_PSP,
	DC_OBJ_RSP,
	DC_OBJ_CNO,
};

struct dc_snap {
	enum dc_obj kind;
	DAT_HANDLE h;
	union {
		DAT_SRQ_PARAM srq;
		DAT_EP_PARAM ep;
		DAT_EVD_PARAM evd;
		DAT_LMR_PARAM lmr;
		DAT_RMR_PARAM rmr;
		DAT_PZ_PARAM pz;
		DAT_PSP_PARAM psp;
		DAT_RSP_PARAM rsp;
		DAT_CNO_PARAM cno;
	} u;
};

/* Set-up: queries every field of the object (its *_FIELD_ALL mask). */
void dc_snapshot_at(struct dc_ctx *t, const char *file, int line,
		    enum dc_obj kind, DAT_HANDLE h, struct dc_snap *s);
#define dc_snapshot(t, kind, h, s)					\
	dc_snapshot_at((t), __FILE__, __LINE__, (kind), (h), (s))

/*
 * Clause: queries again and compares field by field; FAIL lists every
 * changed field as "name: before -> after".  `ignore` names fields that may
 * change (blank/comma separated, e.g. "available_dto_count"), or NULL.
 */
void dc_assert_unchanged_at(struct dc_ctx *t, const char *file, int line,
			    const struct dc_snap *s, const char *ignore);
#define DC_ASSERT_UNCHANGED(s)						\
	dc_assert_unchanged_at(t, __FILE__, __LINE__, (s), NULL)
#define DC_ASSERT_UNCHANGED_EXCEPT(s, ignore)				\
	dc_assert_unchanged_at(t, __FILE__, __LINE__, (s), (ignore))

/* ---- two-node relay --------------------------------------------------------- */

/* Passive: tell the active half where to connect (addr NULL: the IA address). */
void dc_announce_at(struct dc_ctx *t, const char *file, int line,
		    const struct sockaddr *addr, DAT_CONN_QUAL conn_qual,
		    const char *data);
#define dc_announce(t, addr, qual)					\
	dc_announce_at((t), __FILE__, __LINE__, (addr), (qual), NULL)
#define dc_announce_data(t, addr, qual, data)				\
	dc_announce_at((t), __FILE__, __LINE__, (addr), (qual), (data))

/* Sends a tagged message to the other half (text, at most 4 KiB). */
void dc_peer_send(struct dc_ctx *t, const char *tag, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/*
 * Waits (deadline-bounded) for the other half's message with `tag`; its
 * text goes to buf (may be NULL).  A peer that finished first, or a
 * deadline, ends the case UNRESOLVED ("by peer" results defer to the
 * peer's verdict when the runner combines the halves).
 */
void dc_peer_wait_at(struct dc_ctx *t, const char *file, int line,
		     const char *tag, char *buf, size_t len);
#define dc_peer_wait(t, tag, buf, len)					\
	dc_peer_wait_at((t), __FILE__, __LINE__, (tag), (buf), (len))

/*
 * Peer faults.  dc_peer_die(): the calling half kills itself with SIGKILL
 * at this point - the way a process, or the host under it, dies: no
 * teardown, no disconnect; the kernel closes its descriptors.  It first
 * tells the supervisor the kill is planned, so the half counts as PASS and
 * not as a CRASH.  dc_peer_wait_gone(): the other half waits (deadline-
 * bounded) until the dying half's process is reaped, i.e. it is gone for
 * good; a half that ended otherwise ends this one UNRESOLVED "by peer".
 */
_Noreturn void dc_peer_die_at(struct dc_ctx *t, const char *file, int line);
#define dc_peer_die(t) dc_peer_die_at((t), __FILE__, __LINE__)
void dc_peer_wait_gone_at(struct dc_ctx *t, const char *file, int line);
#define dc_peer_wait_gone(t) dc_peer_wait_gone_at((t), __FILE__, __LINE__)

/* Entry point used by the case binaries (libdatcts provides main()). */
int dc_main(int argc, char **argv);

/* ---- the rest of the fixture layer, one header per purpose ------------------ */

#include "dc_abi.h"		/* calls that differ between DAT 1.2 and 2.0 */
#include "dc_objects.h"		/* more objects, parameters, invalid handles */
#include "dc_events.h"		/* events by content, waiters, watches */
#include "dc_conn.h"		/* qualifiers, service points, pairs */
#include "dc_mem.h"		/* patterns, buffers, synchronous DTOs, binds */
#include "dc_limits.h"		/* running out of descriptors and locked memory */
#include "dc_registry.h"	/* registry fixtures: own dat.conf, logging Provider */
#include "dc_threads.h"		/* worker threads, the gate, crowds of creates */

#ifdef __cplusplus
}
#endif

#endif /* DATCTS_H */
