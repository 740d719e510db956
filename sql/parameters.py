"""BigQuery named query parameters (``@submission_date``) given typed values by the user, the
way ``bq query --parameter=submission_date:DATE:2024-01-01`` gives them.

A value is read strictly for its type here, before translation: a value BigQuery would reject
(``DATE:2024-13-01``) is an error naming the parameter, never a CAST the engine fails on at
run time. Each use of the parameter then becomes ``CAST(<literal> AS <type>)`` in BigQuery's
own syntax (sql/variables.py), which the rules translate like any CAST, so a type the ANSI
translation has no exact form for (TIMESTAMP, TIME) is refused there as it would be written.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date, datetime, time

from sqlglot import exp

# The types a parameter may have, as BigQuery names them.
TYPES = ("BOOL", "DATE", "DATETIME", "FLOAT64", "INT64", "NUMERIC", "STRING", "TIME", "TIMESTAMP")
_INT = re.compile(r"[+-]?\d+")
_FLOAT = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")
_NUMERIC = re.compile(r"[+-]?(\d*)(?:\.(\d*))?")
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_TIME = re.compile(r"\d{2}:\d{2}:\d{2}(\.\d{1,6})?")
_DATETIME = re.compile(r"(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}:\d{2}(?:\.\d{1,6})?)")
_TIMESTAMP = re.compile(
    r"(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}:\d{2}(?:\.\d{1,6})?)\s*(Z|UTC|[+-]\d{2}(?::?\d{2})?)?"
)
_NAME = re.compile(r"[A-Za-z_]\w*")


class ParameterError(ValueError):
    """A parameter's name, type or value that BigQuery would not accept."""


@dataclass(frozen=True)
class QueryParameter:
    """One parameter's value: a BigQuery type name and the value's text, as ``bq`` takes them."""

    type: str
    value: str

    def __str__(self) -> str:
        return f"{self.type}:{self.value}"

    def expression(self, name: str) -> exp.Expr:
        """``CAST(<literal> AS <type>)`` in BigQuery; raises ``ParameterError`` naming
        ``name`` when the value is not one of its type."""
        literal = _literal(self.type.upper(), self.value, name)
        return exp.cast(literal, exp.DataType.build(self.type.upper(), dialect="bigquery"))


def parse_parameter(text: str) -> tuple[str, QueryParameter]:
    """``NAME:TYPE:VALUE`` (``NAME::VALUE`` is a STRING, as in ``bq``), checked."""
    name, sep, rest = text.partition(":")
    kind, sep2, value = rest.partition(":")
    if not sep or not sep2:
        raise ParameterError(f"{text!r} is not NAME:TYPE:VALUE")
    parameter = QueryParameter((kind or "STRING").upper(), value)
    checked(name, parameter)
    return name, parameter


def checked(name: str, parameter: QueryParameter) -> exp.Expr:
    """The parameter's expression, its name and type checked too."""
    if not _NAME.fullmatch(name):
        raise ParameterError(f"{name!r} is not a parameter name (letters, digits, _)")
    return parameter.expression(name)


def parameter_values(parameters: Mapping[str, QueryParameter]) -> dict[str, exp.Expr]:
    """Each parameter's expression by its name in lower case (BigQuery compares parameter
    names without case); raises ``ParameterError`` for the first bad one."""
    values: dict[str, exp.Expr] = {}
    for name, parameter in parameters.items():
        if name.lower() in values:
            raise ParameterError(f"parameter @{name} is given twice")
        values[name.lower()] = checked(name, parameter)
    return values


def _literal(kind: str, value: str, name: str) -> exp.Expr:
    def bad(what: str) -> ParameterError:
        return ParameterError(f"parameter @{name}: {kind} value {value!r} is not {what}")

    if kind == "STRING":
        return exp.Literal.string(value)
    if kind == "BOOL":
        if value.lower() not in ("true", "false"):
            raise bad("true or false")
        return exp.Boolean(this=value.lower() == "true")
    if kind == "INT64":
        if not _INT.fullmatch(value) or not -(2**63) <= int(value) < 2**63:
            raise bad("a decimal integer in INT64's range")
        return exp.Literal.number(str(int(value)))
    if kind == "FLOAT64":
        if not _FLOAT.fullmatch(value) or not math.isfinite(float(value)):
            raise bad("a finite decimal number")
        return exp.Literal.number(value.lstrip("+"))
    if kind == "NUMERIC":
        match = _NUMERIC.fullmatch(value)
        whole, fraction = (match.group(1), match.group(2) or "") if match else ("", "")
        if not match or not (whole or fraction) or len(whole.lstrip("0")) > 29:
            raise bad("a decimal number with at most 29 digits before the point")
        if len(fraction) > 9:
            # BigQuery rounds it to NUMERIC's 9 digits: the value is not the text given.
            raise bad("a decimal number with at most 9 digits after the point")
        return exp.Literal.string(value)
    if kind == "DATE":
        if not _DATE.fullmatch(value) or not _valid(date.fromisoformat, value):
            raise bad("a date YYYY-MM-DD")
        return exp.Literal.string(value)
    if kind == "TIME":
        if not _TIME.fullmatch(value) or not _valid(time.fromisoformat, value):
            raise bad("a time HH:MM:SS[.ffffff]")
        return exp.Literal.string(value)
    if kind == "DATETIME":
        match = _DATETIME.fullmatch(value)
        if not match or not _valid(datetime.fromisoformat, f"{match[1]}T{match[2]}"):
            raise bad("a datetime YYYY-MM-DD HH:MM:SS[.ffffff]")
        return exp.Literal.string(f"{match[1]} {match[2]}")
    if kind == "TIMESTAMP":
        match = _TIMESTAMP.fullmatch(value)
        if not match or not _valid(datetime.fromisoformat, f"{match[1]}T{match[2]}"):
            raise bad("a timestamp YYYY-MM-DD HH:MM:SS[.ffffff][+HH:MM]")
        return exp.Literal.string(value)
    raise ParameterError(
        f"parameter @{name}: type {kind} is not one a parameter can have here ({', '.join(TYPES)})"
    )


def _valid(parse, text: str) -> bool:  # type: ignore[no-untyped-def]
    try:
        parse(text)
    except ValueError:
        return False
    return True
