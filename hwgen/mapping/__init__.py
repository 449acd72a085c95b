"""Virtual to physical: which task grids fold onto the PE array, and onto what (``fold``), the
array shape within PE/DSP budgets (``search``), tiles of a problem too large for block RAM
(``tiling``); which producer-consumer pairs keep their intermediate on chip (``fusion``), and
the stages a graph runs as when the others go through the host (``materialise``)."""
from .fold import fold_onto

__all__ = ["fold_onto"]
