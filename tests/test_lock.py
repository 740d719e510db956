"""The locks under requirements/ are current: each was resolved from today's pyproject.toml
(the digest in its header), pins every requirement pyproject.toml and its input files name, pins
each distribution exactly with hashes, and agrees with the other locks on every version; and the
environment running these tests was installed from requirements/dev.lock.

Re-resolving here would need the package index and minutes; the digest catches an edit to
pyproject.toml without ``make lock``, the pin check catches a lock edited by hand.
"""

from __future__ import annotations

import importlib.util
import re
import sys
import tomllib
from collections import defaultdict
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from types import ModuleType

import pytest
from packaging.markers import Marker, default_environment
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

from sql.paths import REPOSITORY_ROOT

LOCK_SCRIPT = REPOSITORY_ROOT / "requirements" / "lock.py"
PIN = re.compile(r"^(?P<name>[A-Za-z0-9._-]+)==(?P<version>\S+)\s*(?:;\s*(?P<marker>.*?))?\s*$")
HASH = re.compile(r"--hash=sha256:[0-9a-f]{64}")


def _load_lock_script() -> ModuleType:
    # requirements/ is no package of the project; its script is loaded from its file. The module
    # is registered before it runs: dataclasses looks its module up in sys.modules.
    spec = importlib.util.spec_from_file_location("requirements_lock", LOCK_SCRIPT)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


lock_script = _load_lock_script()
LOCKS = {lock.name: lock for lock in lock_script.LOCKS}


@dataclass(frozen=True)
class Pin:
    name: str  # canonical: lower case, runs of -_. as one -
    version: Version
    marker: Marker | None
    hashes: tuple[str, ...]


def pins(text: str) -> list[Pin]:
    """The ``name==version [; marker] --hash=...`` entries of a pip requirements file."""
    entries = []
    for line in re.sub(r"\\\n", " ", text).splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        hashes = tuple(HASH.findall(line))
        requirement = HASH.sub("", line)
        match = PIN.match(requirement)
        assert match, f"not an exact pin: {line!r}"
        entries.append(
            Pin(
                canonicalize_name(match["name"]),
                Version(match["version"]),
                Marker(match["marker"]) if match["marker"] else None,
                hashes,
            )
        )
    return entries


def target_environment(lock) -> dict[str, str]:
    """The marker environment of the interpreter and platform ``lock`` was resolved for."""
    machine = lock.platform.split("-", 1)[0]
    environment = default_environment()
    environment.update(
        python_version=lock_script.PYTHON_VERSION,
        python_full_version=f"{lock_script.PYTHON_VERSION}.0",
        implementation_name="cpython",
        platform_python_implementation="CPython",
        sys_platform="linux",
        platform_system="Linux",
        os_name="posix",
        platform_machine=machine,
    )
    return environment


def requirements(lock, pyproject: Path) -> list[Requirement]:
    """What ``lock`` must satisfy: pyproject.toml's build requirements, dependencies and the
    lock's extras (for a lock resolved from it), and the lines of its input files."""
    lines = []
    if lock.pyproject:
        data = tomllib.loads(pyproject.read_text())
        project = data["project"]
        lines += [*data["build-system"]["requires"], *project["dependencies"]]
        for extra in lock.extras:
            lines += project["optional-dependencies"][extra]
    for name in lock.inputs:
        text = (REPOSITORY_ROOT / "requirements" / name).read_text()
        lines += [line for line in text.splitlines() if line.strip() and not line.startswith("#")]
    return [Requirement(line) for line in lines]


def unmet(lock, pyproject: Path = lock_script.PYPROJECT) -> list[str]:
    """The requirements of ``lock`` that no pin of its file satisfies on its target."""
    environment = target_environment(lock)
    pinned = [
        pin
        for pin in pins(lock.path.read_text())
        if pin.marker is None or pin.marker.evaluate(environment)
    ]
    missing = []
    for requirement in requirements(lock, pyproject):
        if requirement.marker is not None and not requirement.marker.evaluate(environment):
            continue
        name = canonicalize_name(requirement.name)
        if not any(
            pin.name == name and requirement.specifier.contains(pin.version, prereleases=True)
            for pin in pinned
        ):
            missing.append(str(requirement))
    return missing


def recorded_digest(lock) -> str | None:
    for line in lock.path.read_text().splitlines():
        if line.startswith(lock_script.DIGEST_PREFIX):
            return line.removeprefix(lock_script.DIGEST_PREFIX)
    return None


@pytest.mark.parametrize("name", sorted(LOCKS))
def test_lock_was_resolved_from_the_current_inputs(name):
    lock = LOCKS[name]
    assert lock.path.exists(), f"requirements/{name} is missing: run `make lock`"
    sources = (["pyproject.toml"] if lock.pyproject else []) + [
        f"requirements/{input_name}" for input_name in lock.inputs
    ]
    assert recorded_digest(lock) == lock_script.input_digest(lock), (
        f"{' or '.join(sources)} changed since requirements/{name} was generated: "
        "run `make lock` and commit the locks"
    )


@pytest.mark.parametrize("name", sorted(LOCKS))
def test_lock_pins_every_requirement(name):
    missing = unmet(LOCKS[name])
    assert not missing, f"requirements/{name} pins nothing that meets {missing}: run `make lock`"


@pytest.mark.parametrize("name", sorted(LOCKS))
def test_every_pin_is_exact_and_hashed(name):
    entries = pins(LOCKS[name].path.read_text())
    assert entries
    unhashed = [pin.name for pin in entries if not pin.hashes]
    assert not unhashed, f"requirements/{name}: no --hash for {unhashed}"
    once = defaultdict(list)
    for pin in entries:
        once[pin.name, str(pin.marker)].append(str(pin.version))
    assert not [key for key, versions in once.items() if len(versions) > 1]


def test_the_locks_agree_on_every_version():
    # torch aside: the CPU locks' 2.13.0+cpu and the training locks' 2.13.0 are one release.
    versions = defaultdict(set)
    for lock in LOCKS.values():
        for pin in pins(lock.path.read_text()):
            versions[pin.name].add(pin.version.public)
    differ = {name: sorted(found) for name, found in versions.items() if len(found) > 1}
    assert not differ, f"the locks pin different versions: {differ}; run `make lock`"


def test_a_dependency_added_to_pyproject_fails_the_checks(tmp_path):
    pyproject = tmp_path / "pyproject.toml"
    text = lock_script.PYPROJECT.read_text()
    pyproject.write_text(
        text.replace("dependencies = [\n", 'dependencies = [\n    "left-pad>=1",\n', 1)
    )
    lock = LOCKS["dev.lock"]
    assert unmet(lock, pyproject) == ["left-pad>=1"]
    assert lock_script.input_digest(lock, pyproject) != recorded_digest(lock)


def test_a_comment_in_pyproject_leaves_the_digest_alone(tmp_path):
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text("# a note\n" + lock_script.PYPROJECT.read_text())
    lock = LOCKS["dev.lock"]
    assert lock_script.input_digest(lock, pyproject) == lock_script.input_digest(lock)


@pytest.mark.parametrize("name", ["pip.lock", "dev.lock"])
def test_this_environment_was_installed_from_the_locks_make_install_uses(name):
    lock = LOCKS[name]
    environment = target_environment(lock)
    wrong = []
    for pin in pins(lock.path.read_text()):
        if pin.marker is not None and not pin.marker.evaluate(environment):
            continue
        try:
            installed = Version(metadata.version(pin.name))
        except metadata.PackageNotFoundError:
            installed = None
        if installed != pin.version:
            wrong.append(f"{pin.name} {installed} (lock: {pin.version})")
    assert not wrong, f"not installed as requirements/{name} pins: {wrong}; run `make install`"
