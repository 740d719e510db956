"""A project's load is bounded (issue 44, items 1 and 6): a Jinja template that would render
for minutes stops at the project's ``template_budget`` and fails only its own assets, the
code location still loading; a legacy file over the size limits is one located line of the
load, never parsed."""

from __future__ import annotations

import itertools
import time

import dagster as dg
import pytest

from pipelines.cli.location import CodeLocation
from sql.source_limits import MAX_SOURCE_BYTES, MAX_STATEMENTS
from tests.pipelines.test_project_check import Project

NAMES = (f"bounded{n}" for n in itertools.count())
# Calls in nested loops: minutes of rendering without a budget (each call is a checkpoint).
RUNAWAY = (
    "{% for i in range(100000) %}{% for j in range(100000) %}{{ i }}{% endfor %}{% endfor %}"
    "SELECT 1 AS one\n"
)


@pytest.fixture
def project(tmp_path, monkeypatch) -> Project:
    monkeypatch.setenv("PLUMBLINE_HOME", str(tmp_path / "home"))
    return Project(tmp_path / next(NAMES))


def test_a_runaway_template_fails_its_own_assets_and_the_location_loads(project):
    project.write("legacy/snowflake/runaway.sql", RUNAWAY)
    project.attributes(template_budget={"seconds": 0.5, "iterations": 10**9})
    started = time.monotonic()
    defs = CodeLocation(project.root, f"{project.package}.definitions").definitions()
    assert time.monotonic() - started < 20
    keys = defs.resolve_asset_graph().get_all_asset_keys()
    assert {dg.AssetKey(["ansi", "runaway"]), dg.AssetKey(["ansi", "daily_revenue"])} <= keys
    assert dg.AssetKey(["warehouse", "daily_revenue"]) in keys


def test_a_budget_attribute_is_checked(project):
    defs = project.defs_yaml
    project.attributes(template_budget={"memory": "lots"})
    assert project.problems() == [
        f"{defs}:attributes.template_budget.memory: Input should be a valid integer, unable to "
        "parse string as an integer",
    ]
    project.attributes(template_budget={"seconds": 0})
    assert project.problems() == [
        f"{defs}:attributes.template_budget.seconds: a number > 0; got 0.0"
    ]


def test_a_legacy_file_over_the_byte_limit_is_a_problem_of_the_load(project):
    huge = project.root / "legacy" / "snowflake" / "huge.sql"
    with huge.open("wb") as file:  # sparse: the load refuses it by its size, unread
        file.truncate(50_000_000)
    started = time.monotonic()
    assert project.problems() == [
        "legacy/snowflake/huge.sql:1:1: error[SOURCE-SIZE]: the file holds 50,000,000 bytes; a "
        f"SQL file may hold {MAX_SOURCE_BYTES:,} at most: split it into several files"
    ]
    assert time.monotonic() - started < 20


def test_a_legacy_file_of_too_many_statements_is_a_problem_of_the_load(project):
    project.write("legacy/snowflake/many.sql", "SELECT 1 AS one;\n" * (MAX_STATEMENTS + 5))
    assert project.problems() == [
        f"legacy/snowflake/many.sql:{MAX_STATEMENTS + 1}:1: error[SOURCE-SIZE]: statement "
        f"{MAX_STATEMENTS + 1:,} of {MAX_STATEMENTS + 5:,}; a SQL file may hold "
        f"{MAX_STATEMENTS:,} statements at most: split it into several files"
    ]
