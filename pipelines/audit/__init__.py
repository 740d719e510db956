"""The compliance audit trail: collect the chain of a model version or of a warehouse table,
seal it (Merkle digests), verify it, and present it (HTML report, OpenLineage events).

May import: sql, pipelines.lake, pipelines.translation, pipelines.warehouse,
pipelines.registry.
"""
