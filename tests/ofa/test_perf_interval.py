# SPDX-License-Identifier: MIT
"""The paired-ratio interval of tools/ofa/programs.py --perf."""
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools" / "ofa"))
import programs  # noqa: E402


def test_interval_is_order_statistics_with_exact_coverage():
    # n = 9: k = 2 covers 1 - 2 * 10/512 = 96.1 %; k = 3 would cover 82 %
    m, lo, hi, cov = programs.median_interval([9, 1, 8, 2, 7, 3, 6, 4, 5])
    assert (m, lo, hi) == (5, 2, 8)
    assert cov == pytest.approx(1 - 2 * 10 / 512)


def test_few_rounds_give_the_widest_interval_and_say_its_coverage():
    m, lo, hi, cov = programs.median_interval([1.2, 0.8, 1.0])
    assert (m, lo, hi) == (1.0, 0.8, 1.2)
    assert cov == pytest.approx(0.75)


def test_even_count_median_is_the_mean_of_the_middle_two():
    assert programs.median_interval([1, 2, 3, 4])[0] == 2.5


@pytest.mark.parametrize("lo,hi,better,words", [
    (0.95, 1.05, "lower", "cannot be told apart"),
    (1.01, 1.10, "lower", "the first is worse"),
    (0.90, 0.99, "lower", "the first is better"),
    (1.01, 1.10, "higher", "the first is better"),
    (0.90, 0.99, "higher", "the first is worse"),
])
def test_verdict(lo, hi, better, words):
    assert words in programs.ratio_verdict(lo, hi, better)


def test_an_interval_of_too_few_rounds_says_nothing():
    m, lo, hi, cov = programs.median_interval([1.7])
    assert cov == 0
    assert "cannot tell" in programs.ratio_verdict(lo, hi, "lower", cov)
    # five rounds cover 93.75 %: still too few for 95 %
    m, lo, hi, cov = programs.median_interval([1.1, 1.2, 1.3, 1.4, 1.5])
    assert "cannot tell" in programs.ratio_verdict(lo, hi, "lower", cov)
    m, lo, hi, cov = programs.median_interval([1.1, 1.2, 1.3, 1.4, 1.5, 1.6])
    assert "the first is worse" in programs.ratio_verdict(lo, hi, "lower", cov)
