"""datcts run --watch-kernel-log: a kernel fault while a case runs is the
device's (runners/datcts/kernel_log.py).  A FIFO stands in for /dev/kmsg."""

import os
import threading
import time

from conftest import HANG_TIMEOUT

OOPS = [
    "1,901,5000000,-;BUG: kernel NULL pointer dereference, address: 0000000000000030",
    "4,902,5000001,-;Oops: 0000 [#1] PREEMPT SMP NOPTI",
    "4,903,5000002,-;RIP: 0010:siw_tx_hdt+0x5a/0x7c0 [siw]",
    "4,904,5000003,-;Call Trace:",
    "4,905,5000004,-;---[ end trace 0000000000000000 ]---",
]


def test_a_fault_marks_the_cases_it_stopped(datcts, tmp_path):
    kmsg = tmp_path / "kmsg"
    os.mkfifo(kmsg)

    def kernel():
        # the open returns once datcts opened the log, just before the cases
        # start; the hang (HANG_TIMEOUT s) is then running, the quick ones done
        with open(kmsg, "w") as f:
            time.sleep(2.0)
            f.write("6,900,4000000,-;a line that is no fault\n")
            f.write("\n".join(OOPS) + "\n")
            f.flush()
            time.sleep(float(HANG_TIMEOUT) + 3)

    writer = threading.Thread(target=kernel, daemon=True)
    writer.start()
    os.environ["DATCTS_KMSG"] = str(kmsg)
    try:
        r = datcts("--watch-kernel-log", "--timeout", HANG_TIMEOUT, "-j", "3",
                   "-k", "selftest.hang", "-k", "selftest.fail", "-k", "selftest.pass")
    finally:
        del os.environ["DATCTS_KMSG"]
    res = r.results
    assert res["selftest.hang"]["state"] == "TIMEOUT", r.stderr
    fault = res["selftest.hang"]["device_fault"]
    assert fault["first"] == OOPS[0].split(";", 1)[1]
    assert fault["where"] == "siw_tx_hdt+0x5a/0x7c0 [siw]"
    assert fault["log"][-1].startswith("---[ end trace")
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
