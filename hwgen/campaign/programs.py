"""Random well-formed hwgen programs, as ``hypothesis`` strategies that draw a program's source.

Four shapes cover the language: a *pipeline* of tasks joined by single streams (each task a
map, a reduction, an expansion or a local-array reversal, with its own loop nest, so links come
out lockstep or FIFO), a *grid* of workers on tensor shards feeding a collector through a stream
array (or writing their own output shards), and a *systolic chain* of cells on a grid passing
values neighbour to neighbour, and a *filter* whose closed stream carries as many values as
the data decide. Bodies draw random expressions (arithmetic, bitwise, shifts,
max/min/abs, run-time conditionals), side-input tensors, run-time ``if`` statements, prologue
loops and typed locals. Every drawn program is meant to pass hwgen's checks: one the checks
reject is a finding of the campaign like a mismatch.

Sizes are written into the source (``build()`` takes no parameters), so a program file is a
complete, replayable case.
"""
import ast
import re
from dataclasses import dataclass

from hypothesis import strategies as st

STREAM_TYPES = ("int8", "int16", "int32", "uint8", "int4", "uint4")
INPUT_TYPES = ("int8", "int16", "uint8")
MAX_ITEMS = 48


@dataclass(frozen=True)
class Program:
    name: str
    source: str
    shape: str          # "pipeline", "grid" or "chain"


def expressions(leaves, depth=2):
    """Source text of a random expression over ``leaves`` (names in scope) and constants."""
    base = st.one_of(st.sampled_from(leaves), st.integers(-9, 9).map(
        lambda c: f"({c})" if c < 0 else str(c)))
    if depth == 0:
        return base

    def grow(inner):
        two = st.tuples(inner, inner)
        return st.one_of(
            st.tuples(inner, st.sampled_from("+-*&|^"), inner).map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
            st.tuples(inner, st.sampled_from([">>", "<<"]), st.integers(0, 3)).map(
                lambda t: f"({t[0]} {t[1]} {t[2]})"),
            st.tuples(st.sampled_from(["max", "min"]), two).map(
                lambda t: f"{t[0]}({t[1][0]}, {t[1][1]})"),
            inner.map(lambda e: f"abs({e})"),
            inner.map(lambda e: f"(-{e})"),
            st.tuples(inner, st.sampled_from(["<", "<=", "==", "!=", ">"]), inner, two).map(
                lambda t: f"({t[3][0]} if {t[0]} {t[1]} {t[2]} else {t[3][1]})"))
    return st.recursive(base, grow, max_leaves=2 ** depth)


@dataclass(frozen=True)
class Ends:
    """Where a stage's items come from and go to: ``get(pos)`` and ``put(pos, value)`` give
    source text for the item at flat position ``pos`` (source text too)."""
    get: object
    put: object
    in_type: str
    also: tuple = ()    # (declaration, name) of values taken from other streams per item


class Lines:
    """Indented source lines."""
    def __init__(self, indent):
        self.lines, self.indent = [], indent

    def __call__(self, text, extra=0):
        self.lines.append("    " * (self.indent + extra) + text)


@st.composite
def _body(draw, out, ends, leaves, level, side):
    """Statements of one item: ``x`` from the input, an optional side input ``y``, an optional
    run-time ``if`` computing ``r``, then the put of a random expression."""
    out(f"x: {ends.in_type} = {ends.get(leaves['pos'])}", level)
    names = ["x"] + leaves["loops"] + leaves["extra"]
    for line, name in ends.also:
        out(line, level)
        names.append(name)
    if side is not None:
        out(f"y: int8 = {side}[{leaves['pos']}]", level)
        names.append("y")
    if draw(st.booleans()):
        a, b = draw(st.sampled_from(names)), draw(st.sampled_from(names))
        out(f"r: {draw(st.sampled_from(['int16', 'int8', 'int4']))} = 0", level)
        out(f"if {a} {draw(st.sampled_from(['<', '>=', '!=']))} {b}:", level)
        out(f"r = {draw(expressions(names, 1))}", level + 1)
        out("else:", level)
        out(f"r = {draw(expressions(names, 1))}", level + 1)
        names.append("r")
    return draw(_using(names, ["x", "r"] + [name for _, name in ends.also]))


@st.composite
def _using(draw, names, must):
    """An expression over ``names`` that uses each of ``must`` that is among them, so that
    every value read flows to an output."""
    value = draw(_with_a_name(expressions(names)))
    for name in must:
        if name in names and not re.search(rf"\b{name}\b", value):
            value = f"({value} {draw(st.sampled_from('+-^'))} {name})"
    return value


def _reads_a_name(node):
    """Whether the expression ``node`` reads a name (a function's name is not read)."""
    return any(isinstance(n, ast.Name) and not any(
        isinstance(c, ast.Call) and c.func is n for c in ast.walk(node)) for n in ast.walk(node))


def _not_constant(text):
    """Whether the expression ``text`` cannot fold to a constant: it reads a name, and every
    conditional's test does (``(-8 if 0 <= 0 else x)`` folds to -8)."""
    tree = ast.parse(text, mode="eval").body
    return _reads_a_name(tree) and all(_reads_a_name(n.test) for n in ast.walk(tree)
                                       if isinstance(n, ast.IfExp))


def _with_a_name(strategy):
    """Expressions that cannot fold to a constant: a constant put into a narrower stream is an
    error of the checks (rightly), and the campaign wants programs they accept."""
    return strategy.filter(_not_constant)


def _reduce(draw, out, n_in, ends, leaves, level, side):
    """``acc`` sums ``k`` items per output."""
    k = draw(st.sampled_from([d for d in range(1, n_in + 1) if n_in % d == 0]))
    out(f"for i in range({n_in // k}):", level)
    out(f"acc: {draw(st.sampled_from(['int32', 'int16']))} = 0", level + 1)
    out(f"for j in range({k}):", level + 1)
    value = draw(_body(out, ends, dict(leaves, pos=f"i * {k} + j", loops=["i", "j"]),
                       level + 2, side))
    out(f"acc += {value}", level + 2)
    out(ends.put("i", "acc"), level + 1)
    return n_in // k


def _expand(draw, out, n_in, ends, leaves, level, side):
    """``k`` outputs per item."""
    k = draw(st.integers(1, max(1, min(3, MAX_ITEMS // n_in))))
    out(f"for i in range({n_in}):", level)
    out(f"v: int32 = {draw(_body(out, ends, leaves, level + 1, side))}", level + 1)
    out(f"for j in range({k}):", level + 1)
    value = draw(_with_a_name(expressions(["v", "j", "i"] + leaves["extra"])))
    out(ends.put(f"i * {k} + j", value), level + 2)
    return n_in * k


def _buffer(draw, out, n_in, ends, leaves, level, side):
    """The items stored in a local array, then sent on in reverse order."""
    out(f"buf: {ends.in_type}[{n_in}]", level)
    out(f"for i in range({n_in}):", level)
    out(f"buf[i] = {ends.get('i')}", level + 1)
    out(f"for i in range({n_in}):", level)
    from_buf = Ends(lambda pos: f"buf[{n_in - 1} - {pos}]", ends.put, ends.in_type, ends.also)
    out(ends.put("i", draw(_body(out, from_buf, leaves, level + 1, side))), level + 1)
    return n_in


def _map(draw, out, n_in, ends, leaves, level, side):
    """One output per item, in a loop forwards or backwards or a nest of two."""
    split = draw(st.sampled_from([d for d in range(1, n_in + 1) if n_in % d == 0]))
    if split in (1, n_in):
        pos, loops = draw(_loop(n_in, out, level)), ["i"]
    else:
        out(f"for a in range({n_in // split}):", level)
        out(f"for b in range({split}):", level + 1)
        level, pos, loops = level + 1, f"a * {split} + b", ["a", "b"]
    value = draw(_body(out, ends, dict(leaves, pos=pos, loops=loops), level + 1, side))
    out(ends.put(pos, value), level + 1)
    return n_in


STAGES = {"map": _map, "reduce": _reduce, "expand": _expand, "buffer": _buffer}


@st.composite
def stage(draw, n_in, ends, side_names, level=3):
    """One task body over ``n_in`` input items; returns ``(lines, n_out, side tensors)`` where
    each side tensor is ``(name, type, shape)``."""
    out, sides, extra = Lines(0), [], []
    kind = draw(st.sampled_from(["map", "map", "reduce", "expand", "buffer"]))
    if draw(st.integers(0, 3)) == 0:                       # a prologue loop before the main one
        name, length = next(side_names), draw(st.integers(1, 5))
        sides.append((name, "int8", (length,)))
        out("tot: int32 = 0", level)
        out(f"for q in range({length}):", level)
        out(f"tot += {name}[q]", level + 1)
        extra = ["tot"]
    side = next(side_names) if draw(st.integers(0, 2)) == 0 else None
    leaves = {"pos": "i", "loops": ["i"], "extra": extra}
    n_out = STAGES[kind](draw, out, n_in, ends, leaves, level, side)
    if side is not None:
        sides.append((side, "int8", (n_in,)))
    return out.lines, n_out, sides


def _names(prefix):
    k = 0
    while True:
        yield f"{prefix}{k}"
        k += 1


def _module(name, tensors, streams, tasks, doc):
    """The source of a design file: ``tensors`` as ``(name, type, shape, layout)``,
    ``streams`` as declaration lines, ``tasks`` as ``(decorator, name, body lines)``."""
    params = ", ".join(f"{t}: {ty}[{', '.join(map(str, shape))}]" + (f" @ {lay}" if lay else "")
                       for t, ty, shape, lay in tensors)
    lines = [f'"""{doc}"""', "import hwgen",
             "from hwgen import R, S, Stream, int4, int8, int16, int32, uint4, uint8", "", "",
             "def build():", "    @hwgen.region", f"    def {name}({params}):"]
    lines += [f"        {s}" for s in streams]
    for decorator, task, body in tasks:
        lines += ["", f"        {decorator}", f"        def {task}():"] + body
    lines += ["", f"    return {name}", ""]
    return "\n".join(lines)


@st.composite
def _loop(draw, n, out, level):
    """A loop over ``n`` items, forwards or backwards; returns the item's position."""
    backwards = draw(st.booleans())
    out(f"for i in range({n - 1}, -1, -1):" if backwards else f"for i in range({n}):", level)
    return "i"


@st.composite
def _tee(draw, n, get, put, in_type):
    """A task that passes each item on and also sends one to a branch task writing ``E``:
    ``(tee lines, branch lines, stream declaration)``."""
    f_type = draw(st.sampled_from(STREAM_TYPES))
    tee, branch = Lines(0), Lines(0)
    tee(f"for i in range({n}):", 3)
    tee(f"x: {in_type} = {get('i')}", 4)
    tee(put("i", draw(_using(["x", "i"], ["x"]))), 4)
    tee(f"f.put({draw(_using(['x', 'i'], ['x']))})", 4)
    pos = draw(_loop(n, branch, 3))
    branch(f"z: {f_type} = f.get()", 4)
    branch(f"E[{pos}] = {draw(_using(['z', 'i'], ['z']))}", 4)
    return tee.lines, branch.lines, f"f = Stream[{f_type}, {draw(st.integers(1, 4))}]"


@st.composite
def _joined(draw, n):
    """A task reading ``D`` and sending ``n`` values on ``g`` for another task to join:
    ``(lines, stream declaration, (declaration, name) for the joining task)``."""
    g_type = draw(st.sampled_from(STREAM_TYPES))
    out = Lines(0)
    pos = draw(_loop(n, out, 3))
    out(f"d: int16 = D[{pos}]", 4)
    out(f"g.put({draw(_using(['d', 'i'], ['d']))})", 4)
    return (out.lines, f"g = Stream[{g_type}, {draw(st.integers(1, 4))}]",
            (f"z: {g_type} = g.get()", "z"))


@st.composite
def pipelines(draw):
    """A chain of 1-4 tasks: the first reads ``A``, the last writes ``C``, streams between;
    perhaps a tee task that also feeds a branch writing ``E``, or a last task that joins a
    second stream made from ``D``."""
    count = draw(st.integers(1, 4))
    n = draw(st.integers(1, 16))
    a_type = draw(st.sampled_from(INPUT_TYPES))
    c_type = draw(st.sampled_from(["int32", "int16"]))
    extra = draw(st.sampled_from([None, "tee", "join"]))
    tee_at = draw(st.integers(0, count - 1))
    side_names, tensors, streams, tasks = _names("B"), [("A", a_type, (n,), None)], [], []
    in_type, n_first = a_type, n
    for s in range(count):
        last = s == count - 1
        out_type = c_type if last else draw(st.sampled_from(STREAM_TYPES))
        if not last:
            streams.append(f"s{s} = Stream[{out_type}, {draw(st.integers(1, 4))}]")
        get = (lambda pos: f"A[{pos}]") if s == 0 else (lambda pos, s=s: f"s{s - 1}.get()")
        put = ((lambda pos, v: f"C[{pos}] = {v}") if last else
               (lambda pos, v, s=s: f"s{s}.put({v})"))
        also = ()
        if extra == "tee" and s == tee_at:
            tee, branch, decl = draw(_tee(n, get, put, in_type))
            tasks += [("@hwgen.task", f"t{s}", tee), ("@hwgen.task", "branch", branch)]
            streams.append(decl)
            tensors.append(("E", "int32", (n,), None))
            in_type = out_type
            continue
        if extra == "join" and last:
            lines, decl, join = draw(_joined(n))
            tasks.append(("@hwgen.task", "other", lines))
            streams.append(decl)
            tensors.append(("D", draw(st.sampled_from(INPUT_TYPES)), (n,), None))
            also = (join,)
        lines, n, sides = draw(stage(n, Ends(get, put, in_type, also), side_names))
        tensors += [(t, ty, shape, None) for t, ty, shape in sides]
        tasks.append(("@hwgen.task", f"t{s}", lines))
        in_type = out_type
    tensors.append(("C", c_type, (n,), None))
    return _module("pipeline", tensors, streams, tasks,
                   f"A random pipeline of {count} tasks over {n_first} items"
                   + {None: ".", "tee": ", with a branch.", "join": ", joining a second."}[extra])


@st.composite
def grids(draw):
    """``P`` workers on the rows of ``A`` (sharded); a collector sums their results per item
    from a stream array, or each worker writes its own row of ``C``."""
    p, n = draw(st.integers(1, 4)), draw(st.integers(1, 8))
    a_type = draw(st.sampled_from(INPUT_TYPES))
    collect = draw(st.booleans())
    s_type = draw(st.sampled_from(STREAM_TYPES))
    get = lambda pos: f"A[p, {pos}]"                              # noqa: E731
    put = ((lambda pos, v: f"part[p].put({v})") if collect else
           (lambda pos, v: f"C[p, {pos}] = {v}"))
    lines, n_out, sides = draw(stage(n, Ends(get, put, a_type), _names("B")))
    lines = ["            p = hwgen.get_pid()"] + lines
    tensors = [("A", a_type, (p, n), "[S(0), R]")] + [(t, ty, sh, None) for t, ty, sh in sides]
    tasks = [("@hwgen.task(mapping=[P])".replace("P", str(p)), "worker", lines)]
    streams = []
    if collect:
        streams.append(f"part = Stream[{s_type}, {draw(st.integers(1, 4))}][{p}]")
        out = Lines(3)
        out(f"for i in range({n_out}):")
        out("total: int32 = 0", 1)
        out(f"with hwgen.meta_for({p}) as q:", 1)
        out("total += part[q].get()", 2)
        out(f"C[i] = {draw(expressions(['total', 'i']))}", 1)
        tasks.append(("@hwgen.task", "collect", out.lines))
        tensors.append(("C", "int32", (n_out,), None))
    else:
        tensors.append(("C", "int32", (p, n_out), "[S(0), R]"))
    return _module("grid", tensors, streams, tasks,
                   f"A random grid of {p} workers over {n} items each.")


@st.composite
def chains(draw):
    """A systolic chain of ``P`` cells: cell 0 reads ``A``, each cell combines the value it
    receives with its own weight ``W[t]`` and passes it on; the last cell writes ``C``."""
    p, n = draw(st.integers(1, 5)), draw(st.integers(1, 12))
    depth = draw(st.integers(1, 3))
    out = Lines(3)
    out("t = hwgen.get_pid()")
    out("w: int8 = W[t]")
    out(f"for i in range({n}):")
    out("if t == 0:", 1)
    out("x: int32 = A[i]", 2)
    out("else:", 1)
    out("x: int32 = s[t].get()", 2)
    out(f"v: int32 = {draw(expressions(['x', 'w', 'i']))}", 1)
    out(f"if t < {p - 1}:", 1)
    out("s[t + 1].put(v)", 2)
    out("else:", 1)
    out("C[i] = v", 2)
    tensors = [("A", draw(st.sampled_from(INPUT_TYPES)), (n,), None),
               ("W", "int8", (p,), "[S(0)]"), ("C", "int32", (n,), None)]
    return _module("chain", tensors, [f"s = Stream[int32, {depth}][{p}]"],
                   [(f"@hwgen.task(mapping=[{p}])", "cell", out.lines)],
                   f"A random systolic chain of {p} cells over {n} items.")


def stalls():
    """``(in_gap, out_gap)``: the chance that the host leaves a cycle empty on an input port
    and refuses an output beat."""
    return st.tuples(st.sampled_from([0.0, 0.1, 0.3, 0.6, 0.9]),
                     st.sampled_from([0.0, 0.1, 0.3, 0.6, 0.9]))
