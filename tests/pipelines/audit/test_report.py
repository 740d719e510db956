"""The audit report page: rendered from small bundles sealed by the real chain code, then read
back with the standard library's HTML parser (no snapshot of the page)."""

from __future__ import annotations

from html.parser import HTMLParser
from typing import Any

import pytest

from pipelines.audit.chain import FORMAT, Node, seal
from pipelines.audit.lineage_drawing import lineage_drawings
from pipelines.audit.report import render_report

# A legacy expression with every character HTML cares about: it must come out as text.
TRICKY_EXPRESSION = (
    "CASE WHEN L.L_SHIPDATE < O.O_ORDERDATE AND L.L_COMMENT <> '<b>late</b>' "
    "THEN \"Y\" ELSE 'N' END AS LATE_FLAG,"
)
WARNING = "sql/legacy/tsql/features.sql:4:8: warning[WEEKDAY]: assumes SET DATEFIRST 7 (Sunday)"
GAPS = {
    "table:raw/orders@v1": "raw/orders version v1 is no longer in the lake",
    "column_lineage:delivery_delay/v3": "no path to a raw column for: priority",
}


def _hop(zone, table, column, depth, sources=(), **extra) -> dict[str, Any]:
    hop = {"zone": zone, "table": table, "column": column, "depth": depth, **extra}
    if zone == "warehouse":
        hop["from"] = list(sources)
    return hop


def _lineage(with_gap: bool) -> dict[str, list[dict[str, Any]]]:
    def passed_through(feature: str) -> dict[str, Any]:
        return _hop(
            "warehouse",
            "training_set",
            feature,
            0,
            [f"warehouse.features.{feature}"],
            defined_at="sql/ansi/training_set.sql:5",
            expression=f'"f"."{feature}" AS "{feature}",',
        )

    priority = _hop(
        "warehouse",
        "features",
        "priority",
        1,
        ["raw.orders.o_orderpriority"],
        defined_at="sql/legacy/tsql/features.sql:6",
        expression="O.O_ORDERPRIORITY AS PRIORITY,",
    )
    priority_path = [passed_through("priority"), priority]
    if with_gap:
        priority["from"] = []
        priority["gap"] = "raw/orders is not in the lake"
    else:
        priority_path.append(_hop("raw", "orders", "o_orderpriority", 2))
    return {
        "late_flag": [
            passed_through("late_flag"),
            _hop(
                "warehouse",
                "features",
                "late_flag",
                1,
                ["raw.lineitem.l_shipdate", "raw.orders.o_orderdate"],
                defined_at="sql/legacy/tsql/features.sql:4",
                expression=TRICKY_EXPRESSION,
            ),
            _hop("raw", "lineitem", "l_shipdate", 2),
            _hop("raw", "orders", "o_orderdate", 2),
        ],
        "ship_mode": [
            passed_through("ship_mode"),
            _hop(
                "warehouse",
                "features",
                "ship_mode",
                1,
                ["raw.lineitem.l_shipmode"],
                defined_at="sql/legacy/tsql/features.sql:5",
                expression="L.L_SHIPMODE AS SHIP_MODE,",
            ),
            _hop("raw", "lineitem", "l_shipmode", 2),
        ],
        "priority": priority_path,
    }


def _table(zone: str, table: str, rows: int, **extra) -> dict[str, Any]:
    manifest = {"zone": zone, "table": table, "row_count": rows, "digest": "ab" * 32}
    manifest.update(extra.pop("manifest", {}))
    return {
        "zone": zone,
        "table": table,
        "version": "v1",
        "files": {"part-0.parquet": "cd" * 32},
        "files_digest": "ab" * 32,
        "manifest": manifest,
        "dagster": {"data_version": "ef" * 32, "run_id": "run-build"},
        **extra,
    }


def make_bundle(*, with_gaps: bool) -> dict[str, Any]:
    """A three-feature chain of delivery_delay version 3, sealed with the real chain code."""
    raw = {"generator": "tpchgen-cli 4.0.0", "scale_factor": 0.01}
    nodes = [
        Node(
            "alias_history:delivery_delay/v3",
            "alias_history",
            "Alias moves of delivery_delay version 3",
            {
                "moves": [
                    {
                        "alias": "champion",
                        "from_version": "2",
                        "to_version": "3",
                        "moved_at": "2026-11-30T06:45:22+00:00",
                        "dagster_run_id": "run-train",
                        "reason": "AUC 0.91 >= baseline bar 0.88",
                    }
                ]
            },
        ),
        Node("code:abc123", "code", "Code at abc123", {"git_sha": "abc123"}),
        Node(
            "legacy:sql/legacy/tsql/features.sql",
            "legacy_sql",
            "sql/legacy/tsql/features.sql",
            {
                "path": "sql/legacy/tsql/features.sql",
                "dialect": "tsql",
                "sha256": "11" * 32,
                "git_commit": "22" * 20,
                "lines": 12,
                "uncommitted_changes": False,
            },
        ),
        Node(
            "ansi:features",
            "ansi_sql",
            "ANSI SQL of features",
            {
                "written_in": "translation",
                "built_sha256": "33" * 32,
                "stored_sha256": "33" * 32,
                "source_sha256": "11" * 32,
                "rules_applied": ["FN-IF", "WEEKDAY"],
                "warnings": [WARNING],
                "assumptions": "tsql_datefirst=7,snowflake_week_start=0",
                "translator_version": "0.1.0",
            },
            ["legacy:sql/legacy/tsql/features.sql"],
        ),
        Node(
            "ansi:training_set",
            "ansi_sql",
            "ANSI SQL of training_set",
            {
                "written_in": "ansi",
                "path": "sql/ansi/training_set.sql",
                "sha256": "44" * 32,
                "built_sha256": "44" * 32,
                "git_commit": "55" * 20,
                "lines": 20,
                "uncommitted_changes": False,
            },
        ),
        Node(
            "table:raw/lineitem@v1",
            "raw_table",
            "raw/lineitem",
            _table("raw", "lineitem", 60_175, manifest=raw),
        ),
        Node(
            "table:raw/orders@v1",
            "raw_table",
            "raw/orders",
            _table("raw", "orders", 15_000, manifest=raw),
            gap=GAPS["table:raw/orders@v1"] if with_gaps else None,
        ),
        Node(
            "table:warehouse/features@v1",
            "table",
            "warehouse/features",
            _table(
                "warehouse",
                "features",
                58_000,
                manifest={
                    "engine": "duckdb",
                    "inputs": {"raw.lineitem": "v1", "raw.orders": "v1"},
                    "checks": {"features_contract": {"passed": True, "contract_version": "1.0"}},
                },
            ),
            ["table:raw/lineitem@v1", "table:raw/orders@v1", "ansi:features"],
        ),
        Node(
            "table:warehouse/training_set@v1",
            "table",
            "warehouse/training_set",
            _table(
                "warehouse",
                "training_set",
                58_000,
                manifest={
                    "engine": "duckdb",
                    "content_digest": "66" * 32,
                    "inputs": {"warehouse.features": "v1"},
                    "checks": {
                        "training_set_contract": {"passed": True, "result_digest": "sha256:77"}
                    },
                },
                split={"train": 46_400, "validation": 5_800, "test": 5_800},
            ),
            ["table:warehouse/features@v1", "ansi:training_set"],
        ),
        Node(
            "mlflow_run:r1",
            "mlflow_run",
            "MLflow run r1",
            {
                "run_id": "r1",
                "status": "FINISHED",
                "params": {
                    "categorical_features": "ship_mode,priority",
                    "numeric_features": "late_flag",
                    "train.epochs": "4",
                },
                "metrics": {"val_auc": 0.91, "baseline_val_auc": 0.89, "test_auc": 0.9},
                "tags": {"training_set.version": "v1", "training_set.digest": "66" * 32},
                "datasets": [],
            },
            ["code:abc123", "table:warehouse/training_set@v1"],
        ),
        Node(
            "column_lineage:delivery_delay/v3",
            "column_lineage",
            "Column lineage of the features",
            _lineage(with_gaps),
            gap=GAPS["column_lineage:delivery_delay/v3"] if with_gaps else None,
        ),
        Node(
            "model:delivery_delay/v3",
            "model_version",
            "delivery_delay version 3",
            {"name": "delivery_delay", "version": "3", "run_id": "r1", "tags": {}},
            [
                "alias_history:delivery_delay/v3",
                "mlflow_run:r1",
                "column_lineage:delivery_delay/v3",
            ],
        ),
    ]
    sealed = seal(nodes)
    root = next(n for n in sealed if n.id == "model:delivery_delay/v3")
    return {
        "format": FORMAT,
        "subject": {"model": "delivery_delay", "version": "3", "requested": "delivery_delay"},
        "created_at": "2026-11-30T08:00:00+00:00",
        "root": root.id,
        "root_digest": root.digest,
        "gaps": [f"{n.id}: {n.gap}" for n in sealed if n.gap is not None],
        "environment": {"python": "3.11.7", "torch": "2.13.0+cpu", "host": "trainer"},
        "dagster_run_ids": ["run-build", "run-train"],
        "auditor": {"python": "3.11.7", "host": "laptop", "packages": {"dagster": "1.13"}},
        "nodes": [n.to_dict() for n in sealed],
    }


VOID_ELEMENTS = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "wbr"}


class Page(HTMLParser):
    """Every tag with its attributes, the text of each <svg>, and the text under each id."""

    def __init__(self, html: str) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.svg_texts: list[str] = []
        self.text_by_id: dict[str, str] = {}
        self._open: list[tuple[str, dict[str, str | None]]] = []
        self.feed(html)
        self.close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        if tag == "svg":
            self.svg_texts.append("")
        if tag not in VOID_ELEMENTS:
            self._open.append((tag, dict(attrs)))

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))

    def handle_endtag(self, tag: str) -> None:
        while self._open and self._open.pop()[0] != tag:
            pass

    def handle_data(self, data: str) -> None:
        if any(tag == "svg" for tag, _ in self._open):
            self.svg_texts[-1] += data + "\n"
        for _, attrs in self._open:
            if attrs.get("id"):
                self.text_by_id[attrs["id"]] = self.text_by_id.get(attrs["id"], "") + data

    def text_of_class(self, name: str) -> bool:
        return any(name in (attrs.get("class") or "").split() for _, attrs in self.tags)


@pytest.fixture(scope="module", params=[False, True], ids=["complete", "with-gaps"])
def rendered(request) -> tuple[dict[str, Any], str, Page]:
    bundle = make_bundle(with_gaps=request.param)
    html = render_report(bundle)
    return bundle, html, Page(html)


def test_the_page_references_nothing_outside_itself(rendered):
    _, html, page = rendered
    linked = [
        (tag, name, value)
        for tag, attrs in page.tags
        for name, value in attrs.items()
        if name in ("src", "href", "xlink:href", "srcset", "action", "poster", "data")
    ]
    assert linked == []
    assert not {"script", "link", "img", "iframe", "object", "embed"} & {t for t, _ in page.tags}
    for scheme in ("http://", "https://", "url(//", "@import"):
        assert scheme not in html
    assert html.count("url(") == html.count("url(#")  # only the arrowheads of the drawings


def test_the_root_digest_is_shown(rendered):
    bundle, _, page = rendered
    assert bundle["root_digest"].startswith("sha256:")
    assert page.text_by_id["root-digest"].strip() == bundle["root_digest"]


@pytest.mark.parametrize(
    ("feature", "raw_columns"),
    [
        ("late_flag", ["l_shipdate", "o_orderdate"]),
        ("ship_mode", ["l_shipmode"]),
    ],
)
def test_each_feature_is_drawn_down_to_its_raw_columns(rendered, feature, raw_columns):
    _, _, page = rendered
    drawing = next(text for text in page.svg_texts if f"Lineage of {feature}" in text)
    for name in [feature, *raw_columns]:
        assert name in drawing.split("\n")


def test_sql_is_shown_as_text_never_as_markup(rendered):
    _, html, page = rendered
    assert any(TRICKY_EXPRESSION in text for text in page.svg_texts)
    assert "L.L_SHIPDATE < O.O_ORDERDATE" not in html
    assert "L.L_SHIPDATE &lt; O.O_ORDERDATE" in html
    assert "'<b>" not in html
    assert "b" not in {tag for tag, _ in page.tags}


def test_the_banner_lists_every_gap_only_when_there_are_gaps(rendered):
    bundle, html, page = rendered
    banner = page.text_by_id["status"]
    if bundle["gaps"]:
        assert page.text_of_class("incomplete")
        assert "Incomplete" in banner
        assert len(bundle["gaps"]) == len(GAPS)
        for gap in bundle["gaps"]:
            assert gap in banner
    else:
        assert page.text_of_class("complete")
        assert "Complete chain" in banner
        assert "Incomplete" not in html


def test_a_gap_left_out_of_the_list_still_shows():
    bundle = make_bundle(with_gaps=True)
    bundle["gaps"] = []
    banner = Page(render_report(bundle)).text_by_id["status"]
    assert "Incomplete" in banner
    for node_id, gap in GAPS.items():
        assert f"{node_id}: {gap}" in banner


def test_translation_warnings_are_shown(rendered):
    _, html, page = rendered
    assert page.text_of_class("warnings")
    assert WARNING in html
    assert "tsql_datefirst = 7" in html


def test_a_model_registered_outside_plumbline_still_renders():
    gap = "delivery_delay v9 was registered outside plumbline: it carries no lineage tags"
    nodes = seal(
        [
            Node("alias_history:delivery_delay/v9", "alias_history", "Alias moves", {"moves": []}),
            Node(
                "model:delivery_delay/v9",
                "model_version",
                "delivery_delay version 9",
                {"name": "delivery_delay", "version": "9", "tags": {}},
                ["alias_history:delivery_delay/v9"],
                gap=gap,
            ),
        ]
    )
    bundle = {
        "format": FORMAT,
        "subject": {"model": "delivery_delay", "version": "9"},
        "created_at": "2026-11-30T08:00:00+00:00",
        "root": "model:delivery_delay/v9",
        "root_digest": nodes[-1].digest,
        "gaps": [f"model:delivery_delay/v9: {gap}"],
        "nodes": [n.to_dict() for n in nodes],
    }
    page = Page(render_report(bundle))
    assert gap in page.text_by_id["status"]
    assert page.svg_texts == []


def test_hops_of_one_depth_are_stacked_and_sources_fan_out():
    (drawing,) = lineage_drawings(
        {"late_flag": _lineage(with_gap=False)["late_flag"]}, {}, "training_set"
    )
    raw = [box for box in drawing.boxes if box.kind == "raw"]
    assert len(raw) == 2
    assert raw[0].x == raw[1].x
    assert raw[0].y + raw[0].height <= raw[1].y
    # feature -> training set -> warehouse, then one arrow to each raw source
    assert len(drawing.edges) == 4
    assert [h.text for h in drawing.headers] == [
        "Model input",
        "Training set",
        "Warehouse",
        "Raw data",
    ]
