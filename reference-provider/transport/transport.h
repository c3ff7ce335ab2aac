/* SPDX-License-Identifier: MIT */
/*
 * transport.h - the interface between the provider core and a transport.
 *
 * A transport gives core reliable connections (the analogue of an RC queue
 * pair), listeners for connection qualifiers, a connection manager with
 * private data both ways, and a progress engine that calls back into core.
 * Two shapes of transport fit behind it:
 *
 *  - a *software RC* transport (sock): it moves framed operations (Send,
 *    RDMA Write, RDMA Read request/response, acknowledgements) between
 *    peers and leaves the DAT semantics to core - core matches Sends to
 *    receive buffers (EP queue or SRQ), checks RDMA windows on the target
 *    before any byte is placed, and generates completions.  The "rx_*"
 *    upcalls below serve this shape.
 *  - a *hardware RC* transport (verbs, later): work requests map 1:1 to
 *    ibv_post_send / ibv_post_recv / ibv_post_srq_recv, matching and
 *    window checks happen in the HCA, and the transport reports work
 *    completions through ref_tp_wr_done().  Such a transport sets
 *    REF_TP_CAP_HW_RECV and implements post_recv/srq_* ops.
 *
 * Threading and locking: every op is called by core with ia->lock held
 * and must not block (connect, write and accept are asynchronous; output
 * that does not fit the socket is queued).  Exceptions: open/close are
 * called without the lock.  Every upcall (ref_tp_*) is made with ia->lock
 * held, from the progress engine or from inside an op.  An upcall may call
 * ops on any connection (e.g. respond with an ack) but must not call
 * tp close.
 *
 * Connection object life: a struct ref_tp_conn is created by connect (or
 * by an arriving connection on a listener) and is owned by the transport.
 * Core names it until it calls release(); after release() the transport
 * makes no more upcalls about it and frees it when convenient.
 */
#ifndef REF_TRANSPORT_H
#define REF_TRANSPORT_H

#include "conn.h"

#include <pthread.h>
#include <stdint.h>
#include <sys/uio.h>
#include <time.h>
#include "profile.h"

/* A Provider EP's Read depth from the requester's (@want, off the wire):
 * within REF_MAX_RDMA_READ and this provider's per-EP maximum @own of that
 * direction (dat_ia_query(3DAT): the IA's own maxima, which may differ for
 * incoming and outgoing Reads). */
static inline DAT_COUNT ref_peer_read_limit(uint32_t want, DAT_COUNT own)
{
	DAT_COUNT lim = own > 0 && own < REF_MAX_RDMA_READ ? own : REF_MAX_RDMA_READ;

	return want < (uint32_t)lim ? (DAT_COUNT)want : lim;
}

/* CLOCK_MONOTONIC times of the transports' timers (handshakes, lingers, delayed
 * acknowledgements, flush waits). */
static inline struct timespec now_mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts;
}

static inline struct timespec deadline_after_us(uint64_t us)
{
	struct timespec ts = now_mono();

	ts.tv_sec += (time_t)(us / 1000000u);
	ts.tv_nsec += (long)(us % 1000000u) * 1000L;
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	return ts;
}

static inline bool ts_before(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec < b->tv_sec ||
	       (a->tv_sec == b->tv_sec && a->tv_nsec < b->tv_nsec);
}

struct ref_transport_ops;

/*
 * The progress engine (engine.c), one per transport instance: a thread
 * that sleeps on the transport's descriptors (the inner epoll set, @epfd)
 * and a wake-up eventfd, and runs @round with ia->lock held whenever one
 * is readable or @timeout_ms (the transport's next timer, -1 none) is due.
 * A consumer may take the descriptors over (ref_conn_wait polls @epfd
 * itself between ref_engine_poll_begin/_end; a busy poller calls
 * ref_engine_busy_poll): the thread then only ticks every @tick_ms until
 * nobody polls, and takes them back.  The thread does not block on
 * ia->lock held by a consumer, except to stop (engine.c, engine_sleep).
 *
 * Completion queues are armed only for a sleeper: whoever is about to sleep
 * on @epfd (the thread while it watches it, a consumer in ref_conn_wait)
 * first calls ref_engine_arm, which runs @arm: request a notification for
 * every queue not armed yet and reap what arrived before.  A consumer that
 * busy-polls reaps the queues itself, and nobody is woken per completion.
 */
struct ref_engine {
	struct ref_ia *ia;
	int epfd;		/* inner: the transport's descriptors */
	int outer;		/* the thread sleeps here: wakefd + epfd */
	int wakefd;
	int tick_ms;
	pthread_t thread;
	bool thread_started;
	bool stop;		/* set under the lock, read by the thread without */
	bool detached;		/* epfd out of outer: a consumer polls it */
	int pollers;		/* consumers polling epfd (ref_conn_wait) */
	struct timespec busy_at, busy_round_at;	/* ref_engine_busy_poll */
	unsigned int busy_calls;
	bool polled;		/* busy polled since the thread last looked
				 * (atomic: it looks without the lock) */
	void (*round)(struct ref_engine *e);
	int (*timeout_ms)(struct ref_engine *e);
	void (*arm)(struct ref_engine *e);	/* optional */
};

/* Descriptors; 0 or -1 (ref_engine_fini cleans up either way). */
int ref_engine_init(struct ref_engine *e, struct ref_ia *ia, int tick_ms,
		    void (*round)(struct ref_engine *e),
		    int (*timeout_ms)(struct ref_engine *e),
		    void (*arm)(struct ref_engine *e));
/* Adds @fd to the inner set with @ptr as its epoll data. */
int ref_engine_watch(struct ref_engine *e, int fd, uint32_t events, void *ptr);
int ref_engine_start(struct ref_engine *e);
/* Stops and joins the thread; called WITHOUT ia->lock. */
void ref_engine_stop(struct ref_engine *e);
void ref_engine_fini(struct ref_engine *e);
/* Makes the thread run a round soon (any thread). */
void ref_engine_wake(struct ref_engine *e);
/* Lock held: a consumer polls epfd itself (ref_conn_wait). */
void ref_engine_poll_begin(struct ref_engine *e);
void ref_engine_poll_end(struct ref_engine *e);
/* Lock held: a consumer busy-polls completions (poll_completions); the
 * thread keeps off for a while.  True when the poller should also run a
 * whole round now (once a millisecond, when a descriptor is readable:
 * connection and async events). */
bool ref_engine_busy_poll(struct ref_engine *e);
/* The same without the look at the descriptors, for a transport whose
 * poll already reads every ready one (sock): a peek at a level-triggered
 * epoll set moves what it returns to the back of the ready list, and so
 * would reorder the round that follows.  True at most once a millisecond:
 * the poller should run its timers. */
bool ref_engine_busy_tick(struct ref_engine *e);
/* Lock held, before sleeping on epfd: arms what must wake the sleeper. */
void ref_engine_arm(struct ref_engine *e);

/* CPUs this process may run on (its affinity mask), read once. */
int ref_usable_cpus(void);

/* Common heads; each transport embeds them first in its own structs. */
struct ref_transport {
	const struct ref_transport_ops *ops;
	struct ref_ia *ia;
	struct ref_engine engine;
	/* REF_TP_CAP_SPIN, ia->lock: the adaptive spin of waits */
	long wait_ns;			/* moving average of how long waits
					 * took to be woken (or time out) */
	unsigned int spin_backoff;	/* waits left that must not spin */
	bool fresh_poll;		/* the last poll was the one a wait
					 * makes before it sleeps or spins
					 * (ref_conn_poll_wait) */
};

struct ref_tp_conn {
	struct ref_transport *tp;
	struct ref_ep *ep;	/* bound EP (connect / accept), else NULL */
};

struct ref_tp_listener;

/* Why a connection attempt or a connection ended (upcall argument). */
enum ref_tp_fail {
	REF_TP_PEER_REJECTED,	/* remote Consumer rejected */
	REF_TP_NON_PEER_REJECTED, /* no listener, SP freed, protocol error */
	REF_TP_UNREACHABLE,	/* host unreachable / no answer in timeout */
	REF_TP_TIMED_OUT,	/* reached the peer, no accept in timeout */
	REF_TP_ACCEPT_ERROR,	/* passive: peer vanished during accept */
};

#define REF_TP_CAP_HW_RECV	0x1	/* transport matches receives itself */
#define REF_TP_CAP_QOS		0x2	/* the request carries the EP's connect_qos */
/* poll_completions is a whole non-blocking round of the transport's
 * descriptors: a wait spins on it, adaptively (ref_conn_wait), and needs
 * no look at the descriptors of its own while it spins. */
#define REF_TP_CAP_SPIN		0x4

struct ref_transport_ops {
	const char *name;
	unsigned int caps;

	/* Per IA.  @params is the part after "name:" of the instance data. */
	DAT_RETURN (*open)(struct ref_ia *ia, const char *params,
			   struct ref_transport **out);
	void (*close)(struct ref_transport *tp);	/* no lock held */

	/* ---- connection management ---- */
	/*
	 * Listen on *@qual (1..65535 for sock); *@qual == 0 asks for any free
	 * qualifier and returns it.  @ctx is handed back in
	 * ref_tp_conn_request().  DAT_CONN_QUAL_IN_USE if taken,
	 * DAT_CONN_QUAL_UNAVAILABLE if none free for "any".
	 */
	DAT_RETURN (*listen)(struct ref_transport *tp, DAT_CONN_QUAL *qual,
			     void *ctx, struct ref_tp_listener **out);
	/* Stops listening; later requests fail as "nobody listening". */
	void (*unlisten)(struct ref_tp_listener *l);
	/* Starts an active connection for @ep; result via upcalls. */
	DAT_RETURN (*connect)(struct ref_transport *tp, struct ref_ep *ep,
			      const struct sockaddr *addr, DAT_CONN_QUAL qual,
			      DAT_TIMEOUT timeout, const void *pdata,
			      DAT_COUNT pdata_len, struct ref_tp_conn **out);
	/* Passive: accept a requested connection on @ep (async). */
	DAT_RETURN (*accept)(struct ref_tp_conn *c, struct ref_ep *ep,
			     const void *pdata, DAT_COUNT pdata_len);
	/* Passive: refuse; @peer = Consumer reject (PEER_REJECTED at the
	 * active side, with @pdata: DAT 2.0's dat_cr_reject carries some)
	 * else a provider reject (NON_PEER_REJECTED).  Releases the
	 * connection. */
	void (*reject)(struct ref_tp_conn *c, bool peer, const void *pdata,
		       DAT_COUNT pdata_len);
	/* Tells the peer we are done (DISCONNECTED there) and releases. */
	void (*disconnect)(struct ref_tp_conn *c);
	/* Optional: what the active side asked for (CONN_REQ), applied to
	 * @a for a Provider-created EP (dat_psp_create: its attributes match
	 * the request).  Values are clamped to the provider's limits. */
	void (*peer_attr)(struct ref_tp_conn *c, DAT_EP_ATTR *a);
	/* Local addresses of a connection (for ep_query). */
	void (*addresses)(struct ref_tp_conn *c, struct sockaddr_storage *local,
			  DAT_PORT_QUAL *local_port,
			  struct sockaddr_storage *remote,
			  DAT_PORT_QUAL *remote_port);

	/* ---- work requests (software RC) ---- */
	/* Each returns 0, or -1 when the connection is already dead (core
	 * then flushes).  Data is referenced, not copied: the DTO owns it
	 * until completion.  @seq is the request sequence number. */
	int (*send)(struct ref_tp_conn *c, uint64_t seq, uint64_t msn,
		    bool solicited, const struct ref_dto *dto);
	int (*rdma_write)(struct ref_tp_conn *c, uint64_t seq,
			  const struct ref_dto *dto);
	int (*rdma_read)(struct ref_tp_conn *c, uint64_t seq,
			 const struct ref_dto *dto);
	/* Responses from the target: cumulative ack of every request up to
	 * and including @seq; an RDMA Read response (@data copied); an error
	 * for request @seq, after which the connection breaks. */
	void (*ack)(struct ref_tp_conn *c, uint64_t seq);
	void (*read_resp)(struct ref_tp_conn *c, uint64_t seq,
			  const struct iovec *iov, int niov);
	void (*nak)(struct ref_tp_conn *c, uint64_t seq,
		    DAT_DTO_COMPLETION_STATUS status);
	/* Breaks the connection now (protocol violation, local error);
	 * releases it. */
	void (*abort)(struct ref_tp_conn *c);
	/* A Send stalled for lack of a receive buffer (rx_send_begin returned
	 * -1) may now find one: retry it soon (from the progress engine). */
	void (*rx_resume)(struct ref_tp_conn *c);

	/* ---- consumer-driven progress (ref_conn_wait) ---- */
	/* One non-blocking progress round (lock held) by a consumer that
	 * polled engine.epfd readable. */
	void (*progress)(struct ref_transport *tp);
	/* Optional: reap completions that are already there without
	 * blocking or waiting for a notification (lock held); busy polling
	 * (dat_evd_dequeue, the spin of a wait) calls it. */
	void (*poll_completions)(struct ref_transport *tp);
};

/* Selects the transport from the instance data ("sock:..."). */
const struct ref_transport_ops *ref_transport_lookup(const char *instance,
						     const char **params);
extern const struct ref_transport_ops ref_sock_ops;

/* ---- upcalls into core (ia->lock held) ------------------------------- */

/* A connection request arrived on a listener (ctx from listen), asking
 * for @qos (DAT_QOS_BEST_EFFORT from a transport without REF_TP_CAP_QOS). */
void ref_tp_conn_request(void *ctx, struct ref_tp_conn *c,
			 const struct sockaddr *peer, DAT_PORT_QUAL peer_port,
			 DAT_CONN_QUAL qual, const void *pdata,
			 DAT_COUNT pdata_len, DAT_QOS qos);
/* Connection up: active side on accept (with the peer's private data),
 * passive side when the active side confirmed (pdata_len 0). */
void ref_tp_established(struct ref_ep *ep, const void *pdata,
			DAT_COUNT pdata_len);
/* Connection establishment failed for @ep; the transport released c. */
void ref_tp_conn_failed(struct ref_ep *ep, enum ref_tp_fail why,
			const void *pdata, DAT_COUNT pdata_len);
/* An established connection ended: @graceful when the peer disconnected,
 * else broken (error, EOF without disconnect, hostile frame).  The
 * transport released c. */
void ref_tp_conn_closed(struct ref_ep *ep, bool graceful);

/* Software RC data path (sock). */
/*
 * A Send (@msn, @len bytes) is arriving.  Core fills up to @max iovecs with
 * where to place it and returns their count (>= 0; 0 with len > 0 means
 * "discard the payload").  *@rx is core's token, handed back in
 * rx_send_end once all bytes are placed.  -1: no receive buffer yet - the
 * transport stops reading this connection (TCP backpressure, the analogue
 * of an infinite RNR retry) until core calls rx_resume, then asks again.
 */
int ref_tp_rx_send_begin(struct ref_ep *ep, uint64_t seq, uint64_t msn,
			 uint64_t len, bool solicited, struct iovec *iov,
			 int max, void **rx);
void ref_tp_rx_send_end(struct ref_ep *ep, void *rx);
/*
 * An RDMA Write (@len bytes for window @ctx at @addr) is arriving.  Core
 * checks the window before anything is placed; returns the iovec count, or
 * 0 with a nak already sent (payload discarded, connection then breaks).
 */
int ref_tp_rx_write_begin(struct ref_ep *ep, uint64_t seq,
			  DAT_RMR_CONTEXT ctx, DAT_VADDR addr, uint64_t len,
			  struct iovec *iov, int max);
void ref_tp_rx_write_end(struct ref_ep *ep, uint64_t seq);
/* An RDMA Read request; core answers with read_resp or nak. */
void ref_tp_rx_read_req(struct ref_ep *ep, uint64_t seq, DAT_RMR_CONTEXT ctx,
			DAT_VADDR addr, uint64_t len);
/* The response to our RDMA Read @seq: place @len bytes (same contract as
 * rx_send_begin). */
int ref_tp_rx_read_resp_begin(struct ref_ep *ep, uint64_t seq, uint64_t len,
			      struct iovec *iov, int max);
void ref_tp_rx_read_resp_end(struct ref_ep *ep, uint64_t seq);
/* Acknowledgements of our requests. */
void ref_tp_rx_ack(struct ref_ep *ep, uint64_t seq);
void ref_tp_rx_nak(struct ref_ep *ep, uint64_t seq,
		   DAT_DTO_COMPLETION_STATUS status);
/* Core may break the connection (abort) inside any rx upcall; the transport
 * checks for that after every upcall and stops processing the connection.
 * Sequence numbers, MSNs, lengths and frame types are validated by the
 * transport before an upcall; core validates windows, buffers and that an
 * ack / read response names a request it actually has outstanding (else it
 * breaks the connection). */

/* Hardware RC (verbs): a work request finished. */
void ref_tp_wr_done(struct ref_ep *ep, struct ref_dto *dto,
		    DAT_DTO_COMPLETION_STATUS status, DAT_VLEN len);

#endif /* REF_TRANSPORT_H */
