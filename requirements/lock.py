"""Regenerate the lock files beside this script from pyproject.toml: ``make lock``.

pyproject.toml keeps the loose ranges a library needs; each lock pins every distribution one
kind of install gets, down to the sha256 of each file pip or uv may download, so an
environment a model was trained in can be rebuilt exactly (``pip install --require-hashes``).
The installs that use them: ``make install`` and CI (``pip.lock``, then ``dev.lock``), the code
location image (deploy/Dockerfile, ``pip.lock`` then ``code-location.lock``) and the training
image (deploy/Dockerfile.train, ``train-amd64.lock`` or ``train-arm64.lock``, one per platform
the image is built for).

Each lock's first lines record the digest of what it was resolved from (:func:`input_digest`),
so tests/test_lock.py fails when pyproject.toml changed and ``make lock`` was not run.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path

REQUIREMENTS = Path(__file__).resolve().parent
ROOT = REQUIREMENTS.parent
PYPROJECT = ROOT / "pyproject.toml"
PYTHON_VERSION = "3.11"
DIGEST_PREFIX = "# inputs: sha256:"
COMPILE_COMMAND = "make lock"


@dataclass(frozen=True)
class Lock:
    """One lock file: what it pins, for which interpreter and platform."""

    name: str
    purpose: str
    platform: str  # uv's --python-platform
    extras: tuple[str, ...] = ()
    inputs: tuple[str, ...] = ()  # requirement files beside this script
    pyproject: bool = True  # resolve pyproject.toml's dependencies too
    # The CPU build of torch (2.13.0+cpu), found through --find-links; the others get PyPI's
    # torch, which is the CUDA build.
    cpu_torch: bool = False

    @property
    def path(self) -> Path:
        return REQUIREMENTS / self.name


LOCKS = (
    Lock(
        "pip.lock",
        "pip, installed first by make install and deploy/Dockerfile (it installs the others)",
        "x86_64-manylinux_2_28",
        inputs=("pip.in",),
        pyproject=False,
    ),
    Lock(
        "dev.lock",
        "the dependencies and the dev extra, CPU torch; for make install and CI",
        "x86_64-manylinux_2_28",
        extras=("dev",),
        cpu_torch=True,
    ),
    Lock(
        "code-location.lock",
        "the dependencies and code-location.in, CPU torch; for deploy/Dockerfile",
        "x86_64-manylinux_2_28",
        inputs=("code-location.in",),
        cpu_torch=True,
    ),
    Lock(
        "train-amd64.lock",
        "the dependencies and train.in, CUDA torch; for deploy/Dockerfile.train, linux/amd64",
        "x86_64-manylinux_2_28",
        inputs=("train.in",),
    ),
    Lock(
        "train-arm64.lock",
        "the dependencies and train.in, CUDA torch; for deploy/Dockerfile.train, linux/arm64",
        "aarch64-manylinux_2_28",
        inputs=("train.in",),
    ),
)


def input_digest(lock: Lock, pyproject: Path = PYPROJECT) -> str:
    """sha256 of everything ``lock`` is resolved from: pyproject.toml's requires-python, build
    requirements, dependencies and the extras the lock takes (for a lock resolved from it), its
    input files' text, and its target. Comments and the rest of pyproject.toml (tool settings)
    do not count."""
    resolved_from: dict[str, object] = {
        "inputs": {name: (REQUIREMENTS / name).read_text() for name in lock.inputs},
        "python": PYTHON_VERSION,
        "platform": lock.platform,
    }
    if lock.pyproject:
        data = tomllib.loads(pyproject.read_text())
        project = data["project"]
        extras = project.get("optional-dependencies", {})
        resolved_from |= {
            "requires-python": project.get("requires-python"),
            "build-system": data.get("build-system", {}).get("requires", []),
            "dependencies": project.get("dependencies", []),
            "extras": {name: extras.get(name, []) for name in lock.extras},
        }
    canonical = json.dumps(resolved_from, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()


def header(lock: Lock) -> str:
    return (
        f"# requirements/{lock.name}: {lock.purpose}.\n"
        f"# CPython {PYTHON_VERSION}, {lock.platform}. Do not edit: regenerate with\n"
        f"# `{COMPILE_COMMAND}` (requirements/lock.py: uv pip compile --generate-hashes) after\n"
        "# changing pyproject.toml or an input file.\n"
        f"{DIGEST_PREFIX}{input_digest(lock)}\n"
    )


def compile_lock(lock: Lock, uv: str, cpu_torch_find_links: str) -> None:
    command = [
        uv, "pip", "compile",
        *(["pyproject.toml"] if lock.pyproject else []),
        *(f"requirements/{name}" for name in lock.inputs),
        *(f"--extra={extra}" for extra in lock.extras),
        "--generate-hashes",
        f"--python-version={PYTHON_VERSION}",
        f"--python-platform={lock.platform}",
        f"--custom-compile-command={COMPILE_COMMAND}",
        "--quiet",
    ]  # fmt: skip
    # Relative paths, so that the annotations ("# via ...") read the same on every machine.
    if lock.cpu_torch:
        command.append(f"--find-links={cpu_torch_find_links}")
    pinned = subprocess.run(command, check=True, capture_output=True, text=True, cwd=ROOT).stdout
    lock.path.write_text(header(lock) + pinned)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--uv", default="uv", help="the uv executable")
    parser.add_argument(
        "--cpu-torch-find-links",
        default="/opt/wheels",
        help="a folder or page holding the torch 2.13.0+cpu wheel (the CPU locks' torch)",
    )
    args = parser.parse_args(argv)
    for lock in LOCKS:
        compile_lock(lock, args.uv, args.cpu_torch_find_links)
        print(f"wrote {lock.path.relative_to(ROOT)}", file=sys.stderr)


if __name__ == "__main__":
    main()
