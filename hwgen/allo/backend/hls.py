"""Allo's ``allo.backend.hls``: no HLS tool is driven by hwgen, so none is available; Allo's
tests that need Vitis skip themselves on that answer, as on a machine without Vitis."""


def is_available(backend="vitis_hls"):
    """Always False: hwgen builds Verilog with its own compiler and open tools."""
    return False
