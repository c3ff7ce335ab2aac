// SPDX-License-Identifier: MIT
/*
 * tcpbench - raw TCP reference numbers for datbench.
 *
 *   tcpbench [-t lat|bw] [-s size] [-n iters] [-S | -C host:port]
 *
 * lat: ping-pong of `size`-byte messages, reports half the round trip.
 * bw:  one side streams `iters` messages of `size` bytes, the other reads
 *      them and answers one byte at the end; reports MB/s (1e6 bytes).
 * Without -S/-C the program forks and both halves use 127.0.0.1.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char mode[8] = "lat";
static size_t size = 64;
static long iters = 100000;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Per-iteration round trips, for the median (robust against the outliers
 * of a busy or virtual machine). */
static double *rtt;

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median_us(long n)
{
	qsort(rtt, (size_t)n, sizeof(*rtt), cmp_double);
	return rtt[n / 2] / 2 * 1e6;
}

static int full(int fd, char *p, size_t n, int wr)
{
	while (n) {
		ssize_t r = wr ? write(fd, p, n) : read(fd, p, n);

		if (r <= 0) {
			if (r < 0 && errno == EINTR)
				continue;
			return -1;
		}
		p += r;
		n -= (size_t)r;
	}
	return 0;
}

static void tune(int fd)
{
	int one = 1;

	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

static int run(int fd, int server)
{
	char *buf = calloc(1, size > 1 ? size : 1);
	double t0, t1;

	if (!strcmp(mode, "lat")) {
		rtt = calloc((size_t)iters, sizeof(*rtt));
		t0 = now();
		for (long i = 0; i < iters; i++) {
			double ti = now();

			if (server) {
				if (full(fd, buf, size, 0) ||
				    full(fd, buf, size, 1))
					return 1;
			} else {
				if (full(fd, buf, size, 1) ||
				    full(fd, buf, size, 0))
					return 1;
			}
			rtt[i] = now() - ti;
		}
		t1 = now();
		if (!server)
			printf("tcpbench lat size %zu: %.2f us one-way (median %.2f us)\n",
			       size, (t1 - t0) / iters / 2 * 1e6,
			       median_us(iters));
		free(rtt);
	} else {
		t0 = now();
		for (long i = 0; i < iters; i++)
			if (full(fd, buf, size, server ? 0 : 1))
				return 1;
		if (full(fd, buf, 1, server ? 1 : 0))
			return 1;
		t1 = now();
		if (!server)
			printf("tcpbench bw size %zu: %.1f MB/s\n", size,
			       (double)size * iters / (t1 - t0) / 1e6);
	}
	free(buf);
	return 0;
}

int main(int argc, char **argv)
{
	const char *connect_to = NULL;
	int serve = 0, opt, ls, fd, pfd[2];
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t len = sizeof(sa);

	while ((opt = getopt(argc, argv, "t:s:n:SC:")) != -1) {
		switch (opt) {
		case 't': snprintf(mode, sizeof(mode), "%s", optarg); break;
		case 's': size = strtoul(optarg, NULL, 0); break;
		case 'n': iters = strtol(optarg, NULL, 0); break;
		case 'S': serve = 1; break;
		case 'C': connect_to = optarg; break;
		default:
			fprintf(stderr, "usage: %s [-t lat|bw] [-s size] [-n iters] [-S | -C host:port]\n", argv[0]);
			return 2;
		}
	}
	if (connect_to) {
		char host[256];
		const char *c = strrchr(connect_to, ':');

		if (!c)
			return 2;
		snprintf(host, sizeof(host), "%.*s", (int)(c - connect_to),
			 connect_to);
		sa.sin_port = htons((uint16_t)atoi(c + 1));
		inet_pton(AF_INET, host, &sa.sin_addr);
		fd = socket(AF_INET, SOCK_STREAM, 0);
		if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
			return perror("connect"), 1;
		tune(fd);
		return run(fd, 0);
	}
	ls = socket(AF_INET, SOCK_STREAM, 0);
	sa.sin_addr.s_addr = htonl(serve ? INADDR_ANY : INADDR_LOOPBACK);
	if (bind(ls, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    listen(ls, 1) < 0 ||
	    getsockname(ls, (struct sockaddr *)&sa, &len) < 0)
		return perror("listen"), 1;
	if (serve) {
		printf("tcpbench: listening on port %d\n", ntohs(sa.sin_port));
		fflush(stdout);
	} else {
		if (pipe(pfd) < 0)
			return 1;
		if (fork() == 0) {
			fd = socket(AF_INET, SOCK_STREAM, 0);
			if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
				_exit(1);
			tune(fd);
			opt = run(fd, 0);
			fflush(stdout);
			_exit(opt);
		}
	}
	fd = accept(ls, NULL, NULL);
	tune(fd);
	opt = run(fd, 1);
	if (!serve) {
		int st;

		wait(&st);
		return opt || !WIFEXITED(st) || WEXITSTATUS(st);
	}
	return opt;
}
