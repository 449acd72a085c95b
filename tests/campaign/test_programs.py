"""The generator draws programs hwgen's checks accept, of every shape."""
import warnings

from hypothesis import HealthCheck, given, settings

from hwgen.campaign.case import write
from hwgen.campaign.programs import _not_constant, expressions
from hwgen.campaign.shapes import programs
from hwgen.pipeline import load_design


@settings(max_examples=40, deadline=None, database=None,
          suppress_health_check=list(HealthCheck))
@given(program=programs())
def test_drawn_programs_pass_the_checks(program, tmp_path_factory):
    path = write(program.source, str(tmp_path_factory.mktemp("p")))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        graph = load_design(path)
    assert graph.outputs and graph.instances


@settings(max_examples=30, deadline=None, database=None)
@given(text=expressions(["x", "i"]))
def test_expressions_are_python(text):
    compile(text, "<expr>", "eval")


def test_expressions_that_fold_to_a_constant_are_not_drawn():
    # Found by the campaign: x is read only in the branch a constant test never takes.
    assert not _not_constant("(-((-8) if 0 <= 0 else x))")
    assert not _not_constant("max(1, abs((-3)))")
    assert _not_constant("(3 if x < 2 else 4)") and _not_constant("max(x, 1)")
