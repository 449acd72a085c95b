"""A group's controller: one iteration per enabled cycle in row-major order, accept/finish, slots
and condition flags, simulated against a model built from the group's structure."""
import itertools
from types import SimpleNamespace

import pytest
from amaranth.hdl import Module, Signal
from amaranth.sim import Simulator

from hwgen.ir.graph import Pred, pred_holds
from hwgen.rtl.controller import FINISH_AHEAD, Controller
from hwgen.rtl.delay import DelayLines
from hwgen.schedule.groups import Group

PREDS = [(), (Pred("first", 0),), (Pred("last", 0),), (Pred("first", 1),), (Pred("last", 1),),
         (Pred("first", 0), Pred("last", 1))]


def _build(structure, taps, spacing, slots=3, announces=False):
    iterations = sum(len(list(itertools.product(*map(range, t)))) for t in structure)
    group = Group("g0", ["a"], {"a": 0}, structure=structure, iterations=iterations, taps=taps)
    m = Module()
    # The component's side of the controller: its group, the plan's slots, the spacing, the
    # handshake ports (``finished_ahead`` if it ``announces_finish``: it never stalls); the
    # enable.
    ports = SimpleNamespace(scheduled=group, plan=SimpleNamespace(slots=slots), spacing=spacing,
                            en=Signal(), start=Signal(), accept=Signal(), finished=Signal(),
                            announces_finish=announces, finished_ahead=Signal(),
                            accept_next=Signal())
    lines = DelayLines(m, ports.en)
    ctl = Controller(m, ports, lines, ports.en)
    conds = {(gi, p): lines.tap(ctl.cond(gi, p), 0) for gi, t in enumerate(structure)
             for p in PREDS if all(q.depth < len(t) for q in p)}
    lines.emit()
    return m, group, ports, ctl, conds


def _space(structure):
    """(segment, indices) of every iteration in order."""
    return [(gi, idx) for gi, t in enumerate(structure)
            for idx in itertools.product(*map(range, t))]


def _run(m, tb):
    sim = Simulator(m)
    sim.add_clock(1e-8)
    sim.add_testbench(tb)
    sim.run()


@pytest.mark.parametrize("structure,taps", [(((2, 3),), 2), (((2,), (3,)), 0), (((2, 2), (3,)), 3)])
def test_one_problem_walks_the_iteration_space_and_holds_while_disabled(structure, taps):
    spacing = 7
    m, group, ports, ctl, conds = _build(structure, taps, spacing)
    enables = [1, 1, 0, 1, 0, 0, 1, 1, 1, 0, 1] + [1] * 12
    seen, finished, accept = [], [], []

    async def tb(ctx):
        ctx.set(ports.start, 1)
        await ctx.tick()
        ctx.set(ports.start, 0)
        prev = None
        for e in enables:
            ctx.set(ports.en, e)
            state = (ctx.get(ctl.valid0), ctx.get(ctl.seg), tuple(ctx.get(i) for i in ctl.idx))
            if prev is not None and not prev[0]:
                assert state == prev[1], "the controller moved while disabled"
            if e:
                valid, seg, idx = state
                t = structure[seg] if seg < len(structure) else ()
                if valid:
                    seen.append((seg, idx[:len(t)]))
                for (gi, p), sig in conds.items():
                    want = valid and seg == gi and pred_holds(p, idx, t)
                    assert ctx.get(sig) == want, (gi, p, seg, idx)
                finished.append(ctx.get(ports.finished))
                accept.append(ctx.get(ports.accept))
            else:
                assert not ctx.get(ports.finished) and not ctx.get(ports.accept)
            prev = (e, state)
            await ctx.tick()
        assert ctx.get(ctl.slot) == 0

    _run(m, tb)
    assert seen == _space(structure)                # one iteration per enabled cycle, in order
    n = group.iterations
    assert finished == [int(k == n - 1 + taps) for k in range(len(finished))]
    assert accept == [0] * (spacing - 1) + [1] * (len(accept) - spacing + 1)


def test_back_to_back_problems_advance_the_slot_and_finish_each():
    structure, taps, slots = ((2,), (2, 2)), FINISH_AHEAD, 3
    spacing = 6                                     # the iterations: a start on the last one
    m, group, ports, ctl, _ = _build(structure, taps, spacing, slots, announces=True)
    starts, slots_seen, valid, finished, ahead, seen = [], [], [], [], [], []
    accept, accept_next = [], []

    async def tb(ctx):
        ctx.set(ports.en, 1)
        for cycle in range(4 * spacing + taps + 2):
            start = ctx.get(ports.accept) and len(starts) < 4
            ctx.set(ports.start, start)
            if start:
                starts.append(cycle)
            accept.append(ctx.get(ports.accept))
            accept_next.append(ctx.get(ports.accept_next))
            valid.append(ctx.get(ctl.valid0))
            if valid[-1]:
                seg = ctx.get(ctl.seg)
                seen.append((seg, tuple(ctx.get(i) for i in ctl.idx)[:len(structure[seg])]))
            finished.append(ctx.get(ports.finished))
            ahead.append(ctx.get(ports.finished_ahead))
            await ctx.tick()
            if start:
                slots_seen.append(ctx.get(ctl.slot))

    _run(m, tb)
    assert starts == [0, 6, 12, 18]
    assert slots_seen == [0, 1, 2, 0]               # modulo slots, one per start
    assert valid == [0] + [1] * 24 + [0] * (len(valid) - 25)
    assert seen == _space(structure) * 4            # every problem walks its whole space
    assert [k for k, f in enumerate(finished) if f] == [s + 6 + taps for s in starts]
    assert ahead[:-FINISH_AHEAD] == finished[FINISH_AHEAD:]      # announced that far ahead
    assert accept_next[:-1] == accept[1:]           # what rtl.top copies beside the buffers


def test_a_single_slot_stays_zero():
    m, _, ports, ctl, _ = _build(((2,),), 0, 2, slots=1)

    async def tb(ctx):
        ctx.set(ports.en, 1)
        for _ in range(3):
            ctx.set(ports.start, 1)
            await ctx.tick()
            ctx.set(ports.start, 0)
            assert ctx.get(ctl.slot) == 0
            await ctx.tick()

    _run(m, tb)


def test_a_spacing_below_the_iterations_is_refused():
    with pytest.raises(ValueError, match="shorter than its 6 iterations"):
        _build(((2, 3),), 2, spacing=5)
