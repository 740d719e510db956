"""Writing a file so that readers see the old content or the new, whole: never a part.

Every file plumbline keeps outside a lake version (stored translations, contract copies, the
alias history and chargeback rows, audit bundles and reports, OpenLineage exports, imported
catalogs, the MLflow tracking store's sqlite file when it is made or migrated) is written through :func:`atomic_path` or :func:`write_atomic`: the data goes to a
temporary file in the target's own folder (a rename is atomic only within one file system),
is flushed to disk, and then replaces the target. A failure, a full disk included, removes
the temporary file and leaves the target as it was.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def atomic_path(target: Path) -> Iterator[Path]:
    """A temporary path beside ``target`` to write to; on a clean exit it replaces ``target``."""
    target = Path(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    handle, name = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    os.close(handle)
    temporary = Path(name)
    try:
        yield temporary
        # The rename must not reach the disk before the data does, or a crash could leave
        # the target's name pointing at an empty file.
        with open(temporary, "rb+") as written:
            os.fsync(written.fileno())
        os.replace(temporary, target)
    finally:
        temporary.unlink(missing_ok=True)


def write_atomic(target: Path, data: str | bytes) -> Path:
    """Replace ``target`` with ``data`` (text is written as UTF-8)."""
    with atomic_path(target) as temporary:
        if isinstance(data, str):
            temporary.write_text(data, encoding="utf-8")
        else:
            temporary.write_bytes(data)
    return Path(target)
