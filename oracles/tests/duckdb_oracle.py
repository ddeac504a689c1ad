"""The DuckDB side of the DuckDB oracle (driven by oracles/tests/duckdb.rs).

Reads one JSON object on standard input: the fixture statements, the tables to
fingerprint, the benign statements to learn the normal file accesses from, and
the calls to judge. For each statement it stats a marker path (so the system
call trace, taken by the Rust side, can be cut per statement), snapshots what
a statement could change (settings, attached databases, catalog, sequences,
extensions, secrets, table contents, the open transaction), runs the statement
on an in-memory database with a two-second interrupt, snapshots again and
prints one JSON line with the outcome and every difference.
"""

import json
import os
import sys
import threading

import duckdb

TIMEOUT_SECONDS = 2.0
PREPARE_ERRORS = (
    duckdb.ParserException,
    duckdb.CatalogException,
    duckdb.BinderException,
    duckdb.NotImplementedException,
)


def mark(tag):
    try:
        os.stat("/toolgate-oracle-mark/" + tag)
    except OSError:
        pass


def snapshot(con, tables):
    rows = lambda q: repr(con.execute(q).fetchall())
    state = {
        "settings": rows("SELECT name, value FROM duckdb_settings() ORDER BY name"),
        "databases": rows("SELECT database_name, path, readonly FROM duckdb_databases() ORDER BY 1"),
        "tables": rows("SELECT database_name, schema_name, table_name FROM duckdb_tables() ORDER BY ALL"),
        "views": rows("SELECT database_name, schema_name, view_name FROM duckdb_views() WHERE NOT internal ORDER BY ALL"),
        "sequences": rows("SELECT sequence_name, last_value FROM duckdb_sequences() ORDER BY ALL"),
        "functions": rows("SELECT count(*) FROM duckdb_functions() WHERE NOT internal"),
        "extensions": rows("SELECT extension_name, loaded, installed FROM duckdb_extensions() ORDER BY 1"),
        "secrets": rows("SELECT name, type FROM duckdb_secrets() ORDER BY ALL"),
        "current schema": rows("SELECT current_database(), current_schema()"),
    }
    contents = " UNION ALL ".join(
        f"SELECT '{table}', count(*), sum(hash(t)) FROM {table} t" for table in tables
    )
    for table, count, digest in con.execute(f"SELECT * FROM ({contents})").fetchall():
        state["table contents of " + table] = f"{count} rows, hash {digest}"
    return state


def run(con, sql):
    timer = threading.Timer(TIMEOUT_SECONDS, con.interrupt)
    timer.start()
    try:
        try:
            statements = con.extract_statements(sql)
        except PREPARE_ERRORS as e:
            return "prepare", str(e)
        for statement in statements:
            try:
                result = con.execute(statement)
                try:
                    while result.fetchmany(10000):
                        pass
                except duckdb.InvalidInputException:
                    pass  # a statement without a result set
            except duckdb.InterruptException as e:
                return "timeout", str(e)
            except duckdb.OutOfMemoryException as e:
                return "out of memory", str(e)
            except PREPARE_ERRORS as e:
                return "prepare", str(e)
            except duckdb.Error as e:
                return "error", str(e)
        return "ok", ""
    finally:
        timer.cancel()


def main():
    job = json.load(sys.stdin)
    con = duckdb.connect(":memory:")
    con.execute("SET threads = 1")
    con.execute("SET memory_limit = '1GB'")
    for statement in job["fixture"]:
        con.execute(statement)
    print(json.dumps({"ignore_prefixes": sorted({sys.prefix, sys.base_prefix, os.path.dirname(duckdb.__file__)})}), flush=True)
    # Only statements change the state, so one statement's after is the
    # next one's before.
    before = snapshot(con, job["tables"])
    for phase in ("learn", "check", "call"):
        for i, sql in enumerate(job[phase]):
            mark(f"{phase}-{i}")
            status, error = run(con, sql)
            mark(f"end-{phase}-{i}")
            left_open = False
            try:
                con.execute("ROLLBACK")
                left_open = True
            except duckdb.Error:
                pass
            after = snapshot(con, job["tables"])
            changes = [f"{k}: {before[k]} became {after.get(k)}" for k in before if before[k] != after.get(k)]
            changes += [f"{k} appeared: {after[k]}" for k in after if k not in before]
            if left_open:
                changes.append("left a transaction open")
            print(json.dumps({"phase": phase, "i": i, "status": status, "error": error[:300], "changes": changes}), flush=True)
            before = after


main()
