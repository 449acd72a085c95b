"""Loops in sequence inside a loop body (lang.phases): a collection loop runs on the first pass
of the loop after it, exactly as the hand-written form (same cycles, same values, in the
interpreter and in hardware), and only where the order cannot matter; other phases line up
at their innermost loops where that pads less."""
import numpy as np
import pytest

from hwgen import HwgenError
from hwgen.check.reference import call_reference
from hwgen.ir.interp import run
from hwgen.pipeline import load_design, load_module
from hwgen.rtl.simhelpers import run_top
from hwgen.rtl.top import Top
from hwgen.schedule import plan
from tests.conftest import program, random_inputs

NATURAL = open(program("collected_layer")).read()
COLLECT = "                for i in range(H):\n                    x[i] = h.get()\n"
BY_HAND = NATURAL.replace(COLLECT, "").replace(
    "                        acc += W2[o, i] * x[i]",
    "                        if o == 0:\n                            x[i] = h.get()\n"
    "                        acc += W2[o, i] * x[i]")


def _interval(tmp_path, text, params=None, name="variant"):
    path = tmp_path / f"{name}.py"
    path.write_text(text)
    return plan(load_design(str(path), params)).interval_cycles


def test_the_natural_layer_takes_the_cycles_of_the_hand_folded_one(tmp_path, recwarn):
    assert BY_HAND != NATURAL and COLLECT in NATURAL
    natural = _interval(tmp_path, NATURAL, name="natural")
    assert natural == _interval(tmp_path, BY_HAND, name="by_hand") == 5136     # B=8, H=64
    assert not [w for w in recwarn if "phases in this loop" in str(w.message)]


@pytest.mark.parametrize("name,sizes", [
    ("collected_layer", {"B": 2, "H": 5, "N2": 3}),
    ("collected_layer", {"B": 1, "H": 17, "N2": 1}),
    ("collected_layer", {"B": 3, "H": 1, "N2": 4}),
    # phases lined up at the innermost loop: the collection beside the output loops' inner one
    ("padded_phases", {"B": 2, "H": 5, "N2": 3}), ("padded_phases", {"B": 1, "H": 17, "N2": 2})])
def test_collections_and_phases_equal_numpy_in_hardware(name, sizes):
    path = program(name)
    module, graph = load_module(path), load_design(path, sizes)
    problems = [random_inputs(graph, seed, extreme=(seed == 0)) for seed in range(3)]
    top = Top(plan(graph))
    outs, cycles, done = run_top(top, problems)
    assert cycles[0] == top.expected_cycles
    assert list(np.diff(done)) == [top.interval_cycles] * 2
    slow, _, _ = run_top(top, problems, in_gap=0.4, out_gap=0.5, seed=3)
    for p, inputs in enumerate(problems):
        want = call_reference(module.reference, graph, inputs)["Y"]
        assert np.array_equal(run(graph, inputs)["Y"], want)
        assert np.array_equal(outs[p]["Y"], want) and np.array_equal(slow[p]["Y"], want)


@pytest.mark.parametrize("change", [
    # an element read before the pass fills it
    ("acc += W2[o, i] * x[i]", "acc += W2[o, i] * x[H - 1 - i]"),
    # two iterations fill one element: the first read would see the earlier value
    ("x[i] = h.get()", "x[i // 2] = h.get()"),
    # a put inside the pass would move between the gets
    ("acc += W2[o, i] * x[i]", "acc += W2[o, i] * x[i]\n                        g.put(acc)"),
    # the output loop's inner loop is shorter than the collection
    ("acc: int32 = 0\n                    for i in range(H):",
     "acc: int32 = 0\n                    for i in range(H - 1):"),
])
def test_a_collection_whose_order_matters_stays_a_phase(tmp_path, change):
    old, new = change
    assert old in NATURAL
    text = NATURAL.replace(old, new)
    if "g.put" in new:
        text = text.replace("        h = Stream[int8, 64]\n",
                            "        h = Stream[int8, 64]\n        g = Stream[int32, 4]\n")
        text = text.replace("    return seq", "        @hwgen.task\n        def sink():\n"
                            "            for _ in range(B * N2 * H):\n                g.get()\n\n"
                            "    return seq")
    assert _interval(tmp_path, text) > 5136


def test_an_array_beyond_registers_stays_a_phase(tmp_path):
    """300 elements, filled and read on one iteration, would have to be registers: written by
    hand so, it is refused; left to lowering, it stays a phase and builds."""
    params = {"B": 1, "H": 300, "N2": 2}
    assert _interval(tmp_path, NATURAL, params) >= 2 * 2 * 300
    with pytest.raises(HwgenError, match="more than 256 elements"):
        _interval(tmp_path, BY_HAND, params, name="by_hand")
