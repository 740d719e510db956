"""The row-level comparison of a reconciliation, inside its DuckDB database.

Both sides' fingerprints (``reconcile_queries.fingerprint_query``: ``k``, ``h``, ``t<i>``)
are read once into tables of the reconciliation's database (on disk, in its spill folder).
They are first compared by bucket, as reladiff compares segments: each row falls in one of
:data:`BUCKETS` buckets by its key's hash (or its row hash), and each bucket's row count
and hash-sum are compared, a low-cardinality aggregation. Only the rows of the buckets that
differ are then compared one by one, tagged with their side, in one grouped aggregation:

* keyed: grouped by the key's hash; a key is unmatched when one side lacks it, when it
  repeats on a side, when the row hashes differ, or when a toleranced value is beyond its
  tolerance;
* unkeyed: grouped by the row hash and the toleranced values, a multiset: a group whose
  counts differ leaves rows over on one side. Where columns have a tolerance, the rows left
  over are then paired within each row hash (equal in every exactly compared column), in
  order of their toleranced values, and a pair within every tolerance matches.

What is left is kept in the tables ``only_actual`` and ``only_expected``, which the
reconciliation then reads the first differing rows by. Pure SQL built as sqlglot trees.
"""

from __future__ import annotations

from dataclasses import dataclass

import duckdb
from sqlglot import exp

from pipelines.warehouse.reconcile_queries import LOCAL_DIALECT, Plan

SIDE = "side"
ONLY = ("only_actual", "only_expected")
FINGERPRINTS = ("fingerprints_actual", "fingerprints_expected")
# ~50 rows a bucket at 3 M rows: one changed row leaves ~100 rows to compare one by one.
BUCKETS = 65_536


def _col(name: str, table: str | None = None) -> exp.Column:
    return exp.column(name, table=table, quoted=True)


def _t(name: str) -> exp.Table:
    return exp.to_table(name, quoted=True)


def _n(value: int) -> exp.Literal:
    return exp.Literal.number(value)


def _is_null(value: exp.Expr) -> exp.Expr:
    return exp.Is(this=value, expression=exp.Null())


def _on_side(aggregate: exp.Expr, side: int) -> exp.Filter:
    """``aggregate`` over one side's rows: ``... FILTER (WHERE side = n)``."""
    return exp.Filter(
        this=aggregate, expression=exp.Where(this=exp.EQ(this=_col(SIDE), expression=_n(side)))
    )


def within(a: exp.Expr, e: exp.Expr, tolerance: float) -> exp.Expr:
    """``a`` and ``e`` (DOUBLE) equal, both NULL, or within ``tolerance`` as
    ``math.isclose(a, e, rel_tol=t, abs_tol=t)`` takes it; never NULL."""
    allowed = exp.Literal.number(repr(float(tolerance)))
    largest = exp.Greatest(this=exp.Abs(this=a.copy()), expressions=[exp.Abs(this=e.copy())])
    bound = exp.Greatest(
        this=exp.Mul(this=allowed, expression=largest), expressions=[allowed.copy()]
    )
    near = exp.LTE(this=exp.Abs(this=exp.Sub(this=a.copy(), expression=e.copy())), expression=bound)
    either = exp.or_(
        exp.EQ(this=a.copy(), expression=e.copy()),
        exp.and_(_is_null(a.copy()), _is_null(e.copy())),
        near,
    )
    return exp.Coalesce(this=exp.Paren(this=either), expressions=[exp.false()])


def _all_within(plan: Plan, a: str, e: str) -> exp.Expr:
    checks = [
        within(_col(f"{a}t{i}"), _col(f"{e}t{i}"), pair.tolerance or 0.0)
        for i, pair in enumerate(plan.toleranced)
    ]
    return exp.and_(*checks) if checks else exp.true()


def _scalar(con: duckdb.DuckDBPyConnection, query: exp.Select) -> tuple:
    return con.sql(query.sql(LOCAL_DIALECT)).fetchall()[0]


def _create(con: duckdb.DuckDBPyConnection, table: str, query: exp.Select) -> None:
    create = exp.Create(this=_t(table), kind="TABLE", expression=query, replace=True)
    con.execute(create.sql(LOCAL_DIALECT))


def _count(con: duckdb.DuckDBPyConnection, table: str) -> int:
    return int(_scalar(con, exp.select(exp.Count(this=exp.Star())).from_(_t(table)))[0])


def store(con: duckdb.DuckDBPyConnection, side: int, fingerprints: exp.Expr) -> None:
    """Read one side's fingerprints (a relation) into its table."""
    _create(con, FINGERPRINTS[side], exp.select(exp.Star()).from_(fingerprints))


def _columns(plan: Plan) -> list[str]:
    return (["k"] if plan.key else []) + ["h"] + [f"t{i}" for i in range(len(plan.toleranced))]


def _bucket(plan: Plan) -> exp.Expr:
    return exp.Mod(this=_col("k" if plan.key else "h"), expression=_n(BUCKETS))


def _tagged(plan: Plan, where: exp.Expr | None = None) -> exp.Expr:
    """Both sides' fingerprints in one relation, each row with its ``side`` (0: built) and
    its bucket; only the rows ``where`` holds."""
    columns = _columns(plan)

    def side(index: int) -> exp.Select:
        query = exp.select(
            exp.alias_(_n(index), SIDE, quoted=True),
            exp.alias_(_bucket(plan), "bucket", quoted=True),
            *map(_col, columns),
        ).from_(_t(FINGERPRINTS[index]))
        return query.where(where.copy()) if where is not None else query

    return exp.union(side(0), side(1), distinct=False).subquery("tagged")


def unequal_buckets(con: duckdb.DuckDBPyConnection, plan: Plan) -> exp.Expr:
    """The buckets whose row counts or hash-sums differ between the sides (kept in the
    table ``unequal_buckets``), as a condition on a fingerprint's bucket."""
    checksum = exp.Anonymous(this="HASH", expressions=list(map(_col, _columns(plan))))
    selects: list[exp.Expr] = [_col("bucket")]
    for i, s in enumerate("ae"):
        selects.append(exp.alias_(_on_side(exp.Count(this=exp.Star()), i), f"n{s}", quoted=True))
        selects.append(exp.alias_(_on_side(exp.Sum(this=checksum.copy()), i), f"s{s}", quoted=True))
    differ = exp.or_(
        exp.NEQ(this=_col("na"), expression=_col("ne")),
        exp.not_(exp.NullSafeEQ(this=_col("sa"), expression=_col("se"))),
    )
    query = exp.select(*selects).from_(_tagged(plan)).group_by(_col("bucket")).having(differ)
    _create(con, "unequal_buckets", query)
    return exp.In(
        this=_bucket(plan),
        query=exp.select(_col("bucket")).from_(_t("unequal_buckets")).subquery(),
    )


def _rows_to_compare(con: duckdb.DuckDBPyConnection, plan: Plan) -> exp.Expr:
    return _tagged(plan, unequal_buckets(con, plan))


@dataclass(frozen=True)
class Differences:
    only_actual: int
    only_expected: int
    # Keyed: whether a key repeats on the built side, on the reference side.
    repeated: tuple[bool, bool] = (False, False)


def keyed(con: duckdb.DuckDBPyConnection, plan: Plan) -> Differences:
    """Rows whose key is on one side only, repeats, or whose values differ; the keys' hashes
    in ``only_actual`` / ``only_expected`` (``k``). A key that repeats in a bucket that does
    not differ is not seen: both sides hold the same rows there."""
    rows = _rows_to_compare(con, plan)
    counts = {side: _on_side(exp.Count(this=exp.Star()), i) for i, side in enumerate("ae")}
    selects: list[exp.Expr] = [
        _col("k"),
        *(exp.alias_(counts[s], f"n{s}", quoted=True) for s in "ae"),
        *(
            exp.alias_(_on_side(exp.Min(this=_col("h")), i), f"{s}h", quoted=True)
            for i, s in enumerate("ae")
        ),
    ]
    for t in range(len(plan.toleranced)):
        selects += [
            exp.alias_(_on_side(exp.Min(this=_col(f"t{t}")), i), f"{s}t{t}", quoted=True)
            for i, s in enumerate("ae")
        ]
    differs = exp.or_(
        exp.NEQ(this=_col("na"), expression=_col("ne")),
        exp.GT(this=_col("na"), expression=_n(1)),
        exp.GT(this=_col("ne"), expression=_n(1)),
        exp.NEQ(this=_col("ah"), expression=_col("eh")),
        exp.not_(_all_within(plan, "a", "e")),
    )
    grouped = exp.select(*selects).from_(rows).group_by(_col("k")).having(differs)
    _create(con, "differing", grouped)
    repeated = _scalar(
        con,
        exp.select(
            *(
                exp.func(
                    "coalesce",
                    exp.Max(this=exp.GT(this=_col(f"n{s}"), expression=_n(1))),
                    exp.false(),
                )
                for s in "ae"
            )
        ).from_(_t("differing")),
    )
    for table, s in zip(ONLY, "ae", strict=True):
        only = (
            exp.select(_col("k"))
            .from_(_t("differing"))
            .where(exp.GTE(this=_col(f"n{s}"), expression=_n(1)))
        )
        _create(con, table, only)
    return Differences(_count(con, ONLY[0]), _count(con, ONLY[1]), tuple(repeated))  # type: ignore[arg-type]


def multiset(con: duckdb.DuckDBPyConnection, plan: Plan) -> Differences:
    """Rows of one side with no equal row on the other (duplicates counted), paired within
    the tolerances where a column has one; what is left in ``only_actual`` /
    ``only_expected`` (``h``, ``t<i>``; without toleranced columns ``h`` and ``n``, the
    number of rows of that hash left over)."""
    rows = _rows_to_compare(con, plan)
    values = ["h"] + [f"t{i}" for i in range(len(plan.toleranced))]
    counts = {s: _on_side(exp.Count(this=exp.Star()), i) for i, s in enumerate("ae")}
    groups = (
        exp.select(
            *map(_col, values),
            *(exp.alias_(counts[s], f"n{s}", quoted=True) for s in "ae"),
        )
        .from_(rows)
        .group_by(*map(_col, values))
        .having(exp.NEQ(this=_col("na"), expression=_col("ne")))
    )
    _create(con, "unequal_groups", groups)
    excess = {
        ONLY[0]: exp.Sub(this=_col("na"), expression=_col("ne")),
        ONLY[1]: exp.Sub(this=_col("ne"), expression=_col("na")),
    }
    if not plan.toleranced:
        for table, extra in excess.items():
            _create(
                con,
                table,
                exp.select(_col("h"), exp.alias_(extra, "n", quoted=True))
                .from_(_t("unequal_groups"))
                .where(exp.GT(this=extra.copy(), expression=_n(0))),
            )
        total = lambda table: int(  # noqa: E731
            _scalar(
                con,
                exp.select(exp.Coalesce(this=exp.Sum(this=_col("n")), expressions=[_n(0)])).from_(
                    _t(table)
                ),
            )[0]
        )
        return Differences(total(ONLY[0]), total(ONLY[1]))
    # Rows left over in each group, one per row, then paired within each row hash in order
    # of their toleranced values.
    order = [exp.Ordered(this=_col(v), nulls_first=True) for v in values[1:]]
    for table, extra in excess.items():
        expanded = (
            exp.select(
                *map(_col, values),
                exp.alias_(
                    exp.Anonymous(this="UNNEST", expressions=[exp.func("range", extra)]),
                    "copy",
                    quoted=True,
                ),
            )
            .from_(_t("unequal_groups"))
            .where(exp.GT(this=extra.copy(), expression=_n(0)))
        )
        rank = exp.Window(
            this=exp.RowNumber(), partition_by=[_col("h")], order=exp.Order(expressions=order)
        )
        _create(
            con,
            f"{table}_left",
            exp.select(*map(_col, values), exp.alias_(rank, "rn", quoted=True)).from_(
                expanded.subquery("expanded")
            ),
        )
    paired = exp.and_(
        exp.EQ(this=_col("h", "a"), expression=_col("h", "e")),
        exp.EQ(this=_col("rn", "a"), expression=_col("rn", "e")),
    )
    both = exp.and_(exp.not_(_is_null(_col("ah"))), exp.not_(_is_null(_col("eh"))))
    pairs = (
        exp.select(*(exp.alias_(_col(v, s), f"{s}{v}", quoted=True) for s in "ae" for v in values))
        .from_(exp.alias_(_t(f"{ONLY[0]}_left"), "a"))
        .join(exp.alias_(_t(f"{ONLY[1]}_left"), "e"), on=paired, join_type="full outer")
    )
    matched = exp.select(
        exp.Star(), exp.alias_(exp.and_(both, _all_within(plan, "a", "e")), "matched", quoted=True)
    ).from_(pairs.subquery("pairs"))
    _create(con, "pairs", matched)
    for table, s in zip(ONLY, "ae", strict=True):
        _create(
            con,
            table,
            exp.select(*(exp.alias_(_col(f"{s}{v}"), v, quoted=True) for v in values))
            .from_(_t("pairs"))
            .where(exp.and_(exp.not_(_is_null(_col(f"{s}h"))), exp.not_(_col("matched")))),
        )
    return Differences(_count(con, ONLY[0]), _count(con, ONLY[1]))


def beyond_tolerance(
    con: duckdb.DuckDBPyConnection, plan: Plan
) -> list[tuple[str, object, object]]:
    """After :func:`multiset` with toleranced columns: each toleranced column that a pair of
    rows, equal in every other column, holds values beyond its tolerance of, with the first
    such values."""
    found = []
    both = exp.and_(exp.not_(_is_null(_col("ah"))), exp.not_(_is_null(_col("eh"))))
    for i, pair in enumerate(plan.toleranced):
        a, e = _col(f"at{i}"), _col(f"et{i}")
        query = (
            exp.select(a.copy(), e.copy())
            .from_(_t("pairs"))
            .where(exp.and_(both.copy(), exp.not_(within(a, e, pair.tolerance or 0.0))))
            .order_by(_col("ah"), a.copy())
            .limit(1)
        )
        rows = con.sql(query.sql(LOCAL_DIALECT)).fetchall()
        if rows:
            found.append((pair.name, *rows[0]))
    return found


def first_identities(con: duckdb.DuckDBPyConnection, table: str, column: str, limit: int) -> list:
    """The first ``limit`` distinct fingerprints (``k`` or ``h``) in ``table``."""
    query = exp.select(_col(column)).distinct().from_(_t(table)).order_by(_col(column)).limit(limit)
    return [row[0] for row in con.sql(query.sql(LOCAL_DIALECT)).fetchall()]
