"""A wider sweep of odd sizes, lanes and back-pressure (`pytest -m slow`; not in make test)."""
import numpy as np
import pytest

from hwgen.ir.interp import run
from hwgen.pipeline import load_design
from hwgen.rtl.simhelpers import run_top
from hwgen.rtl.top import Top
from hwgen.schedule import plan
from tests.conftest import example, program

CASES = [(example("gemm_os"), dict(M=m, N=n, K=k)) for m, n, k in
         [(1, 2, 3), (2, 1, 5), (2, 2, 2), (3, 3, 3), (4, 2, 9), (2, 4, 16), (3, 5, 12), (4, 4, 4),
          (5, 5, 40), (6, 3, 24), (1, 7, 2), (7, 1, 13), (4, 4, 32), (2, 3, 64)]]
CASES += [(example("producer_consumer"), dict(N=n)) for n in (2, 3, 5, 16)]
CASES += [(program("fifo_skew"), dict(N=n, D=d)) for n, d in ((2, 1), (4, 2), (9, 3), (3, 8))]


@pytest.mark.slow
@pytest.mark.parametrize("lanes", [None, 1])
@pytest.mark.parametrize("path,params", CASES)
def test_sweep(path, params, lanes):
    graph = load_design(path, params)
    top = Top(plan(graph, lanes=lanes))
    rng = np.random.default_rng(7)
    probs = [{t.name: rng.integers(t.dtype.min, t.dtype.max, t.shape, endpoint=True)
              for t in graph.inputs} for _ in range(4)]
    want = [run(graph, p) for p in probs]
    outs, cycles, done = run_top(top, probs)
    assert cycles[0] == top.expected_cycles
    assert list(np.diff(done)) == [top.interval_cycles] * 3
    for gaps in ((0.0, 0.0), (0.3, 0.3)):
        outs, _, _ = run_top(top, probs, *gaps, seed=5)
        for p in range(4):
            for name, value in want[p].items():
                assert np.array_equal(outs[p][name], value)
