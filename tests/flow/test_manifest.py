"""design.json as typed objects: every example's file reads back into a Manifest and writes
out again unchanged; bad files are clear errors."""
import glob
import json
import os

import pytest

from hwgen.errors import HwgenError
from hwgen.flow import verilog
from hwgen.flow.bridge_sim import simulate as bridged
from hwgen.flow.manifest import Manifest, Port
from hwgen.pipeline import load_design
from tests.conftest import EXAMPLES, example, program

DESIGNS = [(path, {}, None) for path in sorted(glob.glob(os.path.join(EXAMPLES, "*.py")))
           if not path.endswith("__init__.py")] + [
    (program("inout_gemm"), {"M": 6, "N": 5, "K": 3, "P": 3}, None),      # in-out ports
    (example("gemm_os"), {"M": 20, "N": 30, "K": 8}, {"array": (4, 4), "brams": 4}),  # tiles
    (example("gemv_cooperative"), {"P": 2, "M": 3, "K": 4}, None),        # FIFO streams
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


def test_a_bridged_design_keeps_its_bridge_and_later_keys():
    graph = load_design(example("gemm_os"), {"M": 2, "N": 2, "K": 3})
    info, _ = bridged(graph, source=example("gemm_os"), build={"params": graph.params})
    read = Manifest.from_json(info)
    assert read.bridge.baud == info["bridge"]["baud"] and read.port("C").dir == "out"
    assert list(read.extra) == ["source", "build"] and read.to_json() == info
    assert list(read.to_json()) == list(info)


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
        Manifest.from_json(info).port("D")
