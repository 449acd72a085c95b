from hwgen.check.streams import channel_ops, executions
from hwgen.ir.graph import Pred, StreamOp
from hwgen.pipeline import load_design
from tests.conftest import example


def test_executions_count_predicated_iterations():
    assert executions((), (4, 5)) == 20
    assert executions((Pred("first", 1),), (4, 5)) == 4
    assert executions((Pred("last", 0),), (4, 5)) == 1
    assert executions((Pred("first", 1), Pred("last", 1)), (4, 1)) == 4


def test_gemm_streams_balance():
    graph = load_design(example("gemm_os"), {"M": 3, "N": 2, "K": 5})
    for name, op in channel_ops(graph).items():
        assert sum(n for *_, n in op[StreamOp.PUT]) == sum(n for *_, n in op[StreamOp.GET]) == 5
