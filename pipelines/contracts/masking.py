"""Values of classified columns, masked before they leave the data.

A contract column's ODCS ``classification`` decides whether its values may be shown in what
a validation reports (failing-row samples, expectation details, and so the asset checks'
descriptions, metadata and logs built from them). ODCS v3 leaves the classification a free
string; plumbline accepts four common levels (``model.CLASSIFICATIONS``) and masks
restricted and confidential values.

A masked value is a keyed hash, ``masked:<12 hex digits>`` (HMAC-SHA256 of the value): the
same value gives the same token in every check made with the same key, so a reviewer can
still follow a row from one failing check to another, while nobody without the key can test
a guess (a phone number, a name from ``Customer#000000001`` upwards) against a token.

The key is ``PLUMBLINE_MASKING_KEY`` or the home's ``masking.key``; pipelines/settings.py
reads the one and names the other, and the contracts resource hands both to a ``Masker``.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from pipelines.contracts.model import Contract
from pipelines.lake.files import atomic_path

# Of model.CLASSIFICATIONS, the levels whose values are masked; public and internal data
# may be shown to whoever reads the Dagster instance.
MASKED_CLASSIFICATIONS = frozenset({"restricted", "confidential"})

TOKEN_PREFIX = "masked:"
TOKEN_HEX_DIGITS = 12  # 48 bits: collisions among one check's 20 sample rows are negligible


class MaskingKeyError(Exception):
    """The masking key cannot be read or made; the message names the file."""


def stored_key(path: Path) -> bytes:
    """The masking key kept in ``path`` (the home's ``masking.key``): 32 random bytes as hex,
    written there the first time it is asked for.

    The key is written whole to a file of its own and then hard-linked into place, because a
    link, unlike a rename, fails when the name exists: of two processes making the key at
    once (two steps of one run), one wins and both then read its key.
    """
    path = Path(path)
    if not path.exists():
        candidate = path.with_name(f".{path.name}.{secrets.token_hex(8)}")
        # atomic_path writes through mkstemp, which creates the file with mode 0600.
        with atomic_path(candidate) as temporary:
            temporary.write_text(secrets.token_hex(32) + "\n", encoding="ascii")
        try:
            os.link(candidate, path)
        except FileExistsError:
            pass
        finally:
            candidate.unlink(missing_ok=True)
    try:
        text = path.read_text(encoding="ascii")
    except OSError as exc:
        raise MaskingKeyError(f"{path}: cannot read the masking key: {exc.strerror}") from exc
    except UnicodeDecodeError:
        text = ""
    try:
        key = bytes.fromhex(text.strip())
    except ValueError:
        key = b""
    if not key:
        # The message must not quote the file: whatever is in it may be the key.
        raise MaskingKeyError(
            f"{path}: not a masking key (hex digits); remove it to have a new one made, "
            "or set PLUMBLINE_MASKING_KEY"
        )
    return key


class Masker:
    """Turns values into ``masked:<hex>`` tokens under one key.

    The key is ``key`` (a deployment's ``PLUMBLINE_MASKING_KEY``) or, without one, the key
    kept in ``key_file`` (made there if need be), read the first time a value is masked, so a
    validation with nothing to mask never touches the home. A file, not a key made per
    masker, because Dagster runs each step in a process of its own: a key per process would
    give the same value different tokens in two checks of one run.
    """

    def __init__(self, key: bytes | None = None, *, key_file: Path | None = None) -> None:
        if key is not None and not key:
            raise MaskingKeyError("the masking key is empty")
        self._key = key
        self._key_file = key_file

    def __repr__(self) -> str:
        return "Masker(<key not shown>)"

    def token(self, value: object) -> object:
        """The token of ``value``; a missing value (None) stays None, it reveals nothing."""
        if value is None:
            return None
        if self._key is None:
            if self._key_file is None:
                # Fail closed: a value that must be masked is never shown unmasked.
                raise MaskingKeyError(
                    "a restricted value must be masked, but this validation was given no "
                    "masking key (ContractsResource.masker() gives one)"
                )
            self._key = stored_key(self._key_file)
        text = value if isinstance(value, str) else json.dumps(value, sort_keys=True, default=str)
        digest = hmac.new(self._key, text.encode("utf-8"), hashlib.sha256).hexdigest()
        return TOKEN_PREFIX + digest[:TOKEN_HEX_DIGITS]


def masked_columns(contract: Contract) -> frozenset[str]:
    """The contract's columns whose values are masked."""
    return frozenset(
        column.name
        for column in contract.columns
        if column.classification in MASKED_CLASSIFICATIONS
    )


@dataclass(frozen=True)
class TableMasking:
    """What of one contract's table is masked, and the masker that does it."""

    masker: Masker
    masked: frozenset[str]
    declared: frozenset[str]

    @classmethod
    def of(cls, contract: Contract | None, masker: Masker | None = None) -> TableMasking:
        """The masking of ``contract``'s table; without a contract (none, or one that does
        not load), every column is masked."""
        if contract is None:
            return cls(masker or Masker(), frozenset(), frozenset())
        return cls(
            masker or Masker(),
            masked_columns(contract),
            frozenset(column.name for column in contract.columns),
        )

    def hides(self, column: str) -> bool:
        # A column the contract does not declare has no classification anyone reviewed, so
        # it is masked rather than shown.
        return column in self.masked or column not in self.declared

    def value(self, column: str | None, value: object) -> object:
        """``value`` of ``column`` as it may be shown; a row (a mapping) column by column."""
        if isinstance(value, Mapping):
            return self.row(value)
        if column is not None and self.hides(column):
            return self.masker.token(value)
        return value

    def values(self, column: str | None, values: Iterable[object]) -> list[object]:
        return [self.value(column, value) for value in values]

    def row(self, row: Mapping[str, object]) -> dict[str, object]:
        return {
            name: self.masker.token(value) if self.hides(name) else value
            for name, value in row.items()
        }

    def query_result(self, value: object) -> object:
        """The value an ODCS ``sql`` rule's query returned, as it may be shown.

        A query can select anything; numbers (the counts and ratios rules compare) are
        shown, anything else is masked when the table holds masked columns.
        """
        if not self.masked or value is None or isinstance(value, bool | int | float):
            return value
        return self.masker.token(value)
