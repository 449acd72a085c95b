"""Deadlock: can every task run a problem to its end at the declared stream depths?

Which streams a task instance puts to and gets from, and in which order, is fixed at compile
time where no stream is closed (``StreamType.bound``): stream operations then never depend on
data (the language rejects them under run-time conditions). Running those operation sequences
against FIFOs of the declared depths, without any data, therefore decides deadlock exactly:
a process network of this kind is deterministic, so the order in which tasks are advanced does
not matter. Runs of identical loop iterations advance in bulk, so the cost follows the number
of distinct runs, not of iterations.
"""
from ..errors import HwgenError
from ..ir.graph import StreamOp, stream_ops


def _runs(trips, stmts, depth=0, holds=None):
    """Run-length list ``[(ops, count)]`` of the stream operations of a loop nest, in order.

    ``stmts`` are ``(pred, ops)``; a statement runs on iterations where each of its predicates
    holds at every depth from the predicate's own. ``holds`` says, per statement and predicate,
    whether it has held at all depths entered so far. Iterations between two predicate
    boundaries (the first, the interior, the last, a phase) behave alike.
    """
    if holds is None:
        holds = [[True] * len(pred) for pred, _ in stmts]
    if depth == len(trips):
        ops = tuple(op for (pred, ops_), h in zip(stmts, holds) if all(h) for op in ops_)
        return [(ops, 1)] if ops else []
    trip, runs = trips[depth], []
    # Between two cuts every predicate holds throughout or nowhere.
    if any(p.kind == "mod" and p.depth == depth for pred, _ in stmts for p in pred):
        cuts = list(range(trip + 1))        # a period: every iteration may differ
    else:
        cuts = sorted({0, trip} | {x for pred, _ in stmts for p in pred
                                   for lo, hi in p.runs(depth, trip) for x in (lo, hi + 1)})
    for lo, hi in zip(cuts, cuts[1:]):
        count = hi - lo
        inner = [[h and p.allows(depth, lo, trip) for h, p in zip(hs, pred)]
                 for hs, (pred, _) in zip(holds, stmts)]
        sub = _runs(trips, stmts, depth + 1, inner)
        if not sub:
            continue
        sub = [(sub[0][0], sub[0][1] * count)] if len(sub) == 1 else sub * count
        for ops, n in sub:
            if runs and runs[-1][0] == ops:
                runs[-1] = (ops, runs[-1][1] + n)
            else:
                runs.append((ops, n))
    return runs


def trace(inst):
    """The instance's stream operations for one problem, as ``[(ops, count)]`` runs."""
    runs = []
    for seg in inst.segments:
        stmts = [(s.pred, stream_ops(s)) for s in seg.body]
        stmts = [(pred, ops) for pred, ops in stmts if ops]
        if stmts:
            runs.extend(_runs(seg.trips, stmts))
    return runs


class _Task:
    def __init__(self, inst):
        self.inst = inst
        self.runs = trace(inst)
        self.run = self.done = self.op = 0      # run index, iterations done in it, next op

    @property
    def finished(self):
        return self.run == len(self.runs)

    @property
    def waiting(self):
        return self.runs[self.run][0][self.op]


class _Network:
    def __init__(self, graph):
        self.graph = graph
        self.level = {name: 0 for name in graph.channels}
        self.tasks = [_Task(inst) for inst in graph.instances.values()]

    def can(self, op, chan):
        if op is StreamOp.GET:
            return self.level[chan] > 0
        return self.level[chan] < self.graph.channels[chan].depth

    def advance(self, task):
        """Move ``task`` as far as it can; whether it moved."""
        moved = False
        while not task.finished:
            ops, count = task.runs[task.run]
            chans = [c for _, c, _ in ops]
            if task.op == 0 and len(set(chans)) == len(chans):
                # Whole iterations at once: each channel is touched once per iteration.
                n = count - task.done
                for op, c, _ in ops:
                    room = self.level[c] if op is StreamOp.GET else \
                        self.graph.channels[c].depth - self.level[c]
                    n = min(n, room)
                if n > 0:
                    for op, c, _ in ops:
                        self.level[c] += n if op is StreamOp.PUT else -n
                    task.done += n
                    moved = True
            if task.done < count:
                op, c, _ = ops[task.op]
                if not self.can(op, c):
                    return moved
                self.level[c] += 1 if op is StreamOp.PUT else -1
                task.op += 1
                moved = True
                if task.op == len(ops):
                    task.op, task.done = 0, task.done + 1
            if task.done == count:
                task.run, task.done = task.run + 1, 0
        return moved

    def run(self):
        """The tasks that cannot finish (none when the problem runs to its end)."""
        progress = True
        while progress:
            progress = False
            for t in self.tasks:
                progress |= not t.finished and self.advance(t)
        return [t for t in self.tasks if not t.finished]


def check_deadlock(graph):
    """Raise ``HwgenError`` at a blocked operation's line if a problem cannot run to its end.
    A program with closed streams, whose traffic depends on data, is checked as it runs
    instead: the interpreter names the streams its tasks wait on when none can move."""
    if any(c.bound is not None for c in graph.channels.values()):
        return
    blocked = _Network(graph).run()
    if not blocked:
        return
    by_name = {t.inst.name: t for t in blocked}
    # Follow "waits for" from one blocked task until a task repeats: that is the cycle.
    seen, task = [], min(blocked, key=lambda t: t.inst.name)
    while task not in seen:
        seen.append(task)
        op, chan, _ = task.waiting
        ch = graph.channels[chan]
        task = by_name[ch.producer if op is StreamOp.GET else ch.consumer]
    cycle = seen[seen.index(task):]
    parts = []
    for t in cycle:
        op, chan, loc = t.waiting
        ch = graph.channels[chan]
        other = ch.producer if op is StreamOp.GET else ch.consumer
        state = "empty" if op is StreamOp.GET else f"full, {ch.depth} of {ch.depth}"
        verb = "puts to" if op is StreamOp.GET else "gets from"
        who = "only it itself" if other == t.inst.name else other
        parts.append(f"{t.inst.name} waits to {op.value} '{chan}' ({state}) at line {loc[1]}, "
                     f"and {who} {verb} it")
    if len(cycle) > 1:
        hint = "deepen a stream in this cycle or reorder its puts and gets"
    elif cycle[0].waiting[0] is StreamOp.GET:
        hint = "the task gets from its own stream before it puts the value; put it first"
    else:
        hint = "the task puts more values to its own stream than it holds before getting one"
    raise HwgenError("deadlock at the declared stream depths: " + "; ".join(parts) + f". Fix: "
                     f"{hint}.", cycle[0].waiting[2])
