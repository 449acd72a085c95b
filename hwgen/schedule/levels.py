"""Pipeline levels of one task instance: where in the pipeline each value exists.

Each task instance runs one iteration of its (flattened) loop nest per enabled clock. Inside an
iteration, values have a *level*: the pipeline stage where they exist. A stream get is at level
0; a tensor read adds ``READ_LATENCY``; a multiply of two run-time values adds ``MULT_STAGES``
(the product register). A loop-carried variable is written and read back at one fixed level, so
``c += a * b`` updates ``c`` every cycle; so is every element of a local array (registers read
combinationally; a memory's read address goes out one level earlier and its read port is
transparent to the write). A register array read after a write to it in the same iteration is
read one level later, from the written registers.
"""
from ..ir.accumulate import LANES, accumulators, run_length, tree_depth
from ..ir.graph import (ArrayRead, ArrayWrite, Assign, BinOp, Const, Convert, FloatOp, Get,
                        LoopIndex, Neg, Put, Read, Select, SetSlice, Slice, VarRef, Write,
                        coexist, stmt_exprs)
from ..ir.layout import memory_arrays
from ..ir.types import FloatType

# A tensor read takes four stages: the synchronous memory read; a register on the read data,
# so that the block RAM's long clock-to-output (a DP16KD's on ECP5) does not
# reach the multiplier in the same cycle; a register after the sub-bank mux, so that the route
# from a block through the mux ends at a flip-flop beside the blocks, not at a multiplier; and
# one more from which the data crosses to the PEs, so that the PEs pull that register across
# the die, not the one after the mux.
READ_LATENCY = 4

# A multiply of two run-time values passes four registers: the operands, the product and the
# output (on ECP5 the MULT18X18D block's own, ``rtl.multiply``, so that no path runs from a
# fabric register through the DSP to another, crossing the fabric twice), then one in the
# fabric that the product lands in beside its adder, so that the route from the block to the
# accumulator's carry chain is a path of its own.
MULT_STAGES = 4

# Float arithmetic takes the pipelined units of ``rtl.float_units``: decode | partial products
# | product | count zeros | shift amount | shift | round for a multiply, decode | align | add |
# count zeros | shift | round for an add (the leading-zero count and the shift take stages
# of their own, so that no one stage holds a count, a shift and a sticky bit in a row, a long
# path on ECP5); a comparison, a negation or an absolute value is logic within its level; a
# division, ``float_stages``.
# An accumulation (``ir.accumulate``) keeps one partial sum per adder stage.
FLOAT_STAGES = {"*": 7, "+": LANES, "-": LANES}


def widens(convert):
    """Whether a ``Convert`` is bfloat16 -> float32: the same value with 16 more fraction bits,
    which hardware builds as wiring."""
    return getattr(convert.src, "name", None) == "bfloat16" and convert.dst.name == "float32"


def convert_stages(dst):
    """Levels of a conversion (``rtl.float_convert``) to ``dst``: into a float, a stage to
    line up the significand and four to round it; into an integer, three (decode, shift,
    saturate)."""
    return 5 if isinstance(dst, FloatType) else 3


# exp (``rtl.float_exp``): fixed point | sign | partial products of x * log2(e) | their sum |
# exponent and fraction | three Horner steps | pack.
EXP_STAGES = 9


def float_stages(op, fmt):
    """Levels of float ``op`` in format ``fmt``: ``FLOAT_STAGES``; a division takes two
    stages to normalise its operands, one per quotient bit (the significand's and two more),
    one to align the quotient and the multiplier's four to round it; exp ``EXP_STAGES``."""
    if op == "/":
        return 2 + (fmt.man + 3) + 1 + 4
    if op == "exp":
        return EXP_STAGES
    return FLOAT_STAGES.get(op, 0)


# The key in a statement's levels under which a register array it reads after a write to it in
# the same iteration is (``Levels.late``).
WRITTEN = "written"


# A float sum whose runs are this long or longer adds its partial sums on one adder, in five
# slots over 2 * A + 4 clocks (A the adder's stages), before the next run's sums are ready:
# ``rtl.float_sum``; shorter runs add them in a tree of adders.
SERIAL_RUN = 2 * FLOAT_STAGES["+"] + 4


def sum_stages(run):
    """Levels from the term of a float accumulation that runs ``run`` updates to its total:
    the add into a partial sum, then the pairwise adds of the sums used (in a tree, or for
    long runs on one adder: a clock to capture the sums, then three rounds, each starting a
    clock after its operands are chosen, the first over three clocks)."""
    adder = FLOAT_STAGES["+"]
    if run >= SERIAL_RUN:
        return 4 * adder + 5
    return adder * (1 + tree_depth(min(run, LANES)))


def is_runtime_product(e):
    """Whether ``e`` is a multiply of two run-time values (one that takes ``MULT_STAGES``)."""
    return isinstance(e, BinOp) and e.op == "*" and \
        not isinstance(e.lhs, Const) and not isinstance(e.rhs, Const)


def multipliers(inst):
    """Multiplies of two run-time values in an instance's body: one DSP block each."""
    return sum(1 for seg in inst.segments for stmt in seg.body for e in stmt_exprs(stmt)
               if is_runtime_product(e))


class Levels:
    """Pipeline levels of one instance.

    Parameters
    ----------
    inst : ir.Instance

    Attributes
    ----------
    var : dict
        Local variable -> the level at which it is read back from an earlier iteration (and
        written, but for ``split`` variables).
    var_w : dict
        Local variable -> the level at which it is written.
    arr, arr_w : dict
        The same for local arrays' elements.
    split : set
        Variables and arrays whose new values need their old ones through operations that
        take more than a clock (``p = p * x``, ``buf[j] = buf[j] * 2.0 + 1.0``): written at a
        later level than they are read, correct when a write and the next read are far enough
        apart (``schedule.recurrences``).
    puts, gets : dict
        Channel -> the level of the put (get) on it.
    writes : dict
        ``ir.Site`` of a tensor ``Write`` statement -> its level: one per tensor, the latest of
        its writes, so that they reach its output buffer in iteration order.
    held : dict
        ``ir.Site`` of a tensor ``Write`` of a variable assigned earlier in its iteration (and
        not again after it) -> the variable: the write reads the variable's register, a level
        after it is written, so that the assignment's logic (an accumulator's adder) drives
        the register alone, not also a far output bank's register.
    late : dict
        ``ir.Site`` of a statement -> the register arrays it reads after their write in the
        same iteration (a level later).
    depth : int
        Pipeline stages of the instance (its deepest level plus one).
    """

    def __init__(self, inst):
        self.inst = inst
        self.memory = memory_arrays(inst)
        self.sums = accumulators(inst)
        self.late = {}          # Site of a statement -> the arrays it reads after their write
        self.split, self.floor = set(), {}
        self._settle()
        for name in sorted(self.split):
            self._read_late(name)
        self.puts, self.gets, self.writes, self.held = {}, {}, {}, {}
        self.depth = 1
        self._record()

    def _settle(self):
        """Raise the loop-carried levels until they are a fixed point of one pass; the
        variables and arrays whose levels keep rising are ``split``, and the levels settled
        again (a split one's writes no longer raise its reads, so this ends)."""
        self.var = {v: self.floor.get(v, 0) for v in self.inst.vars}
        self.arr = {a: self.floor.get(a, int(a in self.memory)) for a in self.inst.arrays}
        self.var_w, self.arr_w = dict(self.var), dict(self.arr)
        for _ in range(4 * (len(self.var) + len(self.arr)) + 4):
            levels = self._pass()
            if levels == (self.var, self.var_w, self.arr, self.arr_w):
                return
            self.var, self.var_w, self.arr, self.arr_w = levels
        var, _, arr, _ = self._pass()
        grow = {v for v in self.var if var[v] != self.var[v]} | \
            {a for a in self.arr if arr[a] != self.arr[a]}
        assert grow - self.split, "split levels always settle"
        self.split |= grow
        self._settle()

    def _read_late(self, name):
        """Read split ``name`` as late as its write level allows (the term that its old value
        is combined with arrives later: ``acc + X[i]`` waits for the read of ``X``), so that
        fewer clocks separate its read from its write: the latest read level that leaves
        every write level where it is, found by bisection (write levels only rise with it)."""
        before = (dict(self.var_w), dict(self.arr_w))
        read, write = (self.var, self.var_w) if name in self.var else (self.arr, self.arr_w)
        lo, hi = read[name], write[name]
        while lo < hi:
            mid = (lo + hi + 1) // 2
            self.floor[name] = mid
            self._settle()
            if (self.var_w, self.arr_w) == before:
                lo = mid
            else:
                hi = mid - 1
        self.floor[name] = lo
        self._settle()

    def level(self, e, env):
        """The level of expression ``e``, with ``env`` the levels assigned so far this
        iteration."""
        if isinstance(e, (Const, LoopIndex, Get)):
            return 0
        if isinstance(e, VarRef):
            return env.get(e.name, self.var[e.name])
        if isinstance(e, Read):
            return max([self.level(i, env) for i in e.index] + [0]) + READ_LATENCY
        if isinstance(e, ArrayRead):
            # After a write in the same iteration: a level later, once the register is written.
            return self.arr[e.array] + int((WRITTEN, e.array) in env)
        if isinstance(e, BinOp):
            return max(self.level(e.lhs, env), self.level(e.rhs, env)) + \
                (MULT_STAGES if is_runtime_product(e) else 0)
        if isinstance(e, FloatOp):
            operands = [e.lhs] if e.rhs is None else [e.lhs, e.rhs]
            return max(self.level(x, env) for x in operands) + float_stages(e.op, e.fmt)
        if isinstance(e, Convert):
            return self.level(e.operand, env) + (0 if widens(e) else convert_stages(e.dst))
        if isinstance(e, Neg):
            return self.level(e.operand, env)
        if isinstance(e, (Slice, SetSlice)):
            parts = (e.operand, e.offset) + ((e.value,) if isinstance(e, SetSlice) else ())
            return max(self.level(x, env) for x in parts if x is not None)
        if isinstance(e, Select):
            return max(self.level(x, env) for x in (e.cond, e.a, e.b))
        raise TypeError(e)

    def _segment(self, gi, arr, arr_w):
        """Each statement of segment ``gi`` with its site and level, and the levels assigned
        in the segment; raises ``arr`` (``arr_w``: array read and write levels) where an
        element is read (written) at a later level than known."""
        env, levels, writes = {}, [], []
        for site, seg, s in self.inst.sites(gi):
            # Register arrays written earlier in this iteration are read a level later.
            self.late[site] = {a for a, pred in writes if coexist(pred, s.pred, seg.trips)
                               and a not in self.memory and a not in self.split}
            for key in [k for k in env if isinstance(k, tuple)]:
                del env[key]
            env.update({(WRITTEN, a): True for a in self.late[site]})
            for e in stmt_exprs(s):
                if isinstance(e, ArrayRead):
                    # The index must be ready when the element is read (a memory's address
                    # one level earlier).
                    lead = int(e.array in self.memory)
                    arr[e.array] = max([arr[e.array]] +
                                       [self.level(i, env) + lead for i in e.index])
            if isinstance(s, Assign) and s.var in self.sums:
                levels.append((site, *self._sum(seg, s, env)))
                continue
            lv = self.level(s.value, env)
            if isinstance(s, Write) and self._holds(seg, s, env):
                lv = self.var_w[s.value.name] + 1           # the register
            if isinstance(s, (Write, ArrayWrite)):
                lv = max([lv] + [self.level(i, env) for i in s.index])
            if isinstance(s, ArrayWrite):
                _raise(arr, arr_w, s.array, lv, s.array in self.split)
                writes.append((s.array, s.pred))
            if isinstance(s, Assign):
                if s.pred:
                    lv = max(lv, env.get(s.var, self.var[s.var]))
                env[s.var] = lv
            levels.append((site, s, lv, dict(env)))
        return levels, env

    def _holds(self, seg, write, env):
        """Whether ``write`` (in ``seg``) writes a variable assigned earlier in its iteration,
        and not after it, from the variable's register (``held``): not a split or float
        accumulator, whose registers lag their values."""
        v = write.value.name if isinstance(write.value, VarRef) else None
        after = seg.body[next(k for k, t in enumerate(seg.body) if t is write) + 1:]
        return v in env and v in self.var and v not in self.split and v not in self.sums \
            and not any(isinstance(s, Assign) and s.var == v for s in after)

    def _sum(self, seg, s, env):
        """An assignment to a float accumulator: the level where its value (the start value,
        or an update's term) enters the partial sums. After the update, the accumulator reads
        as its total, ``sum_stages`` later."""
        update = self.sums[s.var] if self.sums[s.var].stmt is s else None
        # At level 1 or more: ``rtl.float_sum`` registers its flags from a level before.
        lv = max(1, self.level(s.value if update is None else update.term, env))
        if update is not None:
            run = run_length(seg, s.var, update) or LANES
            env[s.var] = max(lv, self.var[s.var]) + sum_stages(run)
        return s, lv, dict(env)

    def _pass(self):
        """One pass over the body: the variable and array levels it implies,
        ``(var, var_w, arr, arr_w)``."""
        var, var_w = dict(self.var), dict(self.var_w)
        arr, arr_w = dict(self.arr), dict(self.arr_w)
        for gi in range(len(self.inst.segments)):
            for _, s, lv, _ in self._segment(gi, arr, arr_w)[0]:
                if isinstance(s, Assign):
                    _raise(var, var_w, s.var, lv, s.var in self.split)
        for read, write in ((var, var_w), (arr, arr_w)):
            for name in read:
                _raise(read, write, name, read[name], name in self.split)
        return var, var_w, arr, arr_w

    def _record(self):
        """Stream-op and write levels and the pipeline depth, at the settled levels."""
        tensor_writes, latest = [], {}
        for gi, seg in enumerate(self.inst.segments):
            levels, assigned = self._segment(gi, dict(self.arr), dict(self.arr_w))
            for site, s, lv, env in levels:
                self.depth = max(self.depth, lv + 1)
                if isinstance(s, Write):
                    tensor_writes.append((site, s))
                    latest[s.tensor] = max(lv, latest.get(s.tensor, 0))
                    if self._holds(seg, s, env):
                        self.held[site] = s.value.name
                if isinstance(s, Put):      # several puts on a stream share one level
                    self.puts[s.channel] = max(lv, self.puts.get(s.channel, 0))
                for e in stmt_exprs(s):
                    if isinstance(e, Get):
                        self.gets[e.channel] = 0
                    if isinstance(e, Read):
                        self.depth = max(self.depth, self.level(e, env) + 1)
            self.depth = max([self.depth] + [self.var_w[v] + 1 for v in assigned
                                             if v in self.var] +
                             [self.arr_w[a] + 1 for a in self.arr] +
                             [lv + 1 for lv in self.puts.values()])
        for site, w in tensor_writes:
            self.writes[site] = latest[w.tensor]


def _raise(read, write, name, level, split):
    """Write ``name`` (a variable or array) at ``level`` or later: its write level rises, and
    its read level with it unless it is split."""
    write[name] = max(write[name], read[name], level)
    if not split:
        read[name] = write[name]
