"""The code location's component instances, one folder each with its ``defs.yaml``: the TPC-H
demo is ``tpch_demo/`` (``dg list defs`` walks them; ``pipelines.definitions`` loads them).

May import: nothing.
"""
