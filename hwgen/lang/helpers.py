"""Helper functions called from a task body, inlined: ``def f(x): y = x - 1; return y``
defined beside the region and used as ``A[i, f(j) + 1]``.

A helper's body is a few assignments to names and one ``return`` of an expression; it is
lowered like the task body's expressions, its parameters bound to the call's arguments (side
effects, loops and streams stay in tasks). Type annotations on its locals convert as in a task
(``y: float32 = x``). A mistake inside a helper is reported at the call, naming the helper.
"""
import ast
import inspect
import textwrap

from ..errors import HwgenError

MAX_DEPTH = 8


class HelperInliner:
    """Inlines the helper calls of a task body's expressions (``exprs.ExprLowerer`` calls it):
    each call pushes a frame of its parameters onto the context's ``inline_env``, and the
    helper's expressions go back to the expression lowerer of the ``task``."""

    def __init__(self, ctx, task):
        self.ctx, self.task = ctx, task

    def helper_call(self, node, fn, const_only):
        """The IR expression of ``fn(args)`` with ``fn``'s body inlined."""
        name = fn.__name__
        if len(self.ctx.inline_env) >= MAX_DEPTH:
            self.ctx.error(f"helper '{name}' calls helpers more than {MAX_DEPTH} deep", node)
        try:
            tree = ast.parse(textwrap.dedent(inspect.getsource(fn))).body[0]
        except (OSError, TypeError, SyntaxError, IndexError):
            self.ctx.error(f"'{name}' is called in a task body but its source is not available "
                           "to inline it", node)
        params = [a.arg for a in tree.args.args]
        if node.keywords or len(node.args) != len(params):
            self.ctx.error(f"helper '{name}' takes {len(params)} argument(s) "
                           f"({', '.join(params)}), called with {len(node.args)}", node)
        frame = dict(zip(params, (self.task.exprs.expr(a, const_only) for a in node.args)))
        self.ctx.inline_env = self.ctx.inline_env + (frame,)
        try:
            return self._inline_body(tree, frame, const_only)
        except HwgenError as e:
            if not hasattr(e, "helper_line"):
                raise               # from a helper it calls: reported there already
            message = e.message.removeprefix(f"in task {self.ctx.name}: ")
            line = fn.__code__.co_firstlineno + e.helper_line - 1
            self.ctx.error(f"in helper '{name}' ({inspect.getsourcefile(fn)}:{line}): {message}",
                           node)
        finally:
            self.ctx.inline_env = self.ctx.inline_env[:-1]

    def _inline_body(self, tree, frame, const_only):
        *body, last = tree.body
        for stmt in body:
            if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
                continue            # a docstring
            if not (isinstance(stmt, (ast.Assign, ast.AnnAssign)) and stmt.value is not None
                    and isinstance(stmt.targets[0] if isinstance(stmt, ast.Assign)
                                   else stmt.target, ast.Name)):
                raise _helper_error("a helper body holds `name = expression` assignments and "
                                    "one `return expression`", stmt)
            target = stmt.targets[0] if isinstance(stmt, ast.Assign) else stmt.target
            value = self._helper_expr(stmt.value, const_only)
            if isinstance(stmt, ast.AnnAssign):
                dtype = self.ctx.parser.eval_const(stmt.annotation, "a type")
                value = self.task.numeric.to_type(value, dtype, stmt)
            frame[target.id] = value
        if not isinstance(last, ast.Return) or last.value is None:
            raise _helper_error("a helper ends with `return expression`", last)
        return self._helper_expr(last.value, const_only)

    def _helper_expr(self, node, const_only):
        try:
            return self.task.exprs.expr(node, const_only)
        except HwgenError as e:
            e.helper_line = node.lineno
            raise


def _helper_error(message, stmt):
    """An error at line ``stmt.lineno`` of a helper; ``helper_call`` reports it at the call."""
    e = HwgenError(message)
    e.helper_line = stmt.lineno
    return e
