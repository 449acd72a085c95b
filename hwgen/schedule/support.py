"""What the hardware builds, beyond what the language accepts: the rules a checked task graph
must also meet before any hardware is scheduled, each an error at the user's line that says
what to write instead. The interpreter runs programs that break them (Allo's
``target="simulator"``, ``hwgen run``); ``schedule`` refuses them first, so that no program
gets further into the generator only to fail there.
"""
from ..errors import HwgenError
from ..ir.graph import (ArrayRead, ArrayWrite, Assign, Read, StreamOp, VarRef, Write, coexist,
                        span_of, stmt_exprs, stream_ops, subexprs, trips_under)
from ..ir.accumulate import LANES, accumulators, run, update_of
from ..ir.layout import REGISTER_ARRAY_LIMIT, WIDE_REGISTER_LIMIT, index_bounds, memory_arrays
from .in_out import check_in_out


def check_support(graph):
    """Raise ``HwgenError`` for the first construct of ``graph`` hardware cannot build yet."""
    for inst in graph.instances.values():
        _static_indices(inst)
        _tensor_writes(inst)
        _one_op_per_stream(inst, graph.channels)
        _float_support(inst)
        _array_ports(inst)
    check_in_out(graph)


def _static_indices(inst):
    """Hardware addresses tensors and memories from its loop counters: every index is an
    affine expression of loop variables, grid indices and constants. A read-only table is
    read at any address: a value looked up in it (``inst.contents``); so is a local array in
    registers (a mux), and written at any (a decoder)."""
    registers = set(inst.arrays) - memory_arrays(inst)
    for seg in inst.segments:
        tables = {}             # local -> the tables its value was looked up in, this iteration
        for stmt in seg.body:
            _one_lookup_deep(inst, stmt, tables)
            accesses = [stmt] if isinstance(stmt, Write) or \
                isinstance(stmt, ArrayWrite) and stmt.array not in registers else []
            accesses += [e for e in stmt_exprs(stmt) if isinstance(e, Read) or
                         isinstance(e, ArrayRead) and e.array not in inst.contents and
                         e.array not in registers]
            for a in accesses:
                if any(index_bounds(i, seg.trips) is None for i in a.index):
                    name = a.tensor if isinstance(a, (Read, Write)) else a.array
                    raise HwgenError(f"in task {inst.name}: '{name}' is indexed by a value "
                                     "computed at run time; hardware addresses tensors and "
                                     "local arrays in memories from its loop counters: index "
                                     "with loop variables, grid indices and constants, or keep "
                                     "the values in a local array of at most "
                                     f"{REGISTER_ARRAY_LIMIT} elements (the interpreter runs it "
                                     "as it is)", a.loc or stmt.loc)


def _one_lookup_deep(inst, stmt, tables):
    """Every read of a table comes at one pipeline level, so no lookup in a table is indexed
    by a value looked up in the same table in the same iteration (``tables``: what each local
    holds so far, updated with ``stmt``)."""
    def looked_up(e):
        found = set()
        for x in subexprs(e):
            if isinstance(x, ArrayRead) and x.array in inst.contents:
                found.add(x.array)
            elif isinstance(x, VarRef):
                found |= tables.get(x.name, set())
        return found
    for e in stmt_exprs(stmt):
        if isinstance(e, ArrayRead) and e.array in inst.contents and \
                e.array in set().union(*map(looked_up, e.index)):
            raise HwgenError(f"in task {inst.name}: table '{e.array}' is looked up at a value "
                             "looked up in it in the same iteration; every read of a table "
                             "comes at one pipeline stage: declare a second table with the "
                             "same values for the second lookup", e.loc or stmt.loc)
    if isinstance(stmt, Assign):
        tables[stmt.var] = looked_up(stmt.value) | (tables.get(stmt.var, set()) if stmt.pred
                                                    else set())


def _tensor_writes(inst):
    """A tensor's writes reach its output buffer at one pipeline level, in iteration order
    (``schedule.levels``); within one iteration two statements never write the same element:
    hardware does not order them."""
    for seg in inst.segments:
        writes = [s for s in seg.body if isinstance(s, Write)]
        for k, later in enumerate(writes):
            for earlier in writes[:k]:
                if earlier.tensor == later.tensor and \
                        coexist(earlier.pred, later.pred, seg.trips) and all(
                            a == b or _overlap(
                                index_bounds(a, trips_under(earlier.pred, seg.trips)),
                                index_bounds(b, trips_under(later.pred, seg.trips)))
                            for a, b in zip(earlier.index, later.index)):
                    raise HwgenError(
                        f"in task {inst.name}: tensor '{later.tensor}' may be written at one "
                        f"element by two statements on one iteration (also at line "
                        f"{earlier.loc[1]}); hardware does not order them: write each element "
                        "once per iteration (keep the value in a local)", later.loc)


def _overlap(a, b):
    return a[1] >= b[0] and b[1] >= a[0]


def _one_op_per_stream(inst, channels):
    """A hardware stream takes one put and one get per clock: statements that put (get) on
    one stream never run on the same iteration (loops in sequence, first and last
    iterations). Folding joins virtual streams into one (``Channel.carries``), so the
    statements of a grid that run on one iteration may meet on one stream."""
    for seg in inst.segments:
        seen = {}
        for s in seg.body:
            ops = sorted(stream_ops(s), key=lambda op: op[0] is not StreamOp.PUT)
            for op, channel, loc in ops:
                other = next((x for x in seen.get((op, channel), [])
                              if x is s or coexist(x.pred, s.pred, seg.trips)), None)
                if other is not None:
                    verb = "put" if op is StreamOp.PUT else "get"
                    carries = channels[channel].carries if channel in channels else ()
                    named = f"stream '{channel}'" if not carries else \
                        f"stream '{channel}' ({', '.join(carries)}, one stream once folded)"
                    fix = "fold onto a larger array, or " if carries else ""
                    also = f"also at line {other.loc[1]}" if other.loc != loc else \
                        "more than once by this line"
                    raise HwgenError(
                        f"in task {inst.name}: {named} is {verb.replace('get', 'got')} twice "
                        f"on one iteration ({also}); a hardware stream "
                        f"moves one element per clock: {fix}{verb} it in different loops or "
                        "on different iterations" + ("" if op is StreamOp.PUT else
                                                     ", or get it once into a local"), loc)
                seen.setdefault((op, channel), []).append(s)


def _float_support(inst):
    """Hardware has every float operation and conversion (``rtl.float_units``,
    ``rtl.float_convert``), and spaces out a value updated from itself where needed
    (``schedule.recurrences``); a float sum keeps ``LANES`` partial sums (``ir.accumulate``)
    under rules of its own."""
    for var, update in accumulators(inst).items():
        _float_sum(inst, var, update)


def _float_sum(inst, var, update):
    """A float accumulator (``ir.accumulate``) is built as its adder, whose stages hold the
    partial sums, and the adds that total them (``rtl.float_sum``): it starts once per run of
    its loops, before its one update, and is read once that run has ended (on its last
    iteration, or in a later loop in sequence)."""
    home = next(seg for seg in inst.segments if any(s is update.stmt for s in seg.body))
    again = [s for s in home.body if s is not update.stmt and update_of(s, inst.vars) and
             s.var == var]
    if again:
        raise HwgenError(f"in task {inst.name}: float sum '{var}' is updated twice (also at "
                         f"line {update.stmt.loc[1]}); add both terms in one update "
                         f"(`{var} += x + y`)", again[0].loc)
    found = run(home, var, update)
    if found is None:
        raise HwgenError(
            f"in task {inst.name}: float sum '{var}' must be set right before the loop that "
            f"adds to it (`{var}: float32 = 0` before `for k in range(K): {var} += x`), and "
            f"added to on every iteration of that loop: hardware keeps it as {LANES} partial "
            "sums, started at that assignment", update.stmt.loc)
    for seg in inst.segments:
        if seg is not home and any(var in _mentions(s) for s in seg.body):
            raise HwgenError(f"in task {inst.name}: float sum '{var}' is used outside the "
                             "loop nest that adds to it; use it on that loop's last iteration "
                             "(the statement right after the loop)",
                             next(s.loc for s in seg.body if var in _mentions(s)))
    begin, depth, _ = found
    update = update.stmt
    at = next(i for i, s in enumerate(home.body) if s is update)
    last = [t - 1 for t in trips_under(update.pred, home.trips)]
    for i, s in enumerate(home.body):
        if s is begin or i == at or var not in _mentions(s):
            continue
        ends = all(span_of(s.pred, e, home.trips[e]) == (last[e], last[e])
                   for e in range(depth, len(home.trips)))
        later = not coexist(s.pred, update.pred, home.trips)   # a later loop in sequence
        if i < at or not (ends or later) or isinstance(s, Assign) and s.var == var:
            raise HwgenError(
                f"in task {inst.name}: float sum '{var}' is kept as {LANES} partial sums "
                "in hardware, added up once its loop has ended; use it after that loop "
                f"(line {update.loc[1]}), not inside it", s.loc)


def _mentions(stmt):
    """The local variables ``stmt`` reads or assigns."""
    names = {e.name for e in stmt_exprs(stmt) if isinstance(e, VarRef)}
    return names | {stmt.var} if isinstance(stmt, Assign) else names


def _array_ports(inst):
    """A local array kept in a memory is read before it is written within one loop iteration
    (every access happens at its one pipeline level) and written by at most one statement per
    iteration (it has one write port); a register array is not written from its own elements
    after a write in the same iteration (each array is written at one level). Statements of
    different phases (loops in sequence) never share an iteration."""
    in_memory = memory_arrays(inst)
    for seg in inst.segments:
        writes = {}             # array -> the statements writing it so far
        for stmt in seg.body:
            earlier = {a: next(w for w in ws if coexist(w.pred, stmt.pred, seg.trips))
                       for a, ws in writes.items()
                       if any(coexist(w.pred, stmt.pred, seg.trips) for w in ws)}
            memory = {a for a in earlier if a in in_memory}
            for e in stmt_exprs(stmt):
                if isinstance(e, ArrayRead) and e.array in memory:
                    raise HwgenError(
                        f"in task {inst.name}: local array '{e.array}' is a memory (more than "
                        f"{WIDE_REGISTER_LIMIT} elements), read after it is written in the same "
                        f"loop iteration (written at line {earlier[e.array].loc[1]}); a memory "
                        "reads the value from before the iteration: keep the new value in a "
                        "local and use that",
                        e.loc or stmt.loc)
            if isinstance(stmt, ArrayWrite):
                if stmt.array in earlier and any(isinstance(e, ArrayRead) and
                                                 e.array == stmt.array for e in stmt_exprs(stmt)):
                    raise HwgenError(
                        f"in task {inst.name}: local array '{stmt.array}' is written from its "
                        f"own elements after a write in the same loop iteration (line "
                        f"{earlier[stmt.array].loc[1]}); hardware writes an array once per "
                        "iteration level: compute the value in a local and write it once",
                        stmt.loc)
                if stmt.array in memory:
                    raise HwgenError(
                        f"in task {inst.name}: local array '{stmt.array}' is a memory (more "
                        f"than {WIDE_REGISTER_LIMIT} elements) with one write port, but it is "
                        "written twice on one loop iteration (also at line "
                        f"{earlier[stmt.array].loc[1]}); write it once per iteration", stmt.loc)
                writes.setdefault(stmt.array, []).append(stmt)
