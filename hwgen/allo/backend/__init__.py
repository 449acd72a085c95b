"""Allo's ``allo.backend``: the HLS back ends, none of which hwgen drives (``hls``)."""
from . import hls  # noqa: F401
