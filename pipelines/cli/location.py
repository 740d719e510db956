"""Which project's definitions a ``plumbline`` command works on.

Like ``dg``, a command run inside a dg project (a folder whose ``pyproject.toml`` has a
``[tool.dg]`` project section) loads that project's code location; anywhere else it loads
this repository's own, the TPC-H demo (``pipelines.definitions``).
"""

from __future__ import annotations

import importlib
import os
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from pipelines.cli.errors import configuration_mistake, one_line
from pipelines.project import COMPONENT_TYPE
from sql.paths import REPOSITORY_ROOT

if TYPE_CHECKING:
    import dagster as dg

    from pipelines.project import Project, ProjectProblems

DEMO_MODULE = "pipelines.definitions"
# (project root, module, the PLUMBLINE_* settings) -> its Definitions, loaded in this process
# (CodeLocation.definitions).
_LOADED: dict[tuple[str, str, tuple[tuple[str, str], ...]], dg.Definitions] = {}


class LocationError(RuntimeError):
    """A project's pyproject.toml or definitions module cannot be used; the message names it."""


@dataclass(frozen=True)
class CodeLocation:
    root: Path  # the project's folder (its pyproject.toml)
    module: str  # the module whose `defs` are the code location

    @property
    def is_demo(self) -> bool:
        return self.module == DEMO_MODULE and self.root == REPOSITORY_ROOT

    def definitions(self) -> dg.Definitions:
        """The project's Definitions: its module's ``defs`` (a ``@dg.definitions`` function
        or a ``Definitions``), imported with the project folder on ``sys.path``. Loaded once
        per process: a run's ``execute_job`` reconstructs its job several times (7 for
        `plumbline run`), and a load parses the legacy tree and builds every asset; the
        settings it reads (PLUMBLINE_*) are part of the key."""
        settings = tuple(
            sorted((k, v) for k, v in os.environ.items() if k.startswith("PLUMBLINE_"))
        )
        key = (str(self.root), self.module, settings)
        if key not in _LOADED:
            try:
                _LOADED[key] = self._load()
            except Exception as exc:
                problems = self._configuration_problems(exc)
                if problems is None:
                    raise
                raise problems from None
        return _LOADED[key]

    def _configuration_problems(self, error: BaseException) -> ProjectProblems | None:
        """What a failed load says about the project's configuration: the problems our
        component reported (under Dagster's own error), else those our reading of each
        ``defs.yaml`` finds (one that is not YAML, a field the model refuses: Dagster
        refused it before the component saw it). None: the failure is no configuration
        mistake."""
        from pipelines.project import ProjectProblems

        mistake = configuration_mistake(error)
        if mistake is not None:
            return ProjectProblems.of(mistake)
        try:
            for path, attributes in self._instances():
                self._project(path, attributes, check_catalogs=True)
        except ProjectProblems as problems:
            return problems
        return None

    def _load(self) -> dg.Definitions:
        # Imported here, not first while Dagster loads the project's component: its warning
        # filters (see the module) would not outlast that loading.
        import pipelines.definitions  # noqa: F401

        if str(self.root) not in sys.path:
            sys.path.insert(0, str(self.root))
        try:
            module = importlib.import_module(self.module)
        except ModuleNotFoundError as exc:
            raise LocationError(
                f"{self.root / 'pyproject.toml'}: code location module {self.module!r} "
                f"cannot be imported ({exc})"
            ) from None
        import dagster as dg

        found = getattr(module, "defs", None)
        defs = found() if callable(found) else found
        if not isinstance(defs, dg.Definitions):
            raise LocationError(f"{self.module}: has no `defs` (a @dg.definitions function)")
        return defs

    def migration(self, *, check_catalogs: bool = True) -> tuple[Path, Project]:
        """The project's ``plumbline.MigrationComponent`` instance (its defs.yaml, and the
        project it describes), read without loading the code location: what ``plumbline
        catalog import --from-sources`` and ``contracts init`` work from. The demo's
        instance here; exactly one in a user's project. Raises ``ProjectProblems`` naming
        each field of its defs.yaml at fault."""
        from pipelines.project import demo_project
        from pipelines.settings import Settings

        if self.is_demo:
            return REPOSITORY_ROOT / "pipelines" / "defs", demo_project(Settings.from_env())
        found = self._instances()
        if len(found) != 1:
            where = ", ".join(str(p) for p, _ in found) or "none"
            raise LocationError(
                f"{self.root}: expected one {COMPONENT_TYPE} defs.yaml, found {where}"
            )
        path, attributes = found[0]
        return path, self._project(path, attributes, check_catalogs=check_catalogs)

    def _instances(self) -> list[tuple[Path, object]]:
        """Each ``plumbline.MigrationComponent`` defs.yaml of the project, with its
        attributes; raises ``ProjectProblems`` for a defs.yaml that is not YAML."""
        import yaml

        from pipelines.project import Problem, ProjectProblems
        from sql import yaml_text

        root = REPOSITORY_ROOT / "pipelines" / "defs" if self.is_demo else self.root
        found, problems = [], []
        for path in sorted(root.rglob("defs.yaml")):
            if ".venv" in path.parts or ".plumbline" in path.parts:
                continue
            try:
                documents = yaml_text.safe_load_all(path.read_text())
            except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
                mark = getattr(exc, "problem_mark", None)
                where = f"{mark.line + 1}:{mark.column + 1}" if mark is not None else ""
                message = getattr(exc, "problem", None) or one_line(str(exc))
                problems.append(Problem(where, f"not valid YAML: {message}", str(path)))
                continue
            for document in documents:
                if isinstance(document, dict) and document.get("type") == COMPONENT_TYPE:
                    found.append((path, document.get("attributes") or {}))
        if problems:
            raise ProjectProblems(problems, root=self.root)
        return found

    def _project(self, path: Path, attributes: object, *, check_catalogs: bool) -> Project:
        """The project one defs.yaml's ``attributes`` describe; raises ``ProjectProblems``
        naming that file and each field at fault."""
        from pipelines.component import MigrationComponent
        from pipelines.project import ProjectProblems
        from pipelines.settings import Settings

        try:
            component = MigrationComponent.from_attributes(attributes)
            return component.project(self.root, Settings.from_env(), check_catalogs=check_catalogs)
        except ProjectProblems as exc:
            raise exc.located(path, self.root) from None

    def job(self, name: str) -> dg.JobDefinition:
        return self.definitions().resolve_job_def(name)

    def reconstructable_job(self, name: str):
        """``name`` as ``dg.execute_job`` takes it: rebuilt from this location in any process."""
        import dagster as dg

        return dg.build_reconstructable_job(
            "pipelines.cli.location",
            "location_job",
            reconstructable_args=(str(self.root), self.module, name),
        )


def location_job(root: str, module: str, name: str) -> dg.JobDefinition:
    """The job ``name`` of the code location ``module`` under ``root`` (what
    :meth:`CodeLocation.reconstructable_job` reconstructs)."""
    return CodeLocation(Path(root), module).job(name)


def find_location(start: Path) -> CodeLocation:
    """The dg project ``start`` lies in (the nearest ``pyproject.toml`` with a ``[tool.dg]``
    project), or this repository's own code location."""
    for folder in [start.absolute(), *start.absolute().parents]:
        pyproject = folder / "pyproject.toml"
        if not pyproject.is_file():
            continue
        try:
            config = tomllib.loads(pyproject.read_text())
        except tomllib.TOMLDecodeError as exc:
            raise LocationError(f"{pyproject}: not valid TOML ({exc})") from None
        dg_config = config.get("tool", {}).get("dg", {})
        if dg_config.get("directory_type") != "project":
            continue
        project = dg_config.get("project", {})
        root_module = project.get("root_module")
        if not root_module:
            raise LocationError(f"{pyproject}: [tool.dg.project] has no root_module")
        module = project.get("code_location_target_module") or f"{root_module}.definitions"
        return CodeLocation(folder, module)
    return CodeLocation(REPOSITORY_ROOT, DEMO_MODULE)
