"""plumbline's public Dagster namespace: the component a project's ``defs.yaml`` names as
``type: plumbline.MigrationComponent`` (registered for ``dg list components`` and
``dg scaffold defs`` through the ``dagster_dg_cli.registry_modules`` entry point).

May import: pipelines.component.
"""

from pipelines.component import MigrationComponent

__all__ = ["MigrationComponent"]
