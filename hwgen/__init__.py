"""hwgen: Python programs of tasks and streams become verified, measured FPGA hardware."""
from .errors import HwgenError, HwgenWarning
from .lang import *  # noqa: F401,F403
from .lang import __all__ as _lang_all

__all__ = ["HwgenError", "HwgenWarning"] + _lang_all
