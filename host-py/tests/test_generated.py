"""The generated modules are what their sources give: the shapes from the WIT
and the shapes crate, the CLI grammar from the Rust CLI's declarations. Each
generator is run in check mode against the committed module."""

import subprocess
import sys
import unittest

import support


class Generated(unittest.TestCase):
    def test_generated_modules_are_current(self):
        for script in ("gen_shapes.py", "gen_grammar.py"):
            r = subprocess.run([sys.executable, str(support.ROOT / "host-py" / "scripts" / script), "--check"], capture_output=True, text=True)
            self.assertEqual(r.returncode, 0, f"{script}: {r.stderr}")

    def test_the_shapes_are_the_wit_records(self):
        import dataclasses

        from toolgate import shapes

        wit = (support.ROOT / "wit" / "toolgate.wit").read_text()
        decision = [f.name for f in dataclasses.fields(shapes.Decision)]
        self.assertEqual(decision, ["action", "risk", "source", "llm_risk", "findings", "summary"])
        for name in decision:
            self.assertIn(f"{name.replace('_', '-')}:", wit)
        self.assertEqual(shapes.ACTIONS, ("allow", "confirm", "deny"))


if __name__ == "__main__":
    unittest.main()
