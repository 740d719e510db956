"""The compliance audit trail: collect a model version's chain, seal it (Merkle digests),
verify it, and present it (HTML report, OpenLineage events)."""
