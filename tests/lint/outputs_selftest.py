#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""lint.outputs_selftest: tools/lint-outputs.py finds each defect of
outputs_fixture.toml (a missing output, a wrong clause id, a clause whose case
does not read the member, a stale entry) applied to a copy of the project's
map, and reports nothing else.  Runs without the rendered pages (as in CI)."""
import json
import pathlib
import subprocess
import sys
import tempfile
import tomllib

here = pathlib.Path(__file__).resolve().parent
root = here.parents[1]
lint = root / "tools" / "lint-outputs.py"
with (here / "outputs_fixture.toml").open("rb") as f:
    fix = tomllib.load(f)
with (root / "clauses" / "outputs.toml").open("rb") as f:
    mapping = tomllib.load(f)
for name in fix["remove"]:
    del mapping[name]
mapping.update(fix["set"])


def entry(v: dict) -> str:
    if "clauses" in v:
        return "{ clauses = [" + ", ".join(json.dumps(c) for c in v["clauses"]) + "] }"
    return "{ unspecified = " + json.dumps(v["unspecified"]) + " }"


with tempfile.TemporaryDirectory(prefix="lint-outputs-") as tmp:
    t = pathlib.Path(tmp)
    (t / "include").symlink_to(root / "include")
    (t / "cases").symlink_to(root / "cases")
    (t / "clauses").mkdir()
    for p in (root / "clauses").glob("dat_*.toml"):
        (t / "clauses" / p.name).symlink_to(p)
    (t / "clauses" / "outputs.toml").write_text(
        "".join(f"{json.dumps(k)} = {entry(v)}\n" for k, v in mapping.items()))
    r = subprocess.run([sys.executable, str(lint), "--root", str(t),
                        "--pages", str(t / "no-pages")],
                       capture_output=True, text=True)
got = sorted(r.stdout.splitlines())
want = sorted(fix["expect"]["problems"])
ok = r.returncode == 1 and got == want
print(r.stdout + r.stderr)
if not ok:
    print("expected:\n  " + "\n  ".join(want))
print("lint-outputs selftest:", "ok" if ok else "FAILED")
sys.exit(0 if ok else 1)
