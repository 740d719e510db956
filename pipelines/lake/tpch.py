"""Generate TPC-H tables as Parquet with the real generator, tpchgen-cli.

Pure functions over the file system and a subprocess: no Dagster here.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import sysconfig
from importlib.metadata import version
from pathlib import Path

TPCH_TABLES: tuple[str, ...] = (
    "region",
    "nation",
    "supplier",
    "customer",
    "part",
    "partsupp",
    "orders",
    "lineitem",
)

TABLE_DESCRIPTIONS: dict[str, str] = {
    "region": "The five TPC-H regions.",
    "nation": "The 25 nations, each in a region.",
    "supplier": "Suppliers (10,000 x scale), each in a nation.",
    "customer": "Customers (150,000 x scale) with market segment and nation.",
    "part": "Parts (200,000 x scale).",
    "partsupp": "Which supplier supplies which part, at what cost (800,000 x scale).",
    "orders": "Orders (1,500,000 x scale) with order date and priority.",
    "lineitem": (
        "Order lines (~6,000,000 x scale) with ship, commit and receipt dates: "
        "the delivery-delay model's raw material."
    ),
}


class GeneratorError(RuntimeError):
    """tpchgen-cli is missing or failed."""


def format_scale(scale: float) -> str:
    """``0.1`` -> ``"0.1"``, ``1.0`` -> ``"1"``: the form tpchgen-cli and humans expect."""
    return f"{scale:g}"


def generator_version() -> str:
    return f"tpchgen-cli {version('tpchgen-cli')}"


def generator_executable() -> Path:
    """The tpchgen-cli installed beside this interpreter, else the one on PATH.

    The interpreter's own scripts folder comes first because Dagster may run us from a
    virtual environment that is not on PATH.
    """
    candidates = [
        Path(sysconfig.get_path("scripts")) / "tpchgen-cli",
        Path(sys.executable).parent / "tpchgen-cli",
    ]
    for candidate in candidates:
        if candidate.is_file():
            return candidate
    found = shutil.which("tpchgen-cli")
    if found is None:
        raise GeneratorError(
            "tpchgen-cli is not installed; run `make install` (it is a dependency of plumbline)"
        )
    return Path(found)


def generate_table(table: str, scale: float, out_dir: Path, *, threads: int = 2) -> Path:
    """Write ``<out_dir>/<table>.parquet`` at ``scale`` and return its path."""
    if table not in TPCH_TABLES:
        raise GeneratorError(f"unknown TPC-H table {table!r}; expected one of {TPCH_TABLES}")
    cmd = [
        str(generator_executable()),
        "parquet",
        "--scale-factor",
        format_scale(scale),
        "--tables",
        table,
        "--output-dir",
        str(out_dir),
        "--num-threads",
        str(threads),
        "--quiet",
    ]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise GeneratorError(
            f"{' '.join(cmd)} exited {proc.returncode}: {proc.stderr.strip() or proc.stdout.strip()}"
        )
    path = out_dir / f"{table}.parquet"
    if not path.is_file():
        raise GeneratorError(f"{' '.join(cmd)} succeeded but wrote no {path.name}")
    return path
