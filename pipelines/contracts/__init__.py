"""Data contracts: ODCS v3 files compiled to Great Expectations 1.x suites.

``load_contract`` -> ``compile_contract`` -> ``validate_parquet`` (inside DuckDB, one aggregate
scan with GX's verdicts, without GX) / ``validate_spark`` (GX on Spark) / ``validate_arrow``
(an in-memory table, GX on pandas);
``lint_contract`` checks a contract against its SQL, ``classify_changes`` and
``check_version_bump`` guard the versions; values of restricted and confidential columns
leave a validation masked (``Masker``; ``TableMasking`` masks other reports, such as a
reconciliation's rows, by the same classification). No Dagster here: assets wire these up.

May import: sql, pipelines.lake.
"""

from pipelines.contracts.breaking import Change, check_version_bump, classify_changes
from pipelines.contracts.compile import (
    CompiledContract,
    ExpectationInfo,
    SqlCheck,
    compile_contract,
)
from pipelines.contracts.errors import ContractError
from pipelines.contracts.lint import LintError, lint_contract
from pipelines.contracts.masking import Masker, MaskingKeyError, TableMasking
from pipelines.contracts.model import ColumnSpec, Contract, load_contract, load_contracts
from pipelines.contracts.results import ContractResult, ExpectationOutcome
from pipelines.contracts.scan import validate_parquet
from pipelines.contracts.validate import validate_arrow, validate_spark

__all__ = [
    "Change",
    "ColumnSpec",
    "CompiledContract",
    "Contract",
    "ContractError",
    "ContractResult",
    "ExpectationInfo",
    "ExpectationOutcome",
    "LintError",
    "Masker",
    "MaskingKeyError",
    "SqlCheck",
    "TableMasking",
    "check_version_bump",
    "classify_changes",
    "compile_contract",
    "lint_contract",
    "load_contract",
    "load_contracts",
    "validate_arrow",
    "validate_parquet",
    "validate_spark",
]
