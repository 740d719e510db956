"""The engines translated SQL is rendered for (``sql.render``): the one list every package
that names an engine (settings, the warehouse's engines, the CLI, the rule catalog) reads."""

from __future__ import annotations

from typing import Literal, get_args

Engine = Literal["duckdb", "spark"]
ENGINES: tuple[Engine, ...] = get_args(Engine)
