"""Allo's ``allo.utils`` helpers for host data."""
import numpy as np


def get_np_struct_type(bitwidth):
    """A numpy type of ``bitwidth`` bits rounded up to whole bytes, one unsigned byte field per
    byte (``f0``, ``f1``, ...): how Allo's hosts hold integers wider than numpy's."""
    n = -(-int(bitwidth) // 8)
    return np.dtype({"names": [f"f{i}" for i in range(n)], "formats": ["u1"] * n,
                     "offsets": list(range(n)), "itemsize": n})
