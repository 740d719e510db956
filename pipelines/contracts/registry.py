"""Published contracts: the contract each table was last published under, kept per version.

``<root>/<table>/<version>.yaml`` is a byte copy of the contract file that guarded a
publish. A version, once published, is immutable: changing a contract means a new version,
and the breaking-change guard compares against the latest published one.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pipelines.contracts.breaking import check_version_bump, parse_version
from pipelines.contracts.errors import ContractError
from pipelines.contracts.lint import LintError
from pipelines.contracts.model import Contract, load_contract
from pipelines.lake.files import write_atomic


@dataclass(frozen=True)
class PublishedContracts:
    root: Path

    def _folder(self, table: str) -> Path:
        return Path(self.root) / table

    def versions(self, table: str) -> list[Path]:
        """Published copies of ``table``'s contract, oldest version first."""
        folder = self._folder(table)
        if not folder.is_dir():
            return []
        copies = [(parse_version(p.stem), p) for p in folder.glob("*.yaml")]
        return [path for version, path in sorted(c for c in copies if c[0] is not None)]

    def latest(self, table: str) -> Contract | None:
        versions = self.versions(table)
        return load_contract(versions[-1]) if versions else None

    def problems(self, contract: Contract) -> list[LintError]:
        """Why ``contract`` may not guard a publish: its version was published with other
        content, or it breaks the latest published version without a major version bump."""
        file = str(contract.path)
        published = self._folder(contract.table) / f"{contract.version}.yaml"
        if published.is_file():
            if published.read_bytes() != Path(contract.path).read_bytes():
                return [
                    LintError(
                        file,
                        "version",
                        f"version {contract.version} was already published with different "
                        f"content ({published}); give the changed contract a new version",
                    )
                ]
            return []
        try:
            latest = self.latest(contract.table)
        except ContractError as exc:
            return [
                LintError(exc.file, exc.field, f"published contract is unreadable: {exc.message}")
            ]
        return [] if latest is None else check_version_bump(latest, contract)

    def record(self, contract: Contract) -> Path:
        """Keep a copy of the contract that guarded a publish (atomic; idempotent)."""
        folder = self._folder(contract.table)
        target = folder / f"{contract.version}.yaml"
        if target.is_file():
            return target
        return write_atomic(target, Path(contract.path).read_bytes())
