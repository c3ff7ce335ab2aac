"""gcov_lines: the lines a run executed, from .gcda files written under a
scratch GCOV_PREFIX with the object directory's own components stripped
(coverage_map's set-up), for a file of the repository only."""
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from datcts import mutgen_run
from datcts.mutgen_run import gcov_lines, scratch_dir

SOURCE = """\
int taken(int x)
{
\tif (x > 0)
\t\treturn 1;
\treturn 2;
}

int main(int argc, char **argv)
{
\t(void)argv;
\treturn taken(argc) == 1 ? 0 : 3;
}
"""


@pytest.mark.skipif(not shutil.which("gcc") or not shutil.which("gcov"),
                    reason="needs gcc and gcov")
def test_executed_lines_of_a_stripped_prefix_run(tmp_path):
    root = tmp_path / "repo"
    (root / "core").mkdir(parents=True)
    src = root / "core" / "demo.c"
    src.write_text(SOURCE)
    objdir = tmp_path / "build" / "CMakeFiles" / "demo_obj.dir"
    (objdir / "core").mkdir(parents=True)
    exe = tmp_path / "demo"
    mutgen_run.GCOV_FAST[0] = None
    subprocess.run(["gcc", "--coverage", "-O0", "-c", str(src), "-o",
                    str(objdir / "core" / "demo.c.o")], check=True, cwd=tmp_path)
    subprocess.run(["gcc", "--coverage", str(objdir / "core" / "demo.c.o"), "-o", str(exe)],
                   check=True)
    runs = scratch_dir("datcts-test-coverage-", tmp_path)
    try:
        run = runs / "0"
        run.mkdir()
        env = dict(os.environ, GCOV_PREFIX=str(run),
                   GCOV_PREFIX_STRIP=str(len(objdir.parts) - 1))
        assert subprocess.run([str(exe)], env=env).returncode == 0
        assert (run / "core" / "demo.c.gcda").is_file()
        lines = gcov_lines(run, objdir.resolve(), root.resolve())
        # the grep of gcov's JSON reads it as the JSON parser does, with this gcov
        objs = run / "core"
        assert mutgen_run.gcov_hits_fast(objs, root.resolve()) == \
            mutgen_run.gcov_hits_json(objs, root.resolve()) == lines
        assert mutgen_run.gcov_fast_check(objs, root.resolve())
    finally:
        shutil.rmtree(runs)
    # argc is 1: the branch taken (3, 4), the other return (5) not; gcov
    # counts each function's opening line (1, 8)
    assert lines == {"core/demo.c": [1, 3, 4, 8, 11]}
