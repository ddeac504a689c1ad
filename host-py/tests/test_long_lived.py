"""One Policy kept for a long time, as a server embedding the library keeps
it: engines made and closed, long idle spells, many calls. Every operation
must still work at the end, without a fault (the Rust host's tests/long_lived.rs and the JavaScript host's
test/long-lived.test.js are the same shape).

The fault these tests pin: closing an engine runs the component's destructor
for its resource, and it ran under the epoch deadline the instance's last
call had set, already past once the instance had idled longer than the work
limit; the destructor was interrupted and the next call faulted."""

from __future__ import annotations

import time
import unittest

import support  # noqa: F401  (puts the package on the path)
from toolgate import load_policy

SELECT = '{"sql":"SELECT 1"}'
DELETE = '{"sql":"DELETE FROM sessions WHERE expired"}'


class LongLived(unittest.TestCase):
    def test_engine_closed_after_an_idle_spell(self) -> None:
        policy = load_policy(work_limit=0.25)
        for cycle in range(3):
            engine = policy.engine("{}")
            self.assertEqual(engine.assess("execute_sql", SELECT).action, "allow")
            time.sleep(0.3)
            engine.close()
            again = policy.engine("{}")
            self.assertEqual(again.assess("execute_sql", SELECT).action, "allow", f"cycle {cycle}")
            self.assertEqual(policy.assess("execute_sql", DELETE).action, "confirm")
            again.close()
        self.assertEqual(policy._runtime.faults, 0)

    def test_many_calls_keep_the_instance(self) -> None:
        policy = load_policy()
        for _ in range(50):
            engine = policy.engine("{}")
            for _ in range(100):
                self.assertEqual(engine.assess("execute_sql", SELECT).action, "allow")
            engine.close()
        self.assertEqual(policy._runtime.faults, 0)


if __name__ == "__main__":
    unittest.main()
