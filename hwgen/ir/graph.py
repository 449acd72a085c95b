"""The task graph: task instances whose bodies are loop-nest segments, the streams that
connect them and the tensors they read and write.

A task body is lowered to a list of ``Segment``s run one after another. A segment is a perfect
loop nest whose innermost body is straight-line code; a statement that stood before (after) an
inner loop carries a ``first`` (``last``) predicate so that it runs on that loop's first (last)
iteration. That form is what the interpreter runs and what the hardware pipelines.
"""
import dataclasses
import enum
import math
from dataclasses import dataclass, field

from .preds import Pred, allowed, coexist, pred_holds, span_of, trips_under  # noqa: F401
from .types import TensorType, StreamType

# ``a op b`` on Python integers: the interpreter's semantics, and constant folding's.
BINARY = {
    "+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
    "&": lambda a, b: a & b, "|": lambda a, b: a | b, "^": lambda a, b: a ^ b,
    "<<": lambda a, b: a << b, ">>": lambda a, b: a >> b,
    "//": lambda a, b: a // b, "%": lambda a, b: a % b,     # by a positive constant
    "==": lambda a, b: int(a == b), "!=": lambda a, b: int(a != b), "<": lambda a, b: int(a < b),
    "<=": lambda a, b: int(a <= b), ">": lambda a, b: int(a > b), ">=": lambda a, b: int(a >= b),
}


# -- expressions --------------------------------------------------------------------------------

@dataclass(frozen=True)
class Const:
    value: int


@dataclass(frozen=True)
class LoopIndex:
    """The index of the loop at ``depth`` of the current segment (0 is outermost)."""
    depth: int


@dataclass(frozen=True)
class VarRef:
    name: str


@dataclass(frozen=True)
class BinOp:
    op: str
    lhs: object
    rhs: object


@dataclass(frozen=True)
class Neg:
    operand: object


@dataclass(frozen=True)
class Slice:
    """Bits ``[start, stop)`` of ``operand``, as an unsigned value; with ``offset`` (a run-time
    expression, ``x[8*i:8*i+8]``) bits ``[offset + start, offset + stop)``."""
    operand: object
    start: int
    stop: int
    offset: object = None


@dataclass(frozen=True)
class Select:
    """``a`` when ``cond`` is nonzero, else ``b``: run-time ``if``/``else``, ``x if c else y``,
    ``max``/``min`` (a multiplexer in hardware)."""
    cond: object
    a: object
    b: object


@dataclass(frozen=True)
class SetSlice:
    """``operand`` (``width`` bits) with bits ``[start, stop)`` replaced by ``value``'s low bits:
    ``x[8:16] = v`` on a packed local; with ``offset`` (a run-time expression) bits
    ``[offset + start, offset + stop)``."""
    operand: object
    start: int
    stop: int
    value: object
    width: int
    offset: object = None


@dataclass(frozen=True)
class FloatOp:
    """IEEE-754 ``lhs op rhs`` on bit patterns of float format ``fmt`` (``ir.floats``): ``+ - *
    /`` give a bit pattern, comparisons 0 or 1, ``neg`` (``rhs`` None) flips the sign."""
    op: str
    lhs: object
    rhs: object
    fmt: object


@dataclass(frozen=True)
class Convert:
    """``operand`` of type ``src`` (a ``FloatType``, or None for an integer value) as type
    ``dst``: rounded into a float, truncated toward zero and saturated into an integer."""
    operand: object
    src: object
    dst: object


@dataclass(frozen=True)
class ArrayRead:
    """Read element ``index`` of the instance's local array ``array``."""
    array: str
    index: tuple
    loc: tuple = field(compare=False, default=None)


@dataclass(frozen=True)
class Get:
    """Pop one element from ``channel``."""
    channel: str
    loc: tuple = field(compare=False, default=None)


@dataclass(frozen=True)
class More:
    """Whether closed stream ``channel`` has another value: waits for its next element; 1 for
    a value (left in the stream), 0 for the close (taken)."""
    channel: str
    loc: tuple = field(compare=False, default=None)


@dataclass(frozen=True)
class Read:
    """Read ``tensor[index]``; each index is an expression of loop indices and constants."""
    tensor: str
    index: tuple
    loc: tuple = field(compare=False, default=None)


EXPRESSIONS = (Const, LoopIndex, VarRef, BinOp, Neg, Slice, Select, SetSlice, FloatOp, Convert,
               ArrayRead, Get, More, Read)


class StreamOp(enum.Enum):
    """A stream operation: ``PUT`` pushes onto a stream, ``GET`` pops from it."""
    PUT = "put"
    GET = "get"


# -- statements ---------------------------------------------------------------------------------


@dataclass
class Assign:
    var: str
    value: object
    pred: tuple = ()
    loc: tuple = None


@dataclass
class Put:
    """Push ``value`` onto ``channel``; with a ``guard`` (on a closed stream) where the guard
    is nonzero. ``close``: ``s.close()``, the token that ends a closed stream's values."""
    channel: str
    value: object
    pred: tuple = ()
    loc: tuple = None
    guard: object = None
    close: bool = False


@dataclass
class Write:
    tensor: str
    index: tuple
    value: object
    pred: tuple = ()
    loc: tuple = None


@dataclass
class ArrayWrite:
    """Write element ``index`` of the instance's local array ``array``."""
    array: str
    index: tuple
    value: object
    pred: tuple = ()
    loc: tuple = None


@dataclass(frozen=True)
class Site:
    """Where a statement stands: statement ``statement`` of segment ``segment`` of instance
    ``instance``. The schedule's tables of statements are keyed by it (``Instance.sites``),
    and those of tensor reads by ``(site, read)``: equal reads of one statement are one."""
    instance: str
    segment: int
    statement: int


@dataclass
class Segment:
    """A perfect loop nest with trip counts ``trips`` (outer first) around ``body``. With a
    ``cond`` (``while``, ``for v in s:``) the outermost loop runs while it is nonzero, at most
    ``trips[0]`` times."""
    trips: tuple
    body: list
    loc: tuple = None
    cond: object = None

    @property
    def iterations(self):
        return math.prod(self.trips)


# -- the graph ----------------------------------------------------------------------------------

@dataclass
class Tensor:
    name: str
    type: TensorType
    direction: str = "in"          # "in" (read by tasks), "out" (written) or "inout" (both)
    loc: tuple = None
    inferred: bool = False         # the layout was inferred from the tasks' accesses

    def use(self, access):
        """Record a ``"read"`` or a ``"write"`` of the tensor by a task: its direction."""
        kind = "in" if access == "read" else "out"
        self.direction = kind if self.direction in (None, kind) else "inout"

    @property
    def dtype(self):
        return self.type.dtype

    @property
    def shape(self):
        return self.type.shape


@dataclass
class Channel:
    """One stream: a single producer instance, a single consumer instance; in a folded
    program, ``carries`` names the virtual streams it carries when they are several."""
    name: str
    type: StreamType
    producer: str = None
    consumer: str = None
    loc: tuple = None
    carries: tuple = ()

    @property
    def dtype(self):
        return self.type.dtype

    @property
    def depth(self):
        return self.type.depth

    @property
    def bound(self):
        """The most values per problem of a closed stream, else None."""
        return self.type.bound


@dataclass
class Instance:
    """One task instance: the task's body specialised to grid position ``pid``."""
    name: str
    task: str
    pid: tuple
    grid: tuple
    segments: list
    vars: dict                      # local name -> IntType
    loc: tuple = None
    arrays: dict = field(default_factory=dict)     # local array name -> TensorType
    contents: dict = field(default_factory=dict)   # read-only array -> its elements, row-major

    def sites(self, segment=None):
        """``(Site, segment, statement)`` of every statement, in order (of one segment, by
        index, when ``segment`` is given)."""
        for gi, seg in enumerate(self.segments):
            if segment is None or gi == segment:
                for k, s in enumerate(seg.body):
                    yield Site(self.name, gi, k), seg, s


@dataclass
class Graph:
    """A task graph. ``hwgen.check.check`` freezes the graph it passes (`freeze`): from then
    on its fields are not written to, and mapping and tiling return new graphs
    (``dataclasses.replace``, which gives an unfrozen copy, or `with_`)."""
    name: str
    params: dict
    tensors: dict                   # name -> Tensor, in declaration order
    channels: dict                  # name -> Channel
    instances: dict                 # name -> Instance
    loc: tuple = None
    warnings: list = field(default_factory=list)   # HwgenWarning messages from the checks
    folds: dict = field(default_factory=dict)      # task -> (virtual grid, physical grid)
    search: list = field(default_factory=list)     # how mapping.search chose the folds
    tiles: dict = None      # a tile of a larger problem: design.json's ``tiles`` (``host``)
    share_rows: bool = True  # output rows may share a memory (``schedule.shared_rows``)
    host_names: dict = field(default_factory=dict)  # hardware tensor -> the host's (in-out)
    fabric: frozenset = frozenset()  # instances whose multiplies are built in logic

    @property
    def inputs(self):
        return [t for t in self.tensors.values() if t.direction in ("in", "inout")]

    @property
    def outputs(self):
        return [t for t in self.tensors.values() if t.direction in ("out", "inout")]

    def host_name(self, tensor):
        """The name the host knows hardware tensor ``tensor`` by (an in-out tensor's
        halves, ``schedule.in_out``: the tensor's own)."""
        return self.host_names.get(tensor, tensor)

    def __setattr__(self, name, value):
        if self.__dict__.get("frozen"):
            raise AttributeError(f"graph {self.name!r} is checked and frozen: make a new one "
                                 f"with graph.with_({name}=...)")
        super().__setattr__(name, value)

    def freeze(self):
        """Refuse any later write to the graph's fields; returns the graph."""
        self.__dict__["frozen"] = True
        return self

    def with_(self, **changes):
        """A copy with ``changes``, frozen as this graph is."""
        copy = dataclasses.replace(self, **changes)
        return copy.freeze() if self.__dict__.get("frozen") else copy


# -- walking ------------------------------------------------------------------------------------

def subexprs(expr):
    """``expr`` and every expression inside it, children first (in field order)."""
    for f in dataclasses.fields(expr):
        v = getattr(expr, f.name)
        for child in (v if isinstance(v, tuple) else (v,)):
            if isinstance(child, EXPRESSIONS):
                yield from subexprs(child)
    yield expr


def transform(expr, fn):
    """``expr`` rebuilt bottom-up, ``fn`` applied to each subexpression (children first)."""
    changes = {}
    for f in dataclasses.fields(expr):
        v = getattr(expr, f.name)
        if isinstance(v, EXPRESSIONS):
            changes[f.name] = transform(v, fn)
        elif isinstance(v, tuple) and v and all(isinstance(x, EXPRESSIONS) for x in v):
            changes[f.name] = tuple(transform(x, fn) for x in v)
    return fn(dataclasses.replace(expr, **changes) if changes else expr)


def stmt_exprs(stmt):
    """Every expression a statement evaluates, in evaluation order."""
    if getattr(stmt, "guard", None) is not None:
        yield from subexprs(stmt.guard)
    if isinstance(stmt, (Write, ArrayWrite)):
        for i in stmt.index:
            yield from subexprs(i)
    yield from subexprs(stmt.value)


def stream_ops(stmt):
    """``(StreamOp, channel, loc)`` of every stream operation of ``stmt``, in execution order:
    its gets while the value is computed, then its put."""
    ops = [(StreamOp.GET, e.channel, e.loc or stmt.loc)
           for e in stmt_exprs(stmt) if isinstance(e, (Get, More))]
    if isinstance(stmt, Put):
        ops.append((StreamOp.PUT, stmt.channel, stmt.loc))
    return ops
