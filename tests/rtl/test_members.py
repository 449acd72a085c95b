"""Members of one layout build the same module (rtl.members): for Verilog one of them is built
and the others instantiate it, so the layout, which comes from the plan (schedule.kinds), must
hold everything the module is built from. Every member is built here, as Amaranth's simulator
takes them, and the modules of each layout compared."""
import glob
import os

import pytest
from amaranth.hdl import Fragment

from hwgen.pipeline import load_design, load_module
from hwgen.rtl.group import Group
from hwgen.rtl.kinds import structure
from hwgen.schedule import plan
from hwgen.schedule.ports import safe_name
from tests.conftest import EXAMPLES, PROGRAMS, example

DESIGNS = [(path, sizes, None)
           for path in sorted(glob.glob(os.path.join(EXAMPLES, "*.py")))
           if not path.endswith("__init__.py")
           for sizes in [None] + load_module(path).TEST_SIZES] + \
          [(path, None, None) for path in sorted(glob.glob(os.path.join(PROGRAMS, "*.py")))
           if not path.endswith("runtime_index.py")] + \
          [(example("gemm_os"), {"M": 4, "N": 4, "K": 8}, (2, 2)),
           (example("gemm_os"), {"M": 6, "N": 4, "K": 5}, (3, 2))]


# (runtime_index is refused in hardware.)


def _id(design):
    path, sizes, array = design
    return os.path.basename(path)[:-3] + "".join(f"-{k}{v}" for k, v in (sizes or {}).items()) \
        + (f"-array{array[0]}x{array[1]}" if array else "")


@pytest.mark.parametrize("design", DESIGNS, ids=_id)
def test_members_of_one_layout_build_the_same_module(design):
    path, sizes, array = design
    built = plan(load_design(path, sizes, array=array))
    for scheduled in built.schedule.groups:
        group = Group(built, scheduled)
        fragment = Fragment.get(group, None)
        modules = {name: sub for sub, name, _ in fragment.subfragments}
        alike = {}
        for member, layout in group.layouts.items():
            st = structure(modules[safe_name(member)])
            alike.setdefault(layout, set()).add(
                (st.text, tuple((s.shape(), s.init, s.reset_less) for s in st.signals),
                 tuple(sorted(st.inputs)), tuple(sorted(st.driven))))
        assert all(len(found) == 1 for found in alike.values()), \
            [members for members, found in alike.items() if len(found) > 1]
