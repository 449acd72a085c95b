"""A tiled design (``mapping.tiling``) seen whole: its graph at the whole problem's tensor
shapes, and the functional interpreter run tile by tile as the hardware's host runs it."""
import dataclasses

from ..host import join_tiles, split_tiles
from ..ir.interp import run


def run_whole(graph, inputs):
    """The functional interpreter on whole tensors: of a tiled ``graph`` one run per tile, the
    outputs joined (``host.split_tiles``/``join_tiles``, as the hardware's host does)."""
    tiles = graph.tiles
    if not tiles:
        return run(graph, inputs)
    blocks = split_tiles(tiles, {t.name: inputs[t.name] for t in graph.inputs})
    return join_tiles(tiles, [run(graph, block) for block in blocks])


def whole(graph):
    """``graph`` with each tensor at the whole problem's shape (for inputs and references)."""
    if not graph.tiles:
        return graph
    tensors = {n: dataclasses.replace(t, type=dataclasses.replace(
        t.type, shape=tuple(graph.tiles["tensors"][n]["shape"])))
        for n, t in graph.tensors.items()}
    return dataclasses.replace(graph, tensors=tensors, params=graph.tiles["params"])
