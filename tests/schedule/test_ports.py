"""A group's memory and FIFO ports."""
from hwgen.ir.graph import BinOp, Const, LoopIndex, StreamOp
from hwgen.pipeline import load_design
from hwgen.schedule import plan
from hwgen.schedule.ports import FifoPort, MemoryPort, ahead, plan_ports, safe_name
from tests.conftest import example, program


def _ports(path, params):
    graph = load_design(path, params)
    p = plan(graph)
    return [plan_ports(graph, p.schedule, g, p.bankings) for g in p.schedule.groups]


def test_systolic_gemm_reads_on_the_edges_and_writes_every_pe():
    (ports,) = _ports(example("gemm_os"), {"M": 2, "N": 3, "K": 4})
    assert [(p.name, p.tensor, p.bank) for p in ports.reads] == \
        [("rd0", "A", 0), ("rd1", "B", 0), ("rd2", "B", 1), ("rd3", "B", 2), ("rd4", "A", 1)]
    # Every read is addressed a cycle early (the corner too: it runs a cycle behind the
    # controller), the buffer registering the address beside its memories.
    assert all(p.ahead for p in ports.reads)
    assert [p.bank for p in ports.writes] == list(range(6))
    assert all(isinstance(p, MemoryPort) and p.write for p in ports.writes)
    assert ports.fifo(StreamOp.PUT) == ports.fifo(StreamOp.GET) == []


def test_fifo_ports_name_their_channel():
    producer, consumer = _ports(program("fifo_skew"), {"N": 4})
    assert producer.fifo(StreamOp.PUT) == [FifoPort("put_s", "s", StreamOp.PUT)]
    assert consumer.fifo(StreamOp.GET) == [FifoPort("get_s", "s", StreamOp.GET)]


def test_safe_name():
    assert safe_name("pe[0,1]") == "pe_0_1" and safe_name("a_in[2,3]") == "a_in_2_3"


def test_a_computed_index_is_not_addressed_ahead():
    k = LoopIndex(0)
    assert ahead((k, Const(3)), 1) and not ahead((k,), 0)
    assert not ahead((BinOp("+", k, Const(1)),), 4)
