"""The load benchmark times real loads of a generated tree, and that tree is one the code
location draws: each generated file is an ansi/ and a warehouse/ asset reading what the
repository file it was copied from reads. No timing is asserted."""

from __future__ import annotations

import json

import dagster as dg

from benchmarks.load_bench import Load, TreeLoad, generate_tree, main, run
from pipelines.definitions import build_definitions
from pipelines.settings import Settings
from sql.paths import LEGACY_ROOT

FILES = 5


def test_the_benchmark_loads_a_generated_tree_cold_and_warm():
    result = run(files=FILES, rounds=1, repository=False)
    [load] = result.loads
    assert isinstance(load, TreeLoad)
    assert (load.tree, load.files, result.rounds) == ("generated", FILES, 1)
    for measured in (load.cold, load.warm):
        assert isinstance(measured, Load)
        assert measured.import_seconds > 0 and measured.build_seconds > 0
        assert measured.total_seconds >= measured.import_seconds
        assert measured.stored_translations == 0
    assert load.cold.assets == load.warm.assets
    assert isinstance(load.within_target, bool)


def test_generated_files_load_as_assets_that_read_what_their_originals_read(tmp_path):
    generated = generate_tree(tmp_path / "legacy", FILES)
    files = sorted(generated.glob("*/*.sql"))
    assert [f.stem for f in files] == [f"t_{n:04d}" for n in range(1, FILES + 1)]
    originals = {o.read_bytes(): o.stem for o in LEGACY_ROOT.glob("*/*.sql")}
    copied = {f.stem: originals[f.read_bytes()] for f in files}
    graph = build_definitions(Settings(home=tmp_path / "home", legacy_root=generated))
    repository = build_definitions(Settings(home=tmp_path / "repository"))

    def reads(defs: dg.Definitions, name: str) -> set[dg.AssetKey]:
        node = defs.resolve_asset_graph().get(dg.AssetKey(["warehouse", name]))
        return node.parent_keys - {dg.AssetKey(["ansi", name])}

    keys = graph.resolve_asset_graph().get_all_asset_keys()
    for name, original in copied.items():
        assert dg.AssetKey(["ansi", name]) in keys
        assert reads(graph, name) == reads(repository, original), name
        assert reads(graph, name) and all(k.path[0] == "raw" for k in reads(graph, name))


def test_main_writes_the_results_as_json(tmp_path, capsys):
    out = tmp_path / "load.json"
    main(["--files", "0", "--rounds", "1", "--out", str(out)])
    written = json.loads(out.read_text())
    assert [load["tree"] for load in written["loads"]] == ["repository"]
    files = len(list(LEGACY_ROOT.glob("*/*.sql")))
    assert f"repository ({files} files" in capsys.readouterr().out
