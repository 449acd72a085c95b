"""SymbiYosys proofs of the stream parts: each holds, and each catches its injected fault."""
import json

import pytest
from amaranth.hdl import Fragment

from hwgen.cli import main
from hwgen.flow.formal import PROOFS, harness, prove
from hwgen.flow.properties import FAULTS
from hwgen.pipeline import load_design
from tests.conftest import example


def _graph(proof):
    return load_design(example(proof.design[0]), proof.design[1]) if proof.design else None


@pytest.mark.parametrize("proof", PROOFS, ids=[p.name for p in PROOFS])
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
    from hwgen.schedule import plan
    assert plan(_graph(proof)).schedule.fifos       # the FIFO assertions have FIFOs to check


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
    assert "PASS fifo_link: holds for 16 cycles from reset" in out
    assert "PASS fifo_link (fault): caught: " in out
    runs = json.loads((tmp_path / "formal.json").read_text())
    assert [(r["proof"], r["fault"], r["passed"]) for r in runs] == [
        ("fifo_link", False, True), ("fifo_link", True, False)]
