/* SPDX-License-Identifier: MIT */
/*
 * Cases for dc_dat_lmr_create(3DAT); clauses in clauses/dat_lmr_create.toml.
 * dat_lmr_create.pz_restricts_local_access is checked by
 * dat_pz_create.protects_local_access (cases/pz).
 */
#include "mem_common.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static DAT_RETURN lmr_shared(struct dc_ctx *t, void *addr, char (*cookie)[DAT_LMR_COOKIE_SIZE],
			     DAT_VLEN len, DAT_PZ_HANDLE pz, DAT_MEM_PRIV_FLAGS priv,
			     struct dc_lmr *out)
{
	DAT_REGION_DESCRIPTION rd;

	memset(out, 0, sizeof(*out));
	memset(&rd, 0, sizeof(rd));
	rd.for_shared_memory.virtual_address = addr;
	rd.for_shared_memory.shared_memory_id = cookie;
	out->buf = addr;
	out->len = len;
	return dc_dat_lmr_create(t->ia, DAT_MEM_TYPE_SHARED_VIRTUAL, rd, len, pz, priv,
			      &out->lmr, &out->lmr_context, &out->rmr_context,
			      &out->registered_length, &out->registered_address);
}

static void *shared_map(struct dc_ctx *t, size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	DC_SETUP_ASSERT(p != MAP_FAILED, "mmap(MAP_SHARED) failed");
	return p;
}

DC_CASE(dat_lmr_create, registers_virtual,
	.summary = "a virtual range registers; the LMR reports the type, region, length, PZ and privileges given")
{
	DAT_PZ_HANDLE pz = dc_pz(t);
	DAT_HANDLE_TYPE type = DAT_HANDLE_TYPE_CR;
	unsigned char *buf = aligned_alloc(DAT_OPTIMAL_ALIGNMENT, BUF);
	struct dc_lmr m;
	DAT_LMR_PARAM p;

	DC_SETUP_ASSERT(buf, "out of memory");
	DC_ASSERT_SUCCESS(dc_lmr_register(t->ia, pz, buf, BUF, DC_PRIV_LOCAL, &m));
	/* collateral: dat_lmr_create(3DAT) DESCRIPTION: what is handed back is an LMR */
	DC_ASSERT_SUCCESS(dat_get_handle_type(m.lmr, &type));
	DC_ASSERT_EQ(type, DAT_HANDLE_TYPE_LMR);
	memset(&p, 0, sizeof(p));
	/* collateral: dat_lmr_create(3DAT) DESCRIPTION: the range registered is the one given, as the LMR's query shows */
	DC_ASSERT_SUCCESS(dat_lmr_query(m.lmr, DAT_LMR_FIELD_ALL, &p));
	DC_ASSERT_EQ(p.mem_type, DAT_MEM_TYPE_VIRTUAL);
	DC_ASSERT_PTR_EQ(p.region_desc.for_va, buf);
	DC_ASSERT_EQ(p.length, BUF);
	DC_ASSERT_PTR_EQ(p.pz_handle, pz);
	DC_ASSERT_EQ(p.mem_priv, DC_PRIV_LOCAL);
	DC_ASSERT_EQ(p.lmr_context, m.lmr_context);
	DC_SETUP(dat_lmr_free(m.lmr));
	free(buf);
}

/*
 * The lower neighbour of beside_other_mappings' page: a read-only private
 * mapping of a file whose path is long enough (about 650 bytes) that its
 * line in /proc/self/maps is longer than 512 bytes, the last path component
 * being ~220 spaces and "0-ffffffffffffffff ---p", the spaces covering byte
 * 512 of the line: a Provider that reads the map in pieces of 512 bytes and
 * loses its place reads "0-ffffffffffffffff ---p" as a mapping.  The file
 * and its directories are removed again at once (the mapping stays).
 * Returns the page above the file's page: anonymous, readable and writable.
 */
#define LONG_DIRS	3	/* directory components of 100 bytes */
#define LONG_SPACES	220	/* spaces before the last component's "range" */
#define LONG_TOKEN	"0-ffffffffffffffff ---p"

static unsigned char *page_over_long_path_file(struct dc_ctx *t, size_t pg)
{
	const char *tmp = getenv("TMPDIR");
	char path[1024], base[256], name[256];
	char dirs[LONG_DIRS][1024];
	unsigned char *two;
	size_t n, k;
	int fd, i;

	snprintf(base, sizeof(base), "%s/datcts-lmr-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	DC_SETUP_ASSERT(mkdtemp(base), "mkdtemp(%s) failed", base);
	snprintf(path, sizeof(path), "%s", base);
	for (i = 0; i < LONG_DIRS; i++) {
		n = strlen(path);
		path[n++] = '/';
		memset(path + n, 'd', 100);
		path[n + 100] = '\0';
		snprintf(dirs[i], sizeof(dirs[i]), "%s", path);
		DC_SETUP_ASSERT(mkdir(path, 0700) == 0, "mkdir of a 100-byte component failed");
	}
	memset(name, ' ', LONG_SPACES);
	snprintf(name + LONG_SPACES, sizeof(name) - LONG_SPACES, "%s", LONG_TOKEN);
	n = strlen(path);
	snprintf(path + n, sizeof(path) - n, "/%s", name);
	fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	DC_SETUP_ASSERT(fd >= 0, "creating the long-path file failed");
	two = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	k = ftruncate(fd, (off_t)pg) == 0 && two != MAP_FAILED &&
	    mmap(two, pg, PROT_READ, MAP_PRIVATE | MAP_FIXED, fd, 0) == two;
	close(fd);
	unlink(path);
	for (i = LONG_DIRS - 1; i >= 0; i--)
		rmdir(dirs[i]);
	rmdir(base);
	DC_SETUP_ASSERT(k, "mapping the long-path file under an anonymous page failed");
	return two + pg;
}

/*
 * Set-up: the line of /proc/self/maps for @low is the long one intended
 * (over 512 bytes, only spaces from byte 511 up to LONG_TOKEN); else the
 * kernel formats its lines otherwise and the case shows nothing.
 */
static void check_long_line(struct dc_ctx *t, const void *low)
{
	static char all[1 << 20];	/* the whole map; a case process's is far smaller */
	char want[32], *line, *tok = NULL;
	size_t len = 0, col;
	ssize_t r;
	int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);

	DC_SETUP_ASSERT(fd >= 0, "cannot read /proc/self/maps");
	while (len < sizeof(all) - 1 && (r = read(fd, all + len, sizeof(all) - 1 - len)) > 0)
		len += (size_t)r;
	close(fd);
	all[len] = '\0';
	snprintf(want, sizeof(want), "%lx-", (unsigned long)(uintptr_t)low);
	line = strstr(all, want);
	while (line && line != all && line[-1] != '\n')
		line = strstr(line + 1, want);
	DC_SETUP_ASSERT(line, "the file mapping is not in /proc/self/maps");
	tok = strstr(line, LONG_TOKEN);
	DC_SETUP_ASSERT(tok && !memchr(line, '\n', (size_t)(tok - line)),
			"the file's line in /proc/self/maps does not end in its path");
	for (col = 511; line + col < tok; col++)
		if (line[col] != ' ')
			break;
	DC_SETUP_ASSERT(tok - line > 512 && line + col == tok,
			"the file's path starts at an unexpected column of /proc/self/maps");
}

DC_CASE(dat_lmr_create, registers_beside_other_mappings,
	.clauses = "dat_lmr_create.registers_virtual",
	.summary = "a page whose lower neighbour is a read-only file mapping with a 600-byte path registers "
		   "with local read and write")
{
	DAT_PZ_HANDLE pz = dc_pz(t);
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);
	unsigned char *page = page_over_long_path_file(t, pg);
	struct dc_lmr m;

	check_long_line(t, page - pg);
	memset(page, 0x11, pg);
	/* the page is the Consumer's own memory, allocated and writable: what
	 * lies next to it in the address space is no parameter of the call */
	DC_ASSERT_SUCCESS_UNLESS_SHORT(dc_lmr_register(t->ia, pz, page, pg, DC_PRIV_LOCAL, &m));
	DC_CLEANUP(dat_lmr_free(m.lmr));
	munmap(page - pg, 2 * pg);
}

DC_CASE(dat_lmr_create, provider_pins_memory,
	.summary = "a freshly mapped, never touched region is registered and receives a Send intact")
{
	struct dc_pair p;
	struct dc_lmr src, m;
	const size_t len = 16 * 4096;
	unsigned char *fresh;

	dc_pair_up(t, &p, 0, NULL);
	fresh = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	DC_SETUP_ASSERT(fresh != MAP_FAILED, "mmap failed");
	DC_ASSERT_SUCCESS(dc_lmr_register(t->ia, p.b.pz, fresh, len, DC_PRIV_LOCAL, &m));
	dc_lmr(t, p.a.pz, BUF, DC_PRIV_LOCAL, &src);
	dc_fill(src.buf, 3000, 17);
	/* the receive lands on pages the Consumer never touched */
	dc_post_recv(t, p.b.ep, &m, 9 * 4096 + 100, 3000, 1);
	dc_send_sync(t, &p.a, &src, 0, 3000, 2);
	dc_await_recv(t, &p.b, 1);
	DC_ASSERT(!memcmp(fresh + 9 * 4096 + 100, src.buf, 3000),
		  "the message did not arrive intact in the never-touched region");
}

DC_CASE(dat_lmr_create, context_for_local_dtos,
	.summary = "lmr_contexts work as local segments of a Send and a receive")
{
	struct dc_pair p;
	struct dc_lmr src, dst;
	DAT_LMR_TRIPLET riov, siov;
	DAT_DTO_COMPLETION_EVENT_DATA d;

	dc_pair_up(t, &p, 0, NULL);
	dc_lmr(t, p.a.pz, BUF, DC_PRIV_LOCAL, &src);
	dc_lmr(t, p.b.pz, BUF, DC_PRIV_LOCAL, &dst);
	dc_fill(src.buf, 1024, 4);
	/* the posts are the clause: each segment names an lmr_context */
	riov = dc_iov(&dst, 512, 1024);
	siov = dc_iov(&src, 0, 1024);
	/* collateral: dat_lmr_create(3DAT) DESCRIPTION: the lmr_context serves in local segments of DTOs */
	DC_ASSERT_SUCCESS(dat_ep_post_recv(p.b.ep, 1, &riov, (DAT_DTO_COOKIE){ .as_64 = 1 },
					   DAT_COMPLETION_DEFAULT_FLAG));
	/* collateral: dat_lmr_create(3DAT) DESCRIPTION: as above */
	DC_ASSERT_SUCCESS(dat_ep_post_send(p.a.ep, 1, &siov, (DAT_DTO_COOKIE){ .as_64 = 2 },
					   DAT_COMPLETION_DEFAULT_FLAG));
	d = DC_ASSERT_DTO_EVENT(p.a.req_evd);
	DC_ASSERT_DTO_STATUS(d.status, DAT_DTO_SUCCESS);
	d = DC_ASSERT_DTO_EVENT(p.b.recv_evd);
	DC_ASSERT_DTO_STATUS(d.status, DAT_DTO_SUCCESS);
	DC_ASSERT_EQ(d.transfered_length, 1024);
	DC_ASSERT(!memcmp(dst.buf + 512, src.buf, 1024), "received bytes differ");
}

DC_CASE(dat_lmr_create, context_for_rmr_bind,
	.summary = "an lmr_context binds an RMR (completion DAT_RMR_BIND_SUCCESS)")
{
	struct dc_pair p;
	struct dc_lmr m;
	DAT_RMR_HANDLE rmr;
	DAT_LMR_TRIPLET iov;
	DAT_RMR_CONTEXT ctx = 0;
	DAT_RMR_BIND_COMPLETION_EVENT_DATA d;
	DAT_RETURN r;

	dc_pair_up(t, &p, 0, NULL);
	dc_lmr(t, p.a.pz, BUF, DC_PRIV_LOCAL, &m);
	rmr = dc_rmr(t, p.a.pz);
	iov = dc_iov(&m, 0, BUF);
	r = dc_dat_rmr_bind(rmr, m.lmr, &iov, DAT_MEM_PRIV_REMOTE_WRITE_FLAG, p.a.ep, dc_cookie(5), DAT_COMPLETION_DEFAULT_FLAG, &ctx);
	DC_ALLOW_MODEL_NOT_SUPPORTED(r, "dat_rmr_bind", "RMR binding");
	DC_ASSERT_SUCCESS(r);
	d = DC_ASSERT_BIND_EVENT(p.a.req_evd);
	DC_ASSERT_DTO_STATUS(d.status, DAT_RMR_BIND_SUCCESS);
}

DC_CASE(dat_lmr_create, handle_for_lmr_type,
	.summary = "an lmr_handle is accepted as the region of a DAT_MEM_TYPE_LMR registration")
{
	DAT_PZ_HANDLE pz = dc_pz(t);
	struct dc_lmr m, m2;

	dc_lmr(t, pz, BUF, DC_PRIV_LOCAL, &m);
	DC_ASSERT_SUCCESS(lmr_of_lmr(t, m.lmr, BUF, pz, DC_PRIV_LOCAL, &m2, &m));
}

static void check_covers(struct dc_ctx *t, const struct dc_lmr *m, const void *addr,
			 DAT_VLEN len)
{
	DAT_VADDR a = (DAT_VADDR)(uintptr_t)addr;
	DAT_LMR_PARAM p;

	DC_ASSERT(m->registered_address <= a &&
		  m->registered_address + m->registered_length >= a + len,
		  "registered [0x%llx, +%llu) does not cover [0x%llx, +%llu)",
		  (unsigned long long)m->registered_address,
		  (unsigned long long)m->registered_length,
		  (unsigned long long)a, (unsigned long long)len);
	memset(&p, 0, sizeof(p));
	/* collateral: dat_lmr_create(3DAT) DESCRIPTION: what was registered, as handed back, is what the LMR's query reports */
	DC_ASSERT_SUCCESS(dat_lmr_query(m->lmr, DAT_LMR_FIELD_REGISTERED_SIZE |
					DAT_LMR_FIELD_REGISTERED_ADDRESS, &p));
	DC_ASSERT(p.registered_address == m->registered_address &&
		  p.registered_size == m->registered_length,
		  "dat_lmr_query reports [0x%llx, +%llu), the create returned [0x%llx, +%llu)",
		  (unsigned long long)p.registered_address,
		  (unsigned long long)p.registered_size,
		  (unsigned long long)m->registered_address,
		  (unsigned long long)m->registered_length);
}

DC_CASE(dat_lmr_create, registered_range_covers,
	.summary = "registered_address/size cover the requested range, aligned or not")
{
	DAT_PZ_HANDLE pz = dc_pz(t);
	unsigned char *buf = dc_case_buf(t, 4096, 3 * 4096);
	struct dc_lmr m;

	DC_SETUP_ASSERT(buf, "out of memory");
	DC_ASSERT_SUCCESS(dc_lmr_register(t->ia, pz, buf, 2 * 4096, DC_PRIV_LOCAL, &m));
	check_covers(t, &m, buf, 2 * 4096);
	DC_ASSERT_SUCCESS(dc_lmr_register(t->ia, pz, buf + 4093, 1000, DC_PRIV_LOCAL, &m));
	check_covers(t, &m, buf + 4093, 1000);
	DC_ASSERT_SUCCESS(dc_lmr_register(t->ia, pz, buf + 1, 1, DC_PRIV_LOCAL, &m));
	check_covers(t, &m, buf + 1, 1);
	/* ending one byte past a page boundary: a Provider that registers
	 * whole pages must take the page the last byte is in */
	DC_ASSERT_SUCCESS(dc_lmr_register(t->ia, pz, buf + 4095, 2, DC_PRIV_LOCAL, &m));
	check_covers(t, &m, buf + 4095, 2);
}

DC_CASE(dat_lmr_create, shared_cookie_all_bytes,
	.summary = "a cookie starting with NUL is taken whole; the region description keeps all 40 bytes")
{
	DAT_PZ_HANDLE pz = dc_pz(t);
	void *shm = shared_map(t, BUF);
	char cookie[DAT_LMR_COOKIE_SIZE], copy[DAT_LMR_COOKIE_SIZE];
	struct dc_lmr m, probe;
	DAT_LMR_PARAM p;

	for (int i = 0; i < DAT_LMR_COOKIE_SIZE; i++)
		cookie[i] = (char)(i * 13 + 1);
	/*
	 * A provider that registers no shared memory at all fails the whole-
	 * cookie rule no more than any other: that is type_shared_virtual's
	 * clause. Only one that takes a cookie without a leading NUL is judged.
	 */
	DC_SETUP(lmr_shared(t, shared_map(t, BUF), &cookie, BUF, pz, DC_PRIV_LOCAL, &probe));
	cookie[0] = '\0';
	memcpy(copy, cookie, sizeof(copy));
	DC_ASSERT_SUCCESS(lmr_shared(t, shm, &cookie, BUF, pz, DC_PRIV_LOCAL, &m));
	memset(&p, 0, sizeof(p));
	/* collateral: dat_lmr_create(3DAT) DESCRIPTION: the cookie taken in full is what the LMR's query reports */
	DC_ASSERT_SUCCESS(dat_lmr_query(m.lmr, DAT_LMR_FIELD_ALL, &p));
	DC_ASSERT_EQ(p.mem_type, DAT_MEM_TYPE_SHARED_VIRTUAL);
	if (p.region_desc.for_shared_memory.shared_memory_id)
		DC_ASSERT(!memcmp(*p.region_desc.for_shared_memory.shared_memory_id, copy,
				  DAT_LMR_COOKIE_SIZE),
			  "the cookie reported by dat_lmr_query differs from the 40 bytes given");
}

/* The registration the page governs, checked (dc_lmr is set-up: a refusal
 * there would leave the clause unresolved): BUF bytes of case memory in pz
 * with priv. */
static void lmr_checked(struct dc_ctx *t, DAT_PZ_HANDLE pz, DAT_MEM_PRIV_FLAGS priv,
			struct dc_lmr *m)
{
	void *buf = dc_case_buf(t, DAT_OPTIMAL_ALIGNMENT, BUF);

	DC_ASSERT_SUCCESS_UNLESS_SHORT(dc_lmr_register(t->ia, pz, buf, BUF, priv, m));
}

/* The peer (p->a) RDMA-Writes src[soff, +len) to target[toff, +len), or
 * RDMA-Reads it back, with target's rmr_context: the bytes must move. */
static void remote_moves(struct dc_ctx *t, struct dc_pair *p, struct dc_lmr *src, DAT_VLEN soff,
			 struct dc_lmr *target, DAT_VLEN toff, DAT_VLEN len, bool write,
			 uint64_t cookie)
{
	DAT_DTO_COMPLETION_STATUS st;

	DC_ASSERT(target->rmr_context != 0, "an LMR with remote privileges returned rmr_context 0");
	if (write) {
		dc_fill(src->buf + soff, len, (unsigned)cookie + 20);
		st = dc_rdma_write(t, &p->a, src, soff, len, dc_rmr_iov(target, toff, len), cookie);
	} else {
		dc_fill(target->buf + toff, len, (unsigned)cookie + 70);
		st = dc_rdma_read(t, &p->a, src, soff, len, dc_rmr_iov(target, toff, len), cookie);
	}
	DC_ASSERT_DTO_STATUS(st, DAT_DTO_SUCCESS);
	DC_ASSERT(!memcmp(target->buf + toff, src->buf + soff, len), "the RDMA %s moved other bytes",
		  write ? "Write" : "Read");
}

/* An LMR granting both, then one granting each alone (dat_lmr_create(3DAT)
 * DESCRIPTION: a context is made when remote Read or Write is asked for). */
DC_CASE(dat_lmr_create, rmr_context_for_remote,
	.summary = "the peer RDMA-Writes and RDMA-Reads with the rmr_context of an LMR granting both, and of LMRs granting one each")
{
	struct dc_pair p;
	struct dc_lmr src, target, ro, wo;

	dc_pair_up(t, &p, 0, NULL);
	dc_lmr(t, p.a.pz, BUF, DC_PRIV_LOCAL, &src);
	lmr_checked(t, p.b.pz, DAT_MEM_PRIV_ALL_FLAG, &target);
	remote_moves(t, &p, &src, 0, &target, 100, 1024, true, 1);
	remote_moves(t, &p, &src, 1024, &target, 2048, 512, false, 2);
	lmr_checked(t, p.b.pz, DC_PRIV_LOCAL | DAT_MEM_PRIV_REMOTE_READ_FLAG, &ro);
	remote_moves(t, &p, &src, 2048, &ro, 512, 256, false, 3);
	lmr_checked(t, p.b.pz, DC_PRIV_LOCAL | DAT_MEM_PRIV_REMOTE_WRITE_FLAG, &wo);
	remote_moves(t, &p, &src, 3072, &wo, 256, 256, true, 4);
}

DC_CASE(dat_lmr_create, no_rmr_context_without_remote,
	.summary = "an LMR with local privileges only returns rmr_context 0")
{
	DAT_PZ_HANDLE pz = dc_pz(t);
	unsigned char *buf = dc_case_buf(t, DAT_OPTIMAL_ALIGNMENT, BUF);
	DAT_REGION_DESCRIPTION rd;
	DAT_LMR_HANDLE lmr;
	DAT_LMR_CONTEXT lc;
	DAT_RMR_CONTEXT rc = 0xdeadbeef;
	DAT_VLEN sz;
	DAT_VADDR va;

	DC_SETUP_ASSERT(buf, "out of memory");
	memset(&rd, 0, sizeof(rd));
	rd.for_va = buf;
	DC_ASSERT_SUCCESS(dc_dat_lmr_create(t->ia, DAT_MEM_TYPE_VIRTUAL, rd, BUF, pz, DC_PRIV_LOCAL,
					 &lmr, &lc, &rc, &sz, &va));
	DC_ASSERT(rc == 0, "rmr_context is 0x%x, expected NULL (0)", (unsigned int)rc);
}

DC_CASE(dat_lmr_create, remote_only_as_granted,
	.summary = "RDMA Write into a remote-read-only LMR and RDMA Read from a remote-write-only LMR fail")
{
	struct dc_pair p, q;
	struct dc_lmr src, ro, wo;
	DAT_DTO_COMPLETION_STATUS st;

	dc_pair_up(t, &p, 0, NULL);
	dc_lmr(t, p.a.pz, BUF, DC_PRIV_LOCAL, &src);
	lmr_checked(t, p.b.pz, DC_PRIV_LOCAL | DAT_MEM_PRIV_REMOTE_READ_FLAG, &ro);
	dc_fill(src.buf, BUF, 3);
	st = dc_rdma_write(t, &p.a, &src, 0, 256, dc_rmr_iov(&ro, 0, 256), 1);
	DC_ASSERT_DTO_STATUS(st, DAT_DTO_ERR_REMOTE_ACCESS);
	DC_ASSERT((dc_first_not(ro.buf, BUF, 0) < 0), "a remote-read-only LMR was written");
	/* the first pair goes before the second (an IA may have few EVDs and
	 * EPs, dat_ia_query(3DAT) Max EVDs, Max EPs) */
	DC_CLEANUP(dat_lmr_free(src.lmr));
	DC_CLEANUP(dat_lmr_free(ro.lmr));
	dc_pair_down(t, &p);

	dc_pair_up(t, &q, 0, NULL);
	lmr_checked(t, q.b.pz, DC_PRIV_LOCAL | DAT_MEM_PRIV_REMOTE_WRITE_FLAG, &wo);
	dc_fill(wo.buf, BUF, 99);
	dc_lmr(t, q.a.pz, BUF, DC_PRIV_LOCAL, &src);
	st = dc_rdma_read(t, &q.a, &src, 0, 256, dc_rmr_iov(&wo, 0, 256), 2);
	DC_ASSERT_DTO_STATUS(st, DAT_DTO_ERR_REMOTE_ACCESS);
	DC_ASSERT((dc_first_not(src.buf, 256, 0) < 0), "bytes were read from a remote-write-only LMR");
}

DC_CASE(dat_lmr_create, type_lmr_same_range,
	.summary = "DAT_MEM_TYPE_LMR ignores the length: 0 and a bogus length both cover the original range")
{
	struct dc_pair p;
	struct dc_lmr m, m0, mx, dst;
	DAT_LMR_PARAM q;

	dc_pair_up(t, &p, 0, NULL);
	dc_lmr(t, p.a.pz, BUF, DC_PRIV_LOCAL, &m);
	dc_lmr(t, p.b.pz, BUF, DC_PRIV_LOCAL, &dst);
	DC_ASSERT_SUCCESS(lmr_of_lmr(t, m.lmr, 0, p.a.pz, DC_PRIV_LOCAL, &m0, &m));
	DC_ASSERT_SUCCESS(lmr_of_lmr(t, m.lmr, 12345678, p.a.pz, DC_PRIV_LOCAL, &mx, &m));
	for (int i = 0; i < 2; i++) {
		const struct dc_lmr *n = i ? &mx : &m0;

		memset(&q, 0, sizeof(q));
		/* collateral: dat_lmr_create(3DAT) PARAMETERS: the range is the existing LMR's, as the new one's query shows */
		DC_ASSERT_SUCCESS(dat_lmr_query(n->lmr, DAT_LMR_FIELD_ALL, &q));
		DC_ASSERT(q.registered_address == m.registered_address &&
			  q.registered_size == m.registered_length,
			  "LMR-of-LMR covers [0x%llx, +%llu), the original [0x%llx, +%llu)",
			  (unsigned long long)q.registered_address,
			  (unsigned long long)q.registered_size,
			  (unsigned long long)m.registered_address,
			  (unsigned long long)m.registered_length);
	}
	/* the new context moves the original's bytes */
	dc_fill(m.buf, BUF, 8);
	dc_post_recv(t, p.b.ep, &dst, 0, BUF, 1);
	dc_send_sync(t, &p.a, &mx, 0, BUF, 2);
	dc_await_recv(t, &p.b, 1);
	DC_ASSERT(!memcmp(dst.buf, m.buf, BUF), "a Send through the LMR-of-LMR carried other bytes");
}

DC_CASE(dat_lmr_create, type_shared_virtual,
	.summary = "two registrations of one shared region with one cookie; data received through one is sent through the other")
{
	struct dc_pair p;
	struct dc_lmr s1, s2, src, back;
	char cookie[DAT_LMR_COOKIE_SIZE];
	unsigned char *shm = shared_map(t, BUF);

	dc_pair_up(t, &p, 0, NULL);
	memset(cookie, 0x5c, sizeof(cookie));
	DC_ASSERT_SUCCESS(lmr_shared(t, shm, &cookie, BUF, p.b.pz, DC_PRIV_LOCAL, &s1));
	DC_ASSERT_SUCCESS(lmr_shared(t, shm, &cookie, BUF, p.b.pz, DC_PRIV_LOCAL, &s2));
	dc_lmr(t, p.a.pz, BUF, DC_PRIV_LOCAL, &src);
	dc_lmr(t, p.a.pz, BUF, DC_PRIV_LOCAL, &back);
	dc_fill(src.buf, 700, 31);
	dc_post_recv(t, p.b.ep, &s1, 0, 700, 1);
	dc_send_sync(t, &p.a, &src, 0, 700, 2);
	dc_await_recv(t, &p.b, 1);
	dc_post_recv(t, p.a.ep, &back, 0, 700, 3);
	dc_send_sync(t, &p.b, &s2, 0, 700, 4);
	dc_await_recv(t, &p.a, 3);
	DC_ASSERT(!memcmp(back.buf, src.buf, 700), "the shared region did not carry the bytes across");
}

DC_CASE(dat_lmr_create, invalid_parameter,
	.summary = "unknown privilege bits, a NULL lmr_handle or lmr_context pointer: INVALID_PARAMETER, nothing registered")
{
	DAT_PZ_HANDLE pz = dc_pz(t);
	unsigned char *buf = dc_case_buf(t, DAT_OPTIMAL_ALIGNMENT, BUF);
	DAT_REGION_DESCRIPTION rd;
	DAT_LMR_HANDLE lmr;
	DAT_LMR_CONTEXT lc;
	DAT_RMR_CONTEXT rc;
	DAT_VLEN sz;
	DAT_VADDR va;

	DC_SETUP_ASSERT(buf, "out of memory");
	memset(&rd, 0, sizeof(rd));
	rd.for_va = buf;
	DC_ASSERT_RET(dc_dat_lmr_create(t->ia, DAT_MEM_TYPE_VIRTUAL, rd, BUF, pz,
				     (DAT_MEM_PRIV_FLAGS)0x4000, &lmr, &lc, &rc, &sz, &va),
		      DAT_INVALID_PARAMETER);
	DC_ASSERT_RET(dc_dat_lmr_create(t->ia, DAT_MEM_TYPE_VIRTUAL, rd, BUF, pz, DC_PRIV_LOCAL,
				     NULL, &lc, &rc, &sz, &va), DAT_INVALID_PARAMETER);
	DC_ASSERT_RET(dc_dat_lmr_create(t->ia, DAT_MEM_TYPE_VIRTUAL, rd, BUF, pz, DC_PRIV_LOCAL,
				     &lmr, NULL, &rc, &sz, &va), DAT_INVALID_PARAMETER);
	/* no LMR holds the PZ */
	/* collateral: dat_lmr_create(3DAT) RETURN VALUES: nothing is registered, so the PZ is not in use */
	DC_ASSERT_SUCCESS(dat_pz_free(pz));
}

DC_CASE(dat_lmr_create, invalid_handle,
	.summary = "bad IA, bad PZ, and a non-LMR region handle give DAT_INVALID_HANDLE")
{
	DAT_PZ_HANDLE pz = dc_pz(t);
	DAT_EVD_HANDLE evd = dc_evd(t, 4, DAT_EVD_SOFTWARE_FLAG);
	unsigned char *buf = dc_case_buf(t, DAT_OPTIMAL_ALIGNMENT, BUF);
	DAT_REGION_DESCRIPTION rd;
	DAT_LMR_HANDLE lmr;
	DAT_LMR_CONTEXT lc;
	DAT_RMR_CONTEXT rc;
	DAT_VLEN sz;
	DAT_VADDR va;

	DC_SETUP_ASSERT(buf, "out of memory");
	memset(&rd, 0, sizeof(rd));
	rd.for_va = buf;
	DC_ASSERT_INVALID_HANDLE(dc_dat_lmr_create(DAT_HANDLE_NULL, DAT_MEM_TYPE_VIRTUAL, rd, BUF, pz,
				     DC_PRIV_LOCAL, &lmr, &lc, &rc, &sz, &va), 1, IA);
	DC_ASSERT_INVALID_HANDLE(dc_dat_lmr_create((DAT_IA_HANDLE)pz, DAT_MEM_TYPE_VIRTUAL, rd, BUF, pz,
				     DC_PRIV_LOCAL, &lmr, &lc, &rc, &sz, &va), 1, IA);
	DC_ASSERT_INVALID_HANDLE(dc_dat_lmr_create(t->ia, DAT_MEM_TYPE_VIRTUAL, rd, BUF, DAT_HANDLE_NULL,
				     DC_PRIV_LOCAL, &lmr, &lc, &rc, &sz, &va), 5, PZ);
	DC_ASSERT_INVALID_HANDLE(dc_dat_lmr_create(t->ia, DAT_MEM_TYPE_VIRTUAL, rd, BUF, (DAT_PZ_HANDLE)evd,
				     DC_PRIV_LOCAL, &lmr, &lc, &rc, &sz, &va), 5, PZ);
	rd.for_lmr_handle = (DAT_LMR_HANDLE)pz;
	DC_ASSERT_INVALID_HANDLE(dc_dat_lmr_create(t->ia, DAT_MEM_TYPE_LMR, rd, BUF, pz,
						   DC_PRIV_LOCAL, &lmr, &lc, &rc, &sz, &va),
				 3, LMR);
	DC_CLEANUP(dat_pz_free(pz));
}

/* The same for a freed PZ: a case of its own, so that a call that does not
 * survive the handle of a destroyed object (a registry that dispatches
 * through the handle) leaves the checks above judged. */
DC_CASE(dat_lmr_create, invalid_handle_freed,
	.clauses = "dat_lmr_create.invalid_handle",
	.summary = "a freed PZ gives DAT_INVALID_HANDLE")
{
	DAT_PZ_HANDLE gone = dc_pz(t);
	unsigned char *buf = dc_case_buf(t, DAT_OPTIMAL_ALIGNMENT, BUF);
	DAT_REGION_DESCRIPTION rd;
	DAT_LMR_HANDLE lmr;
	DAT_LMR_CONTEXT lc;
	DAT_RMR_CONTEXT rc;
	DAT_VLEN sz;
	DAT_VADDR va;

	DC_SETUP_ASSERT(buf, "out of memory");
	DC_SETUP(dat_pz_free(gone));
	memset(&rd, 0, sizeof(rd));
	rd.for_va = buf;
	DC_ASSERT_INVALID_HANDLE(dc_dat_lmr_create(t->ia, DAT_MEM_TYPE_VIRTUAL, rd, BUF, gone,
				     DC_PRIV_LOCAL, &lmr, &lc, &rc, &sz, &va), 5, PZ);
}

DC_CASE(dat_lmr_create, shared_not_shared_invalid_state,
	.summary = "SHARED_VIRTUAL over private memory gives DAT_INVALID_STATE")
{
	DAT_PZ_HANDLE pz = dc_pz(t);
	unsigned char *priv = dc_case_buf(t, 4096, BUF);
	char cookie[DAT_LMR_COOKIE_SIZE];
	struct dc_lmr m;

	DC_SETUP_ASSERT(priv, "out of memory");
	memset(priv, 1, BUF);
	memset(cookie, 'p', sizeof(cookie));
	DC_ASSERT_RET(lmr_shared(t, priv, &cookie, BUF, pz, DC_PRIV_LOCAL, &m), DAT_INVALID_STATE);
	DC_CLEANUP(dat_pz_free(pz));
}

/*
 * A shared region is described by its cookie and its address (PARAMETERS,
 * DAT_MEM_TYPE_SHARED_VIRTUAL): a description missing either names no
 * region. Missing the address may also read as memory the platform did
 * not create shared (DAT_INVALID_STATE).
 */
DC_CASE(dat_lmr_create, shared_description_incomplete,
	.summary = "SHARED_VIRTUAL with a NULL cookie or a NULL address is refused; nothing registered")
{
	DAT_PZ_HANDLE pz = dc_pz(t);
	unsigned char *shm = shared_map(t, BUF);
	char cookie[DAT_LMR_COOKIE_SIZE];
	struct dc_lmr m;

	memset(cookie, 'q', sizeof(cookie));
	/* set-up: the provider takes a complete shared description */
	DC_SETUP(lmr_shared(t, shm, &cookie, BUF, pz, DC_PRIV_LOCAL, &m));
	DC_SETUP(dat_lmr_free(m.lmr));
	DC_ASSERT_RET(lmr_shared(t, shm, NULL, BUF, pz, DC_PRIV_LOCAL, &m), DAT_INVALID_PARAMETER);
	DC_ASSERT_RET_ANY(lmr_shared(t, NULL, &cookie, BUF, pz, DC_PRIV_LOCAL, &m),
			  DAT_INVALID_PARAMETER, DAT_INVALID_STATE);
	DC_CLEANUP(dat_pz_free(pz));
}

DC_CASE(dat_lmr_create, unknown_type_refused,
	.summary = "an undefined mem_type is refused (MODEL_NOT_SUPPORTED or INVALID_PARAMETER)")
{
	DAT_PZ_HANDLE pz = dc_pz(t);
	unsigned char *buf = dc_case_buf(t, DAT_OPTIMAL_ALIGNMENT, BUF);
	DAT_REGION_DESCRIPTION rd;
	DAT_LMR_HANDLE lmr;
	DAT_LMR_CONTEXT lc;
	DAT_RMR_CONTEXT rc;
	DAT_VLEN sz;
	DAT_VADDR va;

	DC_SETUP_ASSERT(buf, "out of memory");
	memset(&rd, 0, sizeof(rd));
	rd.for_va = buf;
	DC_ASSERT_RET_ANY(dc_dat_lmr_create(t->ia, (DAT_MEM_TYPE)0x40, rd, BUF, pz, DC_PRIV_LOCAL,
					 &lmr, &lc, &rc, &sz, &va),
			  DAT_MODEL_NOT_SUPPORTED, DAT_INVALID_PARAMETER);
	DC_CLEANUP(dat_pz_free(pz));
}

DC_CASE(dat_lmr_create, lmr_over_lmr_own_pz_privileges,
	.summary = "an LMR over an LMR takes its own PZ and privileges and works for that PZ's EP")
{
	struct dc_pair p;
	struct dc_lmr orig, over, src;
	DAT_LMR_PARAM q;

	dc_pair_up(t, &p, 0, NULL);
	dc_lmr(t, p.a.pz, BUF, DAT_MEM_PRIV_ALL_FLAG, &orig);
	DC_ASSERT_SUCCESS(lmr_of_lmr(t, orig.lmr, BUF, p.b.pz, DAT_MEM_PRIV_LOCAL_WRITE_FLAG,
				     &over, &orig));
	memset(&q, 0, sizeof(q));
	/* collateral: dat_lmr_create(3DAT) USAGE: the LMR over an LMR has its own PZ and privileges, as its query shows */
	DC_ASSERT_SUCCESS(dat_lmr_query(over.lmr, DAT_LMR_FIELD_ALL, &q));
	DC_ASSERT_PTR_EQ(q.pz_handle, p.b.pz);
	DC_ASSERT_EQ(q.mem_priv, DAT_MEM_PRIV_LOCAL_WRITE_FLAG);
	dc_lmr(t, p.a.pz, BUF, DC_PRIV_LOCAL, &src);
	dc_fill(src.buf, 600, 44);
	dc_post_recv(t, p.b.ep, &over, 0, 600, 1);
	dc_send_sync(t, &p.a, &src, 0, 600, 2);
	dc_await_recv(t, &p.b, 1);
	DC_ASSERT(!memcmp(orig.buf, src.buf, 600), "the receive through the LMR-of-LMR did not land");
}

DC_CASE(dat_lmr_create, rmr_context_until_free,
	.summary = "the rmr_context works until dat_lmr_free, unaffected by other registrations; after it, REMOTE_ACCESS")
{
	struct dc_pair p;
	struct dc_lmr src, target, other;
	DAT_DTO_COMPLETION_STATUS st;
	DAT_RMR_TRIPLET win;

	dc_pair_up(t, &p, 0, NULL);
	dc_lmr(t, p.a.pz, BUF, DC_PRIV_LOCAL, &src);
	dc_lmr(t, p.b.pz, BUF, DAT_MEM_PRIV_ALL_FLAG, &target);
	win = dc_rmr_iov(&target, 0, 256);
	dc_fill(src.buf, BUF, 2);
	st = dc_rdma_write(t, &p.a, &src, 0, 256, win, 1);
	DC_ASSERT_DTO_STATUS(st, DAT_DTO_SUCCESS);
	dc_lmr(t, p.b.pz, BUF, DAT_MEM_PRIV_ALL_FLAG, &other);
	DC_SETUP(dat_lmr_free(other.lmr));
	st = dc_rdma_write(t, &p.a, &src, 256, 256, win, 2);
	DC_ASSERT_DTO_STATUS(st, DAT_DTO_SUCCESS);
	DC_ASSERT(!memcmp(target.buf, src.buf + 256, 256), "the second RDMA Write did not land");
	DC_SETUP(dat_lmr_free(target.lmr));
	memset(target.buf, 0, BUF);
	st = dc_rdma_write(t, &p.a, &src, 0, 256, win, 3);
	DC_ASSERT_DTO_STATUS(st, DAT_DTO_ERR_REMOTE_ACCESS);
	DC_ASSERT((dc_first_not(target.buf, BUF, 0) < 0), "memory of a freed LMR was written");
}

/*
 * dat_lmr_create(3DAT) RETURN VALUES: running out is DAT_INSUFFICIENT_RESOURCES.
 * Max LMRs counts among all Providers and applications of the IA
 * (dat_ia_query(3DAT) DESCRIPTION), so the refusal may come before max_lmrs
 * (was a FAIL; variant lmrs-used-elsewhere).  More LMRs than the case will
 * make is a bound of its own.  Plain virtual registrations of one buffer:
 * LMR-type registration is optional (lmr_mem_types_supported).  Whether a
 * free makes room again the page does not say: noted, not judged.  No page
 * bounds a registration's time either: where the registrations made so far
 * say that max_lmrs of them, and freeing them again, would not fit in the
 * case's deadline (a registration under software emulation), that is the
 * case's own bound.
 */
DC_CASE(dat_lmr_create, insufficient_resources,
	.summary = "LMRs are registered up to max_lmrs or until the IA runs out; the refusal is DAT_INSUFFICIENT_RESOURCES")
{
	static unsigned char buf[BUF];
	DAT_COUNT n = t->ia_attr.max_lmrs, made = 0;
	DAT_PZ_HANDLE pz = dc_pz(t);
	struct dc_lmr last = { 0 }, more;
	DAT_RETURN r = DAT_SUCCESS;
	double t0 = dc_now_ms();

	if (n > 65536)
		DC_BEYOND_SUITE_BOUND("65536 LMRs", "the IA reports max_lmrs = %d", (int)n);
	while (made < n) {
		r = dc_lmr_register(t->ia, pz, buf, BUF, DC_PRIV_LOCAL, &more);
		if (r != DAT_SUCCESS)
			break;
		last = more;
		made++;
		/* judged on 2048 at least, against four fifths of the time left (the
		 * rest for the frees): a busy machine's first few are no measure */
		if (made % 1024 == 0 && made >= 2048) {
			double took = dc_now_ms() - t0, rest = took / made * (n - made);

			if (rest > 0.8 * (double)dc_remaining_ms(t))
				DC_BEYOND_SUITE_BOUND("max_lmrs registrations inside the case's deadline",
						      "%d of max_lmrs %d registered in %.0f ms: the rest "
						      "would take about %.0f ms, %ld ms are left",
						      (int)made, (int)n, took, rest, dc_remaining_ms(t));
		}
	}
	if (made < n) {
		dc_note(t, "registration stopped at %d of max_lmrs %d", (int)made, (int)n);
	} else {
		r = dc_lmr_register(t->ia, pz, buf, BUF, DC_PRIV_LOCAL, &more);
		if (r == DAT_SUCCESS) {
			dc_note(t, "the Provider registered more than max_lmrs (%d) LMRs", n);
			return;
		}
	}
	DC_ASSERT_RET(r, DAT_INSUFFICIENT_RESOURCES);
	if (made > 0) {
		DC_SETUP(dat_lmr_free(last.lmr));
		r = dc_lmr_register(t->ia, pz, buf, BUF, DC_PRIV_LOCAL, &more);
		dc_note(t, "after one free, registration returned %s (not judged)", dc_ret_text(r));
	}
}

/*
 * Out of memory (the allocation fault hook): each allocation of 40
 * registrations in a row failing in turn, dat_lmr_create gives
 * DAT_INSUFFICIENT_RESOURCES (dat_lmr_create(3DAT) RETURN VALUES) or an
 * LMR that works.  out_of_memory: the LMRs made report their region, and
 * once they are freed the IA closes gracefully (no refused registration
 * left an LMR).  out_of_memory_usable: each LMR made is used over a
 * connection, as the source of an RDMA Write (its lmr_context) and as the
 * target of the peer's (its rmr_context), and the bytes arrive.
 */
struct oom_lmrs {
	DAT_PZ_HANDLE pz;
	unsigned char *buf;
	struct dc_pair *p;		/* usable: the connection */
	struct dc_lmr m[DC_ALLOC_FAULT_OBJECTS];
	int n;
};

static DAT_RETURN oom_lmr_make(struct dc_ctx *t, void *arg)
{
	struct oom_lmrs *o = arg;

	return dc_lmr_register(t->ia, o->pz, o->buf, BUF, DAT_MEM_PRIV_ALL_FLAG, &o->m[o->n]);
}

/* The LMR m carries an RDMA Write to the peer and takes one from it. */
static void oom_lmr_carries(struct dc_ctx *t, struct dc_pair *p, const struct dc_lmr *m, int i)
{
	dc_fill(m->buf, 64, (unsigned int)i + 1);
	memset(p->mb.buf, 0, 64);
	/* collateral: dat_lmr_create(3DAT) RETURN VALUES: DAT_SUCCESS registered memory an RDMA Write can take its bytes from */
	rdma_write_carried(&p->a, m, 0, 64, dc_rmr_iov(&p->mb, 0, 64), 1);
	DC_ASSERT(!memcmp(p->mb.buf, m->buf, 64),
		  "an RDMA Write from LMR %d did not carry its bytes", i);
	dc_fill(p->mb.buf, 64, (unsigned int)i + 100);
	/* collateral: dat_lmr_create(3DAT) RETURN VALUES: and that the peer's RDMA Write reaches through its rmr_context */
	rdma_write_carried(&p->b, &p->mb, 0, 64, dc_rmr_iov(m, 0, 64), 2);
	DC_ASSERT(!memcmp(p->mb.buf, m->buf, 64),
		  "an RDMA Write into LMR %d did not reach its memory", i);
}

static void oom_lmr_works(struct dc_ctx *t, void *arg, bool keep)
{
	struct oom_lmrs *o = arg;
	struct dc_lmr *m = &o->m[o->n];
	DAT_LMR_PARAM q = dc_lmr_param(t, m->lmr);

	DC_ASSERT(q.lmr_context == m->lmr_context && q.pz_handle == o->pz,
		  "an LMR made with an allocation failing reports context %#x and PZ %p "
		  "(the create gave %#x, PZ %p)", (unsigned int)q.lmr_context, q.pz_handle,
		  (unsigned int)m->lmr_context, o->pz);
	if (o->p)
		oom_lmr_carries(t, o->p, m, o->n);
	if (keep)
		o->n++;
	else
		DC_CLEANUP(dat_lmr_free(m->lmr));
}

static void oom_lmrs_make(struct dc_ctx *t, struct oom_lmrs *o)
{
	struct dc_alloc_call c = { "dat_lmr_create", oom_lmr_make, oom_lmr_works, o, NULL };
	int n = dc_within_limit(DC_ALLOC_FAULT_OBJECTS, t->ia_attr.max_lmrs);

	o->buf = dc_case_buf(t, DAT_OPTIMAL_ALIGNMENT, BUF);
	o->n = 0;
	for (int i = 0; i < n; i++)
		if (dc_alloc_sweep(t, &c) < 0)
			break;
}

DC_CASE(dat_lmr_create, out_of_memory,
	.clauses = "dat_lmr_create.insufficient_resources",
	.needs = DC_ALLOC_FAULT_NEEDS,
	.summary = "each allocation of 40 registrations failing in turn: DAT_INSUFFICIENT_RESOURCES or a working LMR, and no LMR left behind")
{
	struct oom_lmrs o = { .pz = dc_pz(t) };

	oom_lmrs_make(t, &o);
	for (int i = 0; i < o.n; i++)
		DC_CLEANUP(dat_lmr_free(o.m[i].lmr));
	DC_CLEANUP(dat_pz_free(o.pz));
	DC_ASSERT_IA_CLOSES_GRACEFULLY();
}

DC_CASE(dat_lmr_create, out_of_memory_usable,
	.clauses = "dat_lmr_create.insufficient_resources",
	.needs = DC_ALLOC_FAULT_NEEDS,
	.summary = "each LMR registered while allocations fail in turn carries RDMA Writes both ways")
{
	struct dc_pair p;
	struct oom_lmrs o;

	dc_pair_up(t, &p, BUF, NULL);
	o = (struct oom_lmrs){ .pz = p.a.pz, .p = &p };
	oom_lmrs_make(t, &o);
}

/* ---- a registration from inside an abrupt dat_ia_close -------------------- */

struct close_reg {
	DAT_PZ_HANDLE pz;	/* of the IA being closed: destroyed by then */
	void *buf;
	DAT_RETURN r;
	DAT_LMR_HANDLE lmr;
};

#define CLOSE_SENTINEL ((DAT_LMR_HANDLE)(uintptr_t)0xA5A5A5A5u)

static void register_closing(DAT_IA_HANDLE ia, void *arg)
{
	struct close_reg *c = arg;
	DAT_REGION_DESCRIPTION rd;
	DAT_LMR_CONTEXT lc;
	DAT_RMR_CONTEXT rc;
	DAT_VLEN sz;
	DAT_VADDR va;

	memset(&rd, 0, sizeof(rd));
	rd.for_va = c->buf;
	c->lmr = CLOSE_SENTINEL;
	c->r = dc_dat_lmr_create(ia, DAT_MEM_TYPE_VIRTUAL, rd, BUF, c->pz, DC_PRIV_LOCAL, &c->lmr,
				 &lc, &rc, &sz, &va);
}

DC_CASE(dat_lmr_create, closing_ia,
	.summary = "dat_lmr_create from the agent upcall of an abrupt dat_ia_close: DAT_INVALID_HANDLE, or DAT_SUCCESS with an LMR")
{
	DAT_IA_HANDLE ia2 = DAT_HANDLE_NULL;
	DAT_EVD_HANDLE aevd = DAT_HANDLE_NULL;
	struct close_reg c = { .r = DAT_SUCCESS };

	c.buf = dc_case_buf(t, DAT_OPTIMAL_ALIGNMENT, BUF);
	DC_SETUP_ASSERT(c.buf, "out of memory");
	DC_SETUP(dat_ia_open((const DAT_NAME_PTR)t->ia_name, 8, &aevd, &ia2));
	DC_SETUP(dat_pz_create(ia2, &c.pz));
	dc_close_with_agent_call(t, ia2, register_closing, &c);
	dc_note(t, "dat_lmr_create during the close: %s", dc_ret_text(c.r));
	DC_ASSERT(c.r == DAT_SUCCESS || DAT_GET_TYPE(c.r) == DAT_INVALID_HANDLE,
		  "dat_lmr_create on the IA being closed (its PZ destroyed) returned %s, expected "
		  "DAT_INVALID_HANDLE", dc_ret_text(c.r));
	if (c.r == DAT_SUCCESS)
		DC_ASSERT(c.lmr != CLOSE_SENTINEL && c.lmr != DAT_HANDLE_NULL,
			  "dat_lmr_create returned DAT_SUCCESS without an LMR handle");
}

/*
 * dat_lmr_create(3DAT) ATTRIBUTES: MT-Level Safe.  Threads register
 * memory at the same time, four on the case's IA and four on IAs they
 * opened themselves (dat_ia_open is Safe too), into a PZ of their IA
 * made beforehand; rounds for 0.7 s (at least 2), so later rounds reuse what the frees of the
 * round before gave back.  Each thread registers 64-byte pieces of its own
 * buffer (the pages do not forbid registering memory twice).
 */
static DAT_RETURN lmr_crowd_make(struct dc_crowd_worker *w, int i, DAT_HANDLE *out)
{
	struct dc_lmr m;
	DAT_RETURN r;

	r = dc_lmr_register(w->ia, w->obj[0], (char *)w->user + (i % 64) * 64, 64,
			    DAT_MEM_PRIV_LOCAL_READ_FLAG | DAT_MEM_PRIV_LOCAL_WRITE_FLAG, &m);
	*out = m.lmr;
	return r;
}

DC_CASE(dat_lmr_create, mt_safe_concurrent,
	.summary = "8 threads (4 on one IA, 4 on IAs of their own) create up to 500 LMRs each at once, rounds for 0.7 s: no error but running out, all distinct, each an LMR of its IA and PZ that frees")
{
	static struct dc_crowd c = {
		.what = "dat_lmr_create", .per_worker = 500, .round_ms = 150,
		.create = lmr_crowd_make,
	};

	dc_crowd_init(&c, 4, 4);
	for (struct dc_crowd_worker *w = c.w; w < c.w + c.nw; w++) {
		struct dc_crowd_worker *f = dc_crowd_first_on(&c, w);

		w->user = dc_case_buf(t, 4096, 4096);
		if (f != w)		/* one PZ per IA */
			w->obj[0] = f->obj[0];
		else
			DC_SETUP(dat_pz_create(w->ia, &w->obj[0]));
	}
	while (dc_crowd_again(&c, 2, 12, 700)) {
		dc_crowd_round(&c);
		DC_ASSERT_CROWD(&c);
		DC_CROWD_EACH(&c, w, k) {
			DAT_LMR_PARAM p = { 0 };

			/* collateral: dat_lmr_create(3DAT) ATTRIBUTES: MT-Level Safe, so an LMR made beside other threads' creates is an LMR of its IA and PZ, as one made alone */
			DC_ASSERT_SUCCESS(dat_lmr_query(w->made[k], DAT_LMR_FIELD_IA_HANDLE |
							DAT_LMR_FIELD_PZ_HANDLE, &p));
			DC_ASSERT_IA_HANDLE(p.ia_handle, w->ia);
			DC_ASSERT_PTR_EQ(p.pz_handle, w->obj[0]);
		}
		DC_CROWD_EACH(&c, w, k)
			/* collateral: dat_lmr_create(3DAT) DESCRIPTION: as above, an LMR that frees */
			DC_ASSERT_SUCCESS(dat_lmr_free(w->made[k]));
	}
	dc_crowd_fini(t, &c);
}
