"""Hand-written mutants as data (docs/mutants.md, "The table"): the files of
tests/mutants/hand/*.toml, applied to a generated copy of the sources.

Each mutant breaks one rule of the pages on purpose.  It is not in the
provider: its entry says where it applies (file, function, and the original
code it replaces, the *anchor*, which must occur exactly once in that
function, or once in a *context* that occurs once in it) and what it puts
there.  The schemata of a file (as for the generated mutants, mutgen.py)
guards each hand-written mutant with `DATCTS_HAND(k)`:

    statement anchor (ends in ';' or '}'):  if (DATCTS_HAND(k)) { new } else { anchor }
    expression anchor:                      (DATCTS_HAND(k) ? (new) : (anchor))
    insert_before / insert_after:           if (DATCTS_HAND(k)) { code } next to the anchor

and a constructor turns on the mutants that DATREF_MUTANT=<id>[,<id>...]
names (DATLIB_MUTANT for libdat's files).  State a mutant needs (a member,
a static) is declared in the same files ([[state]]) and exists only in the
copy.  An anchor that no longer matches is an error naming the mutant and
the reason, so a refactor of the sources updates its mutants in the same
commit.  Guards and state add no line breaks: a line of the copy is the
same line of the original.
"""

from __future__ import annotations

import dataclasses
import re
import tomllib
from pathlib import Path

from datcts.mutgen import id_switch

HAND_DIR = Path("tests/mutants/hand")
# subject -> (the environment variable that switches its mutants on, the
# folder of its sources)
SUBJECTS = {"provider": ("DATREF_MUTANT", "reference-provider"),
            "registry": ("DATLIB_MUTANT", "libdat")}
REGISTRY_FILE = "registry.toml"
ID = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)+$")
MUTANT_KEYS = {"id", "clauses", "text", "quick", "variant", "survives", "edit"}
EDIT_KEYS = {"file", "function", "anchor", "context", "replacement", "insert_before",
             "insert_after", "kind"}
STATE_KEYS = {"file", "function", "after", "code", "mutants", "replace"}


class HandError(Exception):
    pass


@dataclasses.dataclass
class Edit:
    mutant: str
    file: str              # relative to the repository
    function: str
    anchor: str
    context: str | None
    replacement: str | None
    insert: str | None     # "before" | "after" | None
    code: str | None       # what an insert puts there
    kind: str              # "statement" | "expression" | "insert"


@dataclasses.dataclass
class HandMutant:
    id: str
    clauses: list
    text: str
    quick: bool
    variant: str | None
    survives: str | None
    subject: str
    source: str            # the TOML file it is in
    edits: list

    def table_entry(self) -> dict:
        """The entry as `datcts mutate` reads it (the datref-mutants/1 form)."""
        return {"id": self.id, "clauses": list(self.clauses), "what": self.text,
                "quick": self.quick, "survives": self.survives, "variant": self.variant,
                "subject": self.subject, "variable": SUBJECTS[self.subject][0]}


@dataclasses.dataclass
class State:
    file: str
    function: str | None   # declared just before this function's definition
    after: str | None      # or right after this snippet (once in the file)
    code: str
    replace: str | None    # or: this snippet (once in the function) becomes code
    mutants: list
    source: str


def subject_of(path: Path) -> str:
    return "registry" if path.name == REGISTRY_FILE else "provider"


def _edit_kind(anchor: str, spec: dict) -> str:
    if "insert_before" in spec or "insert_after" in spec:
        return "insert"
    kind = spec.get("kind")
    if kind:
        return kind
    return "statement" if anchor.rstrip().endswith((";", "}")) else "expression"


def load(root: Path, hand_dir: Path | None = None) -> tuple:
    """(mutants, states) of every tests/mutants/hand/*.toml; HandError on a
    malformed entry."""
    folder = hand_dir or root / HAND_DIR
    mutants, states, problems = [], [], []
    for path in sorted(folder.glob("*.toml")):
        rel = str(path.relative_to(root)) if path.is_relative_to(root) else str(path)
        try:
            with path.open("rb") as f:
                doc = tomllib.load(f)
        except (OSError, tomllib.TOMLDecodeError) as e:
            raise HandError(f"{rel}: {e}") from e
        subject = subject_of(path)
        for i, m in enumerate(doc.get("mutant", [])):
            where = f"{rel}: mutant {m.get('id', '#' + str(i + 1))}"
            extra = set(m) - MUTANT_KEYS
            if extra:
                problems.append(f"{where}: unknown key(s) {', '.join(sorted(extra))}")
            if not isinstance(m.get("id"), str) or not isinstance(m.get("text"), str) or \
               not isinstance(m.get("clauses"), list) or not m.get("edit"):
                problems.append(f"{where}: needs id, clauses, text and at least one [[mutant.edit]]")
                continue
            edits = []
            for e in m["edit"]:
                extra = set(e) - EDIT_KEYS
                if extra:
                    problems.append(f"{where}: edit: unknown key(s) {', '.join(sorted(extra))}")
                if not all(isinstance(e.get(k), str) for k in ("file", "function", "anchor")):
                    problems.append(f"{where}: an edit needs file, function and anchor")
                    continue
                n = sum(k in e for k in ("replacement", "insert_before", "insert_after"))
                if n != 1:
                    problems.append(f"{where}: an edit has one of replacement, insert_before, "
                                    "insert_after")
                    continue
                insert = "before" if "insert_before" in e else \
                    "after" if "insert_after" in e else None
                edits.append(Edit(mutant=m["id"], file=e["file"], function=e["function"],
                                  anchor=e["anchor"], context=e.get("context"),
                                  replacement=e.get("replacement"), insert=insert,
                                  code=e.get("insert_before", e.get("insert_after")),
                                  kind=_edit_kind(e["anchor"], e)))
            mutants.append(HandMutant(id=m["id"], clauses=list(m["clauses"]), text=m["text"],
                                      quick=bool(m.get("quick", False)),
                                      variant=m.get("variant"), survives=m.get("survives"),
                                      subject=subject, source=rel, edits=edits))
        for s in doc.get("state", []):
            extra = set(s) - STATE_KEYS
            if extra or not isinstance(s.get("file"), str) or not isinstance(s.get("code"), str) \
               or not ("function" in s or "after" in s):
                problems.append(f"{rel}: a [[state]] has file, code, and one of function "
                                "or after (and optionally replace, mutants)")
                continue
            states.append(State(file=s["file"], function=s.get("function"), after=s.get("after"),
                                code=s["code"], replace=s.get("replace"),
                                mutants=list(s.get("mutants", [])), source=rel))
    if problems:
        raise HandError("\n".join(problems))
    return mutants, states


# ---------------------------------------------------------------- C text

TOKEN = re.compile(r"""
    (?P<comment>/\*.*?\*/|//[^\n]*)
  | (?P<pp>^[ \t]*\#(?:\\\n|[^\n])*)
  | (?P<str>"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*')
  | (?P<id>[A-Za-z_]\w*)
  | (?P<num>\.?\d(?:[eEpP][+-]|[\w.])*)
  | (?P<punct>->|\+\+|--|<<=|>>=|<<|>>|<=|>=|==|!=|&&|\|\||[-+*/%&|^]=|\.\.\.|[^\s])
  | (?P<space>\s+)
""", re.S | re.M | re.X)


def tokens(text: str) -> list:
    """(kind, text, start, end) of the code tokens: comments, preprocessor
    lines and blanks left out."""
    out = []
    for m in TOKEN.finditer(text):
        kind = m.lastgroup
        if kind in ("comment", "pp", "space"):
            continue
        out.append((kind, m.group(), m.start(), m.end()))
    return out


def functions(text: str) -> dict:
    """function name -> (start of its definition's first line, end of its
    body): the definitions at file level (`name(...) {`)."""
    toks = tokens(text)
    out = {}
    depth = 0
    i = 0
    while i < len(toks):
        t = toks[i][1]
        if t == "{" and depth == 0 and i > 0 and toks[i - 1][1] == ")":
            # the matching '(' of the parameter list, and the name before it
            j, d = i - 1, 0
            while j >= 0:
                d += {")": 1, "(": -1}.get(toks[j][1], 0)
                if d == 0:
                    break
                j -= 1
            name = toks[j - 1][1] if j > 0 and toks[j - 1][0] == "id" else None
            k, d = i, 0
            while k < len(toks):
                d += {"{": 1, "}": -1}.get(toks[k][1], 0)
                if d == 0:
                    break
                k += 1
            if name and k < len(toks):
                first = toks[j - 1][2]
                # the definition's first line: back over the return type on
                # the line(s) above, to the previous declaration's end
                p = i - 1
                while p > 0 and toks[p - 1][1] not in (";", "}", "{") and \
                        toks[p - 1][0] != "pp":
                    p -= 1
                first = min(first, toks[p][2])
                out.setdefault(name, (text.rfind("\n", 0, first) + 1, toks[k][3]))
                i = k + 1
                continue
        depth += {"{": 1, "}": -1}.get(t, 0)
        i += 1
    # a macro that does a function's work (a dispatch, a swap) is a place
    # of its own: its #define, continuation lines included
    for m in MACRO.finditer(text):
        out.setdefault(m.group(1), (m.start(), m.end()))
    return out


MACRO = re.compile(r"^[ \t]*#[ \t]*define[ \t]+(\w+)\((?:\\\n|[^\n])*", re.M)


def _occurrences(hay: str, needle: str) -> list:
    out, i = [], hay.find(needle)
    while i >= 0:
        out.append(i)
        i = hay.find(needle, i + 1)
    return out


def locate(edit: Edit, text: str, funcs: dict) -> tuple:
    """(start, end) of the edit's anchor in text; HandError naming the
    mutant and why not."""
    what = f"mutant {edit.mutant}: {edit.file}: {edit.function}"
    if edit.function not in funcs:
        raise HandError(f"{what}: no such function")
    lo, hi = funcs[edit.function]
    body = text[lo:hi]
    base = 0
    if edit.context is not None:
        hits = _occurrences(body, edit.context)
        if len(hits) != 1:
            raise HandError(f"{what}: the context occurs {len(hits)} times in the function "
                            f"(must be once): {edit.context[:80]!r}")
        base = hits[0]
        body = edit.context
    if not edit.anchor:
        raise HandError(f"{what}: empty anchor")
    hits = _occurrences(body, edit.anchor)
    if len(hits) != 1:
        where = "context" if edit.context is not None else "function"
        raise HandError(f"{what}: the anchor occurs {len(hits)} times in the {where} "
                        f"(must be once): {edit.anchor[:80]!r}")
    s = lo + base + hits[0]
    return s, s + len(edit.anchor)


def one_line(code: str) -> str:
    """code on one line (comments out): a guard adds no line break."""
    code = re.sub(r'("(?:\\.|[^"\\])*"|\'(?:\\.|[^\'\\])*\')|//[^\n]*|/\*.*?\*/',
                  lambda m: m.group(1) or " ", code, flags=re.S)
    return " ".join(code.replace("\\\n", " ").split())


@dataclasses.dataclass
class Placement:
    """One edit at its place in a file, in the form mutgen.render guards:
    start/end in the original, and wrap(original code) -> guarded code."""
    edit: Edit
    index: int
    start: int
    end: int
    id: str = ""
    line: int = 0
    end_line: int = 0
    replacement: str = ""

    def wrap(self, orig: bytes) -> bytes:
        e = self.edit
        on = f"DATCTS_HAND({self.index})"
        if e.kind == "insert":
            ins = f"if ({on}) {{ {one_line(e.code)} }}".encode()
            return (ins + b" " + orig) if e.insert == "before" else (orig + b" " + ins)
        if e.kind == "statement":
            return (f"if ({on}) {{ {one_line(e.replacement)} }} else {{ ".encode() + orig +
                    b" }")
        return f"({on} ? ({one_line(e.replacement)}) : (".encode() + orig + b"))"


def placements(rel: str, text: str, mutants: list, index_of: dict) -> list:
    """The edits of file rel, located in text; HandError listing every
    anchor that does not match."""
    funcs = functions(text)
    out, problems = [], []
    for m in mutants:
        for e in m.edits:
            if e.file != rel:
                continue
            try:
                s, t = locate(e, text, funcs)
            except HandError as err:
                problems.append(str(err))
                continue
            if e.kind == "insert":
                s = t = s if e.insert == "before" else t
            p = Placement(edit=e, index=index_of[m.id], start=s, end=t, id=m.id,
                          line=text.count("\n", 0, s) + 1, end_line=text.count("\n", 0, t) + 1,
                          replacement=e.replacement or "")
            out.append(p)
    if problems:
        raise HandError("\n".join(problems))
    return out


def apply_states(rel: str, text: str, states: list, shifts: list | None = None) -> str:
    """text with the state declarations of file rel, each on the line where
    it goes (no line added).  shifts, if given, gets (offset, length
    change) of each insertion, in the text as it was before it."""
    problems = []
    shifts = shifts if shifts is not None else []
    for s in states:
        if s.file != rel:
            continue
        code = one_line(s.code)
        if s.function and s.after is not None:
            # right after a snippet of the function (a local of its own)
            funcs = functions(text)
            if s.function not in funcs:
                problems.append(f"{s.source}: state for {rel}: no function {s.function}")
                continue
            lo, hi = funcs[s.function]
            hits = _occurrences(text[lo:hi], s.after)
            if len(hits) != 1:
                problems.append(f"{s.source}: state for {s.function}: {s.after!r} occurs "
                                f"{len(hits)} times (must be once)")
                continue
            at = lo + hits[0] + len(s.after)
            text = text[:at] + " " + code + text[at:]
            shifts.append((at, len(code) + 1))
        elif s.function:
            funcs = functions(text)
            if s.function not in funcs:
                problems.append(f"{s.source}: state for {rel}: no function {s.function}")
                continue
            lo, hi = funcs[s.function]
            if s.replace is not None:
                hits = _occurrences(text[lo:hi], s.replace)
                if len(hits) != 1:
                    problems.append(f"{s.source}: state for {s.function}: {s.replace!r} "
                                    f"occurs {len(hits)} times (must be once)")
                    continue
                at = lo + hits[0]
                text = text[:at] + code + text[at + len(s.replace):]
                shifts.append((at, len(code) - len(s.replace)))
            else:
                text = text[:lo] + code + " " + text[lo:]
                shifts.append((lo, len(code) + 1))
        else:
            hits = _occurrences(text, s.after)
            if len(hits) != 1:
                problems.append(f"{s.source}: state for {rel}: {s.after!r} occurs "
                                f"{len(hits)} times (must be once)")
                continue
            at = hits[0] + len(s.after)
            text = text[:at] + " " + code + text[at:]
            shifts.append((at, len(code) + 1))
    if problems:
        raise HandError("\n".join(problems))
    return text


def _shifted(start: int, end: int, shifts: list) -> tuple:
    """[start, end) after the state insertions (each in the text as it was
    when it was made): one at the start goes before the range, one inside
    widens it (the original branch then holds the declaration too)."""
    for at, n in shifts:
        if at <= start and not (at == start == end):
            start += n
            end += n
        elif start < at < end or (at == start == end):
            end += n if start < at else 0
    return start, end


def prelude(ids: list, variable: str) -> str:
    """The switch of one file's hand-written mutants: DATCTS_HAND(k) is on
    when the comma-separated list in `variable` names ids[k] (read once, at
    load), and the MT-safety helpers (docs/mutants.md, "Adding a mutant")."""
    return ("/* Generated by datcts: hand-written mutant schemata (tests/mutants/hand). "
            "Do not edit. */\n" + id_switch("hand", variable, ids) + HAND_HELPERS)


HAND_HELPERS = """extern int sched_yield(void);
#define DATCTS_HAND(k) __builtin_expect(datcts_hand_on[k], 0)
/* MT-safety mutants: false when another thread is inside (yields once
 * inside, so concurrent callers meet even on one CPU) */
__attribute__((unused)) static _Bool datcts_hand_enter(int *inside)
{
\tif (__atomic_fetch_add(inside, 1, __ATOMIC_SEQ_CST) > 0) {
\t\t__atomic_fetch_sub(inside, 1, __ATOMIC_SEQ_CST);
\t\treturn 0;
\t}
\tsched_yield();
\treturn 1;
}
__attribute__((unused)) static void datcts_hand_leave(int *inside)
{
\t__atomic_fetch_sub(inside, 1, __ATOMIC_SEQ_CST);
}
__attribute__((unused)) static _Bool datcts_hand_collides(int *inside)
{
\tif (!datcts_hand_enter(inside))
\t\treturn 1;
\tdatcts_hand_leave(inside);
\treturn 0;
}
#line 1
"""


def subject_of_file(rel: str) -> str:
    return "registry" if rel.startswith(SUBJECTS["registry"][1] + "/") else "provider"


def files_of(mutants: list, states: list) -> list:
    return sorted({e.file for m in mutants for e in m.edits} | {s.file for s in states})


def schemata_sources(root: Path, mutants: list, states: list, shifts_out: dict | None = None) -> dict:
    """rel -> (text with state declarations, [Placement], [ids in index order],
    environment variable) of every file a hand-written mutant edits.
    shifts_out, if given, gets rel -> the state insertions (for _shifted:
    other ranges of the original, a generated mutant's, move with them)."""
    out, problems = {}, []
    for rel in files_of(mutants, states):
        path = root / rel
        try:
            text = path.read_text()
        except OSError as e:
            problems.append(f"{rel}: {e}")
            continue
        mine = [m for m in mutants if any(e.file == rel for e in m.edits)]
        ids = [m.id for m in mine]
        index_of = {mid: i for i, mid in enumerate(ids)}
        try:
            # anchors are matched in the original; state goes in afterwards
            # at places no anchor covers (before a function, after a member)
            places = placements(rel, text, mine, index_of)
            shifts: list = []
            text2 = apply_states(rel, text, states, shifts)
            for p in places:
                p.start, p.end = _shifted(p.start, p.end, shifts)
            if shifts_out is not None:
                shifts_out[rel] = shifts
        except HandError as e:
            problems.append(str(e))
            continue
        out[rel] = (text2, places, ids, SUBJECTS[subject_of_file(rel)][0])
    if problems:
        raise HandError("hand-written mutants do not apply:\n" + "\n".join(problems))
    return out


def byte_ranges(text: str, places: list) -> list:
    """places with their ranges in bytes of the UTF-8 text (mutgen.render's
    unit; a comment may hold a non-ASCII character)."""
    if text.isascii():
        return list(places)
    return [dataclasses.replace(p, start=len(text[:p.start].encode()),
                                end=len(text[:p.end].encode())) for p in places]


def render(text: str, places: list, ids: list, variable: str, generated=None,
           generated_prelude: bool = False) -> tuple:
    """The schemata of one file: hand-written placements (and the generated
    mutants of mutgen, if given) guarded; (bytes, [generated mutants left
    out])."""
    from datcts import mutgen
    body, crossing = mutgen.render(text.encode(), list(generated or []) + byte_ranges(text, places),
                                   with_prelude=generated_prelude)
    return prelude(ids, variable).encode() + body, crossing


def table(root: Path) -> dict:
    """subject -> the table doc datref-mutants printed (datref-mutants/1)."""
    mutants, _ = load(root)
    out = {}
    for subj, (var, _src) in SUBJECTS.items():
        out[subj] = {"schema": "datref-mutants/1", "library": None, "subject": subj,
                     "variable": var,
                     "mutants": [m.table_entry() for m in mutants if m.subject == subj]}
    return out


# ---------------------------------------------------------------- the build

def schemata_files(root: Path) -> tuple:
    """(rel -> schemata bytes, mutants): every file a hand-written mutant
    edits, with its mutants guarded; HandError when one does not apply."""
    mutants, states = load(root)
    replaced, problems = {}, []
    for rel, (text, places, ids, variable) in schemata_sources(root, mutants, states).items():
        if not places:
            # a header: the state it declares, no switch of its own
            replaced[rel] = text.encode()
            continue
        data, crossing = render(text, places, ids, variable)
        for p in crossing:
            problems.append(f"mutant {p.id}: {rel}:{p.line}: its anchor crosses another "
                            "mutant's (they must nest or be apart)")
        replaced[rel] = data
    if problems:
        raise HandError("hand-written mutants do not apply:\n" + "\n".join(problems))
    return replaced, mutants


COMPILE_ERROR = re.compile(r"^(?P<file>[^:\n]+):(?P<line>\d+):(?:\d+:)? (?:fatal )?error:(?P<msg>.*)$",
                           re.M)


def blame(log_text: str, root: Path, mutants: list) -> list:
    """The mutants a compiler error of the schemata build points at (its
    file and line; guards add no line, so a line is the original's)."""
    out = []
    for m in COMPILE_ERROR.finditer(log_text):
        name, line = m.group("file"), int(m.group("line"))
        for mu in mutants:
            for e in mu.edits:
                if not name.endswith(e.file):
                    continue
                try:
                    text = (root / e.file).read_text()
                    s, t = locate(e, text, functions(text))
                except (OSError, HandError):
                    continue
                if text.count("\n", 0, s) + 1 <= line <= text.count("\n", 0, t) + 1:
                    out.append(f"mutant {mu.id}: {e.file}:{line}:{m.group('msg')}")
    return out


def build(root: Path, out: Path, targets: list, jobs: int, log: Path) -> Path:
    """Writes the copy of the tree with every hand-written mutant in it
    (out/hand-src) and builds targets there (out/hand-build); the lib/
    folder of that build.  HandError on an anchor that does not match or a
    mutant that does not compile, naming the mutant."""
    from datcts import mutgen_run
    replaced, mutants = schemata_files(root)
    src = out / "hand-src"
    mutgen_run.sync_tree(root, src, {k: v for k, v in replaced.items()})
    build_dir = out / "hand-build"
    try:
        for target in targets:
            mutgen_run.build_library(src, build_dir, log, ["-DCMAKE_BUILD_TYPE=RelWithDebInfo"],
                                     jobs, target)
    except mutgen_run.GeneratedError as e:
        text = log.read_text(errors="replace") if log.is_file() else ""
        who = blame(text, root, mutants)
        raise HandError(f"the hand-written mutant schemata does not build ({e})" +
                        ("".join("\n" + w for w in dict.fromkeys(who)) if who else "")) from e
    return build_dir / "lib"
