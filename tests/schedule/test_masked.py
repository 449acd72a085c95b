"""Closed streams in hardware (``schedule.masked``): a slot per possible put and one for the
close, the consumer's ``for v in s:`` once per slot; equal to the interpreter's dynamic run,
in the interpreter and in cocotb with random back-pressure, at exact cycles."""
import numpy as np
import pytest

from hwgen import HwgenError
from hwgen.check.reference import call_reference
from hwgen.flow.simulate import simulate, summary
from hwgen.ir.interp import run
from hwgen.pipeline import load_design, load_module
from hwgen.schedule import plan
from hwgen.schedule.masked import masked
from tests.check.test_closed_streams import CONSUMER, DYNAMIC, PRODUCER, marked, source, write
from tests.conftest import example, program, random_inputs

BUILT = [("stream_filter", {"N": 16}), ("stream_filter", {"N": 97}), ("top_k", {"N": 16}),
         ("top_k", {"N": 33}), ("histogram", {"N": 16, "B": 8}), ("histogram", {"N": 97, "B": 5})]


def test_a_graph_without_closed_streams_is_left_as_it_is():
    graph = load_design(example("gemm_os"), {"M": 2, "N": 3, "K": 4})
    assert masked(graph) is graph


@pytest.mark.parametrize("name,params", BUILT)
def test_slots_compute_what_the_dynamic_program_does(name, params):
    """Empty streams (every element filtered out), full ones (every element passed) and
    random ones, in the interpreter: the slotted graph equals the program and its numpy
    reference."""
    path = f"{DYNAMIC}/{name}.py"
    module, graph = load_module(path), load_design(path, params)
    slotted = masked(graph)
    assert all(c.bound is None for c in slotted.channels.values())
    x = graph.tensors["X"].dtype
    for inputs in [{"X": np.full(params["N"], v)} for v in (x.min, x.max, 0, 2)] + \
            [random_inputs(graph, seed) for seed in range(4)]:
        want = call_reference(module.reference, graph, inputs)
        for got in (run(graph, inputs), run(slotted, inputs)):
            assert all(np.array_equal(got[k], want[k]) for k in want), inputs


@pytest.mark.parametrize("sim,path,params", [
    ("icarus", f"{DYNAMIC}/{name}.py", params) for name, params in BUILT] + [
    ("verilator", f"{DYNAMIC}/top_k.py", {"N": 33}),
    ("icarus", program("while_scan"), {"M": 150})])
def test_cocotb_with_random_back_pressure(tmp_path, sim, path, params):
    """Problem 0 is all-minimum: an empty stream for the filter, a full one for top-k and the
    histogram (every value updating one element of its register array), a ``while`` that
    runs no iteration."""
    graph = load_design(path, params)
    result = simulate(graph, tmp_path, sim=sim, problems=3)
    text = "\n".join(summary(result))
    assert result["failed"] == 0 and result["total"] == 2, text
    tests = result["tests"]
    assert tests["no_stall"]["cycles"][0] == result["design"].expected_cycles, text
    assert tests["no_stall"]["intervals"] == [result["design"].interval_cycles] * 2, text


@pytest.mark.parametrize("consumer,words", [
    ("total: int32 = 0\nwhile hwgen.bounded(s.more(), max_iterations=N):  # LINE\n"
     "    total += s.get()\nY[0] = total\n",
     "hardware builds a loop over a closed stream as `for v in s:` (each value taken "
     "first)"),
    ("total: int32 = 0\nfor v in s:  # LINE\n    if v > 3:\n        break\n    total += v\n"
     "Y[0] = total\n", "as `for v in s:` without `break` or `continue` yet"),
    ("total: int32 = 0\nfor v in s:\n    total += v\n    Y[0] = total  # LINE\n",
     "hardware writes tensors after a loop whose count depends on data, not inside it yet"),
])
def test_what_hardware_does_not_build_yet_is_refused_at_the_line(tmp_path, consumer, words):
    text = source(PRODUCER, consumer)
    graph = load_design(write(tmp_path, text))
    run(graph, {"X": np.arange(8) - 4})         # the interpreter runs each
    with pytest.raises(HwgenError) as e:
        plan(graph)
    assert words in str(e.value)
    assert e.value.loc[1] == marked(text), str(e.value)


@pytest.mark.parametrize("params", [{"N": 9}, {"N": 1}])
def test_a_closed_stream_fed_from_a_loop_over_another(tmp_path, params):
    """The second stream has a slot per slot of the first; interpreter and Icarus agree with
    numpy at exact cycles."""
    path = program("closed_chain")
    graph = load_design(path, params)
    reference = load_module(path).reference
    for seed in range(4):
        inputs = random_inputs(graph, seed, extreme=seed == 0)
        assert np.array_equal(run(masked(graph), inputs)["Y"], reference(**inputs)["Y"])
    result = simulate(graph, tmp_path, sim="icarus", problems=3)
    text = "\n".join(summary(result))
    assert result["failed"] == 0 and result["total"] == 2, text
    assert result["tests"]["no_stall"]["cycles"][0] == result["design"].expected_cycles, text


def test_a_get_on_a_closed_stream_outside_its_loop_is_refused(tmp_path):
    text = source(PRODUCER, "first: int32 = s.get()  # LINE\n" + CONSUMER.replace(
        "total: int32 = 0", "total: int32 = first"))
    with pytest.raises(HwgenError) as e:
        plan(load_design(write(tmp_path, text)))
    assert "hardware reads a closed stream with `for v in s:` only yet" in str(e.value)
    assert e.value.loc[1] == marked(text)
