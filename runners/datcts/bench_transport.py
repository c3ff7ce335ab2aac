"""``datcts bench-transport``: the embedded transport against plain TCP and
libfabric's tcp provider, in one table.

Runs bench/datbench (DAT API over the IA under test, ref-sock by default),
bench/tcpbench (blocking TCP sockets) and, when installed, ``fi_pingpong -p
tcp -e msg`` (Debian ``libfabric-bin``), each as two processes over
loopback.  The programs take turns (one run of every program for a row,
then the next round), so that load on a shared machine falls on all of
them alike; the table gives the median over the runs and the ratios.

With --growth it also runs bench/growbench: connection set-up and
tear-down against plain TCP, post + completion with 1 to 4096 EPs on one
IA and one EVD, memory per EP and per LMR, several threads at once.

Latency is one-way (half the round trip).  fi_pingpong reports only the
mean of a run, so the ratios against it use the mean of datbench's and
tcpbench's runs too; the per-iteration median of datbench and tcpbench
(robust against preemption) is shown beside it.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

LAT_RE = re.compile(r": ([0-9.]+) us one-way \(median ([0-9.]+) us\)")
BW_RE = re.compile(r": ([0-9.]+) MB/s")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _run(cmd, env, timeout):
    # a session of its own: the benchmarks fork, and a timeout ends both halves
    p = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, start_new_session=True)
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.communicate()
        raise RuntimeError(f"{' '.join(cmd)}: no result within {timeout:.0f} s")
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)}: exit {p.returncode}: {err.strip()[-300:]}")
    return out


def _lat(out):
    m = LAT_RE.search(out)
    if not m:
        raise RuntimeError(f"no latency in {out!r}")
    return {"mean": float(m.group(1)), "median": float(m.group(2))}


def _bw(out):
    m = BW_RE.search(out)
    if not m:
        raise RuntimeError(f"no bandwidth in {out!r}")
    return {"mbs": float(m.group(1))}


def _fi_pingpong(size, iters, timeout):
    """One fi_pingpong run (server and client); one-way us per transfer."""
    for attempt in range(5):
        out = _fi_pingpong_once(size, iters, timeout, attempt == 4)
        if out is not None:
            break
    return _fi_result(out)


def _fi_pingpong_once(size, iters, timeout, last):
    """Its output, or None when its server could not listen on the port
    (in use by a TIME_WAIT of growbench's or datbench's connections: the
    server binds without SO_REUSEADDR)."""
    port = str(_free_port())
    base = ["fi_pingpong", "-p", "tcp", "-e", "msg", "-S", str(size), "-I", str(iters)]
    srv = subprocess.Popen(base + ["-B", port], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)
    try:
        out = None
        for _ in range(50):  # the server needs a moment to listen
            time.sleep(0.05)
            cli = subprocess.run(base + ["-P", port, "127.0.0.1"], capture_output=True,
                                 text=True, timeout=timeout)
            if cli.returncode == 0:
                out = cli.stdout
                break
            if srv.poll() is not None and not last:
                return None
        if out is None:
            raise RuntimeError(f"fi_pingpong: {cli.stderr.strip()[-300:]}")
    finally:
        try:
            srv.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            srv.kill()
            srv.wait()
    return out


def _fi_result(out):
    # bytes #sent #ack total time MB/sec usec/xfer Mxfers/sec, then one line
    lines = out.splitlines()
    for i, line in enumerate(lines[:-1]):
        f = lines[i + 1].split()
        if line.split()[:1] == ["bytes"] and len(f) >= 8:
            return {"mean": float(f[6])}
    raise RuntimeError(f"fi_pingpong: no result in {out!r}")


def rows(bindir: Path, lat_iters: int, bw_iters: int, have_fi: bool, timeout: float):
    """(label, unit, {tool: runner}) for every row of the table."""
    db, tb = str(bindir / "datbench"), str(bindir / "tcpbench")

    def dat(*a):
        return lambda env: _run([db, *a], env, timeout)

    def tcp(*a):
        return lambda env: _run([tb, *a], env, timeout)

    fi_by_size = {}

    def fi(size):
        # one runner per size: the polling and the waiting row share its
        # run of a round (fi_pingpong has one mode)
        if size not in fi_by_size:
            fi_by_size[size] = lambda env: _fi_pingpong(size, lat_iters, timeout)
        return fi_by_size[size]

    n, nb = str(lat_iters), str(bw_iters)
    out = []
    for size, poll in ((64, True), (4096, True), (64, False), (4096, False)):
        label = f"{size} B ping-pong, " if size < 1024 else f"{size // 1024} KiB ping-pong, "
        label += "polling (datbench -P)" if poll else "waiting (dat_evd_wait)"
        tools = {"datbench": (lambda f: lambda env: _lat(f(env)))(
                     dat("-t", "lat", "-o", "send", "-s", str(size), "-n", n,
                         *(["-P"] if poll else []))),
                 "tcpbench": (lambda f: lambda env: _lat(f(env)))(
                     tcp("-t", "lat", "-s", str(size), "-n", n))}
        if have_fi:
            tools["fi_pingpong"] = fi(size)
        out.append((label, "us", tools))
    for size in (4096, 65536):
        label = f"{size // 1024} KiB stream, Send, window 64"
        tools = {"datbench": (lambda f: lambda env: _bw(f(env)))(
                     dat("-t", "bw", "-o", "send", "-s", str(size), "-n", nb, "-w", "64")),
                 "tcpbench": (lambda f: lambda env: _bw(f(env)))(
                     tcp("-t", "bw", "-s", str(size), "-n", nb))}
        out.append((label, "MB/s", tools))
    return out


# bench/growbench with --growth: how costs grow with the work.
GROW_RE = {
    "conn": re.compile(r": ([0-9.]+) connections/s .*plain TCP ([0-9.]+)/s"),
    "eps": re.compile(r": ([0-9.]+) us per Send.*set-up ([0-9.]+) us per connection;"
                      r".*connections: ([0-9.]+) us"),
    "mem": re.compile(r": ([0-9.]+) KiB per EP .*, ([0-9.]+) KiB more per connection.*"
                      r", ([0-9.]+) KiB per LMR"),
    "threads": re.compile(r": ([0-9.]+) Sends/s in all \(([0-9.]+) us"),
}


GROWTH_NS = (1, 64, 1024, 4096)
# (label, column of a curve row, SVG colour) for the plots
SERIES = (("Send + both completions, evd_wait", 1, "#1f77b4"),
          ("the same, dequeue", 2, "#2ca02c"),
          ("plain TCP write + read", 3, "#7f7f7f"),
          ("set-up per connection", 4, "#d62728"))


def text_plot(curve):
    """A bar per N and series, scaled per series (post + completion, set-up)."""
    lines = []
    for label, col, _ in SERIES:
        top = max(r[col] for r in curve) or 1.0
        lines.append(f"{label} (us):")
        for r in curve:
            bar = "#" * max(1, round(40 * r[col] / top))
            lines.append(f"  N={r[0]:<5} {bar} {r[col]:.2f}")
    return "\n".join(lines)


def svg_plot(curve, title):
    """Two panels against N (log scale): us per Send + completions and plain
    TCP's round-robin; set-up us per connection."""
    import math

    w, h, m = 360, 240, 48
    xs = [math.log2(r[0]) for r in curve]
    x0, x1 = min(xs), max(xs) or 1.0

    def panel(ox, cols, heading):
        top = max(r[c] for r in curve for _, c, _ in cols) * 1.1 or 1.0
        px = lambda x: ox + m + (x - x0) / (x1 - x0) * (w - 1.5 * m)  # noqa: E731
        py = lambda y: h - m + 8 - y / top * (h - 1.5 * m)  # noqa: E731
        out = [f'<text x="{ox + w / 2}" y="16" text-anchor="middle">{heading}</text>',
               f'<line x1="{px(x0)}" y1="{py(0)}" x2="{px(x1)}" y2="{py(0)}" stroke="black"/>',
               f'<line x1="{px(x0)}" y1="{py(0)}" x2="{px(x0)}" y2="{py(top)}" stroke="black"/>']
        for x, r in zip(xs, curve):
            out.append(f'<text x="{px(x):.1f}" y="{py(0) + 14:.1f}" text-anchor="middle">'
                       f'{r[0]}</text>')
        for k in range(5):
            y = top * k / 4
            out.append(f'<text x="{px(x0) - 4:.1f}" y="{py(y) + 4:.1f}" text-anchor="end">'
                       f'{y:.0f}</text>')
        out.append(f'<text x="{px((x0 + x1) / 2):.1f}" y="{h - 4}" text-anchor="middle">'
                   'EPs on one IA and one EVD (N, log scale)</text>')
        for i, (label, c, colour) in enumerate(cols):
            pts = " ".join(f"{px(x):.1f},{py(r[c]):.1f}" for x, r in zip(xs, curve))
            out.append(f'<polyline points="{pts}" fill="none" stroke="{colour}" '
                       'stroke-width="2"/>')
            for x, r in zip(xs, curve):
                out.append(f'<circle cx="{px(x):.1f}" cy="{py(r[c]):.1f}" r="3" '
                           f'fill="{colour}"/>')
            out.append(f'<text x="{px(x0) + 8:.1f}" y="{34 + 14 * i}" fill="{colour}">'
                       f'{label}</text>')
        return out

    body = panel(0, SERIES[:3], "us per operation") + \
        panel(w, SERIES[3:], "set-up us per connection")
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{2 * w}" height="{h + 20}" '
            'font-family="sans-serif" font-size="11">\n'
            f'<title>{title}</title>\n'
            f'<rect width="{2 * w}" height="{h + 20}" fill="white"/>\n'
            + "\n".join(body) + "\n"
            f'<text x="8" y="{h + 14}" font-size="9">{title}</text>\n</svg>\n')


def growth(bindir: Path, env, runs: int, timeout: float, plot=None, title=""):
    """bench/growbench: medians over runs, one table per measurement."""
    gb = str(bindir / "growbench")

    def med(args, kind):
        vals = []
        for _ in range(runs):
            m = GROW_RE[kind].search(_run([gb, *args], env, timeout))
            if not m:
                raise RuntimeError(f"growbench {args}: no result")
            vals.append([float(g) for g in m.groups()])
        return [statistics.median(v[i] for v in vals) for i in range(len(vals[0]))]

    print()
    dat, tcp = med(["-t", "conn", "-n", "2000"], "conn")
    print("| connection set-up + tear-down | DAT (ref-sock) | plain TCP | ratio |")
    print("|---|---|---|---|")
    print(f"| per second | {dat:.0f} | {tcp:.0f} | {dat / tcp:.2f}x |")
    print()
    print("| EPs on one IA / one EVD | us per Send + both completions (evd_wait) "
          "| (dequeue) | plain TCP write + read, same round-robin | set-up us per connection |")
    print("|---|---|---|---|---|")
    curve = []
    for n in GROWTH_NS:
        w = med(["-t", "eps", "-e", str(n), "-n", "20000"], "eps")
        p = med(["-t", "eps", "-e", str(n), "-n", "20000", "-P"], "eps")
        print(f"| {n} | {w[0]:.2f} | {p[0]:.2f} | {w[2]:.2f} | {w[1]:.1f} |")
        curve.append((n, w[0], p[0], w[2], w[1]))
    print()
    print("```")
    print(text_plot(curve))
    print("```")
    if plot:
        Path(plot).write_text(svg_plot(curve, title))
        print(f"datcts: bench-transport: curves in {plot}", file=sys.stderr)
    print()
    print("| N | KiB per EP (unconnected) | KiB per connection (both ends) | KiB per LMR |")
    print("|---|---|---|---|")
    for n in (64, 1024, 4096):
        m = med(["-t", "mem", "-e", str(n)], "mem")
        print(f"| {n} | {m[0]:.2f} | {m[1]:.2f} | {m[2]:.3f} |")
    print()
    print("| threads (own EP pair each, same two IAs) | Sends/s in all | us per Send per thread |")
    print("|---|---|---|")
    for t in (1, 2, 4, 8):
        m = med(["-t", "threads", "-e", str(t), "-n", "10000"], "threads")
        print(f"| {t} | {m[0]:.0f} | {m[1]:.2f} |")


def _fmt(v):
    if v is None:
        return "-"
    return f"{v:.2f}" if v < 100 else f"{v:.0f}"


def bench_transport(args) -> int:
    build = Path(args.build_dir).resolve()
    bindir = build / "bin"
    for b in ("datbench", "tcpbench"):
        if not (bindir / b).exists():
            print(f"datcts: error: no {bindir / b} (build the project)", file=sys.stderr)
            return 2
    dat_conf = Path(args.dat_conf or os.environ.get("DAT_OVERRIDE") or build / "dat.conf")
    env = dict(os.environ, DAT_OVERRIDE=str(dat_conf))
    have_fi = shutil.which("fi_pingpong") is not None and not args.no_fabric
    table = rows(bindir, args.lat_iters, args.bw_iters, have_fi, args.timeout)
    if args.only:
        table = [r for r in table if any(o in r[0] for o in args.only)]
    results = {label: {tool: [] for tool in tools} for label, _, tools in table}
    load0 = os.getloadavg()
    for run in range(args.runs):
        done = {}  # a runner shared by rows runs once a round
        for label, _, tools in table:
            for tool, fn in tools.items():
                if id(fn) not in done:
                    done[id(fn)] = fn(env)
                results[label][tool].append(done[id(fn)])
        print(f"datcts: bench-transport: round {run + 1} of {args.runs} done",
              file=sys.stderr)
    load1 = os.getloadavg()

    def med(label, tool, key):
        vals = [r[key] for r in results[label].get(tool, []) if key in r]
        return statistics.median(vals) if vals else None

    uname = os.uname()
    print(f"machine: {uname.nodename}, {os.cpu_count()} CPUs, {uname.release}; "
          f"dat.conf {dat_conf}; {args.runs} runs each, alternating, medians; "
          f"load average {load0[0]:.2f} at start, {load1[0]:.2f} at end")
    if not have_fi:
        print("fi_pingpong not installed (Debian libfabric-bin): its column is empty")
    print()
    print("| measurement | datbench | tcpbench | fi_pingpong -p tcp "
          "| datbench / tcpbench | datbench / fi_pingpong |")
    print("|---|---|---|---|---|---|")
    for label, unit, _ in table:
        if unit == "us":
            d_mean, d_med = med(label, "datbench", "mean"), med(label, "datbench", "median")
            t_mean, t_med = med(label, "tcpbench", "mean"), med(label, "tcpbench", "median")
            f_mean = med(label, "fi_pingpong", "mean")
            vs_tcp = f"{d_med / t_med:.2f}x (median), {d_mean / t_mean:.2f}x (mean)"
            vs_fi = f"{d_mean / f_mean:.2f}x (mean)" if f_mean else "-"
            print(f"| {label}, one-way us: median (mean) | {_fmt(d_med)} ({_fmt(d_mean)}) "
                  f"| {_fmt(t_med)} ({_fmt(t_mean)}) | ({_fmt(f_mean)}) | {vs_tcp} | {vs_fi} |")
        else:
            d, t = med(label, "datbench", "mbs"), med(label, "tcpbench", "mbs")
            print(f"| {label}, MB/s | {_fmt(d)} | {_fmt(t)} | - | {d / t:.2f}x | - |")
    if args.growth:
        growth(bindir, env, args.growth_runs, args.timeout, args.plot,
               f"growbench, {uname.nodename}, {os.cpu_count()} CPUs, {uname.release}, "
               f"{time.strftime('%Y-%m-%d', time.gmtime())}")
    return 0


def add_parser(sub, add_build_opts):
    p = sub.add_parser("bench-transport",
                       help="datbench against tcpbench and fi_pingpong -p tcp: one table")
    add_build_opts(p)
    p.add_argument("--dat-conf", help="dat.conf (default: $DAT_OVERRIDE, else BUILD/dat.conf)")
    p.add_argument("--runs", type=int, default=5, help="runs of each program (default: 5)")
    p.add_argument("--lat-iters", type=int, default=20000,
                   help="ping-pong iterations per run (default: 20000)")
    p.add_argument("--bw-iters", type=int, default=20000,
                   help="streamed messages per run (default: 20000)")
    p.add_argument("--timeout", type=float, default=120.0, help="seconds per program run")
    p.add_argument("--no-fabric", action="store_true", help="leave fi_pingpong out")
    p.add_argument("--growth", action="store_true",
                   help="also bench/growbench: set-up rate, 1..4096 EPs, memory, threads")
    p.add_argument("--plot", metavar="SVG",
                   help="with --growth: write the curves of post + completion and "
                        "set-up cost against N to this SVG file")
    p.add_argument("--growth-runs", type=int, default=1,
                   help="runs of each growbench measurement (default: 1; every run "
                        "leaves its DAT connections' ports in TIME_WAIT for a minute)")
    p.add_argument("--only", action="append",
                   help="rows whose label contains this text (repeatable)")
