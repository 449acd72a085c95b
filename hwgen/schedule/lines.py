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
