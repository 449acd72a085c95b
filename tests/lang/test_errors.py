"""Wrong programs are rejected with a HwgenError that names the user's file and line."""
import os

import pytest

from hwgen import HwgenError
from hwgen.ir.interp import run
from hwgen.pipeline import load_design, load_module
from hwgen.schedule import plan
from tests.conftest import program, random_inputs

CASES = [
    ("unbalanced", "unbalanced"),
    ("unknown_type", "unknown type"),
    ("unknown_param_type", "int7"),
    ("not_divisible", "not divisible"),
    ("while_loop", "while loop"),
    ("two_producers", "two producers"),
    ("no_consumer", "no task gets"),
    ("write_under_runtime_if", "under a run-time condition"),
    ("out_of_shard", "outside"),
    ("index_range", "outside 0..3"),
    ("read_before_assign", "before it is assigned"),
    ("stream_index", "out of range"),
    ("division", "divided only by a positive compile-time constant"),
    ("inout_read_after_write", "reads element [0] after writing it; hardware reads"),
    ("inout_shared", "touches element [1], which another task instance also"),
    ("inout_unwritten", "element [3] is never written"),
    ("array_update_read", "read on the iteration that writes it, but its new value takes"),
    ("reconvergent", "deadlock at the declared stream depths"),
    ("get_before_put", "gets from its own stream before it puts"),
    ("const_overflow", "300 does not fit 'x' of type int8"),
    ("meta_if_runtime", "must be decidable at compile time"),
    ("meta_else_alone", "must directly follow a meta_if"),
    ("get_under_runtime_if", "a get on stream 's' under a run-time condition would run"),
    ("array_read_after_write", "read after it is written in the same loop iteration"),
    ("array_rewrite_own", "written from its own elements after a write in the same loop"),
    ("exp_arguments", "use exp(x), x a float"),
    ("array_initialised", "the value of 'buf' has shape [2], the array [4]"),
    ("table_written", "takes its 300 elements from its declaration, more than 256, and is "
                      "read-only (a table in memory); declare a separate array"),
    ("get_in_max", "get the value into a local first"),
    ("rebind_tensor", "'A' is a tensor of the region: write its elements, `A[...] = ...`"),
    ("untyped_accumulator", "declare one: `acc: int32 = 0`"),
    ("list_comprehension", "instead of a list comprehension, accumulate in a loop"),
    ("float_literal", "not defined on float values; floats take + - * / and comparisons"),
    ("slice_width", "affine in the loop variables with a constant width"),
    ("slice_range", "reaches bits 0..31, outside 'w' (16 bits)"),
    ("runtime_index", "is indexed by a value computed at run time"),
    ("double_get", "is got twice on one iteration"),
    ("write_twice", "may be written at one element by two statements on one iteration"),
    ("slice_update_unassigned", "'w' is updated before it is assigned"),
    ("slice_empty", "is empty: its end must be above its start"),
    ("condition_two_loops", "must test one loop variable at a time"),
    ("else_of_two_loops", "nest the ifs (`if i == 0:` then `if k > 0:`)"),
    ("bundle_factor", "bundle factor 4 must divide axis 0 of task 'prod' (size 6)"),
    ("bundle_task", "write `hwgen.bundle(task, axis=0, factor=4)`"),
    ("bundle_axis", "bundle an axis from 0 to 0, not 1"),
    ("chain_unrelated", "task 'first' streams nothing to 'third' at the same grid position"),
    ("chain_back", "write `hwgen.chain(first, second)`, the producer first"),
    ("chain_form", "write `hwgen.chain(producer, consumer)`"),
    ("no_default", "have no default: give them one (`def build(N: int = 8):`)"),
    ("resident_written", "tensor 'W' is resident, an input the host loads once, but a task "
                         "writes it: drop resident() or write another tensor"),
    ("resident_only", "every input of region 'resident_only' is resident, so no input marks "
                      "where a problem starts"),
]


def test_resident_takes_a_tensor_type():
    from hwgen import resident
    with pytest.raises(HwgenError, match=r"resident\(\) takes a tensor type such as int8\[H, N\], "
                                         "not 4"):
        resident(4)


def marked_line(path):
    with open(path) as f:
        for n, line in enumerate(f, 1):
            if "# LINE" in line:
                return n
    raise AssertionError(f"no '# LINE' marker in {path}")


@pytest.mark.parametrize("name,words", CASES)
def test_rejected_at_the_users_line(name, words):
    path = program(f"bad/{name}")
    if not os.path.exists(path):        # a program the interpreter runs and hardware refuses
        path = program(name)
    with pytest.raises(HwgenError) as e:
        plan(load_design(path))         # the language's checks, then hardware's (support)
    assert words in str(e.value)
    assert e.value.loc is not None, str(e.value)
    assert e.value.loc[0].endswith(f"{name}.py")
    assert e.value.loc[1] == marked_line(path), str(e.value)


@pytest.mark.parametrize("array", [None, (4, 1)])
def test_a_stream_index_from_a_loop_is_refused_in_one_wording_folded_or_not(array):
    path = program("bad/stream_loop_index")
    with pytest.raises(HwgenError) as e:
        load_design(path, array=array)
    assert "stream index `n` must be computed from grid indices and sizes only" in str(e.value)
    assert "`with hwgen.meta_for(N) as n:`" in str(e.value)
    assert e.value.loc[1] == marked_line(path)


def test_a_collection_that_folding_joins_onto_one_stream_is_refused_at_its_line():
    path = program("folded_collection")
    plan(load_design(path))                     # as written, one stream per neuron: it builds
    with pytest.raises(HwgenError) as e:
        plan(load_design(path, array=(4, 1)))
    assert "stream 'h[0>layer2]' (h[0], h[4], h[8], h[12], one stream once folded) is got " \
           "twice on one iteration (more than once by this line)" in str(e.value)
    assert "fold onto a larger array, or get it in different loops" in str(e.value)
    assert e.value.loc[1] == marked_line(path)


def test_deadlock_is_found_statically_and_by_the_interpreter():
    path = program("bad/deadlock")
    with pytest.raises(HwgenError) as e:
        load_design(path)
    assert "deadlock at the declared stream depths" in str(e.value)
    assert "ping waits to get 't'" in str(e.value) and "pong waits to get 's'" in str(e.value)
    assert e.value.loc[1] == marked_line(path)
    # Without the static check, the interpreter stops and names the same line: no hang.
    graph = load_module(path).build().graph({"N": 4})
    with pytest.raises(HwgenError) as e:
        run(graph, random_inputs(graph))
    assert "deadlock" in str(e.value) and "waits to get" in str(e.value)
    assert e.value.loc[1] == marked_line(path)


def test_region_with_parentheses_as_in_allo(tmp_path):
    text = open(program("fifo_skew")).read().replace("@hwgen.region\n", "@hwgen.region()\n")
    assert "@hwgen.region()" in text
    path = tmp_path / "paren.py"
    path.write_text(text)
    assert set(load_design(str(path)).instances) == {"producer", "consumer"}


def test_loops_in_sequence_padded_to_the_longest_are_a_warning_with_the_cost(recwarn):
    path = program("padded_phases")
    graph = load_design(path)
    [warning] = [w for w in recwarn if "phases in this loop" in str(w.message)]
    assert warning.lineno == next(n for n, text in enumerate(open(path), 1)
                                  if "# WARN padding" in text)
    assert "in task layer2: the 2 phases in this loop (line 27: 64, line 29: 10x64 " \
           "iterations) each run as long as the longest, 10x64: 1,280 clocks per iteration " \
           "where their own trip counts take 704, 4,608 clocks of padding" in str(warning.message)
    assert plan(graph).interval_cycles >= 8 * 1280     # what the warning says it costs
    recwarn.clear()
    load_design(program("stream_phases"))               # 8 clocks for 7: no warning
    assert not [w for w in recwarn if "phases in this loop" in str(w.message)]
