"""Loading the code location is light: it parses each legacy file only to find what it defines
and reads (cached by content), translates nothing and imports no engine; the translation
happens when the ansi/<name> asset materializes."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import dagster as dg
import pytest

import pipelines.translation.store as store
from pipelines.definitions import build_definitions
from pipelines.settings import Settings, SettingsError
from pipelines.translation.store import (
    legacy_dependencies,
    legacy_sources,
    sha256_bytes,
    translate_source,
)
from sql.assumptions import load_assumptions
from sql.catalog import load_catalog
from sql.dependencies import script_dependencies
from sql.paths import LEGACY_ROOT, REPOSITORY_ROOT
from sql.translate import TRANSLATOR_VERSION, translate_script

HEAVY_MODULES = ("great_expectations", "pyspark", "torch", "mlflow", "duckdb", "sklearn")

# Runs in a fresh interpreter: what the load imports cannot be seen from a test process that
# has imported everything already. Any translation goes through _translate_definition.
LOAD = textwrap.dedent(
    """
    import json, sys
    import sql.translate

    translated = []
    translate_definition = sql.translate._translate_definition

    def counting(definition, name, *args, **kwargs):
        translated.append(name)
        return translate_definition(definition, name, *args, **kwargs)

    if __name__ == "__main__":
        sql.translate._translate_definition = counting
        import pipelines.definitions

        defs = pipelines.definitions.defs()
        print(json.dumps({
            "assets": len(defs.resolve_asset_graph().get_all_asset_keys()),
            "modules": sorted(sys.modules),
            "translated": translated,
        }))
    """
)

ORDERS = "SELECT o_orderkey, o_custkey FROM PROD_DW.SALES.ORDERS\n"
SCRIPT = """\
CREATE TABLE mart.customer_totals AS
SELECT o_custkey, SUM(o_totalprice) AS total FROM Orders GROUP BY o_custkey;
CREATE TABLE mart.named_totals AS
SELECT c_name, t.total FROM dbo.Customer JOIN mart.customer_totals t ON t.o_custkey = c_custkey;
"""


@pytest.fixture
def legacy_tree(tmp_path: Path) -> Path:
    root = tmp_path / "legacy"
    (root / "snowflake").mkdir(parents=True)
    (root / "tsql").mkdir()
    (root / "snowflake" / "order_keys.sql").write_text(ORDERS)
    (root / "tsql" / "totals_script.sql").write_text(SCRIPT)
    return root


def test_loading_translates_nothing_and_imports_no_engine(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    script = tmp_path / "load.py"
    script.write_text(LOAD)
    env = {k: v for k, v in os.environ.items() if not k.startswith("PLUMBLINE_")}
    env["PLUMBLINE_HOME"] = str(home)
    done = subprocess.run(
        [sys.executable, str(script)], cwd=REPOSITORY_ROOT, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    loaded = json.loads(done.stdout.strip().splitlines()[-1])
    # 89 built (raw, ansi, warehouse, models) and the 37 legacy files they are drawn from.
    assert loaded["assets"] == 89 + 37 == 89 + len(legacy_sources(LEGACY_ROOT))
    assert loaded["translated"] == []
    imported = {name.split(".")[0] for name in loaded["modules"]}
    assert not imported & set(HEAVY_MODULES), sorted(imported & set(HEAVY_MODULES))
    assert not Settings(home=home).ansi_root.exists()  # nothing stored either
    assert Settings(home=home).dependency_cache.is_file()


def test_a_load_creates_no_home(tmp_path):
    build_definitions(Settings(home=tmp_path / "home"))
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    "source", legacy_sources(LEGACY_ROOT), ids=lambda s: f"{s.dialect}/{s.name}"
)
def test_parsed_dependencies_are_the_translations_tables_and_reads(source):
    catalog = load_catalog()
    translated = translate_source(source, catalog)
    parsed = store.source_dependencies(source, catalog, load_assumptions())
    assert [(t.name, t.reads) for t in parsed.tables] == [
        (t.name, t.source_tables) for t in translated.tables
    ]


def test_a_script_reads_the_tables_it_defined_earlier():
    catalog = load_catalog()
    parsed = script_dependencies(SCRIPT, "tsql", catalog=catalog, name="totals_script")
    translated = translate_script(SCRIPT, "tsql", name="totals_script", catalog=catalog)
    assert [(t.name, t.reads) for t in parsed] == [
        ("customer_totals", ("raw.orders",)),
        ("named_totals", ("raw.customer", "warehouse.customer_totals")),
    ]
    assert [(t.name, t.source_tables) for t in translated.tables] == [
        (t.name, t.reads) for t in parsed
    ]


def _cache(path: Path) -> dict[str, dict]:
    return json.loads(path.read_text())["files"]


def _parses(monkeypatch) -> list[str]:
    """The files legacy_dependencies parses from now on (in this process: the trees here
    are too small for the pool)."""
    parsed: list[str] = []
    parse = store.script_dependencies

    def counting(sql, dialect, **kwargs):
        parsed.append(Path(kwargs["file"]).name)
        return parse(sql, dialect, **kwargs)

    monkeypatch.setattr(store, "script_dependencies", counting)
    return parsed


def test_the_dependency_cache_is_reused_and_invalidated_by_a_change(
    legacy_tree, tmp_path, monkeypatch
):
    catalog = load_catalog()
    cache = tmp_path / "cache" / "dependencies.json"
    first = legacy_dependencies(legacy_tree, catalog, cache=cache)
    entries = _cache(cache)
    assert set(entries) == {"snowflake/order_keys.sql", "tsql/totals_script.sql"}
    for relative, entry in entries.items():
        assert entry["source_sha256"] == sha256_bytes((legacy_tree / relative).read_bytes())
        assert entry["translator_version"] == TRANSLATOR_VERSION
    # What a table reads is kept as written, and resolved at each load among the catalog's
    # and the project's tables; the tables of the same script it reads, once and for all.
    assert entries["tsql/totals_script.sql"]["tables"][1] == {
        "name": "named_totals",
        "own": ["warehouse.customer_totals"],
        "names": [[[["dbo", False], ["Customer", False]], 4, 29]],
        "written": [["mart", False], ["named_totals", False]],
        "fixed_unresolved": [],
    }
    assert first[1].tables[1].reads == ("raw.customer", "warehouse.customer_totals")

    parsed = _parses(monkeypatch)
    assert legacy_dependencies(legacy_tree, catalog, cache=cache) == first
    assert parsed == []

    (legacy_tree / "snowflake" / "order_keys.sql").write_text(
        "SELECT c_custkey FROM PROD_DW.SALES.CUSTOMER\n"
    )
    changed = legacy_dependencies(legacy_tree, catalog, cache=cache)
    assert parsed == ["order_keys.sql"]
    assert changed[0].tables[0].reads == ("raw.customer",)
    assert changed[1] == first[1]
    assert _cache(cache)["snowflake/order_keys.sql"]["source_sha256"] == sha256_bytes(
        (legacy_tree / "snowflake" / "order_keys.sql").read_bytes()
    )

    monkeypatch.setattr(store, "TRANSLATOR_VERSION", "another translator")
    legacy_dependencies(legacy_tree, catalog, cache=cache)
    assert sorted(parsed[1:]) == ["order_keys.sql", "totals_script.sql"]


def test_a_second_load_of_the_definitions_parses_nothing(legacy_tree, tmp_path, monkeypatch):
    (tmp_path / "home").mkdir()
    settings = Settings(home=tmp_path / "home", legacy_root=legacy_tree)
    first = build_definitions(settings).resolve_asset_graph()
    parsed = _parses(monkeypatch)
    second = build_definitions(settings).resolve_asset_graph()
    assert parsed == []
    keys = second.get_all_asset_keys()
    assert keys == first.get_all_asset_keys()
    assert dg.AssetKey(["ansi", "named_totals"]) in keys
    assert second.get(dg.AssetKey(["warehouse", "named_totals"])).parent_keys == {
        dg.AssetKey(["raw", "customer"]),
        dg.AssetKey(["warehouse", "customer_totals"]),
        dg.AssetKey(["ansi", "named_totals"]),
    }


def test_a_file_that_does_not_parse_loads_and_fails_its_asset_with_the_diagnostic(
    legacy_tree, tmp_path
):
    (legacy_tree / "snowflake" / "broken.sql").write_text("SELECT o_orderkey\nFROM (\n")
    (tmp_path / "home").mkdir()
    settings = Settings(home=tmp_path / "home", legacy_root=legacy_tree)
    for _ in range(2):  # parsed, then from the cache
        defs = build_definitions(settings)
        key = dg.AssetKey(["ansi", "broken"])
        assert key in defs.resolve_asset_graph().get_all_asset_keys()
    # The asset as the code location binds it, with its ansi_store resource.
    result = dg.materialize([defs.resolve_assets_def(key)], raise_on_error=False)
    [failure] = result.get_step_failure_events()
    assert re.search(r"broken\.sql:2:\d+: error\[PARSE\]", str(failure.event_specific_data.error))


def test_the_legacy_tree_is_a_setting(tmp_path, legacy_tree):
    env = {"PLUMBLINE_HOME": str(tmp_path), "PLUMBLINE_LEGACY_ROOT": str(legacy_tree)}
    assert Settings.from_env(env).legacy_root == legacy_tree
    assert Settings.from_env({"PLUMBLINE_HOME": str(tmp_path)}).legacy_root == LEGACY_ROOT
    missing = tmp_path / "missing"
    with pytest.raises(SettingsError, match="PLUMBLINE_LEGACY_ROOT must be an existing folder"):
        Settings.from_env({**env, "PLUMBLINE_LEGACY_ROOT": str(missing)})
    settings = Settings(home=tmp_path, legacy_root=legacy_tree)
    assert Settings.from_env(settings.to_env()) == settings


def test_an_unresolved_name_is_located_in_its_template_and_kept_in_the_cache(
    legacy_tree, tmp_path, monkeypatch
):
    # Rendered, the unknown name moves up a line; it is reported where the template has it.
    (legacy_tree / "snowflake" / "late.sql").write_text(
        "{# two lines\nof comment #}\nSELECT o_orderkey\nFROM {{ schema }}.LATE_ORDERS\n"
    )
    catalog = load_catalog()
    cache = tmp_path / "cache.json"
    variables = {"schema": "PROD_DW.SALES"}

    def unresolved() -> list[str]:
        files = legacy_dependencies(legacy_tree, catalog, cache=cache, variables=variables)
        return [d.format() for f in files for t in f.tables for d in t.unresolved]

    [line] = unresolved()
    assert line.startswith(
        f"{legacy_tree / 'snowflake' / 'late.sql'}:4:6: error[NAME-UNKNOWN]: table "
        "'PROD_DW.SALES.LATE_ORDERS' is not in the catalog for dialect snowflake"
    )
    parsed = _parses(monkeypatch)
    assert unresolved() == [line]
    assert parsed == []  # from the cache
