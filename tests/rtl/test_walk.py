"""Beat walks visit a tensor's banks row-major, beat by beat, and wrap; slot counters wrap."""
import pytest
from amaranth.hdl import Module, Signal
from amaranth.sim import Simulator

from hwgen.ir.graph import Tensor
from hwgen.ir.layout import banking
from hwgen.ir.types import R, S, int8
from hwgen.rtl.walk import BeatCount, BeatWalk, SlotCounter, sub_address
from hwgen.schedule.host_timing import lane_split


def _run(m, tb):
    sim = Simulator(m)
    sim.add_clock(1e-8)
    sim.add_testbench(tb)
    sim.run()


@pytest.mark.parametrize("layout,grid,lanes", [
    ([S(0), R], (2,), 1), ([S(0), R], (2,), 2), ([R, S(1)], (1, 3), 1), ([R, S(1)], (1, 3), 2),
    ([R, S(1)], (1, 3), 6)])
def test_walk_visits_every_beat_row_major_and_wraps(layout, grid, lanes):
    t = Tensor("A", int8[4, 6] @ layout)
    b = banking(t, grid)
    f, g = lane_split(b, t.shape, lanes)
    m = Module()
    go = Signal()
    walk = BeatWalk(m, b, f, g, "w")
    with m.If(go):
        walk.step()
    beats = 24 // lanes
    # beat k, lane l: element (row, col) of flat index k * lanes + l
    elem = [[divmod(k * lanes + l, 6) for l in range(lanes)] for k in range(beats)]
    seen = {q: set() for q in range(g)}        # banks each lane group wrote

    async def tb(ctx):
        for n in range(2 * beats + 1):
            k = n % beats
            for l, index in enumerate(elem[k]):
                assert ctx.get(walk.bank(l // f)) == b.bank(index), (k, l)
                seen[l // f].add(b.bank(index))
                assert ctx.get(walk.address) + l % f == b.address(index), (k, l)
            assert ctx.get(walk.last) == (k == beats - 1), k
            ctx.set(go, 1)
            await ctx.tick()
            if n == 3:                          # a cycle without a step: the walk holds
                ctx.set(go, 0)
                await ctx.tick()
                assert ctx.get(walk.address) == b.address(elem[(n + 1) % beats][0])

    _run(m, tb)
    # The banks a lane group can write, known at build time, are exactly those it wrote.
    assert seen == {q: walk.banks(q) for q in range(g)}


@pytest.mark.parametrize("slots", [1, 2, 3])
def test_slot_counter_counts_modulo_slots(slots):
    m = Module()
    adv = Signal()
    sc = SlotCounter(m, slots, "slot")
    with m.If(adv):
        sc.advance()
    seen = []

    async def tb(ctx):
        for n in range(2 * slots + 1):
            seen.append(ctx.get(sc.value))
            ctx.set(adv, n != 1)                # no advance on the second cycle
            await ctx.tick()

    _run(m, tb)
    advances = [n - (n >= 2) for n in range(2 * slots + 1)]
    assert seen == [a % slots for a in advances]


@pytest.mark.parametrize("f,depth", [(1, 1), (1, 6), (2, 3), (2, 4), (4, 5)])
def test_sub_address_divides_by_the_split(f, depth):
    m = Module()
    a = Signal(8)
    sub = sub_address(a, f, depth)
    assert len(sub) == (depth - 1).bit_length()

    async def tb(ctx):
        for addr in range(f * depth):
            ctx.set(a, addr)
            assert ctx.get(sub) == addr // f, addr

    sim = Simulator(m)
    sim.add_testbench(tb)
    sim.run()


def test_a_one_beat_walk_is_always_at_its_last_beat():
    t = Tensor("A", int8[1, 4] @ [R, R])
    m = Module()
    walk = BeatWalk(m, banking(t, ()), 4, 1, "w")
    walk.step()

    async def tb(ctx):
        for _ in range(3):
            assert ctx.get(walk.last) and ctx.get(walk.address) == 0
            await ctx.tick()

    _run(m, tb)


@pytest.mark.parametrize("beats", [1, 2, 3, 5])
def test_beat_count_flags_the_last_beat_and_the_one_before(beats):
    m = Module()
    count = BeatCount(m, beats, "n")
    count.step()

    async def tb(ctx):
        for n in range(3 * beats):
            k = n % beats
            assert ctx.get(count.last) == (k == beats - 1)
            assert ctx.get(count.penult) == (k == beats - 2)
            await ctx.tick()

    _run(m, tb)
