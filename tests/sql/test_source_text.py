"""A legacy file that is not UTF-8 text, or holds a NUL, is refused with one located line."""

import pytest

from sql.diagnostics import TranslationError, source_text
from sql.translate import translate_script


@pytest.mark.parametrize(
    ("data", "line", "col", "says"),
    [
        (b"SELECT 1 AS a\nFROM t WHERE x = '\xe9'\n", 2, 19, "byte 0xe9 is not UTF-8"),
        (b"\xef\xbb\xbfSELECT '\xff'", 1, 9, "byte 0xff is not UTF-8"),
        (b"SELECT 1 AS a\n  , 2 AS b\x00c\n", 2, 11, "a NUL character"),
        ("SELECT 1 AS a".encode("utf-16"), 1, 1, "byte 0xff is not UTF-8"),
    ],
)
def test_bad_bytes_are_a_located_refusal(data, line, col, says):
    with pytest.raises(TranslationError) as refused:
        source_text(data, "legacy/x.sql")
    [diagnostic] = refused.value.diagnostics
    assert (diagnostic.rule, diagnostic.file, diagnostic.line, diagnostic.col) == (
        "SOURCE-TEXT",
        "legacy/x.sql",
        line,
        col,
    )
    assert says in diagnostic.message
    assert "\n" not in diagnostic.format()


def test_utf8_with_or_without_a_byte_order_mark_reads_as_text():
    assert source_text("SELECT 'café' AS c".encode(), "x.sql") == "SELECT 'café' AS c"
    assert source_text(b"\xef\xbb\xbfSELECT 1", "x.sql") == "SELECT 1"


def test_a_nul_in_text_is_refused_by_the_translator_too():
    # Before, the NUL became part of the identifier it sat in.
    with pytest.raises(TranslationError, match="NUL"):
        translate_script("SELECT o_orderkey AS k\x00ey FROM orders", "snowflake", file="x.sql")
