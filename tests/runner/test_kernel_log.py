"""datcts run --watch-kernel-log: a kernel fault while a case runs is the
device's (runners/datcts/kernel_log.py).  A FIFO stands in for /dev/kmsg."""

import os
import threading
import time

from conftest import HANG_TIMEOUT

OOPS = [
    "1,901,5000000,-;BUG: kernel NULL pointer dereference, address: 0000000000000030",
    "1,902,5000000,-;#PF: supervisor read access in kernel mode",
    "4,903,5000001,-;Oops: 0000 [#1] PREEMPT SMP NOPTI",
    "4,904,5000001,-;CPU: 0 PID: {pid} Comm: datcts-cases-se Tainted: G      D",
    "4,905,5000002,-;RIP: 0010:siw_tx_hdt+0x5a/0x7c0 [siw]",
    "4,906,5000003,-;Call Trace:",
    "4,907,5000004,-;---[ end trace 0000000000000000 ]---",
]


def pid_of(case_id: str) -> int:
    """A process of the case binary running @case_id (its supervisor or the case)."""
    for d in os.listdir("/proc"):
        try:
            with open(f"/proc/{d}/cmdline", "rb") as f:
                argv = f.read().split(b"\0")
        except OSError:
            continue
        if b"--run" in argv and case_id.encode() in argv:
            return int(d)
    raise AssertionError(f"no process runs {case_id}")


def test_a_fault_marks_the_cases_it_stopped(datcts, tmp_path):
    kmsg = tmp_path / "kmsg"
    os.mkfifo(kmsg)

    def kernel():
        # the open returns once datcts opened the log, just before the cases
        # start; the hangs (HANG_TIMEOUT s) are then running, the quick ones done;
        # the fault strikes in selftest.hang's process
        with open(kmsg, "w") as f:
            time.sleep(2.0)
            f.write("6,900,4000000,-;a line that is no fault\n")
            f.write("\n".join(OOPS).format(pid=pid_of("selftest.hang")) + "\n")
            f.flush()
            time.sleep(float(HANG_TIMEOUT) + 3)

    writer = threading.Thread(target=kernel, daemon=True)
    writer.start()
    os.environ["DATCTS_KMSG"] = str(kmsg)
    try:
        r = datcts("--watch-kernel-log", "--timeout", HANG_TIMEOUT, "-j", "4",
                   "-k", "selftest.hang", "-k", "selftest.hang_in_call",
                   "-k", "selftest.fail", "-k", "selftest.pass")
    finally:
        del os.environ["DATCTS_KMSG"]
    res = r.results
    assert res["selftest.hang"]["state"] == "TIMEOUT", r.stderr
    fault = res["selftest.hang"]["device_fault"]
    assert fault["first"] == OOPS[0].split(";", 1)[1]
    assert fault["where"] == "siw_tx_hdt+0x5a/0x7c0 [siw]"
    assert fault["log"][-1].startswith("---[ end trace")
    # the other hang ran then too, but the fault struck in another case's process
    assert res["selftest.hang_in_call"]["state"] == "TIMEOUT"
    assert "device_fault" not in res["selftest.hang_in_call"]
    # the failure that ended before the fault, and the pass, are left alone
    assert res["selftest.fail"]["state"] == "FAIL" and "device_fault" not in res["selftest.fail"]
    assert "device_fault" not in res["selftest.pass"]
    assert r.doc["run"]["kernel_log"] == str(kmsg)


def test_an_unreadable_log_is_a_usage_error(datcts, tmp_path):
    os.environ["DATCTS_KMSG"] = str(tmp_path / "no-such-kmsg")
    try:
        r = datcts("--watch-kernel-log", "-k", "selftest.pass")
    finally:
        del os.environ["DATCTS_KMSG"]
    assert r.rc == 2 and "--watch-kernel-log: cannot read" in r.stderr, r.stderr
