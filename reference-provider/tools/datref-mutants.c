// SPDX-License-Identifier: MIT
/*
 * datref-mutants - prints the mutant table of the reference provider
 * (reference-provider/core/mutants.c) as JSON, read from the built
 * library through its exported daplref_test_mutant() accessor, so the
 * runner (`datcts mutate`) never parses C.
 *
 *   datref-mutants [LIBRARY]
 *   datref-mutants --registry [LIBDAT]
 *
 * LIBRARY defaults to ../lib/libdaplref.so next to this program; with
 * --registry the table is libdat's (libdat/dat_mutants.c, accessor
 * datlib_test_mutant), LIBDAT defaulting to ../lib/libdat.so.1.  Output
 * (docs/mutants.md):
 *   {"schema": "datref-mutants/1", "library": "...",
 *    "subject": "provider"|"registry", "variable": "DATREF_MUTANT"|"DATLIB_MUTANT",
 *    "mutants": [{"id", "clauses": [...], "what", "quick", "survives",
 *                 "variant"}]}
 * ("variant": the conforming variant a mutant's cases run under, from
 * daplref_test_mutant_variant() where the library has it, else null).
 * Exit 0; 1 when the library or the accessor cannot be found, or the
 * table is malformed (empty id, no clause, duplicate id).
 */
#include <dlfcn.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef int (*mutant_fn)(int, const char **, const char **, const char **,
			 int *, const char **);
typedef int (*variant_fn)(int, const char **);

static void json_str(const char *s)
{
	putchar('"');
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c < 0x20)
			printf("\\u%04x", c);
		else
			putchar(c);
	}
	putchar('"');
}

static void json_clauses(const char *s)
{
	const char *p = s;
	int first = 1;

	putchar('[');
	while (p && *p) {
		size_t n;

		p += strspn(p, " \t");
		n = strcspn(p, " \t");
		if (n) {
			printf("%s\"%.*s\"", first ? "" : ", ", (int)n, p);
			first = 0;
		}
		p += n;
	}
	putchar(']');
}

int main(int argc, char **argv)
{
	char def[PATH_MAX], exe[PATH_MAX];
	int registry = argc > 1 && !strcmp(argv[1], "--registry");
	const char *lib = argc > 1 + registry ? argv[1 + registry] : NULL;
	const char *sym = registry ? "datlib_test_mutant" : "daplref_test_mutant";
	const char *id, *clauses, *what, *survives, *variant, *ids[4096];
	mutant_fn fn;
	variant_fn vfn;
	void *h;
	int i, j, quick, bad = 0;
	ssize_t n;

	if (argc > 2 + registry || (lib && (!strcmp(lib, "-h") || !strcmp(lib, "--help")))) {
		fprintf(stderr, "usage: datref-mutants [LIBRARY] | --registry [LIBDAT]\n");
		return 2;
	}
	if (!lib) {
		n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
		if (n < 0) {
			perror("datref-mutants: /proc/self/exe");
			return 1;
		}
		exe[n] = '\0';
		snprintf(def, sizeof(def), "%s/../lib/%s", dirname(exe),
			 registry ? "libdat.so.1" : "libdaplref.so");
		lib = def;
	}
	h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		fprintf(stderr, "datref-mutants: %s\n", dlerror());
		return 1;
	}
	fn = (mutant_fn)(void (*)(void))dlsym(h, sym);
	if (!fn) {
		fprintf(stderr, "datref-mutants: %s has no %s\n", lib, sym);
		return 1;
	}
	vfn = registry ? NULL :
	      (variant_fn)(void (*)(void))dlsym(h, "daplref_test_mutant_variant");
	printf("{\"schema\": \"datref-mutants/1\", \"library\": ");
	json_str(lib);
	printf(", \"subject\": \"%s\", \"variable\": \"%s\"",
	       registry ? "registry" : "provider",
	       registry ? "DATLIB_MUTANT" : "DATREF_MUTANT");
	printf(", \"mutants\": [");
	for (i = 0; fn(i, &id, &clauses, &what, &quick, &survives) == 0; i++) {
		if (!id || !*id || !clauses || !clauses[strspn(clauses, " \t")]) {
			fprintf(stderr, "datref-mutants: entry %d: empty id or no clause\n", i);
			bad = 1;
		}
		for (j = 0; j < i && j < 4096 && id; j++)
			if (ids[j] && !strcmp(ids[j], id)) {
				fprintf(stderr, "datref-mutants: duplicate id %s\n", id);
				bad = 1;
			}
		if (i < 4096)
			ids[i] = id;
		printf("%s\n {\"id\": ", i ? "," : "");
		json_str(id);
		printf(", \"clauses\": ");
		json_clauses(clauses);
		printf(", \"what\": ");
		json_str(what);
		printf(", \"quick\": %s, \"survives\": ", quick ? "true" : "false");
		if (survives)
			json_str(survives);
		else
			printf("null");
		printf(", \"variant\": ");
		if (vfn && vfn(i, &variant) == 0 && variant)
			json_str(variant);
		else
			printf("null");
		putchar('}');
	}
	printf("\n]}\n");
	return bad;
}
