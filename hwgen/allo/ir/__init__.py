"""Allo's ``allo.ir``: only ``allo.ir.types`` is served (``hwgen.allo.ir.types``)."""
