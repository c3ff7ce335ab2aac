// SPDX-License-Identifier: MIT
/*
 * fz_dat_conf.c - libFuzzer target for libdat's dat.conf parser
 * (libdat/dat_conf.c, compiled in).  A dat.conf is bytes from outside:
 * any file must parse without a crash, a leak or an out-of-bounds access,
 * and what the parser keeps must be well-formed: every field a string,
 * the IA name within DAT_NAME_MAX_LENGTH, a uDAPL default entry only,
 * lines in file order and within the file, the count equal to the list.
 * Seeds: fuzz/conf/corpus/.
 */
#include "dat_internal.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static int memfd = -1;
static char path[64];

static void fail(const char *what)
{
	dprintf(2, "==== datcts fuzz: FINDING: dat.conf parser: %s ====\n", what);
	abort();
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	memfd = memfd_create("dat.conf", MFD_CLOEXEC);
	if (memfd < 0) {
		perror("memfd_create");
		exit(2);
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", memfd);
	/*
	 * The parser names each skipped line on stderr; thousands a second are
	 * noise here.  Only the stdio stream goes: libFuzzer keeps the stream
	 * it started with and the sanitizers write to descriptor 2.
	 */
	if (!getenv("DATCTS_FUZZ_ECHO")) {
		FILE *null = fopen("/dev/null", "w");

		if (null)
			stderr = null;
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct dat_conf conf;
	const struct dat_sr_entry *e;
	int n = 0, prev_line = 0, lines = 1;

	if (ftruncate(memfd, 0) || pwrite(memfd, data, size, 0) != (ssize_t)size)
		return 0;
	for (size_t i = 0; i < size; i++)
		lines += data[i] == '\n';
	dat_conf_parse(path, "fuzz", false, &conf);
	if (!conf.readable)
		fail("a readable file reported unreadable");
	for (e = conf.entries; e; e = e->next, n++) {
		if (!e->lib_path || !e->provider_version || !e->ia_params ||
		    !e->platform_params || !e->conf_path)
			fail("an entry with a missing field");
		if (strnlen(e->info.ia_name, DAT_NAME_MAX_LENGTH) >= DAT_NAME_MAX_LENGTH)
			fail("an IA name of DAT_NAME_MAX_LENGTH bytes or more");
		if (e->line <= prev_line || e->line > lines)
			fail("entry line numbers out of file order");
		prev_line = e->line;
	}
	if (n != conf.count)
		fail("count differs from the entry list");
	dat_conf_free(&conf);
	return 0;
}
