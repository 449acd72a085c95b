"""Conditions on loop variables around stream operations (``lang.branches.iteration_sets``):
any expression of one loop variable, selects and ``max``/``min``/``abs`` included, picks the
iterations its branch runs on (found by the campaign: a conditional expression in such a test
was refused)."""
import numpy as np

from hwgen.ir.interp import run
from hwgen.pipeline import load_design
from hwgen.schedule import plan

TEXT = """import hwgen
from hwgen import Stream, int8, int32


def build(N: int = 6):
    @hwgen.region
    def picked(A: int8[N], C: int32[2]):
        s = Stream[int8, 2]

        @hwgen.task
        def producer():
            for i in range(N):
                if max(i if i != 3 else 0, 1) % 2 == 1:
                    s.put(A[i])

        @hwgen.task
        def consumer():
            total: int32 = 0
            for k in range(4):
                total += s.get()
            C[0] = total
            C[1] = 4

    return picked
"""


def test_a_conditional_expression_of_a_loop_variable_picks_iterations(tmp_path):
    path = tmp_path / "picked.py"
    path.write_text(TEXT)
    graph = load_design(str(path))
    A = np.arange(6) * 10 + 1
    picked = [i for i in range(6) if max(i if i != 3 else 0, 1) % 2 == 1]
    assert len(picked) == 4
    assert list(run(graph, {"A": A})["C"]) == [A[picked].sum(), 4]
    assert plan(graph).expected_cycles > 0
