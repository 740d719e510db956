"""The rule catalog: one rule per proprietary construct, each rewriting, warning or refusing.

A rule matches sqlglot node types parsed from one or more source dialects. Rules run
bottom-up over the parsed tree, so a rule sees its children already in ANSI form, and
must return nodes the ANSI generator allows (``sql/ansi.py``).
"""

from __future__ import annotations

from sql.rules.base import (
    ALL_DIALECTS,
    EXAMPLE_LEGACY,
    EXAMPLE_OPAQUE,
    EXAMPLE_TABLES,
    RULES,
    Action,
    Apply,
    Context,
    Phase,
    Rule,
    apply_rules,
    example_catalog,
    rule,
    rules_for,
)

__all__ = [
    "ALL_DIALECTS",
    "EXAMPLE_LEGACY",
    "EXAMPLE_OPAQUE",
    "EXAMPLE_TABLES",
    "RULES",
    "Action",
    "Apply",
    "Context",
    "Phase",
    "Rule",
    "apply_rules",
    "example_catalog",
    "load_all",
    "rule",
    "rules_for",
]


def load_all() -> dict[str, Rule]:
    """Import every rule module so the catalog is complete; returns it sorted by id."""
    from sql.rules import (  # noqa: F401  (imported for their registrations)
        aggregated_arrays,
        aggregates,
        arrays,
        auto_dates,
        calendar,
        case_sensitivity,
        conditionals,
        conversions,
        date_strings,
        dates,
        day_arithmetic,
        dialect_specific,
        division,
        formats,
        functions,
        generators,
        instants,
        intervals,
        json_text,
        names,
        percentiles,
        portable_functions,
        portable_types,
        refusals,
        regex,
        regex_substr,
        safe_casts,
        scripting,
        set_types,
        strings,
        teradata_dates,
        teradata_formats,
        teradata_numbers,
        text_casts,
        text_groups,
        text_timestamps,
        tsql_datetime,
        tsql_datetimeoffset,
        tsql_smalldatetime,
        types,
        variant,
        wildcard_tables,
        windows,
    )

    return dict(sorted(RULES.items()))
