"""Delay lines and pipelines: taps and pipes delay by enabled cycles and hold while disabled."""
from amaranth.hdl import ClockDomain, Module, Signal
from amaranth.sim import Simulator

from hwgen.ir.graph import Pred
from hwgen.rtl.delay import DelayLines, Pipes, copy_line
from hwgen.schedule.lines import FINISH, SLOT, Line, copy_spans, takes_shared

ENABLES = [1, 1, 1, 0, 0, 1, 0, 1, 1, 1, 0, 1, 1, 1]


def _build():
    m = Module()
    en, idx, flag, v = Signal(), Signal(8), Signal(), Signal(8)
    lines, pipe = DelayLines(m, en), Pipes(m, en)
    lines.define(Line.index(0), idx)
    lines.define(Line.index(0), flag)          # the first definition stands
    lines.define(FINISH, flag)
    taps = {k: lines.tap(Line.index(0), k) for k in range(4)}
    fin = lines.tap(FINISH, 2)
    pipes = {to: pipe.delay(v, 1, to) for to in (1, 2, 4)}
    lines.emit()
    return m, lines, pipe, en, idx, flag, v, taps, fin, pipes


def test_taps_and_pipes_delay_by_enabled_cycles_only():
    m, lines, pipe, en, idx, flag, v, taps, fin, pipes = _build()
    assert taps[0] is idx and pipes[1] is v
    assert pipe.delay(v, 1, 4, "again") is pipes[4]     # the same value piped twice shares
    before = len(pipe.pipes)
    pipe.delay(v, 1, 3, "again")
    assert len(pipe.pipes) == before == 3               # levels 2, 3, 4: no new registers
    hist_idx, hist_flag, hist_v = [], [], []            # base values at enabled ticks

    def delayed(hist, k):
        return hist[-k] if len(hist) >= k else 0

    async def tb(ctx):
        for n, e in enumerate(ENABLES):
            ctx.set(en, e)
            ctx.set(idx, 10 + n)
            ctx.set(v, 100 + n)
            ctx.set(flag, n % 3 == 0)
            for k in range(4):
                assert ctx.get(taps[k]) == (10 + n if k == 0 else delayed(hist_idx, k)), (n, k)
            assert ctx.get(fin) == delayed(hist_flag, 2), n
            assert ctx.get(pipes[2]) == delayed(hist_v, 1), n
            assert ctx.get(pipes[4]) == delayed(hist_v, 3), n
            await ctx.tick()
            if e:
                hist_idx.append(10 + n)
                hist_flag.append(int(n % 3 == 0))
                hist_v.append(100 + n)

    sim = Simulator(m)
    sim.add_clock(1e-8)
    sim.add_testbench(tb)
    sim.run()


def test_flag_lines_reset_and_index_and_slot_lines_do_not():
    m = Module()
    m.domains.sync = cd = ClockDomain()
    en = Signal()
    lines = DelayLines(m, en)
    cond = Line.cond(1, (Pred("last", 0),))
    bases = {Line.index(0): Signal(4), SLOT: Signal(2), FINISH: Signal(), cond: Signal()}
    for line, base in bases.items():
        lines.define(line, base)
    regs = {line: [lines.tap(line, k) for k in (1, 2)] for line in bases}
    piped = Pipes(m, en).delay(bases[Line.index(0)], 0, 1, "p")
    lines.emit()
    for line in (Line.index(0), SLOT):
        assert all(r.reset_less for r in regs[line]), line
    for line in (FINISH, cond):
        assert not any(r.reset_less for r in regs[line]), line
    assert piped.reset_less

    async def tb(ctx):
        ctx.set(en, 1)
        for base in bases.values():
            ctx.set(base, 1)
        await ctx.tick().repeat(2)
        assert all(ctx.get(r) == 1 for rs in regs.values() for r in rs)
        ctx.set(cd.rst, 1)
        await ctx.tick()
        for line, rs in regs.items():
            assert [ctx.get(r) for r in rs] == ([1, 1] if line.datapath else [0, 0]), line

    sim = Simulator(m)
    sim.add_clock(1e-8)
    sim.add_testbench(tb)
    sim.run()


def test_members_copies_delay_as_the_shared_line_and_come_from_their_parents():
    """A chain a -> b -> c (c's parent b, b's parent a) and a member d with no parent: every
    tap equals the line at its delay; a and d tap the shared line, b starts its copy from it,
    c from b's copy."""
    m = Module()
    en, idx = Signal(), Signal(8)
    lines = DelayLines(m, en)
    line = Line.index(0)
    lines.define(line, idx)
    parents = {"b": "a", "c": "b"}
    spans = copy_spans({"b": {4}, "c": {3, 6}}, parents)
    # c starts at 3, so b's copy runs from 2 (taken from the shared line: a keeps no copy).
    assert spans == {"b": (2, 4), "c": (3, 6)}
    assert takes_shared("b", spans["b"], parents) and not takes_shared("c", spans["c"], parents)
    b = copy_line(m, line, "b", idx.shape(), spans["b"], lines.tap(line, 2), True, en)
    c = copy_line(m, line, "c", idx.shape(), spans["c"], b[2], False, en)
    assert lines.tap(line, 0) is idx and b[2] is not lines.tap(line, 2)
    taps = {("a", 1): lines.tap(line, 1), ("a", 3): lines.tap(line, 3), ("b", 4): b[4],
            ("c", 3): c[3], ("c", 6): c[6], ("d", 2): lines.tap(line, 2)}
    lines.emit()
    hist = []

    async def tb(ctx):
        for n, e in enumerate(ENABLES):
            ctx.set(en, e)
            ctx.set(idx, 10 + n)
            for (mb, k), sig in taps.items():
                assert ctx.get(sig) == (hist[-k] if len(hist) >= k else 0), (n, mb, k)
            await ctx.tick()
            if e:
                hist.append(10 + n)

    sim = Simulator(m)
    sim.add_clock(1e-8)
    sim.add_testbench(tb)
    sim.run()
