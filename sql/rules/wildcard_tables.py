"""BigQuery wildcard tables (``dataset.prefix*`` and ``_TABLE_SUFFIX``): translated during
name resolution by ``sql/wildcards.py``; registered here so the catalog and docs list them."""

from __future__ import annotations

from sqlglot import exp

from sql.rules.base import Context, rule

_VISITS = (
    'SELECT "visits_{d}"."id" AS "id", "visits_{d}"."page" AS "page", '
    "CAST('{d}' AS VARCHAR) AS \"_table_suffix\" "
    'FROM "raw"."visits_{d}" AS "visits_{d}"'
)
_PRODUCTS = (
    'SELECT "_0_{d}"."h"."page" AS "_wildcard_value_1", "_1_{d}"."p"."sku" AS '
    '"_wildcard_value_2", CAST(\'{d}\' AS VARCHAR) AS "_table_suffix" FROM "raw"."hits_{d}" AS '
    '"hits_{d}" CROSS JOIN UNNEST("hits_{d}"."hits") AS "_0_{d}"("h") CROSS JOIN '
    'UNNEST("_0_{d}"."h"."product") AS "_1_{d}"("p")'
)
_PAGES = (
    'SELECT "visits_{d}"."page" AS "page", CAST(\'{d}\' AS VARCHAR) AS "_table_suffix" '
    'FROM "raw"."visits_{d}" AS "visits_{d}"'
)


def _noop(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    return None


rule(
    "WILDCARD-TABLES",
    "rewrite",
    ("bigquery",),
    (),
    "A wildcard table `project.dataset.prefix*` becomes a derived table under its alias: the "
    "UNION ALL of every catalog table of that dataset whose name starts with the prefix, each "
    "with the columns the query reads and the pseudo-column _TABLE_SUFFIX (the rest of its "
    "name, a VARCHAR). Each column read must be in every matching table with one type (then "
    "it is the wildcard's column whichever table was created last, which sets BigQuery's "
    "schema); `*` over the wildcard needs every table to have the same columns in the same "
    "order. "
    "The matched set is the catalog's, which the translation assumes is the warehouse's (and "
    "holds no view): a warning names how many tables it reads. `*` leaves _TABLE_SUFFIX out, "
    "as BigQuery does. _TABLE_SUFFIX compared with string literals in the WHERE clause "
    "(=, <>, <, <=, >, >=, BETWEEN, IN; conjuncts only) prunes the union to the tables that "
    "can satisfy it (a script variable's literal value too); the comparison stays in the "
    "query. "
    "A nested column whose records gained fields in later tables (a type that differs "
    "between the tables, each a ROW or an ARRAY of them) is read field by field: each field "
    "read through it must be in every matching table with one type (then it is the "
    "wildcard's whichever table is the most recent), and a record whose fields differ is "
    "never read whole. When the pruned union still reads tables of several shapes of it, "
    "each CROSS JOIN UNNEST of it (and of its elements' arrays) moves into every branch of "
    "the union, which projects the values the query reads of the elements: exact, as a "
    "cross join with a row's own array distributes over UNION ALL and commutes with inner "
    "joins.",
    (
        (
            "bigquery",
            "SELECT page, _TABLE_SUFFIX AS day FROM `acme-dw.web.visits_*` "
            "WHERE _TABLE_SUFFIX BETWEEN '20240102' AND '20240109'",
            'SELECT "visits_*"."page" AS "page", "visits_*"."_table_suffix" AS "day" FROM ('
            + _PAGES.format(d="20240102")
            + " UNION ALL "
            + _PAGES.format(d="20240103")
            + ') AS "visits_*" WHERE "visits_*"."_table_suffix" BETWEEN \'20240102\' AND '
            "'20240109'",
        ),
        (
            "bigquery",
            "SELECT h.page, p.sku FROM `acme-dw.web.hits_*` AS s, UNNEST(s.hits) AS h, "
            "UNNEST(h.product) AS p",
            'SELECT "s"."_wildcard_value_1" AS "page", "s"."_wildcard_value_2" AS "sku" FROM ('
            + " UNION ALL ".join(_PRODUCTS.format(d=day) for day in (1, 2))
            + ') AS "s"',
        ),
        (
            "bigquery",
            "SELECT * FROM `acme-dw.web.visits_*`",
            'SELECT "visits_*"."id" AS "id", "visits_*"."page" AS "page" FROM ('
            + " UNION ALL ".join(_VISITS.format(d=f"2024010{day}") for day in (1, 2, 3))
            + ') AS "visits_*"',
        ),
    ),
)(_noop)

rule(
    "WILDCARD-UNSUPPORTED",
    "refuse",
    ("bigquery",),
    (),
    "A column of a wildcard table read where its matching catalog tables do not all have it "
    "with one type, and `*` over one whose tables differ in columns, order or types (its "
    "schema is the most recently created table's, which a catalog does not say); a wildcard "
    "whose tables lack a column another declares NOT NULL (BigQuery fails the query), that "
    "matches a table named the prefix itself, or whose statement's wildcards read more than "
    "5,000 columns in all after pruning; "
    "a field of a nested column that some matching table lacks or types otherwise "
    "(BigQuery documents NULL for a missing column, not for a missing nested field), a "
    "nested record whose fields differ between the tables read whole, and one read by a "
    "union of tables of several of its shapes otherwise than through CROSS JOIN UNNESTs "
    "joined to the wildcard with inner joins only; "
    "an unqualified _TABLE_SUFFIX with two wildcard tables in reach, or with none; legacy "
    "SQL's TABLE_DATE_RANGE and TABLE_QUERY. A wildcard that matches no table is NAME-UNKNOWN.",
    (
        ("bigquery", "SELECT * FROM `acme-dw.sales.*`", "1:8"),
        ("bigquery", "SELECT o_orderkey FROM `acme-dw.sales.*`", "1:8"),
        (
            "bigquery",
            "SELECT p.coupon FROM `acme-dw.web.hits_*` AS s, UNNEST(s.hits) AS h, "
            "UNNEST(h.product) AS p",
            "1:8",
        ),
        (
            "bigquery",
            "SELECT a.id FROM `acme-dw.web.visits_*` AS a JOIN `acme-dw.web.visits_*` AS b "
            "ON a.id = b.id WHERE _TABLE_SUFFIX = '20240101'",
            "1:100",
        ),
        (
            "bigquery",
            "SELECT id FROM TABLE_DATE_RANGE(web.visits_, TIMESTAMP('2024-01-01'), "
            "TIMESTAMP('2024-01-02'))",
            "1:16",
        ),
    ),
)(_noop)
