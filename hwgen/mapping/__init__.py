"""Virtual to physical: which task grids fold onto the PE array, and onto what (``fold``)."""
from .fold import fold_onto

__all__ = ["fold_onto"]
