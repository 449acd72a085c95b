"""The static deadlock check: exact at the declared depths, fast, and naming the blocked line."""
import pytest

from hwgen import HwgenError
from hwgen.check.deadlock import trace
from hwgen.ir.graph import StreamOp
from hwgen.pipeline import load_design
from tests.conftest import example, program


def test_reconvergent_streams_deadlock_only_below_the_needed_depth():
    with pytest.raises(HwgenError, match="split waits to put 's1' \\(full, 2 of 2\\)"):
        load_design(program("bad/reconvergent"), {"N": 4, "D": 2})
    load_design(program("bad/reconvergent"), {"N": 4, "D": 4})      # deep enough: fine


def test_own_stream_read_before_written():
    with pytest.raises(HwgenError, match="gets from its own stream before it puts"):
        load_design(program("bad/get_before_put"))


def test_trace_is_run_length_encoded():
    graph = load_design(example("mlp_pipeline"), {"N0": 4, "N1": 5, "N2": 6, "N3": 2})
    runs = [[(kind, chan, count) for (kind, chan, _), in [ops]] for ops, count in
            trace(graph.instances["layer2"])]
    assert runs == [[(StreamOp.GET, "h1", 5)], [(StreamOp.PUT, "h2", 6)]]


def test_large_arrays_are_checked_by_runs_not_iterations():
    graph = load_design(example("gemm_os"), {"M": 16, "N": 16, "K": 256})
    assert len(trace(graph.instances["pe[5,7]"])) == 1     # 256 iterations, one run
