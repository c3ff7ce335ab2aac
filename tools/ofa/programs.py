#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Runs OFA's own DAT 2.0 test programs (Debian dapl2-utils: dapltest, dtest,
dtestcm, dtestsrq, dtestx) against one IA of a dat.conf and judges each run.

    tools/ofa/programs.py --dat-conf build/dat2.conf --ia ref-sock [--host 127.0.0.1]
                          [--only NAME,...] [--skip NAME=REASON]... [--list]
    tools/ofa/programs.py --perf --dat-conf CONF --ia A,B --host H [--rounds 3]

--perf runs dapltest's performance test (-T P, RDMA Write) for each IA in
turn: latency with one operation in flight (64 bytes), bandwidth with a
pipeline of 64 KiB writes; it prints the medians of the rounds and the ratios
of the first IA to the second (latency A/B, bandwidth A/B).  A round runs both
IAs one after the other, so each round gives one ratio under the same load;
the median of those ratios comes with a distribution-free interval (order
statistics of the paired ratios, at least 95 % where the rounds allow it), and
the line says whether the interval excludes 1.0 or the two cannot be told
apart.

Several of these programs exit 0 when they fail, so every run is judged by
what it prints as well as by its exit status: a run passes only when each
side prints its success marker and nothing that looks like an error.  Where a
program relies on behaviour the uDAPL pages do not give it, the scenario is an
"expected divergence": it names the page and section, and it passes only when
the program stops exactly there (a program that suddenly passes, or fails
anywhere else, fails the run).  docs/reference-provider.md ("DAT 2.0") lists
each one.  Exit status: 0 all as expected, 1 otherwise, 77 when the programs
are not installed.
"""
import argparse
import math
import os
import re
import shutil
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field

# Lines that mean something went wrong, whatever a program's exit status.
TROUBLE = re.compile(r"(?i)\berror\b|\bfail|segmentation|assert|abort")
# dapltest FFT prints "Result: PASS" even after a failed check; its checks
# print "<condition> failed in file <f>, line <n>".
FFT_CHECK = re.compile(r"failed in file (\S+), line (\d+)")


@dataclass
class Scenario:
    name: str
    client: list                    # argv after the program name
    program: str = "dapltest"
    server: list = None             # argv of the server side, if any
    success: list = field(default_factory=list)  # regexes the client must print
    server_success: list = field(default_factory=list)
    divergence: str = None          # page and section the program relies on
    expect: list = field(default_factory=list)    # regexes that show the divergence
    ready: str = r"Service Point Ready"   # the server's readiness line
    tolerate: str = None            # trouble lines that are expected here
    exchange: bool = False          # the client first fetches the server's
                                    # address over TCP port 15828 (OFA's tests)
    timeout: int = 120


def dapltest_server(ia):
    return ["-T", "S", "-D", ia]


def scenarios(ia, host):
    T = ["-T", "T", "-s", host, "-D", ia]
    P = ["-T", "P", "-s", host, "-D", ia]
    F = ["-T", "F", "-s", host, "-D", ia, "-f"]
    end = [r"End of Work -- Client Exiting"]
    return [
        # RDMA Reads with one segment: dapltest does not look at the IA's
        # max_iov_segments_per_rdma_read, which is 1 on siw0 (docs/verbs.md).
        Scenario("dapltest.transaction.mixed", T + [
            "-i", "500", "-t", "4", "-w", "8",
            "client", "SR", "1024", "3", "server", "SR", "1024", "3",
            "client", "RR", "4096", "1", "server", "RW", "4096", "2"],
            server=dapltest_server(ia),
            success=[r"Total WQE\s*:\s*[1-9]"] + end,
            server_success=[r"Transaction Test Finished"]),
        Scenario("dapltest.transaction.validated_polling", T + [
            "-i", "200", "-t", "2", "-w", "2", "-V", "-P",
            "client", "SR", "65536", "server", "SR", "65536",
            "client", "RW", "65536", "server", "RR", "65536"],
            server=dapltest_server(ia),
            success=[r"Total WQE\s*:\s*[1-9]"] + end,
            server_success=[r"Transaction Test Finished"]),
        Scenario("dapltest.performance.rdma_write", P + ["-i", "2000", "RW", "4096", "2"],
                 server=dapltest_server(ia),
                 success=[r"Operation Throughput\s*:\s*[1-9]"] + end,
                 server_success=[r"Finished performance test"]),
        Scenario("dapltest.performance.rdma_read", P + ["-i", "1000", "RR", "4096"],
                 server=dapltest_server(ia),
                 success=[r"Operation Throughput\s*:\s*[1-9]"] + end,
                 server_success=[r"Finished performance test"]),
        # One IA: with -w > 1 dapltest hands one IA's connection EVD to EPs of
        # other IAs, which the pages do not provide for (docs/reference-provider.md).
        # A limit probe ends when the provider runs out: that line is expected.
        Scenario("dapltest.limit", ["-T", "L", "-D", ia, "-w", "1", "-m", "100",
                                    "limit_ia", "limit_pz", "limit_cno", "limit_evd",
                                    "limit_ep", "limit_lmr", "limit_rpost", "limit_size_lmr"],
                 success=[r"IAs opened: 100", r"PZs created: 100", r"CNOs created: 100",
                          r"EVDs created: 100", r"EPs created: 100", r"LMRs created: 100",
                          r"recv buffers posted per EP: [1-9]", r"LMR of 0x[0-9a-f]+ bytes OK"],
                 tolerate=r"LimitTest: dat_ep_post_recv fails: DAT_INSUFFICIENT_RESOURCES"),
        Scenario("dapltest.limit.service_points",
                 ["-T", "L", "-D", ia, "-w", "1", "-m", "100", "limit_psp", "limit_rsp"],
                 divergence="dat_psp_create(3DAT), dat_rsp_create(3DAT) RETURN VALUES, "
                            "DAT_INVALID_PARAMETER: dapltest's conn_qual 0xaffab1e is outside the "
                            "transport's documented range 1..65535",
                 expect=[r"dat_psp_create #1 fails: DAT_INVALID_PARAMETER DAT_INVALID_ARG2",
                         r"dat_rsp_create #1 fails: DAT_INVALID_PARAMETER DAT_INVALID_ARG2"]),
        Scenario("dapltest.fft.hwconn", F + ["hwconn"], success=[r"Result: PASS"]),
        Scenario("dapltest.fft.endpoint", F + ["endpoint"], success=[r"Result: PASS"]),
        Scenario("dapltest.fft.pz", F + ["pz"], success=[r"Result: PASS"]),
        Scenario("dapltest.fft.connmgt", F + ["connmgt"], success=[r"Result: PASS"]),
        Scenario("dapltest.fft.mem", F + ["mem", "case0", "case1", "case3", "case4"],
                 success=[r"Result: PASS"]),
        Scenario("dapltest.fft.mem.zero_length", F + ["mem", "case2"],
                 divergence="dat_lmr_create(3DAT) RETURN VALUES: no DAT_LENGTH_ERROR; dapltest "
                            "wants one for length 0 with no buffer, the provider returns "
                            "DAT_INVALID_PARAMETER",
                 expect=[r"dapl_fft_mem.c, line 88\s+Error = -?\d+, DAT_INVALID_PARAMETER"]),
        # Cases 13 and 15 pass an IA handle to dat_cno_query / dat_evd_query;
        # libdat2 keeps IA handles as small integers and dereferences one
        # before any provider is reached (SIGSEGV in libdat2 itself).
        Scenario("dapltest.fft.queryinfo", F + ["queryinfo"] +
                 ["case%d" % c for c in range(18) if c not in (13, 15)],
                 success=[r"Result: PASS"]),
        Scenario("dtestcm", ["-P", ia, "-h", host], program="dtestcm",
                 server=["-P", ia, "-s"], ready=r"Server ready on port", exchange=True,
                 success=[r"Connections:\s+[\d.]+ usec"], server_success=[r"TOTAL:"]),
        Scenario("dtest", ["-P", ia, "-h", host], program="dtest", server=["-P", ia, "-s"],
                 ready=r"Server is waiting for client connection", exchange=True,
                 divergence="dat_ep_post_send(3DAT) RETURN VALUES, DAT_PRIVILEGES_VIOLATION: "
                            "dtest sends from an LMR registered with "
                            "DAT_MEM_PRIV_LOCAL_WRITE_FLAG only (no local read)",
                 expect=[r"ERROR: dat_ep_post_send\(\) DAT_PRIVILEGES_VIOLATION DAT_PRIVILEGES_READ",
                         r"DAPL Test Complete\. FAILED"]),
        Scenario("dtest.burst", ["-P", ia, "-h", host, "-B", "100"], program="dtest",
                 server=["-P", ia, "-s", "-B", "100"],
                 ready=r"Server is waiting for client connection", exchange=True,
                 divergence="dat_ep_post_send(3DAT) RETURN VALUES, as dtest",
                 expect=[r"ERROR: dat_ep_post_send\(\) DAT_PRIVILEGES_VIOLATION DAT_PRIVILEGES_READ",
                         r"DAPL Test Complete\. FAILED"]),
        Scenario("dtestsrq", ["-P", ia, "-h", host, "-b", "1024", "-c", "4", "-B", "8"],
                 program="dtestsrq", server=["-P", ia, "-s", "-b", "1024", "-c", "4", "-B", "8"],
                 ready=r"server ready on port",
                 divergence="dat_ep_create_with_srq(3DAT) DESCRIPTION: the EP has exactly the "
                            "requested max_message_size; dtestsrq asks for 0 and sends 1024 bytes",
                 expect=[r"ERR: dat_ep_post_send\(\) DAT_LENGTH_ERROR"]),
        Scenario("dtestx", ["-P", ia, "-h", host], program="dtestx", server=["-P", ia, "-s"],
                 ready=r"Server is waiting for client connection", exchange=True,
                 divergence="extension absent: the provider reports "
                            "DAT_IA_ATTR extension_supported = DAT_EXTENSION_NONE",
                 expect=[r"ERROR: IB extension not supported"]),
        Scenario("dapltest.quit", ["-T", "Q", "-s", host, "-D", ia],
                 server=dapltest_server(ia), success=end,
                 server_success=[r"Exiting"]),
    ]


EXCHANGE_PORT = 15828


def tcp_listening(port):
    """True when some socket of this host listens on TCP @port (IPv4 or IPv6)."""
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(table) as f:
                next(f)
                for line in f:
                    local, state = line.split()[1], line.split()[3]
                    if state == "0A" and int(local.rsplit(":", 1)[1], 16) == port:
                        return True
        except OSError:
            pass
    return False


class Server:
    """The server side: output collected by a thread; ready() waits for the
    readiness line (or the end of the process, which the judgement reports)."""

    def __init__(self, argv, env, ready_rx):
        # line-buffered, so the readiness line arrives when it is printed
        self.proc = subprocess.Popen(["stdbuf", "-oL"] + argv, env=env, text=True,
                                     stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        self.lines = []
        self.seen = threading.Event()
        self.rx = re.compile(ready_rx)
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        for line in self.proc.stdout:
            self.lines.append(line)
            if self.rx.search(line):
                self.seen.set()
        self.seen.set()         # ended: nothing more to wait for

    def ready(self, exchange, limit=30.0):
        deadline = time.monotonic() + limit
        self.seen.wait(limit)
        if exchange:
            poll_until(lambda: self.proc.poll() is not None or tcp_listening(EXCHANGE_PORT),
                       deadline - time.monotonic(), 0.01)

    def finish(self, limit=30.0):
        try:
            self.proc.wait(limit)
            rc = self.proc.returncode
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            rc = "timeout"
        self.reader.join(5)
        return "".join(self.lines), rc


def exchange_port_free(limit=30.0):
    """Waits (bounded) until no socket listens on the exchange port: a server of an earlier
    run that has not gone yet would take the client's connection (a VM run, 2026-11-27: siw0's
    dtest client waited 63 s, the kernel's SYN retries, and found no server)."""
    poll_until(lambda: not tcp_listening(EXCHANGE_PORT), limit, 0.05)


def poll_until(done, limit, every):
    """Polls done() every `every` s until it is true or `limit` s have passed (a state of
    another process, which nothing signals); returns its last answer."""
    deadline = time.monotonic() + limit
    while not done():
        if time.monotonic() >= deadline:
            return False
        time.sleep(every)
    return True


def exchange_failed(sc, cout):
    """The client could not reach the server's TCP address exchange, before any DAT call."""
    return sc.exchange and re.search(r"Couldn't connect to \S+:%d" % EXCHANGE_PORT, cout)


def run_pair(sc, env):
    """Runs the server side (if any) and the client; returns both outputs."""
    srv = None
    if sc.exchange:
        exchange_port_free()
    if sc.server is not None:
        srv = Server([sc.program] + sc.server, env, sc.ready)
        srv.ready(sc.exchange)
    try:
        cli = subprocess.run([sc.program] + sc.client, env=env, text=True,
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             timeout=sc.timeout)
        cout, crc = cli.stdout, cli.returncode
    except subprocess.TimeoutExpired as e:
        out = e.stdout or ""
        cout, crc = out.decode() if isinstance(out, bytes) else out, "timeout"
    sout, src = "", None
    if srv:
        # dapltest's server serves clients until "dapltest -T Q" tells it to
        # quit; the d*test servers end with their client.
        if sc.program == "dapltest" and sc.client[:2] != ["-T", "Q"]:
            host = sc.client[sc.client.index("-s") + 1]
            ia = sc.client[sc.client.index("-D") + 1]
            subprocess.run(["dapltest", "-T", "Q", "-s", host, "-D", ia], env=env,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=30)
        sout, src = srv.finish()
    return cout, crc, sout, src


def judge(sc, cout, crc, sout, src):
    """Returns a list of reasons the run is not as expected (empty: as expected)."""
    why = []
    both = cout + "\n" + sout
    if sc.divergence:
        for rx in sc.expect:
            if not re.search(rx, both):
                why.append("expected divergence not seen: /%s/" % rx)
        if re.search(r"PASSED|Test Complete\. PASS", both):
            why.append("the program now passes: drop the expected divergence")
        return why
    for name, rc in (("client", crc), ("server", src)):
        if rc not in (0, None):
            why.append("%s exit status %s" % (name, rc))
    for rx in sc.success:
        if not re.search(rx, cout):
            why.append("client never printed /%s/" % rx)
    for rx in sc.server_success:
        if not re.search(rx, sout):
            why.append("server never printed /%s/" % rx)
    for m in FFT_CHECK.finditer(both):
        why.append("check failed at %s:%s" % m.groups())
    for line in both.splitlines():
        if TROUBLE.search(line) and not FFT_CHECK.search(line) and \
                not re.search(r"Description: .*fails with|Result: PASS", line) and \
                not (sc.tolerate and re.search(sc.tolerate, line)):
            why.append("trouble: %s" % line.strip())
    if re.search(r"Result: FAIL", both):
        why.append("a case printed Result: FAIL")
    return why


PERF_RUNS = {
    # latency: one 64-byte RDMA Write in flight at a time
    "latency": (["-i", "2000", "-p", "1", "RW", "64"], r"Arithmetic mean\s*:\s*([\d.]+) us"),
    # bandwidth: dapltest's default pipeline of 64 KiB RDMA Writes
    "bandwidth": (["-i", "1000", "RW", "65536"], r"Bandwidth\s*:\s*([\d.]+) MB/sec"),
}


def median_interval(values, confidence=0.95):
    """The median of @values and an interval for it, with its exact coverage.

    The interval is [v(k), v(n+1-k)] of the sorted values, k the largest rank
    whose coverage 1 - 2 P(Binomial(n, 1/2) < k) is still at least @confidence
    (distribution-free: only the rounds' independence is assumed).  With too
    few values for @confidence, the widest interval, [min, max], and its
    lower coverage.
    """
    v = sorted(values)
    n = len(v)
    if not n:
        raise ValueError("no values")
    median = v[(n - 1) // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2

    def coverage(k):
        tail = sum(math.comb(n, i) for i in range(k)) / 2 ** n
        return 1 - 2 * tail

    k = 1
    while k + 1 <= (n + 1) // 2 and coverage(k + 1) >= confidence:
        k += 1
    return median, v[k - 1], v[n - k], coverage(k)


def ratio_verdict(lo, hi, better, coverage=1.0, confidence=0.95):
    """What an interval of A/B says; @better is "lower" or "higher" for A.
    An interval of lower @coverage than @confidence (too few rounds) says
    nothing either way."""
    if coverage < confidence:
        return "too few rounds for a %d %% interval: cannot tell" % round(100 * confidence)
    if lo <= 1.0 <= hi:
        return "includes 1.0: the two cannot be told apart"
    a_better = hi < 1.0 if better == "lower" else lo > 1.0
    return "excludes 1.0: the first is %s" % ("better" if a_better else "worse")


def perf(ias, host, env, rounds):
    """Medians of @rounds dapltest -T P runs per IA and measure, taken in turns."""
    got = {ia: {m: [] for m in PERF_RUNS} for ia in ias}
    paired = {m: [] for m in PERF_RUNS}     # (first IA, second IA) of each round
    for _ in range(rounds):
        this_round = {m: {} for m in PERF_RUNS}
        for ia in ias:
            for measure, (argv, rx) in PERF_RUNS.items():
                sc = Scenario("perf", ["-T", "P", "-s", host, "-D", ia] + argv,
                              server=dapltest_server(ia))
                # a run that gives no figure is tried once more, for either IA alike: under
                # software emulation a run now and then stalls past its time limit (OFA's
                # libdaplofa on siw0 in CI, 2026-11-28)
                for attempt in (1, 2):
                    cout, crc, sout, src = run_pair(sc, env)
                    m = re.search(rx, cout)
                    if crc == 0 and m:
                        got[ia][measure].append(float(m.group(1)))
                        this_round[measure][ia] = float(m.group(1))
                        break
                    print("perf %s %s: no figure (exit %s)%s" % (
                        ia, measure, crc, "; trying again" if attempt == 1 else ""))
                    print("\n".join("  | " + l for l in cout.splitlines()[-8:]))
        if len(ias) == 2:
            for measure, figs in this_round.items():
                if len(figs) == 2:
                    paired[measure].append((figs[ias[0]], figs[ias[1]]))
    med = {}
    for ia in ias:
        med[ia] = {}
        for measure, vals in got[ia].items():
            vals = sorted(vals)
            med[ia][measure] = vals[(len(vals) - 1) // 2] if vals else None
            print("perf %s %s median %s (runs: %s)" % (
                ia, measure, med[ia][measure], " ".join("%g" % v for v in got[ia][measure])))
    ok = all(v is not None for ia in ias for v in med[ia].values())
    if ok and len(ias) == 2:
        a, b = ias
        print("ratio %s/%s latency %.2f bandwidth %.2f (of the medians)" % (
            a, b, med[a]["latency"] / med[b]["latency"],
            med[a]["bandwidth"] / med[b]["bandwidth"]))
        for measure, better in (("latency", "lower"), ("bandwidth", "higher")):
            pairs = paired[measure]
            if not pairs:
                print("ratio %s/%s %s: no round gave both figures" % (a, b, measure))
                continue
            m, lo, hi, cov = median_interval([x / y for x, y in pairs])
            print("ratio %s/%s %s per round: median %.3f, interval [%.3f, %.3f] "
                  "(%.1f %%, %d rounds): %s" % (a, b, measure, m, lo, hi, 100 * cov,
                                                len(pairs), ratio_verdict(lo, hi, better, cov)))
    return 0 if ok else 1


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dat-conf", required=True)
    ap.add_argument("--ia", required=True)
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--only", default="", help="comma-separated scenario names")
    ap.add_argument("--skip", action="append", default=[], metavar="NAME=REASON",
                    help="leave a scenario out on this IA; printed as SKIPPED with the reason")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--perf", action="store_true", help="dapltest -T P side by side (see above)")
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()

    env = dict(os.environ, DAT_OVERRIDE=os.path.abspath(args.dat_conf))
    if args.perf:
        if not shutil.which("dapltest"):
            print("SKIPPED: dapltest not installed (Debian dapl2-utils)")
            return 77
        return perf(args.ia.split(","), args.host, env, args.rounds)

    todo = scenarios(args.ia, args.host)
    if args.only:
        names = set(args.only.split(","))
        todo = [s for s in todo if s.name in names]
    skipped = {}
    for item in args.skip:
        name, sep, reason = item.partition("=")
        if not sep or not reason.strip() or name not in {s.name for s in todo}:
            ap.error("--skip wants NAME=REASON with a scenario of this run: %r" % item)
        skipped[name] = reason.strip()
    todo = [s for s in todo if s.name not in skipped]
    if args.list:
        for s in todo:
            print(s.name, "(expected divergence: %s)" % s.divergence if s.divergence else "")
        return 0
    missing = sorted({s.program for s in todo if not shutil.which(s.program)})
    if missing:
        print("SKIPPED: %s not installed (Debian dapl2-utils)" % ", ".join(missing))
        return 77
    bad = 0
    for name, reason in skipped.items():
        print("%-8s %-42s        (%s)" % ("SKIPPED", name, reason))
    for sc in todo:
        t0 = time.monotonic()
        cout, crc, sout, src = run_pair(sc, env)
        why = judge(sc, cout, crc, sout, src)
        if why and exchange_failed(sc, cout):
            # the program's own TCP exchange, not DAT: once more, said so
            print("%-8s %-42s        (the client found no server at the TCP exchange: again)"
                  % ("AGAIN", sc.name))
            cout, crc, sout, src = run_pair(sc, env)
            why = judge(sc, cout, crc, sout, src)
        took = time.monotonic() - t0
        state = "FAIL" if why else ("DIVERGES" if sc.divergence else "PASS")
        print("%-8s %-42s %5.1fs%s" % (state, sc.name, took,
                                       "  (%s)" % sc.divergence if sc.divergence and not why else ""))
        if why:
            bad += 1
            for w in why[:10]:
                print("         " + w)
            print("         --- client output (tail) ---")
            for line in cout.splitlines()[-15:]:
                print("         | " + line)
            if sout:
                print("         --- server output (tail) ---")
                for line in sout.splitlines()[-10:]:
                    print("         | " + line)
    print("ofa programs on %s: %d scenario(s), %d not as expected, %d skipped"
          % (args.ia, len(todo), bad, len(skipped)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
