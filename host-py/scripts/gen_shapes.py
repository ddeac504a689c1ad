"""Writes `src/toolgate/shapes.py`, the Python shapes of the toolgate policy.

The shapes are defined once, elsewhere, and this script only translates them:

- the records and enums of the WIT's `types` interface (`wit/toolgate.wit`),
  which is what crosses the component boundary as typed values (the decision,
  a parsed call, augmented tools, candidates, requests, checked lines, hook
  answers) — `shapes/tests/wit.rs` holds the Rust shapes crate to the same
  names;
- the shapes crate's structs that cross as JSON text (`Imported` of
  `import-openapi`, `Layered` of `layer-config`), read from their Rust source.

Each WIT enum becomes a `Literal` of its case names (as jco makes a string
union), each record or struct a frozen dataclass whose fields keep the order
and, in snake_case, the names of the canonical JSON every runtime prints; the
doc comments come along. `python scripts/gen_shapes.py --check` fails when the
committed module differs from what the sources give (host-py's tests run it).

Standard library only: it runs before anything is installed.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
WIT = ROOT / "wit" / "toolgate.wit"
OUT = HERE.parent / "src" / "toolgate" / "shapes.py"

# The shapes crate's structs that cross the boundary as JSON text: (file, struct).
RUST_STRUCTS = [("shapes/src/registry.rs", "Imported"), ("shapes/src/config.rs", "Layered")]


class Item:
    """One enum or record: its name, doc lines and members (name, type, doc)."""

    def __init__(self, kind: str, name: str, doc: list[str]):
        self.kind = kind
        self.name = name
        self.doc = doc
        self.members: list[tuple[str, str, list[str]]] = []


def camel(name: str) -> str:
    return "".join(part.capitalize() for part in re.split(r"[-_]", name))


def snake(name: str) -> str:
    return name.replace("-", "_")


def interface_body(text: str, name: str) -> str:
    start = text.index(f"interface {name} {{")
    depth = 0
    for i in range(start, len(text)):
        if text[i] == "{":
            depth += 1
        elif text[i] == "}":
            depth -= 1
            if depth == 0:
                return text[start + len(f"interface {name} {{") : i]
    raise SystemExit(f"interface {name} is not closed in {WIT}")


def wit_items(text: str) -> list[Item]:
    """The enums and records of the `types` interface, in WIT order."""
    items: list[Item] = []
    doc: list[str] = []
    current: Item | None = None
    for raw in interface_body(text, "types").splitlines():
        line = raw.strip()
        if line.startswith("///"):
            doc.append(line[3:].strip())
            continue
        if not line or line.startswith("//"):
            continue
        head = re.fullmatch(r"(enum|record) ([a-z0-9-]+) \{", line)
        if head:
            current = Item(head.group(1), head.group(2), doc)
            items.append(current)
        elif line == "}":
            current = None
        elif current is not None:
            if current.kind == "enum":
                current.members.append((line.rstrip(","), "", doc))
            else:
                field = re.fullmatch(r"([a-z0-9-]+): (.+),", line)
                if not field:
                    raise SystemExit(f"cannot read the WIT field `{line}` of {current.name}")
                current.members.append((field.group(1), field.group(2), doc))
        else:
            raise SystemExit(f"cannot read the WIT line `{line}` in interface types")
        doc = []
    return items


def rust_items() -> list[Item]:
    """The shapes crate's JSON structs named in RUST_STRUCTS."""
    items = []
    for file, name in RUST_STRUCTS:
        text = (ROOT / file).read_text()
        match = re.search(r"((?:\s*///[^\n]*\n)*)\s*#\[derive[^\n]*\]\n(?:#\[[^\n]*\]\n)*pub struct " + name + r" \{\n(.*?)\n\}", text, re.S)
        if not match:
            raise SystemExit(f"no `pub struct {name}` in {file}")
        item = Item("struct", name, [l.strip()[3:].strip() for l in match.group(1).strip().splitlines()])
        doc: list[str] = []
        for raw in match.group(2).splitlines():
            line = raw.strip()
            if line.startswith("///"):
                doc.append(line[3:].strip())
                continue
            field = re.fullmatch(r"pub ([a-z0-9_]+): (.+),", line)
            if not field:
                raise SystemExit(f"cannot read the field `{line}` of {name} in {file}")
            item.members.append((field.group(1), field.group(2), doc))
            doc = []
        items.append(item)
    return items


def py_type(ty: str, enums: set[str]) -> str:
    """A WIT or Rust type as a Python annotation."""
    ty = ty.strip()
    simple = {"string": "str", "String": "str", "u8": "int", "u16": "int", "u32": "int", "u64": "int",
              "bool": "bool", "serde_json::Value": "Any"}
    if ty in simple:
        return simple[ty]
    generic = re.fullmatch(r"(option|list|Option|Vec)<(.+)>", ty)
    if generic:
        inner = py_type(generic.group(2), enums)
        return f"Optional[{inner}]" if generic.group(1) in ("option", "Option") else f"List[{inner}]"
    pair = re.fullmatch(r"tuple<(.+), (.+)>", ty)
    if pair:
        return f"Tuple[{py_type(pair.group(1), enums)}, {py_type(pair.group(2), enums)}]"
    if ty == "serde_json::Map<String, serde_json::Value>":
        return "Dict[str, Any]"
    if re.fullmatch(r"[a-z0-9-]+", ty):
        return camel(ty)
    raise SystemExit(f"no Python type for `{ty}`")


def lift(ty: str, value: str, enums: set[str]) -> str:
    """Python code that turns wasmtime's value of WIT type `ty` into the shape."""
    ty = ty.strip()
    if ty in ("string", "u8", "u16", "u32", "u64", "bool") or ty in enums:
        return value
    generic = re.fullmatch(r"(option|list)<(.+)>", ty)
    if generic:
        inner = lift(generic.group(2), "x", enums)
        if generic.group(1) == "option":
            return value if inner == "x" else f"(None if {value} is None else {lift(generic.group(2), value, enums)})"
        return f"list({value})" if inner == "x" else f"[{inner} for x in {value}]"
    if re.fullmatch(r"tuple<(.+), (.+)>", ty):
        return f"tuple({value})"
    return f"{camel(ty)}._lift({value})"


def docstring(lines: list[str], indent: str) -> str:
    text = " ".join(lines).replace('"""', "'''").replace("\\", "\\\\")
    return f'{indent}"""{text}"""\n' if text else ""


def render(items: list[Item], structs: list[Item]) -> str:
    enums = {i.name for i in items if i.kind == "enum"}
    out = [
        '"""The shapes of the toolgate policy, as Python types.\n\n'
        "Generated by `host-py/scripts/gen_shapes.py` from `wit/toolgate.wit` (the\n"
        "`types` interface) and the shapes crate's "
        + ", ".join(f"`{n}`" for _, n in RUST_STRUCTS)
        + ": do not edit;\nrun the script instead. Field order and names are those of the canonical JSON\n"
        'every runtime prints (`to_json`).\n"""\n\n'
        "# fmt: off\n"
        "from __future__ import annotations\n\n"
        "from dataclasses import dataclass\n"
        "from typing import Any, Dict, List, Literal, Optional, Tuple\n\n"
        "from ._json import dumps\n"
    ]
    for item in items:
        if item.kind != "enum":
            continue
        names = ", ".join(f'"{m}"' for m, _, _ in item.members)
        out.append(f"\n{camel(item.name)} = Literal[{names}]\n")
        out.append(docstring(item.doc, ""))
        out.append(f"{snake(item.name).upper()}S: Tuple[{camel(item.name)}, ...] = ({names},)\n")
    for item in [i for i in items if i.kind == "record"] + structs:
        out.append(f"\n\n@dataclass(frozen=True)\nclass {camel(item.name)}:\n")
        out.append(docstring(item.doc, "    "))
        for name, ty, doc in item.members:
            out.append(f"\n    {snake(name)}: {py_type(ty, enums)}\n")
            out.append(docstring(doc, "    "))
        out.append("\n    def to_json(self) -> str:\n")
        out.append('        """The canonical JSON form, byte-identical in every runtime."""\n')
        out.append("        return dumps(self)\n")
        if item.kind == "record":
            out.append("\n    @classmethod\n")
            out.append(f'    def _lift(cls, v: Any) -> "{camel(item.name)}":\n')
            args = ", ".join(f"{snake(n)}={lift(t, f'getattr(v, {n!r})', enums)}" for n, t, _ in item.members)
            out.append(f"        return cls({args})\n")
        else:
            out.append("\n    @classmethod\n")
            out.append(f'    def _from_json(cls, v: Dict[str, Any]) -> "{camel(item.name)}":\n')
            args = ", ".join(f"{n}=v[{n!r}]" for n, _, _ in item.members)
            out.append(f"        return cls({args})\n")
    out.append("\n\n__all__ = [\n")
    for item in items + structs:
        out.append(f'    "{camel(item.name)}",\n')
        if item.kind == "enum":
            out.append(f'    "{snake(item.name).upper()}S",\n')
    out.append("]\n")
    return "".join(out)


def main() -> int:
    text = render(wit_items(WIT.read_text()), rust_items())
    if sys.argv[1:] == ["--check"]:
        if OUT.read_text() != text:
            print(f"{OUT} is stale: run python {Path(__file__).relative_to(ROOT)}", file=sys.stderr)
            return 1
        return 0
    OUT.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
