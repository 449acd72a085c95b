"""Every finding a campaign kept in tests/programs/campaign (a shrunk program or exploration
point) passes now, and an exploration point replays from its JSON."""
import glob
import json
import os

import pytest

from hwgen.campaign import run
from hwgen.errors import HwgenError
from tests.conftest import PROGRAMS

KEPT = sorted(glob.glob(os.path.join(PROGRAMS, "campaign", "*.py")) +
              glob.glob(os.path.join(PROGRAMS, "campaign", "*.json")))


@pytest.mark.parametrize("path", KEPT, ids=os.path.basename)
def test_kept_findings_pass(path, tmp_path):
    result = run.replay(path, str(tmp_path))
    assert result["status"] == "pass", result["detail"]


def test_an_exploration_point_replays(tmp_path):
    case = {"expr": "C[i,j] += A[i,k] * B[k,j]", "sizes": "i=3 j=2 k=5", "array": [2, 2],
            "pick": 4, "gaps": [0.6, 0.3], "seed": 2, "finding": ["(none)"]}
    path = tmp_path / "point.json"
    path.write_text(json.dumps(case))
    result = run.replay(str(path), str(tmp_path))
    assert result["status"] == "pass", result["detail"]
    assert result["detail"].startswith("point ")      # pick 4 modulo the points explored


@pytest.mark.parametrize("name,text", [("a.py", "import hwgen\n"), ("b.json", "{\"expr\": 1}"),
                                       ("c.json", "not json")])
def test_a_file_the_campaign_did_not_keep_is_a_clear_error(name, text, tmp_path):
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(HwgenError, match=f"{name}:1: .* is not a case the campaign kept"):
        run.replay(str(path), str(tmp_path))
