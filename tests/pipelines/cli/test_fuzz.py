"""Every `plumbline` command, fed random bytes, paths and options (hypothesis), ends with a
documented exit code (0, 1, 2) and error lines, never a traceback or an internal error.

The commands run in this process (click's runner) on an empty home whose MLflow URI points
at a port nothing listens on, so that no fuzzed input can start a pipeline, a server or a
training: `run` is refused by its preflight, and `ui`, `mlflow-ui` and `bench gpu` (which
start servers and torchrun) are fuzzed on their options only up to their first refusal.
"""

import itertools
import os
import string
import tempfile
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from pipelines.cli.main import main
from sql.source_dialects import DIALECTS
from tests.mlflow_server import free_port

pytestmark = pytest.mark.slow

DOCUMENTED_EXIT_CODES = {0, 1, 2}
EXAMPLES = int(os.environ.get("PLUMBLINE_FUZZ_EXAMPLES", "25"))
SCRATCH = Path(tempfile.mkdtemp(prefix="plumbline-fuzz-"))
HOME = SCRATCH / "home"
COUNTER = itertools.count()
ENV = {k: None for k in os.environ if k.startswith(("PLUMBLINE_", "MLFLOW_"))} | {
    "PLUMBLINE_HOME": str(HOME),
    "PLUMBLINE_MLFLOW_URI": f"http://127.0.0.1:{free_port()}",
}

words = st.text(
    alphabet=st.characters(codec="utf-8", exclude_characters="\x00"), min_size=0, max_size=40
)
numbers = st.one_of(st.integers(-(10**12), 10**12).map(str), st.floats().map(str), words)


@st.composite
def files(draw) -> str:
    """A path: a file of random bytes, random UTF-8 text, a folder, or nothing at all."""
    kind = draw(st.sampled_from(["bytes", "text", "folder", "missing", "word"]))
    path = SCRATCH / f"f{next(COUNTER)}"
    if kind == "bytes":
        path.write_bytes(draw(st.binary(max_size=400)))
    elif kind == "text":
        path.write_text(draw(st.text(max_size=400)), encoding="utf-8", errors="replace")
    elif kind == "folder":
        path.mkdir(exist_ok=True)
        (path / "c.yaml").write_bytes(draw(st.binary(max_size=200)))
    elif kind == "word":
        return draw(words)
    return str(path)


sql_text = st.one_of(
    words,
    st.text(alphabet=string.printable, max_size=200),
    st.sampled_from(["SELECT 1", "SELEC 1", "COPY x TO 'y'", "SELECT * FROM raw.orders", ";;"]),
)


def option(flag: str, values) -> st.SearchStrategy[list[str]]:
    return values.map(lambda value: [flag, value])


def command(prefix: list[str], *parts: st.SearchStrategy[list[str]], positional=None):
    """``prefix`` then any subset of ``parts`` (each a flag and its value), shuffled, and
    optionally positional arguments."""
    chosen = (
        st.lists(st.sampled_from(parts), unique_by=id, max_size=len(parts))
        if parts
        else st.just([])
    )

    @st.composite
    def build(draw):
        pieces = [draw(part) for part in draw(chosen)]
        if positional is not None:
            pieces += [[value] for value in draw(st.lists(positional, max_size=3))]
        return list(prefix) + [arg for piece in draw(st.permutations(pieces)) for arg in piece]

    return build()


dialects = st.one_of(st.sampled_from(DIALECTS), words)
COMMANDS = {
    "translate": command(
        ["translate"],
        option("--from", dialects),
        option("--to", st.one_of(st.sampled_from(["ansi", "duckdb", "spark"]), words)),
        option("--catalog", files()),
        option("--assume", words),
        st.just(["--json"]),
        positional=files(),
    ),
    "query": command(
        ["query"],
        option("--max-rows", numbers),
        st.just(["--csv"]),
        positional=sql_text,
    ),
    "catalog import": command(
        ["catalog", "import"],
        option("--from", dialects),
        option("--from-lake", files()),
        option("-o", files()),
        option("--zone", words),
        positional=files(),
    ),
    "contracts lint": command(
        ["contracts", "lint"], option("--contracts", files()), option("--against", files())
    ),
    "audit": command(
        ["audit"],
        option("--verify", files()),
        option("--out", files()),
        option("--openlineage", files()),
        positional=words,
    ),
    "models history": command(["models", "history"], st.just(["--json"]), positional=words),
    "k8s render": command(
        ["k8s", "render"],
        option("--image", words),
        option("--nodes", numbers),
        option("--gpus-per-node", numbers),
        option("--gpu", words),
        option("--job-file", files()),
        option("--shared-mount-path", words),
        option("--out", files()),
    ),
    "run": command(
        ["run"],
        option("--scale", numbers),
        option("--engine", words),
        option("--select", words),
    ),
    "unknown": st.lists(words, min_size=1, max_size=3),
}


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_every_command_ends_in_a_documented_way(name):
    runner = CliRunner()

    @settings(
        max_examples=EXAMPLES,
        # The same examples on every CI run, so CI fails only for a change; a bigger
        # PLUMBLINE_FUZZ_EXAMPLES (or PLUMBLINE_FUZZ_RANDOM=1) explores further.
        derandomize=not os.environ.get("PLUMBLINE_FUZZ_RANDOM"),
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
        database=None,
    )
    @given(args=COMMANDS[name])
    def check(args):
        if any(a in ("-h", "--help") for a in args):
            return
        result = runner.invoke(main, args, env=ENV)
        shown = f"plumbline {args!r} -> {result.exit_code}\n{result.stdout}\n{result.stderr}"
        assert result.exit_code in DOCUMENTED_EXIT_CODES, shown
        if result.exception is not None:
            assert isinstance(result.exception, SystemExit), shown
        assert "Traceback" not in result.stderr + result.stdout, shown
        assert "internal error" not in result.stderr, shown
        if result.exit_code == 2:
            assert result.stderr.count("\n") == 1, shown
            assert result.stderr.startswith("plumbline: error: "), shown

    check()


# A project's defs.yaml, fed odd values (issue 44: a source named `Products` or a path holding
# a NUL was an internal error). Attribute values are drawn as YAML can hold them; each project
# is loaded as `plumbline run` and `dg check defs` load it, and either loads or is refused with
# one FILE:FIELD: message line per problem.
PATHS = st.one_of(
    words,
    st.sampled_from(["/etc/passwd", "../../x", "snapshots/old.txt", "sources/*.csv", "\x00"]),
)
leaves = st.one_of(st.none(), st.booleans(), st.integers(-5, 5), st.floats(), PATHS)
values = st.recursive(
    leaves,
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(PATHS, inner, max_size=3)),
    max_leaves=6,
)
ATTRIBUTES = st.one_of(
    st.dictionaries(
        st.sampled_from(
            [
                "legacy",
                "catalogs",
                "contracts",
                "portable_sql",
                "references",
                "snapshots",
                "sources",
                "tpch",
                "engine",
                "template_vars",
                "models",
                "allowed_paths",
                "reconciliation",
            ]
        ),
        values,
        max_size=3,
    ),
    PATHS.map(lambda v: {"sources": {"orders": {"files": v}}}),
    PATHS.map(lambda v: {"sources": {v: {"files": "sources/orders.csv"}}}),
    values.map(lambda v: {"reconciliation": {"tables": {"daily_revenue": {"key": v}}}}),
    values.map(lambda v: {"reconciliation": {"tables": {"daily_revenue": {"tolerance": v}}}}),
    PATHS.map(lambda v: {"reconciliation": {"tables": {"daily_revenue": {"snapshot": v}}}}),
)


def test_every_project_configuration_loads_or_is_refused_in_lines(tmp_path, monkeypatch):
    import yaml

    from pipelines.cli.location import CodeLocation
    from pipelines.project import ProjectProblems
    from tests.pipelines.test_project_check import NAMES, Project

    monkeypatch.setenv("PLUMBLINE_HOME", str(tmp_path / "home"))

    @settings(
        # A third of the commands' count: each example is a new project, loaded (~0.4 s).
        max_examples=max(EXAMPLES // 3, 1),
        derandomize=not os.environ.get("PLUMBLINE_FUZZ_RANDOM"),
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
        database=None,
    )
    @given(attributes=ATTRIBUTES)
    # What a hostile round found (issue 44): each was an internal error.
    @example(attributes={"contracts": "\x00"})
    @example(attributes={"sources": {"orders": {"files": "\x00"}}})
    @example(attributes={"reconciliation": {"tables": {"daily_revenue": {"snapshot": "\x00"}}}})
    def check(attributes):
        project = Project(tmp_path / next(NAMES))
        project.write("snapshots/old.txt", "order_date,revenue\n")
        try:
            project.attributes(**attributes)
        except yaml.YAMLError:
            return  # not a YAML document
        shown = repr(attributes)
        try:
            CodeLocation(project.root, f"{project.package}.definitions").definitions()
        except ProjectProblems as problems:
            for line in problems.lines(project.root):
                assert "\n" not in line and "Traceback" not in line, shown
                assert line.split(": ", 1)[0], shown  # FILE:FIELD before the message

    check()
