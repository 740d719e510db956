"""Writing an audit bundle: ``bundle.json`` and the ``report.html`` that reads it."""

from __future__ import annotations

import json
from pathlib import Path

from pipelines.audit.bundle import BUNDLE_FILE, REPORT_FILE, Bundle
from pipelines.audit.report import render_report
from pipelines.lake.files import write_atomic


def write_bundle(bundle: Bundle, out_dir: Path) -> tuple[Path, Path]:
    """``bundle.json`` and ``report.html`` under ``out_dir`` (each replaced atomically)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    bundle_path, report_path = out_dir / BUNDLE_FILE, out_dir / REPORT_FILE
    write_atomic(bundle_path, json.dumps(bundle.data, indent=2, sort_keys=True) + "\n")
    write_atomic(report_path, render_report(bundle.data))
    return bundle_path, report_path
