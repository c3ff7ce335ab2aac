"""tests/mutgen: the generator of `datcts mutate --generated` (datcts.mutgen)."""
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "runners"))

from datcts import mutgen  # noqa: E402


@pytest.fixture(scope="session")
def cindex():
    """libclang's bindings, or the test is SKIPPED saying why (CI installs
    python3-clang-14 through tools/deps.sh)."""
    try:
        return mutgen.load_clang()
    except mutgen.GenerationError as e:
        pytest.skip(str(e))
