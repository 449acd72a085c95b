"""Public layer tables through the cost model."""
import math

import pytest

from hwgen import HwgenError
from hwgen.cli import main
from hwgen.dataflow.explore import explore
from hwgen.dataflow.expr import parse_expr
from hwgen.dataflow.layers import best, build_lines, evaluate, padded, tables
from hwgen.pipeline import load_point
from hwgen.mapping.tiling import block_rams_of
from hwgen.schedule import plan
from hwgen.schedule.plan import array_starts


def test_tables_have_the_published_layers():
    t = tables()
    assert len(t["vgg16"]) == 13 and len(t["resnet50"]) == 3
    assert t["vgg16"][0][2] == {"k": 64, "c": 3, "p": 224, "q": 224, "r": 3, "s": 3}
    assert [n for n, _, _ in t["resnet50"]] == ["M1024-K512-N256", "M512-K128-N1024",
                                                "M512-K256-N1024"]


def test_padding_rounds_spatial_loops_up_to_the_array():
    assert padded({"m": 1024, "k": 512, "n": 8}, ("m", "n"), (12, 12)) == \
        {"m": 1032, "k": 512, "n": 8}


def test_resnet_gemms_on_12x12():
    rows = evaluate("resnet50")
    for name, sizes, d, c, util in rows:
        assert c.pes == 144 and c.resources["DSP"] == 144
        assert util == math.prod(sizes.values()) / (144 * c.array_cycles)
        assert 0.9 < util <= 1.0, (name, util)


def test_a_resnet_gemm_builds_tiled_at_the_tables_cycles():
    """The table's best dataflow for M1024-K512-N256 on 12x12, built as ``build_lines`` says,
    within the device's 208 block RAMs: 43 x 4 tiles of m = 24, n = 64 (k padded to 516) whose
    array cycles add up to the table's. (Each tile's host ports take longer than its array:
    ``interval_cycles`` is the host's.)"""
    name, sizes, d, c, _ = evaluate("resnet50")[0]
    assert build_lines([(name, sizes, d, c, None)], (12, 12))[0].startswith(
        f'{name}: make verilog DESIGN="dse:{d}"')
    graph = load_point(explore(d.expr, sizes, (12, 12)).find(str(d)).design)
    counts = [loop["count"] for loop in graph.tiles["loops"]]
    assert graph.params == {"m": 24, "n": 64, "k": 516} and math.prod(counts) == 43 * 4
    assert block_rams_of(graph) <= 208
    p = plan(graph)
    assert math.prod(counts) * array_starts(p.schedule) == c.array_cycles
    assert p.interval_cycles > array_starts(p.schedule)


def test_convolutions_say_why_they_are_not_built():
    name, text, sizes = tables()["vgg16"][0]
    d, _, _ = best(parse_expr(text), sizes, (12, 12))
    line = build_lines([(name, sizes, d, None, None)], (12, 12))[0]
    assert line.startswith("conv1_1: not built") and "halos" in line


def test_unknown_table_is_an_error(capsys):
    with pytest.raises(HwgenError, match="unknown layer table"):
        evaluate("alexnet")
    assert main(["layers", "alexnet"]) == 2 and "unknown layer table" in capsys.readouterr().err
