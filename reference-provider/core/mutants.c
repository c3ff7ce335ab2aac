// SPDX-License-Identifier: MIT
/*
 * mutants.c - run-time switches that break one rule of the man pages on
 * purpose, so the suite can prove that the case checking that rule fails.
 *
 * Usage: DATREF_MUTANT=<id>[,<id>...] in the environment of the process
 * that loads libdaplref.so.  The variable is read once (first call of
 * ref_mutant()); an id that is not in the table below is reported once
 * on stderr and otherwise ignored.  Unset, ref_mutant() is a pthread_once
 * check and one pointer compare.
 *
 * Table format, one entry per mutant:
 *     { "<id>", "<clause id>[ <clause id>...]", "<what it breaks>" },
 * optionally followed by
 *     .quick = true       one of the CI subset (datcts mutate --quick);
 *     .survives = "..."   why no case can kill it (an equivalent mutant, a
 *                         rule no case can provoke); reported with it.
 * <id>: lower-case words joined by '-', naming the object and the broken
 *       behaviour (e.g. "evd-resize-drops-events");
 * clause ids: the stable ids of clauses/<page>.toml that the mutant must
 *       make FAIL (space separated);
 * the code tests it where the rule is enforced:
 *     if (ref_mutant("evd-resize-drops-events")) ...
 * A mutant breaks that one rule and nothing else: it must not stop the
 * provider from working for the cases of other clauses.
 * Both halves of the provider (core and conn) add their mutants here.
 *
 * The table is this file's only copy: `datcts mutate` reads it from the
 * built library through daplref_test_mutant() (printed as JSON by
 * <build>/bin/datref-mutants), and tests/mutants checks that every id
 * tested in the sources is in the table and the other way round.
 * How to add one, and the kill matrix: docs/mutants.md.
 */
#include "ref.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct ref_mutant_def {
	const char *id;
	const char *clauses;
	const char *what;
	bool quick;		/* in the CI subset */
	const char *survives;	/* known reason no case kills it, or NULL */
};

/* entries name only the fields they need (positional + designated) */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
static const struct ref_mutant_def ref_mutants[] = {
	/* conn: endpoints, SRQ, data transfer */
	{ "ep-free-keeps-handle", "dat_ep_free.handle_unusable_after_free",
	  "dat_ep_free succeeds but the EP stays usable" },
	{ "fence-ignored", "dat_ep_post_send.barrier_fence",
	  "a fenced request starts before earlier RDMA Reads completed" },
	{ "recv-length-unchecked", "dat_ep_post_recv.message_too_long",
	  "an arriving message longer than the receive buffer is accepted" },
	{ "recv-query-span-below-count",
	  "dat_ep_recv_query.span_not_below_count",
	  "dat_ep_recv_query reports a span below the buffer count" },
	{ "send-length-unchecked", "dat_ep_post_send.exceeds_max_message_size",
	  "a Send above max_message_size is accepted" },
	{ "send-suppress-ignored", "dat_ep_post_send.suppress_success",
	  "successful suppressed requests still generate completions" },
	{ "srq-lw-never-fires", "dat_srq_set_lw.event_when_count_drops_below",
	  "the SRQ low watermark event is never generated" },
	{ "srq-outstanding-ignores-unreaped",
	  "dat_srq_query.outstanding_count dat_srq_resize.below_outstanding_unreaped",
	  "completed but unreaped SRQ receives are not counted outstanding" },
	{ "srq-resize-loses", "dat_srq_resize.below_outstanding_on_srq",
	  "dat_srq_resize shrinks below the outstanding buffers" },
	/* core: filled by the mutant issue */
	{ NULL, NULL, NULL },	/* terminator */
};
#pragma GCC diagnostic pop

#define REF_MAX_ACTIVE 16

static pthread_once_t mutant_once = PTHREAD_ONCE_INIT;
static const char *active[REF_MAX_ACTIVE];
static size_t nactive;
static const char **active_p;	/* NULL while no mutant is set */
static char *env_copy;

static const struct ref_mutant_def *find_def(const char *id)
{
	const struct ref_mutant_def *d;

	for (d = ref_mutants; d->id; d++)
		if (!strcmp(d->id, id))
			return d;
	return NULL;
}

static void mutant_init(void)
{
	const char *env = getenv("DATREF_MUTANT");
	char *save = NULL, *tok;

	if (!env || !*env)
		return;
	env_copy = strdup(env);
	if (!env_copy)
		return;
	for (tok = strtok_r(env_copy, ", \t", &save); tok;
	     tok = strtok_r(NULL, ", \t", &save)) {
		if (!find_def(tok))
			fprintf(stderr,
				"libdaplref: DATREF_MUTANT: unknown mutant \"%s\" ignored\n",
				tok);
		else if (nactive < REF_MAX_ACTIVE)
			active[nactive++] = tok;
	}
	if (nactive)
		active_p = active;
}

/*
 * Exported for datref-mutants (and any tool): entry @i of the table.
 * Returns 0 and the fields, or -1 past the end.  @survives is NULL for a
 * mutant a case is expected to kill.
 */
__attribute__((visibility("default")))
int daplref_test_mutant(int i, const char **id, const char **clauses,
			const char **what, int *quick, const char **survives)
{
	const struct ref_mutant_def *d;

	if (i < 0 || (size_t)i >= sizeof(ref_mutants) / sizeof(ref_mutants[0]))
		return -1;
	d = &ref_mutants[i];
	if (!d->id)
		return -1;
	if (id)
		*id = d->id;
	if (clauses)
		*clauses = d->clauses;
	if (what)
		*what = d->what;
	if (quick)
		*quick = d->quick;
	if (survives)
		*survives = d->survives;
	return 0;
}

bool ref_mutant(const char *id)
{
	size_t i;

	pthread_once(&mutant_once, mutant_init);
	if (!active_p)
		return false;
	for (i = 0; i < nactive; i++)
		if (!strcmp(active[i], id))
			return true;
	return false;
}

/* For dat_ia_query's provider-specific attribute "datcts.mutant". */
const char *ref_mutant_active(void)
{
	const char *env;

	pthread_once(&mutant_once, mutant_init);
	if (!active_p)
		return "none";
	env = getenv("DATREF_MUTANT");
	return env ? env : "none";
}
