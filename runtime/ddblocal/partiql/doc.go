// Package partiql parses the PartiQL statements DynamoDB runs
// (ExecuteStatement, BatchExecuteStatement, ExecuteTransaction) into the
// trees of the expression language, package expr, so that a PartiQL WHERE
// clause and a ConditionExpression are evaluated by the same code and
// cannot drift apart.
//
// # Statements
//
//	SELECT * | path, ... FROM "table"[."index"] [WHERE cond] [ORDER BY key [ASC|DESC]]
//	INSERT INTO "table" VALUE {'attr': value, ...}
//	UPDATE "table" SET path = value, ... REMOVE path, ... WHERE cond
//	    [RETURNING ALL OLD * | MODIFIED OLD * | ALL NEW * | MODIFIED NEW *]
//	DELETE FROM "table" WHERE cond [RETURNING ALL OLD *]
//	EXISTS(SELECT * FROM "table" WHERE cond)
//
// Names are bare or "double-quoted"; strings are 'single-quoted'; values
// are strings, numbers, TRUE, FALSE, NULL, maps {...}, lists [...], sets
// <<...>> and ? parameters; comments (-- and /* */) are skipped. Conditions use = <> != < <= > >=, BETWEEN, IN
// [...], AND, OR, NOT, IS [NOT] MISSING, IS [NOT] type, begins_with,
// contains, attribute_type, attribute_exists, attribute_not_exists and
// size. SET values may add or subtract, call list_append or
// if_not_exists, and set_add(path, set) and set_delete(path, set), which
// become ADD and DELETE actions.
//
// # Trees
//
// Parse returns a Statement whose Where, Update and Projection are expr
// trees in which every attribute name is a #placeholder (Names) and every
// value a :placeholder (Values, bound to the request's parameters by
// Bind). Printed with String, a tree is an expression DynamoDB's expression
// parser accepts whatever the attribute names are, reserved words
// included:
//
//	st, _ := partiql.Parse(`UPDATE "t" SET data = 'x' WHERE pk = ?`)
//	st.Update.String() // SET #n0 = :v0
//	st.Where.String()  // #n1 = :v1
//
// Conjuncts, Equality and Placeholders help the engine split a WHERE clause
// into a key and the remaining condition, and pass only the placeholders an
// expression uses.
//
// # What it is not for
//
// The package knows nothing of tables: which attributes are keys, whether a
// SELECT is a Query or a Scan, and how writes are applied are the engine's
// business (runtime/ddblocal). Errors are *Error carrying DynamoDB's
// ValidationException message.
package partiql
