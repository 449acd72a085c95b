"""The frontend lowers task bodies to loop-nest segments, specialised per grid position."""
from hwgen.ir.graph import Assign, Get, Put, Read, Write
from hwgen.pipeline import load_design
from tests.conftest import example


def test_gemm_os_instances_are_specialised_per_grid_position():
    graph = load_design(example("gemm_os"), {"M": 3, "N": 5, "K": 7})
    assert len(graph.instances) == 15
    corner = graph.instances["pe[0,0]"].segments[0]
    interior = graph.instances["pe[1,1]"].segments[0]
    assert corner.trips == (7,) and interior.trips == (7,)
    corner_reads = [s.value for s in corner.body if isinstance(s, Assign) and isinstance(s.value, Read)]
    assert {r.tensor for r in corner_reads} == {"A", "B"}
    assert not any(isinstance(s, Assign) and isinstance(s.value, Read) for s in interior.body)
    # The last column puts no A to the right, the last row no B down.
    last = graph.instances["pe[2,4]"].segments[0]
    assert not any(isinstance(s, Put) for s in last.body)
    # Prologue and epilogue become first/last predicates of the k loop.
    assert interior.body[0].pred[0].kind == "first"
    assert isinstance(interior.body[-1], Write) and interior.body[-1].pred[0].kind == "last"


def test_streams_have_one_producer_and_one_consumer():
    graph = load_design(example("gemm_os"), {"M": 2, "N": 3, "K": 2})
    ch = graph.channels["a_in[1,2]"]
    assert (ch.producer, ch.consumer) == ("pe[1,1]", "pe[1,2]")
    assert ch.dtype.name == "int8" and ch.depth == 2
    # Border streams nobody uses do not exist.
    assert "a_in[0,0]" not in graph.channels


def test_tensor_directions_and_layouts():
    graph = load_design(example("gemm_os"), {"M": 2, "N": 2, "K": 2})
    assert [t.name for t in graph.inputs] == ["A", "B"]
    assert [t.name for t in graph.outputs] == ["C"]
    assert repr(graph.tensors["A"].type) == "int8[2, 2] @ [S(0), R]"


def test_typed_locals_and_gets():
    graph = load_design(example("producer_consumer"), {"N": 3})
    consumer = graph.instances["consumer"]
    assert consumer.vars["total"].name == "int32"
    update = consumer.segments[0].body[1]
    assert isinstance(update, Assign) and isinstance(update.value.rhs, Get)


def test_an_unused_stream_is_a_warning_at_its_declaration():
    import pytest

    from hwgen import HwgenWarning
    from tests.conftest import program
    path = program("unused_stream")
    with pytest.warns(HwgenWarning) as record:
        graph = load_design(path)
    line = next(n for n, text in enumerate(open(path), 1) if "WARN spare" in text)
    assert [(w.lineno, str(w.message)) for w in record] == [
        (line, "stream 'spare' is declared but no task puts to or gets from it; remove it")]
    assert graph.warnings == [str(record[0].message)]
