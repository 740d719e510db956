"""The translation report over a legacy tree: per file status, tables, rules, refusals.

Pure code: translates every ``<dialect>/<name>.sql`` under a root (a script may define
several tables; the file is one row) and renders the results as Markdown and as one
self-contained HTML page (no scripts, no external assets).
"""

from __future__ import annotations

import functools
import html
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from sql.assumptions import Assumptions
from sql.catalog import Catalog, load_catalog
from sql.diagnostics import Diagnostic, TranslationError
from sql.parallel import ordered_map
from sql.translate import DIALECTS, translate_script


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
    path: Path, catalog: Catalog, assumptions: Assumptions | None = None
) -> FileResult:
    """``<dialect>/<name>.sql`` translated as a script: one result for all its tables."""
    dialect = path.parent.name
    try:
        script = translate_script(
            path.read_text(),
            dialect,
            file=str(path),
            name=path.stem,
            catalog=catalog,
            assumptions=assumptions,
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
    root: Path, catalog: Catalog | None = None, assumptions: Assumptions | None = None
) -> list[FileResult]:
    """Every legacy file under ``root``, in path order, translated on every core."""
    translate_one = functools.partial(
        translate_path, catalog=catalog or load_catalog(), assumptions=assumptions
    )
    return list(ordered_map(translate_one, legacy_files(root)))


def _summary(results: list[FileResult]) -> tuple[int, int, Counter[str]]:
    translated = sum(r.translated for r in results)
    rules = Counter(rule for r in results for rule in r.rules_applied)
    return translated, len(results) - translated, rules


def render_markdown(results: list[FileResult], root: Path) -> str:
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
        diagnostics = "<br>".join(d.format().replace("|", "\\|") for d in r.diagnostics)
        status = "translated" if r.translated else "**refused**"
        lines.append(
            f"| `{r.path.relative_to(root)}` | {r.dialect} | {status} | {', '.join(r.tables)} | "
            f"{', '.join(r.rules_applied)} | {diagnostics} |"
        )
    lines += ["", "## Rules applied", "", "| rule | files |", "|---|---|"]
    lines += [f"| {rule} | {n} |" for rule, n in sorted(rules.items())]
    return "\n".join(lines) + "\n"


def render_html(results: list[FileResult], root: Path) -> str:
    translated, refused, rules = _summary(results)
    rows = []
    for r in results:
        diagnostics = "".join(
            f'<li class="{d.severity}">{html.escape(d.format())}</li>' for d in r.diagnostics
        )
        status = "translated" if r.translated else "refused"
        rows.append(
            f'<tr class="{status}"><td><code>{html.escape(str(r.path.relative_to(root)))}</code></td>'
            f"<td>{r.dialect}</td><td>{status}</td><td>{html.escape(', '.join(r.tables))}</td>"
            f"<td>{html.escape(', '.join(r.rules_applied))}</td><td><ul>{diagnostics}</ul></td></tr>"
        )
    rule_rows = "".join(
        f"<tr><td>{html.escape(k)}</td><td>{n}</td></tr>" for k, n in sorted(rules.items())
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
