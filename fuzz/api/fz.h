/* SPDX-License-Identifier: MIT */
/*
 * fz.h - the API-sequence fuzzer's shared parts: the input reader, the
 * handle pool, the log that becomes a C reproducer, and the checks made
 * on every call (docs/fuzzing.md).
 */
#ifndef FUZZ_API_FZ_H
#define FUZZ_API_FZ_H

#include "datcts.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- input ------------------------------------------------------------------ */

struct fz_in {
	const uint8_t *p;
	size_t n;
};

uint8_t fz_u8(struct fz_in *in);
uint32_t fz_u32(struct fz_in *in);
uint64_t fz_u64(struct fz_in *in);
/* A value below n (n > 0). */
unsigned int fz_below(struct fz_in *in, unsigned int n);
/* A count or length: mostly small and near the edges, sometimes anything. */
int32_t fz_count(struct fz_in *in);
/* A timeout in microseconds, clamped so no call waits long (FZ_MAX_WAIT_US). */
DAT_TIMEOUT fz_timeout(struct fz_in *in);

#define FZ_MAX_WAIT_US	20000u

/*
 * NULL for a pointer argument: only where @page lists DAT_INVALID_PARAMETER.
 * A page that lists no such return defines no call with a NULL pointer, so
 * no return type could be right (docs/fuzzing.md, "What is checked").
 * fz_null: one pointer (true now and then); fz_nulls: a mask of several.
 */
bool fz_null(struct fz_in *in, const char *page);
unsigned int fz_nulls(struct fz_in *in, const char *page);
bool fz_page_lists(const char *page, DAT_RETURN type);

/* ---- pool --------------------------------------------------------------------- */

enum fz_kind {
	FZ_PZ, FZ_EVD, FZ_CNO, FZ_EP, FZ_LMR, FZ_RMR, FZ_PSP, FZ_RSP, FZ_SRQ, FZ_CR,
	FZ_KINDS
};

#define FZ_SLOTS	4
#define FZ_BUF_MAX	65536

enum fz_state { FZ_EMPTY, FZ_LIVE, FZ_FREED };

struct fz_slot {
	enum fz_state state;
	DAT_HANDLE h;
	/* LMR: the Consumer memory it covers; PSP: its qualifier */
	uint8_t *buf;
	size_t len;
	DAT_LMR_CONTEXT lmr_ctx;
	DAT_RMR_CONTEXT rmr_ctx;
	DAT_CONN_QUAL qual;
};

/* A handle argument as passed, with how the reproducer spells it. */
struct fz_arg {
	DAT_HANDLE h;
	char text[48];
};

extern struct fz_slot fz_pool[FZ_KINDS][FZ_SLOTS];
extern DAT_IA_HANDLE fz_ia;

/* Draws a handle for an argument that wants @want (see fz_api.c). */
struct fz_arg fz_handle(struct fz_in *in, enum fz_kind want);
struct fz_arg fz_ia_arg(struct fz_in *in);
/* A slot for a create's result; a slot's name ("ep2"). */
int fz_slot(struct fz_in *in);
const char *fz_slot_name(enum fz_kind kind, int i);
/* Records a created object in slot i; marks one freed. */
void fz_created(enum fz_kind kind, int i, DAT_HANDLE h);
void fz_freed(DAT_HANDLE h);

/* ---- the reproducer log and the checks -------------------------------------- */

/* Appends one line to the C reproducer of this input. */
void fz_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* One handle argument of a call, for the invalid-handle rule. */
struct fz_harg {
	int pos;			/* 1-based argument position */
	enum dc_handle_kind kind;
};

/*
 * A call of @page's function, spelled in C by the format (the reproducer's
 * line): the watchdog gives it its timeout plus a slack, then the result
 * is checked.  Its type must be one the page lists (the catalog's table),
 * and an invalid-handle return must name one of the handle arguments as
 * docs/clauses.md allows.  A violation is a finding: the reproducer is
 * printed and the process aborts.
 */
void fz_call_begin(const char *page, DAT_TIMEOUT timeout_us, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void fz_call_end(const char *page, DAT_RETURN r, const struct fz_harg *hargs, int nharg);

#define FZ_H(...) (const struct fz_harg[]){ __VA_ARGS__ },		\
	(int)(sizeof((const struct fz_harg[]){ __VA_ARGS__ }) / sizeof(struct fz_harg))
#define FZ_H0 NULL, 0
/* An array built at run time, of n entries. */
#define FZ_HV(v, n) (v), (n)

/* r = expr, checked; hargs is FZ_H({pos, DC_HANDLE_x}, ...) or FZ_H0. */
#define FZ_CALL(r, page, timeout, expr, hargs, ...)			\
	do {								\
		fz_call_begin(page, timeout, __VA_ARGS__);		\
		(r) = (expr);						\
		fz_call_end(page, r, hargs);				\
	} while (0)

void fz_finding(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

/* ---- the ABI's registry (fz_abi.h has the one difference) -------------------- */

/*
 * Whether the registry of this build hands a handle of this class to the
 * provider rather than dereferencing it itself (a registry crash is not the
 * provider's finding).
 */
enum fz_hclass {
	FZ_H_MISALIGNED,		/* a handle that is not pointer-aligned */
	FZ_H_IA_AS_OTHER,		/* the IA handle where another kind is due */
	FZ_H_STRERROR_NULL,		/* dat_strerror with a NULL message pointer */
};
bool fz_registry_admits(enum fz_hclass c);
const char *fz_abi_name(void);

#endif /* FUZZ_API_FZ_H */
