"""``plumbline defs``: what the code location defines, as a list that reads in any terminal.

``dg list defs`` draws one table whose columns share the terminal's width: in 80 columns each
shrinks to a letter. Here every asset is a line under its group, with its kinds and checks,
and the jobs, schedules, sensors and resources follow; long lines wrap at the terminal's
width instead of squeezing anything.
"""

from __future__ import annotations

import shutil
import textwrap
from collections import defaultdict
from pathlib import Path
from typing import TYPE_CHECKING

import click

from pipelines.cli.location import LocationError, find_location

if TYPE_CHECKING:
    import dagster as dg


def _wrapped(text: str, width: int, indent: str) -> list[str]:
    return textwrap.wrap(
        text,
        width=max(width, 40),
        initial_indent=indent,
        subsequent_indent=indent + "    ",
        break_on_hyphens=False,
        break_long_words=False,  # a name is never cut; only one longer than the width overflows
    )


def defs_listing(defs: dg.Definitions, width: int = 80) -> list[str]:
    """The listing's lines: assets by group (each with its kinds and its checks), then the
    jobs, schedules (with their cron and job), sensors and resources."""
    graph = defs.resolve_asset_graph()
    checks: dict[dg.AssetKey, list[str]] = defaultdict(list)
    for check_key in sorted(graph.asset_check_keys, key=lambda k: k.name):
        checks[check_key.asset_key].append(check_key.name)
    groups: dict[str, list[dg.AssetKey]] = defaultdict(list)
    for key in graph.get_all_asset_keys():
        groups[graph.get(key).group_name or "default"].append(key)

    lines = [f"assets ({sum(len(keys) for keys in groups.values())}), by group"]
    for group in sorted(groups):
        lines.append(f"  {group} ({len(groups[group])})")
        for key in sorted(groups[group], key=lambda k: k.to_user_string()):
            node = graph.get(key)
            described = key.to_user_string()
            if node.kinds:
                described += f"  [{', '.join(sorted(node.kinds))}]"
            if node.is_observable:
                described += "  (observed)"
            elif not node.is_materializable:
                described += "  (external)"
            lines.extend(_wrapped(described, width, "    "))
            if checks[key]:
                lines.extend(_wrapped("checks: " + ", ".join(checks[key]), width, "      "))

    repository = defs.get_repository_def()
    jobs = sorted(job.name for job in repository.get_all_jobs() if not job.name.startswith("__"))
    schedules = sorted(repository.schedule_defs, key=lambda s: s.name)
    sensors = sorted(sensor.name for sensor in repository.sensor_defs)
    resources = sorted(defs.resources or {})
    lines.append(f"jobs ({len(jobs)})")
    lines.extend(f"  {name}" for name in jobs)
    lines.append(f"schedules ({len(schedules)})")
    for schedule in schedules:
        lines.extend(
            _wrapped(f"{schedule.name}  {schedule.cron_schedule}  {schedule.job_name}", width, "  ")
        )
    lines.append(f"sensors ({len(sensors)})")
    lines.extend(f"  {name}" for name in sensors)
    lines.append(f"resources ({len(resources)})")
    lines.extend(_wrapped(", ".join(resources), width, "  "))
    return lines


@click.command("defs")
def defs_command() -> None:
    """List the code location's assets (by group, with kinds and checks), jobs, schedules,
    sensors and resources: `dg list defs` readable in an 80-column terminal."""
    try:
        defs = find_location(Path.cwd()).definitions()
    except LocationError as exc:
        raise click.UsageError(str(exc)) from None
    width = shutil.get_terminal_size().columns
    for line in defs_listing(defs, width):
        click.echo(line)
