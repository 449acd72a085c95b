"""Static checks on the task graph, run before any hardware exists."""
from .deadlock import check_deadlock
from .layouts import check_layouts
from .streams import check_streams
from .widths import check_widths


def check(graph):
    """Run every check; the first problem found raises ``HwgenError`` naming the user's line.
    Returns the graph, frozen (``ir.Graph.freeze``)."""
    check_streams(graph)
    check_layouts(graph)
    check_deadlock(graph)
    check_widths(graph)
    return graph.freeze()
