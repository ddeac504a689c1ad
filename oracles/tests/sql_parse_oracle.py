"""The engines' own parsers for the SQL parse oracle (oracles/tests/sqlparse.rs).

Reads one JSON object a line ({"sql": "..."}) on stdin and writes one a line:
{"duckdb": {"kinds": [...]} | {"error": "..."}, "postgres": {...}}. Nothing is
executed: DuckDB's `extract_statements` splits and classifies the text with
DuckDB's own parser, and pglast (libpg_query, PostgreSQL's own grammar) parses
it into PostgreSQL's statement nodes. With `--versions`, prints the versions.
"""
import json
import sys

import duckdb
import pglast
import pglast.parser


def duck(sql):
    try:
        return {"kinds": [str(s.type).rsplit(".", 1)[-1] for s in duckdb.extract_statements(sql)]}
    except Exception as e:  # a syntax error: DuckDB refuses the text
        return {"error": str(e).splitlines()[0][:200] if str(e) else type(e).__name__}


def pg_kind(stmt):
    name = type(stmt).__name__
    # COPY … TO STDOUT sends rows to the client: a read. COPY FROM, to a file
    # or a program is not.
    if name == "CopyStmt" and not stmt.is_from and stmt.filename is None and not stmt.is_program:
        return "CopyToClient"
    return name


def pg(sql):
    try:
        return {"kinds": [pg_kind(raw.stmt) for raw in pglast.parser.parse_sql(sql)]}
    except Exception as e:
        return {"error": str(e).splitlines()[0][:200] if str(e) else type(e).__name__}


def main():
    if sys.argv[1:] == ["--versions"]:
        major, minor = pglast.parser.get_postgresql_version()
        print(json.dumps({"duckdb": duckdb.__version__, "pglast": pglast.__version__,
                          "libpg_query_postgresql": f"{major}.{minor}"}))
        return
    for line in sys.stdin:
        if not line.strip():
            continue
        sql = json.loads(line)["sql"]
        print(json.dumps({"duckdb": duck(sql), "postgres": pg(sql)}), flush=True)


if __name__ == "__main__":
    main()
