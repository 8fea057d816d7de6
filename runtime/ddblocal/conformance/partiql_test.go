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
