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


ROWS = 3


def quoted(name):
    return '"' + name.replace('"', '""') + '"'


def learn(fixture, calls):
    """The tables and columns the calls name that the fixture lacks, from
    DuckDB's own binder errors on PREPARE (which binds without running), on a
    database of its own with external access off (so learning reads no file
    and loads nothing the judged run would then find loaded): a missing table
    gets ROWS rows, a missing column the value 1 on every row, so joins on it
    fan out and parent_id = id walks meet a cycle. Returns the statements that
    add them and the tables made."""
    import re
    con = duckdb.connect(":memory:")
    for statement in fixture:
        con.execute(statement)
    con.execute("SET enable_external_access = false")
    made = []
    learnt = []
    for sql in calls:
        for _ in range(16):
            error = None
            try:
                for statement in con.extract_statements(sql):
                    con.execute("PREPARE toolgate_learn AS " + statement.query)
                    con.execute("DEALLOCATE toolgate_learn")
            except duckdb.Error as e:
                error = str(e)
            if not error:
                break
            tables = [r[0] for r in con.execute("SELECT table_name FROM duckdb_tables()").fetchall()]
            words = re.findall(r"[A-Za-z_][A-Za-z_0-9]*", sql)
            is_table = lambda w: any(t.lower() == w.lower() for t in tables)

            def table_of(alias):
                if is_table(alias):
                    return alias
                for i, w in enumerate(words):
                    if w.lower() == alias.lower() and i > 0:
                        before = words[i - 2] if words[i - 1].lower() == "as" and i >= 2 else words[i - 1]
                        if is_table(before):
                            return before
                return None

            ddl = None
            m = re.search(r'Table with name "?([^"!]+?)"? does not exist!', error)
            if m and not re.match(r"(pg_|information_schema|duckdb_|sqlite_)", m.group(1)) \
                    and not re.search(r"['\"]", m.group(1)):
                name = quoted(m.group(1))
                ddl = f"CREATE TABLE {name} AS SELECT 1 AS fixture_row FROM range({ROWS})"
                made.append(name)
            col = re.search(r'Table "(\w+)" does not have a column named "([^"]+)"', error)
            ref = re.search(r'Referenced column "([^"]+)" not found in FROM', error)
            if ddl is None and col:
                table = table_of(col.group(1))
                if table:
                    ddl = f"ALTER TABLE {quoted(table)} ADD COLUMN {quoted(col.group(2))} INTEGER DEFAULT 1"
            elif ddl is None and ref:
                table = next((w for w in words if is_table(w)), None)
                if table:
                    ddl = f"ALTER TABLE {quoted(table)} ADD COLUMN {quoted(ref.group(1))} INTEGER DEFAULT 1"
            if ddl is None:
                break
            try:
                con.execute(ddl)
            except duckdb.Error:
                break
            learnt.append(ddl)
    con.close()
    return learnt, made


def main():
    job = json.load(sys.stdin)
    con = duckdb.connect(":memory:")
    con.execute("SET threads = 1")
    con.execute("SET memory_limit = '1GB'")
    for statement in job["fixture"]:
        con.execute(statement)
    # The schema is learnt from the calls' own names before anything runs.
    learnt, made = learn(job["fixture"], job["call"])
    for statement in learnt:
        con.execute(statement)
    job["tables"] = job["tables"] + made
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
