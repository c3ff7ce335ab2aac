"""datcts fuzz: a finding's C reproducer survives a death the fuzzer's
sequence printer never sees (an abort() inside the provider)."""

import os
import stat
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "runners"))
from datcts.fuzz import _reproducer  # noqa: E402

# Stands in for a fuzz target: prints its calls only when asked to echo
# them, then dies of SIGABRT inside the second call, as libFuzzer reports it.
FAKE_TARGET = r"""#!/bin/sh
echo "INFO: Seed: 1"
echo "$0: Running 1 inputs 1 time(s) each."
echo "Running: $2"
if [ "$DATCTS_FUZZ_ECHO" = 1 ]; then
	echo 'r = dat_ia_open("ofa-v2-cma-rxe0", 3, &async_evd, &ia);' >&2
	printf '\t/* DAT_SUCCESS */\n' >&2
	echo 'r = dat_cno_free(cno0);' >&2
fi
echo "x: dapl_ia_util.c:567: dapls_ia_free: Assertion failed." >&2
echo "==1719== ERROR: libFuzzer: deadly signal"
echo "SUMMARY: libFuzzer: deadly signal"
kill -ABRT $$
"""


def _replay_with(tmp_path, script):
    """The reproducer _reproducer makes of one input, the target being script."""
    target = tmp_path / "datcts-fuzz-api2"
    target.write_text(script)
    target.chmod(target.stat().st_mode | stat.S_IXUSR)
    unit = tmp_path / "crash-1"
    unit.write_bytes(b"\x01")
    return _reproducer(target, dict(os.environ), unit, timeout=5)


def test_abort_in_the_provider_still_gives_the_call_sequence(tmp_path):
    text = _replay_with(tmp_path, FAKE_TARGET)
    assert "ERROR: libFuzzer: deadly signal" in text
    assert ("==== datcts fuzz: C reproducer (echoed by a second replay) ====\n"
            'r = dat_ia_open("ofa-v2-cma-rxe0", 3, &async_evd, &ia);\t/* DAT_SUCCESS */\n'
            "r = dat_cno_free(cno0);\t/* <- did not return */\n"
            "==== end of reproducer ====\n") in text, text


# Stands in for a fuzz target on an input whose finding was a race: the
# replays run to the end without one.
PASSING_TARGET = r"""#!/bin/sh
echo "Running: $2"
if [ "$DATCTS_FUZZ_ECHO" = 1 ]; then
	echo 'r = dat_ia_open("ofa-v2-cma-rxe0", 3, &async_evd, &ia);' >&2
	printf '\t/* DAT_SUCCESS */\n' >&2
	echo 'r = dat_ia_close(ia, DAT_CLOSE_ABRUPT_FLAG);' >&2
	printf '\t/* DAT_SUCCESS */\n' >&2
fi
echo "Executed $2 in 36 ms"
"""


def test_a_finding_that_does_not_fail_again_says_so(tmp_path):
    text = _replay_with(tmp_path, PASSING_TARGET)
    assert text.startswith("==== datcts fuzz: NOT REPRODUCED"), text
    assert "C reproducer" not in text and "did not return" not in text, text
    assert 'r = dat_ia_close(ia, DAT_CLOSE_ABRUPT_FLAG);\t/* DAT_SUCCESS */\n' in text, text
