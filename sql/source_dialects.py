"""Source dialects as sqlglot parses them, with the few parse-time distinctions translation needs.

sqlglot folds some constructs that differ in meaning into one node; where the difference
matters for an exact translation, the parsers here keep it.

Floating-point type names are the main case: sqlglot reads REAL and FLOAT (and FLOAT4) as
its 32-bit FLOAT in most dialects, but the width each name means is the dialect's own:
- Snowflake: FLOAT, FLOAT4, FLOAT8, DOUBLE, REAL are all 64-bit
  (https://docs.snowflake.com/en/sql-reference/data-types-numeric#float-float4-float8);
- Teradata: FLOAT, REAL and DOUBLE PRECISION are all 64-bit IEEE;
- BigQuery: FLOAT is the legacy name of FLOAT64;
- T-SQL: FLOAT is FLOAT(53), 64-bit; REAL is FLOAT(24), 32-bit; FLOAT(1..24) is 32-bit
  (https://learn.microsoft.com/sql/t-sql/data-types/float-and-real-transact-sql);
- Redshift: REAL/FLOAT4 32-bit, FLOAT/FLOAT8/DOUBLE PRECISION 64-bit (sqlglot's reading);
- Oracle: FLOAT and REAL are NUMBER subtypes (decimal with binary precision), not binary
  floating point; BINARY_FLOAT/BINARY_DOUBLE are the IEEE types.
So each tokenizer below maps the names to the width they mean: DOUBLE for 64-bit, FLOAT for
32-bit (rendered REAL in ANSI), and DECFLOAT (refused: no exact ANSI type) for Oracle's
decimal floats.
"""

from __future__ import annotations

from sqlglot import exp
from sqlglot.dialects.bigquery import BigQuery
from sqlglot.dialects.dialect import Dialect
from sqlglot.dialects.oracle import Oracle
from sqlglot.dialects.redshift import Redshift
from sqlglot.dialects.snowflake import Snowflake
from sqlglot.dialects.teradata import Teradata
from sqlglot.dialects.tsql import TSQL
from sqlglot.time import format_time
from sqlglot.tokens import Token, TokenType

from sql.client_commands import batch_separators, may_hold_go


class Semantics:
    """What a source dialect's SQL means where the dialects differ: the flags the rules read
    through ``semantics(dialect)`` instead of comparing dialect names (sqlglot's dialects
    state theirs the same way: ``TYPED_DIVISION``, ``NULL_ORDERING``, ...).

    Each ``Plumbline*`` dialect below sets its own; the defaults here are the standard's
    reading. Where sqlglot already states a fact, the rules read sqlglot's flag, set by
    sqlglot's dialect class (the copies here only serve a name that is no source dialect):
    ``NORMALIZATION_STRATEGY`` UPPERCASE is "unquoted names fold to upper case, quoted ones keep
    theirs" (Snowflake, Oracle), CASE_INSENSITIVE_EXCEPT_TABLES "dataset and table names compare
    exactly, quoted or not" (BigQuery:
    https://cloud.google.com/bigquery/docs/datasets#dataset-naming); ``TYPED_DIVISION`` is
    "integer / integer truncates". sqlglot flags that read alike but say otherwise for a source
    here are not reused: ``LEAST_GREATEST_IGNORES_NULLS`` (True for Oracle and Teradata, whose
    GREATEST is NULL when any argument is), ``CONCAT_COALESCE`` (True for Redshift, False for
    Oracle), ``SUPPORTS_COLUMN_JOIN_MARKS`` (True for Snowflake and Redshift: whether (+)
    parses, not that it is translated).
    """

    NORMALIZATION_STRATEGY = Dialect.NORMALIZATION_STRATEGY
    TYPED_DIVISION = Dialect.TYPED_DIVISION

    # Names and scripts
    # ARRAY<T> and STRUCT<...> declare their elements' and fields' types (Snowflake's ARRAY
    # and OBJECT hold VARIANT values of any type, so they stay opaque).
    ARRAYS_ARE_TYPED = False
    CTES_RECURSE_WITHOUT_KEYWORD = False  # a CTE may read itself without WITH RECURSIVE
    # Lines starting with a dot are the client's commands (BTEQ's .LOGON, .QUIT, ...:
    # sql/client_commands.py), never SQL
    DOT_COMMANDS = False
    DUAL_IS_NO_TABLE = False  # FROM DUAL names the one-row dummy, not a catalog table
    # IF <condition> <statement> and IF <condition> BEGIN ... END run statements under a
    # condition (T-SQL's existence guards around DDL)
    IF_BLOCKS = False
    HAS_VARIANT = False  # VARIANT / OBJECT / ARRAY columns hold JSON (sql/rules/variant.py)
    OUTER_JOIN_MARKS = False  # (+) after a column makes its join an outer join
    QUERY_PARAMETERS = False  # @name query parameters, given a value at run time
    SCRIPT_VARIABLES = False  # scripts DECLARE and SET variables (sql/variables.py)
    SET_TABLES = False  # a table not declared MULTISET drops or rejects duplicate rows
    TEMP_FUNCTIONS = False  # scripts define SQL functions (CREATE TEMP FUNCTION, sql/udf.py)
    # A temporary table not declared ON COMMIT PRESERVE ROWS is emptied when each transaction
    # ends, in Teradata session mode at the end of each request (docs.teradata.com, CREATE
    # TABLE, "ON COMMIT DELETE/PRESERVE ROWS": DELETE is the default)
    TEMPORARY_ROWS_DELETED_ON_COMMIT = False
    # USE db (Teradata: DATABASE db) makes db the default database of the names after it
    USE_SETS_DATABASE = False
    VARIABLES_ARE_BARE_NAMES = False  # a variable is used by its bare name (not @name)
    WILDCARD_TABLES = False  # FROM dataset.prefix* reads every table of that prefix

    # Strings
    CONCAT_SKIPS_NULLS = False  # CONCAT (and ||) read a NULL operand as ''
    EMPTY_STRING_IS_NULL = False  # '' is NULL, and so is a function's empty result
    GREATEST_IGNORES_NULLS = False  # GREATEST / LEAST skip NULLs (else: NULL if any is)
    INITCAP_WORDS_DOCUMENTED = False  # INITCAP's word delimiters are a documented list
    # LIKE reads a backslash as an escape when no ESCAPE clause is given (BigQuery, Redshift
    # as PostgreSQL); the standard's LIKE has no escape character then.
    LIKE_BACKSLASH_ESCAPES = False
    LIKE_BRACKET_CLASSES = False  # LIKE reads [...] as a character class
    # A regular expression's match flag 'i' matches letters in either case, how far beyond
    # ASCII its case folding goes undocumented (Snowflake: "case-insensitive matching")
    REGEX_FLAG_I_FOLDS_CASE = False
    # What LISTAGG / STRING_AGG put between values when the call names no separator (Oracle
    # and Redshift document NULL, which puts nothing; Snowflake ''; BigQuery ','); None: the
    # call must name one (T-SQL), or the dialect documents no default (Teradata).
    LISTAGG_DEFAULT_SEPARATOR: str | None = None
    LISTAGG_NULL_SEPARATOR_IS_NONE = False  # a NULL separator puts nothing between values
    # LISTAGG leaves out '' values as it does NULLs, and DISTINCT takes values that differ
    # only in trailing blanks for one (Redshift's comparisons ignore them)
    LISTAGG_SKIPS_EMPTY_STRINGS = False
    # ...and so in a pattern known only at run time, a final one failing (checked in the
    # dialect's source: ZetaSQL's like.cc), as the standard's ESCAPE '\' reads it
    LIKE_BACKSLASH_ESCAPES_AT_RUN_TIME = False
    PAD_COUNTS_DISPLAY_COLUMNS = False  # LPAD / RPAD count display columns, not characters
    # REGEXP_EXTRACT returns its pattern's one capturing group, if any (more are an error),
    # where REGEXP_SUBSTR returns the whole match unless asked for a group
    REGEX_EXTRACT_RETURNS_ITS_GROUP = False
    REGEX_SUBSTR_OF_NO_MATCH_IS_EMPTY = False  # REGEXP_SUBSTR is '' (not NULL) without a match
    REPEAT_CUTS_AT_8000_BYTES = False  # REPLICATE's result is cut at 8,000 bytes
    REPEAT_OF_NEGATIVE_IS_NULL = False  # REPLICATE(s, n) with n < 0 is NULL
    REVERSE_REVERSES_BYTES = False  # REVERSE reverses bytes (undocumented), not characters
    SPLIT_PART_NEEDS_POSITIVE_PART = False  # SPLIT_PART's part must be 1 or more
    # text is CASESPECIFIC or NOT CASESPECIFIC (declared, else the session mode's default),
    # which decides whether it compares with case (sql/rules/case_sensitivity.py)
    TEXT_CASE_IS_AN_ATTRIBUTE = False
    TEXT_COMPARES_BY_COLLATION = False  # text compares by a collation, by default ignoring case
    # text compares as if the shorter were padded with blanks: 'a' = 'a ', also where values
    # are grouped (PAD-COMPARISON, PAD-VARIANT)
    TEXT_IGNORES_TRAILING_BLANKS = False
    TRANSLATE_LENGTHS_MUST_MATCH = False  # TRANSLATE raises when `from` and `to` differ in length
    # TRIM / LTRIM / RTRIM without characters remove Unicode's whitespace (the standard's TRIM:
    # spaces only)
    TRIM_REMOVES_WHITESPACE = False

    # Numbers and types
    CORR_OF_CONSTANT_IS_NAN = False  # CORR over a constant column is NaN, not NULL
    COUNT_IS_INTEGER = False  # counts (REGR_COUNT) are INTEGER, not BIGINT
    FLOAT_IS_DECIMAL = False  # FLOAT / REAL are decimal NUMBER subtypes, not IEEE floats
    # ROUND(x) of a binary floating-point x breaks a tie: "away" from zero (as both engines
    # do), "even" (Oracle's BINARY_DOUBLE), or None where the documentation does not say
    FLOAT_ROUND_TIES: str | None = "away"
    FLOAT_PRECISION_PICKS_WIDTH = False  # FLOAT(n) is 32-bit for n <= 24, 64-bit above
    INTEGER_CAST_TRUNCATES = False  # CAST of a decimal to an integer truncates (else: rounds)
    # A quotient of exact numbers (integers included) of scales s1 / s2 is a NUMBER of scale
    # max(s1, min(s1 + 6, 12)), its last digit rounded half away from zero (Snowflake)
    QUOTIENT_ADDS_SIX_PLACES = False
    # A number literal with a decimal point and no exponent (1.5) is an exact NUMBER(2, 1)
    # (sqlglot types it DOUBLE): read by the quotient and AVG rules (sql/rules/division.py)
    DECIMAL_LITERAL_IS_EXACT = False
    # ...and a number literal with an exponent (1.5E0) is a FLOAT, documented (T-SQL,
    # Teradata); where not set, a quotient or AVG reading one is refused
    EXPONENT_LITERAL_IS_FLOAT = False
    # AVG of an integer is a fixed-point number whose scale is not documented: refused as
    # AVG of a DECIMAL is (sql/rules/aggregates.py AVG-DECIMAL)
    AVERAGE_OF_INT_IS_NUMBER = False
    # AVG of an exact number (integer or DECIMAL) is a binary floating-point number
    AVERAGE_OF_EXACT_IS_FLOAT = False
    # AVG of a TINYINT, SMALLINT or INT is an INT, of a BIGINT a BIGINT, truncated (else, in
    # a dialect whose integer average is an integer: a BIGINT)
    AVERAGE_OF_INT_IS_INT = False
    # DECIMAL(m, n) / DECIMAL(k, j) (an integer being a DECIMAL of scale 0) is a DECIMAL of
    # scale max(n, j), its last digit rounded as a DECIMAL value is (ROUND_HALFWAY_IS_A_SETTING)
    DECIMAL_QUOTIENT_KEEPS_LARGER_SCALE = False
    # A quotient or an average of exact numbers (integers included) is a decimal floating
    # point number of 38 significant digits (Oracle's NUMBER: 1/3 is .333...3, 40 digits):
    # bare, no exact ANSI type holds it (refused); ROUND or TRUNC of it to n places is exact
    # (sql/rules/division.py rounded_quotient)
    QUOTIENT_IS_DECIMAL_FLOAT = False
    # Where AVG of a DECIMAL or '/' with a DECIMAL operand has no documented value (result
    # type and rounding of its last digit), what the dialect does document, for the refusal
    # (sql/rules/division.py DIV-DECIMAL, sql/rules/aggregates.py AVG-DECIMAL); None where
    # the flags above give the value.
    EXACT_QUOTIENT_UNDOCUMENTED: str | None = (
        "the standard leaves the scale of an exact quotient implementation-defined"
    )
    # INSERT of text longer than a VARCHAR(n) column fails (T-SQL: with ANSI_WARNINGS ON, the
    # default of every client library), where a CAST to VARCHAR(n) cuts it
    INSERT_CHECKS_TEXT_LENGTH = False
    TEXT_TO_NUMBER_IS_DOCUMENTED = False  # which text CAST(... AS INT64 or FLOAT64) reads is fixed
    # LOG(x) is the base-10 logarithm; sqlglot leaves these a one-argument LOG (the other
    # dialects' LOG(x) is read as LN).
    LOG_DEFAULTS_TO_BASE_10 = False
    PERCENTILE_ADDS_SCALE = False  # an interpolated percentile of DECIMAL(p, s) has scale s + 3
    # ... of exact numbers has a documented exact result type (sql/rules/percentiles.py);
    # elsewhere percentiles are translated for DOUBLE arguments only (Redshift documents
    # DOUBLE -> DOUBLE; its DECIMAL result's scale is not documented).
    PERCENTILE_OF_DECIMAL_IS_DECIMAL = False
    PERCENTILE_OF_DOUBLE_IS_DOUBLE = False  # ... of floating-point numbers is a DOUBLE
    RATIO_TO_REPORT_IS_DOUBLE = False  # RATIO_TO_REPORT divides in DOUBLE
    RATIO_TO_REPORT_OF_ZERO_IS_NULL = False  # RATIO_TO_REPORT over a zero sum is NULL
    # a DECIMAL halfway value rounds (ROUND included) as a server setting says: Teradata's
    # RoundHalfwayMagUp (the teradata_round_halfway_mag_up assumption)
    ROUND_HALFWAY_IS_A_SETTING = False
    ROUND_MODE_TRUNCATES = False  # ROUND(x, d, f) with f <> 0 truncates
    STATISTICS_KEEP_DECIMAL = False  # regression statistics of decimals are decimals
    STRING_CASTS_TRUNCATE = False  # a string converted to a shorter type is cut, not refused
    TO_NUMBER_IS_INTEGER = False  # TO_NUMBER without a precision is NUMBER(38, 0)
    # TRY_CAST / TRY_TO_DATE / TRY_TO_NUMBER of a string read it as CAST / TO_DATE /
    # TO_NUMBER do, NULL where those fail (Snowflake's documented TRY_ functions)
    TRY_READS_TEXT_AS_ITS_CONVERSION = False
    UNSIZED_DECIMAL_IS_FLOATING = False  # NUMBER without a precision is a floating decimal
    UNSIZED_STRINGS_ARE_SHORT = False  # VARCHAR alone is VARCHAR(1), VARCHAR(30) in a CAST
    VARCHAR_MAX_IS_UNBOUNDED = False  # VARCHAR(MAX) is the unbounded string type

    # Dates and times
    # The largest fractional-second precision CURRENT_TIMESTAMP(p) takes (its reading cut to p
    # digits); None where the dialect has no such argument
    CLOCK_MAX_PRECISION: int | None = None
    ADD_MONTHS_KEEPS_MONTH_END = False  # ADD_MONTHS maps a month's last day to the last day
    DATE_DIFFERENCE_IS_DAY_COUNT = False  # DATE - DATE is a number of days
    DATE_PLUS_INTERVAL_IS_TIMESTAMP = False  # DATE +/- INTERVAL is a TIMESTAMP, whatever unit
    # month steps with INTERVAL clamp to the target month's end (else: an error there, as in
    # the standard, or undocumented)
    INTERVAL_MONTHS_CLAMP = False
    TIMESTAMP_DIFFERENCE_IS_INTERVAL = False  # TIMESTAMP - TIMESTAMP: INTERVAL DAY TO SECOND
    # DATEDIFF in hours, minutes and seconds counts the unit boundaries crossed (the
    # difference of the two values truncated to the unit), as for days.
    DATE_DIFF_COUNTS_TIME_BOUNDARIES = False
    DATE_DIFF_WEEKS_START_SUNDAY = False  # DATEDIFF(WEEK) counts Sundays crossed
    DATE_FROM_PARTS_NORMALISES = False  # DATE_FROM_PARTS carries month 13, day 0, ... over
    # DATE holds a time of day to the second (ANSI TIMESTAMP(0)): date +/- n adds n days, a
    # fraction too, to a DATE or a TIMESTAMP (which loses its fractional seconds), giving a
    # DATE; date - date is a NUMBER of days, fractional where the times differ; CURRENT_DATE
    # and SYSDATE are DATEs with the time of day
    DATE_HOLDS_TIME = False
    # datetime +/- n adds n days (a date + n is an error; datetime - datetime is the
    # datetime as far from 1900-01-01 as the two are apart)
    DATETIME_PLUS_NUMBER_ADDS_DAYS = False
    # DATETIME and the clock (GETDATE(), CURRENT_TIMESTAMP) hold 1/300 s ticks, shown as
    # milliseconds .000 / .003 / .007, from 1753-01-01 to 9999-12-31 23:59:59.997; text and
    # finer values converted to it are rounded ("datetime (Transact-SQL)", "Rounding of
    # datetime fractional second precision"; sql/rules/tsql_datetime.py)
    DATETIME_TICKS = False
    DATE_NAMES_ARE_ENGLISH = False  # month and day names are English, whatever the session
    DATE_NUMBERS_ARE_INT = False  # DATEDIFF and DATEPART return INT, not BIGINT
    # DATEPART / DATE_PART / EXTRACT of SECOND is the whole seconds (an integer type), where
    # the standard's EXTRACT(SECOND) keeps the fraction
    SECOND_PART_IS_WHOLE = False
    DATE_STRING_TYPE = "DATE"  # the type an ISO date string converts to as a date argument
    DATE_TEXT_READ_BY_INPUT_FORMAT = False  # TO_DATE(text) reads it by DATE_INPUT_FORMAT
    # DATE_PART(EPOCH_SECOND | EPOCH_MILLISECOND | EPOCH_MICROSECOND | EPOCH_NANOSECOND, ts)
    # counts whole units from 1970-01-01 00:00:00 to a timestamp without time zone, the
    # fraction dropped (Snowflake's DATE_PART examples); of a DATE, EPOCH_SECOND only
    EPOCH_DATE_PARTS = False
    # text converted to a date without a format is read by NLS_DATE_FORMAT, the session's
    # format model (sql/rules/date_strings.py)
    DATE_TEXT_READ_BY_NLS_FORMAT = False
    # a year-first 'yyyy-m-d' (one- or two-digit month and day) converts to that date
    UNPADDED_DATE_STRINGS = False
    PARSED_DATES_START_AT_EPOCH = False  # PARSE_DATE fills fields its format lacks: 1970-01-01
    DATETIME_FORMAT = "model"  # format patterns: "model" (YYYY-MM-DD), "dotnet", "percent"
    DAY_OF_WEEK_OF_SUNDAY: int | None = None  # DAYOFWEEK's fixed number for Sunday, if any
    # How a format model prints month and day names: "element", as the element is written
    # (MONTH -> JANUARY, Month -> January, month -> january); "title": Snowflake's documented
    # examples print title case whatever the element's case ('mon' -> 'Apr'), so only a
    # title-case element, which both readings print alike, is translated (and MMMM, its
    # full month name, exists); None: names are refused.
    FORMAT_NAME_CASE: str | None = None
    FORMATTED_TIMESTAMPS_IN_UTC = False  # FORMAT_TIMESTAMP prints an instant in UTC
    # 'yyyy-mm-dd hh:mi:ss' is read as that moment whatever the settings' order of day and
    # month (Snowflake's AUTO format, BigQuery's canonical form, Redshift's parser).
    ISO_TIMESTAMP_STRINGS = False
    LAST_DAY_TAKES_WEEK = False  # LAST_DAY(d, WEEK) and its aliases (SF_WEEKS)
    TIMESTAMP_FOLLOWS_TYPE_MAPPING = False  # TIMESTAMP is what TIMESTAMP_TYPE_MAPPING names
    TRUNCATED_WEEKS_START_MONDAY = False  # DATE_TRUNC(WEEK) starts weeks on Monday
    WEEK_OF_YEAR_IS_ISO = False  # WEEKOFYEAR (WEEKISO) is the ISO week
    WEEKDAY_WEEK_PARTS = False  # WEEK(<WEEKDAY>) and ISOWEEK parts; WEEK is WEEK(SUNDAY)
    WEEKS_START_ON_DATEFIRST = False  # weeks start on the day SET DATEFIRST names
    WEEKS_START_ON_WEEK_START = False  # weeks start on the day the WEEK_START parameter names


# On a clock node the parser wrote (meta key -> the fractional-second digits the legacy clock
# gives, when fewer than the engines' six): the rules floor the reading to them
# (sql/rules/dialect_specific.py, SESSION-TIME).
CLOCK_DIGITS_META = "clock_digits"


def _redshift_getdate(args: list[exp.Expr]) -> exp.Expr:
    # Redshift's GETDATE() and SYSDATE are both TIMESTAMP in the session time zone, and both
    # parse as CurrentTimestamp, but their documented examples differ: GETDATE's "full
    # timestamp for the current date" is 2008-12-04 16:10:43, SYSDATE's 2008-12-04
    # 16:10:43.976353 (https://docs.aws.amazon.com/redshift/latest/dg/r_GETDATE.html,
    # r_SYSDATE.html). A reading floored to the second is a value GETDATE gives by its
    # documentation, and a value its TIMESTAMP holds either way.
    now = exp.CurrentTimestamp.from_arg_list(args)
    now.meta[CLOCK_DIGITS_META] = 0
    return now


# On a T-SQL clock that reads UTC's date and time (GETUTCDATE(), SYSUTCDATETIME()): the
# function's name. Both are CURRENT_TIMESTAMP nodes to the rules (sql/rules/dialect_specific.py
# CLOCKS, sql/rules/tsql_datetime.py TSQL-GETDATE).
UTC_CLOCK_META = "utc_clock"


def _tsql_utc_clock(name: str):
    def parse(args: list[exp.Expr]) -> exp.Expr:
        now = exp.CurrentTimestamp.from_arg_list(args)
        now.meta[UTC_CLOCK_META] = name
        return now

    return parse


def _redshift_add_months(args: list[exp.Expr]) -> exp.Expr:
    # Redshift ADD_MONTHS maps a month's last day to the target month's last day (DATEADD does
    # not) and returns a TIMESTAMP; sqlglot parses both as TsOrDsAdd.
    added = exp.AddMonths(this=args[0], expression=args[1], preserve_end_of_month=True)
    return exp.Cast(this=added, to=exp.DataType.build("TIMESTAMP"))


class PlumblineRedshift(Redshift, Semantics):
    # "Numeric literals": 3.14159 is a "floating-point literal (also referred to as decimal,
    # numeric, or real literals)": exact or not is not settled by the page, and an exact
    # operand makes the quotient a DECIMAL one (refused below): read as exact, so that a
    # quotient reading one is refused rather than divided in DOUBLE.
    DECIMAL_LITERAL_IS_EXACT = True
    # "Computations with numeric values": DECIMAL / DECIMAL has scale max(4, s1 + p2 - s2 +
    # 1); "AVG function": "The default precision for an AVG function result with a NUMERIC or
    # DECIMAL argument is 38. The scale of the result is the same as the scale of the
    # argument." Neither says how the last digit is rounded.
    EXACT_QUOTIENT_UNDOCUMENTED = (
        "Redshift documents the scale of a DECIMAL quotient (max(4, s1 + p2 - s2 + 1)) and of "
        "AVG of DECIMAL(p, s) (DECIMAL(38, s)), but not how their last digit is rounded"
    )
    # Its TIMESTAMP keeps six fractional digits ("Datetime types"); the documentation found
    # gives CURRENT_TIMESTAMP no precision, so six is the largest taken
    CLOCK_MAX_PRECISION = 6
    DATE_DIFF_COUNTS_TIME_BOUNDARIES = True
    DATE_DIFFERENCE_IS_DAY_COUNT = True
    DATE_PLUS_INTERVAL_IS_TIMESTAMP = True
    DAY_OF_WEEK_OF_SUNDAY = 0
    FLOAT_PRECISION_PICKS_WIDTH = True
    FLOAT_ROUND_TIES = None
    # MONTH / Month / month padded to 9, MON / Mon / mon, DAY, DY as written (Redshift's
    # datetime format strings, PostgreSQL's)
    FORMAT_NAME_CASE = "element"
    GREATEST_IGNORES_NULLS = True
    INTERVAL_MONTHS_CLAMP = True
    ISO_TIMESTAMP_STRINGS = True
    LIKE_BACKSLASH_ESCAPES = True
    LISTAGG_DEFAULT_SEPARATOR = ""
    LISTAGG_NULL_SEPARATOR_IS_NONE = True
    LISTAGG_SKIPS_EMPTY_STRINGS = True
    LOG_DEFAULTS_TO_BASE_10 = True
    PERCENTILE_OF_DOUBLE_IS_DOUBLE = True
    RATIO_TO_REPORT_IS_DOUBLE = True
    REGEX_SUBSTR_OF_NO_MATCH_IS_EMPTY = True
    # EXTRACT returns INTEGER of a TIMESTAMP, TIME or INTERVAL (docs.aws.amazon.com/redshift,
    # "EXTRACT function"); DATE_PART parses into the same node (sql/rules/portable_types.py)
    SECOND_PART_IS_WHOLE = True
    SPLIT_PART_NEEDS_POSITIVE_PART = True
    TIMESTAMP_DIFFERENCE_IS_INTERVAL = True
    TEXT_IGNORES_TRAILING_BLANKS = True
    TRUNCATED_WEEKS_START_MONDAY = True
    UNPADDED_DATE_STRINGS = True
    VARCHAR_MAX_IS_UNBOUNDED = True

    class Parser(Redshift.Parser):
        FUNCTIONS = {
            **Redshift.Parser.FUNCTIONS,
            "ADD_MONTHS": _redshift_add_months,
            "GETDATE": _redshift_getdate,
        }


class PlumblineSnowflake(Snowflake, Semantics):
    # "Arithmetic operators", Scale and precision in arithmetic operations, Division: "Leading
    # digits: L = L1 + S2; Scale: S = max(S1, min(S1 + 6, 12))" (an integer: S1 = 0, so 6
    # places); release note BCR-1400 (2023_08 bundle, "DIV0 and DIV0NULL: Change to results
    # exceeding the output scale"): "DIV0 and DIV0NULL round the output half away from zero.
    # This is consistent with the results from using the division operator (/)." The AVG
    # page names no result type or scale for a NUMBER argument (nor how its last digit is
    # rounded).
    QUOTIENT_ADDS_SIX_PLACES = True
    # A number with a decimal point is a fixed-point NUMBER: the page's own examples take
    # literals as NUMBER operands ("SELECT 10.01 n1, 1.1 n2, n1 * n2" is 11.011 by the
    # NUMBER scale rule). A literal with an exponent (1.5e0) has no type on the pages found:
    # a quotient or AVG reading one is refused (sql/rules/division.py operand_type).
    DECIMAL_LITERAL_IS_EXACT = True
    AVERAGE_OF_INT_IS_NUMBER = True
    EXACT_QUOTIENT_UNDOCUMENTED = (
        "Snowflake documents the scale of a quotient (max(s1, min(s1 + 6, 12)), rounded half "
        "away from zero) but not the scale of AVG of a NUMBER, integers included"
    )
    ADD_MONTHS_KEEPS_MONTH_END = True
    # fract_sec_precision: "Valid values range from 0 - 9", default 9 (CURRENT_TIMESTAMP,
    # LOCALTIMESTAMP: https://docs.snowflake.com/sql-reference/functions/current_timestamp)
    CLOCK_MAX_PRECISION = 9
    CTES_RECURSE_WITHOUT_KEYWORD = True
    DATE_DIFF_COUNTS_TIME_BOUNDARIES = True
    DATE_DIFFERENCE_IS_DAY_COUNT = True
    DATE_FROM_PARTS_NORMALISES = True
    DATE_TEXT_READ_BY_INPUT_FORMAT = True
    FORMAT_NAME_CASE = "title"
    HAS_VARIANT = True
    INITCAP_WORDS_DOCUMENTED = True
    EPOCH_DATE_PARTS = True
    ISO_TIMESTAMP_STRINGS = True
    LAST_DAY_TAKES_WEEK = True
    LISTAGG_DEFAULT_SEPARATOR = ""
    PERCENTILE_ADDS_SCALE = True
    PERCENTILE_OF_DECIMAL_IS_DECIMAL = True
    PERCENTILE_OF_DOUBLE_IS_DOUBLE = True
    RATIO_TO_REPORT_OF_ZERO_IS_NULL = True
    REGEX_FLAG_I_FOLDS_CASE = True
    SECOND_PART_IS_WHOLE = True  # DATE_PART('second') / SECOND(): 0 to 59
    TIMESTAMP_FOLLOWS_TYPE_MAPPING = True
    TO_NUMBER_IS_INTEGER = True
    TRUNCATED_WEEKS_START_MONDAY = True
    TRY_READS_TEXT_AS_ITS_CONVERSION = True
    WEEK_OF_YEAR_IS_ISO = True
    WEEKS_START_ON_WEEK_START = True

    class Tokenizer(Snowflake.Tokenizer):
        KEYWORDS = {
            **Snowflake.Tokenizer.KEYWORDS,
            "FLOAT4": TokenType.DOUBLE,
            "REAL": TokenType.DOUBLE,
        }


class CaseN(exp.Expression, exp.Func):
    """Teradata's ``CASE_N(c1, ..., cn [, NO CASE [OR UNKNOWN]] [, UNKNOWN])``: the conditions,
    and which of the extra cases are given (``no_case``, ``or_unknown``, ``unknown``)."""

    arg_types = {"expressions": True, "no_case": False, "or_unknown": False, "unknown": False}


def _parse_case_n(parser: Teradata.Parser) -> CaseN:
    conditions: list[exp.Expr] = []
    extras: dict[str, bool] = {}
    while True:
        if not extras.get("unknown") and parser._match_text_seq("NO", "CASE"):
            extras["no_case"] = True
            if parser._match_text_seq("OR", "UNKNOWN"):
                extras["or_unknown"] = True
        elif not extras.get("or_unknown") and parser._match_text_seq("UNKNOWN"):
            extras["unknown"] = True
        elif extras:
            parser.raise_error("CASE_N ends with NO CASE [OR UNKNOWN], then UNKNOWN")
        else:
            conditions.append(parser._parse_assignment())
        if not parser._match(TokenType.COMMA):
            break
    return parser.expression(CaseN(expressions=conditions, **extras))


class RangeN(exp.Expression, exp.Func):
    """Teradata's ``RANGE_N(x BETWEEN start [AND end] [EACH size], ... [, NO RANGE [OR
    UNKNOWN]] [, UNKNOWN])``, a row partitioning of a table: ``this`` the tested value,
    ``expressions`` one Tuple (start, end, size) per range (``*`` an unbounded end, a missing
    part NULL), and which of the extra partitions are given."""

    arg_types = {
        "this": True,
        "expressions": True,
        "no_range": False,
        "or_unknown": False,
        "unknown": False,
    }


def _parse_range_n(parser: Teradata.Parser) -> RangeN:
    def bound() -> exp.Expr | None:
        if parser._match(TokenType.STAR):
            return exp.Star()
        return parser._parse_bitwise()

    tested = parser._parse_bitwise()
    if not parser._match(TokenType.BETWEEN):
        parser.raise_error("RANGE_N (x BETWEEN ...): expected BETWEEN")
    ranges: list[exp.Expr] = []
    extras: dict[str, bool] = {}
    while True:
        if not extras.get("unknown") and parser._match_text_seq("NO", "RANGE"):
            extras["no_range"] = True
            if parser._match_text_seq("OR", "UNKNOWN"):
                extras["or_unknown"] = True
        elif ranges and not extras.get("or_unknown") and parser._match_text_seq("UNKNOWN"):
            extras["unknown"] = True
        elif extras:
            parser.raise_error("RANGE_N ends with NO RANGE [OR UNKNOWN], then UNKNOWN")
        else:
            start = bound()
            end = bound() if parser._match(TokenType.AND) else None
            size = parser._parse_bitwise() if parser._match_text_seq("EACH") else None
            parts = [p if p is not None else exp.Null() for p in (start, end, size)]
            ranges.append(exp.Tuple(expressions=parts))
        if not parser._match(TokenType.COMMA):
            break
    return parser.expression(RangeN(this=tested, expressions=ranges, **extras))


class CaseSpecific(exp.Expression):
    """Teradata's data type attribute ``expr ([NOT] CASESPECIFIC)`` (or ``CS``): ``expr``'s
    value, compared case-sensitively or not (``not_``) wherever it is compared."""

    arg_types = {"this": True, "not_": False}


_CASE_ATTRIBUTES = ("CASESPECIFIC", "CS")


class ColumnPartitioning(exp.Property):
    """Teradata's ``PARTITION BY COLUMN [(group, ...)]``: how a columnar table stores its
    columns (each group in its own container, or in row format), never which rows it holds.
    ``expressions``: the column groups, each a Tuple of its columns."""

    arg_types = {"expressions": False}


class AmpMap(exp.Property):
    """Teradata's table option ``MAP = map_name [COLOCATE USING colocation_name]``: which
    AMPs store the table's rows, never which rows it holds."""

    arg_types = {"this": True, "colocation": False}


def _parse_amp_map(parser: Teradata.Parser) -> AmpMap:
    parser._match(TokenType.EQ)
    name = parser._parse_id_var()
    colocation = parser._parse_id_var() if parser._match_text_seq("COLOCATE", "USING") else None
    return parser.expression(AmpMap(this=name, colocation=colocation))


class JoinIndex(exp.Expression):
    """Teradata's ``CREATE JOIN INDEX name [, option ...] AS SELECT ...``: a stored join the
    optimizer may read instead of its tables, which no query can name (its rows are always
    those of the query over the tables' current rows). ``this``: the index's name."""

    arg_types = {"this": True}


def _parse_column_group(parser: Teradata.Parser) -> exp.Expr | None:
    parser._match_texts(("COLUMN", "ROW"))
    if parser._match(TokenType.L_PAREN):
        group = exp.Tuple(expressions=parser._parse_csv(parser._parse_column))
        parser._match_r_paren()
    else:
        group = exp.Tuple(expressions=[parser._parse_column()])
    parser._match_text_seq("NO")
    parser._match_text_seq("AUTO", "COMPRESS")
    return group


def _parse_partition_by(parser: Teradata.Parser) -> exp.Property:
    # Column partitioning (Teradata 14.10+) is storage only; sqlglot reads the row
    # partitioning expressions (RANGE_N, CASE_N) but stops at COLUMN.
    if not parser._match_text_seq("COLUMN"):
        return parser._parse_partitioned_by()
    parser._match_text_seq("NO")
    parser._match_text_seq("AUTO", "COMPRESS")
    parser._match_text_seq("ALL", "BUT")
    groups: list[exp.Expr] = []
    if parser._match(TokenType.L_PAREN):
        groups = [g for g in parser._parse_csv(lambda: _parse_column_group(parser)) if g]
        parser._match_r_paren()
    if parser._match_text_seq("ADD"):
        parser._parse_number()
    return parser.expression(ColumnPartitioning(expressions=groups))


# A Teradata request written after a LOCKING modifier carries the modifier's text here.
LOCKING_META = "teradata_locking"


class PlumblineTeradata(Teradata, Semantics):
    # "Decimal literals": digits with a decimal point are DECIMAL(n, m); "Floating point
    # literals" have an exponent (E) and are FLOAT
    DECIMAL_LITERAL_IS_EXACT = True
    EXPONENT_LITERAL_IS_FLOAT = True
    # AVG: "Result Type and Attributes: Data Type REAL" (SQL Functions, Operators,
    # Expressions, and Predicates, AVG; REAL is Teradata's 64-bit FLOAT); window AVG "where x
    # is a numeric, DATE, or INTERVAL type: FLOAT" ("Result Type and Format").
    AVERAGE_OF_EXACT_IS_FLOAT = True
    # "DECIMAL Result Data Type": DECIMAL(m,n) / DECIMAL(k,j) is DECIMAL(p, max(n,j)), an
    # integer / DECIMAL(k,j) DECIMAL(p, j), p set by MaxDecimal (typed as 38, the widest:
    # sql/rules/portable_types.py); the last digit rounds by RoundHalfwayMagUp.
    DECIMAL_QUOTIENT_KEEPS_LARGER_SCALE = True
    EXACT_QUOTIENT_UNDOCUMENTED = None
    # CURRENT_TIMESTAMP(fractional_precision): 0 to 6, default 6 (SQL Functions, Operators,
    # Expressions, and Predicates: CURRENT_TIMESTAMP), as TIMESTAMP(n) takes
    CLOCK_MAX_PRECISION = 6
    COUNT_IS_INTEGER = True
    DATE_DIFFERENCE_IS_DAY_COUNT = True
    DOT_COMMANDS = True
    FLOAT_ROUND_TIES = None
    USE_SETS_DATABASE = True
    FORMAT_NAME_CASE = "element"
    INTEGER_CAST_TRUNCATES = True
    LOG_DEFAULTS_TO_BASE_10 = True
    ROUND_HALFWAY_IS_A_SETTING = True
    SET_TABLES = True
    STATISTICS_KEEP_DECIMAL = True
    TEMPORARY_ROWS_DELETED_ON_COMMIT = True
    TEXT_CASE_IS_AN_ATTRIBUTE = True
    TEXT_IGNORES_TRAILING_BLANKS = True

    class Parser(Teradata.Parser):
        # CASE_N's NO CASE / UNKNOWN cases are not expressions: sqlglot stops at them.
        FUNCTION_PARSERS = {
            **Teradata.Parser.FUNCTION_PARSERS,
            "CASE_N": _parse_case_n,
            # sqlglot's RANGE_N stops at a second range, NO RANGE and UNKNOWN.
            "RANGE_N": _parse_range_n,
        }
        PROPERTY_PARSERS = {
            **Teradata.Parser.PROPERTY_PARSERS,
            "PARTITION BY": _parse_partition_by,
            "MAP": _parse_amp_map,
        }

        def _parse_create(self) -> exp.Expr:
            # CREATE JOIN INDEX: sqlglot keeps it as an opaque command. Its options (FALLBACK,
            # CHECKSUM = ..., MAP = ...) are storage; its query is read, to fail on bad SQL.
            texts = [token.text.upper() for token in self._tokens[self._index : self._index + 2]]
            if texts == ["RECURSIVE", "VIEW"]:
                return self._parse_recursive_view()
            if texts != ["JOIN", "INDEX"]:
                return super()._parse_create()
            self._advance(2)
            name = self._parse_table_parts()
            while self._match(TokenType.COMMA):
                while self._curr and self._curr.token_type not in (
                    TokenType.COMMA,
                    TokenType.ALIAS,
                ):
                    self._advance()
            if not self._match(TokenType.ALIAS):
                self.raise_error("CREATE JOIN INDEX ... AS SELECT: expected AS")
            self._parse_select()
            return self.expression(JoinIndex(this=name))

        def _parse_recursive_view(self) -> exp.Create:
            """CREATE / REPLACE RECURSIVE VIEW v (c, ...) AS (seed UNION ALL recursive): as
            the SQL standard defines a recursive view, the view of ``WITH RECURSIVE v (c, ...)
            AS (query) SELECT c, ... FROM v``. Teradata allows UNION ALL as the only set
            operator of the definition (SQL Data Definition Language, CREATE RECURSIVE VIEW:
            "Recursive View Definition Restrictions"); another one is Teradata's error."""
            replace = self._prev.token_type == TokenType.REPLACE
            recursive = self._curr
            self._advance(2)  # RECURSIVE VIEW
            name = self._parse_table_parts(schema=True)
            columns = (
                self._parse_wrapped_id_vars()
                if self._curr and self._curr.token_type == TokenType.L_PAREN
                else []
            )
            if not self._match(TokenType.ALIAS):
                self.raise_error("CREATE RECURSIVE VIEW ... AS (query): expected AS")
            query = self._parse_select(nested=True)
            while isinstance(query, exp.Subquery) and not query.alias:
                query = query.this
            if not isinstance(query, exp.Query):
                self.raise_error("CREATE RECURSIVE VIEW ... AS (query): expected a query")
            for operation in query.find_all(exp.SetOperation):
                if not isinstance(operation, exp.Union) or operation.args.get("distinct"):
                    written = {exp.Union: "UNION", exp.Intersect: "INTERSECT"}.get(
                        type(operation), "EXCEPT"
                    )
                    self.raise_error(
                        f"RECURSIVE VIEW {name.sql(self.dialect)} with {written}: Teradata "
                        "allows UNION ALL as the only set operator of a recursive view and "
                        "rejects the definition; write UNION ALL",
                        recursive,
                    )
            bare = exp.to_identifier(name.name, quoted=name.this.quoted)
            if name.args.get("db"):
                # The CTE is named without the database: the definition's own reads follow it.
                for read in query.find_all(exp.Table):
                    if read.name.lower() == name.name.lower() and (
                        read.db.lower() == name.db.lower()
                    ):
                        read.replace(exp.Table(this=bare.copy(), alias=read.args.get("alias")))
            cte = exp.CTE(
                this=query,
                alias=exp.TableAlias(this=bare.copy(), columns=[c.copy() for c in columns]),
            )
            outer = exp.select(*([c.copy() for c in columns] or ["*"]))
            outer = outer.from_(exp.Table(this=bare.copy()))
            outer.set("with_", exp.With(expressions=[cte], recursive=True))
            this = exp.Schema(this=name, expressions=columns) if columns else name
            return self.expression(
                exp.Create(this=this, kind="VIEW", replace=replace, expression=outer)
            )

        def _parse_types(self, *args, **kwargs) -> exp.Expr | None:
            parsed = super()._parse_types(*args, **kwargs)
            self._last_type = parsed
            return parsed

        def _parse_cast(self, strict: bool, safe: bool | None = None) -> exp.Expr:
            # sqlglot reads CAST(s AS TIME FORMAT '...') and CAST(s AS TIMESTAMP FORMAT '...')
            # both as StrToTime: keep the type the text is read as.
            self._last_type = None
            cast = super()._parse_cast(strict, safe)
            target = self._last_type
            if isinstance(cast, exp.StrToTime) and isinstance(target, exp.DataType):
                cast.set("target_type", target)
            if isinstance(cast, exp.StrToDate):
                # CAST(x AS DATE FORMAT '...'): a date or timestamp x is converted as by a
                # CAST without FORMAT (the phrase only says how the DATE is shown).
                cast.meta["format_phrase"] = True
            return cast

        def _date_format_follows(self, ahead: int = 0) -> bool:
            """Whether ``(DATE FORMAT '...')`` or ``(DATE, FORMAT '...')`` comes ``ahead``
            tokens on: Teradata's conversion syntax, the CAST(x AS DATE FORMAT '...') of the
            value before it."""
            at = self._index + ahead
            kinds = [t.token_type for t in self._tokens[at : at + 7]]
            if kinds[:2] != [TokenType.L_PAREN, TokenType.DATE]:
                return False
            rest = kinds[3:] if kinds[2:3] == [TokenType.COMMA] else kinds[2:]
            return rest[:3] == [TokenType.FORMAT, TokenType.STRING, TokenType.R_PAREN]

        def _date_conversion(self, this: exp.Expr) -> exp.Expr:
            """``this (DATE [,] FORMAT '...')``, the tokens at the parser: as CAST(this AS
            DATE FORMAT '...') reads."""
            self._advance(2)  # ( DATE
            self._match(TokenType.COMMA)
            self._advance()  # FORMAT
            written = self._parse_string()
            self._match_r_paren()
            codes = format_time(
                written.name if written is not None else "",
                self.dialect.FORMAT_MAPPING or self.dialect.TIME_MAPPING,
                self.dialect.FORMAT_TRIE or self.dialect.TIME_TRIE,
            )
            converted = exp.StrToDate(this=this, format=exp.Literal.string(codes))
            converted.meta["format_phrase"] = True
            return converted

        def _parse_index(
            self, index: exp.Expr | None = None, anonymous: bool = False
        ) -> exp.Index | None:
            # PRIMARY AMP [INDEX] (columns): INDEX may be left out (sqlglot requires it).
            start = self._index
            if not (index or anonymous) and self._match_text_seq("PRIMARY", "AMP"):
                if self._curr and self._curr.token_type == TokenType.L_PAREN:
                    params = self._parse_index_params()
                    return self.expression(exp.Index(primary=True, amp=True, params=params))
                self._retreat(start)
            return super()._parse_index(index, anonymous)

        def _parse_index_params(self) -> exp.IndexParameters:
            # A Teradata index has no PARTITION BY of its own: one after PRIMARY INDEX (a) is
            # the table's, which sqlglot's index parameters would take.
            self._in_index_params = True
            try:
                return super()._parse_index_params()
            finally:
                self._in_index_params = False

        def _parse_partition_by(self) -> list[exp.Expr]:
            if getattr(self, "_in_index_params", False):
                return []
            return super()._parse_partition_by()

        def _parse_statement(self) -> exp.Expr | None:
            # A stored procedure's body (BEGIN ... ; ... END) is not one statement to sqlglot,
            # which fails somewhere inside it: say what the statement is instead.
            texts = [token.text.upper() for token in self._tokens[self._index : self._index + 4]]
            if texts[:1] in (["CREATE"], ["REPLACE"]):
                rest = texts[3:] if texts[1:3] == ["OR", "REPLACE"] else texts[1:]
                if rest[:1] in (["PROCEDURE"], ["MACRO"]):
                    self.raise_error(f"{rest[0]}: stored procedures and macros are not translated")
            self._refuse_substitution_variables()
            statement = super()._parse_statement()
            if isinstance(statement, exp.LockingStatement) and statement.expression is not None:
                # LOCKING ... FOR ACCESS / READ / WRITE <request>: the lock the request takes,
                # not what it computes. The request is read; the script notes the modifier.
                request = statement.expression
                request.meta[LOCKING_META] = statement.this.sql(self.dialect)
                return request
            return statement

        def _refuse_substitution_variables(self) -> None:
            # ${name} is a shell's or a scheduler's variable, replaced in the text before it
            # reaches Teradata; sqlglot fails at the brace.
            index = self._index
            while index + 3 < len(self._tokens):
                token = self._tokens[index]
                if token.token_type == TokenType.SEMICOLON:
                    return
                following = self._tokens[index + 1 : index + 4]
                if (
                    token.text == "$"
                    and following[0].token_type == TokenType.L_BRACE
                    and following[2].token_type == TokenType.R_BRACE
                ):
                    self.raise_error(
                        f"${{{following[1].text}}} is a variable that a tool substitutes into the "
                        "text before Teradata reads it, not SQL; substitute its value first",
                        token,
                    )
                index += 1

        def _parse_unary(self) -> exp.Expr | None:
            if (
                self._curr
                and self._curr.text.upper() == "PERIOD"
                and self._next
                and self._next.token_type == TokenType.STRING
            ):
                self.raise_error("PERIOD values are not translated: ANSI SQL has no period type")
            return super()._parse_unary()

        def _parse_function(self, *args, **kwargs) -> exp.Expr | None:
            texts = [t.text.upper() for t in self._tokens[self._index : self._index + 3]]
            if texts == ["JSON_TABLE", "(", "ON"]:
                # Teradata's table operator, not SQL/JSON's JSON_TABLE: sqlglot fails at ON.
                self.raise_error(
                    "JSON_TABLE (ON query USING ROWEXPR(...) COLEXPR(...)): Teradata's table "
                    "operator of rows at a JSON path is not translated; neither engine has "
                    "JSON_TABLE, and its columns' paths and types are a JSON text"
                )
            # `c (NOT CS)` is column c with an attribute, not a call of c: sqlglot's own
            # reading of `c (FORMAT '...')`. A known function's name is still a call.
            if self._curr and self._curr.text.upper() not in self.FUNCTIONS | self.FUNCTION_PARSERS:
                texts = [t.text.upper() for t in self._tokens[self._index + 1 : self._index + 5]]
                if texts[:1] == ["("] and texts[1:2] == ["NOT"]:
                    texts = texts[:1] + texts[2:]
                if texts[1:2] and texts[1] in _CASE_ATTRIBUTES and texts[2:3] == [")"]:
                    return None
                if self._date_format_follows(1):
                    return None  # `c (DATE FORMAT '...')` converts column c
            return super()._parse_function(*args, **kwargs)

        def _parse_column_ops(self, this: exp.Expr | None) -> exp.Expr | None:
            # sqlglot reads the FORMAT and TITLE attributes after an expression, not the
            # case attribute: it takes `'a' (NOT CASESPECIFIC)` for a call of 'a'.
            this = super()._parse_column_ops(this)
            while this is not None and self._curr and self._curr.token_type == TokenType.L_PAREN:
                if self._date_format_follows():
                    this = super()._parse_column_ops(self._date_conversion(this))
                    continue
                start = self._index
                self._advance()
                negated = self._match(TokenType.NOT)
                if not (self._match_texts(_CASE_ATTRIBUTES) and self._match(TokenType.R_PAREN)):
                    self._retreat(start)
                    break
                this = self.expression(CaseSpecific(this=this, not_=bool(negated)))
                this = super()._parse_column_ops(this)
            return this

    class Tokenizer(Teradata.Tokenizer):
        KEYWORDS = {
            **Teradata.Tokenizer.KEYWORDS,
            "BYTEINT": TokenType.TINYINT,
            "FLOAT": TokenType.DOUBLE,
            "REAL": TokenType.DOUBLE,
        }


class PlumblineBigQuery(BigQuery, Semantics):
    # "Aggregate functions", AVG: NUMERIC in, NUMERIC (DECIMAL(38, 9)) out; "Numeric types":
    # a NUMERIC holds 9 decimal places. How a quotient's or an average's 9th place is
    # rounded is not documented (the rounding modes of NUMERIC(P, S) columns apply to
    # values written to them, not to arithmetic).
    EXACT_QUOTIENT_UNDOCUMENTED = (
        "BigQuery documents a NUMERIC quotient and AVG of NUMERIC as NUMERIC (9 places) but "
        "not how their 9th place is rounded"
    )
    ARRAYS_ARE_TYPED = True
    CORR_OF_CONSTANT_IS_NAN = True
    DATE_DIFF_WEEKS_START_SUNDAY = True
    DATE_NAMES_ARE_ENGLISH = True
    DATE_PLUS_INTERVAL_IS_TIMESTAMP = True
    DATETIME_FORMAT = "percent"
    DAY_OF_WEEK_OF_SUNDAY = 1
    FORMATTED_TIMESTAMPS_IN_UTC = True
    INITCAP_WORDS_DOCUMENTED = True
    INTERVAL_MONTHS_CLAMP = True
    ISO_TIMESTAMP_STRINGS = True
    UNPADDED_DATE_STRINGS = True
    LIKE_BACKSLASH_ESCAPES = True
    LIKE_BACKSLASH_ESCAPES_AT_RUN_TIME = True
    LISTAGG_DEFAULT_SEPARATOR = ","
    PARSED_DATES_START_AT_EPOCH = True
    QUERY_PARAMETERS = True
    REGEX_EXTRACT_RETURNS_ITS_GROUP = True
    SCRIPT_VARIABLES = True
    SECOND_PART_IS_WHOLE = True  # EXTRACT(SECOND) is an INT64, 0 to 59
    TEMP_FUNCTIONS = True
    TEXT_TO_NUMBER_IS_DOCUMENTED = True
    TRIM_REMOVES_WHITESPACE = True
    VARIABLES_ARE_BARE_NAMES = True
    WEEKDAY_WEEK_PARTS = True
    WILDCARD_TABLES = True

    class Tokenizer(BigQuery.Tokenizer):
        KEYWORDS = {**BigQuery.Tokenizer.KEYWORDS, "FLOAT": TokenType.DOUBLE}


class StorageOption(exp.Property):
    """A table option that says how the table is stored, never which rows it holds (T-SQL
    and Synapse: DISTRIBUTION = HASH(k), CLUSTERED COLUMNSTORE INDEX, HEAP, PARTITION (...),
    TEXTIMAGE_ON [PRIMARY]); ``this``: the option as written."""

    arg_types = {"this": True, "place": False}

    @property
    def name(self) -> str:
        return self.this


class StorageColumnOption(exp.Expression, exp.ColumnConstraintKind):
    """A column option of storage or replication (T-SQL ROWGUIDCOL, SPARSE)."""

    arg_types = {"this": True}


class SessionSetting(exp.Expression):
    """T-SQL ``SET OPTION [, OPTION ...] value``: a session setting (not a variable's).
    ``expressions``: the options' names, upper case (``TRANSACTION ISOLATION LEVEL``,
    ``STATISTICS IO``); ``value``: the value as written, upper case unless quoted (``ON``,
    ``1``, ``DMY``, ``British``); ``variable``: whether the value is a @variable's."""

    arg_types = {"expressions": True, "value": True, "variable": False}


# The options of T-SQL's SET statements, as Microsoft lists them ("SET statements
# (Transact-SQL)"): https://learn.microsoft.com/sql/t-sql/statements/set-statements-transact-sql
TSQL_SESSION_OPTIONS = frozenset(
    {
        "ANSI_DEFAULTS", "ANSI_NULL_DFLT_OFF", "ANSI_NULL_DFLT_ON", "ANSI_NULLS", "ANSI_PADDING",
        "ANSI_WARNINGS", "ARITHABORT", "ARITHIGNORE", "CONCAT_NULL_YIELDS_NULL", "CONTEXT_INFO",
        "CURSOR_CLOSE_ON_COMMIT", "DATEFIRST", "DATEFORMAT", "DEADLOCK_PRIORITY",
        "FIPS_FLAGGER", "FMTONLY", "FORCEPLAN", "IDENTITY_INSERT", "IMPLICIT_TRANSACTIONS",
        "LANGUAGE", "LOCK_TIMEOUT", "NOCOUNT", "NOEXEC", "NUMERIC_ROUNDABORT", "OFFSETS",
        "PARSEONLY", "QUERY_GOVERNOR_COST_LIMIT", "QUOTED_IDENTIFIER",
        "REMOTE_PROC_TRANSACTIONS", "RESULT_SET_CACHING", "ROWCOUNT", "SHOWPLAN_ALL",
        "SHOWPLAN_TEXT", "SHOWPLAN_XML", "STATISTICS", "TEXTSIZE", "TRANSACTION", "XACT_ABORT",
    }
)  # fmt: skip
_SETTING_VALUE_TOKENS = frozenset(
    {TokenType.NUMBER, TokenType.STRING, TokenType.NATIONAL_STRING, TokenType.VAR, TokenType.ON}
)


# BEGIN followed by these is a statement, not a block.
_NOT_BLOCKS = frozenset({"CONVERSATION", "DIALOG", "DISTRIBUTED", "TRAN", "TRANSACTION"})


def _block_end(
    tokens: list[Token], begin: int, chunks: list[list[Token]], next_chunk: int
) -> tuple[list[Token], int | None, int] | None:
    """The tokens between the BEGIN at ``tokens[begin]`` and its END (a ``;`` between the
    parser's chunks, which dropped them), the index of the chunk holding the END (None: this
    one) and the END's index there; None without a matching END."""
    body: list[Token] = []
    depth = 0
    chunk: int | None = None
    current, position = tokens, begin
    while True:
        while position < len(current):
            token = current[position]
            following = current[position + 1].text.upper() if position + 1 < len(current) else ""
            if (
                token.token_type == TokenType.BEGIN and following not in _NOT_BLOCKS
            ) or token.token_type == TokenType.CASE:
                depth += 1
            elif token.token_type == TokenType.END:
                depth -= 1
                if not depth:
                    return body[1:], chunk, position
            body.append(token)
            position += 1
        index = next_chunk if chunk is None else chunk + 1
        if index >= len(chunks):
            return None
        last = body[-1] if body else current[-1]
        body.append(Token(TokenType.SEMICOLON, ";", last.line, last.col, last.end, last.end, []))
        chunk, current, position = index, chunks[index], 0


def _parse_tsql_session_setting(parser: TSQL.Parser) -> SessionSetting | None:
    """``SET`` (just read) of session options, or None (the parser is where it was)."""
    first = parser._curr
    if first is None or first.text.upper() not in TSQL_SESSION_OPTIONS:
        return None
    start = parser._index
    word = first.text.upper()
    names: list[str] = []
    if word == "TRANSACTION":
        parser._advance()
        if not parser._match_text_seq("ISOLATION", "LEVEL"):
            parser._retreat(start)
            return None
        words = []
        while parser._curr and parser._curr.token_type not in (TokenType.SEMICOLON,):
            if parser._curr.text.upper() not in (
                "READ",
                "UNCOMMITTED",
                "COMMITTED",
                "REPEATABLE",
                "SNAPSHOT",
                "SERIALIZABLE",
            ):
                break
            words.append(parser._curr.text.upper())
            parser._advance()
        return parser.expression(
            SessionSetting(
                expressions=[exp.var("TRANSACTION ISOLATION LEVEL")], value=exp.var(" ".join(words))
            )
        )
    if word == "STATISTICS":
        parser._advance()
        while parser._curr and parser._curr.text.upper() in ("IO", "TIME", "XML", "PROFILE"):
            names.append(f"STATISTICS {parser._curr.text.upper()}")
            parser._advance()
            if not parser._match(TokenType.COMMA):
                break
    elif word == "IDENTITY_INSERT":
        parser._advance()
        parser._parse_table_parts()
        names.append(word)
    else:
        while parser._curr and parser._curr.text.upper() in TSQL_SESSION_OPTIONS:
            names.append(parser._curr.text.upper())
            parser._advance()
            if not parser._match(TokenType.COMMA):
                break
    negative = parser._match(TokenType.DASH)
    token = parser._curr
    variable = token is not None and token.token_type == TokenType.PARAMETER
    if variable:
        parser._advance()
        token = parser._curr
    if not names or token is None or token.token_type not in _SETTING_VALUE_TOKENS:
        parser._retreat(start)
        return None
    parser._advance()
    quoted = token.token_type in (TokenType.STRING, TokenType.NATIONAL_STRING)
    value = ("-" if negative else "") + (token.text if quoted else token.text.upper())
    return parser.expression(
        SessionSetting(
            expressions=[exp.var(name) for name in names], value=exp.var(value), variable=variable
        )
    )


class PlumblineTSQL(TSQL, Semantics):
    # "Constants": "decimal constants are represented by a string of numbers that are not
    # enclosed in quotation marks and contain a decimal point" (1894.1204, 2.0); "float and
    # real constants are represented by using scientific notation" (101.5E5)
    DECIMAL_LITERAL_IS_EXACT = True
    EXPONENT_LITERAL_IS_FLOAT = True
    # "Precision, scale, and length": e1 / e2 is decimal(p1 - s1 + s2 + max(6, s1 + p2 + 1),
    # max(6, s1 + p2 + 1)), over 38 digits cut keeping the integral part and at least 6
    # places; "AVG": decimal category (p, s) returns decimal(38, max(s, 6)). Neither says
    # whether the last digit is rounded or cut.
    EXACT_QUOTIENT_UNDOCUMENTED = (
        "SQL Server documents the type of a decimal quotient and of AVG of decimal(p, s) "
        "(decimal(38, max(s, 6))), but not whether their last digit is rounded or cut"
    )
    # "AVG": tinyint, smallint and int return int, bigint bigint; "If the sum exceeds the
    # maximum value for the data type of the return value, AVG() will return an error."
    AVERAGE_OF_INT_IS_INT = True
    CONCAT_SKIPS_NULLS = True
    IF_BLOCKS = True
    DATE_DIFF_COUNTS_TIME_BOUNDARIES = True
    DATE_DIFF_WEEKS_START_SUNDAY = True
    DATE_NUMBERS_ARE_INT = True
    DATE_STRING_TYPE = "TIMESTAMP"
    DATETIME_FORMAT = "dotnet"
    DATETIME_PLUS_NUMBER_ADDS_DAYS = True
    DATETIME_TICKS = True
    FLOAT_PRECISION_PICKS_WIDTH = True
    GREATEST_IGNORES_NULLS = True
    INSERT_CHECKS_TEXT_LENGTH = True
    INTEGER_CAST_TRUNCATES = True
    LIKE_BRACKET_CLASSES = True
    REPEAT_CUTS_AT_8000_BYTES = True
    REPEAT_OF_NEGATIVE_IS_NULL = True
    ROUND_MODE_TRUNCATES = True
    SCRIPT_VARIABLES = True
    SECOND_PART_IS_WHOLE = True  # DATEPART(second, x) is an int
    STRING_CASTS_TRUNCATE = True
    TEXT_COMPARES_BY_COLLATION = True
    TEXT_IGNORES_TRAILING_BLANKS = True
    TRANSLATE_LENGTHS_MUST_MATCH = True
    UNPADDED_DATE_STRINGS = True
    UNSIZED_STRINGS_ARE_SHORT = True
    USE_SETS_DATABASE = True
    VARCHAR_MAX_IS_UNBOUNDED = True
    WEEKS_START_ON_DATEFIRST = True

    class Parser(TSQL.Parser):
        FUNCTIONS = {
            **TSQL.Parser.FUNCTIONS,
            "GETUTCDATE": _tsql_utc_clock("GETUTCDATE"),
            "SYSUTCDATETIME": _tsql_utc_clock("SYSUTCDATETIME"),
        }
        # SSMS's and Synapse's table options say how a table is stored, never which rows it
        # holds: WITH (DISTRIBUTION = HASH(k), CLUSTERED COLUMNSTORE INDEX ORDER (k), HEAP,
        # PARTITION (k RANGE RIGHT FOR VALUES (...))), TEXTIMAGE_ON [PRIMARY]. sqlglot stops
        # at most of them and keeps the whole CREATE TABLE as an opaque command.
        PROPERTY_PARSERS = {
            **TSQL.Parser.PROPERTY_PARSERS,
            "CLUSTERED": lambda self: self._parse_storage_option(),
            "CLUSTERED INDEX": lambda self: self._parse_storage_option(),
            "DISTRIBUTION": lambda self: self._parse_storage_option(),
            "FILESTREAM_ON": lambda self: self._parse_storage_place(),
            "HEAP": lambda self: self._parse_storage_option(),
            "PARTITION": lambda self: self._parse_storage_partition(),
            "TEXTIMAGE_ON": lambda self: self._parse_storage_place(),
        }
        # Column options of storage or replication: ROWGUIDCOL, SPARSE.
        CONSTRAINT_PARSERS = {
            **TSQL.Parser.CONSTRAINT_PARSERS,
            "ROWGUIDCOL": lambda self: self.expression(
                StorageColumnOption(this=exp.var("ROWGUIDCOL"))
            ),
            "SPARSE": lambda self: self.expression(StorageColumnOption(this=exp.var("SPARSE"))),
        }

        def _parse_storage_option(self) -> StorageOption:
            """The option whose first word was just read, up to the next ``,`` or ``)`` at its
            own depth, kept as written."""
            start = self._prev
            depth = 0
            while self._curr:
                kind = self._curr.token_type
                if kind == TokenType.L_PAREN:
                    depth += 1
                elif kind == TokenType.R_PAREN:
                    if not depth:
                        break
                    depth -= 1
                elif kind == TokenType.COMMA and not depth:
                    break
                self._advance()
            return self.expression(StorageOption(this=self._find_sql(start, self._prev)))

        def _parse_storage_partition(self) -> exp.Expr | None:
            # Synapse's PARTITION (k RANGE RIGHT FOR VALUES (...)) inside WITH (...); the base
            # parser's PARTITION OF (PostgreSQL) otherwise.
            if self._curr and self._curr.token_type == TokenType.L_PAREN:
                return self._parse_storage_option()
            return super().PROPERTY_PARSERS["PARTITION"](self)

        def _parse_storage_place(self) -> StorageOption:
            # TEXTIMAGE_ON [PRIMARY]: a filegroup, as ON [PRIMARY] is.
            start = self._prev
            self._parse_id_var(any_token=True)
            return self.expression(
                StorageOption(this=self._find_sql(start, self._prev), place=True)
            )

        def _parse_if(self) -> exp.Expr | None:
            # IF <condition> <statement> [ELSE <statement>], where a statement may be BEGIN
            # ... END: sqlglot reads every statement after the IF into its block.
            start = self._index
            condition = self._parse_condition()
            true = self._parse_if_branch() if condition is not None else None
            if true is None:
                self._retreat(start)
                return super()._parse_if()
            false = self._parse_if_branch() if self._match(TokenType.ELSE) else None
            return self.expression(exp.IfBlock(this=condition, true=true, false=false))

        def _parse_if_branch(self) -> exp.Block | None:
            """One statement, or the statements between BEGIN and its END (across ``;``)."""
            if not (self._curr and self._curr.token_type == TokenType.BEGIN):
                statement = self._parse_statement()
                return self.expression(exp.Block(expressions=[statement])) if statement else None
            if self._next and self._next.text.upper() in _NOT_BLOCKS:
                return None  # BEGIN TRANSACTION, ...: a statement of its own
            found = _block_end(self._tokens, self._index, self._chunks, self._chunk_index)
            if found is None:
                return None
            body, chunk, end = found
            inner = type(self)(error_level=self.error_level, dialect=self.dialect)
            statements = [s for s in inner.parse(body, self.sql) if s is not None]
            if chunk is not None:  # the END is in a later chunk: continue from there
                self._chunk_index = chunk + 1
                self._tokens = self._chunks[chunk]
                self._tokens_size = len(self._tokens)
            self._index = end
            self._advance()
            return self.expression(exp.Block(expressions=statements))

        def _parse_set(self, unset: bool = False, tag: bool = False) -> exp.Expr:
            # SET NOCOUNT ON, SET NOCOUNT, XACT_ABORT ON, SET TRANSACTION ISOLATION LEVEL ...:
            # session settings, which sqlglot reads as assignments or not at all
            # (sql/session.py judges each); SET @v = ... is a variable's.
            setting = _parse_tsql_session_setting(self)
            return setting if setting is not None else super()._parse_set(unset, tag)

    class Tokenizer(TSQL.Tokenizer):
        # FLOAT(n) with n <= 24 is 32-bit: the FLOAT-WIDTH rule narrows it.
        # GO is the tools' batch separator, found where it stands alone on its line
        # (sql/client_commands.py), not a keyword that swallows the statement after it.
        KEYWORDS = {
            **{k: v for k, v in TSQL.Tokenizer.KEYWORDS.items() if k != "GO"},
            "FLOAT": TokenType.DOUBLE,
        }

        def tokenize(self, sql: str) -> list[Token]:
            tokens = super().tokenize(sql)
            return batch_separators(tokens, sql) if may_hold_go(sql) else tokens


class PlumblineOracle(Oracle, Semantics):
    # "Numeric Literals": a number written without the f or d suffix (25, +6.34, 0.5,
    # 25e-03) is a NUMBER; one with an exponent is refused where a quotient or AVG reads it
    # (typed DOUBLE by the type system here)
    DECIMAL_LITERAL_IS_EXACT = True
    # "Numeric Data Types": NUMBER holds up to 38 significant digits wherever the point is (a
    # decimal floating point): a quotient or an average has as many as it needs, which no
    # DECIMAL(p, s) holds.
    EXACT_QUOTIENT_UNDOCUMENTED = (
        "Oracle divides NUMBERs (and averages them) in decimal floating point of 38 "
        "significant digits, which no exact ANSI type holds"
    )
    # CURRENT_TIMESTAMP(precision): "If you omit precision, then the default is 6"; 0 to 9,
    # as TIMESTAMP(fractional_seconds_precision) takes (SQL Reference: CURRENT_TIMESTAMP)
    CLOCK_MAX_PRECISION = 9
    CONCAT_SKIPS_NULLS = True
    DATE_DIFFERENCE_IS_DAY_COUNT = True
    DATE_HOLDS_TIME = True
    DATE_TEXT_READ_BY_NLS_FORMAT = True
    DUAL_IS_NO_TABLE = True
    EMPTY_STRING_IS_NULL = True
    FLOAT_IS_DECIMAL = True
    FLOAT_ROUND_TIES = "even"
    FORMAT_NAME_CASE = "element"
    LISTAGG_DEFAULT_SEPARATOR = ""
    LISTAGG_NULL_SEPARATOR_IS_NONE = True
    OUTER_JOIN_MARKS = True
    PAD_COUNTS_DISPLAY_COLUMNS = True
    PERCENTILE_OF_DECIMAL_IS_DECIMAL = True
    PERCENTILE_OF_DOUBLE_IS_DOUBLE = True
    QUOTIENT_IS_DECIMAL_FLOAT = True
    REVERSE_REVERSES_BYTES = True
    STATISTICS_KEEP_DECIMAL = True
    TIMESTAMP_DIFFERENCE_IS_INTERVAL = True
    TRUNCATED_WEEKS_START_MONDAY = True
    UNSIZED_DECIMAL_IS_FLOATING = True

    class Tokenizer(Oracle.Tokenizer):
        KEYWORDS = {
            **Oracle.Tokenizer.KEYWORDS,
            "FLOAT": TokenType.DECFLOAT,
            "REAL": TokenType.DECFLOAT,
        }


# The legacy dialects plumbline translates, in the order reports and the rule catalog list
# them: the one list every rule, command and report reads.
SOURCE_DIALECTS: dict[str, type[Dialect] | str] = {
    "snowflake": PlumblineSnowflake,
    "tsql": PlumblineTSQL,
    "teradata": PlumblineTeradata,
    "oracle": PlumblineOracle,
    "bigquery": PlumblineBigQuery,
    "redshift": PlumblineRedshift,
}
DIALECTS: tuple[str, ...] = tuple(SOURCE_DIALECTS)


def semantics(dialect: str) -> type[Semantics]:
    """The flags of source dialect ``dialect`` (its class); for a name that is no source
    dialect, the defaults, so that such a name has none of the dialects' particular readings
    (as a comparison with a dialect's name never held for it)."""
    found = SOURCE_DIALECTS.get(dialect)
    return found if isinstance(found, type) and issubclass(found, Semantics) else Semantics
