"""Generate docs/translation-rules.md from the rule catalog (``python -m sql.rules_doc``)."""

from __future__ import annotations

from pathlib import Path

import sqlglot

from sql.ansi import ALLOWED_EXPRESSIONS, Ansi
from sql.engines import ENGINES
from sql.features import NODE_FEATURES, Feature, features_of, spelling
from sql.portable import PORTABLE_FUNCTIONS
from sql.rules import Rule, load_all

DOC_PATH = Path(__file__).resolve().parent.parent / "docs" / "translation-rules.md"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


# What the refusals measured on ../shared/corpora (benchmarks/corpus_bench.py) are, and why
# each has no exact form, or which exact form is not built yet.
REFUSAL_CLASSES = (
    "**No exact form.** Approximate aggregates (`APPROX-AGG`) and sampling (`SAMPLE`) give "
    "engine-specific results. Procedural code (`PROC-STATEMENT`: DECLARE, loops, CREATE "
    "PROCEDURE), federated reads (BigQuery `EXTERNAL_QUERY`) and user-defined functions "
    "(`FN-UNKNOWN`) run outside the query. Named parameters (`@submission_date`, "
    "`ANSI-UNSUPPORTED` PARAMETER) are session values the SQL does not show. "
    "`TO_TIMESTAMP_LTZ` / `_TZ` depend on the session time zone.",
    "**Semantics the sources and engines disagree on.** `CORR`, `COVAR_*` and `REGR_*` "
    "of Oracle NUMBER or Teradata decimal arguments return decimals (`FN-PAIR-AGGREGATE` "
    "translates them over doubles); `MIN_BY` / `MAX_BY` pick an unspecified row on ties "
    "(translated with a guard that stops where the tied rows differ, `FN-MIN-BY`; refused "
    "for floats and the array form); the text of "
    "a float, a BigQuery NUMERIC, an Oracle or Teradata number or date, or a timestamp "
    "(`CAST-TO-TEXT`) follows per-dialect formatting; `TRY_CAST` / `SAFE_CAST` / "
    "`TRY_TO_NUMBER` / `TO_DATE` of a string (`FN-TRY-CAST`, `TSORDSTODATE`) follow each "
    "dialect's own string grammar (signs, spaces, hex, rounding) and format detection.",
    "**Types with no standard counterpart.** `GEOGRAPHY` and its `ST_*` functions and T-SQL "
    "`SQL_VARIANT` (`OPAQUE-TYPE`: they may be selected, counted or tested for NULL). A "
    "Snowflake `VARIANT` is JSON text in the lake: paths cast to strings or read by string "
    "functions, `IS NULL`, `ARRAY_SIZE` and `FLATTEN` over arrays translate to SQL/JSON "
    "(`VARIANT-PATH`, `VARIANT-NULL`, `VARIANT-ARRAY-SIZE`, `VARIANT-FLATTEN`: T821, T831, "
    "T832, T835), an `ARRAY_AGG` of strings that only `FLATTEN` reads to the standard's "
    "arrays (`AGGREGATED-ARRAY`); the rest is refused: a path compared, grouped, output or "
    "aggregated as a "
    "VARIANT, a JSON string cast to a number or a boolean (Snowflake's own conversions), "
    "`TO_VARCHAR` of one, `PARSE_JSON` (`VARIANT-PARSE-JSON`: Snowflake reads unquoted keys "
    "and refuses repeated ones), FLATTEN's "
    "KEY / PATH / THIS columns and options, and FLATTEN of an object (a row per key: it "
    "raises at run time).",
    "**Arrays that leave the query.** `ARRAY-OUTPUT`: BigQuery writes a NULL array into its "
    "results as an empty one and fails on an array holding a NULL element, where the standard "
    "keeps both; BigQuery arrays are translated inside the query (`ARRAY-UNNEST`, "
    "`ARRAY-ELEMENT`, `ARRAY-CARDINALITY`, `ARRAY-CONSTRUCTOR`, `ARRAY-AGG-ELEMENT`: S091, "
    "S098, T051). `ARRAY_AGG(DISTINCT ...)` has no standard form; `ARRAY_AGG(... IGNORE "
    "NULLS)` over only NULLs is an empty array in BigQuery and NULL in the standard, so it is "
    "translated under SAFE_ subscripts only. `LISTAGG(DISTINCT (subquery))` does not bind "
    "on DuckDB (`RENDER`).",
    "**Exact forms not built yet** (SQL:2016 has them: the next rules). A VARIANT path as a "
    "number (`v:n::int`): Snowflake's own conversion of JSON numbers and strings would need "
    "a type-checked exact form per target type; BigQuery `JSON_VALUE` / "
    "`JSON_EXTRACT_SCALAR` of a JSON string (the string form above applies, but BigQuery's "
    "result for invalid JSON text and for numbers is not documented exactly); BigQuery "
    "`STRUCT(...)` and `ARRAY(subquery)` constructors, `ARRAY_CONCAT`, `ARRAY_TO_STRING` "
    "(`SPLIT` with a literal delimiter is `BQ-SPLIT`); BigQuery `TIMESTAMP_DIFF` in sub-second "
    "units, `UNIX_MILLIS` and `UNIX_MICROS` (the engines' EXTRACT(SECOND) keep different "
    "fractions); "
    "`TO_DATE` / `TO_CHAR` with number formats; week numbers (ISO and others) in format "
    "strings; T-SQL `FORMAT` with a culture or fractions and CONVERT styles with names or milliseconds; "
    "`PERCENTILE_DISC`, `PERCENTILE_CONT` and `MEDIAN` as window functions.",
    "**Interpolated percentiles.** `PERCENTILE_CONT` and `MEDIAN` (`FN-PERCENTILE-CONT`, "
    "`FN-MEDIAN`) translate where the source documents its result type (Snowflake, Oracle; "
    "DOUBLE for Redshift); Redshift's and Teradata's of exact numbers, and Snowflake's for a "
    "fraction of more than 3 decimals (its rounding is not documented), are refused.",
    "**Not the translator's to solve.** `NAME-UNKNOWN`: tables the corpus has no schema "
    "for (335 of the 400 BigQuery ETL queries read Mozilla's generated telemetry tables, "
    "which the corpus does not hold); `PARSE`: syntax the dialect's parser rejects "
    "(mostly sqlfluff's deliberately unusual fixtures).",
)


# Diagnostics the translator reports outside the rule catalog (checks of the input, the
# catalog and the engine rendering), so that every id a report shows has an entry here.
OTHER_DIAGNOSTICS: dict[str, str] = {
    "CATALOG-ASSUMED": "`plumbline catalog import`: a Snowflake column declared TIMESTAMP is "
    "read as TIMESTAMP_NTZ (the default TIMESTAMP_TYPE_MAPPING), with a warning.",
    "CATALOG-CASE": "`plumbline catalog import`: a T-SQL column with a case-insensitive "
    "collation is imported with a warning: translation compares it as the tsql_collation_case "
    "assumption says. (A Teradata column's [NOT] CASESPECIFIC is kept in the catalog as "
    "`casespecific: true|false` and decides its comparisons: TD-CASESPECIFIC.)",
    "CATALOG-COLLISION": "`plumbline catalog import`: two legacy tables map to the same lake "
    "table; the import is refused naming both.",
    "CATALOG-DIALECT": "`plumbline catalog import`: a DDL dialect the importer does not read.",
    "CATALOG-DUPLICATE": "`plumbline catalog import`: a column declared twice, or a table "
    "declared again differently.",
    "CATALOG-EMPTY": "`plumbline catalog import`: a file that holds CREATE TABLE statements "
    "but declares no lake table (each one temporary, AS SELECT, or otherwise skipped) is an "
    "error at its first CREATE TABLE, never an import of nothing.",
    "CATALOG-OPAQUE": "`plumbline catalog import`: a column with no type, or a type with no "
    "exact ANSI form, is kept as declared (an opaque column: see `OPAQUE-TYPE`).",
    "CATALOG-PARSE": "`plumbline catalog import`: DDL the dialect's parser rejects, a CREATE "
    "TABLE it reads only as an opaque command (its table would be missing), or a CREATE TABLE "
    "under IF ... ELSE.",
    "CATALOG-SKIP": "`plumbline catalog import`: a statement that defines no lake table (not "
    "a CREATE TABLE, or a temporary table) is skipped with a note, as are BTEQ's dot "
    "commands, a USE db (naming the database of the tables after it), storage options (ON "
    "[PRIMARY], Synapse's WITH (DISTRIBUTION = ..., CLUSTERED COLUMNSTORE INDEX, ...)) and "
    "the IF guards SSMS writes around DDL (the statements under them are read).",
    "DIALECT": "The file's dialect (its folder under `sql/legacy/`, or `--from`) is not one the "
    "translator reads.",
    "NAME-AMBIGUOUS": "A table name that, completed with the default namespace "
    "(`sql/assumptions.yaml`), can name more than one catalog table is refused; qualify it or "
    "set the default with `--assume`.",
    "PORTABLE-STRICT": "`plumbline translate --strict` (`translate_script(..., strict=True)`): "
    "a call of the portable function set (see above) is refused, naming the function, and a "
    "run-time guard (RAISE_ERROR) naming the rule it guards for: a strict artifact is SQL:2016 "
    "alone.",
    "OPAQUE-TYPE": "A column whose type has no exact ANSI form (`GEOGRAPHY`, `SQL_VARIANT`, "
    "...) may be selected, counted or tested for NULL; used in an expression it is refused.",
    "RENDER": "The ANSI SQL cannot be rendered for the engine it runs on (an unknown engine, "
    "or a construct that engine would evaluate differently).",
    "SOURCE-SIZE": "The file is over the size limits (`sql/source_limits.py`: 10,000,000 "
    "bytes, 10,000 statements): refused before it is parsed, at the first statement over the "
    "limit; split it into several files.",
    "SOURCE-TEXT": "The file is not SQL text: bytes that are not UTF-8, or a NUL character "
    "(a binary or UTF-16 file).",
    "TEMPLATE": "A Jinja-templated file (`sql/templating.py`) that does not render: a syntax "
    "error, an undefined variable, an unknown `ref()`/`source()`, an `{% include %}` or another "
    "project's macro (not provided), what the sandbox refuses, or a render over its budget "
    "(`sql/template_sandbox.py`: wall time, values built, loop iterations, output); located in "
    "the template.",
}


def anchor(rule_id: str) -> str:
    """The fragment of ``rule_id``'s entry in docs/translation-rules.md: the slug GitHub (and
    most Markdown renderers) give its ``### `RULE-ID``` heading."""
    return rule_id.lower()


def rule_link(rule_id: str, doc: str) -> str:
    """``doc#anchor``: the link to ``rule_id``'s entry from where ``doc`` names the file."""
    return f"{doc}#{anchor(rule_id)}"


def output_features(rule: Rule) -> list[Feature]:
    """The SQL:2016 features the outputs of a rewrite rule's examples use."""
    if rule.action == "refuse":
        return []
    found: set[Feature] = set()
    for _dialect, _source, expected in rule.examples:
        found.update(features_of(sqlglot.parse_one(expected, read=Ansi)))
    return sorted(found)


def _features_cell(features: list[Feature]) -> str:
    return ", ".join(f"{fid} {name}" for fid, name in features) or "-"


def rules_markdown() -> str:
    rules = load_all()
    lines = [
        "# Translation rules",
        "",
        "Generated from the rule catalog in `sql/rules/` by `python -m sql.rules_doc`; "
        "a test fails when this file is stale. Each rule rewrites a construct to exact ANSI SQL, "
        "warns about an assumption, drops something with an info note, or refuses.",
        "",
        f"{len(rules)} rules, {sum(r.action == 'refuse' for r in rules.values())} of them refusals.",
        "",
        "The last column names the SQL:2016 features (ISO/IEC 9075-2 feature ids) that the "
        "rule's example outputs use beyond a basic query specification, so the target can be "
        "checked against the standard; `portable` marks the functions of the portable set "
        "(below), which are not in the standard.",
        "",
        "| rule | action | dialects | what it does | output uses (SQL:2016) |",
        "|---|---|---|---|---|",
    ]
    for rule in rules.values():
        lines.append(
            f"| `{rule.id}` | {rule.action} | {', '.join(rule.dialects)} | "
            f"{_cell(rule.description)} | {_cell(_features_cell(output_features(rule)))} |"
        )
    target: dict[Feature, list[str]] = {}
    for node_type in ALLOWED_EXPRESSIONS:
        feature = NODE_FEATURES.get(node_type)
        if feature is not None:
            target.setdefault(feature, []).append(spelling(node_type))
    lines += [
        "",
        "## The target's features",
        "",
        "Beyond a basic query specification, the ANSI target (`sql/ansi.py`) may emit:",
        "",
        "| feature | name | constructs |",
        "|---|---|---|",
    ]
    for (fid, name), constructs in sorted(target.items()):
        lines.append(f"| {fid} | {name} | {_cell(', '.join(sorted(set(constructs))))} |")
    lines += [
        "",
        "## The portable function set",
        "",
        "Functions outside SQL:2016 that the ANSI artifact may call (`sql/portable.py`; "
        "docs/architecture.md says why). Each has the one definition below, for every source "
        "and engine; `sql/render.py` writes each engine's exact form of it, and the rules "
        "write a call only where the source's function agrees with it (guarded, or refused, "
        "where it does not). Where a standard expression is exact, the rules write that "
        "instead (`FN-PAD`: LPAD with a literal length up to 256; `FN-REPEAT`: REPEAT with a "
        "literal count up to 4; `FN-SPLIT-PART`: parts 1 to 4). A translation lists the "
        "functions it calls (`portable_functions` in `plumbline translate --json`, in the "
        "translation manifest and in the ansi asset's metadata); `--strict` refuses them "
        "(`PORTABLE-STRICT`). RAISE_ERROR is a run-time guard's failure: where a result is "
        "exact for every row but an identifiable set, the rule writes the exact expression and "
        'stops the query on a row of that set (docs/architecture.md, "Run-time guards"); a '
        "translation lists the rules of its guards (`guards`).",
        "",
        "| function | definition | DuckDB | Spark |",
        "|---|---|---|---|",
    ]
    for function in PORTABLE_FUNCTIONS:
        native = [
            f"`{function.native[engine]}`" if function.native[engine] else "as written"
            for engine in ENGINES
        ]
        lines.append(
            f"| `{_cell(function.signature)}` | {_cell(function.definition)} | "
            f"{_cell(native[0])} | {_cell(native[1])} |"
        )
    lines += [
        "",
        "## Assumptions",
        "",
        "Where meaning depends on server settings the SQL text cannot show, the translation is "
        "made under the assumption below and every affected statement carries a warning with "
        "the rule id:",
        "",
    ]
    for rule in rules.values():
        if rule.action == "warn":
            lines.append(f"- `{rule.id}` ({', '.join(rule.dialects)}): {_cell(rule.description)}")
    lines += [
        "",
        "## Refusals",
        "",
        "These constructs are refused with `file:line:col: error[RULE]: message`:",
        "",
    ]
    for rule in rules.values():
        if rule.action == "refuse":
            lines.append(f"- `{rule.id}`: {_cell(rule.description)}")
    lines += ["", "## Refusal classes in the public corpora", ""]
    lines += [f"- {_cell(text)}" for text in REFUSAL_CLASSES]
    lines += ["", "## Examples", ""]
    for rule in rules.values():
        lines.append(f"### `{rule.id}`")
        lines.append("")
        for dialect, source, expected in rule.examples:
            lines.append(f"- {dialect}: `{_cell(source)}`")
            outcome = (
                f"refused at {expected}" if rule.action == "refuse" else f"`{_cell(expected)}`"
            )
            lines.append(f"  - {outcome}")
        lines.append("")
    lines += [
        "## Diagnostics outside the rule catalog",
        "",
        "Checks of the input file, the catalog and the engine rendering, reported as "
        "`file:line:col: error[ID]: message` like the rules above:",
        "",
    ]
    for diagnostic_id, description in sorted(OTHER_DIAGNOSTICS.items()):
        lines += [f"### `{diagnostic_id}`", "", _cell(description), ""]
    return "\n".join(lines)


def main() -> None:
    DOC_PATH.write_text(rules_markdown())
    print(f"wrote {DOC_PATH}")


if __name__ == "__main__":
    main()
