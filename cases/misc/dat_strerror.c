/* SPDX-License-Identifier: MIT */
/*
 * Cases for dat_strerror(3DAT); clauses in clauses/dat_strerror.toml.
 * dat_strerror lives in libdat; no IA is needed.
 */
#include "datcts.h"

#include <string.h>

static const DAT_RETURN types[] = {
	DAT_ABORT, DAT_CONN_QUAL_IN_USE, DAT_INSUFFICIENT_RESOURCES, DAT_INTERNAL_ERROR,
	DAT_INVALID_HANDLE, DAT_INVALID_PARAMETER, DAT_INVALID_STATE, DAT_LENGTH_ERROR,
	DAT_MODEL_NOT_SUPPORTED, DAT_PROVIDER_NOT_FOUND, DAT_PRIVILEGES_VIOLATION,
	DAT_PROTECTION_VIOLATION, DAT_QUEUE_EMPTY, DAT_QUEUE_FULL, DAT_TIMEOUT_EXPIRED,
	DAT_PROVIDER_ALREADY_REGISTERED, DAT_PROVIDER_IN_USE, DAT_INVALID_ADDRESS,
	DAT_INTERRUPTED_CALL, DAT_CONN_QUAL_UNAVAILABLE,
};

/* A subtype of each group (dat12-facts.md 1.2), with its type. */
static const struct { DAT_RETURN type; int sub; } subs[] = {
	{ DAT_ABORT, DAT_SUB_INTERRUPTED },
	{ DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_MEMORY },
	{ DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_SRQ },
	{ DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA },
	{ DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_SRQ },
	{ DAT_INVALID_HANDLE, DAT_INVALID_HANDLE10 },
	{ DAT_INVALID_PARAMETER, DAT_INVALID_ARG1 },
	{ DAT_INVALID_PARAMETER, DAT_INVALID_ARG10 },
	{ DAT_INVALID_STATE, DAT_INVALID_STATE_EP_UNCONNECTED },
	{ DAT_INVALID_STATE, DAT_INVALID_STATE_SRQ_IN_USE },
	{ DAT_PRIVILEGES_VIOLATION, DAT_PRIVILEGES_READ },
	{ DAT_PROTECTION_VIOLATION, DAT_PROTECTION_RDMA_WRITE },
	{ DAT_PROVIDER_NOT_FOUND, DAT_NAME_NOT_REGISTERED },
	{ DAT_PROVIDER_NOT_FOUND, DAT_THREAD_SAFETY_NOT_FOUND },
};

static void converts(struct dc_ctx *t, DAT_RETURN code, const char **major)
{
	const char *maj = NULL, *min = NULL;

	DC_ASSERT(dat_strerror(code, &maj, &min) == DAT_SUCCESS,
		  "dat_strerror(0x%08x) did not succeed", (unsigned int)code);
	DC_ASSERT(maj && *maj, "no major message for 0x%08x", (unsigned int)code);
	DC_ASSERT(min != NULL, "no minor message for 0x%08x", (unsigned int)code);
	if (major)
		*major = maj;
}

DC_CASE(dat_strerror, converts_type_and_subtype,
	.summary = "every 1.2 return type (with and without the error class) and a subtype of each group converts",
	.flags = DC_NO_IA)
{
	const char *majors[sizeof(types) / sizeof(types[0])];
	const char *minors[sizeof(subs) / sizeof(subs[0])];
	const char *min;

	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		converts(t, DAT_CLASS_ERROR | types[i], &majors[i]);
		converts(t, types[i], NULL);
		for (size_t j = 0; j < i; j++)
			DC_ASSERT(strcmp(majors[i], majors[j]) != 0,
				  "types 0x%08x and 0x%08x share the major message '%s'",
				  (unsigned int)types[i], (unsigned int)types[j], majors[i]);
	}
	for (size_t i = 0; i < sizeof(subs) / sizeof(subs[0]); i++) {
		const char *maj = NULL;

		min = NULL;
		DC_ASSERT(dat_strerror(DAT_CLASS_ERROR | subs[i].type | (DAT_RETURN)subs[i].sub,
				       &maj, &min) == DAT_SUCCESS,
			  "type 0x%08x subtype %d did not convert", (unsigned int)subs[i].type,
			  subs[i].sub);
		DC_ASSERT(min && *min, "no minor message for subtype %d", subs[i].sub);
		minors[i] = min;
		/* the subtype's own string: two subtypes of a type are told apart */
		for (size_t j = 0; j < i; j++)
			DC_ASSERT(subs[j].type != subs[i].type || strcmp(minors[j], min) != 0,
				  "subtypes %d and %d of type 0x%08x share the minor message '%s'",
				  subs[j].sub, subs[i].sub, (unsigned int)subs[i].type, min);
	}
}

DC_CASE(dat_strerror, success_code,
	.summary = "DAT_SUCCESS converts",
	.flags = DC_NO_IA)
{
	converts(t, DAT_SUCCESS, NULL);
}

DC_CASE(dat_strerror, undefined_code,
	.summary = "an undefined type, and a defined type with an undefined subtype, give DAT_INVALID_PARAMETER",
	.flags = DC_NO_IA)
{
	const char *maj, *min;

	DC_ASSERT_RET(dat_strerror(DAT_CLASS_ERROR | 0x3ABC0000u, &maj, &min), DAT_INVALID_PARAMETER);
	DC_ASSERT_RET(dat_strerror(DAT_CLASS_ERROR | DAT_INVALID_STATE | 0xFFFFu, &maj, &min),
		      DAT_INVALID_PARAMETER);
}
