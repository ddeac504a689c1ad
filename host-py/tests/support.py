"""What the Python tests share: where the repository is, the installed package, the Rust CLI."""

from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
VECTORS = ROOT / "tests" / "conformance"
OUT = ROOT / "target" / "conformance"
RUST_CLI = ROOT / "target" / "release" / "toolgate"


def installed() -> None:
    """Fails unless `toolgate` is the installed package, not the source tree:
    the tests test what `pip install ./host-py` made."""
    import toolgate

    source = (ROOT / "host-py" / "src").resolve()
    if Path(toolgate.__file__).resolve().is_relative_to(source):
        raise AssertionError(f"toolgate is imported from the source tree ({toolgate.__file__}): run the tests in a virtual environment where host-py is installed")


def python_cli() -> list:
    """The Python CLI as a command line."""
    return [sys.executable, "-m", "toolgate"]


def scratch_env(cache_dir: Path) -> dict:
    env = dict(os.environ)
    env["TOOLGATE_CACHE_DIR"] = str(cache_dir)
    return env
