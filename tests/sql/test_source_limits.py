"""A SQL file over the size limits is refused before it is parsed (issue 44, item 6): a 50 MB
script of 740,000 statements ran for minutes at over 1 GB. The bytes are refused from the
file's size, unread; the statements once tokenized, before the parser builds any tree."""

from __future__ import annotations

import io
import time

import pytest

from sql.catalog import load_catalog
from sql.catalog_import import import_ddl
from sql.report import translate_tree
from sql.source_limits import (
    ESTIMATED_FROM,
    MAX_SOURCE_BYTES,
    MAX_STATEMENTS,
    SourceTooLarge,
    read_bytes,
    read_source,
)
from sql.templating import translate_source_text
from sql.translate import parse_script, translate_script

CATALOG = load_catalog()
TOO_MANY = "SELECT 1 AS one;\n" * (MAX_STATEMENTS + 1)


def test_a_file_over_the_byte_limit_is_refused_by_its_size_unread(tmp_path):
    path = tmp_path / "huge.sql"
    with path.open("wb") as file:  # sparse: reading it would take 50 MB
        file.truncate(50_000_000)
    started = time.monotonic()
    with pytest.raises(SourceTooLarge) as caught:
        read_source(path)
    assert time.monotonic() - started < 0.5
    (diagnostic,) = caught.value.diagnostics
    assert diagnostic.format() == (
        f"{path}:1:1: error[SOURCE-SIZE]: the file holds 50,000,000 bytes; a SQL file may hold "
        f"{MAX_SOURCE_BYTES:,} at most: split it into several files"
    )
    path.write_bytes(b"SELECT 1")
    assert read_source(path) == b"SELECT 1"


def test_a_stream_is_read_no_further_than_one_byte_over_the_limit():
    stream = io.BytesIO(b"-" * (MAX_SOURCE_BYTES + 100))
    with pytest.raises(SourceTooLarge, match="holds more than 10,000,000 bytes"):
        read_bytes(stream, "<stdin>")
    assert stream.tell() == MAX_SOURCE_BYTES + 1
    assert read_bytes(io.BytesIO(b"SELECT 1"), "<stdin>") == b"SELECT 1"


def test_a_script_over_the_statement_limit_is_refused_before_any_is_parsed():
    started = time.monotonic()
    with pytest.raises(SourceTooLarge) as caught:
        translate_script(TOO_MANY, "snowflake", file="many.sql", catalog=CATALOG)
    seconds = time.monotonic() - started
    (diagnostic,) = caught.value.diagnostics
    assert diagnostic.format() == (
        f"many.sql:{MAX_STATEMENTS + 1}:1: error[SOURCE-SIZE]: statement "
        f"{MAX_STATEMENTS + 1:,} of {MAX_STATEMENTS + 1:,}; a SQL file may hold "
        f"{MAX_STATEMENTS:,} statements at most: split it into several files"
    )
    # Translated, one statement fewer takes ~55 s; refused, ~0.5 s of tokenizing (13 MB).
    assert seconds < 10


def test_far_too_many_statements_are_refused_before_they_are_tokenized():
    """Tokenizing 118,000 statements (9 MB) took 18 s and 530 MB; counted, they take 0.2 s."""
    text = "SELECT 1 AS one;\n" * 70_000  # 1.2 MB
    started = time.monotonic()
    with pytest.raises(SourceTooLarge) as caught:
        translate_script(text, "snowflake", file="many.sql", catalog=CATALOG)
    assert time.monotonic() - started < 0.5
    (diagnostic,) = caught.value.diagnostics
    assert diagnostic.format() == (
        "many.sql:1:1: error[SOURCE-SIZE]: about 70,000 statements; a SQL "
        f"file may hold {MAX_STATEMENTS:,} statements at most: split it into several files"
    )
    # Semicolons in quotes and comments end no statement: counted, they would refuse it.
    hidden = ";" * 350_000
    quoted = f"SELECT '{hidden}' AS a -- {hidden}\n/* {hidden} */"
    assert len(quoted) > ESTIMATED_FROM  # long enough to be counted before tokenizing
    (table,) = translate_script(quoted, "snowflake", file="q.sql", catalog=CATALOG).tables
    assert table.columns == ("a",)


def test_the_limit_is_the_statements_and_a_caller_may_raise_it():
    three = "SELECT 1 AS a;\nSELECT 2 AS b;\n-- a comment; not a statement\nSELECT 3 AS c;\n"
    assert len(parse_script(three, "snowflake", max_statements=3).definitions) == 3
    with pytest.raises(SourceTooLarge, match=r"statement 3 of 3; .* 2 statements at most"):
        parse_script(three, "snowflake", max_statements=2)


def test_a_template_rendering_too_many_statements_is_refused_in_the_template():
    template = "-- generated\n{% for i in range(10001) %}SELECT {{ i }} AS n;\n{% endfor %}"
    with pytest.raises(SourceTooLarge) as caught:
        translate_source_text(
            template, "snowflake", file="model.sql", name="model", catalog=CATALOG
        )
    (diagnostic,) = caught.value.diagnostics
    assert (diagnostic.rule, diagnostic.file, diagnostic.line) == ("SOURCE-SIZE", "model.sql", 2)


def test_ddl_over_the_statement_limit_is_refused_before_any_is_parsed():
    ddl = "CREATE TABLE t (a INT);\n" + "SET NOCOUNT ON;\n" * MAX_STATEMENTS
    with pytest.raises(SourceTooLarge) as caught:
        import_ddl([("dump.sql", ddl)], "tsql")
    (diagnostic,) = caught.value.diagnostics
    assert (diagnostic.file, diagnostic.line, diagnostic.col) == ("dump.sql", MAX_STATEMENTS + 1, 1)


def test_a_file_of_the_translation_report_over_the_limit_is_a_refused_row(tmp_path):
    (tmp_path / "snowflake").mkdir()
    (tmp_path / "snowflake" / "nations.sql").write_text("SELECT N_NAME FROM SALES.NATION")
    with (tmp_path / "snowflake" / "huge.sql").open("wb") as file:
        file.truncate(50_000_000)
    huge, nations = translate_tree(tmp_path, CATALOG)
    assert nations.translated and not huge.translated
    assert [d.rule for d in huge.diagnostics] == ["SOURCE-SIZE"]
