"""The translated ANSI SQL on disk: every legacy file translated (``store.translate_sources``)
and stored with a manifest (source digest, translator version, rules applied, lineage), read
back only when the stored SQL still matches its manifest.

May import: sql, pipelines.lake.
"""
