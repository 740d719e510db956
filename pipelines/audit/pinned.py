"""The exact bytes an issued bundle's SQL links describe, kept write-once by their sha256.

A bundle's ``ansi:<table>`` link describes the stored translation (its SQL and its manifest:
rules applied, warnings, translator version) and its ``legacy:<path>`` link the legacy file;
both are rewritten legitimately after the bundle is issued (a plumbline upgrade translates
again, the user edits a legacy file and reruns) while the lake version the bundle names stays
the one built from the old SQL. So when a bundle is issued, the bytes those links were
collected from are copied here, each named by its sha256 (``<audit root>/.pinned/sha256/
<hex>``), and the link records the digests (its content's ``pinned`` field, sealed with it).
``--verify`` recomputes such a link from these copies, not from the files as they are now: a
later legitimate change verifies (and is reported as superseded), an edited or missing copy
fails, naming the link and the file.

Like a lake version a bundle names, a copy is kept for as long as the bundle is: nothing
removes a file of this store, and a file is never rewritten (one name, one content). Pure
file-system code, as ``pipelines.lake.store``.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from pipelines.audit.chain import AuditError
from pipelines.lake.files import write_atomic

# Under the audit root, beside the bundles' own folders (``<model>/v<n>``, ``<zone>/<table>``):
# a model's name is never hidden, and no zone is.
PINNED_FOLDER = ".pinned"
HEX_SHA256 = re.compile(r"[0-9a-f]{64}")


class PinnedFileError(AuditError):
    """A pinned copy is missing, or holds other bytes than its name says."""


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class PinnedFiles:
    """The content-addressed store under ``<audit root>/.pinned``."""

    def __init__(self, audit_root: Path) -> None:
        self.root = Path(audit_root) / PINNED_FOLDER / "sha256"

    def path(self, hex_digest: str) -> Path:
        """Where the copy named ``hex_digest`` lies (a name a bundle gives is checked first:
        a bundle's content is text anyone can write)."""
        if not HEX_SHA256.fullmatch(hex_digest):
            raise PinnedFileError(f"{hex_digest!r} is not a sha256 (64 lowercase hex digits)")
        return self.root / hex_digest[:2] / hex_digest

    def keep(self, data: bytes) -> str:
        """Keep ``data`` under its sha256, unless a copy is there already; returns the digest.
        A copy there that holds other bytes is refused, never replaced: it is evidence."""
        hex_digest = sha256_hex(data)
        path = self.path(hex_digest)
        if path.exists():
            self.read(hex_digest)  # raises when it was altered
            return hex_digest
        write_atomic(path, data)
        path.chmod(0o444)
        return hex_digest

    def read(self, hex_digest: str) -> bytes:
        """The bytes kept under ``hex_digest``; PinnedFileError, naming the file, when the
        copy is missing or no longer holds them."""
        path = self.path(hex_digest)
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            raise PinnedFileError(f"the pinned copy {path} is missing") from None
        except OSError as exc:
            raise PinnedFileError(
                f"the pinned copy {path} cannot be read ({exc.strerror})"
            ) from None
        found = sha256_hex(data)
        if found != hex_digest:
            raise PinnedFileError(
                f"the pinned copy {path} was altered: it holds bytes of sha256 {found[:12]}..., "
                "not the ones its name says"
            )
        return data
