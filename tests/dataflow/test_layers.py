"""Public layer tables through the cost model."""
import math

import pytest

from hwgen import HwgenError
from hwgen.cli import main
from hwgen.dataflow.layers import evaluate, padded, tables


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


def test_unknown_table_is_an_error(capsys):
    with pytest.raises(HwgenError, match="unknown layer table"):
        evaluate("alexnet")
    assert main(["layers", "alexnet"]) == 2 and "unknown layer table" in capsys.readouterr().err
