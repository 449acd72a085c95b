"""Host stream -> banked, multi-slot on-chip buffer read by the compute groups.

A tensor arriving in row-major order, ``lanes`` elements per beat, is written into one memory
bank per shard of its layout; compute groups read the banks through synchronous read ports.
Each bank holds ``slots`` problems: the host loads one while the groups read another. When a
beat puts several elements into one bank, that bank is split cyclically into ``F`` sub-banks
(element address ``a`` lives in sub-bank ``a % F`` at ``a // F``) so that every memory takes
one write per beat. The ``F`` sub-banks share every write and read address, so they are one
memory whose word holds an element of each, side by side (sub-bank ``s`` in bits
``s * bits``...): on ECP5 a word of eight int8 elements fills two DP16KD blocks, each
reading one element (``rtl.block_ram``), rather than 16 LUT-RAM cells per 16 entries.

A *resident* tensor (``ir.types.resident``: weights) is loaded once and read by every problem
that follows, until the host loads it again: its banks hold one copy, and the buffer either
serves problems or takes beats, never both (`InputBuffer._serve`).
"""
import functools
import operator

from amaranth.hdl import Cat, Const, Module, Mux, Signal, Value, unsigned
from amaranth.lib import memory, stream, wiring
from amaranth.lib.wiring import In, Out
from amaranth.utils import ceil_log2

from ..schedule.host_timing import (BANKS_PER_WRITE_COPY, INPUT_MID_STAGES, lane_split,
                                    slot_bits, write_copies)
from ..schedule.levels import READ_LATENCY
from ..schedule.memories import NARROW_ELEMENTS
from .arith import mux_tree, table
from .block_ram import DP16KDMemory, uses_dp16kd
from .replica import copies, copies_ahead, later
from .signatures import address, bank_port_name, bank_ports, shape_of
from .walk import BeatCount, BeatWalk, SlotCounter, sub_address


class InputBuffer(wiring.Component):
    """Host stream -> multi-slot banks.

    Parameters
    ----------
    tensor : ir.Tensor
    banking : ir.layout.Banking
        With rows padded to whole beats (``schedule.host_timing.padded``): the padding is stored
        and never read.
    readers : list of int
        The bank each read port ``rd<k>`` reads.
    lanes : int
        Elements per host beat; must fit the layout (``schedule.host_timing.lane_split``).
    slots : int
        Problems the banks hold at once (2: double buffering).
    target : str
        ``rtl.target.TARGETS``: on ``"ecp5"`` the banks ``schedule.memories.buffer_memory``
        puts in block RAM are ``rtl.block_ram.DP16KDMemory`` blocks whose output register is
        the read's data register.
    ahead : list of bool
        Per read port: its address and slot come one enabled cycle early
        (``schedule.ports.MemoryPort.ahead``); default none.
    resident : bool
        The tensor is resident: one copy, kept for every problem (``slot`` is not read);
        ``slots`` still bounds the problems in flight.

    Attributes
    ----------
    host : In(stream.Signature(unsigned(bits * lanes)))
        The tensor, row-major, element 0 of a beat in the low bits, two's complement.
    loaded : Out(1)
        The slot the next problem will use holds a complete problem.
    loaded_next : Out(1)
        The value ``loaded`` (a register) takes at the next clock edge (``rtl.top`` copies it
        beside the other blocks).
    start : In(1)
        Pulse: a problem starts on that slot.
    consume : In(1)
        Pulse: the oldest started problem is done reading; its slot may be reloaded.
    rd<k> : In(read_port)
        Reads slot ``rd<k>.slot``; ``data`` follows ``READ_LATENCY`` enabled cycles after
        ``addr`` (one more ``ahead``).
    """

    def __init__(self, tensor, banking, readers, lanes=1, slots=2, target="generic", ahead=(),
                 resident=False):
        self._tensor, self._banking, self._readers = tensor, banking, tuple(readers)
        self._resident = resident
        self._ahead = tuple(ahead) or (False,) * len(self._readers)
        if len(self._ahead) != len(self._readers):
            raise ValueError(f"{len(self._ahead)} ahead flags for {len(self._readers)} readers")
        self._lanes, self._slots, self._target = lanes, slots, target
        self._f, self._g = lane_split(banking, tensor.shape, lanes)
        if banking.extent[-1] % self._f:
            raise ValueError(f"lanes={lanes} needs the banking of '{tensor.name}' with rows padded "
                             "to whole beats (schedule.host_timing.padded)")
        shape = shape_of(tensor.dtype)
        members = {"host": In(stream.Signature(unsigned(tensor.dtype.bits * lanes))),
                   "loaded": Out(1), "loaded_next": Out(1), "start": In(1), "consume": In(1)}
        members.update(bank_ports("read", self._readers, banking, shape, slots))
        super().__init__(members)

    tensor = property(lambda self: self._tensor)
    banking = property(lambda self: self._banking)
    readers = property(lambda self: self._readers)
    lanes = property(lambda self: self._lanes)
    slots = property(lambda self: self._slots)
    ahead = property(lambda self: self._ahead)
    resident = property(lambda self: self._resident)

    def read_port(self, k):
        """The interface of read port ``k`` (``readers[k]`` is its bank)."""
        return getattr(self, bank_port_name("read", k))

    def elaborate(self, platform):
        m = Module()
        f = self._f
        shape = shape_of(self.tensor.dtype)
        sub_depth = self.banking.depth // f
        # The slot is the address MSBs: each slot is padded to a power of two.
        sb = 0 if self.resident else slot_bits(self.slots)
        entries = (1 << sb) << ceil_log2(sub_depth)
        word = unsigned(f * shape.width)
        mems = [self._memory(word, entries, self.readers.count(b))
                for b in range(self.banking.banks)]
        for b, mem in enumerate(mems):
            m.submodules[f"bank{b}"] = mem
        (self._serve if self.resident else self._load)(m, mems, sub_depth)
        for k, b in enumerate(self.readers):
            self._read(m, k, mems[b], sub_depth)
        return m

    def _memory(self, shape, entries, reads):
        element = self.tensor.dtype.bits
        if uses_dp16kd(entries, shape.width, reads, self._target, element):
            return DP16KDMemory(shape, entries, element)
        return memory.Memory(shape=shape, depth=entries, init=[])

    def _load(self, m, mems, sub_depth):
        """Take beats from the host, write them into the slot being loaded; count the held
        slots, track the fresh ones.

        The host's handshake meets only registers beside the port: ``take`` lands in one that
        counts the beats of a problem and the held slots, then in two that walk the banks
        (``_write``). A beat is taken only into a free slot, so the write never
        waits; no enable or handshake reaches the far side of the die in a cycle."""
        # held: slots holding a problem whose last beat has landed (maybe started, not yet
        # consumed); fresh: the slot holds a loaded problem that has not started.
        held, fresh = Signal(range(self.slots + 1)), Signal(self.slots)
        wr_slot, next_slot, free_slot = (SlotCounter(m, self.slots, n)
                                         for n in ("wr_slot", "next_slot", "free_slot"))
        walk = BeatWalk(m, self.banking, self._f, self._g, "ld")
        landed_beats = BeatCount(m, walk.beats, "host")
        ready = Signal(init=1)
        fresh_next = Signal(self.slots)
        counted, beat = self._take(m, mems, ready)
        m.d.comb += fresh_next.eq(fresh)
        with m.If(counted):
            landed_beats.step()
        written, written_slot = self._write(m, mems, walk, beat, wr_slot.value, sub_depth)
        with m.If(beat[0]):
            walk.step()
            with m.If(walk.last):
                wr_slot.advance()
        with m.If(written):
            m.d.comb += fresh_next.bit_select(written_slot, 1).eq(1)
        with m.If(self.start):
            m.d.comb += fresh_next.bit_select(next_slot.value, 1).eq(0)
            next_slot.advance()
        with m.If(self.consume):
            free_slot.advance()
        # ``ready`` and ``loaded`` are registers computed from the next state, so that the
        # host and start handshakes (rtl.top) begin at flip-flops. Slots fill and empty in
        # order, so the slot loaded next is free unless all are held: ``ready`` counts the
        # slots held once the landed beat and the beat offered now are in (the latter whenever
        # it is offered room, ``ready``, not ``take``: the host's ``valid`` then meets no path
        # back to ``ready``; if the host holds a last beat back, ``ready`` falls for one cycle
        # it need not).
        _count_held(m, held, ready, counted, landed_beats, self.consume, self.slots)
        m.d.comb += self.loaded_next.eq(fresh_next.bit_select(next_slot.following(self.start), 1))
        m.d.sync += [fresh.eq(fresh_next), self.loaded.eq(self.loaded_next)]

    def _take(self, m, mems, ready):
        """Take the host's beats while ``ready`` (a register); returns ``(counted, beat)``:
        a taken beat a cycle later, and two cycles later ``(landed, a copy of it, payload)``.

        ``take`` lands in one register beside the port, ``counted``, which counts the beats of
        a problem; a cycle later it lands again in two copies, one that steps the walk and one
        that decides the banks' write enables, each beside its loads. Counting the taken beat
        itself would make the handshake a loop through the valid pin's LUT (``ready`` ->
        ``take`` -> ``held`` -> ``ready``); copies of ``take`` itself would be drawn from the
        pin towards the walk, a long route after that LUT."""
        take = Signal()
        arrived = Signal.like(self.host.payload, reset_less=True, name="arrived")
        land = Signal.like(self.host.payload, reset_less=True, name="land")
        m.d.comb += [self.host.ready.eq(ready), take.eq(self.host.valid & ready)]
        m.d.sync += [arrived.eq(self.host.payload), land.eq(arrived)]
        target = self._target if len(mems) > 1 else "generic"
        counted, = copies(m, take, 1, "counted", target)
        landed, landed_en = copies(m, counted, 2, "landed", target)
        return counted, (landed, landed_en, land)

    def _serve(self, m, mems, sub_depth):
        """A resident tensor's control: the buffer either takes beats (``ready``) or serves
        problems (``loaded``), never both in one cycle, so no problem reads a copy being
        overwritten. Out of reset it takes beats; once the last beat of a load is written it
        serves; it takes beats again when the host offers one (seen a cycle before) while no
        problem is in flight and none starts. ``ready``, ``loaded`` and the count of problems
        in flight are registers."""
        walk = BeatWalk(m, self.banking, self._f, self._g, "ld")
        taken = BeatCount(m, walk.beats, "taken")
        ready, serving, offered = Signal(init=1), Signal(), Signal()
        in_flight = Signal(range(self.slots + 2))
        _, beat = self._take(m, mems, ready)
        written, _ = self._write(m, mems, walk, beat, Const(0, 0), sub_depth)
        with m.If(beat[0]):
            walk.step()
        last = self.host.valid & ready & taken.last        # the load's last beat is taken
        reload = serving & offered & (in_flight == 0) & ~self.start
        serving_next = Mux(serving, ~reload, written)
        m.d.comb += self.loaded_next.eq(serving_next)
        m.d.sync += [offered.eq(self.host.valid), serving.eq(serving_next),
                     self.loaded.eq(serving_next), ready.eq(Mux(ready, ~last, reload)),
                     in_flight.eq(in_flight + self.start - self.consume)]
        with m.If(self.host.valid & ready):
            taken.step()

    def _write(self, m, mems, walk, beat, wr_slot, sub_depth):
        """Write each landed beat (``beat``: its valid, a copy of it for the enables, its payload)
        ``LOAD_LATENCY - 2`` cycles later: its address, data and each bank's write enable are
        registered beside the counters that walk the banks, then ``INPUT_MID_STAGES`` times with
        no enable (the last two a tree of copies; a lane that writes one bank, a line of its own
        to it, not through copies placed for other banks), then per bank (``rtl.replica``), so
        that no register feeds every memory across the die. Returns ``(written,
        written_slot)``: the last beat of the problem loaded into ``written_slot`` is in its
        memory."""
        f, bits = self._f, self.tensor.dtype.bits
        landed, landed_en, land = beat
        ld_addr = Cat(sub_address(walk.address, f, sub_depth), wr_slot)
        w_addr = Signal(len(ld_addr), name="w_addr")
        w_data = Signal.like(land, reset_less=True, name="w_data")
        w_last = Signal()
        w_slot = Signal.like(wr_slot, name="w_slot")
        m.d.sync += [w_last.eq(landed & walk.last), w_slot.eq(wr_slot),
                     w_addr.eq(ld_addr), w_data.eq(land)]
        # The stages with no enable: a lane group that always writes the same bank (``B`` of
        # a ``gemm_os``: lane ``q`` -> bank ``q``) takes a line of its own to that bank; the
        # address and the other lane groups take a tree whose last copies each feed a few
        # neighbouring banks (``write_copies``). Then the copies per bank: the last beat is
        # written when its copy is.
        # One bank needs no copies (and no primitive flip-flops). A memory of DP16KD blocks
        # makes its own, one beside each block (``block_ram``: its write port is ahead).
        target = self._target if len(mems) > 1 else "generic"
        lane_bits = f * bits
        lanes = [w_data[q * lane_bits:(q + 1) * lane_bits] for q in range(self.lanes // f)]
        reached = [walk.banks(q) for q in range(len(lanes))]
        own = {q: min(banks) for q, banks in enumerate(reached) if len(banks) == 1}
        shared = [q for q in range(len(lanes)) if q not in own]
        mid = later(m, Cat(w_addr, *(lanes[q] for q in shared)), INPUT_MID_STAGES - 2, "w_mid")
        fan = copies_ahead(m, mid, write_copies(len(mems)), "w_fan", target, reset=False)
        lines = {q: later(m, lanes[q], INPUT_MID_STAGES, f"w_lane{q}") for q in own}
        written = later(m, w_last, INPUT_MID_STAGES + 1, "written")
        written_slot = later(m, w_slot, INPUT_MID_STAGES + 1, "written_slot")
        ports = {}
        for b, mem in enumerate(mems):
            tree = fan[b // BANKS_PER_WRITE_COPY]
            data = {q: tree[len(w_addr):].word_select(k, lane_bits) for k, q in enumerate(shared)}
            data |= {q: lines[q] for q, bank in own.items() if bank == b}
            addr_data = Cat(tree[:len(w_addr)], *data.values())
            if not isinstance(mem, DP16KDMemory):
                addr_data = copies(m, addr_data, 1, f"w_bank{b}", target, reset=False)[0]
            ports[b] = addr_data[:len(w_addr)], {
                q: addr_data[len(w_addr):].word_select(k, lane_bits) for k, q in enumerate(data)}
        # Lane group q's beat writes a word of the bank it falls in, one of ``walk.banks(q)``
        # (only those get a write port from it), under its enable (``_enables``), copied per
        # bank like the address and data.
        enables = self._enables(m, walk, landed_en, len(mems), target)
        for (q, b), en in enables.items():
            mem = mems[b]
            if not isinstance(mem, DP16KDMemory):
                en = copies(m, en, 1, f"w_en{q}_{b}_k", target)[0]
            addr, data = ports[b]
            wp = mem.write_port()
            m.d.comb += [wp.addr.eq(addr), wp.data.eq(data[q]), wp.en.eq(en)]
        return written, written_slot

    def _enables(self, m, walk, landed_en, banks, target):
        """``{(q, b): enable}``: lane group ``q`` writes bank ``b``, as ``_write``'s address and
        data reach the copy of the bank's group. Each is ``landed & (bank == b)`` computed a
        cycle ahead (one bit for every group that reaches a single bank), then carried across
        the die in a tree of copies of its own, which clear in reset: Yosys merges equal delay
        lines, so delaying one enable per bank alike would leave one register feeding all the
        banks of a lane group."""
        keys, terms = {}, {}
        for q in range(self.lanes // self._f):
            bank, reached = walk.bank(q), walk.banks(q)
            for b in sorted(reached):
                key = keys[q, b] = (q, b) if len(reached) > 1 else None
                terms.setdefault(key, landed_en & (bank == b) if key else landed_en)
        w_en = Signal(len(terms), name="w_en")
        m.d.sync += w_en.eq(Cat(*terms.values()))
        fan = copies_ahead(m, later(m, w_en, INPUT_MID_STAGES - 2, "w_en_mid"),
                           write_copies(banks), "w_en_fan", target)
        index = {key: k for k, key in enumerate(terms)}
        return {(q, b): fan[b // BANKS_PER_WRITE_COPY][index[key]]
                for (q, b), key in keys.items()}

    def _read(self, m, k, mem, sub_depth):
        """Read port ``k`` on its bank's memory ``mem``: data ``READ_LATENCY`` enabled cycles
        after the address (one more for a port ``ahead``, whose address the buffer registers
        first: in DP16KD blocks, a copy beside each block, ``block_ram``).

        Four stages (``schedule.READ_LATENCY``): the memory's read, a data register (a
        DP16KD's output register), and two registers, the last of which the data crosses to
        the PEs from. A word of sub-banks is narrowed to the element read between them: in
        DP16KD blocks, each group of blocks narrows its own elements into a register beside it
        (an and-or under one-hot selects, ``rd<k>_hit<s>``, each beside its block), and the
        last register ors the groups, so that no wide and-or spans all of a bank's blocks
        after a register of the whole word; elsewhere a mux tree picks it. The select follows
        the data."""
        f, port, ahead = self._f, self.read_port(k), self._ahead[k]
        # A module of its own: the read ports of a buffer are alike, so the Verilog holds one
        # module of them (``rtl.kinds``).
        m.submodules[f"rd{k}"] = m = Module()
        addr, en = address(port), port.en
        sub_addr = Cat(sub_address(addr, f, sub_depth), *([] if self.resident else [port.slot]))
        in_block = isinstance(mem, DP16KDMemory)
        rp = mem.read_port(ahead=ahead) if in_block else mem.read_port()
        if ahead and not in_block:
            sub_addr = _stage(m, en, sub_addr, f"rd{k}_addr")
        # The memory's data (a DP16KD's output register, else the read port's) is ``stage``
        # enabled cycles after the address, ``sel`` the sub-bank there.
        stage, sel = 2 if in_block else 1, addr[:ceil_log2(f)]
        narrow = in_block and mem.narrow
        m.d.comb += [rp.en.eq(en), rp.addr.eq(sub_addr)]
        if narrow:
            m.d.comb += rp.sel.eq(sel)
        if ahead:
            sel = _stage(m, en, sel, f"rd{k}_sel") if f > 1 else sel
        width = shape_of(self.tensor.dtype).width
        data = rp.data[:width]
        if f > 1 and in_block:
            for n in range(stage - 1):
                sel = _stage(m, en, sel, f"rd{k}_sub{n}")
            # Each column's elements under one-hot selects: a narrow memory's blocks have
            # read their element, a column's hit is its own.
            columns = [[c] if narrow else elements for c, elements in enumerate(mem.columns)]
            datas = [rp.data.word_select(s, width) for s in range(len(rp.data) // width)]
            hits = [Signal(name=f"rd{k}_hit{s}") for s in range(len(datas))]
            with m.If(en):
                m.d.sync += [h.eq(sel[ceil_log2(NARROW_ELEMENTS):] == s if narrow else sel == s)
                             for s, h in enumerate(hits)]
            parts = [_stage(m, en, functools.reduce(operator.or_, (
                datas[s] & hits[s].replicate(width) for s in elements)), f"rd{k}_part{c}")
                for c, elements in enumerate(columns)]
            data, stage = functools.reduce(operator.or_, parts), stage + 1
        elif f > 1:
            for n in range(stage):
                sel = _stage(m, en, sel, f"rd{k}_sub{n}")
            data = mux_tree([rp.data.word_select(s, width) for s in range(f)], sel)
        for n in range(READ_LATENCY - stage):
            data = _stage(m, en, data, f"rd{k}_q{n}", shape_of(self.tensor.dtype))
        m.d.comb += port.data.eq(data)


def _count_held(m, held, ready, counted, landed_beats, consume, slots):
    """``held`` and ``ready`` (``InputBuffer._load``) at the next clock edge, as tables of
    registers (a LUT level each), not adders with their carry chains."""
    beats = landed_beats.beats

    def held_after(h, counted, last, penult, consume, r):
        return h + (counted & last) - consume

    def ready_after(h, counted, last, penult, consume, r):
        offered_last = ((beats == 1) if last else penult) if counted else last
        return held_after(h, counted, last, penult, consume, r) + (r & offered_last) < slots
    state = (held, counted, landed_beats.last, landed_beats.penult, consume, ready)
    m.d.sync += [held.eq(table(held_after, *state, width=len(held))),
                 ready.eq(table(ready_after, *state, width=1))]


def _stage(m, en, value, name, shape=None):
    """``value`` one enabled cycle later, in a reset-less register named ``name``."""
    reg = Signal(Value.cast(value).shape() if shape is None else shape, reset_less=True,
                 name=name)
    with m.If(en):
        m.d.sync += reg.eq(value)
    return reg
