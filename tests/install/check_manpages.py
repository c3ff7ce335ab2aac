#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Checks that a manual page matches its command's --help, so the two cannot
drift (ctest install.manpages).

    check_manpages.py PAGE.1 -- COMMAND [ARG...]

For an argparse command with subcommands (`datcts`):
  - the page's SYNOPSIS has one entry per subcommand (`datcts SUB ...`) and a
    `.SS SUB` under COMMANDS, and `--help`'s {a,b,...} list has exactly those;
  - each entry names every option of `COMMAND SUB --help`'s usage, and no
    option that SUB's --help does not know;
  - every option of every usage is described (a .TP item), and every
    described option exists somewhere.
For a plain command (`dat-providers`): the SYNOPSIS names every option of
its usage and none it does not know, and each is described.
groff's warnings about the page (when groff is there) fail the check too.
"""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys

OPT = re.compile(r"(?<![\w-])(--?[A-Za-z0-9][A-Za-z0-9-]*)")
FONT_ALT = {"BI", "BR", "IB", "IR", "RB", "RI"}
FONT_ONE = {"B", "I", "R", "SM", "SB"}


def unescape(s: str) -> str:
    s = re.sub(r"\\f(\[[^\]]*\]|\(..|.)", "", s)
    for a, b in (("\\-", "-"), ("\\&", ""), ("\\(aq", "'"), ("\\(em", "--"), ("\\e", "\\"),
                 ("\\ ", " ")):
        s = s.replace(a, b)
    return s


def parse(path: str) -> list[tuple[str, str]]:
    """(macro or '', text) per line, comments dropped, escapes resolved."""
    out = []
    for raw in open(path, encoding="utf-8").read().splitlines():
        if raw.startswith(('.\\"', "'\\\"")):
            continue
        if raw.startswith("."):
            name, _, rest = raw[1:].partition(" ")
            try:
                args = shlex.split(rest.replace("\\", "\\\\"), posix=True)
            except ValueError:
                args = rest.split()
            args = [unescape(a.replace("\\\\", "\\")) for a in args]
            text = "".join(args) if name in FONT_ALT else " ".join(args)
            out.append((name, text))
        else:
            out.append(("", unescape(raw)))
    return out


class Page:
    def __init__(self, path: str, command: str):
        self.synopsis: list[str] = []   # one entry per "COMMAND ..." line group
        self.subsections: dict[str, set] = {}   # .SH -> {.SS titles}
        self.described: set = set()    # options of .TP tags
        lines = parse(path)
        section = ""
        tag_next = False
        for macro, text in lines:
            if macro == "SH":
                section = text.upper()
                self.subsections.setdefault(section, set())
                continue
            if macro == "SS":
                self.subsections.setdefault(section, set()).add(text)
                continue
            if macro == "TP":
                tag_next = True
                continue
            if tag_next and (macro in FONT_ALT or macro in FONT_ONE or macro == ""):
                self.described.update(OPT.findall(text))
                tag_next = False
            if section == "SYNOPSIS" and (macro in FONT_ALT or macro in FONT_ONE or macro in ("", "SY")):
                if macro in ("B", "SY") and (text == command or text.startswith(command + " ")):
                    self.synopsis.append(text)
                elif self.synopsis:
                    self.synopsis[-1] += " " + text

    def entries(self, command: str) -> dict[str, str]:
        """subcommand (or '' for the command alone) -> its synopsis text"""
        out = {}
        for e in self.synopsis:
            words = e.split()
            sub = words[1] if len(words) > 1 and not words[1].startswith(("-", "[")) else ""
            out[sub] = out.get(sub, "") + " " + e
        return out


def run_help(argv: list[str]) -> str:
    p = subprocess.run(argv + ["--help"], capture_output=True, text=True,
                       env={"COLUMNS": "200", "PATH": "/usr/bin:/bin"}, timeout=60)
    if p.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} --help: exit {p.returncode}: {p.stderr.strip()}")
    return p.stdout


def usage_block(text: str) -> str:
    out = []
    for line in text.splitlines():
        if not out and not line.startswith("usage:"):
            continue
        if out and not line.strip():
            break
        out.append(line)
    return " ".join(out)


def options(text: str) -> set:
    return set(OPT.findall(text))


def check(page_path: str, argv: list[str]) -> list[str]:
    command = argv[-1].rsplit("/", 1)[-1] if len(argv) == 1 else argv[0].rsplit("/", 1)[-1]
    command = re.sub(r"\.py$", "", command)
    errors = []
    page = Page(page_path, command)
    if not page.synopsis:
        return [f"{page_path}: no SYNOPSIS entry starting with .B {command}"]
    entries = page.entries(command)
    top = run_help(argv)
    subs = re.search(r"\{([a-z0-9,-]+)\}", usage_block(top))
    described_ok = {"-h", "--help"}
    if subs:
        subs_help = subs.group(1).split(",")
        subs_man = [s for s in entries if s]
        for s in sorted(set(subs_help) - set(subs_man)):
            errors.append(f"subcommand {s}: in --help, not in the page's SYNOPSIS")
        for s in sorted(set(subs_man) - set(subs_help)):
            errors.append(f"subcommand {s}: in the page's SYNOPSIS, not in --help")
        commands = page.subsections.get("COMMANDS", set())
        for s in subs_help:
            if s not in commands:
                errors.append(f"subcommand {s}: no '.SS {s}' under COMMANDS")
        required_all = options(usage_block(top)) - {"-h"}
        allowed_all = options(top)
        for s in subs_help:
            if s not in entries:
                continue
            h = run_help(argv + [s])
            required = options(usage_block(h)) - {"-h"}
            allowed = options(h)
            have = options(entries[s])
            for o in sorted(required - have):
                errors.append(f"{command} {s}: option {o} of --help is not in the SYNOPSIS")
            for o in sorted(have - allowed):
                errors.append(f"{command} {s}: option {o} of the SYNOPSIS is unknown to --help")
            required_all |= required
            allowed_all |= allowed
    else:
        required_all = options(usage_block(top)) - {"-h", "--help"}
        allowed_all = options(top) | described_ok
        have = set().union(*(options(e) for e in entries.values()))
        for o in sorted(required_all - have):
            errors.append(f"{command}: option {o} of --help is not in the SYNOPSIS")
        for o in sorted(have - allowed_all):
            errors.append(f"{command}: option {o} of the SYNOPSIS is unknown to --help")
    for o in sorted(required_all - page.described):
        errors.append(f"option {o}: no .TP item describes it")
    for o in sorted(page.described - allowed_all - described_ok):
        errors.append(f"option {o}: described in the page, unknown to --help")
    groff = shutil.which("groff")
    if groff:
        p = subprocess.run([groff, "-man", "-ww", "-z", "-Tutf8", page_path],
                           capture_output=True, text=True)
        if p.returncode != 0 or p.stderr.strip():
            errors.append(f"groff: {p.stderr.strip() or f'exit {p.returncode}'}")
    return errors


def main() -> int:
    if len(sys.argv) < 4 or sys.argv[2] != "--":
        print(__doc__, file=sys.stderr)
        return 2
    errors = check(sys.argv[1], sys.argv[3:])
    for e in errors:
        print(f"{sys.argv[1]}: {e}", file=sys.stderr)
    if not errors:
        print(f"{sys.argv[1]}: matches {' '.join(sys.argv[3:])} --help")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
