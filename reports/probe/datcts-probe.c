// SPDX-License-Identifier: MIT
/*
 * datcts-probe: the provider's fingerprint for the run metadata.
 *
 *   datcts-probe [--ia NAME]        (default: $DATCTS_IA)
 *
 * Opens the IA through libdat (dat.conf from DAT_OVERRIDE, as the cases do),
 * calls dat_ia_query(DAT_IA_FIELD_ALL, DAT_PROVIDER_FIELD_ALL) and prints one
 * JSON object: {"ia": NAME, "provider": {...}, "ia_attr": {...}}.  Masks and
 * enums are printed as numbers (hex strings for bit masks), booleans as
 * true/false, named attributes as {name: value}.  On failure it prints
 * {"ia": NAME, "error": "..."} and exits 1; a usage error exits 2.
 * Documented in docs/results-format.md ("Run metadata").
 */
#ifdef DATCTS_DAT2
#include <dat2/udat.h>	/* datcts-probe2: the DAT 2.0 build */
#else
#include <dat/udat.h>
#endif

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void json_str(const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");

	putchar('"');
	for (; *p; p++) {
		switch (*p) {
		case '"': fputs("\\\"", stdout); break;
		case '\\': fputs("\\\\", stdout); break;
		case '\n': fputs("\\n", stdout); break;
		case '\r': fputs("\\r", stdout); break;
		case '\t': fputs("\\t", stdout); break;
		default:
			if (*p < 0x20)
				printf("\\u%04x", *p);
			else
				putchar(*p);
		}
	}
	putchar('"');
}

/* A fixed-size char array that may lack its terminator. */
static void json_name(const char *s, size_t max)
{
	char buf[DAT_NAME_MAX_LENGTH + 1];
	size_t n = strnlen(s, max);

	memcpy(buf, s, n);
	buf[n] = '\0';
	json_str(buf);
}

static int first;

static void key(const char *k)
{
	if (!first)
		putchar(',');
	first = 0;
	printf("\n  ");
	json_str(k);
	putchar(':');
}

static void kv_int(const char *k, long long v) { key(k); printf("%lld", v); }
static void kv_u64(const char *k, unsigned long long v) { key(k); printf("%llu", v); }
static void kv_hex(const char *k, unsigned long long v) { key(k); printf("\"0x%llx\"", v); }

static void kv_bool(const char *k, DAT_BOOLEAN v)
{
	key(k);
	if (v == DAT_TRUE || v == DAT_FALSE)
		fputs(v == DAT_TRUE ? "true" : "false", stdout);
	else
		printf("%d", (int)v);	/* neither: show what the provider said */
}

static void kv_named(const char *k, DAT_COUNT n, const DAT_NAMED_ATTR *a)
{
	DAT_COUNT i;

	key(k);
	putchar('{');
	for (i = 0; a && i < n && i < 1024; i++) {
		if (i)
			putchar(',');
		json_str(a[i].name);
		putchar(':');
		json_str(a[i].value);
	}
	putchar('}');
}

static void kv_addr(const char *k, const DAT_SOCK_ADDR *sa)
{
	char buf[INET6_ADDRSTRLEN] = "";

	key(k);
	if (!sa) {
		fputs("null", stdout);
		return;
	}
	if (sa->sa_family == AF_INET)
		inet_ntop(AF_INET, &((const struct sockaddr_in *)sa)->sin_addr, buf, sizeof(buf));
	else if (sa->sa_family == AF_INET6)
		inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)sa)->sin6_addr, buf, sizeof(buf));
	else
		snprintf(buf, sizeof(buf), "family %d", sa->sa_family);
	json_str(buf);
}

static const char *ret_name(DAT_RETURN r, char *buf, size_t n)
{
	const char *major = NULL, *minor = NULL;

	if (dat_strerror(r, &major, &minor) == DAT_SUCCESS && major)
		snprintf(buf, n, "%s%s%s [0x%08x]", major, minor && *minor ? " / " : "",
			 minor ? minor : "", (unsigned)r);
	else
		snprintf(buf, n, "0x%08x", (unsigned)r);
	return buf;
}

static int fail(const char *ia, const char *what, DAT_RETURN r)
{
	char b[256], msg[512];

	snprintf(msg, sizeof(msg), "%s returned %s", what, ret_name(r, b, sizeof(b)));
	fputs("{\"ia\":", stdout);
	json_str(ia);
	fputs(",\"error\":", stdout);
	json_str(msg);
	fputs("}\n", stdout);
	return 1;
}

int main(int argc, char **argv)
{
	const char *ia = getenv("DATCTS_IA");
	DAT_IA_HANDLE h = DAT_HANDLE_NULL;
	DAT_EVD_HANDLE async = DAT_HANDLE_NULL, evd = DAT_HANDLE_NULL;
	static DAT_IA_ATTR a;
	static DAT_PROVIDER_ATTR p;
	DAT_RETURN r;
	int i, j;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--ia") && i + 1 < argc) {
			ia = argv[++i];
		} else {
			fprintf(stderr, "usage: datcts-probe [--ia NAME]   (default $DATCTS_IA)\n");
			return 2;
		}
	}
	if (!ia || !*ia) {
		fprintf(stderr, "datcts-probe: no IA: pass --ia NAME or set DATCTS_IA\n");
		return 2;
	}
	r = dat_ia_open((DAT_NAME_PTR)ia, 8, &async, &h);
	if (r != DAT_SUCCESS)
		return fail(ia, "dat_ia_open", r);
	r = dat_ia_query(h, &evd, DAT_IA_FIELD_ALL, &a, DAT_PROVIDER_FIELD_ALL, &p);
	if (r != DAT_SUCCESS) {
		dat_ia_close(h, DAT_CLOSE_ABRUPT_FLAG);
		return fail(ia, "dat_ia_query", r);
	}

	fputs("{\"ia\":", stdout);
	json_str(ia);
	fputs(",\n\"provider\":{", stdout);
	first = 1;
	key("provider_name"); json_name(p.provider_name, sizeof(p.provider_name));
	kv_int("provider_version_major", p.provider_version_major);
	kv_int("provider_version_minor", p.provider_version_minor);
	kv_int("dapl_version_major", p.dapl_version_major);
	kv_int("dapl_version_minor", p.dapl_version_minor);
	kv_hex("lmr_mem_types_supported", (unsigned)p.lmr_mem_types_supported);
	kv_int("iov_ownership_on_return", p.iov_ownership_on_return);
	kv_hex("dat_qos_supported", (unsigned)p.dat_qos_supported);
	kv_hex("completion_flags_supported", (unsigned)p.completion_flags_supported);
	kv_bool("is_thread_safe", p.is_thread_safe);
	kv_int("max_private_data_size", p.max_private_data_size);
	kv_bool("supports_multipath", p.supports_multipath);
	kv_int("ep_creator", p.ep_creator);
	kv_int("pz_support", p.pz_support);
	kv_int("optimal_buffer_alignment", p.optimal_buffer_alignment);
	key("evd_stream_merging_supported");
	putchar('[');
	for (i = 0; i < 6; i++) {
		printf("%s[", i ? "," : "");
		for (j = 0; j < 6; j++)
			printf("%s%s", j ? "," : "",
			       p.evd_stream_merging_supported[i][j] == DAT_TRUE ? "true" : "false");
		putchar(']');
	}
	putchar(']');
	kv_bool("srq_supported", p.srq_supported);
	kv_int("srq_watermarks_supported", p.srq_watermarks_supported);
	kv_bool("srq_ep_pz_difference_supported", p.srq_ep_pz_difference_supported);
	kv_int("srq_info_supported", p.srq_info_supported);
	kv_int("ep_recv_info_supported", p.ep_recv_info_supported);
	kv_bool("lmr_sync_req", p.lmr_sync_req);
	kv_bool("dto_async_return_guaranteed", p.dto_async_return_guaranteed);
	kv_bool("rdma_write_for_rdma_read_req", p.rdma_write_for_rdma_read_req);
	kv_named("provider_specific_attr", p.num_provider_specific_attr, p.provider_specific_attr);
	fputs("},\n\"ia_attr\":{", stdout);
	first = 1;
	key("adapter_name"); json_name(a.adapter_name, sizeof(a.adapter_name));
	key("vendor_name"); json_name(a.vendor_name, sizeof(a.vendor_name));
	kv_int("hardware_version_major", a.hardware_version_major);
	kv_int("hardware_version_minor", a.hardware_version_minor);
	kv_int("firmware_version_major", a.firmware_version_major);
	kv_int("firmware_version_minor", a.firmware_version_minor);
	kv_addr("ia_address", a.ia_address_ptr);
	kv_int("max_eps", a.max_eps);
	kv_int("max_dto_per_ep", a.max_dto_per_ep);
	kv_int("max_rdma_read_per_ep_in", a.max_rdma_read_per_ep_in);
	kv_int("max_rdma_read_per_ep_out", a.max_rdma_read_per_ep_out);
	kv_int("max_evds", a.max_evds);
	kv_int("max_evd_qlen", a.max_evd_qlen);
	kv_int("max_iov_segments_per_dto", a.max_iov_segments_per_dto);
	kv_int("max_lmrs", a.max_lmrs);
	kv_u64("max_lmr_block_size", a.max_lmr_block_size);
	kv_hex("max_lmr_virtual_address", a.max_lmr_virtual_address);
	kv_int("max_pzs", a.max_pzs);
	kv_u64("max_message_size", a.max_message_size);
	kv_u64("max_rdma_size", a.max_rdma_size);
	kv_int("max_rmrs", a.max_rmrs);
	kv_hex("max_rmr_target_address", a.max_rmr_target_address);
	kv_int("max_srqs", a.max_srqs);
	kv_int("max_ep_per_srq", a.max_ep_per_srq);
	kv_int("max_recv_per_srq", a.max_recv_per_srq);
	kv_int("max_iov_segments_per_rdma_read", a.max_iov_segments_per_rdma_read);
	kv_int("max_iov_segments_per_rdma_write", a.max_iov_segments_per_rdma_write);
	kv_int("max_rdma_read_in", a.max_rdma_read_in);
	kv_int("max_rdma_read_out", a.max_rdma_read_out);
	kv_bool("max_rdma_read_per_ep_in_guaranteed", a.max_rdma_read_per_ep_in_guaranteed);
	kv_bool("max_rdma_read_per_ep_out_guaranteed", a.max_rdma_read_per_ep_out_guaranteed);
	kv_named("transport_attr", a.num_transport_attr, a.transport_attr);
	kv_named("vendor_attr", a.num_vendor_attr, a.vendor_attr);
	fputs("}}\n", stdout);
	fflush(stdout);
	r = dat_ia_close(h, DAT_CLOSE_GRACEFUL_FLAG);
	if (r != DAT_SUCCESS)
		dat_ia_close(h, DAT_CLOSE_ABRUPT_FLAG);
	return 0;
}
