"""Counters that walk a tensor's banks the way the host sends it: row-major, one beat at a
time, and a slot counter numbering the problems a buffer holds."""
import itertools
import math

import numpy as np

from amaranth.hdl import Cat, Const, Mux, Signal, Value
from amaranth.utils import ceil_log2

from .arith import mul_const


def sub_address(address, f, depth):
    """``address // f`` in exactly the bits a sub-bank of ``depth`` entries needs."""
    return (Value.cast(address) >> ceil_log2(f))[:ceil_log2(depth)]


class SlotCounter:
    """A slot number counting modulo ``slots``."""

    def __init__(self, m, slots, name):
        self.m, self.slots = m, slots
        self.value = Signal(range(max(2, slots)), name=name)

    def advance(self):
        """Count to the next slot at the next clock edge (inside the caller's conditions)."""
        self.m.d.sync += self.value.eq(self._after())

    def following(self, advance):
        """The value after this cycle's edge, when the counter advances iff ``advance``."""
        return Mux(advance, self._after(), self.value)

    def _after(self):
        v = self.value
        return Mux(v == self.slots - 1, 0, v + 1)


class BeatCount:
    """The beats of a problem counted down: ``last`` (this beat is the problem's last) and
    ``penult`` (the next one is) are registers."""

    def __init__(self, m, beats, name):
        self.m, self.beats = m, beats
        self.left = Signal(range(beats), init=beats - 1, name=f"{name}_left")
        self.last = Signal(init=beats == 1, name=f"{name}_last")
        self.penult = Signal(init=beats == 2, name=f"{name}_penult")

    def step(self):
        """Count one beat at the next clock edge (inside the caller's conditions)."""
        self.m.d.sync += [self.left.eq(Mux(self.last, self.beats - 1, self.left - 1)),
                          self.last.eq(Mux(self.last, self.beats == 1, self.penult)),
                          self.penult.eq(Mux(self.last, self.beats == 2, self.left == 2))]


class BeatWalk:
    """Counters walking a tensor in row-major order one beat at a time: per dimension the shard
    index and the offset inside the shard (the shard counting first in a cyclic dimension);
    the innermost dimension steps by ``F`` elements and ``G`` shards per beat."""

    def __init__(self, m, banking, f, g, name):
        self.m, self.banking, self.f, self.g = m, banking, f, g
        self.offset = [Signal(range(e), name=f"{name}_o{d}") for d, e in enumerate(banking.extent)]
        self.shard = [Signal(range(s), name=f"{name}_s{d}") for d, s in enumerate(banking.shards)]
        n = len(self.offset)
        steps = [(1, 1)] * (n - 1) + [(f, g)]
        self.wraps = []
        for d in range(n):
            o, s = self.offset[d], self.shard[d]
            fo, gs = steps[d]
            self.wraps.append((o == banking.extent[d] - fo, s == banking.shards[d] - gs, fo, gs))
        self.beats = math.prod((e // fo) * (s // gs) for e, s, (fo, gs)
                               in zip(banking.extent, banking.shards, steps))
        self.count = BeatCount(m, self.beats, name)
        self.last = self.count.last

    def bank(self, lane_bank=0):
        """The bank of the beat's first element (plus ``lane_bank`` along the innermost
        dimension)."""
        return self._flat(self.shard[:-1] + [self.shard[-1] + lane_bank], self.banking.shards)

    def banks(self, lane_bank=0):
        """Every bank ``bank(lane_bank)`` can be, known when the hardware is built: any outer
        shard, the innermost one of ``lane_bank`` plus the multiples of ``G`` the beats start
        at (``G`` shards per beat: lane group ``q`` of a beat as wide as a row always writes
        the same bank)."""
        sizes = self.banking.shards
        inner = range(lane_bank, sizes[-1], self.g)
        outer = itertools.product(*(range(n) for n in sizes[:-1]))
        return {int(np.ravel_multi_index(o + (s,), sizes)) for o in outer for s in inner}

    def row(self):
        """The row of the beat's bank: its index with the innermost shard dimension dropped
        (``rtl.output_banks``' shared rows)."""
        return self._flat(self.shard[:-1], self.banking.shards[:-1])

    @staticmethod
    def _flat(shards, sizes):
        b = Const(0)
        for s, n in zip(shards, sizes):
            b = mul_const(b, n) + s if n > 1 else b
        return b

    @property
    def address(self):
        """Address inside the bank of the beat's first element for that bank."""
        a = Const(0)
        for o, stride in zip(self.offset, self.banking.strides()):
            a = a + mul_const(o, stride)
        return a

    def step(self):
        self.count.step()
        carry = Const(1)
        for d in reversed(range(len(self.offset))):
            o, s = self.offset[d], self.shard[d]
            o_wrap, s_wrap, fo, gs = self.wraps[d]
            if self.banking.is_cyclic(d):      # index offset * shards + shard: shard inner
                (o, o_wrap, fo), (s, s_wrap, gs) = (s, s_wrap, gs), (o, o_wrap, fo)
            with self.m.If(carry):
                self.m.d.sync += o.eq(Mux(o_wrap, 0, o + fo))
                with self.m.If(o_wrap):
                    self.m.d.sync += s.eq(Mux(s_wrap, 0, s + gs))
            carry = carry & o_wrap & s_wrap
