"""The hosts file, the placement and the launchers' command lines: no
namespaces or ssh server needed."""

import shlex
import shutil
import subprocess
import sys

import pytest

from datcts import hosts as mh
from datcts.discovery import Case
from datcts.execute import ProcessTable, Runner

from conftest import FAKE_SSH


def load(tmp_path, text):
    p = tmp_path / "hosts.toml"
    p.write_text(text)
    return mh.load_hosts(p, tmp_path / "build")


SSH = '''
[[host]]
name = "n2"
kind = "ssh"
destination = "tester@node2.example"
port = 2222
identity_file = "~/.ssh/id_datcts"
ssh_options = ["ConnectTimeout=3", "StrictHostKeyChecking=yes"]
build_dir = "/opt/datcts/build"
ia = "ofa-v2-ib0"
dat_conf = "/etc/dat.conf"
env = { LD_LIBRARY_PATH = "/opt/dapl/lib", DAPL_DBG = "0" }
'''


def test_a_full_file_parses(tmp_path):
    hs = load(tmp_path, '''
[[host]]
name = "here"
kind = "local"

[[host]]
name = "ns1"
kind = "netns"
netns = "dcts-a"
library = "/usr/lib/libdaplref.so"
instance_data = "sock:10.77.0.1"
''' + SSH)
    assert [h.name for h in hs] == ["here", "ns1", "n2"]
    here, ns1, n2 = hs
    assert here.build_dir == str((tmp_path / "build").resolve())
    assert here.cases_dir == str((tmp_path / "build" / "cases").resolve())
    assert ns1.netns == "dcts-a" and ns1.instance_data == "sock:10.77.0.1"
    assert n2.destination == "tester@node2.example" and n2.port == 2222
    assert n2.build_dir == "/opt/datcts/build" and n2.cases_dir == "/opt/datcts/build/cases"
    assert n2.env == {"LD_LIBRARY_PATH": "/opt/dapl/lib", "DAPL_DBG": "0"}
    assert n2.target == "tester@node2.example" and ns1.target == "dcts-a"


@pytest.mark.parametrize("text, words", [
    ('[[host]]\nname="a"\nkind="netns"\n', ["'netns' is required"]),
    ('[[host]]\nname="a"\nkind="vm"\n', ["kind 'vm'"]),
    ('[[host]]\nname="a"\nkind="local"\nnetns="x"\n', ["unknown key", "netns"]),
    ('[[host]]\nname="a"\nkind="local"\n[[host]]\nname="a"\nkind="local"\n', ["used twice"]),
    ('[[host]]\nname="a"\nkind="ssh"\ndestination="h"\n', ["'build_dir' is required"]),
    ('[[host]]\nname="a"\nkind="ssh"\ndestination="h"\nbuild_dir="/b"\n'
     'ssh_options=["BatchMode=no"]\n', ["not allowed", "BatchMode=yes"]),
    ('[[host]]\nname="a"\nkind="ssh"\ndestination="h"\nbuild_dir="/b"\n'
     'ssh_options=["PasswordAuthentication yes"]\n', ["not allowed"]),
    ('[[host]]\nname="a"\nkind="ssh"\ndestination="-oProxyCommand=x"\nbuild_dir="/b"\n',
     ["destination"]),
    ('[[host]]\nname="a"\nkind="ssh"\ndestination="h"\nbuild_dir="/b"\npassword="x"\n',
     ["unknown key", "password"]),
    ('[[host]]\nname="a"\nkind="local"\ninstance_data="sock:1.2.3.4"\n', ["needs 'library'"]),
    ('[[host]]\nname="a b"\nkind="local"\n', ["name"]),
    ('placement = "both"\n[[host]]\nname="a"\nkind="local"\n', ["unknown top-level"]),
    ('', ["no [[host]]"]),
    ('[[host]\n', ["not valid TOML"]),
])
def test_bad_files_are_named_errors(tmp_path, text, words):
    with pytest.raises(mh.HostsError) as e:
        load(tmp_path, text)
    for w in words:
        assert w in str(e.value)


def test_placement():
    n = ["a", "b", "c"]
    assert mh.parse_placement(None, n) == [("a", "b"), ("b", "a")]
    assert mh.parse_placement(["both"], ["a"]) == [("a", "a")]
    assert mh.parse_placement(["passive-on=c,active-on=a"], n) == [("c", "a")]
    assert mh.parse_placement(["passive-on=a,active-on=b", "both"], n) == [("a", "b"), ("b", "a")]
    assert len(mh.parse_placement(["all-pairs"], n)) == 6
    for bad in ("passive-on=a", "sideways", "passive-on=a,active-on=z"):
        with pytest.raises(mh.HostsError):
            mh.parse_placement([bad], n)


def ssh_launcher(tmp_path, text=SSH):
    (spec,) = load(tmp_path, text)
    la = mh.make_launcher(spec, tmp_path / "build" / "cases")
    la.case_env = {"DAT_OVERRIDE": "/etc/dat.conf", "DATCTS_IA": "ofa-v2-ib0", **spec.env}
    return la


def test_ssh_command_line(tmp_path):
    la = ssh_launcher(tmp_path)
    binary = str(tmp_path / "build" / "cases" / "datcts-cases-ep")
    argv = la.command(la.map_binary([binary, "--run", "dat_ep_connect.established",
                                     "--role", "passive", "--timeout", "30"]))
    # BatchMode=yes comes first (ssh keeps the first value of an option), the
    # user's options before the runner's defaults, no password anywhere.
    assert argv[:3] == ["ssh", "-o", "BatchMode=yes"]
    assert argv.index("ConnectTimeout=3") < argv.index("ConnectTimeout=10")
    assert argv[argv.index("-p") + 1] == "2222"
    assert argv[argv.index("-i") + 1] == "~/.ssh/id_datcts"
    assert "IdentitiesOnly=yes" in argv and "-T" in argv
    assert not any("password" in a.lower() for a in argv)
    assert argv[-3:-1] == ["--", "tester@node2.example"]
    # One string for the remote shell: environment, then the host's binary.
    words = shlex.split(argv[-1])
    assert words[:2] == ["exec", "env"]
    assert "DAT_OVERRIDE=/etc/dat.conf" in words and "DATCTS_IA=ofa-v2-ib0" in words
    assert "LD_LIBRARY_PATH=/opt/dapl/lib" in words
    assert words[words.index("DAPL_DBG=0") + 1:] == [
        "/opt/datcts/build/cases/datcts-cases-ep", "--run", "dat_ep_connect.established",
        "--role", "passive", "--timeout", "30"]


def test_ssh_remote_command_quotes_everything(tmp_path):
    la = ssh_launcher(tmp_path)
    cmd = la.remote_command(["/x y/bin", "it's", "$(reboot)", "a;b"], {"V": "1 2'3"})
    assert shlex.split(cmd) == ["exec", "env", "V=1 2'3", "/x y/bin", "it's", "$(reboot)", "a;b"]


@pytest.mark.skipif(not shutil.which("ssh"), reason="no ssh client installed")
def test_real_ssh_client_reads_the_options(tmp_path):
    """`ssh -G` parses a command line and prints the configuration it would
    use, without connecting: ours must mean BatchMode, the port, the key."""
    la = ssh_launcher(tmp_path)
    argv = la.command(["true"])
    g = subprocess.run([argv[0], "-G", *argv[1:-1]], capture_output=True, text=True,
                       timeout=20, env={"HOME": str(tmp_path), "PATH": "/usr/bin:/bin"})
    assert g.returncode == 0, g.stderr
    conf = dict(l.split(" ", 1) for l in g.stdout.splitlines() if " " in l)
    assert conf["batchmode"] == "yes"
    assert conf["port"] == "2222"
    assert conf["user"] == "tester" and conf["hostname"] == "node2.example"
    assert conf["connecttimeout"] == "3"
    assert conf["identitiesonly"] == "yes"
    assert conf["serveraliveinterval"] == "10"


def test_the_ssh_stand_in_accepts_our_command_line_only(tmp_path):
    la = ssh_launcher(tmp_path)
    argv = la.command(["true"])
    ours = [sys.executable, str(FAKE_SSH), *argv[1:]]
    # Parsing only: the stand-in then tries `ip netns exec node2.example`,
    # which fails, but not with its own usage error.
    p = subprocess.run(ours, capture_output=True, text=True, timeout=20)
    assert "fake-ssh:" not in p.stderr
    no_batch = [a for a in ours if a != "BatchMode=yes"]
    no_batch.remove("-o")
    p = subprocess.run(no_batch, capture_output=True, text=True, timeout=20)
    assert p.returncode == 255 and "BatchMode=yes" in p.stderr


def test_netns_and_local_command_lines(tmp_path):
    ns, here = load(tmp_path, '[[host]]\nname="a"\nkind="netns"\nnetns="dcts-x"\n'
                              '[[host]]\nname="h"\nkind="local"\nbuild_dir="/other/build"\n')
    la = mh.make_launcher(ns, tmp_path / "build" / "cases")
    b = str(tmp_path / "build" / "cases" / "datcts-cases-ep")
    assert la.command([b, "--list"]) == ["ip", "netns", "exec", "dcts-x", b, "--list"]
    lh = mh.make_launcher(here, tmp_path / "build" / "cases")
    assert lh.map_binary([b, "--list"]) == ["/other/build/cases/datcts-cases-ep", "--list"]
    assert lh.map_binary(["/elsewhere/tool"]) == ["/elsewhere/tool"]


def case(two_node=True):
    return Case(id="p.c", page="p", area="ep", clauses=("p.c",), summary="", requires=(),
                two_node=two_node, file="cases/ep/p.c", line=3, binary="/b/datcts-cases-ep")


def res(state, msg="", hosts=("a", "b"), failure=None):
    r = {"id": "p.c", "state": state, "message": msg, "file": "f", "line": 1,
         "duration_ms": 10.0, "output": f"{state} out", "signal": None, "hosts": list(hosts),
         "halves": {"passive": {"host": hosts[0]}, "active": {"host": hosts[1]}}}
    if failure:
        r["host_failure"] = failure
    return r


def test_directions_merge_worst_first_on_tie():
    m = mh.merge_directions(case(), [(("a", "b"), res("PASS")),
                                     (("b", "a"), res("FAIL", "active: x", ("b", "a")))])
    assert m["state"] == "FAIL"
    assert m["message"] == "active: x (passive on b, active on a)"
    assert m["hosts"] == ["b", "a"] and m["duration_ms"] == 20.0
    assert [(d["passive"], d["active"], d["state"]) for d in m["directions"]] == [
        ("a", "b", "PASS"), ("b", "a", "FAIL")]
    assert "=== passive on a, active on b: PASS ===" in m["output"]
    assert "host_failure" not in m
    m = mh.merge_directions(case(), [(("a", "b"), res("PASS")), (("b", "a"), res("PASS"))])
    assert m["state"] == "PASS" and m["message"] == "" and m["hosts"] == ["a", "b"]


def test_a_host_failure_in_one_direction_is_kept():
    f = {"host": "b", "reason": "liveness probe exited 255"}
    m = mh.merge_directions(case(), [(("a", "b"), res("PASS")),
                                     (("b", "a"), res("UNRESOLVED", "host b unreachable: x",
                                                      ("b", "a"), f))])
    assert m["state"] == "UNRESOLVED" and m["host_failure"] == f
    assert m["message"].startswith("host b unreachable: x")


class FakeProc:
    pass


def test_lost_classifies_host_deaths(tmp_path, monkeypatch):
    (spec,) = load(tmp_path, '[[host]]\nname="b"\nkind="netns"\nnetns="dcts-gone"\n')
    la = mh.make_launcher(spec, tmp_path)
    answers = [None]
    monkeypatch.setattr(la, "probe", lambda: answers[0])
    # A fault of the supervisor's own, host fine: no host problem (CRASH stays).
    assert la.lost(-11, "", False, "passive half") is None
    # Killed by the runner (timeout), host fine: TIMEOUT stays.
    assert la.lost(-9, "", True, "passive half") is None
    # Killed from outside, host answers: UNRESOLVED, host not dead.
    why = la.lost(-9, "", False, "active half")
    assert why.startswith("host b died: the active half ended without a result (killed by SIGKILL)")
    assert la.dead is None
    # The probe fails: the host is dead from now on, without probing again.
    answers[0] = "liveness probe exited 255: Cannot open network namespace"
    why = la.lost(255, "", False, "passive half")
    assert why.startswith("host b unreachable: the passive half ended without a result (exited 255)")
    assert la.dead["reason"].startswith("liveness probe exited 255")
    assert la.info["died"]["reason"] == la.dead["reason"]
    answers[0] = None
    assert la.lost(-11, "", False, "x").startswith("host b unreachable")
    with pytest.raises(OSError):
        la.start(["true"], stdin=subprocess.DEVNULL)


def test_a_half_on_a_dead_host_gives_a_complete_result(tmp_path, monkeypatch):
    """A half that cannot start (its host already marked dead) still gives
    a result with every field a datcts-results document requires."""
    (spec,) = load(tmp_path, '[[host]]\nname="b"\nkind="netns"\nnetns="dcts-gone"\n')
    dead = mh.make_launcher(spec, tmp_path)
    dead.dead = {"at": "t", "reason": "liveness probe exited 255"}
    runner = Runner(launcher=dead, timeout=5, procs=ProcessTable(),
                    placement={"passive": dead, "active": dead})
    r = runner.run_two_node(case())
    assert r["state"] == "UNRESOLVED" and r["host_failure"]["host"] == "b"
    assert r["message"].startswith("host b unreachable: the passive half ended without a result")
    assert (r["clauses"], r["page"], r["area"], r["phases"]) == (["p.c"], "p", "ep", {})
    assert r["hosts"] == ["b", "b"]


def test_a_probe_killed_by_a_signal_is_asked_again_once(tmp_path, monkeypatch):
    (spec,) = load(tmp_path, '[[host]]\nname="b"\nkind="netns"\nnetns="dcts-gone"\n')
    la = mh.make_launcher(spec, tmp_path)
    rcs = []

    def run_script(script, args, timeout, env):
        return subprocess.CompletedProcess(["sh"], rcs.pop(0), b"", b"")

    monkeypatch.setattr(la, "run_script", run_script)
    # Killed together with the half it was probing for, then answers.
    rcs[:] = [-9, 0]
    assert la.probe() is None and rcs == []
    # Killed twice: no answer.
    rcs[:] = [-9, -9]
    assert la.probe() == "liveness probe died of SIGKILL" and rcs == []
    # Refused (namespace gone): no second probe.
    rcs[:] = [255, 0]
    assert la.probe() == "liveness probe exited 255" and rcs == [0]


def test_a_local_host_runs_the_real_cases(build, run_datcts):
    """The whole path without namespaces: fingerprint through the local
    launcher, a two-node and a single-node case, host names in the results."""
    r = run_datcts(f'[[host]]\nname = "here"\nkind = "local"\nbuild_dir = "{build}"\n',
                   "-k", "dat_ep_connect.established", "-k", "dat_ep_create.returns_handle")
    assert r.rc == 0, r.stderr
    two, one = r.results["dat_ep_connect.established"], r.results["dat_ep_create.returns_handle"]
    assert two["state"] == one["state"] == "PASS"
    assert two["hosts"] == ["here", "here"] and "directions" not in two  # one host: one direction
    assert {h["host"] for h in two["halves"].values()} == {"here"}
    assert one["hosts"] == ["here"]
    (h,) = r.doc["run"]["hosts"]
    assert h["name"] == "here" and h["kind"] == "local" and h["target"] is None
    assert h["dat_conf"] == f"{build}/dat.conf" and h["ia"] == "ref-sock"
    assert h["library_sha256"] and len(h["library_sha256"]) == 64
    assert h["roles"] == ["single", "passive", "active"]
    assert r.doc["run"]["provider"]["library_sha256"] == h["library_sha256"]


@pytest.mark.parametrize("extra, words", [
    (["--ia", "ref-sock"], "--ia cannot be combined with --hosts"),
    (["--placement", "passive-on=here,active-on=there"], "no host 'there'"),
    (["--single-on", "there"], "--single-on 'there': no such host"),
])
def test_bad_options_exit_2(build, run_datcts, extra, words):
    r = run_datcts(f'[[host]]\nname = "here"\nkind = "local"\nbuild_dir = "{build}"\n',
                   "-k", "dat_ep_connect.established", *extra)
    assert r.rc == 2 and words in r.stderr, r.stderr


def test_a_host_without_the_build_is_named(build, run_datcts, tmp_path):
    r = run_datcts(f'[[host]]\nname = "here"\nkind = "local"\nbuild_dir = "{build}"\n'
                   f'[[host]]\nname = "empty"\nkind = "local"\nbuild_dir = "{tmp_path}"\n',
                   "-k", "dat_ep_connect.established")
    assert r.rc == 2
    assert "host empty (local): no datcts-cases-" in r.stderr and "build datcts there" in r.stderr
