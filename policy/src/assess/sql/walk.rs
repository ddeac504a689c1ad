//! Every walk of a syntax tree goes through one visitor type.
//!
//! The parser's `Visit` walk is generic over the visitor: each visitor type the
//! policy hands it instantiates a copy of the whole walk over every node type
//! of every dialect's tree, about 50 KB of the shipped component apiece. The
//! walks here (the query check, the table list, the recursion and streaming
//! proofs) all go through [`Walk`], which forwards each hook to a trait object,
//! so the component holds the walk once. A hook costs an indirect call, small
//! beside the parse that made the tree.

use sqlparser::ast::{
    Expr, GroupByExpr, Ident, ObjectName, OrderBy, OrderByExpr, Query, Select, Statement,
    TableFactor, ValueWithSpan, Visit, Visitor,
};
use std::ops::ControlFlow;

/// Walks `node` with `visitor`: every hook of `visitor` is called as the
/// parser's own walk would call it.
pub(super) fn walk<N: Visit + ?Sized>(
    node: &N,
    visitor: &mut dyn Visitor<Break = ()>,
) -> ControlFlow<()> {
    node.visit(&mut Walk(visitor))
}

/// Calls `f` on every relation (table name) in `node`, in the parser's order,
/// until it breaks: what `sqlparser::ast::visit_relations` does, on the one walk.
pub(super) fn relations<N: Visit + ?Sized>(
    node: &N,
    f: impl FnMut(&ObjectName) -> ControlFlow<()>,
) -> ControlFlow<()> {
    walk(node, &mut Relations(f))
}

struct Relations<F>(F);

impl<F: FnMut(&ObjectName) -> ControlFlow<()>> Visitor for Relations<F> {
    type Break = ();

    fn pre_visit_relation(&mut self, relation: &ObjectName) -> ControlFlow<()> {
        (self.0)(relation)
    }
}

/// The one visitor type the parser's walk is instantiated for.
struct Walk<'a>(&'a mut dyn Visitor<Break = ()>);

/// Every hook of the parser's `Visitor`, handed to `$each!` as
/// `name(NodeType);` items: one list for the forwarding walk and its test.
macro_rules! hooks {
    ($each:ident) => {
        $each! {
            pre_visit_query(Query);
            post_visit_query(Query);
            pre_visit_select(Select);
            post_visit_select(Select);
            pre_visit_relation(ObjectName);
            post_visit_relation(ObjectName);
            pre_visit_table_factor(TableFactor);
            post_visit_table_factor(TableFactor);
            pre_visit_expr(Expr);
            post_visit_expr(Expr);
            pre_visit_statement(Statement);
            post_visit_statement(Statement);
            pre_visit_value(ValueWithSpan);
            post_visit_value(ValueWithSpan);
            pre_visit_ident(Ident);
            post_visit_ident(Ident);
            pre_visit_order_by(OrderBy);
            post_visit_order_by(OrderBy);
            pre_visit_order_by_expr(OrderByExpr);
            post_visit_order_by_expr(OrderByExpr);
            pre_visit_group_by(GroupByExpr);
            post_visit_group_by(GroupByExpr);
        }
    };
}

/// Forwards each named hook to the trait object.
macro_rules! forward {
    ($($hook:ident($node:ty);)*) => {
        $(
            fn $hook(&mut self, node: &$node) -> ControlFlow<()> {
                self.0.$hook(node)
            }
        )*
    };
}

impl Visitor for Walk<'_> {
    type Break = ();

    hooks!(forward);
}

#[cfg(test)]
mod tests {
    use super::*;
    use sqlparser::dialect::PostgreSqlDialect;
    use sqlparser::parser::Parser;

    /// Records every hook, to compare the forwarded walk with the parser's own.
    #[derive(Default)]
    struct Trace(Vec<String>);

    macro_rules! record {
        ($($hook:ident($node:ty);)*) => {
            $(
                fn $hook(&mut self, node: &$node) -> ControlFlow<()> {
                    self.0.push(format!("{} {}", stringify!($hook), node));
                    ControlFlow::Continue(())
                }
            )*
        };
    }

    impl Visitor for Trace {
        type Break = ();
        hooks!(record);
    }

    /// Fails if a hook is not forwarded: every hook the parser's walk calls on
    /// these statements must reach the visitor through [`Walk`] too.
    #[test]
    fn the_one_walk_calls_every_hook_the_parsers_walk_calls() {
        let sql = "WITH t AS (SELECT a, 'x' AS b FROM s.u WHERE a > 1) \
                   SELECT count(*), b FROM t JOIN v ON t.a = v.a GROUP BY b ORDER BY b LIMIT 3; \
                   DELETE FROM w WHERE id IN (SELECT id FROM t2)";
        let statements = Parser::parse_sql(&PostgreSqlDialect {}, sql).unwrap_or_default();
        assert_eq!(statements.len(), 2);
        let mut seen = Vec::new();
        for statement in &statements {
            let mut direct = Trace::default();
            let _ = statement.visit(&mut direct);
            let mut forwarded = Trace::default();
            let _ = walk(statement, &mut forwarded);
            assert_eq!(forwarded.0, direct.0);
            seen.extend(direct.0);
        }
        // The statements above reach these hooks (the parser's walk does not
        // call the value hook on read-only trees in this version).
        for hook in [
            "query",
            "select",
            "relation",
            "table_factor",
            "expr",
            "statement",
            "ident",
            "order_by",
        ] {
            let pre = format!("pre_visit_{hook} ");
            assert!(
                seen.iter().any(|h| h.starts_with(&pre)),
                "{hook} not exercised"
            );
        }
        let mut names = Vec::new();
        let _ = relations(&statements, |r| {
            names.push(r.to_string());
            ControlFlow::Continue(())
        });
        let mut direct = Vec::new();
        let _ = sqlparser::ast::visit_relations(&statements, |r| {
            direct.push(r.to_string());
            ControlFlow::<()>::Continue(())
        });
        assert_eq!(names, direct);
    }
}
