"""make allo: Allo's own dataflow tests, run on hwgen with only their import lines changed.

Takes a checkout of cornell-zhang/allo (``--allo``; the issue's commit is a098603f), rewrites
the import lines of every ``tests/dataflow/**/test_*.py`` (``import allo`` -> ``import hwgen.allo
as allo``, ``from allo.X import`` -> ``from hwgen.allo.X import``, ...; nothing else), runs them
under pytest and, with ``--rtl``, runs every region the tests simulate also as generated RTL
on Verilator. Prints one row per test (passed, failed with the first error line, skipped) and
one per simulated region (RTL pass / refused by a hardware rule / differs), and writes them to
``build/allo_compat/results.md``.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "build" / "allo_compat"


def port_line(line):
    """One source line with Allo's module paths replaced by hwgen.allo's (imports only)."""
    m = re.match(r"^(\s*)import allo\s*(#.*)?$", line)
    if m:
        return f"{m.group(1)}import hwgen.allo as allo"
    line = re.sub(r"^(\s*)import allo\.(\S+) as ", r"\1import hwgen.allo.\2 as ", line)
    return re.sub(r"^(\s*)from allo(\.\S+)? import ", r"\1from hwgen.allo\2 import ", line)


def port(src_dir, dst_dir):
    """Copy the test files of ``src_dir`` and its sub-folders (``sparse/``, ...) to the same
    places under ``dst_dir`` with their imports ported; their paths, relative."""
    files = sorted(src_dir.rglob("test_*.py"))
    for f in files:
        text = "\n".join(port_line(line) for line in f.read_text().splitlines()) + "\n"
        dst = dst_dir / f.relative_to(src_dir)
        dst.parent.mkdir(parents=True, exist_ok=True)
        dst.write_text(text)
    return [str(f.relative_to(src_dir)) for f in files]


def run_pytest(test_dir, rtl_log, timeout, python=sys.executable):
    """Run pytest (under ``python``) on the ported files; ``[(test, outcome, message)]`` from
    its JUnit XML."""
    xml = test_dir / "junit.xml"
    # Verilator's build calls `python`: the same one as the tests (another's stdlib breaks it)
    env = dict(os.environ, PYTHONPATH=str(ROOT),
               PATH=os.path.dirname(python) + os.pathsep + os.environ.get("PATH", ""))
    if rtl_log:
        env["HWGEN_ALLO_RTL"] = str(rtl_log)
    # importlib: sub-folders hold test files of one name (aie/test_vector.py, aie2/...)
    subprocess.run([python, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                    "--import-mode=importlib", "--continue-on-collection-errors",
                    f"--junitxml={xml}", str(test_dir)],
                   cwd=test_dir, env=env, timeout=timeout, check=False,
                   stdout=subprocess.DEVNULL)
    rows = []
    for case in ET.parse(xml).getroot().iter("testcase"):
        module = case.get("classname") or case.get("name")
        name = module.split(".")[-1] + (f"::{case.get('name')}" if case.get("classname") else "")
        outcome, message = "passed", ""
        for kind in ("failure", "error", "skipped"):
            node = case.find(kind)
            if node is not None:
                outcome = {"failure": "failed", "error": "error", "skipped": "skipped"}[kind]
                message = _first_error(node)
        rows.append((name, outcome, message))
    return rows


def _first_error(node):
    """The error a failed or skipped test case reports, in one line: the last ``E`` line of
    its traceback (a collection error's real cause), else its message."""
    lines = [line[1:].strip() for line in (node.text or "").splitlines()
             if line.startswith("E ")]
    text = lines[-1] if lines else (node.get("message") or "").strip()
    return text.splitlines()[0] if text else ""


def classify(message, version):
    """Why a test failed, in a few words (``version``: the Python that ran it)."""
    if "needs a vendor tool" in message:
        return "needs Vitis HLS (the simulator part passed)"
    if "backend.aie" in message:
        return "an AIE test: needs AMD's AIE tools and backend"
    if "No module named 'torch'" in message:
        return "needs PyTorch"
    if "ModuleNotFoundError" in message or "has no attribute" in message:
        return "uses Allo internals hwgen does not serve"
    if "SyntaxError" in message:
        return f"needs a newer Python than {version}"
    return "hwgen"


def report(rows, rtl_rows, version):
    lines = ["# Allo dataflow tests on hwgen (import lines changed only)", "",
             "| test | result | reason | first error line |", "|---|---|---|---|"]
    for name, outcome, message in rows:
        reason = classify(message, version) if outcome in ("failed", "error") else ""
        lines.append(f"| {name} | {outcome} | {reason} | {message[:150].replace('|', '/')} |")
    counts = {o: sum(r[1] == o for r in rows) for o in ("passed", "failed", "error", "skipped")}
    lines += ["", ", ".join(f"{v} {k}" for k, v in counts.items())]
    if rtl_rows is not None:
        lines += ["", "## Regions as generated RTL (Verilator)", "",
                  "| file | region | RTL | why |", "|---|---|---|---|"]
        for r in rtl_rows:
            why = r.get("why", "").split(": ", 1)[-1][:150].replace("|", "/")
            lines.append(f"| {Path(r['file']).name} | {r['region']} | {r['result']} | {why} |")
    return "\n".join(lines) + "\n"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--allo", default=os.environ.get("ALLO"),
                        help="a checkout of github.com/cornell-zhang/allo (or set ALLO=...)")
    parser.add_argument("--rtl", action="store_true",
                        help="also run every simulated region as RTL on Verilator (minutes)")
    parser.add_argument("--timeout", type=int, default=3600, help="seconds for the whole run")
    parser.add_argument("--python", default=os.environ.get("ALLO_PYTHON", sys.executable),
                        help="the Python that runs the tests, with hwgen's dependencies "
                             "(two of Allo's tests use Python 3.12 syntax; `make allo` makes "
                             "one in build/allo_venv when a Python >= 3.12 is installed)")
    args = parser.parse_args(argv)
    if not args.allo:
        parser.error("give --allo PATH (or ALLO=PATH): a checkout of "
                     "https://github.com/cornell-zhang/allo, e.g. at commit a098603f")
    src = Path(args.allo) / "tests" / "dataflow"
    if not src.is_dir():
        parser.error(f"{src} does not exist: --allo must be the root of an Allo checkout")
    test_dir = OUT / "tests"
    names = port(src, test_dir)
    print(f"ported {len(names)} files from {src} to {test_dir}")
    rtl_log = OUT / "rtl.jsonl" if args.rtl else None
    if rtl_log and rtl_log.exists():
        rtl_log.unlink()
    found = shutil.which(args.python)   # a name on PATH, or a path: the tests run elsewhere
    if found is None:
        parser.error(f"--python {args.python} is not a Python this machine can run")
    args.python = os.path.abspath(found)
    try:
        version = subprocess.run([args.python, "-c", "import platform; "
                                  "print(platform.python_version())"], capture_output=True,
                                 text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        parser.error(f"--python {args.python} does not run")
    print(f"running them with Python {version} ({args.python})")
    rows = run_pytest(test_dir, rtl_log, args.timeout, args.python)
    rtl_rows = None
    if rtl_log:
        rtl_rows = [json.loads(line) for line in rtl_log.read_text().splitlines()] \
            if rtl_log.exists() else []
    text = report(rows, rtl_rows, version)
    (OUT / "results.md").write_text(text)
    print(text)
    print(f"written to {OUT / 'results.md'}")


if __name__ == "__main__":
    main()
