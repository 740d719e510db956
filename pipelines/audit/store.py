"""Issuing an audit bundle: ``bundle.json`` and the ``report.html`` that reads it, in a folder
of their own that is never written again.

A reviewer re-checks the digest they were sent, so what was issued must stay issued: each
bundle gets a new folder named by its creation time and root digest
(``<YYYYMMDDTHHMMSSZ>-<first 12 hex of the root digest>``), and a folder that already holds
anything is refused, never replaced. A model version's bundles lie under
``<audit root>/<model>/v<version>/`` (:func:`model_version_dir`), a table version's under
``<audit root>/<zone>/<table>/<version>/`` (:func:`table_version_dir`).

The audit asset asks for a model version's bundle on every run, and a run over unchanged
data registers the same version from the same training: :func:`issue_or_reuse` then hands
on the newest bundle of the version instead of issuing another, once it has checked that
the bundle's seal holds, that the registry keeps its root digest, and that the chain
collected now is the one it records link for link. Anything else (an edited or unreadable
file, an alias moved since, a gap, a rewritten lake file) issues a new bundle beside it.
A bundle records the run that issued it (``made_by``), never the runs that reused it: it is
sealed, and a later run must not rewrite what a reviewer was given. A run that reuses it
says so in its own materialization (``reused_audit_bundle``, the issuing run).

A bundle verifies only while the lake keeps every table version it names, so each of them
is pinned for the bundle (:func:`pin_bundle`, holder ``bundle-<root digest>``) before the
bundle is written, and again whenever it is handed on; :func:`pin_issued_bundles` pins those
of every bundle under an audit root (the bundles issued before pins were). Likewise the SQL
files its ``ansi:`` and ``legacy:`` links describe, which a later translation or an edit
rewrites in place: the bytes they were collected from are kept write-once by sha256 under
``<audit root>/.pinned`` (:func:`keep_pinned_files`, :mod:`pipelines.audit.pinned`), and the
bundle verifies against those.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from pipelines.audit.bundle import (
    BUNDLE_FILE,
    REPORT_FILE,
    Bundle,
    check_bundle,
    read_bundle,
    registry_differences,
    seal_bundle,
)
from pipelines.audit.chain import AuditError, Difference, Node, compare, seal
from pipelines.audit.collect import (
    ModelSubject,
    Sources,
    TableSubject,
    auditor_environment,
    collect,
)
from pipelines.audit.pinned import PinnedFiles
from pipelines.audit.report import render_report
from pipelines.lake.store import Lake, LakeError

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
        text = json.dumps(bundle.data, indent=2, sort_keys=True) + "\n"
        (staging / BUNDLE_FILE).write_text(text, encoding="utf-8")
        # Rendered from the data as the file holds it (keys sorted): the report is then a
        # function of bundle.json alone, and whoever reads the file renders the same one.
        report = render_report(json.loads(text))
        (staging / REPORT_FILE).write_text(report, encoding="utf-8")
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


TABLE_NODE_KINDS = frozenset({"table", "raw_table"})


def bundle_holder(bundle: Bundle) -> str:
    """The name a bundle's pins are held under: ``bundle-<hex of its root digest>``."""
    return f"bundle-{bundle.root_digest.removeprefix('sha256:')}"


def pin_bundle(lake: Lake, bundle: Bundle) -> list[str]:
    """Pin every lake table version ``bundle`` names (a link that is a gap names none), so
    that retention keeps them for as long as the bundle is to verify; returns the versions
    no longer in the lake, which cannot be pinned (``zone/table@version``)."""
    gone = []
    for node in bundle.nodes:
        if node.kind not in TABLE_NODE_KINDS or node.gap is not None:
            continue
        zone, table, version = (str(node.content.get(k)) for k in ("zone", "table", "version"))
        try:
            lake.pin(zone, table, version, bundle_holder(bundle))
        except LakeError:
            gone.append(f"{zone}/{table}@{version}")
    return gone


def pin_issued_bundles(lake: Lake, audit_root: Path) -> int:
    """Pin the table versions of every bundle under ``audit_root`` (:func:`pin_bundle`);
    a file that is not a bundle is passed over. Returns how many bundles were read."""
    read = 0
    for path in sorted(audit_root.rglob(BUNDLE_FILE)) if audit_root.is_dir() else ():
        try:
            bundle = read_bundle(path)
        except AuditError:
            continue
        pin_bundle(lake, bundle)
        read += 1
    return read


def pinned_digests(bundle: Bundle) -> dict[str, str]:
    """The sha256 of every file copy ``bundle``'s links pinned, with the link that names it
    (a link that is a gap names none)."""
    named = {}
    for node in bundle.nodes:
        pins = node.content.get("pinned")
        if node.gap is None and isinstance(pins, dict):
            named.update({str(hex_digest): node.id for hex_digest in pins.values()})
    return named


def keep_pinned_files(bundle: Bundle, pinned: PinnedFiles | None) -> None:
    """Keep, in ``pinned``, every file copy ``bundle`` names: from the bytes it was collected
    from (:attr:`Bundle.pinned_bytes`), or already there. AuditError naming the link and the
    file when one is neither, or when a copy there was altered (it is never replaced)."""
    named = pinned_digests(bundle)
    if named and pinned is None:
        raise AuditError("the bundle pins SQL files, and these sources keep no pinned copies")
    for hex_digest, node_id in sorted(named.items()):
        data = bundle.pinned_bytes.get(hex_digest)
        try:
            if data is None:
                pinned.read(hex_digest)
            else:
                pinned.keep(data)
        except AuditError as exc:
            raise AuditError(f"{node_id}: {exc}") from None


def pin_before_issue(lake: Lake, bundle: Bundle, pinned: PinnedFiles | None = None) -> None:
    """:func:`pin_bundle` and :func:`keep_pinned_files` before a bundle is issued:
    AuditError when a version it names left the lake since it was collected, or a file copy
    it names cannot be kept."""
    gone = pin_bundle(lake, bundle)
    if gone:
        raise AuditError(
            f"{', '.join(gone)}: pruned from the lake while the bundle was made; audit again"
        )
    keep_pinned_files(bundle, pinned)


def issue_bundle(bundle: Bundle, version_dir: Path) -> tuple[Path, Path]:
    """Write ``bundle`` into a new folder of its own under ``version_dir``
    (:func:`bundle_folder_name`); earlier bundles of the version stay as they were."""
    return write_bundle(bundle, version_dir / bundle_folder_name(bundle))


@dataclass(frozen=True)
class Issued:
    """The bundle a model version's audit hands on: issued now, or an earlier one reused."""

    bundle: Bundle
    bundle_path: Path
    report_path: Path
    reused: bool
    # Why the newest earlier bundle of the version was not reused (empty: there was none,
    # or it was).
    refused: list[Difference] = field(default_factory=list)


def newest_bundle(version_dir: Path) -> Path | None:
    """The ``bundle.json`` of the newest folder under ``version_dir`` (folder names begin
    with their UTC creation time, :func:`bundle_folder_name`); None when there is none. A
    staging folder of a bundle being written (``.<name>...tmp``) is not one."""
    if not version_dir.is_dir():
        return None
    bundles = [
        folder / BUNDLE_FILE
        for folder in version_dir.iterdir()
        if not folder.name.startswith(".") and (folder / BUNDLE_FILE).is_file()
    ]
    # Two bundles issued within one second: the file written last.
    return max(
        bundles,
        key=lambda path: (path.parent.name.split("-")[0], path.stat().st_mtime_ns),
        default=None,
    )


def reuse_differences(
    bundle: Bundle, subject: ModelSubject, current: list[Node], client
) -> list[Difference]:
    """What keeps ``bundle`` from standing for ``subject``'s chain as ``current`` (sealed,
    collected now) holds it: another subject, a broken seal, a root digest the registry does
    not keep, or a link that is not the current one (a gap counts: it may be filled now)."""
    audited = bundle.audited
    if not (
        isinstance(audited, ModelSubject)
        and (audited.model, audited.version) == (subject.model, subject.version)
    ):
        return [Difference(subject.root, f"the newest bundle of its folder audits {audited}")]
    differences = check_bundle(bundle)
    if differences:
        return differences
    differences = registry_differences(bundle, client)
    recorded = bundle.nodes
    differences.extend(compare(recorded, current))
    if not differences and {n.id: n.digest for n in recorded} != {n.id: n.digest for n in current}:
        differences.append(
            Difference(subject.root, "the chain now holds links the bundle does not")
        )
    return differences


def _is_report_of(bundle: Bundle, report: Path) -> bool:
    """``report`` is what :func:`write_bundle` wrote for ``bundle``: a reviewer opens the
    report, and nothing seals it but its being rendered from the sealed file."""
    try:
        return report.read_text(encoding="utf-8") == render_report(bundle.data)
    except (OSError, UnicodeDecodeError):
        return False


def issue_or_reuse(
    sources: Sources,
    subject: ModelSubject,
    version_dir: Path,
    *,
    made_by: dict[str, str],
) -> Issued:
    """The bundle of ``subject``: the newest one under ``version_dir`` when it still stands
    for the chain collected now (:func:`reuse_differences`), else a new one issued from that
    collection into a folder of its own (:func:`issue_bundle`)."""
    collected = collect(sources, subject)
    current = seal(collected.nodes.values())
    refused: list[Difference] = []
    earlier = newest_bundle(version_dir)
    if earlier is not None:
        try:
            bundle = read_bundle(earlier)
        except AuditError as exc:
            refused = [Difference(subject.root, str(exc))]
        else:
            refused = reuse_differences(bundle, subject, current, sources.client)
            report = earlier.parent / REPORT_FILE
            if not refused and not _is_report_of(bundle, report):
                shown = f"{report.parent.name}/{REPORT_FILE}"
                refused = [Difference(subject.root, f"{shown}: not the report of its bundle")]
            if not refused:
                pin_bundle(sources.lake, bundle)  # pinned again: it may predate its pins
                # Its links are the chain collected now, link for link: the same bytes.
                keep_pinned_files(Bundle(bundle.data, collected.files), sources.pinned)
                return Issued(bundle, earlier, report, reused=True)
    bundle = seal_bundle(
        current,
        subject=subject.fields(),
        created_at=collected.created_at,
        made_by=made_by,
        auditor=auditor_environment(),
        pinned_bytes=collected.files,
    )
    pin_before_issue(sources.lake, bundle, sources.pinned)
    bundle_path, report_path = issue_bundle(bundle, version_dir)
    return Issued(bundle, bundle_path, report_path, reused=False, refused=refused)
