// SPDX-License-Identifier: MIT
/*
 * The case binary's command line and the supervisor: every case (or half)
 * runs in a forked child with its own process group; the supervisor
 * captures its output, relays two-node messages, enforces the deadline
 * (TIMEOUT), names the signal of a crash (CRASH) and prints one JSON result
 * line per case.  Formats: docs/results-format.md.
 */
#include "dc_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/* LeakSanitizer entry points, present in sanitizer builds only. */
extern int __lsan_do_recoverable_leak_check(void) __attribute__((weak));
extern void __lsan_do_leak_check(void) __attribute__((weak));

/* Sanitizer builds check for leaks unless DATCTS_LEAK_CHECK=0 (it costs
 * tens of milliseconds per process). */
static bool leak_check_wanted(void)
{
	const char *e = getenv("DATCTS_LEAK_CHECK");

	return !e || strcmp(e, "0");
}

#define OUT_HEAD (16 * 1024)
#define OUT_TAIL (16 * 1024)
#define PEER_GRACE_MS 2000.0

/* ---- output capture: the first OUT_HEAD and last OUT_TAIL bytes ---- */

struct outcap {
	char head[OUT_HEAD];
	size_t nhead;
	char tail[OUT_TAIL];
	size_t tail_pos;	/* ring position */
	size_t ntail;		/* bytes in ring (<= OUT_TAIL) */
	size_t dropped;		/* bytes lost between head and tail */
};

static void cap_add(struct outcap *c, const char *p, size_t n)
{
	while (n && c->nhead < OUT_HEAD) {
		c->head[c->nhead++] = *p++;
		n--;
	}
	while (n--) {
		if (c->ntail == OUT_TAIL)
			c->dropped++;
		else
			c->ntail++;
		c->tail[c->tail_pos] = *p++;
		c->tail_pos = (c->tail_pos + 1) % OUT_TAIL;
	}
}

static void cap_text(const struct outcap *c, struct dc_str *s)
{
	size_t start = (c->tail_pos + OUT_TAIL - c->ntail) % OUT_TAIL, i;

	dc_str_add(s, c->head, c->nhead);
	if (c->dropped)
		dc_str_printf(s, "\n[... %zu bytes of output omitted ...]\n",
			      c->dropped);
	for (i = 0; i < c->ntail; i++)
		dc_str_add(s, &c->tail[(start + i) % OUT_TAIL], 1);
}

/* ---- signals ---- */

static int sig_pipe[2] = { -1, -1 };
static volatile pid_t live_pgids[2];

static void on_sigchld(int sig)
{
	int e = errno;
	char b = 1;
	ssize_t r;

	(void)sig;
	r = write(sig_pipe[1], &b, 1);
	(void)r;
	errno = e;
}

static void on_term(int sig)
{
	int i;

	for (i = 0; i < 2; i++)
		if (live_pgids[i] > 0)
			kill(-live_pgids[i], SIGKILL);
	signal(sig, SIG_DFL);
	raise(sig);
}

const char *dc_signal_name(int sig)
{
	static char buf[16];

	switch (sig) {
	case SIGSEGV: return "SIGSEGV";
	case SIGABRT: return "SIGABRT";
	case SIGBUS: return "SIGBUS";
	case SIGFPE: return "SIGFPE";
	case SIGILL: return "SIGILL";
	case SIGKILL: return "SIGKILL";
	case SIGTERM: return "SIGTERM";
	case SIGINT: return "SIGINT";
	case SIGQUIT: return "SIGQUIT";
	case SIGPIPE: return "SIGPIPE";
	case SIGTRAP: return "SIGTRAP";
	case SIGSYS: return "SIGSYS";
	case SIGHUP: return "SIGHUP";
	case SIGALRM: return "SIGALRM";
	case SIGUSR1: return "SIGUSR1";
	case SIGUSR2: return "SIGUSR2";
	case SIGXCPU: return "SIGXCPU";
	case SIGXFSZ: return "SIGXFSZ";
	}
	snprintf(buf, sizeof(buf), "SIG%d", sig);
	return buf;
}

static void setup_signals(void)
{
	struct sigaction sa;

	if (sig_pipe[0] < 0) {
		if (pipe2(sig_pipe, O_CLOEXEC | O_NONBLOCK)) {
			perror("datcts: pipe");
			exit(3);
		}
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigchld;
	sa.sa_flags = SA_RESTART | SA_NOCLDSTOP;
	sigaction(SIGCHLD, &sa, NULL);
	sa.sa_handler = on_term;
	sa.sa_flags = 0;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

/* ---- children ---- */

struct child {
	const struct dc_case *c;
	enum dc_role role;
	pid_t pid;
	int ctl_r;		/* child's ctl_out */
	int ctl_w;		/* child's ctl_in */
	int out_r;		/* child's stdout+stderr */
	struct dc_str ctl_buf;
	struct outcap *cap;
	bool exited;
	int status;
	bool timed_out;
	bool peer_kill;		/* kill_at moved up: the other half failed */
	bool stopped_by_peer;	/* killed for that reason */
	bool planned_kill;	/* the half announced its own SIGKILL (dc_peer_die) */
	double t_start, t_end;
	double kill_at;
	struct dc_jv *verdict;
	double verdict_at;
	double teardown_ms;
	bool got_teardown;
	struct dc_jv *teardown;	/* {"teardown":{...}}: the close's return if it failed */
	struct dc_jv *crash;	/* {"crash":{...}}: where a fatal signal struck */
	char clause_now[128];	/* DC_FOR_CLAUSE: the clause its checks are at */
	struct dc_str clauses_held;	/* JSON strings, comma separated: those before */
	bool probed;		/* past its deadline, asked where it waits */
	struct dc_jv *hang;	/* {"hang":{...}}: its answer */
	struct dc_str notes;	/* supervisor remarks, appended to output */
};

static int set_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	return fl < 0 ? -1 : fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

static void close_from(int lowfd)
{
	long max = sysconf(_SC_OPEN_MAX);
	int fd;

#ifdef SYS_close_range
	if (syscall(SYS_close_range, (unsigned int)lowfd, ~0u, 0) == 0)
		return;
#endif
	if (max < 0 || max > 65536)
		max = 65536;
	for (fd = lowfd; fd < max; fd++)
		close(fd);
}

static int spawn(struct child *ch, const char *ia_name, double kill_at,
		 double child_deadline)
{
	int ctl_out[2], ctl_in[2], out[2];
	pid_t parent = getpid();

	if (pipe2(ctl_out, O_CLOEXEC) || pipe2(ctl_in, O_CLOEXEC) ||
	    pipe2(out, O_CLOEXEC)) {
		perror("datcts: pipe");
		return -1;
	}
	fflush(stdout);
	fflush(stderr);
	ch->t_start = dc_now_ms();
	ch->kill_at = kill_at;
	ch->pid = fork();
	if (ch->pid < 0) {
		perror("datcts: fork");
		return -1;
	}
	if (ch->pid == 0) {
		struct sigaction sa;
		int devnull, rc;

		setpgid(0, 0);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(3);
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = SIG_DFL;
		sigaction(SIGCHLD, &sa, NULL);
		sigaction(SIGTERM, &sa, NULL);
		sigaction(SIGINT, &sa, NULL);
		sigaction(SIGHUP, &sa, NULL);
		sigaction(SIGPIPE, &sa, NULL);
		devnull = open("/dev/null", O_RDONLY);
		if (devnull < 0 || dup2(devnull, 0) < 0 || dup2(out[1], 1) < 0 ||
		    dup2(out[1], 2) < 0 || dup2(ctl_out[1], 3) < 0 ||
		    dup2(ctl_in[0], 4) < 0)
			_exit(3);
		close_from(5);
		setvbuf(stdout, NULL, _IOLBF, 0);
		setvbuf(stderr, NULL, _IONBF, 0);
		rc = dc_run_in_process(ch->c, ch->role, ia_name, child_deadline,
				       3, 4);
		/* Sanitizer builds: report leaks into the case's output without
		 * turning its verdict into a crash. */
		if (__lsan_do_recoverable_leak_check && leak_check_wanted() &&
		    __lsan_do_recoverable_leak_check())
			fprintf(stderr, "[datcts] LeakSanitizer: leaks in the case process (above)\n");
		fflush(NULL);
		exit(rc);
	}
	setpgid(ch->pid, ch->pid);	/* no race with the child's own call */
	close(ctl_out[1]);
	close(ctl_in[0]);
	close(out[1]);
	ch->ctl_r = ctl_out[0];
	ch->ctl_w = ctl_in[1];
	ch->out_r = out[0];
	set_nonblock(ch->ctl_r);
	set_nonblock(ch->ctl_w);
	set_nonblock(ch->out_r);
	return 0;
}

static void write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && errno == EAGAIN) {
			struct pollfd pfd = { .fd = fd, .events = POLLOUT };

			poll(&pfd, 1, 1000);
			continue;
		}
		if (w <= 0)
			return;
		p += w;
		n -= (size_t)w;
	}
}

static void write_line(int fd, const char *line)
{
	struct dc_str s = { 0 };

	if (fd < 0)
		return;
	dc_str_puts(&s, line);
	dc_str_add(&s, "\n", 1);
	write_all(fd, s.p, s.len);
	dc_str_free(&s);
}

/* ---- the supervision loop ---- */

struct session {
	struct child *kids;
	int nkids;
	bool relay_stdio;	/* role mode: relay via our stdin/stdout */
	int in_fd;		/* our stdin in role mode, else -1 */
	struct dc_str in_buf;
};

static struct child *other(struct session *s, struct child *ch)
{
	if (s->nkids < 2)
		return NULL;
	return ch == &s->kids[0] ? &s->kids[1] : &s->kids[0];
}

static void send_peer_done(struct child *to, const struct dc_jv *verdict)
{
	struct dc_str s = { 0 };
	bool first = true;

	if (!to || to->exited || to->ctl_w < 0)
		return;
	dc_str_puts(&s, "{\"peer_done\":{");
	dc_json_key(&s, &first, "state");
	dc_json_str(&s, dc_json_get_str(verdict, "state"));
	dc_json_key(&s, &first, "message");
	dc_json_str(&s, dc_json_get_str(verdict, "message"));
	dc_str_puts(&s, "}}");
	write_line(to->ctl_w, s.p);
	dc_str_free(&s);
}

static void stop_peer_soon(struct child *peer, double now)
{
	if (peer && !peer->exited && peer->kill_at > now + PEER_GRACE_MS) {
		peer->kill_at = now + PEER_GRACE_MS;
		peer->peer_kill = true;
	}
}

static void on_ctl_line(struct session *s, struct child *ch, const char *line)
{
	struct dc_jv *v = dc_json_parse(line);
	const struct dc_jv *x;
	struct child *peer = other(s, ch);

	if (!v) {
		dc_str_printf(&ch->notes, "[datcts] malformed protocol line: %s\n",
			      line);
		return;
	}
	if ((x = dc_json_get(v, "verdict"))) {
		const char *st;

		if (ch->probed && !ch->verdict) {
			/* decided after its deadline, perhaps by the probe
			 * itself (a wait it interrupted): the hang stands */
			dc_str_puts(&ch->notes, "[datcts] a verdict after the deadline was set "
				    "aside\n");
			dc_json_free(v);
			return;
		}
		dc_json_free(ch->verdict);
		ch->verdict = v;
		ch->verdict_at = dc_now_ms();
		x = dc_json_get(v, "verdict");
		if (peer) {
			send_peer_done(peer, x);
			st = dc_json_get_str(x, "state");
			if (st && strcmp(st, "PASS"))
				stop_peer_soon(peer, ch->verdict_at);
		}
		return;
	}
	if (dc_json_get(v, "planned_kill")) {
		ch->planned_kill = true;
	} else if ((x = dc_json_get(v, "teardown"))) {
		ch->got_teardown = true;
		ch->teardown_ms = dc_json_get_num(x, "ms", 0);
		dc_json_free(ch->teardown);
		ch->teardown = v;
		return;
	} else if (dc_json_get(v, "crash")) {
		if (!ch->crash) {
			ch->crash = v;
			return;
		}
	} else if ((x = dc_json_get(v, "clause_at")) && x->type == DC_JSTR) {
		if (ch->clause_now[0] && strcmp(ch->clause_now, x->str)) {
			if (ch->clauses_held.len)
				dc_str_puts(&ch->clauses_held, ",");
			dc_json_str(&ch->clauses_held, ch->clause_now);
		}
		snprintf(ch->clause_now, sizeof(ch->clause_now), "%s", x->str);
	} else if (dc_json_get(v, "hang")) {
		if (!ch->hang) {
			ch->hang = v;
			return;
		}
	} else if (dc_json_get(v, "ready") || dc_json_get(v, "msg")) {
		if (s->relay_stdio) {
			write_line(1, line);
		} else if (peer && !peer->exited) {
			write_line(peer->ctl_w, line);
		}
	}
	dc_json_free(v);
}

/* Reads what is there; returns false at EOF or error. */
static bool drain_fd(int fd, struct dc_str *lines, struct outcap *cap)
{
	char buf[8192];

	for (;;) {
		ssize_t n = read(fd, buf, sizeof(buf));

		if (n > 0) {
			if (cap)
				cap_add(cap, buf, (size_t)n);
			else
				dc_str_add(lines, buf, (size_t)n);
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return true;
		return false;
	}
}

static void take_lines(struct dc_str *b, void (*fn)(void *, const char *),
		       void *arg)
{
	char *nl;

	while (b->len && (nl = memchr(b->p, '\n', b->len))) {
		size_t l = (size_t)(nl - b->p);

		*nl = '\0';
		if (l)
			fn(arg, b->p);
		memmove(b->p, nl + 1, b->len - l - 1);
		b->len -= l + 1;
		b->p[b->len] = '\0';
	}
}

struct line_ctx {
	struct session *s;
	struct child *ch;
};

static void ctl_line_fn(void *arg, const char *line)
{
	struct line_ctx *lc = arg;

	on_ctl_line(lc->s, lc->ch, line);
}

static void stdin_line_fn(void *arg, const char *line)
{
	struct session *s = arg;
	struct dc_jv *v = dc_json_parse(line);

	if (v && (dc_json_get(v, "ready") || dc_json_get(v, "msg") ||
		  dc_json_get(v, "peer_done"))) {
		struct child *ch = &s->kids[0];

		if (!ch->exited)
			write_line(ch->ctl_w, line);
		if (dc_json_get(v, "peer_done") && !ch->exited) {
			const struct dc_jv *pd = dc_json_get(v, "peer_done");
			const char *st = dc_json_get_str(pd, "state");
			double now = dc_now_ms();

			if (st && strcmp(st, "PASS"))
				stop_peer_soon(ch, now);
		}
	}
	dc_json_free(v);
}

static void pump_child(struct session *s, struct child *ch)
{
	struct line_ctx lc = { s, ch };

	if (ch->ctl_r >= 0) {
		bool open = drain_fd(ch->ctl_r, &ch->ctl_buf, NULL);

		take_lines(&ch->ctl_buf, ctl_line_fn, &lc);
		if (!open) {
			close(ch->ctl_r);
			ch->ctl_r = -1;
		}
	}
	if (ch->out_r >= 0 && !drain_fd(ch->out_r, NULL, ch->cap)) {
		close(ch->out_r);
		ch->out_r = -1;
	}
}

/* The half killed itself as its case planned (dc_peer_die), and nothing
 * else (the supervisor's own kill) ended it. */
static bool died_as_planned(const struct child *ch)
{
	return ch->planned_kill && !ch->timed_out && !ch->stopped_by_peer &&
	       WIFSIGNALED(ch->status) && WTERMSIG(ch->status) == SIGKILL;
}

#define PLANNED_KILL_MSG "killed by SIGKILL as the case planned (dc_peer_die)"

/* A half died without a verdict: its peer must not wait for it. */
static void tell_peer_of_death(struct session *s, struct child *ch)
{
	struct child *peer = other(s, ch);
	struct dc_str m = { 0 };
	struct dc_jv v = { .type = DC_JOBJ };
	struct dc_jv kids[2] = {
		{ .type = DC_JSTR, .key = "state", .str = "CRASH" },
		{ .type = DC_JSTR, .key = "message" },
	};

	if (!peer || peer->exited)
		return;
	if (WIFSIGNALED(ch->status))
		dc_str_printf(&m, "killed by %s", dc_signal_name(WTERMSIG(ch->status)));
	else
		dc_str_printf(&m, "exited with status %d without a result",
			      WEXITSTATUS(ch->status));
	kids[1].str = m.p;
	v.kids = kids;
	v.n = 2;
	send_peer_done(peer, &v);
	stop_peer_soon(peer, dc_now_ms());
	dc_str_free(&m);
}

static void reap(struct session *s)
{
	int i;

	for (i = 0; i < s->nkids; i++) {
		struct child *ch = &s->kids[i];
		int st;

		if (ch->exited)
			continue;
		if (waitpid(ch->pid, &st, WNOHANG) == ch->pid) {
			ch->exited = true;
			ch->status = st;
			ch->t_end = dc_now_ms();
			live_pgids[i] = 0;
			/* Whatever it wrote is in the pipes now. */
			pump_child(s, ch);
			/* A grandchild may hold the pipes: do not wait for EOF. */
			if (ch->ctl_r >= 0)
				close(ch->ctl_r);
			if (ch->out_r >= 0)
				close(ch->out_r);
			if (ch->ctl_w >= 0)
				close(ch->ctl_w);
			ch->ctl_r = ch->out_r = ch->ctl_w = -1;
			kill(-ch->pid, SIGKILL);	/* leftovers of its group */
			if (died_as_planned(ch)) {
				/* The survivor goes on: no stop_peer_soon(). */
				struct dc_jv kids[2] = {
					{ .type = DC_JSTR, .key = "state", .str = "PASS" },
					{ .type = DC_JSTR, .key = "message",
					  .str = PLANNED_KILL_MSG },
				};
				struct dc_jv v = { .type = DC_JOBJ, .kids = kids, .n = 2 };

				send_peer_done(other(s, ch), &v);
			} else if (!ch->verdict) {
				tell_peer_of_death(s, ch);
			}
		}
	}
}

static void supervise_loop(struct session *s)
{
	for (;;) {
		struct pollfd pfd[8];
		int n = 0, i, alive = 0;
		double now = dc_now_ms(), next = now + 60000;
		char buf[64];

		for (i = 0; i < s->nkids; i++) {
			struct child *ch = &s->kids[i];

			if (ch->exited)
				continue;
			alive++;
			if (now >= ch->kill_at && !ch->probed && !ch->peer_kill &&
			    !ch->timed_out && !ch->stopped_by_peer) {
				/* past its deadline: where does it wait? (a hang in
				 * a set-up helper is not one in the call under test) */
				ch->timed_out = ch->probed = true;
				kill(ch->pid, DC_WHERE_SIGNAL);
				ch->kill_at = now + DC_WHERE_GRACE_MS;
				if (ch->kill_at < next)
					next = ch->kill_at;
			} else if (now >= ch->kill_at) {
				if (!ch->timed_out && !ch->stopped_by_peer) {
					if (ch->peer_kill)
						ch->stopped_by_peer = true;
					else
						ch->timed_out = true;
				}
				kill(-ch->pid, SIGKILL);
				kill(ch->pid, SIGKILL);
			} else if (ch->kill_at < next) {
				next = ch->kill_at;
			}
		}
		if (!alive)
			break;
		pfd[n++] = (struct pollfd){ .fd = sig_pipe[0], .events = POLLIN };
		for (i = 0; i < s->nkids; i++) {
			struct child *ch = &s->kids[i];

			if (ch->ctl_r >= 0)
				pfd[n++] = (struct pollfd){ .fd = ch->ctl_r,
							    .events = POLLIN };
			if (ch->out_r >= 0)
				pfd[n++] = (struct pollfd){ .fd = ch->out_r,
							    .events = POLLIN };
		}
		if (s->in_fd >= 0)
			pfd[n++] = (struct pollfd){ .fd = s->in_fd, .events = POLLIN };
		if (poll(pfd, (nfds_t)n, (int)(next - now + 1)) < 0 &&
		    errno != EINTR)
			break;
		while (read(sig_pipe[0], buf, sizeof(buf)) > 0)
			;
		for (i = 0; i < s->nkids; i++)
			if (!s->kids[i].exited)
				pump_child(s, &s->kids[i]);
		if (s->in_fd >= 0) {
			if (!drain_fd(s->in_fd, &s->in_buf, NULL))
				s->in_fd = -1;
			take_lines(&s->in_buf, stdin_line_fn, s);
		}
		reap(s);
	}
}

/* ---- results ---- */

static int severity(const char *st)
{
	static const char *const order[] = { "PASS", "UNSUPPORTED", "UNRESOLVED",
					     "FAIL", "TIMEOUT", "CRASH" };
	int i;

	for (i = 0; i < 6; i++)
		if (st && !strcmp(order[i], st))
			return i;
	return 5;
}

struct half_result {
	const char *state;
	struct dc_str message;
	const char *file;
	int line;
	bool by_peer;
	const char *signal;
	const char *reached;	/* the verdict a CRASH or TIMEOUT came after */
	double duration_ms;
	double verdict_at;
	int exit_status;	/* -1 when signalled */
	struct dc_str output;
	struct dc_str phases;
	struct dc_str cause;		/* JSON object, or empty */
	struct dc_str cleanup;		/* JSON array of failed DC_CLEANUP calls, or empty */
	struct dc_str teardown_failure;	/* JSON object, or empty */
	struct dc_str clause_at;	/* {"clause", "held"}: DC_FOR_CLAUSE, or empty */
	struct dc_str learned;		/* JSON array: attributes learned from calls (learn.c) */
	double work_fraction;		/* dc_work_shortened's, or 0 */
};

static void put_member(struct dc_str *s, bool *first, const struct dc_jv *obj,
		       const char *key)
{
	const struct dc_jv *m = dc_json_get(obj, key);

	dc_json_key(s, first, key);
	if (m)
		dc_json_write(s, m);
	else
		dc_str_puts(s, "null");
}

/*
 * The cause of a result the case process did not decide itself: a fatal
 * signal (where it struck, from the crash line) or a hang; @phase is where
 * the case was: "check" (no verdict yet), "teardown" (the abrupt close after
 * the verdict), "exit" (after the teardown: the process's end, unloading);
 * the crash line may refine "check" into "setup", "ia_open" or "cleanup".
 */
static void supervisor_cause(struct dc_str *s, const struct child *ch,
			     const char *phase, bool hang)
{
	const struct dc_jv *cr = hang ? (ch->hang ? dc_json_get(ch->hang, "hang") : NULL) :
				 ch->crash ? dc_json_get(ch->crash, "crash") : NULL;
	const struct dc_jv *entry = dc_json_get(cr, "entry");
	const char *call = NULL, *expr = NULL, *cphase = dc_json_get_str(cr, "phase");
	char cleanup_call[64];
	bool first = true;

	if (!strcmp(phase, "check") && cphase)
		phase = cphase;		/* set-up (the fixture it came from), clean-up */
	if (!strcmp(phase, "teardown")) {
		call = "dat_ia_close";
		expr = "dat_ia_close(ia, DAT_CLOSE_ABRUPT_FLAG)";
	} else if (!strcmp(phase, "cleanup") ||
		   (!strcmp(phase, "setup") && dc_json_get_str(cr, "expr"))) {
		/* a DC_CLEANUP or DC_SETUP call under way */
		expr = dc_json_get_str(cr, "expr");
		/* "dat_ia_close(ia2, ...)": the call is the name before '(' */
		snprintf(cleanup_call, sizeof(cleanup_call), "%.*s",
			 expr ? (int)strcspn(expr, "( ") : 0, expr ? expr : "");
		call = cleanup_call[0] ? cleanup_call : NULL;
	}
	dc_str_puts(s, "{");
	dc_json_key(s, &first, "phase");
	dc_json_str(s, phase);
	dc_json_key(s, &first, "call");
	dc_json_str(s, call);
	dc_json_key(s, &first, "expr");
	dc_json_str(s, expr);
	dc_json_key(s, &first, "return");
	dc_str_puts(s, "null");
	dc_json_key(s, &first, "answered_by");
	dc_json_str(s, dc_json_get_str(cr, "answered_by"));
	dc_json_key(s, &first, "needs");
	dc_str_puts(s, "null");
	dc_json_key(s, &first, "hang");
	dc_str_puts(s, hang ? "true" : "false");
	if (cr) {
		put_member(s, &first, cr, "frame");
		dc_json_key(s, &first, "entry");
		if (entry)
			dc_json_write(s, entry);
		else
			dc_str_puts(s, "null");
		put_member(s, &first, cr, "fixture");
	}
	dc_str_puts(s, "}");
}

/* " in dapl_ep_free (libdaplofa.so.2)": where the crash line says it struck. */
static void crash_where(struct dc_str *s, const struct child *ch)
{
	const struct dc_jv *cr = ch->crash ? dc_json_get(ch->crash, "crash") : NULL;
	const struct dc_jv *f = dc_json_get(cr, "frame");
	const char *obj = dc_json_get_str(f, "object"), *sym = dc_json_get_str(f, "symbol");
	const char *fixture = dc_json_get_str(cr, "fixture");

	if (obj)
		dc_str_printf(s, "; it struck in %s%s%s%s", sym ? sym : "", sym ? " (" : "",
			      obj, sym ? ")" : "");
	if (fixture)
		dc_str_printf(s, ", called by the set-up helper %s", fixture);
}

static void build_half(const struct child *ch, double timeout_s,
		       struct half_result *h)
{
	const struct dc_jv *v = ch->verdict ? dc_json_get(ch->verdict, "verdict") : NULL;
	const char *vstate = dc_json_get_str(v, "state");
	const char *vmsg = dc_json_get_str(v, "message");
	const struct dc_jv *ph = dc_json_get(v, "phases");
	bool pf = true;

	memset(h, 0, sizeof(*h));
	h->file = dc_json_get_str(v, "file");
	h->line = (int)dc_json_get_num(v, "line", ch->c->line);
	if (!h->file) {
		h->file = ch->c->file;
		h->line = ch->c->line;
	}
	h->by_peer = dc_json_get_num(v, "by_peer", 0) != 0;
	h->duration_ms = ch->t_end - ch->t_start;
	h->verdict_at = ch->verdict_at ? ch->verdict_at : ch->t_end;
	h->exit_status = WIFEXITED(ch->status) ? WEXITSTATUS(ch->status) : -1;

	if (ch->stopped_by_peer) {
		h->state = "UNRESOLVED";
		h->by_peer = true;
		dc_str_printf(&h->message,
			      "stopped: the other half had ended and this one did not finish within %.0f ms",
			      PEER_GRACE_MS);
	} else if (ch->timed_out && vstate && !strcmp(vstate, "FAIL")) {
		if (v && dc_json_get(v, "cause"))
			dc_json_write(&h->cause, dc_json_get(v, "cause"));
		/*
		 * The case's check failed within its bounds; the provider's
		 * broken state then kept the teardown from finishing (a waiter
		 * left inside a freed object).  A hang cannot make a failure
		 * better: the verdict stands, with the hang said.
		 */
		h->state = "FAIL";
		dc_str_printf(&h->message, "%s [then the teardown hung: process group killed "
			      "after %.3g s]", vmsg ? vmsg : "", timeout_s);
	} else if (ch->timed_out) {
		h->state = "TIMEOUT";
		h->reached = vstate;
		supervisor_cause(&h->cause, ch, !vstate ? "check" :
				 ch->got_teardown ? "exit" : "teardown", true);
		dc_str_printf(&h->message, "no result within %.3g s; process group killed",
			      timeout_s);
		if (vstate)
			dc_str_printf(&h->message,
				      " (the case had reached %s%s%s; the teardown hung)",
				      vstate, vmsg && *vmsg ? ": " : "",
				      vmsg ? vmsg : "");
	} else if (died_as_planned(ch)) {
		h->state = "PASS";
		dc_str_puts(&h->message, PLANNED_KILL_MSG);
	} else if (WIFSIGNALED(ch->status)) {
		h->state = "CRASH";
		h->signal = dc_signal_name(WTERMSIG(ch->status));
		h->reached = vstate;
		if (vstate && !strcmp(vstate, "FAIL") && dc_json_get(v, "cause"))
			dc_json_write(&h->cause, dc_json_get(v, "cause"));	/* the check decided */
		else
			supervisor_cause(&h->cause, ch, !vstate ? "check" :
					 ch->got_teardown ? "exit" : "teardown", false);
		dc_str_printf(&h->message, "killed by %s", h->signal);
		if (vstate)
			dc_str_printf(&h->message,
				      " %s, after the case had reached %s%s%s",
				      ch->got_teardown ? "after the teardown, as the process ended" :
				      "during teardown",
				      vstate, vmsg && *vmsg ? ": " : "",
				      vmsg ? vmsg : "");
	} else if (!vstate) {
		h->state = "CRASH";
		supervisor_cause(&h->cause, ch, "check", false);
		dc_str_printf(&h->message,
			      "the case process exited with status %d before reporting a result",
			      h->exit_status);
	} else {
		h->state = vstate;
		dc_str_puts(&h->message, vmsg ? vmsg : "");
		if (strcmp(vstate, "PASS") && dc_json_get(v, "cause"))
			dc_json_write(&h->cause, dc_json_get(v, "cause"));
	}
	if (dc_json_get(v, "cleanup_failures"))
		dc_json_write(&h->cleanup, dc_json_get(v, "cleanup_failures"));
	if (dc_json_get(v, "learned"))
		dc_json_write(&h->learned, dc_json_get(v, "learned"));
	h->work_fraction = dc_json_get_num(v, "work_fraction", 0);
	if (ch->teardown) {
		const struct dc_jv *td = dc_json_get(ch->teardown, "teardown");

		if (dc_json_get(td, "return")) {
			bool tf = true;

			dc_str_puts(&h->teardown_failure, "{");
			put_member(&h->teardown_failure, &tf, td, "call");
			put_member(&h->teardown_failure, &tf, td, "flags");
			put_member(&h->teardown_failure, &tf, td, "return");
			dc_str_puts(&h->teardown_failure, "}");
		}
	}

	if (ch->clause_now[0] && strcmp(h->state, "PASS")) {
		bool cf = true;

		dc_str_puts(&h->clause_at, "{");
		dc_json_key(&h->clause_at, &cf, "clause");
		dc_json_str(&h->clause_at, ch->clause_now);
		dc_json_key(&h->clause_at, &cf, "held");
		dc_str_printf(&h->clause_at, "[%s]", dc_str_c(&ch->clauses_held));
		dc_str_puts(&h->clause_at, "}");
	}
	cap_text(ch->cap, &h->output);
	if (!vstate && !ch->timed_out && WIFSIGNALED(ch->status) && h->output.p) {
		const char *crumb = strstr(h->output.p, DC_CRASH_CRUMB);

		if (crumb) {
			crumb += strlen(DC_CRASH_CRUMB);
			dc_str_printf(&h->message, "; the last call checked before it: %.*s",
				      (int)strcspn(crumb, "\n"), crumb);
		}
	}
	if (h->signal && !ch->timed_out)
		crash_where(&h->message, ch);
	if (vstate && !ch->timed_out && !WIFSIGNALED(ch->status) &&
	    h->exit_status != (severity(vstate) <= 1 ? 0 : 1))
		dc_str_printf(&h->output,
			      "[datcts] the case process exited with status %d after its verdict\n",
			      h->exit_status);
	dc_str_add(&h->output, ch->notes.p ? ch->notes.p : "", ch->notes.len);

	dc_str_puts(&h->phases, "{");
	if (ph) {
		int i;

		for (i = 0; i < ph->n; i++) {
			dc_json_key(&h->phases, &pf, ph->kids[i].key);
			dc_json_write(&h->phases, &ph->kids[i]);
		}
	}
	if (ch->got_teardown) {
		dc_json_key(&h->phases, &pf, "teardown_ms");
		dc_str_printf(&h->phases, "%.3f", ch->teardown_ms);
	}
	dc_str_puts(&h->phases, "}");
}

static void free_half(struct half_result *h)
{
	dc_str_free(&h->cause);
	dc_str_free(&h->cleanup);
	dc_str_free(&h->teardown_failure);
	dc_str_free(&h->clause_at);
	dc_str_free(&h->learned);
	dc_str_free(&h->message);
	dc_str_free(&h->output);
	dc_str_free(&h->phases);
}

static void case_common_fields(struct dc_str *s, bool *first,
			       const struct dc_case *c, const char *area)
{
	(void)area;
	dc_json_key(s, first, "id");
	dc_json_str(s, c->id);
}

static void json_words(struct dc_str *s, const char *list, const char *dflt);

/* Only a CRASH or TIMEOUT in the teardown has one (docs/results-format.md). */
static void emit_reached(struct dc_str *s, bool *first, const struct half_result *h)
{
	if (h->cause.len) {
		dc_json_key(s, first, "cause");
		dc_str_add(s, h->cause.p, h->cause.len);
	}
	if (h->teardown_failure.len) {
		dc_json_key(s, first, "teardown_failure");
		dc_str_add(s, h->teardown_failure.p, h->teardown_failure.len);
	}
	if (h->cleanup.len) {
		dc_json_key(s, first, "cleanup_failures");
		dc_str_add(s, h->cleanup.p, h->cleanup.len);
	}
	if (h->clause_at.len) {
		dc_json_key(s, first, "clause_at");
		dc_str_add(s, h->clause_at.p, h->clause_at.len);
	}
	if (h->learned.len) {
		dc_json_key(s, first, "learned");
		dc_str_add(s, h->learned.p, h->learned.len);
	}
	if (h->work_fraction > 0) {
		dc_json_key(s, first, "work_fraction");
		dc_str_printf(s, "%.3f", h->work_fraction);
	}
	if (!h->reached)
		return;
	dc_json_key(s, first, "reached");
	dc_json_str(s, h->reached);
}

static void emit_half_fields(struct dc_str *s, bool *first,
			     const struct half_result *h)
{
	dc_json_key(s, first, "state");
	dc_json_str(s, h->state);
	dc_json_key(s, first, "message");
	dc_json_str(s, dc_str_c(&h->message));
	dc_json_key(s, first, "file");
	dc_json_str(s, h->file);
	dc_json_key(s, first, "line");
	dc_str_printf(s, "%d", h->line);
	dc_json_key(s, first, "duration_ms");
	dc_str_printf(s, "%.3f", h->duration_ms);
	dc_json_key(s, first, "signal");
	dc_json_str(s, h->signal);
	dc_json_key(s, first, "exit_status");
	if (h->exit_status < 0)
		dc_str_puts(s, "null");
	else
		dc_str_printf(s, "%d", h->exit_status);
	dc_json_key(s, first, "phases");
	dc_str_puts(s, dc_str_c(&h->phases));
	emit_reached(s, first, h);
}

static const char *role_name(enum dc_role r)
{
	return r == DC_ROLE_PASSIVE ? "passive" : r == DC_ROLE_ACTIVE ? "active" :
	       "single";
}

/* The full result line of a case (single node or both halves here). */
static void emit_result(const struct dc_case *c, const char *area,
			struct child *kids, int nkids, double timeout_s,
			double duration_ms)
{
	struct half_result h[2];
	struct dc_str s = { 0 };
	bool first = true;
	int i, pick = 0;

	for (i = 0; i < nkids; i++)
		build_half(&kids[i], timeout_s, &h[i]);
	if (nkids == 2) {
		/* The root cause: the worst half not ended by its peer, the
		 * earlier one on a tie. */
		int best = -1;

		for (i = 0; i < 2; i++) {
			if (h[i].by_peer && !(h[0].by_peer && h[1].by_peer))
				continue;
			if (best < 0 || severity(h[i].state) > severity(h[best].state) ||
			    (severity(h[i].state) == severity(h[best].state) &&
			     h[i].verdict_at < h[best].verdict_at))
				best = i;
		}
		pick = best < 0 ? 0 : best;
	}

	dc_str_puts(&s, "{");
	case_common_fields(&s, &first, c, area);
	dc_json_key(&s, &first, "state");
	dc_json_str(&s, h[pick].state);
	dc_json_key(&s, &first, "message");
	if (nkids == 2) {
		struct dc_str m = { 0 };

		if (h[pick].message.len)
			dc_str_printf(&m, "%s: %s", role_name(kids[pick].role),
				      dc_str_c(&h[pick].message));
		dc_json_str(&s, dc_str_c(&m));
		dc_str_free(&m);
	} else {
		dc_json_str(&s, dc_str_c(&h[0].message));
	}
	dc_json_key(&s, &first, "file");
	dc_json_str(&s, h[pick].file);
	dc_json_key(&s, &first, "line");
	dc_str_printf(&s, "%d", h[pick].line);
	dc_json_key(&s, &first, "duration_ms");
	dc_str_printf(&s, "%.3f", duration_ms);
	dc_json_key(&s, &first, "clauses");
	json_words(&s, c->clauses, c->id);
	dc_json_key(&s, &first, "page");
	dc_json_str(&s, c->page);
	dc_json_key(&s, &first, "area");
	dc_json_str(&s, area);
	dc_json_key(&s, &first, "output");
	if (nkids == 2) {
		struct dc_str o = { 0 };

		for (i = 0; i < 2; i++)
			if (h[i].output.len)
				dc_str_printf(&o, "--- %s ---\n%s%s",
					      role_name(kids[i].role),
					      dc_str_c(&h[i].output),
					      h[i].output.p[h[i].output.len - 1] ==
					      '\n' ? "" : "\n");
		dc_json_str(&s, dc_str_c(&o));
		dc_str_free(&o);
	} else {
		dc_json_str(&s, dc_str_c(&h[0].output));
	}
	dc_json_key(&s, &first, "signal");
	dc_json_str(&s, h[pick].signal);
	dc_json_key(&s, &first, "hosts");
	dc_str_puts(&s, nkids == 2 ? "[\"local\",\"local\"]" : "[\"local\"]");
	dc_json_key(&s, &first, "halves");
	if (nkids == 2) {
		dc_str_puts(&s, "{");
		for (i = 0; i < 2; i++) {
			bool hf = true;

			if (i)
				dc_str_puts(&s, ",");
			dc_json_str(&s, role_name(kids[i].role));
			dc_str_puts(&s, ":{");
			emit_half_fields(&s, &hf, &h[i]);
			dc_json_key(&s, &hf, "by_peer");
			dc_str_puts(&s, h[i].by_peer ? "true" : "false");
			dc_json_key(&s, &hf, "host");
			dc_json_str(&s, "local");
			dc_json_key(&s, &hf, "output");
			dc_json_str(&s, dc_str_c(&h[i].output));
			dc_str_puts(&s, "}");
		}
		dc_str_puts(&s, "}");
	} else {
		dc_str_puts(&s, "null");
	}
	dc_json_key(&s, &first, "phases");
	dc_str_puts(&s, dc_str_c(&h[pick].phases));
	if (!h[pick].teardown_failure.len && nkids == 2 && h[!pick].teardown_failure.len) {
		dc_json_key(&s, &first, "teardown_failure");
		dc_str_add(&s, h[!pick].teardown_failure.p, h[!pick].teardown_failure.len);
	}
	emit_reached(&s, &first, &h[pick]);
	dc_json_key(&s, &first, "exit_status");
	if (h[pick].exit_status < 0)
		dc_str_puts(&s, "null");
	else
		dc_str_printf(&s, "%d", h[pick].exit_status);
	dc_str_puts(&s, "}\n");
	write_all(1, s.p, s.len);
	dc_str_free(&s);
	for (i = 0; i < nkids; i++)
		free_half(&h[i]);
}

/* Role mode: {"result":{...}} for one half. */
static void emit_half_result(const struct dc_case *c, const char *area,
			     struct child *ch, double timeout_s)
{
	struct half_result h;
	struct dc_str s = { 0 };
	bool first = true;

	build_half(ch, timeout_s, &h);
	dc_str_puts(&s, "{\"result\":{");
	case_common_fields(&s, &first, c, area);
	dc_json_key(&s, &first, "role");
	dc_json_str(&s, role_name(ch->role));
	emit_half_fields(&s, &first, &h);
	dc_json_key(&s, &first, "by_peer");
	dc_str_puts(&s, h.by_peer ? "true" : "false");
	dc_json_key(&s, &first, "output");
	dc_json_str(&s, dc_str_c(&h.output));
	dc_str_puts(&s, "}}\n");
	write_all(1, s.p, s.len);
	dc_str_free(&s);
	free_half(&h);
}

static void free_child(struct child *ch)
{
	dc_json_free(ch->verdict);
	dc_json_free(ch->teardown);
	dc_json_free(ch->crash);
	dc_json_free(ch->hang);
	dc_str_free(&ch->clauses_held);
	dc_str_free(&ch->ctl_buf);
	dc_str_free(&ch->notes);
	free(ch->cap);
}

static double child_deadline(double kill_at, double timeout_ms)
{
	double margin = timeout_ms * 0.1;

	if (margin > 1000)
		margin = 1000;
	return kill_at - margin;
}

/* Runs one case (or one half with role mode); returns its state's severity. */
static int run_one(const struct dc_case *c, const char *area,
		   const char *ia_name, double timeout_s, int role_opt)
{
	struct child kids[2];
	struct session s = { .kids = kids, .in_fd = -1 };
	double t0 = dc_now_ms(), timeout_ms = timeout_s * 1000.0;
	double kill_at = t0 + timeout_ms;
	int i, worst = 0, stdin_flags = -1;
	bool two = c->passive != NULL;

	memset(kids, 0, sizeof(kids));
	if (!two) {
		s.nkids = 1;
		kids[0].role = DC_ROLE_SINGLE;
	} else if (role_opt != DC_ROLE_SINGLE) {
		s.nkids = 1;
		kids[0].role = (enum dc_role)role_opt;
		s.relay_stdio = true;
		s.in_fd = 0;
		stdin_flags = fcntl(0, F_GETFL);
		set_nonblock(0);
	} else {
		s.nkids = 2;
		kids[0].role = DC_ROLE_PASSIVE;
		kids[1].role = DC_ROLE_ACTIVE;
	}
	for (i = 0; i < s.nkids; i++) {
		kids[i].c = c;
		kids[i].ctl_r = kids[i].ctl_w = kids[i].out_r = -1;
		kids[i].cap = calloc(1, sizeof(*kids[i].cap));
		if (!kids[i].cap)
			abort();
	}
	for (i = 0; i < s.nkids; i++) {
		if (spawn(&kids[i], ia_name, kill_at,
			  child_deadline(kill_at, timeout_ms))) {
			fprintf(stderr, "datcts: cannot start %s\n", c->id);
			exit(3);
		}
		live_pgids[i] = kids[i].pid;
	}
	supervise_loop(&s);
	if (stdin_flags >= 0)
		fcntl(0, F_SETFL, stdin_flags);
	if (s.relay_stdio)
		emit_half_result(c, area, &kids[0], timeout_s);
	else
		emit_result(c, area, kids, s.nkids, timeout_s, dc_now_ms() - t0);
	for (i = 0; i < s.nkids; i++) {
		struct half_result h;

		build_half(&kids[i], timeout_s, &h);
		if (severity(h.state) > worst && !(s.nkids == 2 && h.by_peer))
			worst = severity(h.state);
		free_half(&h);
		free_child(&kids[i]);
	}
	dc_str_free(&s.in_buf);
	return worst;
}

/* ---- --list ---- */

struct words_out {
	struct dc_str *s;
	int n;
};

static void word_out_fn(const char *w, size_t n, void *arg)
{
	struct words_out *wo = arg;

	if (wo->n++)
		dc_str_puts(wo->s, ",");
	dc_json_strn(wo->s, w, n);
}

static void json_words(struct dc_str *s, const char *list, const char *dflt)
{
	struct words_out wo = { s, 0 };

	dc_str_puts(s, "[");
	dc_each_word(list, word_out_fn, &wo);
	if (!wo.n && dflt)
		dc_json_str(s, dflt);
	dc_str_puts(s, "]");
}

static const char *case_area(const struct dc_case *c, const char *argv0)
{
	static char buf[128];
	const char *base;

	if (c->area)
		return c->area;
	base = strrchr(argv0, '/');
	base = base ? base + 1 : argv0;
	if (!strncmp(base, "datcts-cases-", 13))
		base += 13;
	snprintf(buf, sizeof(buf), "%s", base);
	return buf;
}

static void list_cases(const char *argv0)
{
	struct dc_str s = { 0 };
	int i;

	dc_str_puts(&s, "[");
	for (i = 0; i < dc_ncases; i++) {
		const struct dc_case *c = dc_cases[i];
		bool first = true;

		dc_str_puts(&s, i ? ",\n" : "\n");
		dc_str_puts(&s, "{");
		dc_json_key(&s, &first, "id");
		dc_json_str(&s, c->id);
		dc_json_key(&s, &first, "page");
		dc_json_str(&s, c->page);
		dc_json_key(&s, &first, "area");
		dc_json_str(&s, case_area(c, argv0));
		dc_json_key(&s, &first, "clauses");
		json_words(&s, c->clauses, c->id);
		dc_json_key(&s, &first, "summary");
		dc_json_str(&s, c->summary ? c->summary : "");
		dc_json_key(&s, &first, "requires");
		json_words(&s, c->requires, NULL);
		dc_json_key(&s, &first, "needs");
		json_words(&s, c->needs, NULL);
		dc_json_key(&s, &first, "two_node");
		dc_str_puts(&s, c->passive ? "true" : "false");
		dc_json_key(&s, &first, "no_ia");
		dc_str_puts(&s, c->flags & DC_NO_IA ? "true" : "false");
		dc_json_key(&s, &first, "file");
		dc_json_str(&s, c->file);
		dc_json_key(&s, &first, "line");
		dc_str_printf(&s, "%d", c->line);
		dc_str_puts(&s, "}");
	}
	dc_str_puts(&s, "\n]\n");
	write_all(1, s.p, s.len);
	dc_str_free(&s);
}

/* ---- main ---- */

static void usage(FILE *f, const char *argv0)
{
	fprintf(f,
		"usage: %s --list\n"
		"       %s --run ID|GLOB... [--ia NAME] [--timeout SEC]\n"
		"       %s --run ID --role passive|active [--ia NAME] [--timeout SEC]\n"
		"options:\n"
		"  --ia NAME      IA under test (default: $DATCTS_IA); dat.conf from $DAT_OVERRIDE\n"
		"  --timeout SEC  per case (default: $DATCTS_TIMEOUT or 30)\n"
		"  --role R       run one half of a two-node case; relay on stdin/stdout\n"
		"  --no-fork      run in this process (debugging; prints the raw protocol)\n"
		"Each case runs in its own process group; one JSON result line per case.\n",
		argv0, argv0, argv0);
}

static const char **g_ids;
static const struct dc_case **g_todo;

static int cli(int argc, char **argv);

int dc_main(int argc, char **argv)
{
	int rc = cli(argc, argv);

	free(g_ids);
	free(g_todo);
	if (__lsan_do_leak_check && leak_check_wanted())
		__lsan_do_leak_check();
	return rc;
}

static int cli(int argc, char **argv)
{
	const char *ia = getenv("DATCTS_IA");
	const char *tenv = getenv("DATCTS_TIMEOUT");
	double timeout_s = tenv ? atof(tenv) : 30.0;
	bool list = false, run = false, no_fork = false;
	int role = DC_ROLE_SINGLE, nids = 0, i, worst = 0, ctl_out = 1, ctl_in = -1;
	const struct dc_case **todo;
	const char **ids;

	ids = g_ids = calloc((size_t)argc + 1, sizeof(*ids));
	if (!ids)
		return 3;
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--list")) {
			list = true;
		} else if (!strcmp(a, "--run")) {
			run = true;
		} else if (!strcmp(a, "--no-fork")) {
			no_fork = true;
		} else if (!strcmp(a, "--ctl-fds") && i + 1 < argc) {
			/* a case process that re-executed itself (dc_reexec) */
			if (sscanf(argv[++i], "%d,%d", &ctl_out, &ctl_in) != 2) {
				fprintf(stderr, "datcts: --ctl-fds OUT,IN\n");
				return 2;
			}
		} else if (!strcmp(a, "--ia") && i + 1 < argc) {
			ia = argv[++i];
		} else if (!strcmp(a, "--timeout") && i + 1 < argc) {
			timeout_s = atof(argv[++i]);
		} else if (!strcmp(a, "--role") && i + 1 < argc) {
			const char *r = argv[++i];

			if (!strcmp(r, "passive")) {
				role = DC_ROLE_PASSIVE;
			} else if (!strcmp(r, "active")) {
				role = DC_ROLE_ACTIVE;
			} else {
				fprintf(stderr, "datcts: --role passive|active, not %s\n", r);
				return 2;
			}
		} else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			usage(stdout, argv[0]);
			return 0;
		} else if (a[0] == '-') {
			fprintf(stderr, "datcts: unknown option %s\n", a);
			usage(stderr, argv[0]);
			return 2;
		} else {
			ids[nids++] = a;
		}
	}
	if (timeout_s <= 0)
		timeout_s = 30.0;
	dc_sort_cases();
	if (dc_check_unique())
		return 2;
	if (list) {
		list_cases(argv[0]);
		return 0;
	}
	if (!run || !nids) {
		usage(stderr, argv[0]);
		return 2;
	}

	/* Resolve ids (exact, or fnmatch patterns) in the order given. */
	todo = g_todo = calloc((size_t)dc_ncases * (size_t)nids + 1, sizeof(*todo));
	if (!todo)
		return 3;
	{
		int n = 0, k;

		for (i = 0; i < nids; i++) {
			const struct dc_case *c = dc_find_case(ids[i]);
			int matched = 0;

			if (c) {
				todo[n++] = c;
				continue;
			}
			for (k = 0; k < dc_ncases; k++)
				if (!fnmatch(ids[i], dc_cases[k]->id, 0)) {
					todo[n++] = dc_cases[k];
					matched++;
				}
			if (!matched) {
				fprintf(stderr, "datcts: no case %s\n", ids[i]);
				return 2;
			}
		}
		nids = n;
	}
	if (role != DC_ROLE_SINGLE &&
	    (nids != 1 || !todo[0]->passive)) {
		fprintf(stderr, "datcts: --role needs exactly one two-node case\n");
		return 2;
	}

	if (no_fork) {
		const struct dc_case *c = todo[0];
		double tm = timeout_s * 1000.0, kill_at = dc_now_ms() + tm;

		if (c->passive && role == DC_ROLE_SINGLE) {
			fprintf(stderr, "datcts: --no-fork runs one half: add --role\n");
			return 2;
		}
		if (ctl_out != 1)
			return dc_run_in_process(c, (enum dc_role)role, ia,
						 child_deadline(kill_at, tm), ctl_out, ctl_in);
		return dc_run_in_process(c, (enum dc_role)role, ia,
					 child_deadline(kill_at, tm), 1,
					 role == DC_ROLE_SINGLE ? -1 : 0);
	}

	setup_signals();
	for (i = 0; i < nids; i++) {
		int sev = run_one(todo[i], case_area(todo[i], argv[0]), ia,
				  timeout_s, role);

		if (sev > worst)
			worst = sev;
	}
	return worst >= 2 ? 1 : 0;
}
