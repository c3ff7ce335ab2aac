/*
 * dat-providers: show what the DAT registry sees.
 *
 *   dat-providers             list the dat.conf entries libdat loads
 *   dat-providers --open IA   open IA, print its attributes, close it
 *
 * The active dat.conf is $DAT_OVERRIDE, else the built-in default.
 */
#include <dat/udat.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void print_code(const char *what, DAT_RETURN st)
{
	const char *major = "?", *minor = "?";

	if (dat_strerror(st, &major, &minor) != DAT_SUCCESS)
		major = minor = "unknown code";
	fprintf(stderr, "dat-providers: %s: 0x%08x %s / %s\n", what,
		(unsigned int)st, major, minor);
}

static const char *yes_no(DAT_BOOLEAN b)
{
	return b == DAT_TRUE ? "yes" : "no";
}

static int list(void)
{
	DAT_PROVIDER_INFO *infos, **ptrs;
	DAT_COUNT n = 0, i;
	DAT_RETURN st;

	/* Asking for 0 entries reports how many there are. */
	st = dat_registry_list_providers(0, &n, NULL);
	if (DAT_GET_TYPE(st) != DAT_INVALID_PARAMETER) {
		print_code("dat_registry_list_providers", st);
		return 1;
	}
	if (n == 0) {
		printf("no providers registered\n");
		return 0;
	}
	infos = calloc((size_t)n, sizeof(*infos));
	ptrs = calloc((size_t)n, sizeof(*ptrs));
	if (!infos || !ptrs) {
		fprintf(stderr, "dat-providers: out of memory\n");
		free(infos);
		free(ptrs);
		return 1;
	}
	for (i = 0; i < n; i++)
		ptrs[i] = &infos[i];
	st = dat_registry_list_providers(n, &n, ptrs);
	if (st != DAT_SUCCESS) {
		print_code("dat_registry_list_providers", st);
		free(infos);
		free(ptrs);
		return 1;
	}
	printf("%-24s %-8s %s\n", "IA name", "version", "thread safety");
	for (i = 0; i < n; i++)
		printf("%-24s u%u.%u     %s\n", infos[i].ia_name,
		       infos[i].dapl_version_major, infos[i].dapl_version_minor,
		       infos[i].is_thread_safe == DAT_TRUE ? "threadsafe" :
							     "nonthreadsafe");
	free(infos);
	free(ptrs);
	return 0;
}

static int open_ia(DAT_NAME_PTR name)
{
	DAT_EVD_HANDLE async_evd = DAT_HANDLE_NULL;
	DAT_IA_HANDLE ia = DAT_HANDLE_NULL;
	static DAT_IA_ATTR ia_attr;
	static DAT_PROVIDER_ATTR pa;
	DAT_RETURN st;
	DAT_COUNT i;
	int rc = 0;

	st = dat_ia_open(name, 8, &async_evd, &ia);
	if (st != DAT_SUCCESS) {
		print_code("dat_ia_open", st);
		return 1;
	}
	st = dat_ia_query(ia, &async_evd, DAT_IA_FIELD_ALL, &ia_attr,
			  DAT_PROVIDER_FIELD_ALL, &pa);
	if (st != DAT_SUCCESS) {
		print_code("dat_ia_query", st);
		rc = 1;
	} else {
		printf("IA %s\n", name);
		printf("  adapter             %.*s\n", DAT_NAME_MAX_LENGTH,
		       ia_attr.adapter_name);
		printf("  vendor              %.*s\n", DAT_NAME_MAX_LENGTH,
		       ia_attr.vendor_name);
		printf("  provider            %.*s %u.%u\n", DAT_NAME_MAX_LENGTH,
		       pa.provider_name, pa.provider_version_major,
		       pa.provider_version_minor);
		printf("  DAPL version        %u.%u\n", pa.dapl_version_major,
		       pa.dapl_version_minor);
		printf("  thread safe         %s\n", yes_no(pa.is_thread_safe));
		printf("  max EPs / EVDs      %d / %d\n", ia_attr.max_eps,
		       ia_attr.max_evds);
		printf("  max EVD qlen        %d\n", ia_attr.max_evd_qlen);
		printf("  max message size    %llu\n",
		       (unsigned long long)ia_attr.max_message_size);
		printf("  max RDMA size       %llu\n",
		       (unsigned long long)ia_attr.max_rdma_size);
		printf("  max private data    %d\n", pa.max_private_data_size);
		printf("  SRQ supported       %s\n", yes_no(pa.srq_supported));
		printf("  multipath           %s\n", yes_no(pa.supports_multipath));
		printf("  LMR sync required   %s\n", yes_no(pa.lmr_sync_req));
		printf("  optimal alignment   %u\n", pa.optimal_buffer_alignment);
		for (i = 0; pa.provider_specific_attr &&
			    i < pa.num_provider_specific_attr; i++)
			printf("  %-19s %s\n",
			       pa.provider_specific_attr[i].name ?
			       pa.provider_specific_attr[i].name : "(null)",
			       pa.provider_specific_attr[i].value ?
			       pa.provider_specific_attr[i].value : "(null)");
	}
	st = dat_ia_close(ia, DAT_CLOSE_ABRUPT_FLAG);
	if (st != DAT_SUCCESS) {
		print_code("dat_ia_close", st);
		rc = 1;
	}
	return rc;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: dat-providers [--open IA_NAME]\n"
		   "Lists the DAT providers of the active dat.conf ($DAT_OVERRIDE,\n"
		   "else the system one); --open opens one IA, prints its\n"
		   "attributes and closes it.\n");
}

int main(int argc, char **argv)
{
	if (argc == 1)
		return list();
	if (argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		usage(stdout);
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "--open"))
		return open_ia(argv[2]);
	usage(stderr);
	return 2;
}
