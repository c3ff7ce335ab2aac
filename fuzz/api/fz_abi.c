// SPDX-License-Identifier: MIT
/*
 * fz_abi.c - what the API fuzzer does differently between DAT 1.2 and
 * DAT 2.0.  The calls whose parameter lists differ go through the
 * harness's dc_abi.h; what is left is the registry in front of the
 * provider (dat12-facts.md 3.3):
 *
 *   libdat (1.2, ours)   refuses NULL and misaligned handles itself and
 *                        knows its IA handles, so any value reaches the
 *                        provider or gets DAT_INVALID_HANDLE.
 *   libdat2 (2.0, OFA)   tests non-IA handles for NULL only and reads the
 *                        first word of anything else; its IA handles are
 *                        small integers.  A misaligned handle, or an IA
 *                        handle where another kind is due, crashes libdat2
 *                        before a provider is reached (docs/reference-provider.md,
 *                        "OFA's own test programs"), so the fuzzer does not
 *                        pass them there.  Its dat_strerror (no provider
 *                        involved) writes through NULL message pointers:
 *                        found by this fuzzer, docs/fuzzing.md "Findings".
 */
#include "fz.h"

#ifdef DATCTS_DAT2
bool fz_registry_admits(enum fz_hclass c)
{
	(void)c;
	return false;
}

const char *fz_abi_name(void)
{
	return "DAT 2.0 (libdat2)";
}
#else
bool fz_registry_admits(enum fz_hclass c)
{
	(void)c;
	return true;
}

const char *fz_abi_name(void)
{
	return "DAT 1.2 (libdat)";
}
#endif
