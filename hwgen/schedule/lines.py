"""Delay-line keys: the control values a group's controller produces once, at its base, and
every member taps at ``skew + level`` (the control wavefront of a systolic array)."""
import enum
from dataclasses import dataclass


class LineKind(enum.Enum):
    COND = "cond"       # the iteration is valid, in segment ``segment``, where ``preds`` hold
    FINISH = "finish"   # the problem's last iteration
    IDX = "idx"         # the loop index at ``depth``
    SLOT = "slot"       # the buffer slot of the problem the iteration belongs to


@dataclass(frozen=True)
class Line:
    """One delay line of a group's controller."""
    kind: LineKind
    segment: int = 0
    preds: tuple = ()       # ir.Pred
    depth: int = 0

    @classmethod
    def cond(cls, segment, preds=()):
        return cls(LineKind.COND, segment=segment, preds=tuple(preds))

    @classmethod
    def index(cls, depth):
        return cls(LineKind.IDX, depth=depth)

    @property
    def datapath(self):
        """Loop indices and slot numbers are data (reset-less registers); flags are control."""
        return self.kind in (LineKind.IDX, LineKind.SLOT)

    @property
    def label(self):
        """The stem of the line's register names."""
        if self.kind is LineKind.COND:
            return f"cond_{self.segment}"
        if self.kind is LineKind.IDX:
            return f"idx_{self.depth}"
        return self.kind.value

    @property
    def order(self):
        """Sort key of the order in which lines are emitted: the text of the tuples that were
        the keys before ``Line`` existed (so ``idx_10`` sorts before ``idx_2``). It exists only
        to keep the generated Verilog byte-identical to what it was."""
        if self.kind is LineKind.COND:
            preds = tuple((p.kind, p.depth) + (() if p.value is None else (p.value,))
                          for p in self.preds)
            return str(("cond", self.segment, preds))
        if self.kind is LineKind.IDX:
            return str(("idx", self.depth))
        return str((self.kind.value,))


SLOT = Line(LineKind.SLOT)
FINISH = Line(LineKind.FINISH)


def copy_spans(uses, parents):
    """The copies of one line the members of a group keep (``rtl.delay``): member ->
    ``(first, last)`` delay of its copy, given the delays (>= 1) each member with a parent taps
    (``uses``) and ``parents`` (member -> the member it takes its copy from). A member without
    a parent (the array's corner, or every member where no links join them) taps the shared
    line and keeps no copy. A copy runs from the first delay the member or a child needs to the
    last; a child's copy starts one delay after the parent's value it takes, so a parent that
    taps nothing may still keep a copy for its children."""
    spans = {mb: [min(ds), max(ds)] for mb, ds in uses.items() if ds}
    for mb in reversed(_parents_first(spans, parents)):     # children before their parents
        parent = parents.get(mb)
        if mb in spans and not takes_shared(mb, spans[mb], parents):
            need = spans[mb][0] - 1
            lo, hi = spans.get(parent, (need, need))
            spans[parent] = [min(lo, need), max(hi, need)]
    return {mb: tuple(span) for mb, span in spans.items()}


def copy_registers(uses, parents):
    """``(registers, shared)``: the delays the copies of one line hold in all (``copy_spans``),
    and the length of shared line the copies that start from it need."""
    spans = copy_spans(uses, parents)
    return (sum(hi - lo + 1 for lo, hi in spans.values()),
            max((lo for mb, (lo, hi) in spans.items() if takes_shared(mb, (lo, hi), parents)),
                default=0))


def takes_shared(member, span, parents):
    """Whether ``member``'s copy starts from the shared line (its parent has none, or it starts
    at delay 1), else from its parent's copy."""
    parent = parents.get(member)
    return parent is None or parents.get(parent) is None or span[0] <= 1


def _parents_first(members, parents):
    """``members`` and their ancestors, every parent before its children."""
    order, seen = [], set()

    def visit(mb):
        if mb not in seen:
            seen.add(mb)
            if parents.get(mb) is not None:
                visit(parents[mb])
            order.append(mb)
    for mb in sorted(members):
        visit(mb)
    return order
