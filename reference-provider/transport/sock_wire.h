/* SPDX-License-Identifier: MIT */
/*
 * sock_wire.h - the frame format of the sock transport (documented in full
 * at the top of sock.c) and its header codec, shared with the unit tests.
 */
#ifndef REF_SOCK_WIRE_H
#define REF_SOCK_WIRE_H

#include <stdint.h>

#define SOCK_MAGIC	0xDA12
#define SOCK_VERSION	1
#define HDR_LEN		40
enum frame_type {
	F_CONN_REQ = 1,
	F_CONN_ACCEPT,
	F_CONN_REJECT,
	F_CONN_RTU,
	F_DISCONNECT,
	F_SEND,
	F_RDMA_WRITE,
	F_RDMA_READ_REQ,
	F_READ_RESP,
	F_ACK,
	F_NAK,
	F_MAX
};

struct frame {
	uint16_t magic;
	uint8_t version;
	uint8_t type;
	uint32_t length;
	uint64_t arg0, arg1;
	uint32_t arg2, arg3;
	uint64_t ack;		/* piggybacked cumulative ack: seq + 1, 0 none */
};


/* Encodes @f into the 40-byte little-endian header at @p. */
void ref_sock_encode_header(uint8_t *p, const struct frame *f);
/*
 * Decodes the header at @p into @f and checks everything that does not
 * depend on the connection: magic, version, known type, payload length
 * within the cap of the type, enum-valued fields in range.  0 or -1.
 */
int ref_sock_parse_header(const uint8_t *p, struct frame *f);
/* Largest payload a frame of @type may carry. */
uint64_t ref_sock_frame_cap(uint8_t type);

#endif /* REF_SOCK_WIRE_H */
