"""The one exception a bad contract raises."""

from __future__ import annotations


class ContractError(Exception):
    """A contract file that cannot be loaded or compiled.

    The message reads ``FILE:FIELD: message`` where FIELD is a dotted path into the
    document (``schema[0].properties[2].logicalType``), so an editor can jump to it.
    """

    def __init__(self, file: str, field: str, message: str) -> None:
        self.file = file
        self.field = field
        self.message = message
        super().__init__(f"{file}:{field}: {message}")
