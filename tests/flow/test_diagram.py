"""The task-graph picture: SVG and PNG files with the tasks, streams and tensors of a program."""
import xml.etree.ElementTree as ET

import pytest

from hwgen import HwgenError
from hwgen.cli import main
from hwgen.flow.diagram import draw
from hwgen.pipeline import load_design
from hwgen.schedule import schedule
from tests.conftest import example, program

SVG_TEXT = "{http://www.w3.org/2000/svg}text"


def svg_texts(path):
    """Every text element of an SVG file (it must parse as XML)."""
    root = ET.parse(path).getroot()
    return [t.text or "" for t in root.iter(SVG_TEXT)]


@pytest.fixture(scope="module")
def gemm():
    return load_design(example("gemm_os"), {"M": 3, "N": 4, "K": 5})


def test_gemm_svg_names_tensors_instances_and_streams(gemm, tmp_path):
    path = tmp_path / "gemm.svg"
    assert draw(gemm, path) == path
    texts = svg_texts(path)
    for label in ("A: int8[3, 5] @ [S(0), R]", "B: int8[5, 4] @ [R, S(1)]",
                  "C: int32[3, 4] @ [S(0), S(1)]", "pe[0,0]", "pe[1,2]", "pe[2,3]",
                  "pe  mapping=[3, 4]", "gemm_os  M=3 N=4 K=5"):
        assert label in texts, label
    # The systolic streams are lowered to registers; the picture says so.
    assert any(t.startswith("a_in: int8 d=2, 9 registers") for t in texts)
    assert "stream lowered to a register" in texts


def test_gemm_png(gemm, tmp_path):
    path = draw(gemm, str(tmp_path / "gemm.png"), sched=schedule(gemm))
    with open(path, "rb") as f:
        assert f.read(8) == b"\x89PNG\r\n\x1a\n"


def test_same_graph_same_svg(gemm, tmp_path):
    a, b = draw(gemm, tmp_path / "a.svg"), draw(gemm, tmp_path / "b.svg")
    assert a.read_bytes() == b.read_bytes()


def test_producer_consumer_labels_the_stream(tmp_path):
    graph = load_design(example("producer_consumer"), {"N": 4})
    texts = svg_texts(draw(graph, tmp_path / "pc.svg"))
    assert {"producer", "consumer", "A: int8[4]", "B: int32[4]"} <= set(texts)
    assert {"pipe", "int16 d=4"} <= set(texts)      # one SVG text per line


def test_fifo_streams_are_told_apart(tmp_path):
    graph = load_design(program("fifo_skew"))
    texts = svg_texts(draw(graph, tmp_path / "fifo.svg"))
    assert "stream as a FIFO" in texts
    assert any("1 FIFO" in t for t in texts)
    assert {"s", "int16 d=2"} <= set(texts)
    # B is read by the second task only: its line is routed around the first frame.
    assert "B: int16[6]" in texts and "C: int32[6]" in texts
    assert (tmp_path / "fifo.svg").stat().st_size > 0


def test_without_a_schedule_streams_are_plain(tmp_path, monkeypatch):
    import hwgen.schedule as sched_mod

    def fail(graph):
        raise HwgenError("no schedule")
    monkeypatch.setattr(sched_mod, "schedule", fail)
    graph = load_design(program("fifo_skew"))
    texts = svg_texts(draw(graph, tmp_path / "plain.svg"))
    assert "stream" in texts and "stream as a FIFO" not in texts


def test_big_grid_drops_box_names(tmp_path):
    graph = load_design(example("gemm_os"), {"M": 16, "N": 16, "K": 2})
    texts = svg_texts(draw(graph, tmp_path / "big.svg"))
    assert "pe  mapping=[16, 16]" in texts
    assert "pe[15,15]" not in texts


@pytest.mark.parametrize("name", ["graph.pdf", "graph", "graph.svg.txt"])
def test_bad_extension(gemm, tmp_path, name):
    with pytest.raises(HwgenError, match="use .svg or .png"):
        draw(gemm, tmp_path / name)
    assert not (tmp_path / name).exists()


def test_cli_graph(tmp_path, capsys):
    out = tmp_path / "sub" / "graph.svg"
    assert main(["graph", example("gemm_os"), "--params", "M=3 N=4 K=8", "--out", str(out)]) == 0
    assert f"wrote {out}" in capsys.readouterr().out
    assert "pe[2,3]" in svg_texts(out)
    png = tmp_path / "graph.png"
    assert main(["graph", example("producer_consumer"), "--out", str(png)]) == 0
    assert png.read_bytes().startswith(b"\x89PNG")


def test_cli_graph_default_out(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["graph", example("producer_consumer"), "--params", "N=3"]) == 0
    assert (tmp_path / "build" / "producer_consumer" / "graph.svg").exists()


@pytest.mark.parametrize("argv,words", [
    (["--out", "x.jpg"], "unknown picture format .jpg"),
    (["--params", "M=x"], "must be an integer"),
    (["--params", "Q=3"], "unknown parameter"),
])
def test_cli_graph_bad_input(tmp_path, capsys, argv, words):
    argv = [a.replace("x.jpg", str(tmp_path / "x.jpg")) for a in argv]
    assert main(["graph", example("gemm_os")] + argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("error:") and words in err and "Traceback" not in err


def test_cli_graph_missing_design(tmp_path, capsys):
    assert main(["graph", str(tmp_path / "nope.py"), "--out", str(tmp_path / "g.svg")]) == 2
    assert "not found" in capsys.readouterr().err
