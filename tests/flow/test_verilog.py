import json

import pytest

from hwgen.flow import verilog
from hwgen.pipeline import load_design
from tests.conftest import example, program


def test_design_json_follows_the_contract(tmp_path):
    graph = load_design(example("gemm_os"), {"M": 2, "N": 3, "K": 4})
    verilog.write(graph, tmp_path, lanes=1)
    info = json.loads((tmp_path / "design.json").read_text())
    assert info["top"] == "gemm_os" and info["verilog"] == ["gemm_os.v"]
    assert info["clock"] == "clk" and info["reset"] == "rst"
    assert info["params"] == {"M": 2, "N": 3, "K": 4}
    ports = {p["name"]: p for p in info["ports"]}
    assert ports["A"] == {"name": "A", "dir": "in", "dtype": "int8", "shape": [2, 4], "lanes": 1,
                          "row_pad": 0, "payload": "A__payload", "valid": "A__valid", "ready": "A__ready"}
    assert ports["C"]["dir"] == "out" and ports["C"]["dtype"] == "int32"
    assert isinstance(info["expected_cycles"], int) and info["expected_cycles"] > 0
    assert 0 < info["interval_cycles"] <= info["expected_cycles"]
    text = (tmp_path / "gemm_os.v").read_text()
    for p in ports.values():
        for k in ("payload", "valid", "ready"):
            assert p[k] in text
    assert "module gemm_os(" in text


def test_an_in_out_tensor_is_two_ports_named_after_it(tmp_path):
    """The host sends ``C`` on ``C_in`` and receives it on ``C_out``: both entries are named
    ``C``, their signals are the contract's keys."""
    verilog.write(load_design(program("inout_gemm")), tmp_path, lanes=1)
    info = json.loads((tmp_path / "design.json").read_text())
    ports = [(p["name"], p["dir"], p["payload"], p["valid"], p["ready"]) for p in info["ports"]]
    assert ports[2:] == [("C", "in", "C_in__payload", "C_in__valid", "C_in__ready"),
                         ("C", "out", "C_out__payload", "C_out__valid", "C_out__ready")]
    text = (tmp_path / "inout_gemm.v").read_text()
    assert all(signal in text for port in ports for signal in port[2:])


def test_same_program_same_verilog(tmp_path):
    for d in ("a", "b"):
        verilog.write(load_design(example("gemm_os"), {"M": 2, "N": 2, "K": 3}), tmp_path / d)
    assert (tmp_path / "a" / "gemm_os.v").read_bytes() == (tmp_path / "b" / "gemm_os.v").read_bytes()


def test_a_fold_written_by_hand_gives_the_arrays_verilog(tmp_path):
    """``hwgen.bundle`` in the region (tests/programs/gemm_bundled.py) and ``--array 4x4`` on
    the unchanged example choose the same fold: the same Verilog."""
    params = {"M": 8, "N": 8, "K": 8}
    by_hand = load_design(program("gemm_bundled"), params)
    searched = load_design(example("gemm_os"), params, array=(4, 4))
    assert by_hand.folds == searched.folds == {"pe": ((8, 8), (4, 4))}
    verilog.write(by_hand, tmp_path / "hand", target="ecp5")
    verilog.write(searched, tmp_path / "array", target="ecp5")
    assert (tmp_path / "hand" / "gemm_os.v").read_text() == \
        (tmp_path / "array" / "gemm_os.v").read_text()


def test_auto_lanes_are_in_the_manifest(tmp_path):
    graph = load_design(example("gemm_os"), {"M": 4, "N": 4, "K": 32})
    info = verilog.write(graph, tmp_path)
    lanes = {p.name: p.lanes for p in info.ports}
    assert lanes == {"A": 4, "B": 4, "C": 2}
    text = (tmp_path / "gemm_os.v").read_text()
    assert "input [31:0] A__payload" in text and "output [63:0] C__payload" in text


def test_padded_rows_are_in_the_manifest(tmp_path):
    graph = load_design(example("gemm_os"), {"M": 3, "N": 5, "K": 97})
    ports = {p.name: p for p in verilog.write(graph, tmp_path).ports}
    assert (ports["A"].lanes, ports["A"].row_pad) == (4, 3)     # 97 + 3 = 25 beats of 4
    assert ports["B"].row_pad == ports["C"].row_pad == 0


def test_convert_announces_its_stages_and_equals_amaranth_where_no_kind_is_shared(tmp_path):
    from amaranth.back import verilog as amaranth_verilog
    from hwgen.rtl.kinds import Kinds
    from hwgen.rtl.top import Top
    from hwgen.schedule import plan
    graph = load_design(example("producer_consumer"))
    said, kinds = [], Kinds("producer_consumer")
    text = verilog.convert(Top(plan(graph), kinds=kinds), "producer_consumer", said.append,
                           kinds=kinds)
    assert len(kinds) == 0
    assert said == ["elaborating producer_consumer into a netlist (Amaranth)",
                    "writing Verilog (Yosys)"]
    assert text == amaranth_verilog.convert(Top(plan(graph)), name="producer_consumer",
                                            emit_src=False)


def test_the_target_follows_the_device_and_an_unknown_one_is_an_error(tmp_path):
    from hwgen import HwgenError
    assert verilog.target_of("ecp5-85k") == "ecp5" and verilog.target_of("ice40-up5k") == "ice40"
    with pytest.raises(HwgenError, match="unknown DEVICE 'xc7a35t'"):
        verilog.target_of("xc7a35t")
    graph = load_design(example("producer_consumer"), {"N": 2})
    info = verilog.write(graph, tmp_path, target="ecp5")
    # Nothing to multiply and no block RAM: the models of what it does instantiate, the
    # output skid's copies of its write enables (cleared in reset), the consumer's copies of
    # the control lines and its running sum's carry chain.
    assert info.target == "ecp5"
    assert info.verilog == ("producer_consumer.v", "FD1S3IX.v", "FD1P3IX.v", "CCU2C.v")
