"""The generator draws programs hwgen's checks accept, of every shape."""
import warnings

from hypothesis import HealthCheck, given, settings

from hwgen.campaign.case import write
from hwgen.campaign.programs import expressions, programs
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
