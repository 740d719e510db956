"""The compliance audit trail: collect a model version's chain, seal it (Merkle digests),
verify it, and present it (HTML report, OpenLineage events).

May import: sql, pipelines.lake, pipelines.translation, pipelines.warehouse,
pipelines.registry.
"""
