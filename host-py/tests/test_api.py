"""The Python API: the shapes it returns, what it accepts, and its errors."""

from __future__ import annotations

import json
import unittest

import support
import toolgate
from toolgate import Decision, load_policy

POLICY = load_policy()


class Api(unittest.TestCase):
    def test_assess_takes_text_objects_and_anything_an_sdk_hands_over(self):
        d = POLICY.assess("execute_sql", '{"sql": "SELECT * FROM users"}')
        self.assertIsInstance(d, Decision)
        self.assertEqual((d.action, d.risk, d.source), ("allow", "low", "whitelist"))
        self.assertEqual(POLICY.assess("execute_sql", {"sql": "SELECT * FROM users"}), d)
        self.assertEqual(POLICY.assess("execute_command", None).action, "confirm")
        odd = POLICY.assess("execute_sql", {"sql": {1, 2}})
        self.assertEqual((odd.action, odd.findings[0].code), ("confirm", "args.invalid"))
        low = POLICY.assess("execute_command", {"command": "rm -rf /", "risk_level": "low"})
        self.assertEqual((low.action, low.source, low.llm_risk), ("confirm", "floor", "low"))
        # Lone surrogates (which UTF-8 cannot hold) are written as U+FFFD, as JavaScript's encoder does.
        self.assertEqual(POLICY.assess("execute_sql\ud800", "{}").summary.split(" ")[0], "execute_sql\ufffd")

    def test_the_canonical_json_is_the_clis(self):
        d = POLICY.assess("execute_sql", '{"sql":"SELECT 1; DROP TABLE t"}')
        self.assertEqual(
            json.loads(d.to_json()),
            {"action": d.action, "risk": d.risk, "source": d.source, "llm_risk": None, "findings": [{"code": f.code, "message": f.message} for f in d.findings], "summary": d.summary},
        )
        self.assertEqual(list(json.loads(d.to_json())), ["action", "risk", "source", "llm_risk", "findings", "summary"])

    def test_load_policy_with_a_configuration_and_engines(self):
        configured = load_policy({"denied_tools": ["execute_command"]})
        self.assertEqual(configured.assess("execute_command", {"command": "ls"}).action, "deny")
        with POLICY.engine('{"strict": true}') as strict:
            self.assertEqual(strict.assess("execute_sql", {"sql": "SELECT 1"}).source, "strict")
        with self.assertRaises(toolgate.ToolgateError):
            strict.assess("execute_sql", "{}")
        with self.assertRaises(toolgate.RejectedError) as e:
            POLICY.engine({"strict": "yes"})
        self.assertIn("strict", str(e.exception))
        engine = POLICY.engine({})
        many = engine.assess_many([("execute_sql", {"sql": "SELECT 1"}), {"tool": "execute_command", "args": '{"command":"rm -rf /"}'}])
        self.assertEqual([d.action for d in many], ["allow", "confirm"])

    def test_calls_in_every_format_check_and_augment(self):
        call = POLICY.parse_call({"type": "function_call", "call_id": "c2", "name": "execute_command", "arguments": '{"command":"ls"}'})
        self.assertEqual((call.tool, call.id, call.format), ("execute_command", "c2", "openai-responses"))
        self.assertEqual(json.loads(call.to_json())["format"], "openai-responses")
        with self.assertRaises(toolgate.RejectedError):
            POLICY.parse_call({"args": {}})
        self.assertEqual(POLICY.assess_call({"functionCall": {"name": "execute_sql", "args": {"sql": "SHOW TABLES"}}}).action, "allow")
        self.assertEqual(POLICY.strip_risk_level('{"sql":"SELECT 1","risk_level":"low"}'), '{"sql":"SELECT 1"}')
        checked = POLICY.check(b'{"tool":"execute_sql","args":{"sql":"SELECT 1"}}\n\nnot json\n')
        self.assertEqual([c.action for c in checked], ["allow", None])
        self.assertEqual(checked[1].output, '{"line":3,"error":"the call is not valid JSON"}')
        tools, notes = POLICY.augment([{"type": "function", "function": {"name": "a", "parameters": {"type": "object"}}}], "openai-chat")
        self.assertIsInstance(tools, list)
        self.assertIn("risk_level", json.dumps(tools))
        self.assertEqual(notes, [])
        text, _ = POLICY.augment('[{"name":"a","input_schema":{"type":"object"}}]')
        self.assertIsInstance(text, str)
        with self.assertRaises(toolgate.RejectedError):
            POLICY.augment("not json")

    def test_guidance_openapi_layers_and_registry_tools(self):
        self.assertIn("risk_level", POLICY.guidance())
        self.assertNotEqual(POLICY.guidance("zh"), POLICY.guidance("en"))
        imported = POLICY.import_openapi({"openapi": "3.0.0", "paths": {"/pets/{id}": {"delete": {"operationId": "deletePet", "tags": ["pet"]}}}})
        self.assertEqual(list(imported.tools), ["deletePet"])
        self.assertEqual(imported.tools["deletePet"]["risk_level"], 3)
        with self.assertRaises(toolgate.RejectedError):
            POLICY.import_openapi({"info": {}})
        layered = POLICY.layer_config([("managed", '{"denied_tools": ["execute_command"]}'), {"layer": "user", "config": {"strict": True}}])
        self.assertIn("strict = true  (user)", layered.explain)
        self.assertEqual(load_policy(layered.config).assess("execute_command", {"command": "ls"}).action, "deny")
        registry = POLICY.engine((support.ROOT / "examples" / "monitoring" / "registry.json").read_text())
        found = registry.discover("mute alert", limit=3)
        self.assertTrue(found and all(isinstance(c, toolgate.Candidate) for c in found))
        with self.assertRaises(toolgate.RequestError) as e:
            registry.build_request(found[0].name, {})
        self.assertTrue(e.exception.findings)
        self.assertEqual(POLICY.read_response(200, '{"dat":[1,2],"error":""}'), (True, "[1,2]"))
        self.assertEqual(POLICY.read_response(404, '{"dat":null,"error":"no such endpoint"}')[0], False)

    def test_audit_verification(self):
        with self.assertRaises(toolgate.AuditBrokenError) as e:
            POLICY.verify_audit('{"seq":1}\n')
        self.assertEqual(e.exception.line, 1)
        self.assertEqual(POLICY.verify_audit(""), (0, "0" * 64))


if __name__ == "__main__":
    unittest.main()
