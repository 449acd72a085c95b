"""Every shape of random program the campaign draws, as one ``hypothesis`` strategy."""
from hypothesis import strategies as st

from .filters import filters
from .programs import Program, chains, grids, pipelines


def programs():
    """Any of the four shapes, as a `Program`."""
    return st.one_of(pipelines().map(lambda s: ("pipeline", s)),
                     grids().map(lambda s: ("grid", s)),
                     chains().map(lambda s: ("chain", s)),
                     filters().map(lambda s: ("filter", s))).map(
        lambda t: Program(t[0], t[1], t[0]))
