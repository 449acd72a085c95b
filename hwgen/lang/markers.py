"""What a task body writes that hwgen compiles rather than runs: ``@task``, ``get_pid()``,
``exp()``, ``bounded()`` and the ``meta_*`` blocks. Called from Python, each says so."""
from ..errors import HwgenError


def exp(x):
    """Inside a task body: e^x of a float32 (``ir.floats.exp``, a documented approximation)."""
    raise HwgenError("hwgen.exp() only has a meaning inside a @hwgen.task body, which hwgen "
                     "compiles instead of running; use numpy.exp outside")


def get_pid():
    """Inside a task body: the instance's grid position, one index per grid axis."""
    raise HwgenError("hwgen.get_pid() only has a meaning inside a @hwgen.task body, "
                     "which hwgen compiles instead of running")


def bounded(cond, max_iterations):
    """Inside a task body: ``while bounded(cond, max_iterations=N):`` runs while ``cond``
    holds, at most N times per problem."""
    raise HwgenError("hwgen.bounded() only has a meaning inside a @hwgen.task body, as "
                     "`while hwgen.bounded(cond, max_iterations=N):`; hwgen compiles it "
                     "instead of running it")


def _meta(name):
    def marker(*args):
        raise HwgenError(f"hwgen.{name}() only has a meaning inside a @hwgen.task body, which "
                         "hwgen compiles instead of running (write `with hwgen.{name}(...):`)")
    marker.__name__ = name
    marker.__doc__ = {
        "meta_if": "``with meta_if(cond):`` keeps its block when the compile-time ``cond`` holds.",
        "meta_elif": "``with meta_elif(cond):`` follows a ``meta_if``; taken if none before was.",
        "meta_else": "``with meta_else():`` follows a ``meta_if``; taken if none before was.",
        "meta_for": "``with meta_for(a[, b[, step]]) as i:`` unrolls its block at compile time.",
    }[name]
    return marker


meta_if, meta_elif, meta_else, meta_for = (_meta(n) for n in
                                           ("meta_if", "meta_elif", "meta_else", "meta_for"))


def task(fn=None, *, mapping=None):
    """Mark a function inside a region as a task, instantiated on a grid ``mapping=[P0, ...]``."""
    if fn is None:
        return lambda f: f
    return fn
