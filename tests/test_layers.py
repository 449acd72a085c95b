"""The layers of hwgen import only downward (docs/architecture.md), only ``rtl`` and ``flow``
import Amaranth, and no module or function grows past what one reader can hold."""
import ast
import pathlib

import pytest

PACKAGE = pathlib.Path(__file__).resolve().parent.parent / "hwgen"

# What each part of hwgen may import from hwgen (besides itself). ``errors`` and ``host`` are
# leaves every layer may use.
ALLOWED = {
    "errors": set(),
    "host": {"errors"},
    "protocol": {"errors", "host"},
    "ir": {"errors"},
    "lang": {"errors", "ir"},
    "check": {"errors", "ir"},
    "schedule": {"errors", "host", "ir"},
    "dataflow": {"errors", "ir", "check", "schedule"},
    "mapping": {"errors", "host", "ir", "check", "schedule"},
    "rtl": {"errors", "host", "protocol", "ir", "schedule"},
    "flow": {"errors", "host", "protocol", "ir", "schedule", "rtl"},
    "pipeline": {"errors", "ir", "lang", "check", "dataflow", "mapping"},
    "campaign": {"errors", "host", "ir", "lang", "check", "schedule", "dataflow", "mapping", "rtl",
                 "flow", "pipeline"},
    "serial_line": {"errors"},
    "driver": {"errors", "host", "protocol", "ir", "flow", "pipeline", "serial_line"},
    "exercise": {"host", "flow", "driver"},
    "cli": {"errors", "host", "protocol", "driver", "ir", "lang", "check", "schedule", "dataflow", "mapping", "rtl",
            "flow", "pipeline", "cli_args", "cli_explore", "campaign", "exercise", "cli_model"},
    "model": {"errors", "ir", "schedule", "rtl", "pipeline"},
    "cli_model": {"errors", "model", "flow"},
    "cli_explore": {"errors", "dataflow", "mapping", "flow", "pipeline", "cli_args"},
    "cli_args": set(),
    "allo": {"errors", "ir", "lang", "check", "flow"},
    "__init__": {"errors", "lang"},
    "examples": {"__init__"},
}
AMARANTH = {"rtl", "flow"}
MAX_MODULE_LINES, MAX_FUNCTION_LINES = 400, 60


def _modules():
    return sorted(p for p in PACKAGE.rglob("*.py"))


def _part(path):
    rel = path.relative_to(PACKAGE).parts
    return rel[0] if len(rel) > 1 else rel[0][:-3]


def _imports(path):
    """``(hwgen part, line)`` of every hwgen import, and whether Amaranth is imported."""
    tree = ast.parse(path.read_text())
    package = path.relative_to(PACKAGE.parent).with_suffix("").parts[:-1]
    found, amaranth = [], False
    for node in ast.walk(tree):
        names = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[:len(package) - node.level + 1]
                names = [".".join(base + tuple(filter(None, [node.module])))]
                if not node.module:
                    names = [f"{names[0]}.{a.name}" for a in node.names]
            else:
                names = [node.module]
        for name in names:
            parts = name.split(".")
            if parts[0] == "amaranth":
                amaranth = True
            if parts[0] == "hwgen":
                found.append((parts[1] if len(parts) > 1 else "__init__", node.lineno))
    return found, amaranth


@pytest.mark.parametrize("path", _modules(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_imports_point_down_the_layers(path):
    part = _part(path)
    imports, amaranth = _imports(path)
    wrong = [f"line {line}: {target}" for target, line in imports
             if target != part and target not in ALLOWED[part]]
    assert not wrong, f"{part} may import only {sorted(ALLOWED[part])}: {wrong}"
    assert part in AMARANTH or not amaranth, f"only {sorted(AMARANTH)} import amaranth"


@pytest.mark.parametrize("path", _modules(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_modules_and_functions_stay_small(path):
    text = path.read_text()
    assert len(text.splitlines()) <= MAX_MODULE_LINES
    long = [f"{node.name} ({node.end_lineno - node.lineno + 1} lines)"
            for node in ast.walk(ast.parse(text))
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and
            node.end_lineno - node.lineno + 1 > MAX_FUNCTION_LINES]
    assert not long, f"split these by concept: {long}"
    assert "_MustUse" not in text, "a private Amaranth name"


def test_the_checker_sees_relative_imports():
    imports, amaranth = _imports(PACKAGE / "rtl" / "top.py")
    assert amaranth and {"ir", "schedule", "rtl"} <= {t for t, _ in imports}
