"""Writing an audit bundle: ``bundle.json`` and the ``report.html`` that reads it."""

from __future__ import annotations

import json
from pathlib import Path

from pipelines.audit.bundle import BUNDLE_FILE, REPORT_FILE, Bundle
from pipelines.audit.chain import AuditError
from pipelines.audit.report import render_report
from pipelines.lake.files import write_atomic

# What a bundle folder may already hold: an earlier bundle of the same version, and what
# `plumbline audit --openlineage FILE` may have written beside it.
BUNDLE_FOLDER_FILES = frozenset({BUNDLE_FILE, REPORT_FILE})


def check_bundle_folder(out_dir: Path) -> None:
    """Refuse, before anything is written, a folder that is neither missing, empty, nor a
    bundle folder: ``--out /`` or ``--out ~`` must not scatter files into a folder of
    something else."""
    if not out_dir.exists():
        return
    if not out_dir.is_dir():
        raise AuditError(f"{out_dir}: not a folder; --out takes an empty or a bundle folder")
    others = sorted(p.name for p in out_dir.iterdir() if p.name not in BUNDLE_FOLDER_FILES)
    if others:
        shown = ", ".join(others[:3]) + (", ..." if len(others) > 3 else "")
        raise AuditError(
            f"{out_dir}: holds {len(others)} file(s) that are not an audit bundle ({shown}); "
            "--out takes an empty or a bundle folder"
        )


def write_bundle(bundle: Bundle, out_dir: Path) -> tuple[Path, Path]:
    """``bundle.json`` and ``report.html`` under ``out_dir`` (each replaced atomically);
    ``out_dir`` must pass :func:`check_bundle_folder`."""
    check_bundle_folder(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    bundle_path, report_path = out_dir / BUNDLE_FILE, out_dir / REPORT_FILE
    write_atomic(bundle_path, json.dumps(bundle.data, indent=2, sort_keys=True) + "\n")
    write_atomic(report_path, render_report(bundle.data))
    return bundle_path, report_path
