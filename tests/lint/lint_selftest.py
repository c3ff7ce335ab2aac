#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""lint.collateral_selftest: the lint flags the unjustified check of the
fixture, accepts the justified one and the one charged to the called page."""
import pathlib
import subprocess
import sys

here = pathlib.Path(__file__).resolve().parent
lint = here.parents[1] / "tools" / "lint-collateral.py"
r = subprocess.run([sys.executable, str(lint), "--list", str(here / "fixture")],
                   capture_output=True, text=True)
lines = r.stdout.splitlines()
ok = (r.returncode == 1 and len(lines) == 2
      and any(":7: justified: a check of dat_pz_query" in ln for ln in lines)
      and any(":12: collateral: a check of dat_rmr_create" in ln for ln in lines))
print(r.stdout + r.stderr)
print("lint selftest:", "ok" if ok else "FAILED")
sys.exit(0 if ok else 1)
