package conformance_test

import (
	"sort"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

const (
	pageQLSelect   = "PartiQL select statements for DynamoDB (Developer Guide)"
	pageQLInsert   = "PartiQL insert statements for DynamoDB (Developer Guide)"
	pageQLUpdate   = "PartiQL update statements for DynamoDB (Developer Guide)"
	pageQLDelete   = "PartiQL delete statements for DynamoDB (Developer Guide)"
	pageQLExecute  = "ExecuteStatement (DynamoDB API Reference)"
	pageQLBatch    = "BatchExecuteStatement (DynamoDB API Reference); Running batch operations with PartiQL for DynamoDB"
	pageQLTransact = "ExecuteTransaction (DynamoDB API Reference); Performing transactions with PartiQL for DynamoDB"
)

func execQL(t *testing.T, tg *target, stmt string, params ...types.AttributeValue) (*dynamodb.ExecuteStatementOutput, error) {
	t.Helper()
	in := &dynamodb.ExecuteStatementInput{Statement: aws.String(stmt)}
	if len(params) > 0 {
		in.Parameters = params
	}
	return tg.client.ExecuteStatement(ctx(t), in)
}

func mustQL(t *testing.T, tg *target, stmt string, params ...types.AttributeValue) []item {
	t.Helper()
	out, err := execQL(t, tg, stmt, params...)
	noErr(t, err, stmt)
	return out.Items
}

// sortedBy orders items by a string attribute, for order-free comparisons.
func sortedBy(items []item, name string) []item {
	sort.Slice(items, func(i, j int) bool {
		a, _ := items[i][name].(*types.AttributeValueMemberS)
		b, _ := items[j][name].(*types.AttributeValueMemberS)
		return a != nil && b != nil && a.Value < b.Value
	})
	return items
}

func wantItems(t *testing.T, got, want []item) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d items %s, want %d %s", len(got), show(got), len(want), show(want))
	}
	for i := range got {
		wantItem(t, got[i], want[i])
	}
}

func TestPartiQLInsertIsNotUpsert(t *testing.T) {
	doc(t, pageQLInsert, `If the DynamoDB table already has an item with the same primary key as the primary key of the item being inserted, DuplicateItemException is returned. Attribute names and string values are written with single quotation marks.`)
	each(t, func(t *testing.T, tg *target) {
		tbl := hashTable(t, tg)
		want := item{"pk": s("a"), "n": n("1"), "m": m(item{"l": l(boolv(true), null())}), "s": ss("x", "y")}
		mustQL(t, tg, `INSERT INTO "`+tbl+`" VALUE {'pk': 'a', 'n': 1, 'm': {'l': [TRUE, NULL]}, 's': <<'x', 'y'>>}`)
		wantItem(t, get(t, tg, tbl, item{"pk": s("a")}), want)
		_, err := execQL(t, tg, `INSERT INTO "`+tbl+`" VALUE {'pk': 'a', 'n': 2}`)
		wantErr(t, err, "DuplicateItemException", "Duplicate primary key exists in table")
		wantItem(t, get(t, tg, tbl, item{"pk": s("a")}), want)
		mustQL(t, tg, `INSERT INTO "`+tbl+`" VALUE {'pk': ?, 'v': ?}`, s("b"), ns("1", "2"))
		wantItem(t, get(t, tg, tbl, item{"pk": s("b")}), item{"pk": s("b"), "v": ns("1", "2")})
	})
}

func TestPartiQLSelectQueryAndScan(t *testing.T) {
	doc(t, pageQLSelect, `A SELECT whose WHERE clause has an equality or IN condition on the partition key reads those partitions (a Query); otherwise it scans the table. The projection is * or a list of attribute names or document paths; WHERE may use comparisons, BETWEEN, IN, begins_with, contains, IS MISSING and AND/OR/NOT.`)
	each(t, func(t *testing.T, tg *target) {
		tbl := compositeTable(t, tg, types.ScalarAttributeTypeN)
		for _, it := range []item{
			{"pk": s("a"), "sk": n("1"), "tag": s("red"), "doc": m(item{"l": l(s("x"), s("y"))})},
			{"pk": s("a"), "sk": n("2"), "tag": s("blue")},
			{"pk": s("a"), "sk": n("3"), "tag": s("red")},
			{"pk": s("b"), "sk": n("1"), "tag": s("redder")},
		} {
			put(t, tg, tbl, it)
		}
		q := `SELECT * FROM "` + tbl + `" WHERE `
		wantItems(t, mustQL(t, tg, q+`pk = 'a' AND sk BETWEEN 2 AND 3`), []item{
			{"pk": s("a"), "sk": n("2"), "tag": s("blue")}, {"pk": s("a"), "sk": n("3"), "tag": s("red")}})
		wantItems(t, mustQL(t, tg, q+`pk = ? AND sk > ? AND tag = 'red'`, s("a"), n("1")), []item{{"pk": s("a"), "sk": n("3"), "tag": s("red")}})
		wantItems(t, sortedBy(mustQL(t, tg, q+`pk IN ['b', 'a'] AND sk = 1`), "pk"), []item{
			{"pk": s("a"), "sk": n("1"), "tag": s("red"), "doc": m(item{"l": l(s("x"), s("y"))})}, {"pk": s("b"), "sk": n("1"), "tag": s("redder")}})
		// A Scan: no condition on the partition key.
		scan := mustQL(t, tg, q+`begins_with(tag, 'red') AND NOT (sk <> 1 AND doc IS MISSING) OR contains(tag, 'lu')`)
		if len(scan) != 3 {
			t.Errorf("scan got %s, want the items a/1, a/2 and b/1", show(scan))
		}
		wantItems(t, mustQL(t, tg, `SELECT tag, doc.l[1], "doc"."l" FROM "`+tbl+`" WHERE pk = 'a' AND sk = 1`), []item{
			{"tag": s("red"), "_2": s("y"), "l": l(s("x"), s("y"))}})
		wantItems(t, mustQL(t, tg, q+`pk = 'a' ORDER BY sk DESC`)[:1], []item{{"pk": s("a"), "sk": n("3"), "tag": s("red")}})
	})
}

func TestPartiQLSelectPages(t *testing.T) {
	doc(t, pageQLExecute, `Limit: the maximum number of items to evaluate (not necessarily the number of matching items). If DynamoDB processes the number of items up to the limit while processing the results, it stops and returns the results to that point, and a NextToken to continue with.`)
	each(t, func(t *testing.T, tg *target) {
		tbl := compositeTable(t, tg, types.ScalarAttributeTypeN)
		for i := 0; i < 7; i++ {
			put(t, tg, tbl, item{"pk": s("p"), "sk": n(string(rune('0' + i)))})
			put(t, tg, tbl, item{"pk": s("q"), "sk": n(string(rune('0' + i)))})
		}
		for _, stmt := range []string{
			`SELECT * FROM "` + tbl + `" WHERE pk = 'p'`,
			`SELECT * FROM "` + tbl + `" WHERE pk IN ['p', 'q']`,
			`SELECT * FROM "` + tbl + `"`,
		} {
			var got []item
			var token *string
			pages := 0
			for {
				out, err := tg.client.ExecuteStatement(ctx(t), &dynamodb.ExecuteStatementInput{Statement: aws.String(stmt), Limit: aws.Int32(3), NextToken: token, ConsistentRead: aws.Bool(true)})
				noErr(t, err, stmt)
				got = append(got, out.Items...)
				pages++
				if token = out.NextToken; token == nil || pages > 10 {
					break
				}
			}
			want := 7
			if stmt[len(stmt)-1] != '\'' {
				want = 14
			}
			if len(got) != want {
				t.Errorf("%s: %d items in %d pages of 3, want %d", stmt, len(got), pages, want)
			}
		}
		_, err := tg.client.ExecuteStatement(ctx(t), &dynamodb.ExecuteStatementInput{Statement: aws.String(`SELECT * FROM "` + tbl + `"`), NextToken: aws.String("bm90IGEgdG9rZW4")})
		wantValidation(t, err)
	})
}

func TestPartiQLUpdate(t *testing.T) {
	doc(t, pageQLUpdate, `UPDATE table [SET | REMOVE] path [= data] ... WHERE condition [RETURNING returnvalues]; the condition must resolve to a single primary key value. RETURNING ALL OLD *, MODIFIED OLD *, ALL NEW * and MODIFIED NEW * return the item's attributes before or after the update.`)
	each(t, func(t *testing.T, tg *target) {
		tbl := hashTable(t, tg)
		put(t, tg, tbl, item{"pk": s("k"), "n": n("5"), "old": s("x"), "tags": l(s("a"), s("b")), "ss": ss("a")})
		got := mustQL(t, tg, `UPDATE "`+tbl+`" SET n = n + 1, tags[0] = 'z' SET ss = set_add(ss, <<'b'>>) REMOVE old WHERE pk = 'k' RETURNING MODIFIED OLD *`)
		wantItems(t, got, []item{{"n": n("5"), "old": s("x"), "tags": l(s("a")), "ss": ss("a")}})
		want := item{"pk": s("k"), "n": n("6"), "tags": l(s("z"), s("b")), "ss": ss("a", "b")}
		wantItem(t, get(t, tg, tbl, item{"pk": s("k")}), want)
		wantItems(t, mustQL(t, tg, `UPDATE "`+tbl+`" SET "data" = ? WHERE pk = ? RETURNING ALL NEW *`, s("d"), s("k")), []item{
			{"pk": s("k"), "n": n("6"), "tags": l(s("z"), s("b")), "ss": ss("a", "b"), "data": s("d")}})
		if got := mustQL(t, tg, `UPDATE "`+tbl+`" REMOVE "data" WHERE pk = 'k' RETURNING MODIFIED NEW *`); len(got) != 0 {
			t.Errorf("MODIFIED NEW * of a removed attribute got %s, want no items", show(got))
		}
		_, err := execQL(t, tg, `UPDATE "`+tbl+`" SET n = 0 WHERE pk = 'k' AND n > 100`)
		wantErr(t, err, "ConditionalCheckFailedException", "The conditional request failed")
		_, err = execQL(t, tg, `UPDATE "`+tbl+`" SET n = 0 WHERE pk = 'ghost'`)
		wantErr(t, err, "ConditionalCheckFailedException", "The conditional request failed")
		if it := get(t, tg, tbl, item{"pk": s("ghost")}); it != nil {
			t.Errorf("UPDATE of a missing item created %s", show(it))
		}
		_, err = execQL(t, tg, `UPDATE "`+tbl+`" SET n = 0 WHERE n = 6`)
		wantValidation(t, err, "Where clause does not contain a mandatory equality on all key attributes")
		_, err = execQL(t, tg, `UPDATE "`+tbl+`" SET pk = 'x' WHERE pk = 'k'`)
		wantValidation(t, err, "Cannot update attribute pk. This attribute is part of the key")
		wantItem(t, get(t, tg, tbl, item{"pk": s("k")}), want)
	})
}

func TestPartiQLDelete(t *testing.T) {
	doc(t, pageQLDelete, `DELETE FROM table WHERE condition [RETURNING ALL OLD *]: the condition must resolve to a single primary key value; other conditions must hold for the item to be deleted.`)
	each(t, func(t *testing.T, tg *target) {
		tbl := compositeTable(t, tg, types.ScalarAttributeTypeS)
		put(t, tg, tbl, item{"pk": s("a"), "sk": s("1"), "v": s("keep")})
		_, err := execQL(t, tg, `DELETE FROM "`+tbl+`" WHERE pk = 'a'`)
		wantValidation(t, err, "Where clause does not contain a mandatory equality on all key attributes")
		_, err = execQL(t, tg, `DELETE FROM "`+tbl+`" WHERE pk = 'a' AND sk = '1' AND v = 'other'`)
		wantErr(t, err, "ConditionalCheckFailedException")
		if got := mustQL(t, tg, `DELETE FROM "`+tbl+`" WHERE pk = 'a' AND sk = '2' AND v = 'other' RETURNING ALL OLD *`); len(got) != 0 {
			t.Errorf("DELETE of a missing item returned %s, want nothing", show(got))
		}
		wantItems(t, mustQL(t, tg, `DELETE FROM "`+tbl+`" WHERE sk = '1' AND pk = 'a' AND v = 'keep' RETURNING ALL OLD *`), []item{{"pk": s("a"), "sk": s("1"), "v": s("keep")}})
		if it := get(t, tg, tbl, item{"pk": s("a"), "sk": s("1")}); it != nil {
			t.Errorf("DELETE left %s", show(it))
		}
	})
}

func TestPartiQLErrors(t *testing.T) {
	doc(t, pageQLExecute, `A malformed statement is a ValidationException ("Statement wasn't well formed, can't be processed: ..."); a statement on a table that does not exist is a ResourceNotFoundException. Neither changes anything.`)
	each(t, func(t *testing.T, tg *target) {
		tbl := hashTable(t, tg)
		put(t, tg, tbl, item{"pk": s("k"), "v": s("1")})
		for _, stmt := range []string{
			`SELECTT * FROMM "` + tbl + `"`,
			`UPDATE "` + tbl + `" SET v = '2' WHERE pk = 'k' AND`,
			`UPDATE "` + tbl + `" SET v = '2' WHERE pk = 'k' RETURNING`,
			`DELETE FROM "` + tbl + `" WHERE pk = 'k' RETURNING ALL NEW *`,
			`INSERT INTO "` + tbl + `" VALUE {'pk': 'k2', 'v': <<>>}`,
		} {
			_, err := execQL(t, tg, stmt)
			wantValidation(t, err)
		}
		_, err := execQL(t, tg, `SELECTT * FROMM "`+tbl+`"`)
		wantValidation(t, err, "Statement wasn't well formed, can't be processed: ")
		_, err = execQL(t, tg, `SELECT * FROM "`+tbl+`" WHERE pk = ?`)
		wantValidation(t, err, "Number of parameters in request and statement don't match.")
		_, err = tg.client.ExecuteStatement(ctx(t), &dynamodb.ExecuteStatementInput{Statement: aws.String(`SELECT * FROM "` + tbl + `"`), NextToken: aws.String("")})
		wantValidation(t, err, "nextToken", "Member must have length greater than or equal to 1")
		_, err = execQL(t, tg, `SELECT * FROM "conf-no-such-table" WHERE pk = 'x'`)
		wantErr(t, err, "ResourceNotFoundException")
		_, err = execQL(t, tg, `DELETE FROM "conf-no-such-table" WHERE pk = 'x'`)
		wantErr(t, err, "ResourceNotFoundException")
		wantItem(t, get(t, tg, tbl, item{"pk": s("k")}), item{"pk": s("k"), "v": s("1")})
		if it := get(t, tg, tbl, item{"pk": s("k2")}); it != nil {
			t.Errorf("a refused INSERT wrote %s", show(it))
		}
	})
}

func batchQL(stmts ...string) []types.BatchStatementRequest {
	out := make([]types.BatchStatementRequest, len(stmts))
	for i, st := range stmts {
		out[i] = types.BatchStatementRequest{Statement: aws.String(st)}
	}
	return out
}

func batchErrCode(r types.BatchStatementResponse) string {
	if r.Error == nil {
		return ""
	}
	return string(r.Error.Code)
}

func TestPartiQLBatch(t *testing.T) {
	doc(t, pageQLBatch, `BatchExecuteStatement runs up to 25 statements; each gets its own response, with Error (Code such as ValidationError, ResourceNotFound, ConditionalCheckFailed, DuplicateItem) when it fails, while the others still run. A read in a batch must name the full primary key, and the batch must consist of either read statements or write statements.`)
	each(t, func(t *testing.T, tg *target) {
		tbl := hashTable(t, tg)
		put(t, tg, tbl, item{"pk": s("a"), "v": s("1")})
		put(t, tg, tbl, item{"pk": s("b"), "v": s("2")})
		q := `SELECT * FROM "` + tbl + `" WHERE `
		out, err := tg.client.BatchExecuteStatement(ctx(t), &dynamodb.BatchExecuteStatementInput{
			Statements:             batchQL(q+`pk = 'a'`, q+`pk = 'b' AND v = '9'`, `SELECT * FROM "conf-no-such-table" WHERE pk = 'a'`, `SLECT * FROM "`+tbl+`"`, q+`v = '1'`, q+`pk = 'zz'`),
			ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal,
		})
		noErr(t, err, "BatchExecuteStatement")
		codes := make([]string, len(out.Responses))
		for i, r := range out.Responses {
			codes[i] = batchErrCode(r)
		}
		if got, want := show(codes), show([]string{"", "", "ResourceNotFound", "ValidationError", "ValidationError", ""}); got != want {
			t.Errorf("error codes %s, want %s", got, want)
		}
		wantItem(t, out.Responses[0].Item, item{"pk": s("a"), "v": s("1")})
		if out.Responses[1].Item != nil || out.Responses[5].Item != nil {
			t.Errorf("an unmatched or missing item came back: %s %s", show(out.Responses[1].Item), show(out.Responses[5].Item))
		}
		if msg := aws.ToString(out.Responses[3].Error.Message); msg != "Statement wasn't well formed, can't be processed: Expected data manipulation" {
			t.Errorf("malformed member: %q", msg)
		}
		if len(out.ConsumedCapacity) != 1 || aws.ToFloat64(out.ConsumedCapacity[0].CapacityUnits) != 1.5 {
			t.Errorf("consumed capacity %+v, want 1.5 units (three eventually consistent reads) on one table", out.ConsumedCapacity)
		}

		out, err = tg.client.BatchExecuteStatement(ctx(t), &dynamodb.BatchExecuteStatementInput{Statements: batchQL(
			`INSERT INTO "`+tbl+`" VALUE {'pk': 'a'}`,
			`INSERT INTO "`+tbl+`" VALUE {'pk': 'c', 'v': '3'}`,
			`UPDATE "`+tbl+`" SET v = '5' WHERE pk = 'b' AND v = '0'`,
			`DELETE FROM "`+tbl+`" WHERE pk = 'b' RETURNING ALL OLD *`,
		)})
		noErr(t, err, "BatchExecuteStatement writes")
		codes = codes[:0]
		for _, r := range out.Responses {
			codes = append(codes, batchErrCode(r))
		}
		if got, want := show(codes), show([]string{"DuplicateItem", "", "ConditionalCheckFailed", ""}); got != want {
			t.Errorf("error codes %s, want %s", got, want)
		}
		wantItem(t, out.Responses[3].Item, item{"pk": s("b"), "v": s("2")})
		wantItem(t, get(t, tg, tbl, item{"pk": s("c")}), item{"pk": s("c"), "v": s("3")})
		wantItem(t, get(t, tg, tbl, item{"pk": s("a")}), item{"pk": s("a"), "v": s("1")})

		_, err = tg.client.BatchExecuteStatement(ctx(t), &dynamodb.BatchExecuteStatementInput{Statements: batchQL(q+`pk = 'a'`, `DELETE FROM "`+tbl+`" WHERE pk = 'a'`)})
		wantValidation(t, err, "either read statements or write statements")
		_, err = tg.client.BatchExecuteStatement(ctx(t), &dynamodb.BatchExecuteStatementInput{Statements: []types.BatchStatementRequest{}})
		wantValidation(t, err, "statements", "Member must have length greater than or equal to 1")
		many := make([]string, 26)
		for i := range many {
			many[i] = q + `pk = 'a'`
		}
		_, err = tg.client.BatchExecuteStatement(ctx(t), &dynamodb.BatchExecuteStatementInput{Statements: batchQL(many...)})
		wantValidation(t, err, "Member must have length less than or equal to 25")
		wantItem(t, get(t, tg, tbl, item{"pk": s("a")}), item{"pk": s("a"), "v": s("1")})
	})
}

func txQL(stmts ...string) []types.ParameterizedStatement {
	out := make([]types.ParameterizedStatement, len(stmts))
	for i, st := range stmts {
		out[i] = types.ParameterizedStatement{Statement: aws.String(st)}
	}
	return out
}

func TestPartiQLTransaction(t *testing.T) {
	doc(t, pageQLTransact, `ExecuteTransaction runs up to 100 statements atomically: either all of them succeed or none. The transaction consists of read statements or of write statements, not both; EXISTS checks a condition on an item as ConditionCheck does. If any INSERT, UPDATE or DELETE fails, the transaction is cancelled with TransactionCanceledException and cancellation reasons from each statement. ClientRequestToken makes the call idempotent.`)
	each(t, func(t *testing.T, tg *target) {
		tbl := hashTable(t, tg)
		put(t, tg, tbl, item{"pk": s("acct"), "bal": n("100")})
		put(t, tg, tbl, item{"pk": s("old")})
		put(t, tg, tbl, item{"pk": s("other"), "bal": n("1")})
		T := `"` + tbl + `"`
		_, err := tg.client.ExecuteTransaction(ctx(t), &dynamodb.ExecuteTransactionInput{TransactStatements: txQL(
			`UPDATE `+T+` SET bal = bal - 30 WHERE pk = 'acct' AND bal >= 30`,
			`INSERT INTO `+T+` VALUE {'pk': 'pay', 'amount': 30}`,
			`DELETE FROM `+T+` WHERE pk = 'old'`,
		)})
		noErr(t, err, "ExecuteTransaction")
		wantItem(t, get(t, tg, tbl, item{"pk": s("acct")}), item{"pk": s("acct"), "bal": n("70")})
		wantItem(t, get(t, tg, tbl, item{"pk": s("pay")}), item{"pk": s("pay"), "amount": n("30")})
		if it := get(t, tg, tbl, item{"pk": s("old")}); it != nil {
			t.Errorf("DELETE in a transaction left %s", show(it))
		}

		_, err = tg.client.ExecuteTransaction(ctx(t), &dynamodb.ExecuteTransactionInput{TransactStatements: txQL(
			`INSERT INTO `+T+` VALUE {'pk': 'acct', 'amount': 1}`,
			`UPDATE `+T+` SET bal = 0 WHERE pk = 'other'`,
			`EXISTS(SELECT * FROM `+T+` WHERE pk = 'pay' AND amount > 1000)`,
		)})
		if got, want := show(reasonCodes(cancelled(t, err))), show([]string{"DuplicateItem", "None", "ConditionalCheckFailed"}); got != want {
			t.Errorf("cancellation reasons %s, want %s", got, want)
		}
		wantItem(t, get(t, tg, tbl, item{"pk": s("acct")}), item{"pk": s("acct"), "bal": n("70")})
		wantItem(t, get(t, tg, tbl, item{"pk": s("other")}), item{"pk": s("other"), "bal": n("1")})

		token := aws.String("partiql-replay-1")
		for i := 0; i < 2; i++ {
			_, err = tg.client.ExecuteTransaction(ctx(t), &dynamodb.ExecuteTransactionInput{ClientRequestToken: token,
				TransactStatements: []types.ParameterizedStatement{{Statement: aws.String(`UPDATE ` + T + ` SET bal = bal + ? WHERE pk = 'acct'`), Parameters: []types.AttributeValue{n("5")}}}})
			noErr(t, err, "ExecuteTransaction with a ClientRequestToken")
		}
		wantItem(t, get(t, tg, tbl, item{"pk": s("acct")}), item{"pk": s("acct"), "bal": n("75")})
		_, err = tg.client.ExecuteTransaction(ctx(t), &dynamodb.ExecuteTransactionInput{ClientRequestToken: token,
			TransactStatements: txQL(`UPDATE ` + T + ` SET bal = 0 WHERE pk = 'acct'`)})
		wantErr(t, err, "IdempotentParameterMismatchException")

		out, err := tg.client.ExecuteTransaction(ctx(t), &dynamodb.ExecuteTransactionInput{TransactStatements: txQL(
			`SELECT bal FROM `+T+` WHERE pk = 'acct'`,
			`SELECT * FROM `+T+` WHERE pk = 'nobody'`,
			`SELECT * FROM `+T+` WHERE pk = 'pay'`,
		)})
		noErr(t, err, "read ExecuteTransaction")
		if len(out.Responses) != 3 {
			t.Fatalf("got %d responses, want 3", len(out.Responses))
		}
		wantItem(t, out.Responses[0].Item, item{"bal": n("75")})
		wantItem(t, out.Responses[1].Item, nil)
		wantItem(t, out.Responses[2].Item, item{"pk": s("pay"), "amount": n("30")})

		for _, stmts := range [][]string{
			{`SELECT * FROM ` + T + ` WHERE pk = 'acct'`, `DELETE FROM ` + T + ` WHERE pk = 'pay'`},
			{`SELECT * FROM ` + T + ` WHERE bal > 1`},
			{`UPDATE ` + T + ` SET bal = 1 WHERE bal = 75`},
			{},
		} {
			_, err = tg.client.ExecuteTransaction(ctx(t), &dynamodb.ExecuteTransactionInput{TransactStatements: txQL(stmts...)})
			wantValidation(t, err)
		}
		wantItem(t, get(t, tg, tbl, item{"pk": s("pay")}), item{"pk": s("pay"), "amount": n("30")})
	})
}

func TestPartiQLSelectMultiAttributeIndex(t *testing.T) {
	doc(t, pageQLSelect+"; multi-attribute keys pattern (Developer Guide)", `SELECT * FROM "table"."index" reads the index: with an equality on every partition key attribute of a multi-attribute key it is a Query of that partition, otherwise a Scan of the index; items missing a key attribute are not in the index.`)
	each(t, func(t *testing.T, tg *target) {
		table := createTable(t, tg, tournamentTableInput())
		waitIndexesActive(t, tg, table)
		fillTournament(t, tg, table)
		ids := func(items []item) []string {
			out := make([]string, len(items))
			for i, it := range items {
				out[i] = it["matchId"].(*types.AttributeValueMemberS).Value
			}
			sort.Strings(out)
			return out
		}
		from := `SELECT * FROM "` + table + `"."TournamentRegionIndex" WHERE `
		if got := ids(mustQL(t, tg, from+`tournamentId = 'WINTER2024' AND "region" = ? AND "round" = 'SEMIFINALS'`, s("NA-EAST"))); show(got) != show([]string{"match-1", "match-6"}) {
			t.Errorf("query on both partition attributes: got %v, want match-1 and match-6", got)
		}
		if got := ids(mustQL(t, tg, from+`"round" = 'SEMIFINALS'`)); show(got) != show([]string{"match-1", "match-4", "match-6"}) {
			t.Errorf("scan of the index: got %v, want match-1, match-4 and match-6 (match-9 has no region)", got)
		}
	})
}

func TestPartiQLBatchCapacityByIndex(t *testing.T) {
	doc(t, pageQLBatch, `ReturnConsumedCapacity INDEXES returns, per table, the capacity consumed by the table and by each of its indexes, summed over the batch's statements.`)
	each(t, func(t *testing.T, tg *target) {
		in := tableInput(keyDef{"pk", types.ScalarAttributeTypeS}, nil)
		in.AttributeDefinitions = append(in.AttributeDefinitions, types.AttributeDefinition{AttributeName: aws.String("g"), AttributeType: types.ScalarAttributeTypeS})
		in.GlobalSecondaryIndexes = []types.GlobalSecondaryIndex{{IndexName: aws.String("by-g"), KeySchema: keyElems([]string{"g"}), Projection: projectAll}}
		tbl := createTable(t, tg, in)
		waitIndexesActive(t, tg, tbl)
		out, err := tg.client.BatchExecuteStatement(ctx(t), &dynamodb.BatchExecuteStatementInput{
			Statements:             batchQL(`INSERT INTO "`+tbl+`" VALUE {'pk': 'a', 'g': 'x'}`, `INSERT INTO "`+tbl+`" VALUE {'pk': 'b', 'g': 'y'}`),
			ReturnConsumedCapacity: types.ReturnConsumedCapacityIndexes,
		})
		noErr(t, err, "BatchExecuteStatement")
		if len(out.ConsumedCapacity) != 1 {
			t.Fatalf("got %d ConsumedCapacity entries, want 1", len(out.ConsumedCapacity))
		}
		cc := out.ConsumedCapacity[0]
		gsi, ok := cc.GlobalSecondaryIndexes["by-g"]
		if !ok || cc.Table == nil {
			t.Fatalf("got %+v, want the table's and the index's units", cc)
		}
		table, index, total := aws.ToFloat64(cc.Table.CapacityUnits), aws.ToFloat64(gsi.CapacityUnits), aws.ToFloat64(cc.CapacityUnits)
		if table != 2 || index != 2 || total != 4 {
			t.Errorf("got table %v, index %v, total %v units; want 2, 2 and 4 for two small items", table, index, total)
		}
	})
}
