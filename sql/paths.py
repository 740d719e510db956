"""Where this repository's SQL and its data lie.

``sql/`` holds the legacy sources (``legacy/<dialect>/*.sql``), the hand-written ANSI tables
(``ansi/``), the reference queries the legacy corpus is checked against (``reference/``), the
ODCS contracts (``contracts/``), the catalog and the translation assumptions. Manifests and
reports name files relative to :data:`REPOSITORY_ROOT`, so they read the same on any machine.
"""

from __future__ import annotations

from pathlib import Path

SQL_ROOT = Path(__file__).resolve().parent
REPOSITORY_ROOT = SQL_ROOT.parent
LEGACY_ROOT = SQL_ROOT / "legacy"
ANSI_SQL_ROOT = SQL_ROOT / "ansi"
REFERENCE_ROOT = SQL_ROOT / "reference"
CONTRACTS_ROOT = SQL_ROOT / "contracts"
DEFAULT_CATALOG_PATH = SQL_ROOT / "catalog.yaml"
DEFAULT_ASSUMPTIONS_PATH = SQL_ROOT / "assumptions.yaml"


def repository_relative(path: Path) -> str:
    """``path`` relative to the repository when it lies inside it, else as given."""
    resolved = Path(path).resolve()
    return (
        str(resolved.relative_to(REPOSITORY_ROOT))
        if resolved.is_relative_to(REPOSITORY_ROOT)
        else str(path)
    )
