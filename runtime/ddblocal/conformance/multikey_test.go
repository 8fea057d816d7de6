package conformance_test

import (
	"os"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/ddblocal"
)

const (
	pageMultiKey        = "Using Global Secondary Indexes in DynamoDB — Multi-attribute key schema (Developer Guide, https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/GSI.html#GSI.MultiAttributeKeys)"
	pageMultiKeyPattern = "Multi-attribute keys pattern (Developer Guide, https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/GSI.DesignPattern.MultiAttributeKeys.html)"
	pageCreateGSIAction = "CreateGlobalSecondaryIndexAction (DynamoDB API Reference): Global secondary index supports up to 4 partition and up to 4 sort keys"
)

// keyElems builds a KeySchema from HASH and RANGE attribute names.
func keyElems(hash []string, rng ...string) []types.KeySchemaElement {
	var out []types.KeySchemaElement
	for _, h := range hash {
		out = append(out, types.KeySchemaElement{AttributeName: aws.String(h), KeyType: types.KeyTypeHash})
	}
	for _, r := range rng {
		out = append(out, types.KeySchemaElement{AttributeName: aws.String(r), KeyType: types.KeyTypeRange})
	}
	return out
}

// keysString renders a KeySchema as "name TYPE, ...".
func keysString(ks []types.KeySchemaElement) string {
	var parts []string
	for _, k := range ks {
		parts = append(parts, aws.ToString(k.AttributeName)+" "+string(k.KeyType))
	}
	return strings.Join(parts, ", ")
}

func attrDefs(defs ...string) []types.AttributeDefinition {
	var out []types.AttributeDefinition
	for i := 0; i+1 < len(defs); i += 2 {
		out = append(out, types.AttributeDefinition{AttributeName: aws.String(defs[i]), AttributeType: types.ScalarAttributeType(defs[i+1])})
	}
	return out
}

var projectAll = &types.Projection{ProjectionType: types.ProjectionTypeAll}

// tournamentTableInput is the esports match table of the Developer Guide's
// multi-attribute keys pattern: matches keyed by matchId, a
// TournamentRegionIndex with the partition key tournamentId + region and
// the sort key round, and a PlayerMatchHistoryIndex with the partition key
// player1Id and the sort key matchDate + round.
func tournamentTableInput() *dynamodb.CreateTableInput {
	return &dynamodb.CreateTableInput{
		AttributeDefinitions: attrDefs("matchId", "S", "tournamentId", "S", "region", "S", "round", "S",
			"player1Id", "S", "matchDate", "S"),
		KeySchema: keyElems([]string{"matchId"}),
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{
			{IndexName: aws.String("TournamentRegionIndex"), KeySchema: keyElems([]string{"tournamentId", "region"}, "round"), Projection: projectAll},
			{IndexName: aws.String("PlayerMatchHistoryIndex"), KeySchema: keyElems([]string{"player1Id"}, "matchDate", "round"), Projection: projectAll},
		},
	}
}

func match(id, tournament, region, round, player, date string) item {
	it := item{"matchId": s(id), "player1Id": s(player), "matchDate": s(date), "round": s(round), "tournamentId": s(tournament)}
	if region != "" {
		it["region"] = s(region)
	}
	return it
}

// fillTournament writes the matches the cases query; match-9 has no region
// and so is in TournamentRegionIndex nowhere.
func fillTournament(t *testing.T, tg *target, table string) {
	t.Helper()
	for _, it := range []item{
		match("match-1", "WINTER2024", "NA-EAST", "SEMIFINALS", "101", "2024-01-18"),
		match("match-2", "WINTER2024", "NA-EAST", "FINALS", "101", "2024-01-20"),
		match("match-3", "WINTER2024", "NA-EAST", "QUARTERFINALS", "102", "2024-01-15"),
		match("match-4", "WINTER2024", "EU-WEST", "SEMIFINALS", "101", "2024-01-18"),
		match("match-5", "SPRING2024", "NA-EAST", "FINALS", "101", "2024-03-02"),
		match("match-6", "WINTER2024", "NA-EAST", "SEMIFINALS", "103", "2024-01-18"),
		match("match-9", "WINTER2024", "", "SEMIFINALS", "101", "2024-01-17"),
	} {
		put(t, tg, table, it)
	}
}

func TestMultiKeyCreateAndDescribe(t *testing.T) {
	doc(t, pageMultiKey, `With multi-attribute keys, you can create a partition key from up to four attributes and a sort key from up to four attributes, for a total of up to eight attributes per key schema. Each attribute has its own AttributeDefinition type; DescribeTable returns the KeySchema as defined.`)
	each(t, func(t *testing.T, tg *target) {
		table := createTable(t, tg, tournamentTableInput())
		d := waitIndexesActive(t, tg, table)
		got := map[string]string{}
		for _, ix := range d.GlobalSecondaryIndexes {
			got[aws.ToString(ix.IndexName)] = keysString(ix.KeySchema)
		}
		want := map[string]string{
			"TournamentRegionIndex":   keysString(keyElems([]string{"tournamentId", "region"}, "round")),
			"PlayerMatchHistoryIndex": keysString(keyElems([]string{"player1Id"}, "matchDate", "round")),
		}
		for name, w := range want {
			if got[name] != w {
				t.Errorf("%s KeySchema: got %s, want %s", name, got[name], w)
			}
		}
	})
}

func TestMultiKeyMaximumKey(t *testing.T) {
	doc(t, pageCreateGSIAction, `KeySchema: The key schema for the global secondary index. Global secondary index supports up to 4 partition and up to 4 sort keys; each key attribute may be S, N or B.`)
	each(t, func(t *testing.T, tg *target) {
		in := &dynamodb.CreateTableInput{
			AttributeDefinitions: attrDefs("p", "S", "h1", "S", "h2", "N", "h3", "B", "h4", "S", "r1", "N", "r2", "S", "r3", "B", "r4", "S"),
			KeySchema:            keyElems([]string{"p"}),
			GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{IndexName: aws.String("gsi"),
				KeySchema: keyElems([]string{"h1", "h2", "h3", "h4"}, "r1", "r2", "r3", "r4"), Projection: projectAll}},
		}
		table := createTable(t, tg, in)
		waitIndexesActive(t, tg, table)
		full := item{"p": s("1"), "h1": s("a"), "h2": n("2"), "h3": b([]byte{3}), "h4": s("d"), "r1": n("10"), "r2": s("x"), "r3": b([]byte{1}), "r4": s("y")}
		put(t, tg, table, full)
		items, _ := queryAll(t, tg, &dynamodb.QueryInput{TableName: aws.String(table), IndexName: aws.String("gsi"),
			KeyConditionExpression: aws.String("h1 = :h1 AND h2 = :h2 AND h3 = :h3 AND h4 = :h4 AND r1 = :r1 AND r2 = :r2 AND r3 = :r3 AND r4 = :r4"),
			ExpressionAttributeValues: item{":h1": s("a"), ":h2": n("2"), ":h3": b([]byte{3}), ":h4": s("d"),
				":r1": n("10"), ":r2": s("x"), ":r3": b([]byte{1}), ":r4": s("y")}})
		if len(items) != 1 {
			t.Fatalf("query on all eight attributes: got %d items, want 1", len(items))
		}
		wantItem(t, items[0], full)
	})
}

func TestMultiKeyCreateRejected(t *testing.T) {
	doc(t, pageMultiKey, `A partition key has at most four attributes and a sort key at most four; the partition key attributes come first. Multi-attribute keys are for global secondary indexes only: tables and local secondary indexes keep one partition key and at most one sort key.`)
	five := []string{"a1", "a2", "a3", "a4", "a5"}
	defs := attrDefs("p", "S", "c", "S", "a1", "S", "a2", "S", "a3", "S", "a4", "S", "a5", "S")
	gsi := func(ks []types.KeySchemaElement) *dynamodb.CreateTableInput {
		return &dynamodb.CreateTableInput{AttributeDefinitions: defs, KeySchema: keyElems([]string{"p"}, "c"),
			GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{IndexName: aws.String("gsi"), KeySchema: ks, Projection: projectAll}}}
	}
	rangeFirst := append(keyElems(nil, "a1"), keyElems([]string{"a2"})...)
	interleaved := append(keyElems([]string{"a1"}, "a2"), keyElems([]string{"a3"})...)
	lsi := &dynamodb.CreateTableInput{AttributeDefinitions: attrDefs("p", "S", "c", "S", "a1", "S", "a2", "S"), KeySchema: keyElems([]string{"p"}, "c"),
		LocalSecondaryIndexes: []types.LocalSecondaryIndex{{IndexName: aws.String("lsi"), KeySchema: keyElems([]string{"p"}, "a1", "a2"), Projection: projectAll}}}
	tableMulti := &dynamodb.CreateTableInput{AttributeDefinitions: attrDefs("a1", "S", "a2", "S"), KeySchema: keyElems([]string{"a1", "a2"})}
	tests := []struct {
		name string
		in   *dynamodb.CreateTableInput
		want []string
	}{
		{"five partition attributes", gsi(keyElems(five)), []string{"partition key can have at most 4 attributes"}},
		{"five sort attributes", gsi(keyElems([]string{"p"}, five...)), []string{"sort key can have at most 4 attributes"}},
		{"sort before partition", gsi(rangeFirst), []string{"The first KeySchemaElement is not a HASH key type"}},
		{"partition after sort", gsi(interleaved), []string{"All HASH KeySchemaElements must come before the RANGE KeySchemaElements"}},
		{"one attribute twice", gsi(keyElems([]string{"a1", "a1"})), []string{"Duplicate"}},
		{"undefined attribute", gsi(keyElems([]string{"a1", "zz"})), []string{"Some index key attributes are not defined in AttributeDefinitions"}},
		{"multi-attribute LSI", lsi, []string{"Member must have length less than or equal to 2"}},
		{"multi-attribute table key", tableMulti, []string{"The second KeySchemaElement is not a RANGE key type"}},
	}
	each(t, func(t *testing.T, tg *target) {
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				in := *tc.in
				in.TableName = aws.String(tableName(t))
				in.BillingMode = types.BillingModePayPerRequest
				_, err := tg.client.CreateTable(ctx(t), &in)
				if err == nil {
					_, _ = tg.client.DeleteTable(ctx(t), &dynamodb.DeleteTableInput{TableName: in.TableName})
				}
				wantValidation(t, err, tc.want...)
			})
		}
	})
}

func TestMultiKeyQueryTournament(t *testing.T) {
	doc(t, pageMultiKeyPattern, `Query all matches of tournament WINTER2024 in region NA-EAST (equality on every partition key attribute), optionally narrowed by round; items missing a key attribute are not in the index (sparse); results are ordered by the sort key attributes in order.`)
	each(t, func(t *testing.T, tg *target) {
		table := createTable(t, tg, tournamentTableInput())
		waitIndexesActive(t, tg, table)
		fillTournament(t, tg, table)
		q := func(kce string, vals item, forward bool) []string {
			t.Helper()
			items, _ := queryAll(t, tg, &dynamodb.QueryInput{TableName: aws.String(table), IndexName: aws.String("TournamentRegionIndex"),
				KeyConditionExpression: aws.String(kce), ExpressionAttributeValues: vals, ExpressionAttributeNames: usedAliases(kce),
				ScanIndexForward: aws.Bool(forward)})
			return sortKeys(items, "matchId")
		}
		region := item{":t": s("WINTER2024"), ":r": s("NA-EAST")}
		if got := strings.Join(q("tournamentId = :t AND #region = :r", region, true), ","); got != "match-2,match-3,match-1,match-6" && got != "match-2,match-3,match-6,match-1" {
			t.Errorf("WINTER2024 NA-EAST by round: got %s, want FINALS, QUARTERFINALS, then the two SEMIFINALS", got)
		}
		region[":round"] = s("SEMIFINALS")
		if got := q("tournamentId = :t AND #region = :r AND #round = :round", region, false); !sameSet(got, []string{"match-1", "match-6"}) {
			t.Errorf("SEMIFINALS: got %v, want match-1 and match-6 (match-9 has no region)", got)
		}
		delete(region, ":round")
		region[":p"] = s("QUARTER")
		if got := q("tournamentId = :t AND #region = :r AND begins_with(#round, :p)", region, true); strings.Join(got, ",") != "match-3" {
			t.Errorf("begins_with(round, QUARTER): got %v, want match-3", got)
		}
	})
}

func TestMultiKeySortOrder(t *testing.T) {
	doc(t, pageMultiKey, `For sort key attributes, you can query them left-to-right in the order they're defined in the key schema; an inequality (>, <, BETWEEN, begins_with) may be the last condition. Results are sorted by the sort key attributes in order.`)
	each(t, func(t *testing.T, tg *target) {
		table := createTable(t, tg, tournamentTableInput())
		waitIndexesActive(t, tg, table)
		fillTournament(t, tg, table)
		q := func(kce string, vals item) []string {
			t.Helper()
			vals[":p"] = s("101")
			items, _ := queryAll(t, tg, &dynamodb.QueryInput{TableName: aws.String(table), IndexName: aws.String("PlayerMatchHistoryIndex"),
				KeyConditionExpression: aws.String(kce), ExpressionAttributeValues: vals, ExpressionAttributeNames: usedAliases(kce)})
			return sortKeys(items, "matchId")
		}
		tests := []struct {
			name, kce string
			vals      item
			want      string
		}{
			{"partition only", "player1Id = :p", item{}, "match-9,match-1,match-4,match-2,match-5"},
			{"range on first sort attribute", "player1Id = :p AND matchDate BETWEEN :a AND :b", item{":a": s("2024-01-01"), ":b": s("2024-01-31")}, "match-9,match-1,match-4,match-2"},
			{"begins_with on first sort attribute", "player1Id = :p AND begins_with(matchDate, :m)", item{":m": s("2024-03")}, "match-5"},
			{"equality then range", "player1Id = :p AND matchDate = :d AND #round >= :r", item{":d": s("2024-01-18"), ":r": s("SEMIFINALS")}, "match-1,match-4"},
			{"equality on both", "player1Id = :p AND matchDate = :d AND #round = :r", item{":d": s("2024-01-20"), ":r": s("FINALS")}, "match-2"},
			{"conditions in any order", "#round = :r AND matchDate = :d AND player1Id = :p", item{":d": s("2024-01-20"), ":r": s("FINALS")}, "match-2"},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				got := strings.Join(q(tc.kce, tc.vals), ",")
				// match-1 and match-4 tie on (matchDate, round); either order is DynamoDB's.
				if got != tc.want && got != strings.Replace(tc.want, "match-1,match-4", "match-4,match-1", 1) {
					t.Errorf("got %s, want %s", got, tc.want)
				}
			})
		}
	})
}

func TestMultiKeyBadQueryShapes(t *testing.T) {
	doc(t, pageMultiKey, `When you query a global secondary index with multi-attribute keys, you must specify all partition key attributes using equality conditions. Sort key attributes are queried left-to-right; you cannot skip attributes in the middle, and inequality conditions such as >, <, BETWEEN, or begins_with() must be the last condition in your query. A FilterExpression cannot name a key attribute of the index.`)
	tests := []struct {
		name, index, kce, filter string
		vals                     item
		want                     []string
	}{
		{"a partition attribute missing", "TournamentRegionIndex", "tournamentId = :t", "", item{":t": s("W")},
			[]string{"Query condition missed key schema element: region"}},
		{"only the sort attribute", "TournamentRegionIndex", "#round = :r", "", item{":r": s("F")},
			[]string{"Query condition missed key schema element: tournamentId"}},
		{"inequality on a partition attribute", "TournamentRegionIndex", "tournamentId = :t AND #region > :r", "", item{":t": s("W"), ":r": s("N")},
			[]string{"Query key condition not supported"}},
		{"begins_with on a partition attribute", "TournamentRegionIndex", "tournamentId = :t AND begins_with(#region, :r)", "", item{":t": s("W"), ":r": s("N")},
			[]string{"Query key condition not supported"}},
		{"a sort attribute skipped", "PlayerMatchHistoryIndex", "player1Id = :p AND #round = :r", "", item{":p": s("1"), ":r": s("F")},
			[]string{"Query condition missed key schema element: matchDate"}},
		{"range before the last sort attribute", "PlayerMatchHistoryIndex", "player1Id = :p AND matchDate > :d AND #round = :r", "", item{":p": s("1"), ":d": s("2024"), ":r": s("F")},
			[]string{"Query key condition not supported"}},
		{"begins_with before the last sort attribute", "PlayerMatchHistoryIndex", "player1Id = :p AND begins_with(matchDate, :d) AND #round = :r", "", item{":p": s("1"), ":d": s("2024"), ":r": s("F")},
			[]string{"Query key condition not supported"}},
		{"two conditions on one attribute", "PlayerMatchHistoryIndex", "player1Id = :p AND matchDate > :d AND matchDate < :e", "", item{":p": s("1"), ":d": s("2024"), ":e": s("2025")},
			[]string{"KeyConditionExpressions must only contain one condition per key"}},
		{"a value of the wrong type", "TournamentRegionIndex", "tournamentId = :t AND #region = :r", "", item{":t": s("W"), ":r": n("1")},
			[]string{"Condition parameter type does not match schema type"}},
		{"a non-key attribute", "TournamentRegionIndex", "tournamentId = :t AND #region = :r AND player1Id = :p", "", item{":t": s("W"), ":r": s("N"), ":p": s("1")},
			[]string{"Query condition missed key schema element: round"}},
		{"filter on a partition attribute", "TournamentRegionIndex", "tournamentId = :t AND #region = :r", "#region = :r", item{":t": s("W"), ":r": s("N")},
			[]string{"Filter Expression can only contain non-primary key attributes: Primary key attribute: region"}},
	}
	each(t, func(t *testing.T, tg *target) {
		table := createTable(t, tg, tournamentTableInput())
		waitIndexesActive(t, tg, table)
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				in := &dynamodb.QueryInput{TableName: aws.String(table), IndexName: aws.String(tc.index),
					KeyConditionExpression: aws.String(tc.kce), ExpressionAttributeValues: tc.vals, ExpressionAttributeNames: usedAliases(tc.kce + " " + tc.filter)}
				if tc.filter != "" {
					in.FilterExpression = aws.String(tc.filter)
				}
				_, err := tg.client.Query(ctx(t), in)
				wantValidation(t, err, tc.want...)
			})
		}
	})
}

// multiKeyAliases name region and round, which are reserved words.
var multiKeyAliases = map[string]string{"#region": "region", "#round": "round"}

// usedAliases returns the aliases of multiKeyAliases that expr uses
// (DynamoDB refuses unused ones).
func usedAliases(expr string) map[string]string {
	out := map[string]string{}
	for k, v := range multiKeyAliases {
		if strings.Contains(expr, k) {
			out[k] = v
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

func TestMultiKeyPaging(t *testing.T) {
	doc(t, pagePaginate, `LastEvaluatedKey of a Query on a global secondary index holds the table's key attributes and every key attribute of the index; passing it as ExclusiveStartKey resumes after that item.`)
	each(t, func(t *testing.T, tg *target) {
		table := createTable(t, tg, tournamentTableInput())
		waitIndexesActive(t, tg, table)
		fillTournament(t, tg, table)
		in := &dynamodb.QueryInput{TableName: aws.String(table), IndexName: aws.String("PlayerMatchHistoryIndex"),
			KeyConditionExpression: aws.String("player1Id = :p"), ExpressionAttributeValues: item{":p": s("101")}, Limit: aws.Int32(2)}
		out, err := tg.client.Query(ctx(t), in)
		noErr(t, err, "first page")
		var keys []string
		for k := range out.LastEvaluatedKey {
			keys = append(keys, k)
		}
		if !sameSet(keys, []string{"matchId", "player1Id", "matchDate", "round"}) {
			t.Errorf("LastEvaluatedKey %s: want matchId, player1Id, matchDate and round", show(out.LastEvaluatedKey))
		}
		items, pages := queryAll(t, tg, in)
		if got := sortKeys(items, "matchId"); len(got) != 5 || pages != 3 {
			t.Errorf("paged query: got %v in %d pages, want 5 items in 3 pages", got, pages)
		}
		in.ExclusiveStartKey = item{"matchId": s("match-1"), "player1Id": s("101"), "matchDate": s("2024-01-18")}
		_, err = tg.client.Query(ctx(t), in)
		wantValidation(t, err, "The provided starting key is invalid")
	})
}

func TestMultiKeyWritesAndProjection(t *testing.T) {
	doc(t, pageGSI, `PutItem: the data types of index key attributes must match the attribute definitions. A KEYS_ONLY index projects the table key and every index key attribute; ReturnConsumedCapacity INDEXES reports the index read.`)
	each(t, func(t *testing.T, tg *target) {
		in := tournamentTableInput()
		in.GlobalSecondaryIndexes[0].Projection = &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly}
		table := createTable(t, tg, in)
		waitIndexesActive(t, tg, table)
		bad := match("m", "W", "N", "F", "1", "2024")
		bad["region"] = n("7")
		_, err := tg.client.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: aws.String(table), Item: bad})
		wantValidation(t, err, "Type mismatch for Index Key region")
		put(t, tg, table, match("m", "W", "N", "F", "1", "2024"))
		out, err := tg.client.Query(ctx(t), &dynamodb.QueryInput{TableName: aws.String(table), IndexName: aws.String("TournamentRegionIndex"),
			KeyConditionExpression: aws.String("tournamentId = :t AND #region = :r"), ExpressionAttributeNames: map[string]string{"#region": "region"},
			ExpressionAttributeValues: item{":t": s("W"), ":r": s("N")}, ReturnConsumedCapacity: types.ReturnConsumedCapacityIndexes})
		noErr(t, err, "Query")
		if len(out.Items) != 1 {
			t.Fatalf("got %d items, want 1", len(out.Items))
		}
		wantItem(t, out.Items[0], item{"matchId": s("m"), "tournamentId": s("W"), "region": s("N"), "round": s("F")})
		if cc := out.ConsumedCapacity; cc == nil || cc.GlobalSecondaryIndexes["TournamentRegionIndex"].CapacityUnits == nil {
			t.Errorf("ConsumedCapacity %s: want units for TournamentRegionIndex", show(cc))
		}
	})
}

func TestMultiKeyUpdateTableBackfill(t *testing.T) {
	doc(t, pageMultiKeyPattern, `Adding a GSI with multi-attribute keys to an existing table needs no backfilling of synthetic keys: DynamoDB indexes the existing items by their natural attributes; items missing any of them stay out of the index.`)
	each(t, func(t *testing.T, tg *target) {
		table := createTable(t, tg, tableInput(keyDef{"matchId", types.ScalarAttributeTypeS}, nil))
		fillTournament(t, tg, table)
		_, err := tg.client.UpdateTable(ctx(t), &dynamodb.UpdateTableInput{TableName: aws.String(table),
			AttributeDefinitions: attrDefs("tournamentId", "S", "region", "S", "round", "S"),
			GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Create: &types.CreateGlobalSecondaryIndexAction{
				IndexName: aws.String("TournamentRegionIndex"), KeySchema: keyElems([]string{"tournamentId", "region"}, "round"), Projection: projectAll}}}})
		noErr(t, err, "UpdateTable Create")
		d := waitIndexesActive(t, tg, table)
		if len(d.GlobalSecondaryIndexes) != 1 {
			t.Fatalf("got %d GSIs after UpdateTable, want 1", len(d.GlobalSecondaryIndexes))
		}
		if got, want := keysString(d.GlobalSecondaryIndexes[0].KeySchema), keysString(keyElems([]string{"tournamentId", "region"}, "round")); got != want {
			t.Errorf("KeySchema after UpdateTable: got %s, want %s", got, want)
		}
		items, _ := queryAll(t, tg, &dynamodb.QueryInput{TableName: aws.String(table), IndexName: aws.String("TournamentRegionIndex"),
			KeyConditionExpression: aws.String("tournamentId = :t AND #region = :r"), ExpressionAttributeNames: map[string]string{"#region": "region"},
			ExpressionAttributeValues: item{":t": s("WINTER2024"), ":r": s("NA-EAST")}})
		if got := sortKeys(items, "matchId"); !sameSet(got, []string{"match-1", "match-2", "match-3", "match-6"}) {
			t.Errorf("backfilled index: got %v, want match-1, -2, -3 and -6", got)
		}
		_, err = tg.client.UpdateTable(ctx(t), &dynamodb.UpdateTableInput{TableName: aws.String(table),
			AttributeDefinitions: attrDefs("a1", "S", "a2", "S", "a3", "S", "a4", "S", "a5", "S"),
			GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Create: &types.CreateGlobalSecondaryIndexAction{
				IndexName: aws.String("TooWide"), KeySchema: keyElems([]string{"a1", "a2", "a3", "a4", "a5"}), Projection: projectAll}}}})
		wantValidation(t, err, "partition key can have at most 4 attributes")
	})
}

// TestMultiKeyGureguShape creates the index guregu/dynamo v2.6.0's
// integration setup creates (a Number partition attribute that is also the
// table's hash key, and a sort key of two String attributes, one of them
// the table's range key) and queries it the way that suite does.
func TestMultiKeyGureguShape(t *testing.T) {
	doc(t, pageMultiKey, `A GSI key attribute may also be a key attribute of the table; each attribute keeps its own type.`)
	each(t, func(t *testing.T, tg *target) {
		in := &dynamodb.CreateTableInput{
			AttributeDefinitions: attrDefs("UserID", "N", "Time", "S", "Msg", "S"),
			KeySchema:            keyElems([]string{"UserID"}, "Time"),
			GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{
				{IndexName: aws.String("Msg-Time-index"), KeySchema: keyElems([]string{"Msg"}, "Time"), Projection: projectAll},
				{IndexName: aws.String("UserID-Msg-Time-index"), KeySchema: keyElems([]string{"UserID"}, "Msg", "Time"), Projection: projectAll},
			},
		}
		table := createTable(t, tg, in)
		waitIndexesActive(t, tg, table)
		for _, w := range []item{
			{"UserID": n("42"), "Time": s("2024-01-01T00:00:00Z"), "Msg": s("hello")},
			{"UserID": n("42"), "Time": s("2024-01-02T00:00:00Z"), "Msg": s("hello")},
			{"UserID": n("42"), "Time": s("2024-01-03T00:00:00Z"), "Msg": s("bye")},
			{"UserID": n("7"), "Time": s("2024-01-01T00:00:00Z"), "Msg": s("hello")},
		} {
			put(t, tg, table, w)
		}
		items, _ := queryAll(t, tg, &dynamodb.QueryInput{TableName: aws.String(table), IndexName: aws.String("UserID-Msg-Time-index"),
			KeyConditionExpression:    aws.String("UserID = :u AND Msg = :m AND #t > :t"),
			ExpressionAttributeNames:  map[string]string{"#t": "Time"},
			ExpressionAttributeValues: item{":u": n("42"), ":m": s("hello"), ":t": s("2024-01-01T12:00:00Z")}})
		if got := sortKeys(items, "Time"); strings.Join(got, ",") != "2024-01-02T00:00:00Z" {
			t.Errorf("UserID 42, Msg hello, after noon: got %v", got)
		}
		items, _ = queryAll(t, tg, &dynamodb.QueryInput{TableName: aws.String(table), IndexName: aws.String("UserID-Msg-Time-index"),
			KeyConditionExpression: aws.String("UserID = :u"), ExpressionAttributeValues: item{":u": n("42")}, ScanIndexForward: aws.Bool(false)})
		if got := sortKeys(items, "Msg"); strings.Join(got, ",") != "hello,hello,bye" {
			t.Errorf("UserID 42 descending by (Msg, Time): got %v", got)
		}
	})
}

// TestMultiKeyPersistence reopens an engine's data directory: a
// multi-attribute GSI comes back with its KeySchema and its rows.
func TestMultiKeyPersistence(t *testing.T) {
	if os.Getenv("DYNAMODB_ENDPOINT") != "" {
		t.Skip("persistence is a feature of the embedded engine; DYNAMODB_ENDPOINT is set")
	}
	doc(t, "runtime/ddblocal Options.Dir", `Dir keeps tables, their indexes and items in a bbolt file so that they survive a restart.`)
	dir := t.TempDir()
	open := func() *target {
		e, err := ddblocal.Open(func(o *ddblocal.Options) { o.Dir = dir })
		if err != nil {
			t.Fatalf("Open(%s): %v", dir, err)
		}
		return &target{name: "inproc", engine: e, client: e.Client(clientOptions)}
	}
	tg := open()
	in := tournamentTableInput()
	in.TableName = aws.String(tableName(t))
	in.BillingMode = types.BillingModePayPerRequest
	_, err := tg.client.CreateTable(ctx(t), in)
	noErr(t, err, "CreateTable")
	fillTournament(t, tg, *in.TableName)
	noErr(t, tg.engine.Close(), "Close")

	tg = open()
	defer tg.engine.Close()
	d := describe(t, tg, *in.TableName)
	if got, want := keysString(d.GlobalSecondaryIndexes[0].KeySchema), keysString(in.GlobalSecondaryIndexes[0].KeySchema); got != want {
		t.Errorf("KeySchema after restart: got %s, want %s", got, want)
	}
	items, _ := queryAll(t, tg, &dynamodb.QueryInput{TableName: in.TableName, IndexName: aws.String("TournamentRegionIndex"),
		KeyConditionExpression: aws.String("tournamentId = :t AND #region = :r AND #round = :round"), ExpressionAttributeNames: usedAliases("#region #round"),
		ExpressionAttributeValues: item{":t": s("WINTER2024"), ":r": s("NA-EAST"), ":round": s("SEMIFINALS")}})
	if got := sortKeys(items, "matchId"); !sameSet(got, []string{"match-1", "match-6"}) {
		t.Errorf("index after restart: got %v, want match-1 and match-6", got)
	}
}

func TestMultiKeyPartiQLSelect(t *testing.T) {
	doc(t, "PartiQL select statements for DynamoDB (Developer Guide)", `SELECT may read a global secondary index with FROM "table"."index"; the WHERE clause selects the items, whatever the index's key schema.`)
	each(t, func(t *testing.T, tg *target) {
		table := createTable(t, tg, tournamentTableInput())
		waitIndexesActive(t, tg, table)
		fillTournament(t, tg, table)
		out, err := tg.client.ExecuteStatement(ctx(t), &dynamodb.ExecuteStatementInput{
			Statement:  aws.String(`SELECT matchId FROM "` + table + `"."TournamentRegionIndex" WHERE tournamentId = ? AND "region" = ? AND "round" = ?`),
			Parameters: []types.AttributeValue{s("WINTER2024"), s("NA-EAST"), s("SEMIFINALS")}})
		noErr(t, err, "ExecuteStatement")
		if got := sortKeys(out.Items, "matchId"); !sameSet(got, []string{"match-1", "match-6"}) {
			t.Errorf("SELECT on TournamentRegionIndex: got %v, want match-1 and match-6", got)
		}
	})
}

func TestMultiKeyLegacyKeyConditions(t *testing.T) {
	doc(t, pageLegacyKeyConds, `KeyConditions select items by key as KeyConditionExpression does: on a multi-attribute GSI, EQ on every partition attribute and the sort attributes left to right, the last with any comparison.`)
	cond := func(op types.ComparisonOperator, v ...types.AttributeValue) types.Condition {
		return types.Condition{ComparisonOperator: op, AttributeValueList: v}
	}
	each(t, func(t *testing.T, tg *target) {
		table := createTable(t, tg, tournamentTableInput())
		waitIndexesActive(t, tg, table)
		fillTournament(t, tg, table)
		items, _ := queryAll(t, tg, &dynamodb.QueryInput{TableName: aws.String(table), IndexName: aws.String("PlayerMatchHistoryIndex"),
			KeyConditions: map[string]types.Condition{
				"player1Id": cond(types.ComparisonOperatorEq, s("101")),
				"matchDate": cond(types.ComparisonOperatorEq, s("2024-01-18")),
				"round":     cond(types.ComparisonOperatorBeginsWith, s("SEMI")),
			}})
		if got := sortKeys(items, "matchId"); !sameSet(got, []string{"match-1", "match-4"}) {
			t.Errorf("KeyConditions: got %v, want match-1 and match-4", got)
		}
		_, err := tg.client.Query(ctx(t), &dynamodb.QueryInput{TableName: aws.String(table), IndexName: aws.String("PlayerMatchHistoryIndex"),
			KeyConditions: map[string]types.Condition{
				"player1Id": cond(types.ComparisonOperatorEq, s("101")),
				"round":     cond(types.ComparisonOperatorEq, s("FINALS")),
			}})
		wantValidation(t, err, "Query condition missed key schema element: matchDate")
	})
}
