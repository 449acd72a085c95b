"""The task graph: statements' sites, and a checked graph that is not written to."""
import pickle

import pytest

from hwgen.ir.graph import Site
from hwgen.pipeline import load_design
from tests.conftest import example


def test_sites_name_every_statement_by_instance_segment_and_position():
    graph = load_design(example("mlp_pipeline"))
    inst = max(graph.instances.values(), key=lambda inst: len(inst.segments))
    assert len(inst.segments) > 1
    sites = [site for site, _, _ in inst.sites()]
    assert sites == [Site(inst.name, gi, k) for gi, seg in enumerate(inst.segments)
                     for k in range(len(seg.body))]
    assert [s for _, _, s in inst.sites(1)] == inst.segments[1].body
    assert len(set(sites)) == len(sites)


def test_a_checked_graph_cannot_be_written_to():
    graph = load_design(example("gemm_os"), {"M": 2, "N": 2, "K": 3})
    with pytest.raises(AttributeError, match="checked and frozen: make a new one with "
                                             r"graph.with_\(tiles=...\)"):
        graph.tiles = {"loops": []}
    assert graph.tiles is None
    tiled = graph.with_(share_rows=False)
    assert not tiled.share_rows and graph.share_rows
    with pytest.raises(AttributeError, match="frozen"):
        tiled.share_rows = True
    again = pickle.loads(pickle.dumps(graph))       # as a pool worker receives it
    assert again.instances.keys() == graph.instances.keys()
    with pytest.raises(AttributeError, match="frozen"):
        again.params = {}


def test_mapping_returns_new_graphs_rather_than_writing_onto_one():
    """A search under a budget and a tiling under block RAMs come back as checked graphs of
    their own."""
    searched = load_design(example("gemm_os"), {"M": 8, "N": 8, "K": 8}, budget={"pes": 16})
    assert searched.search and searched.folds
    tiled = load_design(example("gemm_os"), {"M": 20, "N": 30, "K": 8}, array=(4, 4), brams=4)
    assert tiled.tiles
    for graph in (searched, tiled):
        with pytest.raises(AttributeError, match="frozen"):
            graph.search = []
