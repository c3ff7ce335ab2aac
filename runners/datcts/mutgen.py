"""Generated mutants of C sources (`datcts mutate --generated`, docs/mutants.md
"Generated mutants"): finding them with libclang and writing mutant schemata.

A mutant is one small change at one place of a function: an operator swapped,
a condition negated, a constant moved by one, a returned DAT_RETURN replaced,
a field assignment or a call statement removed.  Its id

    <file>:<function>:<operator>:<ordinal>:<hash>

names the file, the function, the operator, its ordinal among that
function's mutants of that operator, and a short hash of the original tokens
of the mutated expression: an edit in another function changes none of them.

The schemata of a file is one generated copy of it in which every mutant is
guarded by `DATCTS_MUT(k)`: the original code runs unless the environment
variable DATCTS_GENMUT (a comma-separated list of ids) names the k-th mutant
of that file (as Mull does: one build for all mutants, chosen at run time).
Nothing is added to the original sources.
"""

from __future__ import annotations

import dataclasses
import hashlib
import re
import shlex
from pathlib import Path

ENV_VAR = "DATCTS_GENMUT"

# operator name -> what it does (the --operators vocabulary)
OPERATORS = {
    "rel-boundary": "< <= > >= moved across the boundary (< to <=, <= to <, > to >=, >= to >)",
    "eq-swap": "== and != swapped",
    "logic-swap": "&& and || swapped",
    "cond-negate": "the condition of an if, while, do or for negated",
    "const-plus1": "an integer constant plus one",
    "const-minus1": "an integer constant minus one",
    "return-success": "a returned DAT_RETURN replaced by DAT_SUCCESS",
    "return-error": "a returned DAT_RETURN replaced by another error code",
    "field-assign-del": "an assignment to a struct field removed",
    "call-del": "a call statement removed",
}

STATEMENT_REMOVED = "(void)0"
REL_SWAP = {"<": "<=", "<=": "<", ">": ">=", ">=": ">"}
EQ_SWAP = {"==": "!=", "!=": "=="}
LOGIC_SWAP = {"&&": "||", "||": "&&"}
# The error a return-error mutant returns instead; the second when the
# original already returns the first.
ERROR_CODES = ("DAT_INVALID_PARAMETER", "DAT_INVALID_STATE")
# The hand-written mutant switch (docs/mutants.md) is test machinery, not
# provider behaviour: calls to it are neither removed nor negated.
# Its names: ref_mutant*, REF_MUTANT_ID, and dto.c's op_mutant (which picks the
# switch of a DTO's operation).
SWITCH = r"(?:ref_mutant\w*|REF_MUTANT_ID|op_mutant)"
SWITCH_CALLS = re.compile(r"^!?\s*\(?\s*" + SWITCH + r"\s*\(")
# A condition that holds only while a hand-written mutant is on (the switch
# as a positive conjunct): what it guards is mutant code, not the provider's.
SWITCH_ON = re.compile(r"(^|&&)\s*\(?\s*" + SWITCH + r"\s*\(")
# The provider's test hooks (docs/reference-provider.md, "Test hooks") stage
# conditions for the cases: suite machinery, not behaviour the pages define.
TEST_HOOK_PREFIX = "daplref_test_"
# The comment that marks struct members only hand-written mutants use.
MUTANTS_ONLY = "mutants only"
INT_LITERAL = re.compile(r"^(0[xX][0-9a-fA-F]+|[0-9]+)[uUlL]*$")


class GenerationError(Exception):
    pass


@dataclasses.dataclass
class Mutant:
    id: str
    file: str          # path relative to the source root
    function: str
    operator: str
    ordinal: int
    hash: str
    line: int          # first and last line of the mutated code (original file)
    end_line: int
    start: int         # byte offsets of the mutated code in the original file
    end: int
    original: str
    replacement: str   # the code that replaces [start, end) when the mutant is on
    index: int = -1    # position in the file's schemata (DATCTS_MUT(index))
    # first and last line of the whole expression the mutated code is part of
    # (a condition, a call statement, a returned value): gcov charges a
    # multi-line expression to its first line(s), so what reaches the mutant
    # is what executed any line of this span (0: the mutant's own lines)
    span_line: int = 0
    span_end_line: int = 0
    # the whole expression with the mutated code in «»: what a triage entry
    # was judged on (an id's ordinal moves when the function gains a mutant
    # of the same operator before it; its hash is only the mutated tokens')
    code: str = ""

    def reach_lines(self) -> range:
        return range(self.span_line or self.line, (self.span_end_line or self.end_line) + 1)

    def listing(self) -> dict:
        return {"id": self.id, "file": self.file, "function": self.function,
                "operator": self.operator, "line": self.line, "end_line": self.end_line,
                "original": self.original, "replacement": self.replacement,
                "code": self.code}


def load_clang():
    """clang.cindex, or raise GenerationError saying what to install."""
    try:
        import clang.cindex as cindex
    except ImportError as e:
        raise GenerationError(
            "python3-clang is not installed (tools/deps.sh installs python3-clang-14; "
            f"run with Debian's /usr/bin/python3): {e}") from e
    try:
        cindex.Index.create()
    except Exception as e:  # noqa: BLE001 - libclang missing or of another version
        raise GenerationError(f"libclang cannot be loaded: {e}") from e
    return cindex


def compile_args(entry: dict) -> list:
    """The compiler arguments of one compile_commands.json entry that matter
    to parsing (defines, include paths, language options)."""
    argv = entry.get("arguments") or shlex.split(entry["command"])
    out, skip = [], False
    for a in argv[1:]:
        if skip:
            skip = False
            continue
        if a in ("-o", "-MF", "-MT", "-MQ"):
            skip = True
            continue
        if a in ("-c", "-MD", "-MMD") or a == entry["file"] or a.endswith(entry["file"]):
            continue
        if a.startswith(("-I", "-D", "-U", "-std", "-include", "-isystem", "-f", "-W", "-m")):
            out.append(a)
        elif out and out[-1] in ("-include", "-isystem"):
            out.append(a)
    return out


def load_compile_commands(path: Path, target: str = "daplref") -> dict:
    """source path (resolved) -> its compile_commands entry for the CMake
    target: a file the build compiles for several targets (core/*.c for
    daplref and daplref2) with this target's flags; a file the target does
    not compile (core/abi20.c) is not there."""
    import json
    entries = json.loads(path.read_text())
    mine = (f"/{target}_obj.dir/", f"/{target}.dir/")
    out = {}
    for e in entries:
        key = str(Path(e["directory"], e["file"]).resolve())
        cmd = e.get("command") or " ".join(e.get("arguments", []))
        if any(m in cmd for m in mine):
            out[key] = e
    return out


def _short_hash(text: str) -> str:
    return hashlib.sha1(" ".join(text.split()).encode()).hexdigest()[:6]


class _FileScan:
    """Walks one parsed file and collects the candidate mutations."""

    def __init__(self, cindex, tu, path: Path, rel: str, operators: set):
        self.ci = cindex
        self.K = cindex.CursorKind
        self.tu = tu
        self.path = path
        self.rel = rel
        self.data = path.read_bytes()
        self.ops = operators
        # (function, operator, start, end, original, replacement, span, context)
        self.found = []
        self.full = None  # extent of the whole expression being walked
        self.decl = None  # extent of the declaration whose initialiser is walked
        self.field_marks: dict = {}
        self.headers: dict = {}

    # -- helpers
    def text(self, start: int, end: int) -> str:
        return self.data[start:end].decode(errors="replace")

    def extent(self, cur):
        e = cur.extent
        if e.start.file is None or e.end.file is None:
            return None
        if Path(e.start.file.name).resolve() != self.path or \
           Path(e.end.file.name).resolve() != self.path:
            return None
        s, t = e.start.offset, e.end.offset
        return (s, t) if 0 <= s < t <= len(self.data) else None

    def add(self, fn, op, start, end, replacement, node=None):
        if node is not None and self.touches_mutant_state(node):
            return  # state only hand-written mutants read: the change is invisible
        span = self.full if self.full and self.full[0] <= start and end <= self.full[1] \
            else (start, end)
        # what the code says around it: the expression, or the declaration
        # it initialises
        context = self.decl if self.decl and self.decl[0] <= span[0] and \
            span[1] <= self.decl[1] else span
        self.found.append((fn, op, start, end, self.text(start, end), replacement, span,
                           context))

    def mutant_only_field(self, field) -> bool:
        """A struct member only hand-written mutants use: named `mut_*`, or
        `mutants only` in the comment on its own line (ref.h, conn.h).  A
        comment heading a group is not trusted: conn.h's group holds
        disconnect_event_posted, which ep.c reads outside any mutant."""
        if field.spelling.startswith("mut_"):
            return True
        loc = field.location
        if loc.file is None:
            return False
        key = (loc.file.name, loc.line)
        if key not in self.field_marks:
            lines = self.header_lines(loc.file.name)
            self.field_marks[key] = 0 < loc.line <= len(lines) and \
                MUTANTS_ONLY in lines[loc.line - 1]
        return self.field_marks[key]

    def header_lines(self, name: str) -> list:
        if name not in self.headers:
            try:
                self.headers[name] = Path(name).read_text(errors="replace").splitlines()
            except OSError:
                self.headers[name] = []
        return self.headers[name]

    def touches_mutant_state(self, node) -> bool:
        for n in node.walk_preorder():
            if n.kind == self.K.MEMBER_REF_EXPR:
                ref = n.referenced
                if ref is not None and ref.kind == self.K.FIELD_DECL and \
                   self.mutant_only_field(ref):
                    return True
        return False

    # -- the walk
    def scan(self):
        for cur in self.tu.cursor.get_children():
            if cur.kind == self.K.FUNCTION_DECL and cur.is_definition() and \
               not cur.spelling.startswith(TEST_HOOK_PREFIX) and \
               not re.fullmatch(SWITCH, cur.spelling) and \
               cur.location.file and Path(cur.location.file.name).resolve() == self.path:
                self.function(cur)
        return self.found

    def function(self, fn):
        returns_dat = fn.result_type.spelling in ("DAT_RETURN",)
        body = next((c for c in fn.get_children() if c.kind == self.K.COMPOUND_STMT), None)
        if body is not None:
            self.walk(fn.spelling, body, None, returns_dat, False)

    def walk(self, fn, cur, parent, returns_dat, constants_blocked):
        K = self.K
        kind = cur.kind
        if kind == K.CALL_EXPR and re.fullmatch(SWITCH, cur.spelling):
            return  # the hand-written switch: nothing inside it is provider behaviour
        outer, outer_decl = self.full, self.decl
        if not kind.is_expression():
            self.full = None
        elif parent is None or not parent.kind.is_expression():
            self.full = self.extent(cur)
        if kind == K.VAR_DECL:
            self.decl = self.extent(cur)
        try:
            self._walk(fn, cur, parent, returns_dat, constants_blocked)
        finally:
            self.full, self.decl = outer, outer_decl

    def _walk(self, fn, cur, parent, returns_dat, constants_blocked):
        K = self.K
        kind = cur.kind
        blocked = constants_blocked or kind in (K.CASE_STMT,) or \
            (kind == K.VAR_DECL and (cur.storage_class == self.ci.StorageClass.STATIC or
                                     cur.type.kind in (self.ci.TypeKind.CONSTANTARRAY,)))
        if kind in (K.IF_STMT, K.WHILE_STMT, K.DO_STMT, K.FOR_STMT):
            self.condition(fn, cur)
        elif kind == K.BINARY_OPERATOR:
            self.binary(fn, cur)
        elif kind == K.INTEGER_LITERAL and not blocked and parent is not None and \
                parent.kind not in (K.CASE_STMT,):
            self.literal(fn, cur)
        elif kind == K.RETURN_STMT and returns_dat:
            self.ret(fn, cur)
        if parent is not None and kind.is_expression() and not parent.kind.is_expression() \
                and self.touches_mutant_state(cur):
            return  # a statement or condition on state only hand-written mutants use
        if parent is not None and self.is_statement_position(cur, parent):
            self.statement(fn, cur)
        kids = list(cur.get_children())
        if kind in (K.IF_STMT, K.CONDITIONAL_OPERATOR) and len(kids) >= 2:
            cext = self.extent(kids[0])
            if cext and SWITCH_ON.search(self.text(*cext)):
                kids.pop(1)  # code that runs only with a hand-written mutant on
        if kind == K.BINARY_OPERATOR and len(kids) == 2:
            kids = [k for k in kids if not self.masked_by_switch(cur, kids, k)]
        for child in kids:
            self.walk(fn, child, cur, returns_dat, blocked)

    def masked_by_switch(self, cur, kids, kid) -> bool:
        """kid is an operand whose value does not matter while no hand-written
        mutant is on: `x || !ref_mutant(..)` is true, `x && ref_mutant(..)`
        false, whatever x is; a mutant inside x would be equivalent."""
        tok = self.operator_token(cur, kids, ("||", "&&"))
        if not tok:
            return False
        other = kids[1] if kid == kids[0] else kids[0]
        ext = self.extent(other)
        if ext is None:
            return False
        text = self.text(*ext).lstrip("( \t\n")
        if tok[0] == "||":
            return bool(re.match(r"!\s*\(?\s*" + SWITCH + r"\s*\(", text))
        return bool(re.match(SWITCH + r"\s*\(", text))

    def is_statement_position(self, cur, parent) -> bool:
        """An expression used as a statement: a child of a block, or the body
        of an if/else/loop (not a condition, not a for's init or step)."""
        K = self.K
        if not cur.kind.is_expression():
            return False
        if parent.kind == K.COMPOUND_STMT:
            return True
        if parent.kind in (K.IF_STMT, K.WHILE_STMT, K.DO_STMT, K.FOR_STMT):
            kids = list(parent.get_children())
            if parent.kind == K.IF_STMT:
                return any(cur == k for k in kids[1:])
            if parent.kind == K.WHILE_STMT:
                return len(kids) > 1 and cur == kids[-1]
            if parent.kind == K.DO_STMT:
                return bool(kids) and cur == kids[0]
            return bool(kids) and cur == kids[-1]
        return False

    def _strip(self, cur):
        """The expression under implicit casts and parentheses (same extent)."""
        K = self.K
        while cur.kind in (K.UNEXPOSED_EXPR, K.PAREN_EXPR):
            kids = list(cur.get_children())
            if len(kids) != 1:
                break
            cur = kids[0]
        return cur

    def statement(self, fn, cur):
        K = self.K
        ext = self.extent(cur)
        if ext is None:
            return
        s, e = ext
        text = self.text(s, e)
        inner = self._strip(cur)
        if inner.kind == K.CSTYLE_CAST_EXPR:  # (void)f(x);
            kids = list(inner.get_children())
            inner = self._strip(kids[-1]) if kids else inner
        removal = STATEMENT_REMOVED
        if inner.kind == K.CALL_EXPR and "call-del" in self.ops and not SWITCH_CALLS.match(text):
            self.add(fn, "call-del", s, e, removal, cur)
        elif inner.kind in (K.BINARY_OPERATOR, K.COMPOUND_ASSIGNMENT_OPERATOR) and \
                "field-assign-del" in self.ops:
            kids = list(inner.get_children())
            if len(kids) == 2 and self._strip(kids[0]).kind == K.MEMBER_REF_EXPR and \
               self.operator_token(inner, kids, ("=", "+=", "-=", "|=", "&=", "^=",
                                                  "*=", "/=", "<<=", ">>=")):
                self.add(fn, "field-assign-del", s, e, removal, cur)

    def operator_token(self, cur, kids, spellings):
        """(spelling, start, end) of the binary operator token between the two
        operands, when it is one of spellings and really in this file."""
        left, right = self.extent(kids[0]), self.extent(kids[1])
        if left is None or right is None:
            return None
        between = self.text(left[1], right[0])
        m = re.fullmatch(r"(\s*)(\S+)\s*", between)
        if not m or m.group(2) not in spellings:
            return None
        start = left[1] + len(m.group(1).encode())
        return m.group(2), start, start + len(m.group(2).encode())

    def binary(self, fn, cur):
        kids = list(cur.get_children())
        if len(kids) != 2:
            return
        ext = self.extent(cur)
        if ext is None:
            return
        s, e = ext
        switch_on = SWITCH_ON.search(self.text(s, e))
        for op, table in (("rel-boundary", REL_SWAP), ("eq-swap", EQ_SWAP),
                          ("logic-swap", LOGIC_SWAP)):
            if op not in self.ops or (op == "logic-swap" and switch_on):
                continue
            tok = self.operator_token(cur, kids, tuple(table))
            if tok:
                spelling, ts, te = tok
                new = self.text(s, ts) + table[spelling] + self.text(te, e)
                self.add(fn, op, s, e, new, cur)

    def condition(self, fn, cur):
        if "cond-negate" not in self.ops:
            return
        K = self.K
        kids = list(cur.get_children())
        if cur.kind == K.IF_STMT or cur.kind == K.WHILE_STMT:
            cond = kids[0] if kids else None
        elif cur.kind == K.DO_STMT:
            cond = kids[1] if len(kids) > 1 else None
        else:  # for (init; cond; step): libclang omits absent parts, so find it by text
            cond = None
            ext = self.extent(cur)
            if ext is None:
                return
            head = self.text(*ext)
            m = re.match(r"for\s*\(([^;]*);([^;]*);", head)
            if not m or not m.group(2).strip():
                return
            for k in kids:
                ke = self.extent(k)
                if ke and self.text(*ke).strip() == m.group(2).strip():
                    cond = k
                    break
        if cond is None or not cond.kind.is_expression():
            return
        ext = self.extent(cond)
        if ext is None:
            return
        s, e = ext
        text = self.text(s, e)
        if SWITCH_CALLS.match(text) or SWITCH_ON.search(text):
            return  # negated, it would run a hand-written mutant's code
        self.add(fn, "cond-negate", s, e, f"!({text})", cond)

    def literal(self, fn, cur):
        ext = self.extent(cur)
        if ext is None:
            return
        s, e = ext
        text = self.text(s, e)
        if not INT_LITERAL.match(text):
            return  # a literal from a macro, or not a plain one
        for op, sign in (("const-plus1", "+"), ("const-minus1", "-")):
            if op in self.ops:
                self.add(fn, op, s, e, f"({text} {sign} 1)")

    def ret(self, fn, cur):
        kids = list(cur.get_children())
        if not kids:
            return
        ext = self.extent(kids[0])
        if ext is None:
            return
        s, e = ext
        text = self.text(s, e)
        if "return-success" in self.ops and text.strip() != "DAT_SUCCESS":
            self.add(fn, "return-success", s, e, "DAT_SUCCESS", kids[0])
        if "return-error" in self.ops:
            code = ERROR_CODES[1] if ERROR_CODES[0] in text else ERROR_CODES[0]
            self.add(fn, "return-error", s, e, code, kids[0])


def in_context(before: str, mutated: str, after: str) -> str:
    """The expression a mutant changes, one line, the changed part in «»."""
    return " ".join(f"{before}«{mutated}»{after}".split())


def id_file(rel: str) -> str:
    """The file part of a mutant id: the path under reference-provider/."""
    return rel.removeprefix("reference-provider/")


def line_of(data: bytes, offset: int) -> int:
    return data.count(b"\n", 0, offset) + 1


def generate(path: Path, args: list, rel: str, operators=None, cindex=None) -> list:
    """The mutants of one C file, in source order, with their stable ids."""
    ci = cindex or load_clang()
    ops = set(operators or OPERATORS)
    unknown = ops - set(OPERATORS)
    if unknown:
        raise GenerationError("unknown operator(s): " + ", ".join(sorted(unknown)))
    path = Path(path).resolve()
    index = ci.Index.create()
    tu = index.parse(str(path), args=list(args))
    errors = [d for d in tu.diagnostics if d.severity >= ci.Diagnostic.Error]
    if errors:
        raise GenerationError(f"{rel}: libclang cannot parse it: {errors[0]}")
    scan = _FileScan(ci, tu, path, rel, ops)
    found = scan.scan()
    # one mutant per (place, operator, replacement); source order
    seen, unique = set(), []
    for f in sorted(found, key=lambda f: (f[2], -f[3], f[1])):
        key = (f[1], f[2], f[3], f[5])
        if key not in seen:
            seen.add(key)
            unique.append(f)
    ordinals: dict = {}
    out = []
    for fn, op, s, e, orig, repl, (ss, se), (cs, ce) in unique:
        n = ordinals[(fn, op)] = ordinals.get((fn, op), 0) + 1
        h = _short_hash(orig)
        out.append(Mutant(id=f"{id_file(rel)}:{fn}:{op}:{n}:{h}", file=rel, function=fn, operator=op,
                          ordinal=n, hash=h, line=line_of(scan.data, s),
                          end_line=line_of(scan.data, e), start=s, end=e,
                          original=orig, replacement=repl,
                          span_line=line_of(scan.data, ss), span_end_line=line_of(scan.data, se),
                          code=in_context(scan.text(cs, s), orig, scan.text(e, ce))))
    return out


# ---------------------------------------------------------------- schemata

def id_switch(name: str, variable: str, ids: list) -> str:
    """C for a switch of mutants by id: datcts_<name>_on[k] is true when the
    comma-separated list in the environment variable names ids[k] (read once,
    at load).  Generated and hand-written schemata both use it."""
    table = "".join('\t"' + i.replace("\\", "\\\\").replace('"', '\\"') + '",\n' for i in ids)
    return f"""extern char *getenv(const char *);
extern int strncmp(const char *, const char *, __SIZE_TYPE__);
extern __SIZE_TYPE__ strlen(const char *);
static _Bool datcts_{name}_on[{max(len(ids), 1)}];
static const char *const datcts_{name}_ids[] = {{
{table}\t(const char *)0
}};
__attribute__((constructor)) static void datcts_{name}_init(void)
{{
\tconst char *p = getenv("{variable}");
\twhile (p && *p) {{
\t\tconst char *q = p;
\t\twhile (*q && *q != ',')
\t\t\tq++;
\t\tfor (int i = 0; datcts_{name}_ids[i]; i++)
\t\t\tif (strlen(datcts_{name}_ids[i]) == (__SIZE_TYPE__)(q - p) &&
\t\t\t    !strncmp(p, datcts_{name}_ids[i], (__SIZE_TYPE__)(q - p)))
\t\t\t\tdatcts_{name}_on[i] = 1;
\t\tp = *q ? q + 1 : q;
\t}}
}}
"""


def _prelude(ids: list) -> str:
    """The switch of one generated file: DATCTS_MUT(k) is on when
    DATCTS_GENMUT names the k-th mutant.  One id is one mutant's run; several
    are a group of mutants run together (mutgen_run.py, run_group)."""
    return ("/* Generated by datcts mutate --generated: mutant schemata. Do not edit. */\n" +
            id_switch("genmut", ENV_VAR, ids) +
            "#define DATCTS_MUT(k) __builtin_expect(datcts_genmut_on[k], 0)\n#line 1\n")


C_COMMENT_OR_LITERAL = re.compile(r'("(?:\\.|[^"\\])*"|\'(?:\\.|[^\'\\])*\')|//[^\n]*|/\*.*?\*/',
                                  re.S)


def one_line(code: str) -> str:
    """code on one line: comments out, line breaks made spaces (a mutant's
    copy of a multi-line condition must not shift the lines after it)."""
    code = C_COMMENT_OR_LITERAL.sub(lambda m: m.group(1) or " ", code)
    return code.replace("\\\n", " ").replace("\n", " ")


def render(source: bytes, mutants: list, with_prelude: bool = True) -> tuple:
    """The schemata of one file: (text, [mutants left out]).  mutants: those
    of this file, with distinct index values.  Guards add no line breaks and
    the prelude ends in `#line 1`, so a line of the schemata is the same line
    of the original (a compiler error names the mutants on it).  A mutant
    whose range crosses another's (code from a macro) is left out.

    A hand-written mutant's placement (handmut.Placement) guards itself
    (its wrap()); it is never left out: a generated mutant whose range
    crosses one is.  A placement of zero width (an insertion) goes before
    the ranges that start where it is, never inside them."""
    hand = [m for m in mutants if hasattr(m, "wrap")]
    crossing = [m for m in mutants if not hasattr(m, "wrap") and
                any(h.start < m.start < h.end < m.end or m.start < h.start < m.end < h.end
                    for h in hand)]
    # group by range; ranges nest (an AST) or are disjoint
    groups: dict = {}
    for m in mutants:
        if m not in crossing:
            groups.setdefault((m.start, m.end), []).append(m)
    spans = sorted(groups, key=lambda r: (r[0], r[1] > r[0], -r[1]))
    # build the containment forest
    roots, stack, children = [], [], {r: [] for r in spans}
    for r in spans:
        while stack and stack[-1][1] <= r[0]:
            stack.pop()
        if stack and r[1] > stack[-1][1]:
            crossing.extend(groups[r])
            continue
        (children[stack[-1]] if stack else roots).append(r)
        stack.append(r)

    def emit(lo: int, hi: int, inner: list) -> bytes:
        out = bytearray()
        pos = lo
        for r in inner:
            out += source[pos:r[0]]
            out += guard(r)
            pos = r[1]
        out += source[pos:hi]
        return bytes(out)

    def guard(r) -> bytes:
        orig = emit(r[0], r[1], children[r])
        # a removed statement's other branch must be void too
        generated = [m for m in groups[r] if not hasattr(m, "wrap")]
        if generated:
            void = any(m.replacement == STATEMENT_REMOVED for m in generated)
            expr = (b"(void)(" if void else b"(") + orig + b")"
            for m in reversed(generated):
                expr = (f"(DATCTS_MUT({m.index}) ? ({one_line(m.replacement)}) : ".encode() +
                        expr + b")")
        else:
            expr = orig
        for m in reversed([m for m in groups[r] if hasattr(m, "wrap")]):
            expr = m.wrap(expr)
        return expr

    body = emit(0, len(source), roots)
    if not with_prelude:
        return body, crossing
    pre = _prelude_indexed([m for m in mutants if not hasattr(m, "wrap")], crossing).encode()
    return pre + body, crossing


def _prelude_indexed(mutants: list, crossing: list) -> str:
    by_index = {m.index: m.id for m in mutants if m not in crossing}
    n = max(by_index, default=-1) + 1
    # an index whose mutant is out keeps a slot that no id selects
    return _prelude([by_index.get(i, "") or f"(unused {i})" for i in range(n)])
