"""The digests' shorter number text is the text ``format('{:.12g}', CAST(x AS DOUBLE))``
writes, value for value, at every boundary of every numeric type; and the digests of real
tables are those the code before it computed (every lake version records them)."""

import random
from decimal import Decimal
from pathlib import Path

import duckdb
import pytest
from sqlglot import exp

from pipelines.warehouse.engines import digest
from pipelines.warehouse.engines.duckdb_engine import connect_duckdb

# What every number's text was, and still is where no shorter way gives the same.
GENERAL = "format('{:.12g}', CAST(x AS DOUBLE))"

INTEGER_RANGES = {
    "TINYINT": (-(2**7), 2**7 - 1),
    "SMALLINT": (-(2**15), 2**15 - 1),
    "INTEGER": (-(2**31), 2**31 - 1),
    "BIGINT": (-(2**63), 2**63 - 1),
    "HUGEINT": (-(2**127), 2**127 - 1),
    "UTINYINT": (0, 2**8 - 1),
    "USMALLINT": (0, 2**16 - 1),
    "UINTEGER": (0, 2**32 - 1),
    "UBIGINT": (0, 2**64 - 1),
    "UHUGEINT": (0, 2**128 - 1),
}
DECIMALS = [
    (p, s)
    for p in (1, 3, 4, 5, 9, 10, 11, 12, 13, 15, 16, 17, 18, 19, 24, 28, 38)
    for s in sorted({0, 1, 2, 3, 4, 5, 6, 8, 10, 12, 14, 16, 17, 18, p - 1, p})
    if 0 <= s <= p
]


def _magnitudes(digits: int) -> set[int]:
    """Unscaled integers around every power of ten up to ``digits`` digits (and the 12th
    digit's rounding: 13 digits ending in 5, 4 and 6), each with its neighbours."""
    found = {0, 1, 2, 5, 9}
    for k in range(digits + 1):
        for base in (10**k, 5 * 10**k, 10 ** (k + 1) - 1, 2**53 if k == 15 else 10**k):
            found.update({base - 1, base, base + 1})
    found.update({1234567890125, 1234567890124, 1234567890126, 9999999999995, 999999999999})
    found.update({123456789012345678, 2**63 - 1, 2**64 - 1})
    return {m for m in found if 0 <= m < 10**digits}


def _compare(con: duckdb.DuckDBPyConnection, duckdb_type: str, texts: list[str | None]) -> list:
    """The values (given as text, cast to ``duckdb_type``) whose new text differs."""
    new = digest.number_text(exp.column("x"), duckdb_type).sql("duckdb")
    query = (
        f"SELECT x, {GENERAL}, {new} FROM "
        f"(SELECT TRY_CAST(v AS {duckdb_type}) AS x FROM (SELECT unnest(?::VARCHAR[]) AS v)) "
        f"WHERE ({GENERAL}) IS DISTINCT FROM ({new})"
    )
    return con.execute(query, [texts]).fetchall()


def _signed(values) -> list[str | None]:
    return [None, *(t for v in values for t in (str(v), "-" + str(v)))]


@pytest.mark.parametrize("duckdb_type", sorted(INTEGER_RANGES))
def test_integer_text_is_the_general_format(duckdb_type):
    low, high = INTEGER_RANGES[duckdb_type]
    rng = random.Random(duckdb_type)
    values = (
        _magnitudes(39)
        | {low, high, -low, high - 1}
        | {rng.randrange(0, 10 ** rng.randrange(1, 39)) for _ in range(300)}
    )
    with duckdb.connect() as con:
        assert _compare(con, duckdb_type, _signed(sorted(values))) == []


@pytest.mark.parametrize(("precision", "scale"), DECIMALS)
def test_decimal_text_is_the_general_format(precision, scale):
    duckdb_type = f"DECIMAL({precision},{scale})"
    rng = random.Random(duckdb_type)
    unscaled = (
        _magnitudes(precision)
        | {10**precision - 1}
        | {rng.randrange(0, 10 ** rng.randrange(1, precision + 1)) for _ in range(200)}
    )
    texts = [str(Decimal(m).scaleb(-scale)) for m in sorted(unscaled)]
    # The boundaries in value, whatever the scale: 1e-4 and 1e12 and their neighbours.
    texts += ["0.0001", "0.00009999", "0.00010001", "999999999999", "1000000000000"]
    with duckdb.connect() as con:
        assert _compare(con, duckdb_type, _signed(texts)) == []


@pytest.mark.parametrize("duckdb_type", ["FLOAT", "DOUBLE"])
def test_binary_floating_point_keeps_the_general_format(duckdb_type):
    texts = ["0", "-0", "1e-4", "9.99999e-5", "1e12", "999999999999", "0.1", "nan", "inf"]
    with duckdb.connect() as con:
        assert _compare(con, duckdb_type, _signed(texts)) == []
    assert digest.number_text(exp.column("x"), duckdb_type).sql("duckdb") == (
        "FORMAT('{:.12g}', CAST(x AS DOUBLE))"
    )


def test_date_text_is_strftime():
    """Year 1 and the years around it (DuckDB's 0001-12-31 (BC) is strftime's 0-12-31), the
    four- and five-digit years, the last date, the infinities, NULL and random days."""
    rng = random.Random("DATE")
    texts = ["0001-01-01", "0001-12-31", "0999-12-31", "9999-12-31", "10000-01-01"]
    texts += ["5877642-06-25", "5877642-06-25 (BC)", "0001-01-01 (BC)", "0001-12-31 (BC)"]
    texts += ["0002-01-01 (BC)", "infinity", "-infinity", None]
    days = [rng.randrange(-1_000_000, 3_000_000) for _ in range(500)]
    new = digest.date_text(exp.column("x")).sql("duckdb")
    with duckdb.connect() as con:
        differing = con.execute(
            "SELECT x FROM (SELECT TRY_CAST(v AS DATE) AS x FROM "
            "(SELECT unnest(?::VARCHAR[]) AS v UNION ALL "
            "SELECT CAST(DATE '1970-01-01' + d AS VARCHAR) FROM (SELECT unnest(?::INTEGER[]) d))) "
            f"WHERE strftime(x, '%Y-%m-%d') IS DISTINCT FROM ({new})",
            [texts, days],
        ).fetchall()
    assert differing == []


@pytest.mark.parametrize(
    ("duckdb_type", "shortened"),
    [
        ("INTEGER", True),
        ("BIGINT", True),
        ("UHUGEINT", True),
        ("DECIMAL(15,2)", True),
        ("DECIMAL(38,16)", True),  # zero alone
        ("DECIMAL(38,17)", False),  # a nonzero value of <= 12 digits is below 1e-4
        ("DOUBLE", False),
    ],
)
def test_the_shorter_text_is_used_where_it_can_be(duckdb_type, shortened):
    sql = digest.number_text(exp.column("x"), duckdb_type).sql("duckdb")
    assert sql.startswith("FORMAT") is not shortened


# The row hashes before numbers had a shorter text (the code of 2026-12-07, main 036c2a9),
# and the digests as string_agg computed them.
def _reference_value(column: str, duckdb_type: str) -> exp.Expr:
    col = exp.column(column, quoted=True)
    upper = duckdb_type.upper()
    if upper.startswith(digest.NUMERIC_PREFIXES):
        return exp.func("format", exp.Literal.string("{:.12g}"), exp.cast(col, "DOUBLE"))
    if upper == "DATE":
        return exp.func("strftime", col, exp.Literal.string("%Y-%m-%d"))
    if upper.startswith("TIMESTAMP"):
        return exp.func("strftime", col, exp.Literal.string("%Y-%m-%dT%H:%M:%S.%f"))
    return exp.cast(col, "VARCHAR")


def _reference_content(con: duckdb.DuckDBPyConnection, columns, types) -> str:
    row = exp.func(
        "concat_ws",
        exp.Literal.string("\x1f"),
        *(
            exp.func("coalesce", _reference_value(c, t), exp.Literal.string(r"\N"))
            for c, t in zip(columns, types, strict=True)
        ),
    )
    hashes = exp.select(exp.alias_(exp.func("sha256", row), "row_hash")).from_("t").sql("duckdb")
    header = "\x1f".join(c.lower() for c in columns) + "\n"
    return _sorted_digest(con, hashes, header)


def _sorted_digest(con: duckdb.DuckDBPyConnection, hashes: str, header: str) -> str:
    """main's digest in one query: sha256 of the header and the sorted row hashes."""
    [(found,)] = con.execute(
        f"SELECT sha256(? || coalesce(string_agg(row_hash, '' ORDER BY row_hash), '')) "
        f"FROM ({hashes})",
        [header],
    ).fetchall()
    return found


def _reference_exact(con: duckdb.DuckDBPyConnection, columns, types) -> str:
    def value(column: str) -> exp.Expr:
        text = exp.cast(exp.column(column, quoted=True), "VARCHAR")
        length = exp.cast(exp.func("length", text), "VARCHAR")
        prefixed = exp.DPipe(
            this=exp.DPipe(this=length, expression=exp.Literal.string(":")), expression=text
        )
        return exp.func("coalesce", prefixed, exp.Literal.string(r"\N"))

    row = exp.func("concat", *(value(c) for c in columns))
    hashes = exp.select(exp.alias_(exp.func("sha256", row), "row_hash")).from_("t").sql("duckdb")
    header = "\x1f".join(f"{c} {t}" for c, t in zip(columns, types, strict=True)) + "\n"
    return _sorted_digest(con, hashes, header)


MIXED_TABLE = """
SELECT
  i::BIGINT * 7919 - 40000 AS id,
  CASE WHEN i % 5 = 0 THEN NULL ELSE (i * 1234567)::BIGINT * 1000003 END AS big,
  (i * 99991)::HUGEINT * 100000007 AS huge,
  (i % 250)::UTINYINT AS tiny,
  CASE WHEN i % 3 = 0 THEN NULL ELSE (((i * 7877) % 200000 - 100000) / 100)::DECIMAL(15,2) END
    AS price,
  (((i::HUGEINT * 98765432109) % 10000000000000)::VARCHAR || '.' || (i % 100)::VARCHAR)
    ::DECIMAL(15,2) AS total,
  (((i * 31) % 100000) / 100000)::DECIMAL(9,5) AS rate,
  (((i::HUGEINT * 982451653) % 100000000000000000000)::VARCHAR || 'e-14')::DECIMAL(38,14)
    AS tiny_decimal,
  (((i::HUGEINT * 982451653) % 100000000000000000000)::VARCHAR || 'e-6')::DECIMAL(38,10)
    AS wide,
  i / 7.0 AS ratio,
  (i / 3.0)::FLOAT AS single,
  DATE '1992-01-01' + (i % 3000)::INTEGER AS day,
  CASE WHEN i % 50 = 0 THEN DATE '0001-01-01' - (i // 50)::INTEGER ELSE NULL END AS old_day,
  TIMESTAMP '2020-01-01 00:00:00' + to_microseconds(i::BIGINT * 12345678) AS at,
  CASE WHEN i % 4 = 0 THEN NULL ELSE 'v' || i END AS label
FROM range(2000) r(i)
"""


def _digests_equal_the_reference(path: Path) -> None:
    found = digest.table_digests(path)
    with connect_duckdb() as con:
        relation = con.read_parquet(str(path))
        columns, types = relation.columns, [str(t) for t in relation.types]
        relation.create_view("t")
        reference = (_reference_content(con, columns, types), _reference_exact(con, columns, types))
    assert (found.content, found.exact) == reference
    assert digest.content_digest(path) == found.content


def test_digests_of_a_table_of_every_kind_are_those_main_computed(tmp_path):
    path = tmp_path / "mixed.parquet"
    with duckdb.connect() as con:
        con.sql(MIXED_TABLE).write_parquet(str(path))
    _digests_equal_the_reference(path)


@pytest.mark.parametrize("table", ["lineitem", "orders", "partsupp"])
def test_digests_of_tpch_tables_are_those_main_computed(raw_lake_root, table):
    _digests_equal_the_reference(raw_lake_root / "raw" / table)
