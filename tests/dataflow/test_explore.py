"""The exploration: pruning rules, agreement with brute-force enumeration, the CLI."""
import pytest

from hwgen.cli import main
from hwgen.dataflow.entries import entry_table
from hwgen.dataflow.explore import explore, prune
from hwgen.dataflow.expr import parse_expr
from hwgen.dataflow.search import enumerate_dataflows
from hwgen.dataflow.spacetime import SpaceTime

GEMM = parse_expr("C[i,j] += A[i,k] * B[k,j]")


@pytest.mark.parametrize("combo,words", [
    (("stationary", "X-systolic", "X-multicast"), "systolic for one tensor and multicast"),
    (("X-multicast", "Y-systolic", "stationary"), "output cannot reduce"),
    (("XY-multicast", "X-multicast", "Y-multicast"), "rank"),
    (("diagonal-multicast", "X-systolic", "Y-systolic"), "output cannot reduce"),
])
def test_pruning_rules(combo, words):
    assert words in prune(combo, [{1}, {1}, {1}])


def test_classic_tuples_survive_pruning():
    for combo in [("stationary", "X-systolic", "Y-systolic"), ("Y-systolic", "X-systolic",
                  "stationary"), ("stationary", "X-multicast", "Y-multicast")]:
        assert prune(combo, [{1}, {1}, {1}]) is None


def test_every_explored_tuple_is_one_the_brute_force_enumeration_finds():
    result = explore(GEMM, "i=8 j=8 k=16", (4, 4))
    brute = {d.names for d in enumerate_dataflows(GEMM).dataflows}
    seen = set()
    for point in result.points:
        d = point.design
        if d.inner in d.space or len(d.space) < 2:
            continue            # t1 runs a tile loop: a map of the tiled nest, not of i, j, k
        st = SpaceTime.parse(d.spacetime_text(), GEMM)
        names = tuple(e.name for e in entry_table(GEMM, st).values())
        assert names == point.tuple and names in brute
        seen.add(names)
    # OS, WS and IS, systolic and multicast where realisable, each axis order.
    assert ("stationary", "X-systolic", "Y-systolic") in seen
    assert ("stationary", "X-multicast", "Y-multicast") in seen
    assert len(seen) >= 8


def test_a_16x16_exploration_covers_all_array_shapes():
    result = explore(GEMM, "i=32 j=32 k=32", (16, 16))
    assert {p.design.array for p in result.points} >= {(16, 16), (2, 2), (16,)}
    assert result.front and all(p.cost.utilization > 0 for p in result.front)


def test_front_is_pareto():
    result = explore(GEMM, "i=8 j=8 k=32", (4, 4))
    for p in result.points:
        assert not any(q.cost.cycles <= p.cost.cycles and
                       q.cost.resources["LUT"] < p.cost.resources["LUT"]
                       for q in result.front) or p not in result.front


def test_cli_dse_writes_table_and_plot(tmp_path, capsys):
    assert main(["dse", "--sizes", "i=8 j=8 k=16", "--array", "2x4", "--out",
                 str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "Pareto front" in (tmp_path / "front.md").read_text() and "| id | map |" in out
    assert (tmp_path / "front.png").read_bytes()[:4] == b"\x89PNG"


def test_cli_builds_a_point(tmp_path, capsys):
    assert main(["build", "dse:x=j, y=i, t1=i+j+k", "--sizes", "i=4 j=4 k=8", "--array",
                 "2x2", "--out", str(tmp_path)]) == 0
    assert (tmp_path / "dse.v").exists() and (tmp_path / "design.json").exists()


def test_cli_simulates_a_point_tiled_to_a_block_ram_budget(tmp_path, capsys):
    """i=14 j=10 on 4x4 within 8 block RAMs: 2 tiles of 8 x 12 (padded), each a problem of
    the design; the testbench sends whole tensors and checks whole results."""
    assert main(["sim", "dse:x=j, y=i, t1=i+j+k", "--sizes", "i=14 j=10 k=32", "--array",
                 "4x4", "--brams", "8", "--sim", "icarus", "--out", str(tmp_path)]) == 0
    captured = capsys.readouterr()
    assert "tiling the problem {'i': 14, 'j': 10, 'k': 32} into 2 tiles of i=8:" in captured.err
    assert captured.out.count("PASS dse") == 3, captured.out


@pytest.mark.parametrize("argv,words", [
    (["build", "dse:1", "--sizes", "i=4 j=4 k=4", "--pes", "4"], "has its array"),
    (["build", "dse:1", "--sizes", "i=4 j=4 k=4", "--brams", "-1"], "block RAM budget"),
    (["dse", "--expr", "C[i,j] = A[i,k]"], "+="),
    (["dse", "--array", "4by4"], "ARRAY must look like"),
    (["dse", "--sizes", "i=8 j=8"], "no size"),
    (["build", "dse:999", "--sizes", "i=4 j=4 k=4"], "no explored point"),
    (["build", "dse:x=q, y=i, t1=k", "--sizes", "i=4 j=4 k=4"], "no explored point"),
    (["build", "dse:1", "--params", "M=2"], "not --params"),
])
def test_cli_bad_input_is_a_clear_error(argv, words, capsys, tmp_path):
    assert main(argv + (["--out", str(tmp_path)] if argv[0] == "dse" else [])) == 2
    err = capsys.readouterr().err
    assert err.startswith("error:") and words in err and "Traceback" not in err, err
