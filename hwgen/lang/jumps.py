"""``break`` and ``continue`` in a loop whose count depends on data, as flags.

A loop body that jumps is rewritten before it is lowered: a jump sets a flag (``break`` one
that also ends the loop, ``continue`` one cleared at the start of each iteration), and the
statements after an ``if`` that may jump run under ``if (brk | cont) == 0:``; a run-time
condition around the jump is if-converted as any other (``branches``). Jumps inside an inner
``for`` loop belong to it and stay unsupported.
"""
import ast


def has_jump(stmts):
    """Whether ``stmts`` hold a ``break`` or ``continue`` of the loop they are the body of."""
    return any(_jumps_in(s) for s in stmts)


def _jumps_in(node):
    if isinstance(node, (ast.Break, ast.Continue)):
        return True
    if isinstance(node, (ast.For, ast.While, ast.FunctionDef)):
        return False
    return any(_jumps_in(c) for c in ast.iter_child_nodes(node))


def rewrite(stmts, brk, cont):
    """``stmts`` with each jump setting its flag (``brk`` or ``cont``, names of locals) and
    what follows a possible jump under a test that none was taken."""
    out = []
    for k, s in enumerate(stmts):
        if isinstance(s, (ast.Break, ast.Continue)):
            out.append(_set(brk if isinstance(s, ast.Break) else cont, s))
            return out                  # what follows never runs
        if isinstance(s, ast.If) and _jumps_in(s):
            out.append(ast.copy_location(ast.If(s.test, rewrite(s.body, brk, cont),
                                                rewrite(s.orelse, brk, cont)), s))
            rest = stmts[k + 1:]
            if rest:
                test = ast.Compare(ast.BinOp(_name(brk), ast.BitOr(), _name(cont)), [ast.Eq()],
                                   [ast.Constant(0)])
                out.append(ast.copy_location(ast.If(test, rewrite(rest, brk, cont), []),
                                             rest[0]))
            return [ast.fix_missing_locations(x) for x in out]
        out.append(s)
    return out


def _name(var):
    return ast.Name(var, ast.Load())


def _set(var, node):
    return ast.fix_missing_locations(ast.copy_location(
        ast.Assign([ast.Name(var, ast.Store())], ast.Constant(1)), node))
