"""A task's local array (``buf: int8[N]``) in hardware: registers or a memory.

Small arrays (``ir.layout.memory_arrays``) are registers read combinationally through a
mux tree; larger ones a memory whose read ports are transparent to its one write port, read
address one level before the data. A read-only table (``Instance.contents``) is a memory
initialised with its elements and no write port: block RAM or LUTs holding the values.
"""
import math

from amaranth.hdl import Const, Mux, Signal
from amaranth.lib import memory

from .arith import mul_const, mux_tree
from .signatures import shape_of


class LocalArray:
    """A task's local array: registers (combinational read through a mux tree) or, when large,
    a memory whose read ports are transparent to its one write port (read address one level
    before the data). Writes from several statements share the write port: their conditions
    never hold in the same cycle, since one iteration is at a given level at a time."""

    def __init__(self, m, name, ttype, en, in_memory, contents=None):
        self.m, self.name, self.ttype, self.en = m, name, ttype, en
        self.size = math.prod(ttype.shape)
        self.writes = []
        shape = shape_of(ttype.dtype)
        if in_memory:
            self.latency = 1
            self.mem = memory.Memory(shape=shape, depth=self.size, init=contents or [])
            m.submodules[name] = self.mem
            self.wp = self.mem.write_port() if contents is None else None
        else:
            self.latency = 0
            self.regs = [Signal(shape, reset_less=True, name=f"{name}_{k}")
                         for k in range(self.size)]

    def address(self, parts):
        """Row-major flat address from index parts (ints or values)."""
        addr, stride = 0, 1
        for p, n in zip(reversed(parts), reversed(self.ttype.shape)):
            addr = addr + (p * stride if isinstance(p, int) else mul_const(p, stride))
            stride *= n
        if isinstance(addr, int):
            return addr
        a = Signal(range(self.size), name=f"{self.name}_addr")
        self.m.d.comb += a.eq(addr)
        return a

    def read(self, addr):
        """The element at ``addr``: combinational for registers, a cycle later for a memory."""
        if self.latency == 0:
            return self.regs[addr] if isinstance(addr, int) else mux_tree(self.regs, addr)
        rp = self.mem.read_port(transparent_for=() if self.wp is None else (self.wp,))
        self.m.d.comb += [rp.addr.eq(addr), rp.en.eq(self.en)]
        return rp.data

    def write(self, cond, addr, data):
        """Write ``data`` at ``addr`` when ``cond`` and the group's enable hold."""
        if self.latency == 0:
            for k, r in enumerate(self.regs):
                hit = cond if isinstance(addr, int) else cond & (addr == k)
                if isinstance(addr, int) and addr != k:
                    continue
                with self.m.If(self.en & hit):
                    self.m.d.sync += r.eq(data)
        else:
            self.writes.append((cond, addr, data))

    def finish(self):
        """Drive the memory's write port from every write statement."""
        if self.latency == 0 or self.wp is None:
            return
        en, addr, data = Const(0), Const(0), Const(0)
        for c, a, d in self.writes:
            en, addr, data = en | c, Mux(c, a, addr), Mux(c, d, data)
        self.m.d.comb += [self.wp.en.eq(en & self.en), self.wp.addr.eq(addr),
                          self.wp.data.eq(data)]
