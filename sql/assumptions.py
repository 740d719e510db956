"""Server settings that SQL text cannot show, under which a legacy file is translated.

Each rule that depends on one of these reports a ``warning[RULE]`` naming the value it
assumed, so a reviewer sees every assumption in the translation report. The values live in
``sql/assumptions.yaml`` (reviewed with the SQL); ``plumbline translate --assume`` overrides
them for one command.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, fields, replace
from pathlib import Path

import yaml

from sql import yaml_text
from sql.paths import DEFAULT_ASSUMPTIONS_PATH

WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")


# Name levels above a table, outermost first, and the assumption holding each one's default.
NAMESPACE_LEVELS: dict[str, tuple[str, ...]] = {
    "bigquery": ("bigquery_project", "bigquery_dataset"),
    "oracle": ("oracle_schema",),
    "redshift": ("redshift_database", "redshift_schema"),
    "snowflake": ("snowflake_database", "snowflake_schema"),
    "teradata": ("teradata_database",),
    "tsql": ("tsql_database", "tsql_schema"),
}
NAMESPACE_FIELDS = frozenset(name for levels in NAMESPACE_LEVELS.values() for name in levels)
# Settings whose value is one of a few names.
CHOICES: dict[str, tuple[str, ...]] = {
    "snowflake_timestamp_type_mapping": ("TIMESTAMP_NTZ", "TIMESTAMP_LTZ", "TIMESTAMP_TZ"),
    "teradata_round_halfway_mag_up": ("FALSE", "TRUE"),
    "teradata_session_mode": ("TERA", "ANSI"),
    "tsql_collation_case": ("SENSITIVE", "INSENSITIVE"),
}
_NAME = re.compile(r"[\w$ -]*")
# Settings that are a free word (a language name).
TEXT_FIELDS = frozenset({"date_language"})
# Settings that are an Oracle datetime format model ('DD-MON-RR', 'YYYY-MM-DD HH24:MI:SS').
FORMAT_FIELDS = frozenset({"oracle_nls_date_format"})
_FORMAT_MODEL = re.compile(r"[A-Za-z0-9 ./,;:_-]+")
# The dialects whose servers have each setting: the only files a translation may record it
# for (a Snowflake file never depends on T-SQL's DATEFIRST). BigQuery's month and day names
# are English by definition, so it has no date language.
SETTING_DIALECTS: dict[str, tuple[str, ...]] = {
    "date_language": ("oracle", "redshift", "snowflake", "teradata", "tsql"),
    "oracle_nls_date_format": ("oracle",),
    "oracle_number_scale": ("oracle",),
    "snowflake_timestamp_type_mapping": ("snowflake",),
    "snowflake_week_start": ("snowflake",),
    "teradata_round_halfway_mag_up": ("teradata",),
    "teradata_session_mode": ("teradata",),
    "tsql_collation_case": ("tsql",),
    "tsql_datefirst": ("tsql",),
    **{name: (dialect,) for dialect, levels in NAMESPACE_LEVELS.items() for name in levels},
}


def dialect_settings(source: str) -> frozenset[str]:
    """The settings the servers of dialect ``source`` have (``SETTING_DIALECTS`` read the
    other way)."""
    return frozenset(name for name, owners in SETTING_DIALECTS.items() if source in owners)


class AssumptionError(ValueError):
    """An assumption has a value that no server can have; the message names it."""


@dataclass(frozen=True)
class Assumptions:
    # T-SQL SET DATEFIRST: the first day of the week, 1 = Monday ... 7 = Sunday (us_english: 7).
    tsql_datefirst: int = 7
    # Snowflake WEEK_START: 0 = legacy (Sunday = 0 ... Saturday = 6), 1 ... 7 = weeks start
    # on Monday ... Sunday and DAYOFWEEK counts 1 ... 7 from there.
    snowflake_week_start: int = 0
    # Snowflake TIMESTAMP_TYPE_MAPPING: the type TIMESTAMP (and TO_TIMESTAMP) stands for.
    # Only TIMESTAMP_NTZ (the default) has an exact ANSI form.
    snowflake_timestamp_type_mapping: str = "TIMESTAMP_NTZ"
    # The session language of month and day names in format strings (Oracle
    # NLS_DATE_LANGUAGE, Teradata's and Snowflake's session language). Only ENGLISH names
    # are translated; BigQuery's are English by definition.
    date_language: str = "ENGLISH"
    # Oracle's NLS_DATE_FORMAT: the format a string is read by where Oracle converts it to a
    # DATE without a format (a comparison with a DATE column, CAST(text AS DATE)). Oracle
    # derives the default from NLS_TERRITORY (Database Reference, "NLS_DATE_FORMAT"): for its
    # default territory AMERICA that is DD-MON-RR, under which '1999-02-01' is an error.
    oracle_nls_date_format: str = "DD-MON-RR"
    # The most decimal places of a number Oracle's TO_NUMBER(text) reads without a format.
    # Oracle returns NUMBER without a precision, a decimal floating point of 38 significant
    # digits, which no ANSI type holds; under this assumption the text is read as
    # DECIMAL(38, oracle_number_scale): the digits past it would be rounded (the engines round
    # half away from zero), and a number of more than 38 - scale integer digits stops the
    # query. Not a server setting but a fact of the data, with a warning wherever it is read.
    oracle_number_scale: int = 10
    # Teradata's session mode (the DBS Control SessionMode default, or BTEQ's .SET SESSION
    # TRANSACTION): TERA or ANSI. It decides what a CREATE TABLE without SET or MULTISET
    # makes (TERA: SET, ANSI: MULTISET) and what INSERT ... SELECT does with a duplicate row
    # in a SET table (TERA: drops it, ANSI: fails), and the case attribute of character data
    # not declared otherwise (TERA: NOT CASESPECIFIC, compared without case, as DBS Control's
    # DefaultCaseSpec FALSE, its default, leaves it; ANSI: CASESPECIFIC).
    teradata_session_mode: str = "TERA"
    # Teradata's DBS Control field RoundHalfwayMagUp: how a DECIMAL value exactly halfway
    # between two results rounds (ROUND included). FALSE, its default: to the even last digit
    # (2.5 -> 2); TRUE: away from zero (2.5 -> 3).
    teradata_round_halfway_mag_up: str = "FALSE"
    # Whether the T-SQL collation of compared text is case-sensitive (a _CS or _BIN
    # collation) or not (_CI, as SQL Server's default install collations are). SENSITIVE
    # translates as the engines compare (by code point), with a warning at every comparison
    # it decides; under INSENSITIVE a comparison where case matters is refused, since a
    # case-insensitive collation compares by culture rules no standard function reproduces.
    tsql_collation_case: str = "SENSITIVE"
    # The default namespace an unqualified table name resolves in: the session's current
    # database/schema (project/dataset in BigQuery), which the SQL text cannot show. Empty
    # means unknown: a name then resolves only if exactly one catalog table matches it.
    # Snowflake, T-SQL and Redshift have documented defaults (PUBLIC, dbo, public).
    snowflake_database: str = ""
    snowflake_schema: str = "PUBLIC"
    tsql_database: str = ""
    tsql_schema: str = "dbo"
    teradata_database: str = ""
    oracle_schema: str = ""
    bigquery_project: str = ""
    bigquery_dataset: str = ""
    redshift_database: str = ""
    redshift_schema: str = "public"

    def __post_init__(self) -> None:
        if not (isinstance(self.tsql_datefirst, int) and 1 <= self.tsql_datefirst <= 7):
            raise AssumptionError(
                f"tsql_datefirst must be 1 (Monday) ... 7 (Sunday); got {self.tsql_datefirst!r}"
            )
        if not (isinstance(self.snowflake_week_start, int) and 0 <= self.snowflake_week_start <= 7):
            raise AssumptionError(
                "snowflake_week_start must be 0 (legacy) or 1 (Monday) ... 7 (Sunday); "
                f"got {self.snowflake_week_start!r}"
            )
        if not (isinstance(self.oracle_number_scale, int) and 0 <= self.oracle_number_scale <= 38):
            raise AssumptionError(
                "oracle_number_scale must be a number of decimal places, 0 ... 38; "
                f"got {self.oracle_number_scale!r}"
            )
        for name, choices in CHOICES.items():
            if getattr(self, name) not in choices:
                raise AssumptionError(
                    f"{name} must be one of {', '.join(choices)}; got {getattr(self, name)!r}"
                )
        if not (isinstance(self.date_language, str) and self.date_language.isalpha()):
            raise AssumptionError(
                f"date_language must be a language name; got {self.date_language!r}"
            )
        for name in FORMAT_FIELDS:
            value = getattr(self, name)
            if not isinstance(value, str) or not _FORMAT_MODEL.fullmatch(value):
                raise AssumptionError(
                    f"{name} must be a datetime format model (letters, digits, blanks and "
                    f"- / . , ; : _); got {value!r}"
                )
        for name in NAMESPACE_FIELDS:
            value = getattr(self, name)
            if not isinstance(value, str) or not _NAME.fullmatch(value):
                raise AssumptionError(
                    f"{name} must be an object name (letters, digits, _ $ - and spaces) "
                    f"or empty for unknown; got {value!r}"
                )

    def namespace(self, dialect: str) -> tuple[tuple[str, str], ...]:
        """The default (assumption name, value) of each name level above a table, outermost
        first: ``(("tsql_database", ""), ("tsql_schema", "dbo"))``."""
        return tuple((name, getattr(self, name)) for name in NAMESPACE_LEVELS.get(dialect, ()))

    def with_overrides(self, overrides: dict[str, str]) -> Assumptions:
        """``{"tsql_datefirst": "1"}`` (from ``--assume KEY=VALUE``) applied to these values."""
        known = {f.name for f in fields(self)}
        unknown = sorted(set(overrides) - known)
        if unknown:
            raise AssumptionError(
                f"unknown assumption {', '.join(unknown)}; known: {', '.join(sorted(known))}"
            )
        values: dict[str, int | str] = {}
        for key, value in overrides.items():
            if key in NAMESPACE_FIELDS:
                values[key] = str(value)
                continue
            if key in CHOICES or key in TEXT_FIELDS or key in FORMAT_FIELDS:
                values[key] = str(value).upper()
                continue
            try:
                values[key] = int(value)
            except ValueError:
                raise AssumptionError(f"{key} must be an integer; got {value!r}") from None
        return replace(self, **values)

    def key(self) -> str:
        """A stable text of every value, part of a stored translation's cache key."""
        return ",".join(f"{f.name}={getattr(self, f.name)}" for f in fields(self))


def load_assumptions(path: Path = DEFAULT_ASSUMPTIONS_PATH) -> Assumptions:
    if not path.is_file():
        return Assumptions()
    try:
        data = yaml_text.safe_load(path.read_text()) or {}
    except yaml.YAMLError as exc:
        raise AssumptionError(f"{path}: not valid YAML: {exc}") from None
    if not isinstance(data, dict):
        raise AssumptionError(f"{path}: expected a mapping of assumption: value")
    try:
        return Assumptions().with_overrides({str(k): str(v) for k, v in data.items()})
    except AssumptionError as exc:
        raise AssumptionError(f"{path}: {exc}") from None
