/* SPDX-License-Identifier: MIT */
/*
 * Finding peer-death-requests-lost (docs/certification/ofa-dapl-2.1.10/):
 * a Send (no Receive waits for it), an RDMA Read, an RDMA Write and another
 * RDMA Read are outstanding when the peer process is killed. Each request is
 * to complete once, with its own cookie, on the request EVD
 * (dat_ep_post_send(3DAT), dat_ep_post_rdma_read(3DAT),
 * dat_ep_post_rdma_write(3DAT) DESCRIPTION); a broken connection flushes them.
 *
 * The same requests then outstanding when this side disconnects abruptly
 * while the peer process is stopped (SIGSTOP), with max_rdma_read_out 1 so
 * that the second Read waits behind the first: dat_ep_disconnect(3DAT)
 * DESCRIPTION, an abrupt disconnect completes the outstanding requests too.
 * Each way is a part of its own (repro_parts).
 *
 * The peer is this program again (exec'd, in a process group of its own, so
 * that one kill ends it and its child): it listens on a PSP, offers a
 * window of its memory, and says the qualifier and the window through a pipe.
 */
#include "repro.h"

#define PEER_FD_ENV "REPRO_PEER_FD"
#define MEM (64u * 1024u)
#define SEG (16u * 1024u)
#define REQUESTS 4
#define ROUNDS 12	/* killed; stopped: two thirds as many */

struct window {
	DAT_CONN_QUAL q;
	DAT_RMR_CONTEXT rmr_context;
	DAT_VADDR address;
};

/* The peer: accepts one connection over a window of MEM bytes, then waits to be killed. */
static enum repro_answer peer(DAT_IA_HANDLE ia, int fd)
{
	struct window w;
	struct repro_end e;
	DAT_EVD_HANDLE cr_evd;
	DAT_PSP_HANDLE psp;
	DAT_LMR_HANDLE lmr;
	DAT_LMR_CONTEXT lmr_context;
	DAT_EVENT ev;
	void *mem = calloc(1, MEM);

	if (!mem || repro_end(ia, &e) != DAT_SUCCESS ||
	    repro_lmr(ia, e.pz, mem, MEM, DAT_MEM_PRIV_ALL_FLAG, &lmr, &lmr_context,
		      &w.rmr_context) != DAT_SUCCESS ||
	    repro_psp(ia, &w.q, &cr_evd, &psp) != DAT_SUCCESS)
		_exit(REPRO_CANNOT);
	w.address = (DAT_VADDR)(uintptr_t)mem;
	if (write(fd, &w, sizeof(w)) != (ssize_t)sizeof(w) ||
	    repro_event(cr_evd, 20000, &ev) != DAT_SUCCESS ||
	    ev.event_number != DAT_CONNECTION_REQUEST_EVENT ||
	    dat_cr_accept(ev.event_data.cr_arrival_event_data.cr_handle, e.ep, 0, NULL) !=
		    DAT_SUCCESS)
		_exit(REPRO_CANNOT);
	for (;;)
		pause();
}

/* Starts the peer; its window through the pipe. The peer's pid, or -1 when it did not come. */
static pid_t start_peer(struct window *w)
{
	char fd_text[16];
	int p[2];
	pid_t pid;

	if (pipe(p))
		return -1;
	pid = fork();
	if (pid == 0) {
		setpgid(0, 0);
		close(p[0]);
		/* one output line is the parent's answer */
		if (!freopen("/dev/null", "w", stdout))
			_exit(REPRO_CANNOT);
		snprintf(fd_text, sizeof(fd_text), "%d", p[1]);
		setenv(PEER_FD_ENV, fd_text, 1);
		execl("/proc/self/exe", "peer-death-requests-lost", repro_ia_name, (char *)NULL);
		_exit(REPRO_CANNOT);
	}
	close(p[1]);
	if (pid > 0)
		setpgid(pid, pid);	/* whichever of the two runs first */
	if (pid < 0 || read(p[0], w, sizeof(*w)) != (ssize_t)sizeof(*w)) {
		close(p[0]);
		if (pid > 0) {
			kill(-pid, SIGKILL);
			waitpid(pid, NULL, 0);
		}
		return -1;
	}
	close(p[0]);
	return pid;
}

static DAT_RETURN post_requests(const struct repro_end *a, const DAT_LMR_TRIPLET *mem,
				const struct window *w)
{
	DAT_LMR_TRIPLET iov = *mem;
	DAT_RMR_TRIPLET remote = { .rmr_context = w->rmr_context, .segment_length = SEG };
	DAT_RETURN r;

	iov.segment_length = 64;
	if ((r = dat_ep_post_send(a->ep, 1, &iov, (DAT_DTO_COOKIE){ .as_64 = 1 },
				  DAT_COMPLETION_DEFAULT_FLAG)) != DAT_SUCCESS)
		return r;
	for (unsigned int i = 1; i < REQUESTS; i++) {
		iov.virtual_address = mem->virtual_address + (i - 1) * SEG;
		iov.segment_length = SEG;
		remote.virtual_address = w->address + (i - 1) * SEG;
		r = i == 2 ? dat_ep_post_rdma_write(a->ep, 1, &iov,
						    (DAT_DTO_COOKIE){ .as_64 = i + 1 }, &remote,
						    DAT_COMPLETION_DEFAULT_FLAG) :
			dat_ep_post_rdma_read(a->ep, 1, &iov, (DAT_DTO_COOKIE){ .as_64 = i + 1 },
					      &remote, DAT_COMPLETION_DEFAULT_FLAG);
		if (r != DAT_SUCCESS)
			return r;
	}
	return DAT_SUCCESS;
}

/* The active end; for a stopped peer with max_rdma_read_out 1 (the Provider's defaults else). */
static DAT_RETURN active_end(DAT_IA_HANDLE ia, struct repro_end *a, int stopped)
{
	DAT_EP_PARAM param;
	DAT_RETURN r;

	if ((r = repro_end_param(ia, a, &param)) != DAT_SUCCESS || !stopped ||
	    (r = dat_ep_free(a->ep)) != DAT_SUCCESS)
		return r;
	param.ep_attr.max_rdma_read_out = 1;
	return dat_ep_create(ia, a->pz, a->dto, a->dto, a->conn, &param.ep_attr, &a->ep);
}

/*
 * a connected to the peer pid and the requests posted; stopped: the peer's processes stopped
 * before the posts and a disconnected abruptly after them.
 */
static DAT_RETURN connect_and_post(DAT_IA_HANDLE ia, struct repro_end *a, pid_t pid,
				   const struct window *w, int stopped)
{
	DAT_LMR_TRIPLET mem;
	DAT_RETURN r;

	if ((r = active_end(ia, a, stopped)) != DAT_SUCCESS ||
	    (r = repro_buffer(ia, a->pz, MEM, &mem)) != DAT_SUCCESS ||
	    (r = dat_ep_connect(a->ep, repro_ia_address(ia), w->q, 10000000, 0, NULL,
				DAT_QOS_BEST_EFFORT, DAT_CONNECT_DEFAULT_FLAG)) != DAT_SUCCESS ||
	    (r = repro_expect(a->conn, DAT_CONNECTION_EVENT_ESTABLISHED)) != DAT_SUCCESS)
		return r;
	if (stopped && kill(-pid, SIGSTOP))
		return DAT_INTERNAL_ERROR;
	if ((r = post_requests(a, &mem, w)) != DAT_SUCCESS || !stopped)
		return r;
	return dat_ep_disconnect(a->ep, DAT_CLOSE_ABRUPT_FLAG);
}

/*
 * One round: connect to a new peer, post, kill the peer (stopped: stop it first, post, then
 * disconnect abruptly), count the completions. log gets them (cookie:status in arrival order).
 */
static enum repro_answer one_round(DAT_IA_HANDLE ia, int stopped, char *log, size_t len)
{
	struct repro_end a;
	struct window w;
	DAT_EVENT ev;
	DAT_RETURN r;
	int seen[REQUESTS + 1] = { 0 }, completions = 0, wrong = 0;
	pid_t pid = start_peer(&w);

	*log = '\0';
	if (pid < 0) {
		snprintf(log, len, "the peer process did not offer its window");
		return REPRO_CANNOT;
	}
	if ((r = connect_and_post(ia, &a, pid, &w, stopped)) != DAT_SUCCESS) {
		kill(-pid, SIGKILL);
		waitpid(pid, NULL, 0);
		snprintf(log, len, "connecting to the peer, posting or disconnecting failed: %s",
			 REPRO_RET(r));
		return REPRO_CANNOT;
	}
	if (!stopped) {
		kill(-pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
	/* every completion within 10 s of the last one (half a second once all could have come) */
	while (repro_event(a.dto, completions < REQUESTS ? 10000 : 500, &ev) == DAT_SUCCESS) {
		DAT_DTO_COMPLETION_EVENT_DATA *d = &ev.event_data.dto_completion_event_data;
		size_t used = strlen(log);

		if (ev.event_number != DAT_DTO_COMPLETION_EVENT) {
			snprintf(log + used, len - used, " %s", REPRO_EVENT(ev.event_number));
			continue;
		}
		completions++;
		snprintf(log + used, len - used, " %llu:%s",
			 (unsigned long long)d->user_cookie.as_64,
			 d->status == DAT_DTO_SUCCESS ? "ok" : "err");
		if (d->user_cookie.as_64 >= 1 && d->user_cookie.as_64 <= REQUESTS)
			seen[d->user_cookie.as_64]++;
		else
			wrong++;
	}
	for (int i = 1; i <= REQUESTS; i++)
		if (seen[i] != 1)
			wrong++;
	if (stopped) {
		kill(-pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
	/* the EP is left as it is: a free after a broken connection is another page's */
	return wrong ? REPRO_SHOWS : REPRO_ABSENT;
}

static enum repro_answer rounds(DAT_IA_HANDLE ia, int stopped)
{
	static const char *const how[] = {
		"after the peer was killed",
		"after an abrupt dat_ep_disconnect while the peer was stopped",
	};
	int n = stopped ? ROUNDS * 2 / 3 : ROUNDS;
	char log[256];

	/* the loss depends on timing (one round in three or four on soft-iWARP): several rounds */
	for (int round = 1; round <= n; round++) {
		enum repro_answer a = one_round(ia, stopped, log, sizeof(log));

		if (a == REPRO_CANNOT)
			return repro_say(a, "round %d: %s", round, log);
		if (a == REPRO_SHOWS)
			return repro_say(a, "round %d of %d: %s with %d requests outstanding, the "
					 "completions (cookie:status):%s", round, n, how[stopped],
					 REQUESTS, log);
	}
	return repro_say(REPRO_ABSENT, "in %d rounds each of the %d requests completed once %s "
			 "(the last round:%s)", n, REQUESTS, how[stopped], log);
}

static enum repro_answer killed(DAT_IA_HANDLE ia)
{
	return rounds(ia, 0);
}

static enum repro_answer stopped(DAT_IA_HANDLE ia)
{
	return rounds(ia, 1);
}

static enum repro_answer body(DAT_IA_HANDLE ia)
{
	static const struct repro_part parts[] = {
		{ "killed", killed },
		{ "stopped", stopped },
	};
	const char *peer_fd = getenv(PEER_FD_ENV);

	return peer_fd ? peer(ia, atoi(peer_fd)) : repro_parts(ia, parts, 2);
}

REPRO_MAIN(.finding = "peer-death-requests-lost", .body = body, .timeout_s = 240)
