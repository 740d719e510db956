"""The repository's legacy SQL (``sql/legacy``) in the one form the ``ansi/`` and
``warehouse/`` assets are drawn from, for the tests that build the demo's assets."""

from functools import cache

from pipelines.translation.store import LegacySql
from sql.catalog import load_catalog
from sql.paths import LEGACY_ROOT


@cache
def demo_legacy() -> LegacySql:
    """``sql/legacy`` parsed with the repository's catalog, once per test process."""
    return LegacySql.parse(LEGACY_ROOT, load_catalog())
