"""Local array rules the pipeline relies on: within one loop iteration an array is read before
it is written (every access happens at the array's one pipeline level), and an array kept in a
memory is written by at most one statement per loop nest (it has one write port)."""
from ..errors import HwgenError
from ..ir.graph import ArrayRead, ArrayWrite, stmt_exprs
from ..ir.layout import array_in_memory


def check_arrays(graph):
    for inst in graph.instances.values():
        for seg in inst.segments:
            written = {}
            for stmt in seg.body:
                for e in stmt_exprs(stmt):
                    if isinstance(e, ArrayRead) and e.array in written:
                        raise HwgenError(
                            f"in task {inst.name}: local array '{e.array}' is read after it is "
                            f"written in the same loop iteration (written at line "
                            f"{written[e.array][1]}); keep the new value in a local and use that",
                            e.loc or stmt.loc)
                if isinstance(stmt, ArrayWrite):
                    if stmt.array in written and array_in_memory(inst.arrays[stmt.array]):
                        raise HwgenError(
                            f"in task {inst.name}: local array '{stmt.array}' is a memory (more "
                            "than 16 elements) with one write port, but this loop nest writes it "
                            f"twice (also at line {written[stmt.array][1]}); write it once per "
                            "iteration", stmt.loc)
                    written[stmt.array] = stmt.loc
