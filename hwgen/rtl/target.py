"""The targets hardware is lowered for, and the simulation models of their primitives.

``generic`` builds everything in logic (Amaranth's simulator needs it: it does not simulate
instances); ``ecp5`` instantiates ``MULT18X18D`` and ``DP16KD`` blocks with their own registers
(``rtl.multiply``, ``rtl.block_ram``), ``FD1S3AX`` / ``FD1S3IX`` / ``FD1P3AX`` / ``FD1P3IX``
flip-flops that Yosys must not merge (``rtl.replica``) and ``CCU2C`` carry chains that clear
an operand in their own logic (``rtl.arith.add_cleared``); ``ice40`` leaves the mapping to
Yosys. The models in ``models/`` stand in for the blocks in Icarus and Verilator; Yosys skips them (they sit under
``ifndef SYNTHESIS``)."""
import os

TARGETS = ("generic", "ecp5", "ice40")

MODELS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "models")

_PRIMITIVES = {"ecp5": ("MULT18X18D", "DP16KD", "FD1S3AX", "FD1S3IX", "FD1P3AX", "FD1P3IX",
                        "CCU2C")}


def check_target(target):
    """``target`` itself, or a ``ValueError`` naming the targets there are."""
    if target not in TARGETS:
        raise ValueError(f"unknown target {target!r}; use one of {', '.join(TARGETS)}")
    return target


def sim_models(target):
    """The Verilog simulation models (paths) of the primitives ``target`` may instantiate, one
    file per primitive named after it."""
    return [os.path.join(MODELS, f"{p}.v") for p in _PRIMITIVES.get(target, ())]
