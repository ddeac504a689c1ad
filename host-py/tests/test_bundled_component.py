"""The bundled component is the one its build recorded: a component copied
over it without its digest is refused (read for compiling, or changed after
the digest and so never matched to the cached artifact of the component the
digest names), and the bundled component of a source checkout, whatever an
earlier build left there, is never loaded. Each case runs a copy of the
installed package in a child process."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
import unittest
from pathlib import Path

import support
from toolgate import _runtime

CHILD = textwrap.dedent(
    """
    import sys
    import toolgate
    assert toolgate.__file__.startswith(sys.argv[1]), toolgate.__file__
    try:
        policy = toolgate.load_policy(**({"component": sys.argv[2]} if len(sys.argv) > 2 else {}))
    except toolgate.LoadError as e:
        print("refused:", e)
    else:
        print("loaded:", policy.loaded_from, policy.assess("execute_sql", '{"sql": "SELECT 1"}').action)
    """
)


class BundledComponent(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        support.installed()

    def setUp(self):
        self.work = Path(tempfile.mkdtemp(prefix="toolgate-bundled-"))
        self.addCleanup(shutil.rmtree, self.work, True)
        self.cache = self.work / "cache"
        # The compiled artifact of the installed component, so no child compiles.
        sha = _runtime.BUNDLED_SHA256.read_text().strip()
        artifact = _runtime.default_cache_dir() / _runtime.artifact_name(sha)
        if not artifact.is_file():
            import toolgate

            toolgate.load_policy()
        self.cache.mkdir()
        shutil.copyfile(artifact, self.cache / artifact.name)

    def package(self, under: Path) -> Path:
        """A copy of the installed package under `under`, its component and digest as built."""
        target = under / "toolgate"
        shutil.copytree(_runtime.BUNDLED.parent, target, ignore=shutil.ignore_patterns("__pycache__"), copy_function=shutil.copy2)
        return target

    def child(self, where: Path, *args: str) -> str:
        env = support.scratch_env(self.cache)
        env["PYTHONPATH"] = str(where)
        r = subprocess.run([sys.executable, "-c", CHILD, str(where), *args], env=env, capture_output=True, text=True, timeout=300)
        self.assertEqual(r.returncode, 0, r.stderr)
        return r.stdout.strip()

    def test_the_copy_as_built_loads_from_the_cache(self):
        self.package(self.work / "site")
        self.assertTrue(self.child(self.work / "site").startswith("loaded: cache:"))

    def test_a_component_copied_in_without_its_digest_is_refused(self):
        package = self.package(self.work / "site")
        wasm = package / "toolgate.wasm"
        # Another component (here: the same bytes and a custom section more),
        # written after the digest, as a copy over an installed package is.
        data = wasm.read_bytes() + b"\x00\x06\x05stale"
        wasm.write_bytes(data)
        digest = package / "toolgate.wasm.sha256"
        stamp = digest.stat().st_mtime_ns
        os.utime(wasm, ns=(stamp + 1_000_000_000, stamp + 1_000_000_000))
        out = self.child(self.work / "site")
        self.assertTrue(out.startswith("refused: the bundled component"), out)
        self.assertIn("not the one its build recorded", out)
        # Read for compiling (no artifact to trust), even when the stamps say
        # the digest came last: still refused.
        for artifact in self.cache.iterdir():
            artifact.unlink()
        os.utime(wasm, ns=(stamp - 1_000_000_000, stamp - 1_000_000_000))
        out = self.child(self.work / "site")
        self.assertTrue(out.startswith("refused: the bundled component"), out)

    def test_the_bundled_component_of_a_source_checkout_is_never_loaded(self):
        clone = self.work / "clone"
        (clone / "policy" / "component").mkdir(parents=True)
        source = clone / "host-py" / "src"
        package = self.package(source)
        out = self.child(source)
        self.assertTrue(out.startswith("refused: toolgate is imported from the source tree"), out)
        self.assertIn("pip install ./host-py", out)
        # A component named by path is the caller's choice and loads.
        out = self.child(source, str(package / "toolgate.wasm"))
        self.assertTrue(out.startswith("loaded: "), out)
        self.assertTrue(out.endswith(" allow"), out)


if __name__ == "__main__":
    unittest.main()
