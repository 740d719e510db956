"""Jinja-templated legacy SQL: rendered in a sandbox with the given variables, ``ref`` and
``source`` resolved in the catalog, every diagnostic located in the template.

The ANSI a template translates to is held equal to the translation of the same query written
out by hand (an independent text, not the renderer's output); refusals and render errors are
held to the template's own line and column."""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sql.catalog import Catalog, load_catalog
from sql.diagnostics import TranslationError
from sql.templating import (
    file_stem,
    is_template,
    render_template,
    translate_source_text,
    variable_assignment,
)
from sql.translate import translate_script

CATALOG = load_catalog()


def render(text: str, dialect: str = "snowflake", catalog: Catalog = CATALOG, **variables):
    return render_template(
        text, file="model.sql", dialect=dialect, catalog=catalog, variables=variables
    )


def refusal(text: str, dialect: str = "snowflake", catalog: Catalog = CATALOG, **variables):
    with pytest.raises(TranslationError) as caught:
        translate_source_text(
            text,
            dialect,
            file="model.sql",
            name="model",
            catalog=catalog,
            variables=variables,
        )
    return caught.value.diagnostics


# --- rendering: template + variables -> SQL ---------------------------------------------------

RENDERED = [
    # (dialect, template, variables, rendered SQL)
    (
        "snowflake",
        "SELECT 1 AS x FROM {{ ref('orders') }}",
        {},
        'SELECT 1 AS x FROM "PROD_DW"."SALES"."ORDERS"',
    ),
    (
        "tsql",
        "SELECT 1 AS x FROM {{ ref('orders') }}",
        {},
        "SELECT 1 AS x FROM [salesdw].[dbo].[orders]",
    ),
    (
        "bigquery",
        "SELECT 1 AS x FROM {{ ref('orders') }}",
        {},
        "SELECT 1 AS x FROM `acme-dw`.`sales`.`orders`",
    ),
    (
        "bigquery",
        "SELECT 1 AS x FROM {{ source('sales', 'orders') }}",
        {},
        "SELECT 1 AS x FROM sales.orders",
    ),
    ("snowflake", "{{ config(materialized='incremental') }}\nSELECT 1 AS x", {}, "\nSELECT 1 AS x"),
    ("snowflake", "SELECT {{ var('n') }} AS x", {"n": 3}, "SELECT 3 AS x"),
    ("snowflake", "SELECT {{ var('n', 7) }} AS x", {}, "SELECT 7 AS x"),
    ("snowflake", "SELECT '{{ since }}' AS x", {"since": "2024-01-01"}, "SELECT '2024-01-01' AS x"),
    ("snowflake", "SELECT 1{% if is_incremental() %} + 1{% endif %} AS x", {}, "SELECT 1 AS x"),
    (
        "snowflake",
        "SELECT 1{% if is_incremental() %} + 1{% endif %} AS x",
        {"is_incremental": True},
        "SELECT 1 + 1 AS x",
    ),
    (
        "snowflake",
        "SELECT {% if is_init() %}0{% else %}1{% endif %} AS x",
        {"is_init": True},
        "SELECT 0 AS x",
    ),
    (
        "snowflake",
        "SELECT\n{%- for c in cols %}\n  {{ c }},\n{%- endfor %}\n  1 AS one",
        {"cols": ["a", "b"]},
        "SELECT\n  a,\n  b,\n  1 AS one",
    ),
    ("snowflake", "{% set n = 2 %}SELECT {{ n * 3 }} AS x", {}, "SELECT 6 AS x"),
    (
        "snowflake",
        "{% macro cents(c) %}{{ c }} * 100{% endmacro %}SELECT {{ cents('p') }} AS x",
        {},
        "SELECT p * 100 AS x",
    ),
    ("snowflake", "SELECT 1 AS x {# a note #}\n", {}, "SELECT 1 AS x \n"),
]


@pytest.mark.parametrize(("dialect", "template", "variables", "expected"), RENDERED)
def test_a_template_renders_with_its_variables(dialect, template, variables, expected):
    assert render(template, dialect, **variables).sql == expected


def test_the_variables_read_are_recorded_and_no_others():
    rendered = render(
        "SELECT {{ a }}{% if is_incremental() %}, {{ var('b') }}{% endif %} AS x",
        a=1,
        b="y",
        unused="z",
        is_incremental=False,
    )
    assert rendered.variables == {"a": 1, "is_incremental": False}


# --- template -> ANSI, against the same query written out by hand ---------------------------

TRANSLATED = [
    (
        "snowflake",
        """{{ config(materialized='table') }}
SELECT o_custkey, COUNT(*) AS orders, IFF(SUM(o_totalprice) > {{ var('big') }}, 'big', 'small') AS size
FROM {{ ref('orders') }}
{% if is_incremental() %}
WHERE o_orderdate >= '{{ var('since') }}'
{% endif %}
GROUP BY o_custkey""",
        {"big": 1000, "since": "2024-01-01", "is_incremental": True},
        """SELECT o_custkey, COUNT(*) AS orders, IFF(SUM(o_totalprice) > 1000, 'big', 'small') AS size
FROM PROD_DW.SALES.ORDERS
WHERE o_orderdate >= '2024-01-01'
GROUP BY o_custkey""",
    ),
    (
        "bigquery",
        """SELECT
{%- for flag in ['A', 'F', 'O'] %}
  COUNTIF(o_orderstatus = '{{ flag }}') AS status_{{ flag | lower }},
{%- endfor %}
  o_custkey
FROM {{ source('sales', 'orders') }}
GROUP BY o_custkey""",
        {},
        """SELECT
  COUNTIF(o_orderstatus = 'A') AS status_a,
  COUNTIF(o_orderstatus = 'F') AS status_f,
  COUNTIF(o_orderstatus = 'O') AS status_o,
  o_custkey
FROM sales.orders
GROUP BY o_custkey""",
    ),
    (
        "tsql",
        """{% set since = var('since', '2020-01-01') %}
SELECT TOP 10 c.c_name, o.o_totalprice
FROM {{ ref('orders') }} AS o
JOIN {{ source('dbo', 'Customer') }} AS c ON c.c_custkey = o.o_custkey
WHERE o.o_orderdate >= '{{ since }}'
ORDER BY o.o_totalprice DESC""",
        {},
        """SELECT TOP 10 c.c_name, o.o_totalprice
FROM SalesDW.dbo.Orders AS o
JOIN dbo.Customer AS c ON c.c_custkey = o.o_custkey
WHERE o.o_orderdate >= '2020-01-01'
ORDER BY o.o_totalprice DESC""",
    ),
]


@pytest.mark.parametrize(("dialect", "template", "variables", "by_hand"), TRANSLATED)
def test_a_template_translates_as_the_query_it_renders_to(dialect, template, variables, by_hand):
    script, rendered = translate_source_text(
        template, dialect, file="model.sql", name="model", catalog=CATALOG, variables=variables
    )
    expected = translate_script(by_hand, dialect, file="by_hand.sql", name="model", catalog=CATALOG)
    assert rendered is not None
    assert [t.ansi_sql for t in script.tables] == [t.ansi_sql for t in expected.tables]
    assert script.tables[0].source_tables == expected.tables[0].source_tables


def test_plain_sql_is_not_rendered():
    text = "SELECT o_orderkey FROM SALES.ORDERS"
    script, rendered = translate_source_text(
        text, "snowflake", file="plain.sql", name="plain", catalog=CATALOG
    )
    assert rendered is None
    assert script.tables[0].source_tables == ("raw.orders",)


# --- ref and source through the catalog --------------------------------------------------------

REF_CATALOG = Catalog(
    tables={
        "raw.orders": {"id": "BIGINT"},
        "warehouse.orders": {"id": "BIGINT"},
        "raw.events": {"id": "BIGINT"},
        "raw.mixed": {"id": "BIGINT"},
    },
    legacy={
        "snowflake": {
            ("SHOP", "PUBLIC", "ORDERS"): "raw.orders",
            ("SHOP", "PUBLIC", "Mixed"): "raw.mixed",
        }
    },
    sources=("shop.yaml",),
)


@pytest.mark.parametrize(
    ("template", "needle", "line", "col"),
    [
        ("SELECT 1\nFROM {{ ref('nowhere') }}", "no table 'nowhere' in the catalog", 2, 9),
        ("SELECT 1 FROM {{ ref('orders') }}", "can name raw.orders, warehouse.orders", 1, 18),
        ("SELECT 1 FROM {{ ref('events') }}", "has no snowflake name in the catalog", 1, 18),
        ("SELECT 1 FROM {{ ref('orders', v=2) }}", "ref() takes one table name", 1, 18),
        ("SELECT 1 FROM {{ source('PUBLIC', 'NOPE') }}", "source('PUBLIC', 'NOPE'): table", 1, 18),
        ("SELECT 1 FROM {{ source('orders') }}", "source() takes a schema", 1, 18),
    ],
)
def test_an_unknown_ref_or_source_is_refused_where_it_is_called(template, needle, line, col):
    (diagnostic,) = refusal(template, catalog=REF_CATALOG)
    assert diagnostic.rule == "TEMPLATE"
    assert needle in diagnostic.message
    assert (diagnostic.file, diagnostic.line, diagnostic.col) == ("model.sql", line, col)


def test_ref_keeps_a_quoted_names_case():
    """A Snowflake name the catalog holds quoted in mixed case is written quoted: unquoted, it
    would fold to MIXED and name nothing."""
    rendered = render("SELECT id FROM {{ ref('mixed') }}", catalog=REF_CATALOG)
    assert rendered.sql == 'SELECT id FROM "SHOP"."PUBLIC"."Mixed"'
    script, _ = translate_source_text(
        "SELECT id FROM {{ ref('mixed') }}",
        "snowflake",
        file="m.sql",
        name="m",
        catalog=REF_CATALOG,
    )
    assert script.tables[0].source_tables == ("raw.mixed",)


def test_source_resolves_with_the_default_namespace_as_written_sql_does():
    script, _ = translate_source_text(
        "SELECT id FROM {{ source('public', 'orders') }}",
        "snowflake",
        file="m.sql",
        name="m",
        catalog=REF_CATALOG,
    )
    assert script.tables[0].source_tables == ("raw.orders",)
    assert [d.rule for d in script.tables[0].diagnostics] == ["NAME-DEFAULT"]


# --- errors located in the template ---------------------------------------------------------


@pytest.mark.parametrize(
    ("template", "needle", "line", "col"),
    [
        ("SELECT 1\nFROM t\nWHERE d >= '{{ since }}'", "'since' is undefined", 3, 16),
        ("SELECT 1\n{% if full %}\n, 2\n{% endif %}", "'full' is undefined", 2, 7),
        ("SELECT {{ var('n') }}", "var('n') is not given", 1, 11),
        (
            "SELECT {{ metrics.calculate(metrics=['a'], platform='x') }}",
            "'metrics' is undefined",
            1,
            11,
        ),
        ("SELECT 1\n\n{% if %}", "template syntax", 3, 1),
        ("SELECT 1\n{% for x in y %}", "template syntax", 2, 1),
        ("SELECT 1\n  {% include 'header.sql' %}", "are not provided ('header.sql')", 2, 3),
        ("SELECT 1\n{% if is_incremental %}, 2{% endif %}", "write is_incremental(...)", 2, 7),
        ("SELECT 1 FROM {{ ref }}", "ref is a function", 1, 18),
        ("SELECT {{ is_incremental() }}", "", 1, 1),  # renders False: no error
    ],
)
def test_a_template_error_is_located_in_the_template(template, needle, line, col):
    if not needle:
        assert render(template).sql == "SELECT False"
        return
    (diagnostic,) = refusal(template)
    assert diagnostic.rule == "TEMPLATE"
    assert needle in diagnostic.message
    assert (diagnostic.line, diagnostic.col) == (line, col), diagnostic.format()


HOSTILE = [
    "{{ ''.__class__.__mro__[1].__subclasses__() }}",
    "{{ cycler.__init__.__globals__.os.popen('id').read() }}",
    "{{ self.__init__.__globals__ }}",
    "{{ lipsum.__globals__['os'].popen('id').read() }}",
    "{{ namespace.__init__.__globals__ }}",
    "{{ ''.format.__self__ }}",
    "{% include '/etc/passwd' %}",
    "{% import '/etc/passwd' as p %}",
    "{% extends '/etc/passwd' %}",
    "{% from '/etc/passwd' import x %}",
    "{{ 'x' * 100000000 }}",
    "{{ 2 ** (10 ** 10) }}",
    "{% for i in range(10 ** 9) %}{% endfor %}",
    "{% macro m() %}{{ m() }}{% endmacro %}{{ m() }}",
]


@pytest.mark.parametrize("template", HOSTILE)
def test_a_hostile_template_is_refused_located_and_reads_no_file(template):
    diagnostics = refusal(f"SELECT 1\n{template}")
    assert [(d.rule, d.file, d.line) for d in diagnostics] == [("TEMPLATE", "model.sql", 2)]
    assert "root:" not in diagnostics[0].message


@pytest.mark.parametrize(
    ("variables", "needle"),
    [
        ({"ref": "x"}, "would hide the function ref()"),
        ({"not a name": 1}, "is not a name"),
        ({"d": {"a": 1}}, "dict is not a string"),
        ({"m": "\ue000"}, "U+E000"),
        ({"is_incremental": "yes"}, "needs true or false"),
    ],
)
def test_bad_variables_are_refused(variables, needle):
    (diagnostic,) = refusal("SELECT {{ is_incremental() }}", **variables)
    assert needle in diagnostic.message


# --- refusals of the translation, located in the template ----------------------------------

REFUSALS = [
    # (template, variables, line:col of APPROX_COUNT_DISTINCT in the template)
    (
        "SELECT\n  {{ key }},\n  APPROX_COUNT_DISTINCT(o_custkey) AS n\nFROM {{ ref('orders') }}\nGROUP BY 1",
        {"key": "o_orderstatus"},
        (3, 3),
    ),
    (
        "SELECT {{ key }}, APPROX_COUNT_DISTINCT(o_custkey) AS n FROM {{ ref('orders') }} GROUP BY 1",
        {"key": "o_orderstatus"},
        (1, 19),
    ),
    (
        "{{ config(materialized='view') }}\n{% set k = 'o_orderstatus' %}\nSELECT {{ k }},\n"
        "{%- if wide %}\n       o_orderpriority,\n{%- endif %}\n"
        "       APPROX_COUNT_DISTINCT(o_custkey) AS n\nFROM SALES.ORDERS GROUP BY ALL",
        {"wide": True},
        (7, 8),
    ),
    (
        "SELECT o_orderstatus\n{%- for c in ['o_custkey', 'o_clerk'] %}\n"
        "  , APPROX_COUNT_DISTINCT({{ c }}) AS n_{{ c }}\n{%- endfor %}\nFROM SALES.ORDERS GROUP BY 1",
        {},
        (3, 5),  # both repetitions: the loop body's line
    ),
]


@pytest.mark.parametrize(("template", "variables", "at"), REFUSALS)
def test_a_refusal_in_a_template_is_located_at_the_construct_in_the_template(
    template, variables, at
):
    diagnostics = refusal(template, **variables)
    assert {d.rule for d in diagnostics} == {"APPROX-AGG"}
    assert {(d.file, d.line, d.col) for d in diagnostics} == {("model.sql", *at)}
    line, col = at
    assert template.split("\n")[line - 1][col - 1 :].startswith("APPROX_COUNT_DISTINCT")


def test_a_statement_and_its_warnings_are_located_in_the_template():
    template = "{{ config() }}\n\nSELECT id\nFROM {{ source('public', 'orders') }}"
    script, _ = translate_source_text(
        template, "snowflake", file="m.sql", name="m", catalog=REF_CATALOG
    )
    table = script.tables[0]
    assert (table.line, table.col) == (3, 1)
    (warning,) = table.diagnostics
    assert (warning.file, warning.line, warning.col) == ("m.sql", 4, 6)


# --- the line map ------------------------------------------------------------------------------

LOCATE = [
    # (template, variables, rendered line:col, template line:col)
    ("a\nb\nc", {}, (2, 1), (2, 1)),
    ("x {{ v }} y", {"v": "long value"}, (1, 1), (1, 1)),  # before the tag: the same
    ("x {{ v }} y", {"v": "long value"}, (1, 14), (1, 11)),  # after it: its own place
    ("x {{ v }} y", {"v": "long value"}, (1, 5), (1, 3)),  # inside: the tag's start
    ("{{ a }} b {{ c }} d", {"a": "1", "c": "333"}, (1, 3), (1, 9)),  # between two tags
    ("{{ a }} b {{ c }} d", {"a": "1", "c": "333"}, (1, 5), (1, 11)),
    ("{{ a }} b {{ c }} d", {"a": "1", "c": "333"}, (1, 9), (1, 19)),
    ("{{ a }} b{{ a }} b", {"a": "1"}, (1, 6), (1, 18)),  # the same text twice on a line
    ("x {{- v }} y", {"v": "V"}, (1, 2), (1, 3)),  # whitespace control before the tag
    ("{% if a %}\nkept\n{% endif %}\nnext", {"a": True}, (2, 3), (2, 3)),
    ("{% if a %}\nkept\n{% endif %}\nnext", {"a": True}, (4, 1), (4, 1)),
    ("{% if a %}\ndropped\n{% endif %}\nnext", {"a": False}, (2, 1), (4, 1)),
    ("{% for i in [1, 2] %}\nrow {{ i }}\n{% endfor %}\nend", {}, (4, 1), (2, 1)),
    ("{% for i in [1, 2] %}\nrow {{ i }}\n{% endfor %}\nend", {}, (6, 1), (4, 1)),
    ("a\n{{ v }}\nb", {"v": "one\ntwo"}, (3, 1), (2, 1)),  # a value's lines: its tag's line
    ("a\n{{ v }}\nb", {"v": "one\ntwo"}, (4, 1), (3, 1)),
    ("SELECT a\n{%- if x -%}\n  , b\n{%- endif %}", {"x": True}, (1, 11), (3, 5)),
]


@pytest.mark.parametrize(("template", "variables", "rendered_at", "template_at"), LOCATE)
def test_each_rendered_position_maps_to_the_template(template, variables, rendered_at, template_at):
    assert render(template, **variables).locate(*rendered_at) == template_at


# --- detection, variables on the command line, names -----------------------------------------


@pytest.mark.parametrize(
    ("text", "file", "expected"),
    [
        ("SELECT 1", "a.sql", False),
        ("SELECT {{ x }}", "a.sql", True),
        ("{% if x %}SELECT 1{% endif %}", "a.sql", True),
        ("SELECT 1 {# note #}", "a.sql", True),
        ("SELECT 1", "a.sql.j2", True),
        ("SELECT 1", "a.jinja", True),
        ("SELECT OBJECT_CONSTRUCT('a', {'b': 1})", "a.sql", False),
    ],
)
def test_what_is_a_template(text, file, expected):
    assert is_template(text, file) is expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("flag=true", ("flag", True)),
        ("flag=false", ("flag", False)),
        ("n=42", ("n", 42)),
        ("n=-3", ("n", -3)),
        ("code=010", ("code", "010")),  # no octal, no YAML guessing
        ("x=1e3", ("x", "1e3")),
        ("d=2024-01-01", ("d", "2024-01-01")),
        ("s=a=b", ("s", "a=b")),
        ("empty=", ("empty", "")),
    ],
)
def test_a_variable_assignment(text, expected):
    assert variable_assignment(text) == expected


@pytest.mark.parametrize("text", ["novalue", "=1", "1x=2", "a-b=1"])
def test_a_bad_variable_assignment_is_refused(text):
    with pytest.raises(ValueError, match=re.escape(repr(text))):
        variable_assignment(text)


@pytest.mark.parametrize(
    ("file", "stem"),
    [("daily.sql", "daily"), ("daily.sql.j2", "daily"), ("x/daily.jinja", "daily")],
)
def test_a_template_file_names_its_table(file, stem):
    assert file_stem(file) == stem


# --- any text: a rendering or a located TEMPLATE refusal, never another exception ------------

FRAGMENTS = [
    "{{", "}}", "{%", "%}", "{#", "#}", "{{-", "-}}", "{%-", "-%}", " if ", " else ", " endif ",
    " for x in ", " endfor ", " set y = ", " macro m(a) ", " endmacro ", " call m(1) ",
    " endcall ", " filter upper ", " endfilter ", " raw ", " endraw ", " include 'a' ",
    "ref('orders')", "ref(1)", "source('sales', 'orders')", "var('a')", "var('a', 1)",
    "is_incremental()", "config(x=1)", "1/0", "x", "y", "m(2)", "caller()", "loop.index",
    "range(3)", "'s'", "(", ")", "[", "]", ".", "|", "upper", "~", "*", "**", "-", "+",
    " is defined ", " not ", " and ", "__class__", "self", "\n", " ", "SELECT 1", ",", "\ue000",
]  # fmt: skip


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(FRAGMENTS), max_size=24).map("".join))
def test_any_template_renders_or_is_refused_located(text):
    try:
        rendered = render(text, x=1, y=[1, 2])
    except TranslationError as error:
        assert all(d.rule == "TEMPLATE" and d.file == "model.sql" for d in error.diagnostics)
        assert all(1 <= d.line <= text.count("\n") + 1 for d in error.diagnostics)
        return
    lines = rendered.sql.split("\n")
    for number, line in enumerate(lines, 1):
        for col in range(1, len(line) + 2):
            template_line, template_col = rendered.locate(number, col)
            assert 1 <= template_line <= text.count("\n") + 1
            assert template_col >= 1


def test_an_unknown_column_is_located_in_the_template_and_only_there():
    template = "SELECT\n  {{ ref('orders') }}.o_orderdate, no_such_column\nFROM {{ ref('orders') }}"
    (diagnostic,) = refusal(template)
    assert (diagnostic.line, diagnostic.col) == (2, 36)
    assert diagnostic.message == "Column 'no_such_column' could not be resolved."
