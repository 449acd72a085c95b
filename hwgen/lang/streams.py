"""Stream names in a task body: ``s``, ``s[i, j]`` -> the channel a put or get uses, with its
producer and consumer; in a folded program, the virtual stream each iteration reaches
(``lang.fold``)."""
import ast
import itertools

from ..ir.graph import BinOp, Channel, Const, LoopIndex, Neg, Put, subexprs
from ..ir.types import StreamType
from .fold import StreamUse, evaluate, iterations


class StreamLowerer:
    """Resolves the stream operands of a task body's puts and gets to channels, recorded in the
    task's ``context.TaskContext`` (and, in a folded program, the parser's fold state); stream
    indices go through the ``task``'s expression lowerer (``body.TaskLowerer``)."""

    def __init__(self, ctx, task):
        self.ctx, self.task = ctx, task

    def virtual_stream(self, name, elts, verb, stmt):
        """``name[elts]`` in a folded program: record which virtual stream it reaches on
        each fold iteration the enclosing branches allow; a provisional channel name."""
        stype, decl_loc = self.ctx.streams[name]
        if stype.bound is not None:
            self.ctx.error(f"stream '{name}' is closed (Stream[..., {stype.bound}]): the "
                           "interpreter runs closed streams, but folding a task grid onto an "
                           "array does not build them yet", stmt)
        index = [self.task.exprs.expr(e) for e in elts]
        nodes = [x for e in index for x in subexprs(e)]
        if any(not isinstance(x, (Const, LoopIndex, BinOp, Neg)) or
               isinstance(x, LoopIndex) and x.depth >= self.ctx.n_fold for x in nodes):
            self.ctx.error(_index_error(", ".join(map(ast.unparse, elts))), stmt)
        targets = {}
        for n in itertools.product(*(self.fold_iterations(d) for d in range(self.ctx.n_fold))):
            at = tuple(evaluate(e, n) for e in index)
            if len(at) != len(stype.shape) or any(not 0 <= i < s for i, s in zip(at, stype.shape)):
                self.ctx.error(f"stream index {list(at)} is out of range for '{name}' of shape "
                               f"{list(stype.shape)} (at virtual instance {self.virtual_pid(n)})",
                               stmt)
            vname = self.ctx.parser.prefix + name + (f"[{','.join(map(str, at))}]" if at else "")
            role = self.ctx.parser.fold.ends.setdefault(vname, {})
            other = role.get(verb)
            if other is not None and other != self.ctx.name:
                role_name = "producers" if verb == "put" else "consumers"
                self.ctx.error(f"stream '{vname}' has two {role_name}: {other} and "
                               f"{self.ctx.name}; a stream connects exactly one producer to one "
                               "consumer", stmt)
            role[verb] = self.ctx.name
            targets[n] = vname
        uses = self.ctx.parser.fold.uses
        prov = f"{name}#{len(uses)}"
        uses[prov] = StreamUse(verb, name, self.ctx.name, targets, self.ctx.parser.loc(stmt))
        self.ctx.channels[prov] = Channel(prov, StreamType(stype.dtype, stype.depth,
                                                           block=stype.block), loc=decl_loc)
        return prov

    def fold_iterations(self, d):
        """The iterations of fold loop ``d`` that the enclosing branches allow."""
        its = iterations(self.ctx.trips[d])
        return [i for i in its if all(p.allows(d, i, its.stop) for p in self.ctx.context)]

    def virtual_pid(self, n):
        """The virtual grid position this instance runs on fold iteration ``n``."""
        pid, k = list(self.ctx.pid), 0
        for d in self.ctx.folded_axes():
            pid[d] += self.ctx.grid[d] * n[k]
            k += 1
        return tuple(pid)

    def channel(self, node, verb, stmt):
        """The channel name of ``stream`` or ``stream[i, j]``, recording producer/consumer."""
        if isinstance(node, ast.Name):
            name, index = node.id, ()
        elif isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name):
            name = node.value.id
            elts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
            if self.ctx.parser.fold is not None and name in self.ctx.streams:
                return self.virtual_stream(name, elts, verb, stmt)
            index = tuple(self.task.exprs.const_value(e) for e in elts)
            if any(i is None for i in index):
                self.ctx.error(_index_error(ast.unparse(node.slice)), stmt)
        else:
            self.ctx.error(f"`{ast.unparse(node)}.{verb}()`: not a stream", stmt)
        if name not in self.ctx.streams:
            self.ctx.error(f"'{name}' is not a stream declared in the region", stmt)
        if self.ctx.parser.fold is not None:
            return self.virtual_stream(name, list(index), verb, stmt)
        stype, decl_loc = self.ctx.streams[name]
        if len(index) != len(stype.shape) or \
                any(not 0 <= i < n for i, n in zip(index, stype.shape)):
            self.ctx.error(f"stream index {list(index)} is out of range for '{name}' of shape "
                           f"{list(stype.shape)}", stmt)
        cname = self.ctx.parser.prefix + name + (f"[{','.join(map(str, index))}]" if index else "")
        chan = self.ctx.channels.setdefault(
            cname, Channel(cname, StreamType(stype.dtype, stype.depth, block=stype.block,
                                             bound=stype.bound), loc=decl_loc))
        role = "producer" if verb == "put" else "consumer"
        other = getattr(chan, role)
        if other is not None and other != self.ctx.name:
            self.ctx.error(f"stream '{cname}' has two {role}s: {other} and {self.ctx.name}; a "
                           f"stream connects exactly one producer to one consumer", stmt)
        setattr(chan, role, self.ctx.name)
        return cname

    def counted(self, chan, verb, node):
        """A put or get on a stream of a fixed count runs a number of times known at compile
        time: not under a run-time condition, nor in a loop whose count depends on data."""
        where = "under a run-time condition" if self.ctx.conditional else \
            "in a loop whose count depends on data" if self.ctx.dynamic else None
        if where:
            self.ctx.error(f"a {verb} on stream '{chan}' {where} would run a number of times "
                           "that depends on data; compute the value with if/else and "
                           f"{verb} it unconditionally, or declare the stream closed, with the "
                           "most values per problem (Stream[int8, 4, 256]): its producer "
                           "close()s it, its consumer reads it with `for v in s:` or "
                           "`s.more()`", node)

    def close(self, s, loc):
        """``stream.close()``: the token that ends the problem's values on a closed stream,
        once per problem, after its last put."""
        call, ctx = s.value, self.ctx
        chan = self.channel(call.func.value, "put", s)
        if call.args or call.keywords:
            ctx.error("close takes no arguments: `stream.close()`", s)
        if ctx.channels[chan].bound is None:
            ctx.error(f"stream '{chan}' has a fixed count per problem and is not closed; to "
                      "close it, declare the most values per problem, as Stream[int8, 4, 256]",
                      s)
        if ctx.loops or ctx.conditional:
            ctx.error(f"stream '{chan}' is closed inside a loop or a run-time condition; close "
                      "it once per problem, after the loops that put on it", s)
        if chan in ctx.closed:
            ctx.error(f"stream '{chan}' is closed twice; close it once per problem", s)
        ctx.closed.add(chan)
        return Put(chan, Const(0), loc=loc, close=True)


def _index_error(index):
    """The one refusal of a stream index that is not known at compile time."""
    return (f"stream index `{index}` must be computed from grid indices and sizes only (each "
            "stream statement names its stream at compile time): to reach the streams of an "
            "array in turn, unroll the loop with `with hwgen.meta_for(N) as n:`")
