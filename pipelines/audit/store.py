"""Issuing an audit bundle: ``bundle.json`` and the ``report.html`` that reads it, in a folder
of their own that is never written again.

A reviewer re-checks the digest they were sent, so what was issued must stay issued: each
bundle gets a new folder named by its creation time and root digest
(``<YYYYMMDDTHHMMSSZ>-<first 12 hex of the root digest>``), and a folder that already holds
anything is refused, never replaced. A model version's bundles lie under
``<audit root>/<model>/v<version>/`` (:func:`model_version_dir`), a table version's under
``<audit root>/<zone>/<table>/<version>/`` (:func:`table_version_dir`).
"""

from __future__ import annotations

import datetime as dt
import json
import os
import shutil
import tempfile
from pathlib import Path

from pipelines.audit.bundle import BUNDLE_FILE, REPORT_FILE, Bundle
from pipelines.audit.chain import AuditError
from pipelines.audit.collect import TableSubject
from pipelines.audit.report import render_report

BUNDLE_FOLDER_FILES = frozenset({BUNDLE_FILE, REPORT_FILE})
# Hex digits of the root digest in a bundle folder's name: enough to tell two bundles of one
# version apart at a glance; the full digest is in bundle.json and on the MLflow version.
FOLDER_DIGEST_HEX = 12


def bundle_folder_name(bundle: Bundle) -> str:
    """``<YYYYMMDDTHHMMSSZ>-<12 hex>``: when the bundle was made (UTC) and its root digest."""
    created = dt.datetime.fromisoformat(bundle.data["created_at"]).astimezone(dt.UTC)
    hex_digest = bundle.root_digest.removeprefix("sha256:")
    return f"{created:%Y%m%dT%H%M%SZ}-{hex_digest[:FOLDER_DIGEST_HEX]}"


def model_version_dir(audit_root: Path, model: str, version: str) -> Path:
    """The folder that holds every bundle issued for ``model`` ``version``, under the audit
    root (``Settings.audit_root``): ``<model>/v<version>``."""
    return audit_root / model / f"v{version}"


def table_version_dir(audit_root: Path, subject: TableSubject) -> Path:
    """The folder that holds every bundle issued for one version of a lake table, under the
    audit root (``Settings.audit_root``): ``<zone>/<table>/<lake version>``. Beside the
    models' ``<model>/v<version>``: a model's name never holds a ``/`` (MLflow refuses one)."""
    return audit_root / subject.zone / subject.table / subject.version


def check_bundle_folder(out_dir: Path) -> None:
    """Refuse, before anything is written, a folder that is neither missing nor empty: an
    issued bundle is never overwritten, and ``--out /`` or ``--out ~`` must not scatter
    files into a folder of something else."""
    if not out_dir.exists():
        return
    if not out_dir.is_dir():
        raise AuditError(f"{out_dir}: not a folder; --out takes a new or an empty folder")
    held = sorted(p.name for p in out_dir.iterdir())
    others = [name for name in held if name not in BUNDLE_FOLDER_FILES]
    if others:
        shown = ", ".join(others[:3]) + (", ..." if len(others) > 3 else "")
        raise AuditError(
            f"{out_dir}: holds {len(others)} file(s) that are not an audit bundle ({shown}); "
            "--out takes a new or an empty folder"
        )
    if held:
        raise AuditError(
            f"{out_dir}: holds an audit bundle already, and an issued bundle is never "
            "overwritten; give --out a new folder, or leave --out out for a folder of its own"
        )


def write_bundle(bundle: Bundle, out_dir: Path) -> tuple[Path, Path]:
    """``bundle.json`` and ``report.html`` in ``out_dir``, which must pass
    :func:`check_bundle_folder`. Both are written into a temporary folder beside it that is
    then renamed into place: a reader sees both files or neither, and a bundle that another
    process issued into ``out_dir`` meanwhile makes the rename fail rather than be replaced."""
    check_bundle_folder(out_dir)
    try:
        out_dir.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(
            tempfile.mkdtemp(dir=out_dir.parent, prefix=f".{out_dir.name}.", suffix=".tmp")
        )
    except OSError as exc:
        raise AuditError(f"{out_dir}: cannot write a bundle there ({exc.strerror})") from None
    try:
        (staging / BUNDLE_FILE).write_text(
            json.dumps(bundle.data, indent=2, sort_keys=True) + "\n", encoding="utf-8"
        )
        (staging / REPORT_FILE).write_text(render_report(bundle.data), encoding="utf-8")
        for name in BUNDLE_FOLDER_FILES:
            with open(staging / name, "rb") as written:
                os.fsync(written.fileno())
        staging.chmod(0o755)  # mkdtemp makes it private; a bundle is for reviewers to read
        try:
            # rename(2) replaces an empty folder and fails on one that holds anything.
            staging.rename(out_dir)
        except OSError as exc:
            raise AuditError(
                f"{out_dir}: was filled while this bundle was written ({exc.strerror}); "
                "nothing was replaced"
            ) from None
    finally:
        if staging.exists():
            shutil.rmtree(staging)
    return out_dir / BUNDLE_FILE, out_dir / REPORT_FILE


def issue_bundle(bundle: Bundle, version_dir: Path) -> tuple[Path, Path]:
    """Write ``bundle`` into a new folder of its own under ``version_dir``
    (:func:`bundle_folder_name`); earlier bundles of the version stay as they were."""
    return write_bundle(bundle, version_dir / bundle_folder_name(bundle))
