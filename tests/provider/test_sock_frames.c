// SPDX-License-Identifier: MIT
/*
 * White-box tests of the sock frame header codec (sock_wire.h): round
 * trip, fixed little-endian layout, and rejection of malformed headers
 * (magic, version, type, per-type length caps, enum fields).
 */
#include "conn.h"
#include "sock_wire.h"

#include <stdio.h>
#include <string.h>

static int failures;

#define CHECK(c) do { if (!(c)) { \
	fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #c); \
	failures++; } } while (0)

static int parse(const struct frame *in)
{
	uint8_t b[HDR_LEN];
	struct frame out;

	ref_sock_encode_header(b, in);
	return ref_sock_parse_header(b, &out);
}

int main(void)
{
	struct frame f = { .type = F_SEND, .length = 5, .arg0 = 0x0102030405060708ull,
			   .arg1 = 9, .arg2 = 1, .arg3 = 0xA0B0C0D0u };
	struct frame g;
	uint8_t b[HDR_LEN];

	ref_sock_encode_header(b, &f);
	/* fixed little-endian layout */
	CHECK(b[0] == 0x12 && b[1] == 0xDA && b[2] == SOCK_VERSION &&
	      b[3] == F_SEND);
	CHECK(b[4] == 5 && b[5] == 0 && b[8] == 0x08 && b[15] == 0x01);
	CHECK(b[28] == 0xD0 && b[31] == 0xA0);
	CHECK(HDR_LEN == 40 && b[32] == 0 && b[39] == 0);
	CHECK(ref_sock_parse_header(b, &g) == 0);
	CHECK(g.type == F_SEND && g.length == 5 && g.arg0 == f.arg0 &&
	      g.arg1 == 9 && g.arg2 == 1 && g.arg3 == f.arg3);

	/* magic / version / type */
	b[0] ^= 1;
	CHECK(ref_sock_parse_header(b, &g) < 0);
	b[0] ^= 1;
	b[2] = 2;
	CHECK(ref_sock_parse_header(b, &g) < 0);
	b[2] = SOCK_VERSION;
	for (int t = 0; t < 256; t++) {
		struct frame h = { .type = (uint8_t)t };

		if (t == F_NAK)
			h.arg2 = DAT_DTO_ERR_REMOTE_ACCESS;
		CHECK((parse(&h) == 0) == (t >= F_CONN_REQ && t < F_MAX));
	}
	/* length caps per type */
	for (int t = F_CONN_REQ; t < F_MAX; t++) {
		struct frame h = { .type = (uint8_t)t };
		uint64_t cap = ref_sock_frame_cap((uint8_t)t);

		if (t == F_NAK)
			h.arg2 = DAT_DTO_ERR_REMOTE_ACCESS;
		h.length = (uint32_t)cap;
		CHECK(parse(&h) == 0);
		h.length = (uint32_t)(cap + 1);
		CHECK(parse(&h) < 0);
		h.length = 0xFFFFFFFFu;
		CHECK(parse(&h) < 0);
	}
	CHECK(ref_sock_frame_cap(F_CONN_REQ) == REF_MAX_PRIVATE_DATA);
	CHECK(ref_sock_frame_cap(F_SEND) == REF_MAX_MESSAGE_SIZE);
	CHECK(ref_sock_frame_cap(F_ACK) == 0);
	/* enum-valued fields */
	{
		struct frame h = { .type = F_NAK, .arg2 = DAT_DTO_SUCCESS };

		CHECK(parse(&h) < 0);
		h.arg2 = 12;
		CHECK(parse(&h) < 0);
		h.arg2 = DAT_RMR_OPERATION_FAILED;
		CHECK(parse(&h) == 0);
		h = (struct frame){ .type = F_CONN_REJECT, .arg2 = 2 };
		CHECK(parse(&h) < 0);
		h = (struct frame){ .type = F_SEND, .arg2 = 2 };
		CHECK(parse(&h) < 0);
		h = (struct frame){ .type = F_RDMA_READ_REQ,
				    .arg3 = REF_MAX_RDMA_SIZE + 1 };
		CHECK(parse(&h) < 0);
		/* CM frames carry no acknowledgement */
		h = (struct frame){ .type = F_CONN_REQ, .ack = 1 };
		CHECK(parse(&h) < 0);
		h = (struct frame){ .type = F_SEND, .ack = 7 };
		CHECK(parse(&h) == 0);
	}
	if (failures)
		fprintf(stderr, "test_sock_frames: %d check(s) failed\n",
			failures);
	else
		printf("test_sock_frames: ok\n");
	return failures ? 1 : 0;
}
