"""YAML text to Python values, with libyaml's parser where PyYAML has it.

The pure-Python parser behind ``yaml.safe_load`` is about twenty times slower than libyaml's,
and a run reads the catalog, the contracts and the component files in every step that needs
them. Both parsers feed the same safe constructor, so a document that libyaml parses gives
the same values. A document libyaml refuses is parsed again by the pure-Python parser, which
either accepts it (it never was an error: the two disagree on a few edge cases) or raises
the error it always raised, with the wording and location users have seen.
"""

from __future__ import annotations

from typing import Any

import yaml

_FAST = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def safe_load(text: str) -> Any:
    """``yaml.safe_load(text)``, faster."""
    try:
        return yaml.load(text, Loader=_FAST)
    except yaml.YAMLError:
        return yaml.safe_load(text)


def safe_load_all(text: str) -> list[Any]:
    """``list(yaml.safe_load_all(text))``, faster."""
    try:
        return list(yaml.load_all(text, Loader=_FAST))
    except yaml.YAMLError:
        return list(yaml.safe_load_all(text))
