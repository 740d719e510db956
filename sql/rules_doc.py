"""Generate docs/translation-rules.md from the rule catalog (``python -m sql.rules_doc``)."""

from __future__ import annotations

from pathlib import Path

from sql.rules import load_all

DOC_PATH = Path(__file__).resolve().parent.parent / "docs" / "translation-rules.md"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


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
        "| rule | action | dialects | what it does |",
        "|---|---|---|---|",
    ]
    for rule in rules.values():
        lines.append(
            f"| `{rule.id}` | {rule.action} | {', '.join(rule.dialects)} | {_cell(rule.description)} |"
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
    return "\n".join(lines)


def main() -> None:
    DOC_PATH.write_text(rules_markdown())
    print(f"wrote {DOC_PATH}")


if __name__ == "__main__":
    main()
