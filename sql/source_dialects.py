"""Source dialects as sqlglot parses them, with the few parse-time distinctions translation needs.

sqlglot folds some functions that differ in meaning into one node; where the difference
matters for an exact translation, the parser here keeps it.
"""

from __future__ import annotations

from sqlglot import exp
from sqlglot.dialects.dialect import Dialect
from sqlglot.dialects.redshift import Redshift


def _redshift_add_months(args: list[exp.Expr]) -> exp.Expr:
    # Redshift ADD_MONTHS maps a month's last day to the target month's last day (DATEADD does
    # not) and returns a TIMESTAMP; sqlglot parses both as TsOrDsAdd.
    added = exp.AddMonths(this=args[0], expression=args[1], preserve_end_of_month=True)
    return exp.Cast(this=added, to=exp.DataType.build("TIMESTAMP"))


class PlumblineRedshift(Redshift):
    class Parser(Redshift.Parser):
        FUNCTIONS = {**Redshift.Parser.FUNCTIONS, "ADD_MONTHS": _redshift_add_months}


SOURCE_DIALECTS: dict[str, type[Dialect] | str] = {
    "snowflake": "snowflake",
    "tsql": "tsql",
    "teradata": "teradata",
    "oracle": "oracle",
    "bigquery": "bigquery",
    "redshift": PlumblineRedshift,
}
