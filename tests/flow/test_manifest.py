"""design.json as typed objects: every example's file reads back into a Manifest and writes
out again unchanged; bad files are clear errors."""
import glob
import json
import os
from dataclasses import replace

import pytest

from hwgen.errors import HwgenError
from hwgen.flow import verilog
from hwgen.flow.bridge_sim import simulate as bridged
from hwgen.flow.manifest import BridgePort, Manifest, Port
from hwgen.pipeline import load_design
from hwgen.rtl.top import Top
from hwgen.schedule import plan
from tests.conftest import EXAMPLES, example, program

DESIGNS = [(path, {}, None) for path in sorted(glob.glob(os.path.join(EXAMPLES, "*.py")))
           if not path.endswith("__init__.py")] + [
    (program("inout_gemm"), {"M": 6, "N": 5, "K": 3, "P": 3}, None),      # in-out ports
    (example("gemm_os"), {"M": 20, "N": 30, "K": 8}, {"array": (4, 4), "brams": 4}),  # tiles
    (example("gemv_cooperative"), {"P": 2, "M": 3, "K": 4}, None),        # FIFO streams
    (program("resident_weights"), {}, None),                               # a resident port
]


@pytest.mark.parametrize("path, params, fold", DESIGNS,
                         ids=[f"{os.path.basename(p)[:-3]}{'-' if q else ''}"
                              f"{'-'.join(f'{k}{v}' for k, v in q.items())}"
                              for p, q, _ in DESIGNS])
def test_every_design_json_round_trips(tmp_path, path, params, fold):
    graph = load_design(path, params, **(fold or {}))
    made = verilog.write(graph, tmp_path, target="ecp5")
    text = (tmp_path / "design.json").read_text()
    read = Manifest.read(tmp_path / "design.json")
    assert read == made and read.to_json() == json.loads(text)
    read.write(tmp_path / "again.json")
    assert (tmp_path / "again.json").read_text() == text
    assert all(isinstance(p, Port) and p.signal == p.payload[:-len("__payload")]
               for p in read.ports)
    if fold:
        assert read.tiles == graph.tiles
    # The key a host must honour is there only for a resident port.
    resident = {t.name for t in graph.tensors.values() if t.type.resident}
    assert {p["name"] for p in json.loads(text)["ports"] if "resident" in p} == resident
    assert {p.name for p in read.ports if p.resident} == resident


def test_a_bridged_design_keeps_its_bridge_and_later_keys(tmp_path):
    graph = load_design(example("gemm_os"), {"M": 2, "N": 2, "K": 3})
    info, line = bridged(graph, source=example("gemm_os"), build={"params": graph.params})
    data = info.to_json()
    read = Manifest.from_json(data)
    assert read == info and read.bridge.baud == data["bridge"]["baud"]
    assert read.port("C").dir == "out" and read.bridge.port("C", "out").id == 2
    assert list(read.extra) == ["source", "build"] and read.to_json() == data
    assert list(read.to_json()) == list(data)
    # The bridge's ports are BridgePorts, written as the dicts rtl.bridge gives, key for key.
    assert all(isinstance(p, BridgePort) for p in read.bridge.ports)
    assert json.dumps(data["bridge"]) == json.dumps(line.dut.manifest(line.clock_hz))
    info.write(tmp_path / "design.json")
    text = (tmp_path / "design.json").read_text()
    Manifest.read(tmp_path / "design.json").write(tmp_path / "again.json")
    assert (tmp_path / "again.json").read_text() == text


@pytest.mark.parametrize("text, message", [
    ("[1, 2]", "must hold a JSON object"),
    ("{\"top\": \"x\"}", "has no key 'verilog'"),
    ("{nope", "is not JSON"),
])
def test_a_bad_design_json_is_a_clear_error(tmp_path, text, message):
    (tmp_path / "design.json").write_text(text)
    with pytest.raises(HwgenError, match=message):
        Manifest.read(tmp_path / "design.json")
    with pytest.raises(HwgenError, match="cannot read"):
        Manifest.read(tmp_path / "missing.json")


def test_an_unknown_port_names_the_ports():
    graph = load_design(example("gemm_os"), {"M": 2, "N": 2, "K": 3})
    info, _ = bridged(graph)
    with pytest.raises(HwgenError, match="has no port 'D'; its ports are A, B, C"):
        info.port("D")
    with pytest.raises(HwgenError, match="the bridge has no in port 'C'"):
        info.bridge.port("C", "in")


def test_tiles_give_whole_shapes_and_bad_tiles_are_clear_errors():
    graph = load_design(example("gemm_os"), {"M": 20, "N": 30, "K": 8}, array=(4, 4), brams=4)
    data = verilog.manifest(Top(plan(graph)), []).to_json()
    read = Manifest.from_json(data)
    assert read.whole_shape("C") == (20, 30) != read.port("C").shape
    assert replace(read, tiles=None).whole_shape("C") == read.port("C").shape
    del data["tiles"]["tensors"]["B"]["dims"]
    with pytest.raises(HwgenError, match="has no key 'dims'"):
        Manifest.from_json(data)
    data["tiles"] = {"loops": [{"param": "M"}], "tensors": {}}
    with pytest.raises(HwgenError, match="has no key 'count'"):
        Manifest.from_json(data)


def test_the_contracts_minimal_form_reads_and_writes_back_unchanged():
    """Another design with the same host interface (benchmarks' hand-written array) gives
    only the contract's keys: the ones hwgen adds are absent, not invented."""
    data = {"top": "gemm_ref", "verilog": ["gemm_ref.v"], "clock": "clk", "reset": "rst",
            "params": {"M": 2, "N": 2, "K": 3},
            "ports": [{"name": "A", "dir": "in", "dtype": "int8", "shape": [2, 3], "lanes": 1,
                       "payload": "A__payload", "valid": "A__valid", "ready": "A__ready"}],
            "expected_cycles": 12}
    read = Manifest.from_json(data)
    assert read.interval_cycles is None and read.schedule is None and read.streams is None
    assert read.ports[0].row_pad is None and read.to_json() == data
    with pytest.raises(HwgenError, match="has no key 'expected_cycles'"):
        Manifest.from_json({k: v for k, v in data.items() if k != "expected_cycles"})
