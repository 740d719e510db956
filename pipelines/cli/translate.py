"""``plumbline translate``: the command-line face of ``sql.translate``.

Other tools script against this, so its contract is exact: SQL (or JSON) on stdout and exit
0; ``FILE:LINE:COL: severity[RULE]: message`` lines on stderr and exit 1 when refused.

A file that defines several tables prints, ``--to ansi``, each table's query under a
``-- zone.table`` line; ``--to duckdb`` or ``--to spark``, a script that runs as it is in
that engine, building each table before the statements that read it
(``sql.engine_script``).
"""

from __future__ import annotations

import json
import logging
import sys
from collections.abc import Mapping
from dataclasses import asdict
from pathlib import Path

import click

from sql.assumptions import Assumptions
from sql.catalog import Catalog
from sql.diagnostics import Diagnostic, TranslationError
from sql.engine_script import engine_script
from sql.parameters import QueryParameter
from sql.render import render
from sql.report import render_html, render_markdown, translate_tree
from sql.source_limits import SourceTooLarge, decoded, read_bytes, read_source
from sql.templating import TemplateValue, file_stem, translate_source_text


def _emit_diagnostics(diagnostics: tuple[Diagnostic, ...]) -> None:
    for diagnostic in diagnostics:
        click.echo(diagnostic.format(), err=True)


# sqlglot logs a warning when it falls back to an opaque Command for a statement it does
# not parse; the translator refuses those with a located diagnostic, so the log is noise.
logging.getLogger("sqlglot").setLevel(logging.ERROR)


def run_translate(
    dialect: str,
    target: str,
    file: str,
    *,
    as_json: bool,
    assumptions: Assumptions,
    catalog: Catalog,
    strict: bool = False,
    variables: Mapping[str, TemplateValue] | None = None,
    parameters: Mapping[str, QueryParameter] | None = None,
) -> int:
    name = "<stdin>" if file == "-" else file
    try:
        # Over the size limit, refused before its text is read whole (sql/source_limits.py).
        data = read_bytes(sys.stdin.buffer, name) if file == "-" else read_source(Path(file))
        source = decoded(data)
    except SourceTooLarge as exc:
        _emit_diagnostics(exc.diagnostics)
        return 2
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) else "not UTF-8 text"
        raise click.BadParameter(f"cannot read {file}: {reason}", param_hint="FILE") from None
    try:
        # A template (sql.templating.is_template) is rendered with ``variables`` first;
        # its diagnostics are located in the template.
        script, _ = translate_source_text(
            source,
            dialect,
            file=name,
            name=None if file == "-" else file_stem(file),
            assumptions=assumptions,
            catalog=catalog,
            strict=strict,
            variables=variables,
            parameters=parameters,
        )
        if as_json or target == "ansi":
            rendered = [
                t.ansi_sql if target == "ansi" else render(t.ansi_sql, target, file=name)  # type: ignore[arg-type]
                for t in script.tables
            ]
            text = script.script_sql(rendered)
        else:
            rendered = []
            text = engine_script(script, target, file=name)  # type: ignore[arg-type]
    except SourceTooLarge as exc:  # the statements, or what a template renders to
        _emit_diagnostics(exc.diagnostics)
        return 2
    except TranslationError as exc:
        _emit_diagnostics(exc.diagnostics)
        if as_json:
            payload = {"ok": False, "diagnostics": [asdict(d) for d in exc.diagnostics]}
            click.echo(json.dumps(payload, indent=2))
        return 1
    diagnostics = tuple(dict.fromkeys(d for t in script.tables for d in t.diagnostics))
    _emit_diagnostics(diagnostics)
    if as_json:
        tables = [
            {
                "name": t.name,
                "table": f"{t.zone}.{t.name}",
                "line": t.line,
                "sql": sql,
                "ansi_sql": t.ansi_sql,
                "rules_applied": list(t.rules_applied),
                "portable_functions": list(t.portable_functions),
                "guards": list(t.guards),
                "source_tables": list(t.source_tables),
                "columns": list(t.columns),
                "diagnostics": [asdict(d) for d in t.diagnostics],
            }
            for t, sql in zip(script.tables, rendered, strict=True)
        ]
        # The first table's fields at the top level too: a one-table file reads as before.
        click.echo(
            json.dumps(
                {
                    "ok": True,
                    "dialect": script.dialect,
                    "target": target,
                    **{k: v for k, v in tables[0].items() if k != "table"},
                    "diagnostics": [asdict(d) for d in diagnostics],
                    # BigQuery query parameters' values ("DATE:2024-01-01"), by name.
                    "query_parameters": {k: str(v) for k, v in (parameters or {}).items()},
                    "tables": tables,
                },
                indent=2,
            )
        )
    else:
        click.echo(text)
    return 0


def run_report(
    legacy_root: Path,
    out_dir: Path,
    assumptions: Assumptions,
    catalog: Catalog,
    variables: Mapping[str, TemplateValue] | None = None,
) -> int:
    results = translate_tree(
        legacy_root, catalog=catalog, assumptions=assumptions, variables=variables
    )
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "report.md").write_text(render_markdown(results, legacy_root, out_dir))
    (out_dir / "report.html").write_text(render_html(results, legacy_root, out_dir))
    refused = sum(not r.translated for r in results)
    click.echo(
        f"{len(results)} files, {len(results) - refused} translated, {refused} refused: "
        f"{out_dir / 'report.html'}"
    )
    return 0
