// SPDX-License-Identifier: MIT
/*
 * The case side of the two-node line protocol (docs/results-format.md,
 * "Two-node protocol"): JSON lines to the supervisor on ctl_out, from it on
 * ctl_in.  Every wait is bounded by the case deadline; nothing sleeps.
 */
#include "dc_internal.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void dc_ctl_write(struct dc_ctx *t, const char *line)
{
	struct dc_priv *p = t->priv;
	size_t len = strlen(line), off = 0;
	char *buf;

	if (p->ctl_out < 0)
		return;
	buf = malloc(len + 1);
	if (!buf)
		abort();
	memcpy(buf, line, len);
	buf[len++] = '\n';
	while (off < len) {
		ssize_t n = write(p->ctl_out, buf + off, len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;	/* supervisor gone: nothing to tell */
		off += (size_t)n;
	}
	free(buf);
}

static void set_peer(struct dc_ctx *t, const struct dc_jv *r)
{
	const char *host = dc_json_get_str(r, "addr");
	const char *data = dc_json_get_str(r, "data");
	struct dc_peer *pe = &t->peer;

	memset(pe, 0, sizeof(*pe));
	if (host) {
		struct sockaddr_in *in4 = (struct sockaddr_in *)&pe->addr;
		struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&pe->addr;

		snprintf(pe->host, sizeof(pe->host), "%s", host);
		if (inet_pton(AF_INET, host, &in4->sin_addr) == 1)
			in4->sin_family = AF_INET;
		else if (inet_pton(AF_INET6, host, &in6->sin6_addr) == 1)
			in6->sin6_family = AF_INET6;
	}
	pe->conn_qual = (DAT_CONN_QUAL)dc_json_get_num(r, "conn_qual", 0);
	if (data)
		snprintf(pe->data, sizeof(pe->data), "%s", data);
}

/* Handles one line from the supervisor; returns true for "ready". */
static bool take_line(struct dc_ctx *t, const char *line)
{
	struct dc_priv *p = t->priv;
	struct dc_jv *v = dc_json_parse(line);
	const struct dc_jv *x;
	bool ready = false;

	if (!v) {
		fprintf(stderr, "datcts: bad relay line ignored: %s\n", line);
		return false;
	}
	if ((x = dc_json_get(v, "msg"))) {
		struct dc_msg *m = calloc(1, sizeof(*m)), **tail;
		const char *tag = dc_json_get_str(x, "tag");
		const char *data = dc_json_get_str(x, "data");

		if (!m)
			abort();
		m->tag = strdup(tag ? tag : "");
		m->data = strdup(data ? data : "");
		for (tail = &p->queue; *tail; tail = &(*tail)->next)
			;
		*tail = m;
	} else if ((x = dc_json_get(v, "peer_done"))) {
		const char *st = dc_json_get_str(x, "state");
		const char *msg = dc_json_get_str(x, "message");

		p->peer_done = true;
		snprintf(p->peer_state, sizeof(p->peer_state), "%s",
			 st ? st : "?");
		snprintf(p->peer_message, sizeof(p->peer_message), "%s",
			 msg ? msg : "");
	} else if ((x = dc_json_get(v, "ready"))) {
		set_peer(t, x);
		ready = true;
	}
	dc_json_free(v);
	return ready;
}

/*
 * Reads what is available (waiting at most until `until`); handles every
 * complete line.  Returns 1 if a "ready" came, 0 on progress or nothing,
 * -1 on timeout, -2 when the relay closed.
 */
static int pump(struct dc_ctx *t, double until)
{
	struct dc_priv *p = t->priv;
	int got_ready = 0;

	for (;;) {
		struct pollfd pfd = { .fd = p->ctl_in, .events = POLLIN };
		double left = until - dc_now_ms();
		char buf[4096];
		ssize_t n;
		char *nl;
		int r;

		if (p->ctl_in < 0)
			return -2;
		r = poll(&pfd, 1, left > 0 ? (int)(left + 0.999) : 0);
		if (r < 0 && errno == EINTR)
			continue;
		if (r == 0)
			return -1;
		n = read(p->ctl_in, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -2;
		dc_str_add(&p->inbuf, buf, (size_t)n);
		while (p->inbuf.len && (nl = memchr(p->inbuf.p, '\n', p->inbuf.len))) {
			size_t l = (size_t)(nl - p->inbuf.p);

			*nl = '\0';
			if (l && take_line(t, p->inbuf.p))
				got_ready = 1;
			memmove(p->inbuf.p, nl + 1, p->inbuf.len - l - 1);
			p->inbuf.len -= l + 1;
			p->inbuf.p[p->inbuf.len] = '\0';
		}
		return got_ready;
	}
}

void dc_wait_ready(struct dc_ctx *t)
{
	struct dc_priv *p = t->priv;
	double until = p->deadline_ms;

	for (;;) {
		int r;

		if (p->peer_done)
			dc_end_at(t, DC_UNRESOLVED, t->c->file, t->c->line, true,
				  "the passive half finished (%s: %s) before it announced readiness",
				  p->peer_state, p->peer_message);
		r = pump(t, until);
		if (r == 1)
			return;
		if (r == -1)
			dc_end_at(t, DC_UNRESOLVED, t->c->file, t->c->line, true,
				  "no readiness from the passive half before the deadline");
		if (r == -2)
			dc_end_at(t, DC_UNRESOLVED, t->c->file, t->c->line, true,
				  "the relay closed before the passive half announced readiness");
	}
}

void dc_announce_at(struct dc_ctx *t, const char *file, int line,
		    const struct sockaddr *addr, DAT_CONN_QUAL conn_qual,
		    const char *data)
{
	struct dc_priv *p = t->priv;
	struct dc_str s = { 0 };
	char host[INET6_ADDRSTRLEN] = "";
	bool first = true;

	if (t->role != DC_ROLE_PASSIVE)
		dc_end_at(t, DC_UNRESOLVED, file, line, false,
			  "case bug: dc_announce() outside a passive half");
	if (!addr && p->ia_open)
		addr = (const struct sockaddr *)t->ia_attr.ia_address_ptr;
	if (addr && addr->sa_family == AF_INET)
		inet_ntop(AF_INET, &((const struct sockaddr_in *)addr)->sin_addr,
			  host, sizeof(host));
	else if (addr && addr->sa_family == AF_INET6)
		inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)addr)->sin6_addr,
			  host, sizeof(host));
	dc_str_puts(&s, "{\"ready\":{");
	dc_json_key(&s, &first, "addr");
	dc_json_str(&s, host);
	dc_json_key(&s, &first, "conn_qual");
	dc_str_printf(&s, "%llu", (unsigned long long)conn_qual);
	if (data) {
		dc_json_key(&s, &first, "data");
		dc_json_str(&s, data);
	}
	dc_str_puts(&s, "}}");
	dc_ctl_write(t, dc_str_c(&s));
	dc_str_free(&s);
	p->announced = true;
}

void dc_peer_send(struct dc_ctx *t, const char *tag, const char *fmt, ...)
{
	struct dc_str data = { 0 }, s = { 0 };
	bool first = true;
	va_list ap;

	va_start(ap, fmt);
	dc_str_vprintf(&data, fmt, ap);
	va_end(ap);
	if (data.len > 4096)
		data.len = 4096;
	dc_str_puts(&s, "{\"msg\":{");
	dc_json_key(&s, &first, "tag");
	dc_json_str(&s, tag);
	dc_json_key(&s, &first, "data");
	dc_json_strn(&s, dc_str_c(&data), data.len);
	dc_str_puts(&s, "}}");
	dc_ctl_write(t, dc_str_c(&s));
	dc_str_free(&s);
	dc_str_free(&data);
}

void dc_peer_wait_at(struct dc_ctx *t, const char *file, int line,
		     const char *tag, char *buf, size_t len)
{
	struct dc_priv *p = t->priv;

	if (t->role == DC_ROLE_SINGLE)
		dc_end_at(t, DC_UNRESOLVED, file, line, false,
			  "case bug: dc_peer_wait() in a single-node case");
	for (;;) {
		struct dc_msg **pm;
		int r;

		for (pm = &p->queue; *pm; pm = &(*pm)->next) {
			struct dc_msg *m = *pm;

			if (strcmp(m->tag, tag))
				continue;
			if (buf && len)
				snprintf(buf, len, "%s", m->data);
			*pm = m->next;
			free(m->tag);
			free(m->data);
			free(m);
			return;
		}
		if (p->peer_done)
			dc_end_at(t, DC_UNRESOLVED, file, line, true,
				  "the other half finished (%s: %s) before it sent '%s'",
				  p->peer_state, p->peer_message, tag);
		r = pump(t, p->deadline_ms);
		if (r == -1)
			dc_end_at(t, DC_UNRESOLVED, file, line, true,
				  "no '%s' from the other half before the deadline",
				  tag);
		if (r == -2)
			dc_end_at(t, DC_UNRESOLVED, file, line, true,
				  "the relay closed while waiting for '%s'", tag);
	}
}

_Noreturn void dc_peer_die_at(struct dc_ctx *t, const char *file, int line)
{
	if (t->role == DC_ROLE_SINGLE)
		dc_end_at(t, DC_UNRESOLVED, file, line, false,
			  "case bug: dc_peer_die() in a single-node case");
	/* The marker first: the supervisor reads it before it reaps us. */
	dc_ctl_write(t, "{\"planned_kill\":{}}");
	fflush(NULL);
	kill(getpid(), SIGKILL);
	for (;;)
		pause();
}

void dc_peer_wait_gone_at(struct dc_ctx *t, const char *file, int line)
{
	struct dc_priv *p = t->priv;

	if (t->role == DC_ROLE_SINGLE)
		dc_end_at(t, DC_UNRESOLVED, file, line, false,
			  "case bug: dc_peer_wait_gone() in a single-node case");
	for (;;) {
		int r;

		if (p->peer_done) {
			if (strcmp(p->peer_state, "PASS"))
				dc_end_at(t, DC_UNRESOLVED, file, line, true,
					  "the other half ended %s (%s) instead of being killed as planned",
					  p->peer_state, p->peer_message);
			return;
		}
		r = pump(t, p->deadline_ms);
		if (r == -1)
			dc_end_at(t, DC_UNRESOLVED, file, line, true,
				  "the other half was not gone before the deadline");
		if (r == -2)
			dc_end_at(t, DC_UNRESOLVED, file, line, true,
				  "the relay closed while waiting for the other half to die");
	}
}
