"""Column-lineage drawings for the audit report: each feature's path laid out as boxes and
curved edges in SVG user units (SVG can neither wrap text nor flow boxes, so the layout is
computed here; the report's template only draws it). Pure: hops in, geometry out."""

from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Text:
    x: float
    y: float
    text: str
    style: str  # a CSS class of the template: caption, name, expression, location, gap


@dataclass(frozen=True)
class Box:
    x: float
    y: float
    width: float
    height: float
    kind: str  # feature, warehouse, raw or gap
    texts: list[Text]
    tooltip: str


@dataclass(frozen=True)
class Drawing:
    feature: str
    role: str | None
    width: float
    height: float
    headers: list[Text]
    boxes: list[Box]
    edges: list[str]
    marker_id: str
    gaps: list[str] = field(default_factory=list)


# Geometry of the drawings, in SVG user units (CSS pixels at full size). Character widths are
# those of DejaVu Sans Mono / a typical sans-serif, with some slack for other fonts.
PAD_X, PAD_Y = 10, 9
COLUMN_GAP, ROW_GAP, HEADER_HEIGHT = 40, 12, 26
MIN_COLUMN, MAX_COLUMN = 130, 270
MAX_EXPRESSION_LINES = 8
LINE = {"caption": 14, "name": 18, "expression": 15, "location": 14, "gap": 14}
CHAR = {"caption": 5.6, "name": 8.0, "expression": 6.8, "location": 5.5, "gap": 6.0}


@dataclass
class _Cell:
    key: str
    column: int
    kind: str
    zone: str
    table: str
    rows: list[tuple[str, str]]  # (style, text)
    tooltip: str

    @property
    def natural_width(self) -> float:
        return max(len(text) * CHAR[style] for style, text in self.rows) + 2 * PAD_X

    @property
    def height(self) -> float:
        return sum(LINE[style] for style, _ in self.rows) + 2 * PAD_Y - 2


def _width(style: str) -> int:
    """How many characters of ``style`` fit on one line of the widest column."""
    return max(8, int((MAX_COLUMN - 2 * PAD_X) / CHAR[style]))


def _wrap_path(text: str, style: str) -> list[str]:
    """A ``file:line`` location, broken after a ``/`` rather than inside a name."""
    width, lines, line = _width(style), [], ""
    for part in re.split(r"(?<=/)", text):
        if line and len(line) + len(part) > width:
            lines.append(line)
            line = ""
        line += part
    lines.append(line)
    return [piece for line in lines for piece in textwrap.wrap(line, width) or [""]]


def _wrap(text: str, style: str) -> list[str]:
    width = _width(style)
    lines = []
    for raw in text.strip().splitlines():
        lines.extend(
            textwrap.wrap(raw.strip(), width, break_long_words=True, break_on_hyphens=False) or [""]
        )
    return lines


def _hop_key(hop: dict[str, Any]) -> str:
    return f"{hop.get('zone')}.{hop.get('table')}.{hop.get('column')}"


def _hop_cell(hop: dict[str, Any]) -> _Cell:
    zone, table = hop.get("zone", "?"), hop.get("table", "?")
    rows = [("caption", f"{zone} · {table}"), ("name", str(hop.get("column", "?")))]
    expression = hop.get("expression")
    if expression:
        lines = _wrap(expression, "expression")
        if len(lines) > MAX_EXPRESSION_LINES:
            lines = [*lines[: MAX_EXPRESSION_LINES - 1], lines[MAX_EXPRESSION_LINES - 1] + " …"]
        rows += [("expression", line) for line in lines]
    if hop.get("defined_at"):
        rows += [("location", line) for line in _wrap_path(f"at {hop['defined_at']}", "location")]
    if hop.get("gap"):
        rows += [("gap", line) for line in _wrap(f"Gap: {hop['gap']}", "gap")]
    kind = "gap" if hop.get("gap") else ("raw" if zone == "raw" else "warehouse")
    tooltip = "\n".join(
        part
        for part in (
            f"{zone}.{table}.{hop.get('column')}",
            expression,
            hop.get("defined_at") and f"defined at {hop['defined_at']}",
            hop.get("gap"),
        )
        if part
    )
    return _Cell(_hop_key(hop), int(hop.get("depth", 0)) + 1, kind, zone, table, rows, tooltip)


def _column_header(column: int, cells: list[_Cell], training_table: str | None) -> str:
    if column == 0:
        return "Model input"
    if column == 1 and {(cell.zone, cell.table) for cell in cells} == {
        ("warehouse", training_table)
    }:
        return "Training set"
    zones = sorted({cell.zone for cell in cells})
    names = {"raw": "Raw data", "warehouse": "Warehouse"}
    return " and ".join(names.get(zone, zone.capitalize()) for zone in zones)


def lineage_drawings(
    lineage: dict[str, list[dict[str, Any]]],
    roles: dict[str, str],
    training_table: str | None,
) -> list[Drawing]:
    """One drawing per feature: feature -> training set column -> warehouse columns -> raw
    columns, left to right by depth, hops of one depth stacked, with an arrow from each
    column to every column it is computed from. Columns have the same width in every
    drawing so that the drawings line up on the page."""
    plans = []
    for feature, hops in lineage.items():
        role = roles.get(feature)
        caption = role or "model input"
        cells = [
            _Cell(
                f"feature:{feature}",
                0,
                "feature",
                "",
                "",
                [("caption", caption), ("name", feature)],
                feature,
            ),
            *(_hop_cell(hop) for hop in hops),
        ]
        plans.append((feature, role, hops, cells))
    widths: dict[int, float] = {}
    for *_, cells in plans:
        for cell in cells:
            widths[cell.column] = min(
                MAX_COLUMN, max(widths.get(cell.column, MIN_COLUMN), cell.natural_width)
            )
    drawings = []
    for index, (feature, role, hops, cells) in enumerate(plans):
        columns: dict[int, list[_Cell]] = {}
        for cell in cells:
            columns.setdefault(cell.column, []).append(cell)
        last = max(columns)
        x_of = {
            c: sum(widths.get(i, MIN_COLUMN) + COLUMN_GAP for i in range(c))
            for c in range(last + 1)
        }
        stack_height = max(
            sum(cell.height for cell in stack) + ROW_GAP * (len(stack) - 1)
            for stack in columns.values()
        )
        boxes: dict[str, Box] = {}
        headers = []
        for column, stack in sorted(columns.items()):
            x, width = x_of[column], widths.get(column, MIN_COLUMN)
            headers.append(Text(x, 14, _column_header(column, stack, training_table), "header"))
            used = sum(cell.height for cell in stack) + ROW_GAP * (len(stack) - 1)
            y = HEADER_HEIGHT + (stack_height - used) / 2
            for cell in stack:
                texts, baseline = [], y + PAD_Y
                for style, text in cell.rows:
                    baseline += LINE[style]
                    texts.append(Text(x + PAD_X, baseline - 4, text, style))
                boxes.setdefault(
                    cell.key, Box(x, y, width, cell.height, cell.kind, texts, cell.tooltip)
                )
                y += cell.height + ROW_GAP
        edges = []
        feature_box = boxes[f"feature:{feature}"]
        for hop in hops:
            if hop.get("depth") == 0 and _hop_key(hop) in boxes:
                edges.append(_edge(feature_box, boxes[_hop_key(hop)]))
            for source in hop.get("from", []):
                if source in boxes and _hop_key(hop) in boxes:
                    edges.append(_edge(boxes[_hop_key(hop)], boxes[source]))
        # A hop's own gap is written in its box; what a reader must not miss is the outcome.
        gaps = []
        if not any(hop.get("zone") == "raw" for hop in hops):
            gaps.append(f"{feature} cannot be traced back to a raw column.")
        drawings.append(
            Drawing(
                feature=feature,
                role=role,
                width=x_of[last] + widths.get(last, MIN_COLUMN) + 2,
                height=HEADER_HEIGHT + stack_height + 2,
                headers=headers,
                boxes=list(boxes.values()),
                edges=edges,
                marker_id=f"arrow-{index}",
                gaps=gaps,
            )
        )
    return drawings


def _edge(start: Box, end: Box) -> str:
    x1, y1 = start.x + start.width, start.y + start.height / 2
    x2, y2 = end.x - 5, end.y + end.height / 2
    bend = (x2 - x1) / 2
    return (
        f"M{x1:.1f},{y1:.1f} C{x1 + bend:.1f},{y1:.1f} {x2 - bend:.1f},{y2:.1f} {x2:.1f},{y2:.1f}"
    )
