"""The translation report over a legacy tree: per file status, tables, rules, refusals.

Pure code: translates every ``<dialect>/<name>.sql`` under a root (a script may define
several tables; the file is one row) and renders the results as Markdown and as one
self-contained HTML page (no scripts, no external assets). Every path it shows is relative
to the legacy root, as the file column is (else to the repository), and every rule id links
to its entry in docs/translation-rules.md.
"""

from __future__ import annotations

import functools
import html
import os
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path

from sql.assumptions import Assumptions
from sql.catalog import Catalog, load_catalog
from sql.diagnostics import Diagnostic, TranslationError
from sql.parallel import ordered_map
from sql.paths import repository_relative
from sql.rules_doc import DOC_PATH, rule_link
from sql.source_dialects import DIALECTS
from sql.source_limits import decoded, read_source
from sql.templating import TemplateValue, translate_source_text


@dataclass(frozen=True)
class FileResult:
    path: Path
    dialect: str
    translated: bool
    rules_applied: tuple[str, ...]  # over every table the file defines
    diagnostics: tuple[Diagnostic, ...]  # warnings/infos when translated, errors when refused
    tables: tuple[str, ...] = ()  # the tables the file defines, in its order; () if refused


def legacy_files(root: Path) -> list[Path]:
    return sorted(p for d in DIALECTS for p in (root / d).glob("*.sql"))


def translate_path(
    path: Path,
    catalog: Catalog,
    assumptions: Assumptions | None = None,
    variables: Mapping[str, TemplateValue] | None = None,
) -> FileResult:
    """``<dialect>/<name>.sql`` translated as a script: one result for all its tables (a
    Jinja template rendered with ``variables`` first)."""
    dialect = path.parent.name
    try:
        script, _ = translate_source_text(
            # Over the size limits, a refusal like any other (sql/source_limits.py).
            decoded(read_source(path)),
            dialect,
            file=str(path),
            name=path.stem,
            catalog=catalog,
            assumptions=assumptions,
            variables=variables,
        )
    except TranslationError as exc:
        return FileResult(path, dialect, False, (), exc.diagnostics)
    rules = sorted({rule for t in script.tables for rule in t.rules_applied})
    # A warning from a statement every table reads (a helper, an assumption) is shown once.
    diagnostics = dict.fromkeys(d for t in script.tables for d in t.diagnostics)
    return FileResult(
        path,
        dialect,
        True,
        tuple(rules),
        tuple(diagnostics),
        tuple(t.name for t in script.tables),
    )


def translate_tree(
    root: Path,
    catalog: Catalog | None = None,
    assumptions: Assumptions | None = None,
    variables: Mapping[str, TemplateValue] | None = None,
) -> list[FileResult]:
    """Every legacy file under ``root``, in path order, translated on every core (templates
    rendered with ``variables``)."""
    translate_one = functools.partial(
        translate_path,
        catalog=catalog or load_catalog(),
        assumptions=assumptions,
        variables=variables,
    )
    return list(ordered_map(translate_one, legacy_files(root)))


def _summary(results: list[FileResult]) -> tuple[int, int, Counter[str]]:
    translated = sum(r.translated for r in results)
    rules = Counter(rule for r in results for rule in r.rules_applied)
    return translated, len(results) - translated, rules


def _shown_path(file: str | Path, root: Path) -> str:
    """``file`` as the report shows it: relative to the legacy ``root`` (the file column),
    else to the repository when it lies there, else as given."""
    path = Path(file)
    if path.resolve().is_relative_to(root.resolve()):
        return path.resolve().relative_to(root.resolve()).as_posix()
    return repository_relative(path)


def _shown(diagnostic: Diagnostic, root: Path) -> str:
    return replace(diagnostic, file=_shown_path(diagnostic.file, root)).format()


def _rules_doc(report_dir: Path | None) -> str:
    """docs/translation-rules.md as a link from the folder the report is written to (from the
    repository root when not given)."""
    start = report_dir.resolve() if report_dir is not None else DOC_PATH.parent.parent
    return Path(os.path.relpath(DOC_PATH, start)).as_posix()


def _markdown_rule(rule: str, doc: str) -> str:
    return f"[{rule}]({rule_link(rule, doc)})"


def _html_rule(rule: str, doc: str) -> str:
    return f'<a href="{html.escape(rule_link(rule, doc))}"><code>{html.escape(rule)}</code></a>'


def _markdown_diagnostic(diagnostic: Diagnostic, root: Path, doc: str) -> str:
    text = _shown(diagnostic, root).replace("|", "\\|")
    tag = f"{diagnostic.severity}[{diagnostic.rule}]"
    return text.replace(tag, f"{diagnostic.severity}[{_markdown_rule(diagnostic.rule, doc)}]", 1)


def _html_diagnostic(diagnostic: Diagnostic, root: Path, doc: str) -> str:
    text = html.escape(_shown(diagnostic, root))
    tag = html.escape(f"{diagnostic.severity}[{diagnostic.rule}]")
    linked = f"{diagnostic.severity}[{_html_rule(diagnostic.rule, doc)}]"
    return f'<li class="{diagnostic.severity}">{text.replace(tag, linked, 1)}</li>'


def render_markdown(results: list[FileResult], root: Path, report_dir: Path | None = None) -> str:
    """The report as Markdown; ``report_dir``, where it is written, is where its links to
    docs/translation-rules.md start from."""
    doc = _rules_doc(report_dir)
    translated, refused, rules = _summary(results)
    lines = [
        "# Translation report",
        "",
        f"{len(results)} files: {translated} translated, {refused} refused.",
        "",
        "| file | dialect | status | tables | rules applied | diagnostics |",
        "|---|---|---|---|---|---|",
    ]
    for r in results:
        diagnostics = "<br>".join(_markdown_diagnostic(d, root, doc) for d in r.diagnostics)
        status = "translated" if r.translated else "**refused**"
        applied = ", ".join(_markdown_rule(rule, doc) for rule in r.rules_applied)
        lines.append(
            f"| `{_shown_path(r.path, root)}` | {r.dialect} | {status} | {', '.join(r.tables)} | "
            f"{applied} | {diagnostics} |"
        )
    lines += ["", "## Rules applied", "", "| rule | files |", "|---|---|"]
    lines += [f"| {_markdown_rule(rule, doc)} | {n} |" for rule, n in sorted(rules.items())]
    return "\n".join(lines) + "\n"


def render_html(results: list[FileResult], root: Path, report_dir: Path | None = None) -> str:
    """The report as one HTML page; links start from ``report_dir`` as in
    :func:`render_markdown`."""
    doc = _rules_doc(report_dir)
    translated, refused, rules = _summary(results)
    rows = []
    for r in results:
        diagnostics = "".join(_html_diagnostic(d, root, doc) for d in r.diagnostics)
        status = "translated" if r.translated else "refused"
        applied = ", ".join(_html_rule(rule, doc) for rule in r.rules_applied)
        rows.append(
            f'<tr class="{status}"><td><code>{html.escape(_shown_path(r.path, root))}</code></td>'
            f"<td>{r.dialect}</td><td>{status}</td><td>{html.escape(', '.join(r.tables))}</td>"
            f"<td>{applied}</td><td><ul>{diagnostics}</ul></td></tr>"
        )
    rule_rows = "".join(
        f"<tr><td>{_html_rule(k, doc)}</td><td>{n}</td></tr>" for k, n in sorted(rules.items())
    )
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>plumbline translation report</title>
<style>
body {{ font-family: system-ui, sans-serif; margin: 2rem; }}
table {{ border-collapse: collapse; margin-bottom: 2rem; }}
td, th {{ border: 1px solid #ccc; padding: .3rem .6rem; vertical-align: top; text-align: left; }}
td:nth-child(5) {{ min-width: 20rem; }}
tr.refused td {{ background: #fde8e8; }}
li.error {{ color: #a40000; }} li.warning {{ color: #8a5a00; }} li.info {{ color: #555; }}
ul {{ margin: 0; padding-left: 1.2rem; }}
</style></head><body>
<h1>Translation report</h1>
<p>{len(results)} files: {translated} translated, {refused} refused.</p>
<table><thead><tr><th>file</th><th>dialect</th><th>status</th><th>tables</th><th>rules applied</th><th>diagnostics</th></tr></thead>
<tbody>{"".join(rows)}</tbody></table>
<h2>Rules applied</h2>
<table><thead><tr><th>rule</th><th>files</th></tr></thead><tbody>{rule_rows}</tbody></table>
</body></html>
"""
