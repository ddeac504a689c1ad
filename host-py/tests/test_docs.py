"""The code of docs/python.md runs as written (from the repository's root), and
the values its comments show are what it gives."""

import contextlib
import io
import os
import re
import unittest

import support


class Docs(unittest.TestCase):
    def test_the_python_page_runs_as_written(self):
        page = (support.ROOT / "docs" / "python.md").read_text()
        blocks = re.findall(r"```python\n(.*?)```", page, re.S)
        self.assertGreaterEqual(len(blocks), 3)
        namespace: dict = {}
        here = os.getcwd()
        os.chdir(support.ROOT)
        try:
            for block in blocks:
                printed = io.StringIO()
                with contextlib.redirect_stdout(printed):
                    exec(compile(block, "docs/python.md", "exec"), namespace)
                # Every `print(...)  # shown` comment names what was printed.
                for shown in re.findall(r"print\(.*\)\s+# (.+)", block):
                    first = shown.split(" …")[0].split(", ")[0]
                    self.assertIn(first, printed.getvalue(), f"docs/python.md shows {shown!r}")
        finally:
            os.chdir(here)
        self.assertEqual(namespace["d"].source, "floor")
        self.assertEqual(namespace["engine"].assess("execute_command", {"command": "ls"}).action, "deny")


if __name__ == "__main__":
    unittest.main()
