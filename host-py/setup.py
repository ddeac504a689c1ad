"""Builds the package with the toolgate component of this source tree.

The component is not checked in. `build_py` writes it into the built package
(never into the source tree): from `$TOOLGATE_COMPONENT` when that names a
component file (a relative path from the clone's root if not from here), else by `cargo run --release -p toolgate-component`, which
reuses the component cargo has already built for this tree (the Rust host's
build makes it) and builds it only when it is missing or stale. Beside it goes
its SHA-256, so the cache of compiled components is keyed without hashing the
component at every start.
"""

import hashlib
import os
import shutil
import subprocess
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent


class BuildWithComponent(build_py):
    def run(self):
        super().run()
        target = (Path(self.build_lib) / "toolgate" / "toolgate.wasm").resolve()
        target.parent.mkdir(parents=True, exist_ok=True)
        given = os.environ.get("TOOLGATE_COMPONENT")
        if given:
            # pip may build from another directory: a relative path is taken
            # from where it names a file, else from the clone's root.
            source = Path(given)
            if not source.is_absolute() and not source.exists():
                source = ROOT / given
            shutil.copyfile(source, target)
        elif (ROOT / "policy" / "component").is_dir():
            subprocess.run(
                ["cargo", "run", "--quiet", "--release", "--locked", "--package", "toolgate-component", "--", str(target)],
                cwd=ROOT,
                check=True,
            )
        else:
            raise SystemExit(
                "toolgate: no component to bundle: build from a toolgate clone (with cargo), "
                "or set TOOLGATE_COMPONENT to a built toolgate.wasm"
            )
        digest = hashlib.sha256(target.read_bytes()).hexdigest()
        target.with_name("toolgate.wasm.sha256").write_text(digest + "\n")


setup(cmdclass={"build_py": BuildWithComponent})
