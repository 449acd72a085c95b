"""Running the YoWASP tools (Yosys, nextpnr, ecppack, icepack) installed from PyPI.

YoWASP tools run in WebAssembly and only see their working directory and below, so every call
runs with ``cwd`` = the build folder and relative paths.
"""
import os
import shlex
import shutil
import subprocess
import sys

from ..errors import HwgenError


def tool(name):
    """Path of a ``yowasp-*`` entry point: next to this Python first, then on PATH."""
    exe = os.path.join(os.path.dirname(sys.executable), name)
    if os.path.exists(exe):
        return exe
    found = shutil.which(name)
    if found is None:
        raise HwgenError(f"{name} is not installed; run `make` to set up .venv")
    return found


def run(name, args, cwd, log):
    """Run ``name args`` in ``cwd``, output to ``log`` after a first line with the command (so a
    log says how to reproduce it); raise HwgenError with the log's tail."""
    command = [tool(name)] + [str(a) for a in args]
    with open(os.path.join(cwd, log), "w") as f:
        f.write(f"$ cd {shlex.quote(str(cwd))} && {shlex.join(command)}\n")
        f.flush()
        proc = subprocess.run(command, cwd=cwd, stdout=f, stderr=subprocess.STDOUT)
    if proc.returncode != 0:
        with open(os.path.join(cwd, log)) as f:
            tail = "".join(f.readlines()[-15:])
        raise HwgenError(f"{name} failed (exit {proc.returncode}); see {os.path.join(cwd, log)}:\n"
                         + tail)
