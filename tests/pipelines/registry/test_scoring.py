"""When a rerun may skip the batch scores: the live scores are the champion's over the
published open lines, held to their contract, intact; and their code version."""

from pathlib import Path

import pytest

from pipelines.lake.store import TableVersion
from pipelines.registry.scoring import scoring_code_version, why_rescore

LINES = "20261201T000000.000000000-0123456789ab"


def scores(**changes) -> TableVersion:
    manifest = {
        "model_version": 3,
        "open_lines_version": LINES,
        "checks": {"batch_scores_contract": {"passed": True, "result_digest": "r"}},
        **changes,
    }
    return TableVersion("scores", "batch_scores", Path("/lake/v"), manifest)


@pytest.mark.parametrize(
    ("live", "champion", "lines", "intact", "expected"),
    [
        (scores(), "3", LINES, True, None),
        (None, "3", LINES, True, "there are no published scores"),
        (scores(), "4", LINES, True, "the champion is version 4, not 3"),
        (scores(), "3", "20261202T000000.000000000-ab", True, "open_lines is version"),
        (scores(checks={}), "3", LINES, True, "no passed contract check"),
        (scores(), "3", LINES, False, "no longer match their digest"),
    ],
)
def test_the_scores_are_made_again_only_when_what_they_score_with_changed(
    live, champion, lines, intact, expected
):
    reason = why_rescore(
        live, champion=champion, open_lines_version=lines, intact=lambda version: intact
    )
    assert reason is None if expected is None else expected in reason


def test_the_code_version_follows_the_contract_and_the_model_code(tmp_path):
    contract = tmp_path / "batch_scores.yaml"
    contract.write_text("v1")
    first = scoring_code_version(contract, "sha256:models-a")
    assert scoring_code_version(contract, "sha256:models-a") == first
    assert scoring_code_version(contract, "sha256:models-b") != first
    contract.write_text("v2")
    assert scoring_code_version(contract, "sha256:models-a") != first
