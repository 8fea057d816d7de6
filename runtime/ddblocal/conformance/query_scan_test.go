package conformance_test

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

const (
	pageQuery      = "Query (DynamoDB API Reference) / Querying tables in DynamoDB (Developer Guide)"
	pageScan       = "Scan (DynamoDB API Reference) / Scanning tables in DynamoDB (Developer Guide)"
	pagePaginate   = "Paginating table query results / Paginating the results (Developer Guide)"
	pageGSI        = "Using Global Secondary Indexes in DynamoDB (Developer Guide)"
	pageKeyConds   = "Key condition expressions for the Query operation in DynamoDB (Developer Guide)"
	pageReadConsis = "DynamoDB read consistency (Developer Guide)"
)

// queryAll pages through a query and returns every item and the number of pages.
func queryAll(t *testing.T, tg *target, in *dynamodb.QueryInput) ([]item, int) {
	t.Helper()
	var all []item
	pages := 0
	for {
		out, err := tg.client.Query(ctx(t), in)
		noErr(t, err, "Query")
		pages++
		all = append(all, out.Items...)
		if out.LastEvaluatedKey == nil {
			return all, pages
		}
		if pages > 10000 {
			t.Fatalf("Query never stopped paginating")
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
}

func sortKeys(items []item, attr string) []string {
	var out []string
	for _, it := range items {
		switch v := it[attr].(type) {
		case *types.AttributeValueMemberS:
			out = append(out, v.Value)
		case *types.AttributeValueMemberN:
			out = append(out, v.Value)
		case *types.AttributeValueMemberB:
			out = append(out, fmt.Sprintf("%x", v.Value))
		default:
			out = append(out, show(v))
		}
	}
	return out
}

func TestSortKeyOrder(t *testing.T) {
	doc(t, pageQuery, `Query results are always sorted by the sort key value. If the data type of the sort key is Number, the results are returned in numeric order; otherwise, the results are returned in order of UTF-8 bytes (Binary: treated as unsigned bytes). By default, the sort order is ascending. To reverse the order, set the ScanIndexForward parameter to false.`)
	cases := []struct {
		name string
		typ  types.ScalarAttributeType
		vals []types.AttributeValue
		want []string // ascending
	}{
		{"N numeric", types.ScalarAttributeTypeN,
			[]types.AttributeValue{n("10"), n("-2"), n("1.5"), n("100"), n("-10"), n("0"), n("2"), n("1E+2.5e0"[:4])},
			[]string{"-10", "-2", "0", "1.5", "2", "10", "100"}},
		{"B unsigned bytes", types.ScalarAttributeTypeB,
			[]types.AttributeValue{b([]byte{0xff}), b([]byte{0x00}), b([]byte{0x7f}), b([]byte{0x80}), b([]byte{0xff, 0x00}), b([]byte{0x01})},
			[]string{"00", "01", "7f", "80", "ff", "ff00"}},
		{"S UTF-8 bytes", types.ScalarAttributeTypeS,
			[]types.AttributeValue{s("a"), s("B"), s("é"), s("aa"), s("Z"), s("10"), s("9")},
			[]string{"10", "9", "B", "Z", "a", "aa", "é"}},
	}
	each(t, func(t *testing.T, tg *target) {
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				table := compositeTable(t, tg, c.typ)
				for _, v := range c.vals {
					put(t, tg, table, item{"pk": s("p"), "sk": v})
				}
				in := &dynamodb.QueryInput{TableName: aws.String(table), KeyConditionExpression: aws.String("pk = :p"), ExpressionAttributeValues: item{":p": s("p")}}
				items, _ := queryAll(t, tg, in)
				if got := sortKeys(items, "sk"); !slices.Equal(got, c.want) {
					t.Errorf("ascending order = %q, want %q", got, c.want)
				}
				in = &dynamodb.QueryInput{TableName: aws.String(table), KeyConditionExpression: aws.String("pk = :p"), ExpressionAttributeValues: item{":p": s("p")}, ScanIndexForward: aws.Bool(false)}
				items, _ = queryAll(t, tg, in)
				rev := slices.Clone(c.want)
				slices.Reverse(rev)
				if got := sortKeys(items, "sk"); !slices.Equal(got, rev) {
					t.Errorf("ScanIndexForward=false order = %q, want %q", got, rev)
				}
			})
		}
	})
}

func TestQueryKeyConditions(t *testing.T) {
	doc(t, pageKeyConds, `The partition key condition must be an equality test (pk = :v). The sort key condition can use =, <, <=, >, >=, BETWEEN a AND b, begins_with(sk, substr). The condition on the partition key and the optional sort key condition are joined with AND.`)
	each(t, func(t *testing.T, tg *target) {
		table := compositeTable(t, tg, types.ScalarAttributeTypeN)
		for i := 1; i <= 20; i++ {
			put(t, tg, table, item{"pk": s("p"), "sk": n(fmt.Sprint(i))})
		}
		put(t, tg, table, item{"pk": s("other"), "sk": n("5")})
		strTable := compositeTable(t, tg, types.ScalarAttributeTypeS)
		for _, v := range []string{"ORDER#1", "ORDER#2", "ORDERS", "USER#1", "ORD"} {
			put(t, tg, strTable, item{"pk": s("p"), "sk": s(v)})
		}
		cases := []struct {
			table, kc string
			vals      item
			want      []string
		}{
			{table, "pk = :p AND sk = :a", item{":a": n("5")}, []string{"5"}},
			{table, "pk = :p AND sk < :a", item{":a": n("3")}, []string{"1", "2"}},
			{table, "pk = :p AND sk <= :a", item{":a": n("3")}, []string{"1", "2", "3"}},
			{table, "pk = :p AND sk > :a", item{":a": n("18")}, []string{"19", "20"}},
			{table, "pk = :p AND sk >= :a", item{":a": n("19")}, []string{"19", "20"}},
			{table, "pk = :p AND sk BETWEEN :a AND :b", item{":a": n("9"), ":b": n("11")}, []string{"9", "10", "11"}},
			{table, "sk BETWEEN :a AND :b AND pk = :p", item{":a": n("9.5"), ":b": n("10")}, []string{"10"}},
			{table, "(pk = :p) AND (sk = :a)", item{":a": n("20")}, []string{"20"}},
			{strTable, "pk = :p AND begins_with(sk, :a)", item{":a": s("ORDER#")}, []string{"ORDER#1", "ORDER#2"}},
			{strTable, "pk = :p", nil, []string{"ORD", "ORDER#1", "ORDER#2", "ORDERS", "USER#1"}},
		}
		for _, c := range cases {
			t.Run(c.kc, func(t *testing.T) {
				vals := item{":p": s("p")}
				for k, v := range c.vals {
					vals[k] = v
				}
				items, _ := queryAll(t, tg, &dynamodb.QueryInput{TableName: aws.String(c.table), KeyConditionExpression: aws.String(c.kc), ExpressionAttributeValues: vals})
				if got := sortKeys(items, "sk"); !slices.Equal(got, c.want) {
					t.Errorf("%s: got %q, want %q", c.kc, got, c.want)
				}
			})
		}
		errCases := []struct {
			name, kc string
			vals     item
			msg      string
		}{
			{"missing partition key", "sk = :a", item{":a": n("1")}, "Query condition missed key schema element: pk"},
			{"OR", "pk = :p OR sk = :a", item{":p": s("p"), ":a": n("1")}, "Invalid operator used in KeyConditionExpression: OR"},
			{"partition key range", "pk > :p", item{":p": s("p")}, "Query key condition not supported"},
			{"begins_with on a number", "pk = :p AND begins_with(sk, :a)", item{":p": s("p"), ":a": n("1")}, "Invalid KeyConditionExpression"},
		}
		for _, c := range errCases {
			t.Run(c.name, func(t *testing.T) {
				_, err := tg.client.Query(ctx(t), &dynamodb.QueryInput{TableName: aws.String(table), KeyConditionExpression: aws.String(c.kc), ExpressionAttributeValues: c.vals})
				wantValidation(t, err, c.msg)
			})
		}
	})
}

func TestQueryPaginationAndLimit(t *testing.T) {
	doc(t, pagePaginate, `Limit: The maximum number of items to evaluate (not necessarily the number of matching items). If DynamoDB processes the number of items up to the limit while processing the results, it stops the operation and returns the matching values up to that point, and a key in LastEvaluatedKey to apply in a subsequent operation. To get the next page, use the LastEvaluatedKey value as ExclusiveStartKey. When LastEvaluatedKey is absent, the last page has been returned.`)
	each(t, func(t *testing.T, tg *target) {
		table := compositeTable(t, tg, types.ScalarAttributeTypeN)
		for i := range 25 {
			it := item{"pk": s("p"), "sk": n(fmt.Sprint(i))}
			if i%2 == 0 {
				it["even"] = boolv(true)
			}
			put(t, tg, table, it)
		}
		t.Run("Limit pages", func(t *testing.T) {
			items, pages := queryAll(t, tg, &dynamodb.QueryInput{TableName: aws.String(table), KeyConditionExpression: aws.String("pk = :p"), ExpressionAttributeValues: item{":p": s("p")}, Limit: aws.Int32(10)})
			if len(items) != 25 {
				t.Errorf("pages returned %d items, want 25", len(items))
			}
			if pages < 3 || pages > 4 {
				t.Errorf("25 items with Limit 10 took %d pages, want 3 (or 4 with a final empty page)", pages)
			}
			want := make([]string, 25)
			for i := range want {
				want[i] = fmt.Sprint(i)
			}
			if got := sortKeys(items, "sk"); !slices.Equal(got, want) {
				t.Errorf("paged order = %q, want %q", got, want)
			}
		})
		t.Run("Limit counts evaluated items, before the filter", func(t *testing.T) {
			out, err := tg.client.Query(ctx(t), &dynamodb.QueryInput{TableName: aws.String(table), KeyConditionExpression: aws.String("pk = :p"),
				FilterExpression: aws.String("attribute_exists(even)"), ExpressionAttributeValues: item{":p": s("p")}, Limit: aws.Int32(5)})
			noErr(t, err, "Query")
			if out.ScannedCount != 5 || out.Count != 3 || len(out.Items) != 3 {
				t.Errorf("ScannedCount %d Count %d items %d, want 5, 3, 3", out.ScannedCount, out.Count, len(out.Items))
			}
			lek := out.LastEvaluatedKey
			if lek == nil || !equalItem(lek, item{"pk": s("p"), "sk": n("4")}) {
				t.Errorf("LastEvaluatedKey = %s, want the 5th evaluated key {pk: p, sk: 4}", show(lek))
			}
		})
		t.Run("ExclusiveStartKey backwards", func(t *testing.T) {
			out, err := tg.client.Query(ctx(t), &dynamodb.QueryInput{TableName: aws.String(table), KeyConditionExpression: aws.String("pk = :p"),
				ExpressionAttributeValues: item{":p": s("p")}, ScanIndexForward: aws.Bool(false), Limit: aws.Int32(3),
				ExclusiveStartKey: item{"pk": s("p"), "sk": n("10")}})
			noErr(t, err, "Query")
			if got := sortKeys(out.Items, "sk"); !slices.Equal(got, []string{"9", "8", "7"}) {
				t.Errorf("descending after 10 = %q, want [9 8 7]", got)
			}
		})
		t.Run("Select COUNT", func(t *testing.T) {
			doc(t, pageQuery, `Select COUNT: Returns the number of matching items, rather than the matching items themselves. Count is the number of items after the filter; ScannedCount the number before.`)
			out, err := tg.client.Query(ctx(t), &dynamodb.QueryInput{TableName: aws.String(table), KeyConditionExpression: aws.String("pk = :p"),
				FilterExpression: aws.String("attribute_exists(even)"), ExpressionAttributeValues: item{":p": s("p")}, Select: types.SelectCount})
			noErr(t, err, "Query COUNT")
			if out.Count != 13 || out.ScannedCount != 25 || len(out.Items) != 0 {
				t.Errorf("COUNT: Count %d ScannedCount %d Items %d, want 13, 25, 0", out.Count, out.ScannedCount, len(out.Items))
			}
		})
		t.Run("Select COUNT with projection", func(t *testing.T) {
			doc(t, pageQuery, `Select: If you use the ProjectionExpression parameter, then the value for Select can only be SPECIFIC_ATTRIBUTES.`)
			_, err := tg.client.Query(ctx(t), &dynamodb.QueryInput{TableName: aws.String(table), KeyConditionExpression: aws.String("pk = :p"),
				ExpressionAttributeValues: item{":p": s("p")}, Select: types.SelectCount, ProjectionExpression: aws.String("sk")})
			wantErr(t, err, "ValidationException")
		})
		t.Run("Limit zero", func(t *testing.T) {
			doc(t, pageQuery, `Limit: Valid Range: Minimum value of 1.`)
			_, err := tg.client.Query(ctx(t), &dynamodb.QueryInput{TableName: aws.String(table), KeyConditionExpression: aws.String("pk = :p"),
				ExpressionAttributeValues: item{":p": s("p")}, Limit: aws.Int32(0)})
			wantValidation(t, err, "Member must have value greater than or equal to 1")
		})
	})
}

func TestQueryOneMegabytePages(t *testing.T) {
	doc(t, pageQuery, `A single Query operation will read up to a maximum of 1 MB of data and then apply any filtering to the results. If the total size of scanned items exceeds the maximum dataset size limit of 1 MB, the query stops and results are returned to the user with a LastEvaluatedKey value to continue the query in a subsequent operation.`)
	each(t, func(t *testing.T, tg *target) {
		table := compositeTable(t, tg, types.ScalarAttributeTypeN)
		const itemBytes = 100 * 1024
		const count = 25 // 2.5 MB
		for i := range count {
			put(t, tg, table, item{"pk": s("p"), "sk": n(fmt.Sprint(i)), "d": s(strings.Repeat("x", itemBytes))})
		}
		for _, sel := range []types.Select{types.SelectAllAttributes, types.SelectCount} {
			t.Run(string(sel), func(t *testing.T) {
				in := &dynamodb.QueryInput{TableName: aws.String(table), KeyConditionExpression: aws.String("pk = :p"), ExpressionAttributeValues: item{":p": s("p")}, Select: sel}
				out, err := tg.client.Query(ctx(t), in)
				noErr(t, err, "Query")
				// Each item is ~100 KB: a 1 MB page holds about ten of them.
				if out.ScannedCount < 9 || out.ScannedCount > 11 || out.LastEvaluatedKey == nil {
					t.Errorf("first page scanned %d items (LastEvaluatedKey %s), want about 10 and a LastEvaluatedKey", out.ScannedCount, show(out.LastEvaluatedKey))
				}
				total := out.ScannedCount
				for out.LastEvaluatedKey != nil {
					in.ExclusiveStartKey = out.LastEvaluatedKey
					out, err = tg.client.Query(ctx(t), in)
					noErr(t, err, "Query next page")
					total += out.ScannedCount
				}
				if total != count {
					t.Errorf("pages scanned %d items in all, want %d", total, count)
				}
			})
		}
		t.Run("Scan", func(t *testing.T) {
			out, err := tg.client.Scan(ctx(t), &dynamodb.ScanInput{TableName: aws.String(table)})
			noErr(t, err, "Scan")
			if out.ScannedCount < 9 || out.ScannedCount > 11 || out.LastEvaluatedKey == nil {
				t.Errorf("Scan first page scanned %d items, want about 10 and a LastEvaluatedKey", out.ScannedCount)
			}
		})
	})
}

func scanAll(t *testing.T, tg *target, in *dynamodb.ScanInput) []item {
	t.Helper()
	var all []item
	for pages := 0; ; pages++ {
		out, err := tg.client.Scan(ctx(t), in)
		noErr(t, err, "Scan")
		all = append(all, out.Items...)
		if out.LastEvaluatedKey == nil {
			return all
		}
		if pages > 10000 {
			t.Fatalf("Scan never stopped paginating")
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
}

func TestScanSegments(t *testing.T) {
	doc(t, pageScan, `Parallel scan: Segment and TotalSegments divide the table into logical segments; each worker scans one segment. The segments together cover the whole table and each item is in exactly one segment. Segment: Valid Range: 0-999999 (less than TotalSegments). TotalSegments: Valid Range: 1-1000000.`)
	each(t, func(t *testing.T, tg *target) {
		table := compositeTable(t, tg, types.ScalarAttributeTypeS)
		want := map[string]bool{}
		for i := range 60 {
			k := fmt.Sprintf("p%02d/%d", i%13, i)
			put(t, tg, table, item{"pk": s(fmt.Sprintf("p%02d", i%13)), "sk": s(k)})
			want[k] = true
		}
		all := scanAll(t, tg, &dynamodb.ScanInput{TableName: aws.String(table)})
		if len(all) != 60 {
			t.Errorf("full Scan returned %d items, want 60", len(all))
		}
		seen := map[string]int{}
		for seg := range int32(4) {
			items := scanAll(t, tg, &dynamodb.ScanInput{TableName: aws.String(table), Segment: aws.Int32(seg), TotalSegments: aws.Int32(4), Limit: aws.Int32(7)})
			for _, k := range sortKeys(items, "sk") {
				seen[k]++
			}
		}
		for k := range want {
			if seen[k] != 1 {
				t.Errorf("item %s seen in %d segments, want exactly 1", k, seen[k])
			}
		}
		if len(seen) != len(want) {
			t.Errorf("segments returned %d distinct items, want %d", len(seen), len(want))
		}

		t.Run("filter and count", func(t *testing.T) {
			out, err := tg.client.Scan(ctx(t), &dynamodb.ScanInput{TableName: aws.String(table), Select: types.SelectCount,
				FilterExpression: aws.String("begins_with(pk, :p)"), ExpressionAttributeValues: item{":p": s("p00")}})
			noErr(t, err, "Scan COUNT")
			if out.ScannedCount != 60 || out.Count != 5 || len(out.Items) != 0 {
				t.Errorf("Scan COUNT: ScannedCount %d Count %d Items %d, want 60, 5, 0", out.ScannedCount, out.Count, len(out.Items))
			}
		})
		errCases := []struct {
			name       string
			seg, total *int32
			msg        string
		}{
			{"segment without total", aws.Int32(0), nil, "The TotalSegments parameter is required but was not present in the request when Segment parameter is present"},
			{"total without segment", nil, aws.Int32(2), "The Segment parameter is required but was not present in the request when parameter TotalSegments is present"},
			{"segment not below total", aws.Int32(2), aws.Int32(2), "The Segment parameter is zero-based and must be less than parameter TotalSegments"},
		}
		for _, c := range errCases {
			t.Run(c.name, func(t *testing.T) {
				_, err := tg.client.Scan(ctx(t), &dynamodb.ScanInput{TableName: aws.String(table), Segment: c.seg, TotalSegments: c.total})
				wantValidation(t, err, c.msg)
			})
		}
	})
}

func TestScanSegmentStartKey(t *testing.T) {
	doc(t, pageScan, `Parallel scan: "In a parallel scan, a Scan request that includes ExclusiveStartKey must specify the same segment whose previous Scan returned the corresponding value of LastEvaluatedKey."`)
	each(t, func(t *testing.T, tg *target) {
		table := compositeTable(t, tg, types.ScalarAttributeTypeS)
		for i := range 40 {
			put(t, tg, table, item{"pk": s(fmt.Sprintf("p%02d", i%20)), "sk": s(fmt.Sprint(i))})
		}
		const total = 4
		for seg := range int32(total) {
			out, err := tg.client.Scan(ctx(t), &dynamodb.ScanInput{TableName: aws.String(table), Segment: aws.Int32(seg), TotalSegments: aws.Int32(total), Limit: aws.Int32(1)})
			noErr(t, err, "Scan segment")
			if out.LastEvaluatedKey == nil {
				continue
			}
			t.Run(fmt.Sprintf("segment %d", seg), func(t *testing.T) {
				_, err := tg.client.Scan(ctx(t), &dynamodb.ScanInput{TableName: aws.String(table), Segment: aws.Int32(seg), TotalSegments: aws.Int32(total), ExclusiveStartKey: out.LastEvaluatedKey})
				noErr(t, err, "Scan from its own segment's key")
				other := (seg + 1) % total
				_, err = tg.client.Scan(ctx(t), &dynamodb.ScanInput{TableName: aws.String(table), Segment: aws.Int32(other), TotalSegments: aws.Int32(total), ExclusiveStartKey: out.LastEvaluatedKey})
				wantValidation(t, err, "The provided Exclusive start key does not map to the provided Segment and TotalSegments values.")
			})
			return
		}
		t.Fatalf("no segment of %d returned a LastEvaluatedKey with Limit 1 over 40 items", total)
	})
}

// gsiTable has pk/sk, a GSI "byG" on gk/gs (ALL) and one "byH" on hk only
// (KEYS_ONLY).
func gsiTable(t *testing.T, tg *target) string {
	t.Helper()
	in := tableInput(keyDef{"pk", types.ScalarAttributeTypeS}, &keyDef{"sk", types.ScalarAttributeTypeS})
	in.AttributeDefinitions = append(in.AttributeDefinitions,
		types.AttributeDefinition{AttributeName: aws.String("gk"), AttributeType: types.ScalarAttributeTypeS},
		types.AttributeDefinition{AttributeName: aws.String("gs"), AttributeType: types.ScalarAttributeTypeN},
		types.AttributeDefinition{AttributeName: aws.String("hk"), AttributeType: types.ScalarAttributeTypeS},
	)
	in.GlobalSecondaryIndexes = []types.GlobalSecondaryIndex{
		{IndexName: aws.String("byG"), KeySchema: hashRange("gk", "gs"), Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll}},
		{IndexName: aws.String("byH"), KeySchema: hashOnly("hk"), Projection: &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly}},
	}
	name := createTable(t, tg, in)
	waitIndexesActive(t, tg, name)
	return name
}

func queryIndex(t *testing.T, tg *target, table, index, kc string, vals item) []item {
	t.Helper()
	items, _ := queryAll(t, tg, &dynamodb.QueryInput{TableName: aws.String(table), IndexName: aws.String(index), KeyConditionExpression: aws.String(kc), ExpressionAttributeValues: vals})
	return items
}

func TestGSISparseAndMoving(t *testing.T) {
	doc(t, pageGSI, `Sparse indexes: For any item in a table, DynamoDB writes a corresponding index entry only if the index sort key value is present in the item. If the sort key doesn't appear in every table item, the index is said to be sparse. When an item's index key attributes change, DynamoDB removes the old index entry and adds the new one; removing the attribute removes the item from the index.`)
	each(t, func(t *testing.T, tg *target) {
		table := gsiTable(t, tg)
		put(t, tg, table, item{"pk": s("1"), "sk": s("a"), "gk": s("open"), "gs": n("1")})
		put(t, tg, table, item{"pk": s("2"), "sk": s("a"), "gk": s("open"), "gs": n("2")})
		put(t, tg, table, item{"pk": s("3"), "sk": s("a"), "gk": s("open")}) // no index sort key: not indexed
		put(t, tg, table, item{"pk": s("4"), "sk": s("a")})                  // no index keys
		open := func() []string {
			return sortKeys(queryIndex(t, tg, table, "byG", "gk = :g", item{":g": s("open")}), "pk")
		}
		if got := open(); !slices.Equal(got, []string{"1", "2"}) {
			t.Errorf("sparse index holds %q, want [1 2]", got)
		}
		if items := scanAll(t, tg, &dynamodb.ScanInput{TableName: aws.String(table), IndexName: aws.String("byG")}); len(items) != 2 {
			t.Errorf("Scan of the sparse index returned %d items, want 2", len(items))
		}
		// Changing the index partition key moves the item.
		_, err := tg.client.UpdateItem(ctx(t), &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: item{"pk": s("1"), "sk": s("a")},
			UpdateExpression: aws.String("SET gk = :c"), ExpressionAttributeValues: item{":c": s("closed")}})
		noErr(t, err, "move item")
		if got := open(); !slices.Equal(got, []string{"2"}) {
			t.Errorf("after moving item 1, open = %q, want [2]", got)
		}
		if got := sortKeys(queryIndex(t, tg, table, "byG", "gk = :g", item{":g": s("closed")}), "pk"); !slices.Equal(got, []string{"1"}) {
			t.Errorf("closed = %q, want [1]", got)
		}
		// Changing the index sort key reorders it.
		_, err = tg.client.UpdateItem(ctx(t), &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: item{"pk": s("3"), "sk": s("a")},
			UpdateExpression: aws.String("SET gs = :z"), ExpressionAttributeValues: item{":z": n("0")}})
		noErr(t, err, "index item 3")
		if got := open(); !slices.Equal(got, []string{"3", "2"}) {
			t.Errorf("open after adding gs to 3 = %q, want [3 2] (gs 0 before 2)", got)
		}
		// REMOVE of an index key takes the item out of the index.
		_, err = tg.client.UpdateItem(ctx(t), &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: item{"pk": s("2"), "sk": s("a")},
			UpdateExpression: aws.String("REMOVE gk")})
		noErr(t, err, "REMOVE gk")
		if got := open(); !slices.Equal(got, []string{"3"}) {
			t.Errorf("open after REMOVE gk on 2 = %q, want [3]", got)
		}
		// DeleteItem removes the index entry.
		_, err = tg.client.DeleteItem(ctx(t), &dynamodb.DeleteItemInput{TableName: aws.String(table), Key: item{"pk": s("3"), "sk": s("a")}})
		noErr(t, err, "DeleteItem")
		if got := open(); len(got) != 0 {
			t.Errorf("open after deleting 3 = %q, want none", got)
		}
		// KEYS_ONLY index returns table and index keys only.
		put(t, tg, table, item{"pk": s("5"), "sk": s("b"), "hk": s("h"), "extra": s("x")})
		items := queryIndex(t, tg, table, "byH", "hk = :h", item{":h": s("h")})
		if len(items) != 1 {
			t.Fatalf("byH returned %d items, want 1", len(items))
		}
		wantItem(t, items[0], item{"pk": s("5"), "sk": s("b"), "hk": s("h")})
	})
}

func TestGSIKeyTypeMismatch(t *testing.T) {
	doc(t, pageGSI, `PutItem: If you specify any attributes that are part of an index key, then the data types for those attributes must match those of the schema in the table's attribute definition.`)
	each(t, func(t *testing.T, tg *target) {
		table := gsiTable(t, tg)
		_, err := tg.client.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: aws.String(table), Item: item{"pk": s("1"), "sk": s("a"), "gk": n("1")}})
		wantValidation(t, err, "One or more parameter values were invalid: Type mismatch for Index Key gk Expected: S Actual: N IndexName: byG")
		_, err = tg.client.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: aws.String(table), Item: item{"pk": s("1"), "sk": s("a"), "gk": s("")}})
		wantValidation(t, err, "One or more parameter values are not valid. A value specified for a secondary index key is not supported. The AttributeValue for a key attribute cannot contain an empty string value. IndexName: byG, IndexKey: gk")
	})
}

func TestGSIQueries(t *testing.T) {
	each(t, func(t *testing.T, tg *target) {
		table := gsiTable(t, tg)
		for i := range 12 {
			put(t, tg, table, item{"pk": s(fmt.Sprintf("p%d", i%3)), "sk": s(fmt.Sprintf("s%02d", i)), "gk": s("g"), "gs": n(fmt.Sprint(i % 4))})
		}
		t.Run("ConsistentRead on a GSI", func(t *testing.T) {
			doc(t, pageReadConsis, `Global secondary indexes support eventually consistent reads only. Query/Scan ConsistentRead: If you query a global secondary index with ConsistentRead set to true, you will receive a ValidationException.`)
			_, err := tg.client.Query(ctx(t), &dynamodb.QueryInput{TableName: aws.String(table), IndexName: aws.String("byG"), KeyConditionExpression: aws.String("gk = :g"),
				ExpressionAttributeValues: item{":g": s("g")}, ConsistentRead: aws.Bool(true)})
			wantValidation(t, err, "Consistent reads are not supported on global secondary indexes")
			_, err = tg.client.Scan(ctx(t), &dynamodb.ScanInput{TableName: aws.String(table), IndexName: aws.String("byG"), ConsistentRead: aws.Bool(true)})
			wantValidation(t, err, "Consistent reads are not supported on global secondary indexes")
		})
		t.Run("LastEvaluatedKey holds index and table keys", func(t *testing.T) {
			doc(t, pageQuery, `LastEvaluatedKey: The primary key of the item where the operation stopped; for a query on an index it contains the index key attributes and the table's primary key attributes.`)
			in := &dynamodb.QueryInput{TableName: aws.String(table), IndexName: aws.String("byG"), KeyConditionExpression: aws.String("gk = :g"),
				ExpressionAttributeValues: item{":g": s("g")}, Limit: aws.Int32(5)}
			out, err := tg.client.Query(ctx(t), in)
			noErr(t, err, "Query")
			lek := out.LastEvaluatedKey
			for _, k := range []string{"pk", "sk", "gk", "gs"} {
				if _, ok := lek[k]; !ok {
					t.Errorf("LastEvaluatedKey %s lacks %s", show(lek), k)
				}
			}
			if len(lek) != 4 {
				t.Errorf("LastEvaluatedKey %s has %d attributes, want 4", show(lek), len(lek))
			}
			in.ExclusiveStartKey = nil
			items, _ := queryAll(t, tg, in)
			if len(items) != 12 {
				t.Fatalf("paged index query returned %d items, want 12", len(items))
			}
			gs := sortKeys(items, "gs")
			if !sort.SliceIsSorted(gs, func(i, j int) bool { return gs[i] < gs[j] }) {
				t.Errorf("index order by gs = %q, want ascending", gs)
			}
			seen := map[string]bool{}
			for _, k := range sortKeys(items, "sk") {
				if seen[k] {
					t.Errorf("item %s returned twice across pages", k)
				}
				seen[k] = true
			}
		})
		t.Run("missing index", func(t *testing.T) {
			doc(t, pageQuery, `IndexName: The name of an index to query; it must exist on the table.`)
			_, err := tg.client.Query(ctx(t), &dynamodb.QueryInput{TableName: aws.String(table), IndexName: aws.String("nope"), KeyConditionExpression: aws.String("gk = :g"),
				ExpressionAttributeValues: item{":g": s("g")}})
			wantValidation(t, err, "The table does not have the specified index: nope")
		})
		t.Run("GetItem has no IndexName", func(t *testing.T) {
			doc(t, pageGSI, `In a global secondary index, there is no uniqueness requirement for key values: several items can share the index keys.`)
			items := queryIndex(t, tg, table, "byG", "gk = :g AND gs = :z", item{":g": s("g"), ":z": n("0")})
			if len(items) != 3 {
				t.Errorf("gs = 0 holds %d items, want 3 (index keys need not be unique)", len(items))
			}
		})
	})
}

func TestLSIQueries(t *testing.T) {
	doc(t, "Local secondary indexes (Developer Guide)", `A local secondary index has the same partition key as the table and an alternate sort key; queries on it return items of one partition ordered by the index sort key. Local secondary indexes support strongly consistent reads (ConsistentRead true). An item without the index sort key is not written to the index (sparse).`)
	each(t, func(t *testing.T, tg *target) {
		in := tableInput(keyDef{"pk", types.ScalarAttributeTypeS}, &keyDef{"sk", types.ScalarAttributeTypeS})
		in.AttributeDefinitions = append(in.AttributeDefinitions, types.AttributeDefinition{AttributeName: aws.String("rank"), AttributeType: types.ScalarAttributeTypeN})
		in.LocalSecondaryIndexes = []types.LocalSecondaryIndex{{IndexName: aws.String("byRank"), KeySchema: hashRange("pk", "rank"),
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly}}}
		table := createTable(t, tg, in)
		for i, r := range []string{"30", "10", "", "20"} {
			it := item{"pk": s("p"), "sk": s(fmt.Sprint("s", i))}
			if r != "" {
				it["rank"] = n(r)
			}
			put(t, tg, table, it)
		}
		put(t, tg, table, item{"pk": s("other"), "sk": s("x"), "rank": n("1")})
		out, err := tg.client.Query(ctx(t), &dynamodb.QueryInput{TableName: aws.String(table), IndexName: aws.String("byRank"),
			KeyConditionExpression: aws.String("pk = :p AND #r > :z"), ExpressionAttributeNames: map[string]string{"#r": "rank"},
			ExpressionAttributeValues: item{":p": s("p"), ":z": n("0")}, ConsistentRead: aws.Bool(true)})
		noErr(t, err, "strongly consistent Query on an LSI")
		if got := sortKeys(out.Items, "rank"); !slices.Equal(got, []string{"10", "20", "30"}) {
			t.Errorf("LSI order by rank = %q, want [10 20 30] (the item without rank is not indexed)", got)
		}
		for _, it := range out.Items {
			if len(it) != 3 {
				t.Errorf("KEYS_ONLY LSI item %s, want pk, sk and rank only", show(it))
			}
		}
	})
}
