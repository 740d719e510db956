"""CSV files read strictly: a row with another number of fields than the header, a quote left
open or bytes that are not UTF-8 are an error naming the file and line, never a table.

DuckDB's reader, left to itself, reads what it can: when no delimiter splits every sampled
row alike (``2,b,EXTRA`` among two-field rows), its sniffer falls back to one column holding
whole lines (``id,name`` → ``'2,b,EXTRA'``), and a field whose quote never closes makes it
read the file without quoting. So the dialect is settled first and then pinned: the
sniffer's delimiter, unless it found one column where the header line holds a delimiter
(then that one); the sniffer's quote and escape, RFC 4180's ``"`` where it found none; no
leading row skipped and no comment lines (the sniffer would drop a row that begins with
``#``, or the rows before the first that agrees with the rest). The
read itself is DuckDB's ``read_csv`` with ``strict_mode`` on and ``null_padding`` off, which
refuses every row that does not fit, with its line
(https://duckdb.org/docs/stable/data/csv/reading_faulty_csv_files). Built as SQL rather than
through the Python relation API: ``DuckDBPyConnection.read_csv(..., strict_mode=True)``
returns no rows at all for a file with CRLF line ends (DuckDB 2.0.1), where the SQL function
reads them.

A quoted empty field (``""``) is an empty string and only an unquoted one is NULL
(``allow_quoted_nulls`` off), as every CSV writer that quotes means it.

Pure logic over DuckDB (imported when a file is read: :func:`csv_header` is what a code
location's load may call); sources (:mod:`pipelines.lake.ingest`) and snapshots call it.
"""

from __future__ import annotations

import csv
import gzip
import re
from collections.abc import Mapping, Sequence, Set
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from sqlglot import exp

if TYPE_CHECKING:
    import duckdb

# The delimiters a header line is searched for when the sniffer found one column.
DELIMITERS = (",", ";", "\t", "|")
RFC_QUOTE = '"'
_NONE = "(empty)"  # how sniff_csv reports no quote or escape character
_LINE = re.compile(r"CSV Error on Line: (\d+)")
_FILE = re.compile(r"^\s*file = (.+)$", re.MULTILINE)
# DuckDB's reasons, as a person reads them (the original line is not repeated: it is data).
_REASONS = (
    (
        re.compile(r"Expected Number of Columns: (\d+) Found: (\d+)"),
        lambda m: f"expected {m[1]} fields (as the header has), found {m[2]}",
    ),
    (
        re.compile(r"unterminated quote", re.IGNORECASE),
        lambda m: "a quoted field is never closed (unterminated quote)",
    ),
    (
        re.compile(r"not utf-8 encoded", re.IGNORECASE),
        lambda m: "the bytes are not UTF-8 text (a wrong encoding); export the file as UTF-8",
    ),
    (
        re.compile(r'converting column "([^"]*)"\. Could not convert string .* to \'([^\']+)\''),
        lambda m: f"a value of column {m[1]} cannot be read as {m[2]}",
    ),
)


class CsvError(ValueError):
    """A CSV file that cannot be read as a table: one line, ``FILE:LINE: problem`` (the line
    where DuckDB says so)."""


@dataclass(frozen=True)
class Dialect:
    delimiter: str
    quote: str
    escape: str


def csv_relation(
    connection: duckdb.DuckDBPyConnection,
    files: Sequence[Path],
    types: Mapping[str, str] | None = None,
) -> duckdb.DuckDBPyRelation:
    """``files`` (with a header row) as one relation, read strictly in the dialect of the
    first, each column's type detected unless ``types`` gives it (DuckDB type names).
    Raises CsvError when the files cannot be read so; a row beyond the sniffer's sample that
    does not fit raises when the relation is read: turn that error into one line with
    :func:`csv_problem`."""
    import duckdb

    dialect = sniff_dialect(connection, files[0])
    for file in files:
        _check_header(file, dialect)
    query = _read_csv(files, dialect, types=types)
    try:
        relation = connection.sql(query.sql("duckdb"))
    except duckdb.Error as error:
        # The sniffer, now strict, met a row that does not fit in its sample: find its line.
        _check_rows(connection, files, dialect)
        raise CsvError(csv_problem(error, files[0])) from None
    _check_cut_values(connection, files, dialect, relation, declared=set(types or {}))
    return relation


# DuckDB's TIMESTAMP and TIME hold microseconds, and its CSV reader cuts a seventh digit off
# without a word ('12:00:00.1234567' is read as 12:00:00.123456), as T-SQL's DATETIME2(7) and
# Oracle's or Snowflake's TIMESTAMP(9) export them. A field whose digits past the sixth are
# not all 0 is what such a read would change.
_MICROSECOND_TYPES = ("TIMESTAMP", "TIME", "TIMESTAMP WITH TIME ZONE")
_FINER_THAN_MICROSECONDS = r"[0-9]:[0-9]{2}[.,][0-9]{6}[0-9]*[1-9]"


# A number read as a DOUBLE keeps its value only where the DOUBLE prints back as the text
# (the same significant digits: DuckDB, like Python, prints a DOUBLE's shortest decimal text
# that reads back to it). Text of up to 15 significant digits always does. Text of more than
# 17 never does: it is a decimal the DOUBLE cannot hold, which the reader rounds without a
# word (12345678901234567.89 is read as 12345678901234568). Text of 16 or 17 digits that does
# not print back is either a FLOAT printed with more digits than its shortest text
# (0.10000000000000001, which reads back to the same FLOAT) or a DECIMAL the DOUBLE rounds
# (0.30000000000000003 becomes 0.30000000000000004): the text cannot tell which, and the
# column's declared type can.
def _significant_digits(text: exp.Expr) -> exp.Expr:
    """The text's significant digits: its mantissa without sign, point, exponent and the
    zeros that lead or trail."""
    mantissa = exp.RegexpExtract(
        this=text,
        expression=exp.Literal.string(r"^\s*[+-]?([0-9]*\.?[0-9]*)"),
        group=exp.Literal.number(1),
    )
    return exp.func(
        "trim",
        exp.func("replace", mantissa, exp.Literal.string("."), exp.Literal.string("")),
        exp.Literal.string("0"),
    )


def _not_what_its_double_prints(field: exp.Expr) -> exp.Expr:
    """The text's significant digits are not those of the DOUBLE it reads as."""
    printed = exp.cast(exp.TryCast(this=field.copy(), to=exp.DataType.build("DOUBLE")), "VARCHAR")
    return exp.NEQ(this=_significant_digits(field), expression=_significant_digits(printed))


def _check_cut_values(
    connection: duckdb.DuckDBPyConnection,
    files: Sequence[Path],
    dialect: Dialect,
    relation: duckdb.DuckDBPyRelation,
    declared: Set[str] = frozenset(),
) -> None:
    """CsvError naming the first column, and the first file, whose text holds what its type
    would cut off (their count in that file): fractional seconds finer than the microseconds
    a TIMESTAMP or TIME keeps, other significant digits than its DOUBLE prints back (in a
    column whose type was detected, not ``declared``); nothing when no value does. One scan
    of the files as text, for every column checked. The values themselves are data: the
    message does not show them."""
    kinds = dict(zip(relation.columns, map(str, relation.types), strict=True))
    checked: dict[str, tuple[exp.Expr, str]] = {}
    for name, kind in kinds.items():
        field = exp.column(name, quoted=True)
        if kind == "DOUBLE" and name not in declared:
            checked[name] = (
                _not_what_its_double_prints(field),
                "more significant digits than the DOUBLE it is read as prints back (a "
                "DECIMAL the DOUBLE would round, or a FLOAT printed with extra digits); "
                "declare the column DECIMAL(p,s), DOUBLE PRECISION or VARCHAR in the "
                "source's columns",
            )
        elif kind in _MICROSECOND_TYPES:
            checked[name] = (
                exp.func("regexp_matches", field, exp.Literal.string(_FINER_THAN_MICROSECONDS)),
                "fractional seconds past the sixth digit, which its TIMESTAMP or TIME "
                "(microseconds) would cut off; export them with at most six digits, or "
                "declare the column VARCHAR in the source's columns",
            )
    if not checked:
        return
    text = _read_csv(
        files, dialect, columns={name: "VARCHAR" for name in relation.columns}, filename=True
    )
    counts = [
        exp.Filter(this=exp.func("count", exp.Star()), expression=exp.Where(this=cut.copy()))
        for cut, _ in checked.values()
    ]
    per_file = (
        exp.select("filename", *counts)
        .from_(text.subquery("fields"))
        .group_by("filename")
        .order_by("filename")
    )
    rows = connection.sql(per_file.sql("duckdb")).fetchall()
    for index, (name, (_, what)) in enumerate(checked.items(), start=1):
        for row in rows:
            if row[index]:
                raise CsvError(f"{row[0]}: column {name}: {row[index]} value(s) with {what}")


def csv_problem(error: Exception, file: Path) -> str:
    """DuckDB's error reading CSV (raised by DuckDB, or by the Arrow reader that streams its
    rows) as one line naming the file (``file``, unless the error names another) and the
    line."""
    text = str(error)
    named = _FILE.search(text)
    where = named[1].strip() if named else str(file)
    line = _LINE.search(text)
    if line:
        where = f"{where}:{line[1]}"
    for pattern, reason in _REASONS:
        match = pattern.search(text)
        if match:
            return f"{where}: {reason(match)}"
    first = text.splitlines()[0] if text else type(error).__name__
    first = re.sub(r"^[A-Za-z ]*Error: (CSV Error on Line: \d+)?", "", first).strip()
    return f"{where}: {first or 'cannot be read as CSV'}"


def sniff_dialect(connection: duckdb.DuckDBPyConnection, file: Path) -> Dialect:
    """The dialect ``file`` is read in: see the module's docstring. CsvError when even the
    sniffer cannot read it (bytes that are not UTF-8)."""
    import duckdb

    sniff = exp.select("Delimiter", "Quote", "Escape", "Columns").from_(
        exp.Table(this=exp.Anonymous(this="sniff_csv", expressions=[exp.Literal.string(str(file))]))
    )
    try:
        [(delimiter, quote, escape, columns)] = connection.sql(sniff.sql("duckdb")).fetchall()
    except duckdb.Error as error:
        raise CsvError(csv_problem(error, file)) from None
    if len(columns) <= 1:
        header = _header_line(file)
        found = max(DELIMITERS, key=header.count)
        if header.count(found):
            delimiter = found
    quote = RFC_QUOTE if quote in (_NONE, "") else quote
    escape = quote if escape in (_NONE, "") else escape
    return Dialect(delimiter, quote, escape)


def csv_header(file: Path) -> list[str]:
    """The column names of a CSV file's header line, split at the delimiter it holds most of
    (``,`` ``;`` tab ``|``), without DuckDB: what a load may read of a snapshot."""
    line = _header_line(file)
    delimiter = max(DELIMITERS, key=line.count)
    return next(csv.reader([line], delimiter=delimiter, quotechar=RFC_QUOTE), [])


def _check_header(file: Path, dialect: Dialect) -> None:
    """CsvError for a file with no header row (an empty export), or a header that names a
    column twice (DuckDB would rename the second ``name_1``)."""
    line = _header_line(file)
    if not line.strip():
        raise CsvError(f"{file}:1: no header row (an empty file?); a CSV source begins with one")
    names = next(csv.reader([line], delimiter=dialect.delimiter, quotechar=dialect.quote), [])
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise CsvError(f"{file}:1: the header names column {', '.join(repeated)} more than once")


def _header_line(file: Path) -> str:
    opener = gzip.open if file.name.lower().endswith(".gz") else open
    with opener(file, "rt", encoding="utf-8", errors="replace", newline="") as text:
        return text.readline().rstrip("\r\n")


def _read_csv(
    files: Sequence[Path],
    dialect: Dialect,
    *,
    types: Mapping[str, str] | None = None,
    columns: Mapping[str, str] | None = None,
    filename: bool = False,
) -> exp.Select:
    def named(name: str, value: exp.Expr) -> exp.Expr:
        return exp.PropertyEQ(this=exp.to_identifier(name), expression=value)

    def struct(mapping: Mapping[str, str]) -> exp.Struct:
        return exp.Struct(
            expressions=[
                exp.PropertyEQ(this=exp.Literal.string(k), expression=exp.Literal.string(v))
                for k, v in mapping.items()
            ]
        )

    arguments = [
        exp.Array(expressions=[exp.Literal.string(str(f)) for f in files]),
        named("header", exp.true()),
        named("delim", exp.Literal.string(dialect.delimiter)),
        named("quote", exp.Literal.string(dialect.quote)),
        named("escape", exp.Literal.string(dialect.escape)),
        # The sniffer would otherwise skip leading rows that disagree with later ones, and
        # drop rows that begin with a '#' as comments: rows lost without a word.
        named("skip", exp.Literal.number(0)),
        named("comment", exp.Literal.string("")),
        named("strict_mode", exp.true()),
        named("null_padding", exp.false()),
        named("allow_quoted_nulls", exp.false()),
    ]
    if types:
        arguments.append(named("types", struct(types)))
    if columns is not None:
        arguments += [named("auto_detect", exp.false()), named("columns", struct(columns))]
    if filename:
        arguments.append(named("filename", exp.true()))
    return exp.select(exp.Star()).from_(
        exp.Table(this=exp.Anonymous(this="read_csv", expressions=arguments))
    )


def _check_rows(
    connection: duckdb.DuckDBPyConnection, files: Sequence[Path], dialect: Dialect
) -> None:
    """Read every row of ``files`` as text with as many fields as the first file's header,
    raising CsvError at the first that does not fit; nothing when all do."""
    import duckdb

    reader = csv.reader(
        [_header_line(files[0])], delimiter=dialect.delimiter, quotechar=dialect.quote
    )
    header = next(reader, [])
    columns = {f"column{i}": "VARCHAR" for i in range(max(len(header), 1))}
    count = exp.select(exp.func("count", exp.Star())).from_(
        _read_csv(files, dialect, columns=columns).subquery()
    )
    try:
        connection.sql(count.sql("duckdb")).fetchall()
    except duckdb.Error as error:
        raise CsvError(csv_problem(error, files[0])) from None
