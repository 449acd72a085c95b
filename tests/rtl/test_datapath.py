"""The datapath compiler: a program with every kind of expression and every statement but
stream ops (those: tests/rtl/test_top.py, tests/examples), run as hardware in Amaranth's
simulator against its numpy reference, with and without back-pressure, the first problem
taking exactly ``expected_cycles``."""
import re

import numpy as np
import pytest

from hwgen.ir.interp import run
from hwgen.pipeline import load_design, load_module
from hwgen.rtl.simhelpers import run_top
from hwgen.rtl.top import Top
from hwgen.schedule import plan
from tests.conftest import program, random_inputs

PATH = program("every_expression")


def _equals_in_hardware(path, params, want, seed, extreme=False):
    """The program at ``path`` as hardware in Amaranth's simulator, with and without
    back-pressure: the first problem in exactly ``expected_cycles``, and outputs equal to
    ``want(inputs)`` (numpy) in the interpreter and in hardware."""
    graph = load_design(path, params)
    problems = [random_inputs(graph, s, extreme=extreme and s == 0) for s in range(3)]
    top = Top(plan(graph))
    outs, cycles, _ = run_top(top, problems)
    assert cycles[0] == top.expected_cycles
    slow, _, _ = run_top(top, problems, in_gap=0.3, out_gap=0.4, seed=seed)
    for p, inputs in enumerate(problems):
        for name, value in want(inputs).items():
            assert np.array_equal(run(graph, inputs)[name], value), (p, name, "interpreter")
            assert np.array_equal(outs[p][name], value), (p, name)
            assert np.array_equal(slow[p][name], value), (p, name, "back-pressure")


def _equals_its_reference(name, params, seed):
    """``_equals_in_hardware`` for tests/programs/``name``, against its own ``reference``, the
    first problem's inputs at their extremes."""
    path = program(name)
    _equals_in_hardware(path, params, lambda inputs: load_module(path).reference(**inputs), seed,
                        extreme=True)


@pytest.mark.parametrize("params", [{"N": 5, "K": 3}, {"N": 1, "K": 1}, {"N": 5, "K": 4}])
def test_every_expression_in_hardware(params):
    _equals_in_hardware(PATH, params, lambda inputs: load_module(PATH).reference(**inputs), 9,
                        extreme=True)


def test_only_an_assignment_nothing_before_reads_presets_its_register():
    from hwgen.ir.graph import Assign, BinOp, Const, Pred, VarRef
    from hwgen.rtl.datapath import _unread_before
    first = (Pred("first", 0),)
    clear = Assign("c", Const(0), first, None)
    late = Assign("d", Const(0), first, None)
    body = [clear, Assign("x", VarRef("d"), (), None), late,
            Assign("c", BinOp("+", VarRef("c"), VarRef("x")), (), None)]
    # c = 0 comes first: its register holds nothing the iteration needs; d is read before.
    assert _unread_before(body) == {0, 1}       # positions in the body


@pytest.mark.parametrize("params", [{"B": 2, "N": 4}, {"B": 3, "N": 1}, {"B": 1, "N": 3},
                                    {"B": 2, "N": 5}])
def test_register_arrays_read_after_their_write(params):
    """A register array read after a write in the same iteration sees the write
    (``schedule.levels``: one level later), as the interpreter does; at N=5 the blocks have
    25 elements, registers because a memory could not be written whole."""
    path = program("array_rewritten")
    _equals_in_hardware(path, params, lambda inputs: load_module(path).reference(**inputs), 3)


def _in_sequence(A, W, B, M):
    """numpy model of tests/programs/loops_in_sequence.py."""
    block = (A.astype(np.int64).reshape(B, M) * 2 + 1).astype(np.int16).astype(np.int64)
    K = len(W)
    D = [sum(int(W[k]) * int(row[k % M]) for k in range(K)) + int(row.sum()) for row in block]
    return {"C": block.reshape(-1), "D": np.array(D)}


@pytest.mark.parametrize("params", [{"B": 2, "M": 4, "K": 3}, {"B": 3, "M": 1, "K": 5},
                                    {"B": 1, "M": 5, "K": 1}])
def test_loops_in_sequence_run_as_phases(params):
    """Loops in sequence in a loop body share one nest (a phase loop; shorter loops run below
    their own trips), in the interpreter and in hardware, with the cycles the schedule
    predicts."""
    _equals_in_hardware(program("loops_in_sequence"), params, lambda inputs: _in_sequence(
        inputs["A"], inputs["W"], params["B"], params["M"]), 4, extreme=True)


def _stream_phases(A, W, B):
    """numpy model of tests/programs/stream_phases.py."""
    flat = [np.concatenate([A[i].astype(np.int64) * 2, W[i].astype(np.int64) + 1])
            for i in range(B)]
    return {"C": np.array(flat), "D": A[:, 0].astype(np.int64),
            "E": np.arange(B, dtype=np.int64) * 7 + 1}


@pytest.mark.parametrize("params", [{"B": 2, "M": 3, "K": 4}, {"B": 1, "M": 1, "K": 1},
                                    {"B": 3, "M": 5, "K": 2}])
def test_a_stream_put_and_got_by_several_statements(params):
    """Statements that put (get) on one stream on different iterations share its port, in
    order, with the cycles the schedule predicts."""
    _equals_in_hardware(program("stream_phases"), params, lambda inputs: _stream_phases(
        inputs["A"], inputs["W"], params["B"]), 6, extreme=True)


@pytest.mark.parametrize("params", [{"K": 6, "LANES": 4}, {"K": 1, "LANES": 1},
                                    {"K": 3, "LANES": 5}])
def test_bit_slices_at_run_time_offsets(params):
    """``w[8 * m:8 * m + 8]`` read, assigned and updated (``+=``) in a loop over ``m``: a
    shifted select in hardware, bit for bit the interpreter's."""
    _equals_its_reference("runtime_bit_slices", params, 5)


@pytest.mark.parametrize("params", [{"N": 9, "B": 3}, {"N": 7, "B": 1}, {"N": 1, "B": 5}])
def test_register_arrays_at_indices_computed_at_run_time(params):
    """``counts[x % B] += w * x`` (every update on one element when ``B=1``) and a read and a
    write of one array at two run-time indices in one iteration: a mux and a decoder in
    hardware, bit for bit numpy's."""
    _equals_its_reference("register_array_index", params, 4)


@pytest.mark.parametrize("params", [{"N": 8}, {"N": 1}, {"N": 5}])
def test_a_local_piped_from_two_levels(params):
    """``buf[i]`` pipes ``i``'s register from its read level, ``Y[2] = i`` from a level after
    its update: two pipelines, not one shared (which wrote ``i`` one short)."""
    _equals_its_reference("held_index", params, 5)


@pytest.mark.parametrize("params", [{"M": 150}, {"M": 200}])
def test_a_while_loop_with_break_and_continue(params):
    """``while hwgen.bounded(n != 1, max_iterations=M)`` with ``break`` and ``continue``: M
    iterations in hardware, the statements taking effect until the condition first fails, at
    exact cycles whatever the data; bit for bit numpy's."""
    _equals_its_reference("while_scan", params, 6)


@pytest.mark.parametrize("params", [{"N": 3}, {"N": 1}])
def test_bit_slice_bounds_held_in_locals(params):
    """Allo's ``lsb: index = k * 32``, ``msb: index = (k + 1) * 32 - 1`` around an int128
    word, packed in a loop and unpacked at an index from a stream: bit for bit numpy's."""
    _equals_its_reference("slice_bounds_in_locals", params, 3)


@pytest.mark.parametrize("params", [{"M": 3, "N": 4}, {"M": 1, "N": 1}, {"M": 2, "N": 7}])
def test_branches_on_a_loop_variable_period(params):
    """Puts, gets and tensor writes under ``if j % 2 == 0`` / ``if j % 3 != 1``: each branch
    on its own iterations, with the cycles the schedule predicts."""
    _equals_its_reference("periodic_branches", params, 7)


@pytest.mark.parametrize("params", [{"M": 2, "N": 6}, {"M": 1, "N": 1}, {"M": 3, "N": 2}])
def test_branches_on_loop_iterations(params):
    """Puts and tensor writes under ``if k > 0``, ``if k == 0`` and ``if k >= 2 and k < N -
    1`` inside ``if i == 0``: each branch on the iterations where it holds, the cycles exact."""
    _equals_its_reference("iteration_branches", params, 9)


@pytest.mark.parametrize("params", [{"N": 4}, {"N": 1}])
def test_a_branch_on_a_grid_index_and_a_loop_variable(params):
    """``if p == 0 and k > 0:``: decided at compile time on ``p``, on iterations on ``k``."""
    _equals_its_reference("grid_index_branches", params, 4)


@pytest.mark.parametrize("params", [{"N": 4}, {"N": 1}, {"N": 7}])
def test_a_design_without_inputs_starts_on_its_own(params):
    """No input tensor: the first problem starts on the first clock edge, in exactly
    ``expected_cycles`` to its last output beat; the next ones as output slots free up."""
    path = program("no_inputs")
    table = load_module(path).TABLE
    _equals_in_hardware(path, params, lambda inputs: {
        "A": table[:, :params["N"]] * 3 + np.arange(2)[:, None]}, 8)


@pytest.mark.parametrize("params", [{"M": 4, "N": 3, "K": 1, "P": 2}, {"M": 3, "N": 5, "K": 9,
                                                                      "P": 1}])
def test_an_in_out_tensor_is_sent_and_received(params):
    """``C[i, j] += ...``: the host sends ``C`` and receives it back updated."""
    _equals_its_reference("inout_gemm", params, 5)


def test_an_in_out_float_tensor_equals_the_interpreter_bit_for_bit():
    graph = load_design(program("inout_float"), {"M": 2, "K": 9})
    _equals_in_hardware(program("inout_float"), {"M": 2, "K": 9},
                        lambda inputs: run(graph, inputs), 6)


@pytest.mark.parametrize("params", [{"P": 3, "R": 2}, {"P": 4, "R": 3, "UNROLL": 1},
                                    {"P": 1, "R": 1}])
def test_a_put_before_a_loop_of_puts_on_its_stream_takes_a_clock_of_its_own(params):
    """A daisy chain (``s.put(own)``, then ``for _ in ...: s.put(t.get())``): the first put is
    a phase of the round loop, or a segment of the body, of its own."""
    path = program("daisy_forward")
    graph = load_design(path, params)
    node = graph.instances[f"node[{params['P'] - 1}]"]
    if params.get("UNROLL") == 1:       # rounds in sequence: put, loop, put, loop, ...
        assert [seg.trips for seg in node.segments][:3] == [(), (params["P"] - 1,), ()]
    elif params["P"] > 1:               # a phase loop of two: the put, then the loop
        assert node.segments[0].trips == (params["R"], 2, params["P"] - 1)
    _equals_in_hardware(path, params, lambda inputs: load_module(path).reference(**inputs), 7,
                        extreme=True)


@pytest.mark.parametrize("N", [6, 2])
def test_two_puts_of_a_stream_on_one_iteration_run_as_two_phases(N):
    path = program("double_put")
    graph = load_design(path, {"N": N})
    assert graph.instances["producer"].segments[0].trips == (N, 2)    # branches: one clock
    _equals_in_hardware(path, {"N": N}, lambda inputs: load_module(path).reference(**inputs), 3,
                        extreme=True)


@pytest.mark.parametrize("params", [{"P": 3, "N": 4}, {"P": 1, "N": 1}])
def test_an_index_local_found_by_a_loop_is_a_constant_where_it_is_used(params):
    _equals_its_reference("found_position", params, 2)


@pytest.mark.parametrize("N", [20, 1, 99])
def test_read_only_tables_are_memories_holding_their_values(N):
    _equals_its_reference("rom_table", {"N": N}, 5)


@pytest.mark.parametrize("N", [5, 1])
def test_read_only_tables_are_looked_up_by_run_time_values(N):
    _equals_its_reference("table_lookup", {"N": N}, 6)


@pytest.mark.parametrize("params", [{"B": 2, "M": 4, "J": 3, "K": 5},
                                    {"B": 1, "M": 1, "J": 1, "K": 1},
                                    {"B": 2, "M": 20, "J": 17, "K": 3}])
def test_array_elements_updated_through_slow_operations(params):
    _equals_its_reference("array_recurrence", params, 8)


@pytest.mark.parametrize("N", [5, 1, 9])
def test_variables_updated_through_slow_operations(N):
    _equals_its_reference("recurrences", {"N": N}, 4)


def test_a_product_with_a_constant_is_shifts_and_adds_not_a_multiplier(tmp_path):
    """``A[i] * 3 + 1`` (producer_consumer) builds no ``*`` in its task: Yosys would map it
    to a DSP block, slower than the adders (a model's index ``36 * o + 12 * oy + ...``)."""
    from hwgen.flow.verilog import write
    from tests.conftest import example
    graph = load_design(example("producer_consumer"), {"N": 5})
    write(graph, str(tmp_path), target="ecp5")
    text = (tmp_path / f"{graph.name}.v").read_text()
    tasks = [m for m in re.split(r"^module ", text, flags=re.M)
             if m.startswith(f"\\{graph.name}.g")]
    assert tasks and not any(" * " in m for m in tasks)
