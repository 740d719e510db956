"""OpenLineage export of an audit bundle: the events' shape against the spec's
requirements, their content against the bundle, and delivery to a file and to a real
HTTP server on 127.0.0.1.

The spec's JSON schemas (OpenLineage.json and the facet schemas) are not shipped by any
installed or installable package here, so each event is checked field by field for what
the spec requires: required fields, the event type enum, ISO 8601 times, UUID run ids, URIs,
and every facet's ``_producer`` and ``_schemaURL`` (which also pins where each facet may
sit: a dataset facet, an input facet, an output facet, a run or job facet).
"""

import datetime as dt
import json
import re
import threading
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from openlineage.client.serde import Serde

from pipelines.audit.chain import FORMAT, Node, seal
from pipelines.audit.openlineage import (
    LAKE_NAMESPACE,
    OpenLineageExportError,
    bundle_events,
    emit,
)

LAKE = LAKE_NAMESPACE
CREATED_AT = "2026-11-30T08:18:29.490965+00:00"
RUN_END = "2026-11-30T06:45:19.508000+00:00"
ORDERS_VERSION = "20261130T051453.959555516-3edd2cfd9274"
LINEITEM_VERSION = "20261130T051451.852214480-26731b13b3ff"
ORDER_LINES_VERSION = "20261130T061810.862707856-490fe1efbe95"
TRAINING_SET_VERSION = "20261130T061820.953722800-46712f20d9d7"
LEGACY_PATH = "sql/legacy/snowflake/order_lines.sql"
CHECKS = {
    "order_lines": {
        "order_lines_contract": {"passed": True, "contract_version": "1.0.0"},
        "order_lines_reconciled": {"passed": False, "reference": "sql/reference/x.sql"},
    },
    "training_set": {"training_set_contract": {"passed": True, "contract_version": "1.0.0"}},
}

EVENT_TYPES = {"START", "RUNNING", "COMPLETE", "ABORT", "FAIL", "OTHER"}
URI = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:\S+$")
EVENT_SCHEMA = re.compile(
    r"^https://openlineage\.io/spec/\d+-\d+-\d+/OpenLineage\.json#/\$defs/RunEvent$"
)
FACET_SCHEMA = re.compile(
    r"^https://openlineage\.io/spec/facets/\d+-\d+-\d+/(?P<file>\w+)\.json#/\$defs/(?P<name>\w+)$"
)
# Where each facet the exporter writes may sit, and the spec definition it must name.
FACETS = {
    ("run", "tags"): "TagsRunFacet",
    ("run", "extractionError"): "ExtractionErrorRunFacet",
    ("job", "jobType"): "JobTypeJobFacet",
    ("job", "documentation"): "DocumentationJobFacet",
    ("dataset", "version"): "DatasetVersionDatasetFacet",
    ("dataset", "datasetType"): "DatasetTypeDatasetFacet",
    ("dataset", "columnLineage"): "ColumnLineageDatasetFacet",
    ("dataset", "schema"): "SchemaDatasetFacet",
    ("inputFacets", "dataQualityAssertions"): "DataQualityAssertionsDatasetFacet",
    ("outputFacets", "outputStatistics"): "OutputStatisticsOutputDatasetFacet",
}
JOBS = [
    "translate.order_lines",
    "generate.raw.lineitem",
    "generate.raw.orders",
    "build.warehouse.order_lines",
    "build.warehouse.training_set",
    "train.delivery_delay",
]


# -- a small chain, built the way the collector builds it ---------------------------------
def raw_table(table, version, rows):
    content = {
        "zone": "raw",
        "table": table,
        "version": version,
        "files": {f"{table}.parquet": "0" * 64},
        "files_digest": version[-12:] * 5,
        "manifest": {"generator": "tpchgen-cli 4.0.0", "scale_factor": 0.1, "row_count": rows},
        "dagster": {"data_version": "1" * 64, "run_id": "8e27dbd0-c0d4-40c1-a3ed-9d6d75f7591e"},
    }
    return Node(f"table:raw/{table}@{version}", "raw_table", f"raw/{table}", content)


def warehouse_table(table, version, inputs, ansi):
    content = {
        "zone": "warehouse",
        "table": table,
        "version": version,
        "files": {"part-0.parquet": "2" * 64},
        "files_digest": version[-12:] * 5,
        "columns": {"late_days": "BIGINT", "priority": "VARCHAR"},
        "manifest": {
            "engine": "duckdb",
            "row_count": 1000,
            "ansi_sha256": "3" * 64,
            "checks": CHECKS[table],
            "inputs": {
                f"{n.content['zone']}.{n.content['table']}": n.content["version"] for n in inputs
            },
        },
        "dagster": {"data_version": "4" * 64, "run_id": "8e27dbd0-c0d4-40c1-a3ed-9d6d75f7591e"},
    }
    parents = [n.id for n in inputs] + [ansi.id]
    return Node(
        f"table:warehouse/{table}@{version}", "table", f"warehouse/{table}", content, parents
    )


def derived(table, column, depth, *sources):
    """A traced hop at a warehouse column, from the columns its expression reads."""
    return {
        "zone": "warehouse",
        "table": table,
        "column": column,
        "depth": depth,
        "from": list(sources),
        "defined_at": f"sql/{table}.sql:{depth + 3}",
        "expression": f"{' + '.join(sources)} AS {column},",
    }


def raw_column(table, column, depth):
    return {"zone": "raw", "table": table, "column": column, "depth": depth}


def chain_nodes():
    legacy = Node(
        f"legacy:{LEGACY_PATH}",
        "legacy_sql",
        LEGACY_PATH,
        {"dialect": "snowflake", "path": LEGACY_PATH, "sha256": "a" * 64, "git_commit": "b" * 40},
    )
    translated = Node(
        "ansi:order_lines",
        "ansi_sql",
        "ANSI SQL of order_lines",
        {
            "written_in": "translation",
            "built_sha256": "3" * 64,
            "stored_sha256": "3" * 64,
            "source_sha256": "a" * 64,
            "rules_applied": ["DATE-DIFF"],
            "warnings": [],
            "assumptions": "snowflake_week_start=0",
            "translator_version": "0.1.0",
        },
        [legacy.id],
    )
    native = Node(
        "ansi:training_set",
        "ansi_sql",
        "ANSI SQL of training_set",
        {"written_in": "ansi", "path": "sql/ansi/training_set.sql", "sha256": "5" * 64},
    )
    orders = raw_table("orders", ORDERS_VERSION, 150)
    lineitem = raw_table("lineitem", LINEITEM_VERSION, 600)
    order_lines = warehouse_table(
        "order_lines", ORDER_LINES_VERSION, [orders, lineitem], translated
    )
    training_set = warehouse_table("training_set", TRAINING_SET_VERSION, [order_lines], native)
    code = Node("code:" + "c" * 40, "code", "Code", {"git_sha": "c" * 40})
    run = Node(
        "mlflow_run:fa332c10",
        "mlflow_run",
        "MLflow run fa332c10",
        {
            "run_id": "fa332c10",
            "experiment_id": "1",
            "status": "FINISHED",
            "start": "2026-11-30T06:44:58.139000+00:00",
            "end": RUN_END,
            "tags": {"code.git_sha": "c" * 40, "training_set.version": TRAINING_SET_VERSION},
        },
        [code.id, training_set.id],
    )
    late_days = [
        derived(
            "order_lines", "late_days", 1, "raw.lineitem.l_receiptdate", "raw.orders.o_orderdate"
        ),
        raw_column("lineitem", "l_receiptdate", 2),
        raw_column("orders", "o_orderdate", 2),
    ]
    features = {
        "late_days": [derived("training_set", "late_days", 0, "warehouse.order_lines.late_days"), *late_days],
        # A second feature through the same warehouse column: one hop, not two.
        "is_late": [derived("training_set", "is_late", 0, "warehouse.order_lines.late_days"), *late_days],
        "priority": [
            derived("training_set", "priority", 0, "warehouse.order_lines.priority"),
            derived("order_lines", "priority", 1, "raw.orders.o_orderpriority"),
            raw_column("orders", "o_orderpriority", 2),
        ],
    }  # fmt: skip
    lineage = Node("column_lineage:delivery_delay/v1", "column_lineage", "Column lineage", features)
    history = Node("alias_history:delivery_delay/v1", "alias_history", "Alias moves", {"moves": []})
    model = Node(
        "model:delivery_delay/v1",
        "model_version",
        "delivery_delay version 1",
        {"name": "delivery_delay", "version": "1", "run_id": "fa332c10"},
        [history.id, run.id, lineage.id],
    )
    return [legacy, translated, native, orders, lineitem, order_lines, training_set, code, run,
            lineage, history, model]  # fmt: skip


def as_bundle(nodes):
    sealed = seal(nodes)
    root = next(n for n in sealed if n.kind == "model_version")
    return {
        "format": FORMAT,
        "subject": {"model": "delivery_delay", "version": "1", "requested": "delivery_delay"},
        "created_at": CREATED_AT,
        "root": root.id,
        "root_digest": root.digest,
        "gaps": [f"{n.id}: {n.gap}" for n in sealed if n.gap is not None],
        "environment": {},
        "dagster_run_ids": ["8e27dbd0-c0d4-40c1-a3ed-9d6d75f7591e"],
        "auditor": {},
        "nodes": [n.to_dict() for n in sealed],
    }


@pytest.fixture
def bundle():
    return as_bundle(chain_nodes())


def by_job(events):
    return {event["job"]["name"]: event for event in map(Serde.to_dict, events)}


def node_of(bundle, kind, table):
    return next(
        n for n in bundle["nodes"] if n["kind"] == kind and n["content"].get("table") == table
    )


# -- the spec's requirements, field by field ------------------------------------------------
def assert_facets(facets, where):
    assert isinstance(facets, dict), where
    for key, facet in facets.items():
        assert (where, key) in FACETS, f"unexpected facet {key!r} in {where}"
        assert URI.match(facet["_producer"]), facet["_producer"]
        schema = FACET_SCHEMA.match(facet["_schemaURL"])
        assert schema, facet["_schemaURL"]
        assert schema["file"] == schema["name"] == FACETS[(where, key)]


def assert_well_formed(event):
    """What OpenLineage.json requires of a RunEvent, and of each facet's base."""
    assert json.loads(json.dumps(event)) == event
    assert event["eventType"] in EVENT_TYPES
    time = dt.datetime.fromisoformat(event["eventTime"])
    assert "T" in event["eventTime"] and time.tzinfo is not None
    assert URI.match(event["producer"])
    assert EVENT_SCHEMA.match(event["schemaURL"])
    assert str(uuid.UUID(event["run"]["runId"])) == event["run"]["runId"]
    for part in (event["job"]["namespace"], event["job"]["name"]):
        assert isinstance(part, str) and part
    assert_facets(event["run"].get("facets", {}), "run")
    assert_facets(event["job"].get("facets", {}), "job")
    for direction, own in (("inputs", "inputFacets"), ("outputs", "outputFacets")):
        for dataset in event.get(direction, []):
            assert isinstance(dataset["namespace"], str) and dataset["namespace"]
            assert isinstance(dataset["name"], str) and dataset["name"]
            assert_facets(dataset.get("facets", {}), "dataset")
            assert_facets(dataset.get(own, {}), own)


def test_one_complete_event_per_job(bundle):
    events = bundle_events(bundle)

    assert [e.job.name for e in events] == JOBS
    assert {e.eventType.value for e in events} == {"COMPLETE"}
    assert len({e.run.runId for e in events}) == len(events)


@pytest.mark.parametrize("job", JOBS)
def test_event_is_well_formed(bundle, job):
    assert_well_formed(by_job(bundle_events(bundle))[job])


@pytest.mark.parametrize(
    ("job", "inputs", "outputs"),
    [
        ("translate.order_lines", [("file", LEGACY_PATH, "a" * 64)], [("plumbline-ansi", "order_lines.sql", "3" * 64)]),
        ("generate.raw.orders", [], [(LAKE, "raw.orders", ORDERS_VERSION)]),
        ("build.warehouse.order_lines", [(LAKE, "raw.lineitem", LINEITEM_VERSION), (LAKE, "raw.orders", ORDERS_VERSION)], [(LAKE, "warehouse.order_lines", ORDER_LINES_VERSION)]),
        ("build.warehouse.training_set", [(LAKE, "warehouse.order_lines", ORDER_LINES_VERSION)], [(LAKE, "warehouse.training_set", TRAINING_SET_VERSION)]),
        ("train.delivery_delay", [(LAKE, "warehouse.training_set", TRAINING_SET_VERSION)], [("mlflow", "models:/delivery_delay/1", "1")]),
    ],
)  # fmt: skip
def test_datasets_and_their_versions(bundle, job, inputs, outputs):
    event = by_job(bundle_events(bundle))[job]

    def named(datasets):
        return [
            (d["namespace"], d["name"], d["facets"]["version"]["datasetVersion"]) for d in datasets
        ]

    assert named(event["inputs"]) == inputs
    assert named(event["outputs"]) == outputs


@pytest.mark.parametrize(
    ("job", "event_time"),
    [
        # Nothing in a translation node says when it ran.
        ("translate.order_lines", CREATED_AT),
        # A lake version is named after its publish time (nanoseconds cut to microseconds).
        ("generate.raw.orders", "2026-11-30T05:14:53.959555+00:00"),
        ("build.warehouse.order_lines", "2026-11-30T06:18:10.862707+00:00"),
        ("train.delivery_delay", RUN_END),
    ],
)
def test_event_time_is_the_nodes_own(bundle, job, event_time):
    assert by_job(bundle_events(bundle))[job]["eventTime"] == event_time


@pytest.mark.parametrize(
    ("job", "column", "sources"),
    [
        ("build.warehouse.order_lines", "late_days", [("raw.lineitem", "l_receiptdate"), ("raw.orders", "o_orderdate")]),
        ("build.warehouse.order_lines", "priority", [("raw.orders", "o_orderpriority")]),
        ("build.warehouse.training_set", "is_late", [("warehouse.order_lines", "late_days")]),
        ("build.warehouse.training_set", "late_days", [("warehouse.order_lines", "late_days")]),
        ("build.warehouse.training_set", "priority", [("warehouse.order_lines", "priority")]),
    ],
)  # fmt: skip
def test_column_lineage(bundle, job, column, sources):
    (output,) = by_job(bundle_events(bundle))[job]["outputs"]
    fields = output["facets"]["columnLineage"]["fields"][column]["inputFields"]

    assert [(f["name"], f["field"]) for f in fields] == sources
    assert {f["namespace"] for f in fields} == {LAKE}
    assert {t["type"] for f in fields for t in f["transformations"]} == {"DIRECT"}


def test_column_lineage_names_only_the_events_inputs(bundle):
    events = by_job(bundle_events(bundle))
    with_lineage = 0
    for event in events.values():
        inputs = {(d["namespace"], d["name"]) for d in event["inputs"]}
        for output in event["outputs"]:
            lineage = output["facets"].get("columnLineage", {"fields": {}})
            with_lineage += bool(lineage["fields"])
            for field in lineage["fields"].values():
                assert {(f["namespace"], f["name"]) for f in field["inputFields"]} <= inputs
    assert with_lineage == 2


def test_schema_facets_hold_the_column_types_the_bundle_read_from_the_files(bundle):
    events = by_job(bundle_events(bundle))
    (output,) = events["build.warehouse.order_lines"]["outputs"]
    fields = output["facets"]["schema"]["fields"]
    assert [(f["name"], f["type"]) for f in fields] == [
        ("late_days", "BIGINT"),
        ("priority", "VARCHAR"),
    ]
    # A table whose node records no columns gets no schema facet rather than an empty one.
    (raw_output,) = events["generate.raw.orders"]["outputs"]
    assert "schema" not in raw_output["facets"]


def test_assertions_mirror_the_check_verdicts(bundle):
    seen = set()
    for event in map(Serde.to_dict, bundle_events(bundle)):
        for dataset in event["inputs"]:
            facet = dataset["inputFacets"].get("dataQualityAssertions")
            if facet is None:
                continue
            table = dataset["name"].partition(".")[2]
            verdicts = {a["assertion"]: a["success"] for a in facet["assertions"]}
            assert verdicts == {name: c["passed"] for name, c in CHECKS[table].items()}
            seen.add(table)
    assert seen == set(CHECKS)


def test_output_statistics_come_from_the_manifest(bundle):
    (output,) = by_job(bundle_events(bundle))["generate.raw.orders"]["outputs"]
    assert output["outputFacets"]["outputStatistics"] == {
        "_producer": output["outputFacets"]["outputStatistics"]["_producer"],
        "_schemaURL": output["outputFacets"]["outputStatistics"]["_schemaURL"],
        "rowCount": 150,
        "fileCount": 1,
    }


def test_events_are_deterministic(bundle):
    first = [Serde.to_json(e) for e in bundle_events(bundle)]
    assert [Serde.to_json(e) for e in bundle_events(bundle)] == first
    assert [Serde.to_json(e) for e in bundle_events(as_bundle(chain_nodes()))] == first


def test_run_id_follows_the_node_digest(bundle):
    before = by_job(bundle_events(bundle))
    nodes = chain_nodes()
    orders = next(n for n in nodes if n.id.startswith("table:raw/orders"))
    orders.content["manifest"]["row_count"] = 151
    after = by_job(bundle_events(as_bundle(nodes)))

    changed = {job for job in JOBS if before[job]["run"]["runId"] != after[job]["run"]["runId"]}
    # A digest covers the node's ancestors, so every job downstream of raw.orders moves.
    assert changed == {
        "generate.raw.orders",
        "build.warehouse.order_lines",
        "build.warehouse.training_set",
        "train.delivery_delay",
    }


def test_gaps_and_stray_sources_are_reported():
    nodes = chain_nodes()
    gone = "raw/orders is no longer in the lake"
    for i, node in enumerate(nodes):
        if node.id.startswith("table:raw/orders"):
            # What the collector records for a version no longer in the lake.
            content = {"zone": "raw", "table": "orders", "version": ORDERS_VERSION}
            nodes[i] = Node(node.id, "table", node.title, content, gap=gone)
        if node.kind == "column_lineage":
            node.content["priority"][1]["from"].append("raw.customer.c_priority")
    events = by_job(bundle_events(as_bundle(nodes)))

    for event in events.values():
        assert_well_formed(event)
    orders = events["generate.raw.orders"]
    assert [e["errorMessage"] for e in orders["run"]["facets"]["extractionError"]["errors"]] == [
        f"table:raw/orders@{ORDERS_VERSION}: {gone}"
    ]
    assert "outputStatistics" not in orders["outputs"][0]["outputFacets"]
    build = events["build.warehouse.order_lines"]
    assert [e["errorMessage"] for e in build["run"]["facets"]["extractionError"]["errors"]] == [
        "warehouse.order_lines.priority: source raw.customer.c_priority is not an input of this run"
    ]
    lineage = build["outputs"][0]["facets"]["columnLineage"]["fields"]
    assert [f["name"] for f in lineage["priority"]["inputFields"]] == ["raw.orders"]
    assert "extractionError" not in events["train.delivery_delay"]["run"]["facets"]


@pytest.mark.parametrize(
    ("status", "event_type"), [("FINISHED", "COMPLETE"), ("FAILED", "FAIL"), ("KILLED", "ABORT")]
)
def test_training_event_type_follows_the_mlflow_run(status, event_type):
    nodes = chain_nodes()
    next(n for n in nodes if n.kind == "mlflow_run").content["status"] = status
    assert (
        by_job(bundle_events(as_bundle(nodes)))["train.delivery_delay"]["eventType"] == event_type
    )


UNSEALED = Node("table:raw/orders@v", "raw_table", "raw/orders", {"zone": "raw", "table": "orders"})


@pytest.mark.parametrize(
    ("bundle", "message"),
    [
        ({"format": "something/else", "nodes": []}, "not a plumbline audit bundle"),
        (
            {"format": FORMAT, "created_at": CREATED_AT, "nodes": [UNSEALED.to_dict()]},
            "has no digest",
        ),
    ],
)
def test_rejects_what_is_not_a_sealed_bundle(bundle, message):
    with pytest.raises(OpenLineageExportError, match=message):
        bundle_events(bundle)


# -- delivery -------------------------------------------------------------------------------
def test_emit_writes_json_lines(bundle, tmp_path):
    events = bundle_events(bundle)
    target = tmp_path / "out" / "lineage.jsonl"
    target.parent.mkdir()
    target.write_text("stale\n")

    emit(events, str(target))

    lines = target.read_text().splitlines()
    assert lines == [Serde.to_json(e) for e in events]
    for line in lines:
        assert_well_formed(json.loads(line))
    assert list(target.parent.iterdir()) == [target]


class _LineageServer(BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers["Content-Length"]))
        self.server.received.append((self.path, self.headers["Content-Type"], body))
        self.send_response(self.server.status)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, format, *args):
        pass


@pytest.fixture
def lineage_server():
    server = ThreadingHTTPServer(("127.0.0.1", 0), _LineageServer)
    server.received, server.status = [], 201
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()
    thread.join()


def test_emit_posts_each_event(bundle, lineage_server):
    events = bundle_events(bundle)
    host, port = lineage_server.server_address

    emit(events, f"http://{host}:{port}")

    assert [(path, kind) for path, kind, _ in lineage_server.received] == [
        ("/api/v1/lineage", "application/json")
    ] * len(events)
    bodies = [json.loads(body) for _, _, body in lineage_server.received]
    assert bodies == [Serde.to_dict(e) for e in events]
    for body in bodies:
        assert_well_formed(body)


def test_emit_says_which_event_the_server_refused(bundle, lineage_server):
    lineage_server.status = 400
    host, port = lineage_server.server_address

    with pytest.raises(OpenLineageExportError, match=r"did not take the event of job translate"):
        emit(bundle_events(bundle), f"http://{host}:{port}")
    assert len(lineage_server.received) == 1
