"""benchmarks/allo_compat.py: only import lines change when Allo's tests are ported."""
import os
import sys

import pytest

from tests.conftest import ROOT

sys.path.insert(0, os.path.join(ROOT, "benchmarks"))
import allo_compat  # noqa: E402


@pytest.mark.parametrize("line,ported", [
    ("import allo", "import hwgen.allo as allo"),
    ("import allo.dataflow as df", "import hwgen.allo.dataflow as df"),
    ("from allo.ir.types import float32, Stream", "from hwgen.allo.ir.types import float32, Stream"),
    ("from allo.backend import hls", "from hwgen.allo.backend import hls"),
    ("    import allo", "    import hwgen.allo as allo"),
    ("x = allo.grid(M, N)  # import allo", "x = allo.grid(M, N)  # import allo"),
    ("import allocator", "import allocator"),
])
def test_only_imports_change(line, ported):
    assert allo_compat.port_line(line) == ported


def test_port_copies_every_test_file(tmp_path):
    src = tmp_path / "allo" / "tests" / "dataflow"
    src.mkdir(parents=True)
    (src / "test_a.py").write_text("import allo\nimport numpy as np\nA = allo.grid(2, 2)\n")
    (src / "helper.py").write_text("import allo\n")
    (src / "sparse").mkdir()
    (src / "sparse" / "test_b.py").write_text("from allo.ir.types import int128\n")
    assert allo_compat.port(src, tmp_path / "out") == ["sparse/test_b.py", "test_a.py"]
    assert (tmp_path / "out" / "test_a.py").read_text() == \
        "import hwgen.allo as allo\nimport numpy as np\nA = allo.grid(2, 2)\n"
    assert (tmp_path / "out" / "sparse" / "test_b.py").read_text() == \
        "from hwgen.allo.ir.types import int128\n"


@pytest.mark.parametrize("argv,words", [([], "give --allo PATH"),
                                        (["--allo", "/nonexistent"], "does not exist")])
def test_bad_arguments_are_clear_errors(argv, words, capsys, monkeypatch):
    monkeypatch.delenv("ALLO", raising=False)
    with pytest.raises(SystemExit) as e:
        allo_compat.main(argv)
    assert e.value.code == 2 and words in capsys.readouterr().err


def test_a_python_that_does_not_run_is_a_clear_error(tmp_path, capsys):
    (tmp_path / "tests" / "dataflow").mkdir(parents=True)
    with pytest.raises(SystemExit) as e:
        allo_compat.main(["--allo", str(tmp_path), "--python", "no-such-python3.12"])
    assert e.value.code == 2 and "is not a Python this machine can run" in \
        capsys.readouterr().err
