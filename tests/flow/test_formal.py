"""SymbiYosys proofs of the stream parts: each holds, and each catches its injected fault."""
import json

import pytest
from amaranth.hdl import Fragment

from hwgen.cli import main
from hwgen.flow.formal import PROOFS, harness, prove
from hwgen.flow.properties import FAULTS
from hwgen.flow.properties_buffers import bank_ports, state
from hwgen.flow.properties_outputs import chain_timing
from hwgen.pipeline import load_design
from hwgen.rtl.output_chain import OutputChain
from hwgen.rtl.top import Top
from hwgen.schedule import plan
from tests.conftest import example


def _graph(proof):
    return load_design(example(proof.design[0]), proof.design[1], array=proof.array) \
        if proof.design else None


# The longest proofs, their harnesses proved on another design in this tier as well;
# `make formal` and the slow tier run them.
LONG = {"gemm_os_2x2_input_buffers", "gemm_os_folded_shared_rows", "gemm_os_2x2_ports"}


@pytest.mark.parametrize("proof", [pytest.param(p, id=p.name, marks=[pytest.mark.slow] * (
    p.name in LONG)) for p in PROOFS])
def test_each_proof_holds_and_catches_its_fault(tmp_path, proof):
    graph = _graph(proof)
    good = prove(proof, tmp_path, graph=graph)
    assert good.passed and not good.trace, good.log
    bad = prove(proof, tmp_path, fault=True, graph=graph)
    assert not bad.passed and bad.trace.endswith(".vcd"), bad.log
    assert "$var" in open(bad.trace).read()         # a real trace of the counterexample


def test_every_harness_has_a_fault_and_the_fifo_design_has_fifos():
    assert {p.harness for p in PROOFS} == set(FAULTS)
    proof = next(p for p in PROOFS if p.name == "gemv_fifo_ports")
    m, ports, depth = harness(proof, graph=_graph(proof))
    assert depth > 5 and ports and Fragment.get(m, None)
    assert plan(_graph(proof)).schedule.fifos       # the FIFO assertions have FIFOs to check


def test_the_proofs_cover_every_stream_part_of_a_2x2_gemm_os():
    parts = {p.harness for p in PROOFS if p.design in ((), ("gemm_os", {"M": 2, "N": 2, "K": 2}))}
    assert parts == {"fifo_link", "register_links", "input_buffers", "output_buffers",
                     "top_ports", "top_problems"}
    assert {p.mode for p in PROOFS if p.harness in ("fifo_link", "register_links")} == {"prove"}


@pytest.mark.parametrize("lanes", [1, 2])
def test_buffer_harnesses_number_bank_ports_as_the_top_does(lanes):
    p = plan(load_design(example("gemm_os"), {"M": 2, "N": 2, "K": 2}), lanes=lanes)
    top = Top(p)
    body = top.elaborate(None)
    for t in p.graph.inputs:
        assert list(body.submodules[f"in_{t.name}"].readers) == bank_ports(p, t.name, "reads")
    for t in p.graph.outputs:
        buf = body.submodules[f"out_{t.name}"]
        assert isinstance(buf, OutputChain)
        assert list(buf.writers) == bank_ports(p, t.name, "writes")
    Fragment.get(body, None)        # elaborate what was built, so that nothing is left unused
    Fragment.get(top, None)


def test_state_finds_a_parts_named_registers():
    p = plan(load_design(example("gemm_os"), {"M": 2, "N": 2, "K": 2}))
    t = p.graph.outputs[0]
    buf = OutputChain(t, p.bankings[t.name], bank_ports(p, t.name, "writes"), 1, p.slots)
    found = state(Fragment.get(buf, None))
    assert {"busy", "sent", "in_flight", "bank0", "chain3"} <= set(found)
    assert len(found["chain0"]) == 32


def test_the_examples_keep_the_output_chains_timing():
    """`chain_timing`: with these plans a problem never starts before the one two starts
    earlier has committed, which the output chain needs (its proof assumes it)."""
    for name, sizes in [("gemm_os", {"M": 2, "N": 2, "K": 2}), ("gemm_os", {"M": 2, "N": 2,
                        "K": 8}), ("gemm_os", {"M": 4, "N": 4, "K": 2})]:
        for lanes in (1, None):
            assert chain_timing(plan(load_design(example(name), sizes), lanes=lanes))


def test_a_top_proof_needs_its_graph(tmp_path):
    proof = next(p for p in PROOFS if p.design)
    with pytest.raises(ValueError, match="needs the task graph"):
        prove(proof, tmp_path)


def test_cli_lists_runs_and_rejects_unknown_proofs(tmp_path, capsys):
    assert main(["formal", "--list"]) == 0
    assert "fifo_link" in capsys.readouterr().out
    assert main(["formal", "no_such_proof"]) == 2
    assert "unknown proof 'no_such_proof'; the proofs are fifo_link" in capsys.readouterr().err
    assert main(["formal", "fifo_link", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "PASS fifo_link: proven" in out
    assert "PASS fifo_link (fault): caught: " in out
    runs = json.loads((tmp_path / "formal.json").read_text())
    assert [(r["proof"], r["fault"], r["passed"]) for r in runs] == [
        ("fifo_link", False, True), ("fifo_link", True, False)]


def test_the_shared_rows_proof_holds_two_slots():
    # Its K is chosen for two slots: at K=10 the schedule gives three, and the bounded check,
    # two more cycles deep, took yices 24 minutes instead of 2.
    proof = next(p for p in PROOFS if p.name == "gemm_os_folded_shared_rows")
    p = plan(_graph(proof), lanes=proof.lanes)
    assert p.slots == 2 and p.shared_rows == {"C"}
