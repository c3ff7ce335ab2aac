// SPDX-License-Identifier: MIT
/* The case binaries' main(): the case files only register cases. */
#include "datcts.h"

int main(int argc, char **argv)
{
	return dc_main(argc, argv);
}

/*
 * Sanitizer builds (-DDATCTS_SANITIZE=ON): let a crash stay the signal it
 * is (CRASH SIGSEGV, not "exit 1"), and make sanitizer reports abort, so a
 * finding is a CRASH SIGABRT with the report in the case's output.  Leaks
 * are checked by dc_main (fatal) and, in a case process, after the verdict
 * (reported in the output, verdict kept).  The environment (ASAN_OPTIONS,
 * UBSAN_OPTIONS) still overrides these.
 */
const char *__asan_default_options(void);
const char *__ubsan_default_options(void);

const char *__asan_default_options(void)
{
	return "abort_on_error=1:handle_segv=0:handle_sigbus=0:handle_sigfpe=0:handle_sigill=0:handle_abort=0:leak_check_at_exit=0";
}

const char *__ubsan_default_options(void)
{
	return "abort_on_error=1:print_stacktrace=1";
}
