package verify_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/ddbtest"
	"github.com/oncetable/oncetable/runtime/schema/provision"
	"github.com/oncetable/oncetable/runtime/verify"
)

var (
	update        = flag.Bool("update", false, "rewrite the golden files")
	updateFixture = flag.Bool("update-fixture", false, "rebuild testdata/healthy.json with the flows (then run -update)")
)

// brokenCase is one entry of testdata/cases.json: mutations of the
// healthy table and the violations they must produce (in
// testdata/<name>.golden).
type brokenCase struct {
	Name      string     `json:"name"`
	About     string     `json:"about"`
	Mutations []mutation `json:"mutations"`
}

// mutation deletes or changes the one item whose attributes equal Where,
// or puts Item.
type mutation struct {
	Op    string                     `json:"op"` // delete, set, remove, put
	Where map[string]string          `json:"where"`
	Attr  string                     `json:"attr"`
	Value json.RawMessage            `json:"value"`
	Item  map[string]json.RawMessage `json:"item"`
}

func loadCases(t *testing.T) []brokenCase {
	t.Helper()
	b, err := os.ReadFile("testdata/cases.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []brokenCase
	if err := json.Unmarshal(b, &cases); err != nil {
		t.Fatal(err)
	}
	return cases
}

func TestBrokenTables(t *testing.T) {
	healthy := fixtureItems(t)
	for _, tc := range loadCases(t) {
		t.Run(tc.Name, func(t *testing.T) {
			items := apply(t, healthy, tc.Mutations)
			db, _ := ddbtest.Client(t, nil)
			table := ddbtest.TableName("verify-" + tc.Name)
			load(t, db, table, items)
			rep, err := verify.Table(context.Background(), db, func(o *verify.Options) {
				o.Table, o.MaxRCU, o.Segments = table, -1, 3
			})
			if err != nil {
				t.Fatal(err)
			}
			if rep.Items != int64(len(items)) {
				t.Errorf("read %d items, the table holds %d", rep.Items, len(items))
			}
			got := goldenOf(t, rep)
			golden := filepath.Join("testdata", tc.Name+".golden")
			if *update {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s: violations differ from %s\ngot:\n%s\nwant:\n%s", tc.About, golden, got, want)
			}
			if tc.Name == "healthy" != rep.OK {
				t.Errorf("OK = %v for case %s", rep.OK, tc.Name)
			}
		})
	}
}

// goldenOf is the part of a report that does not depend on timing or
// capacity: the verdict, the counts and the violations.
func goldenOf(t *testing.T, rep *verify.Report) []byte {
	t.Helper()
	if rep.Violations == nil {
		rep.Violations = []verify.Violation{}
	}
	b, err := json.MarshalIndent(struct {
		OK         bool                `json:"ok"`
		Counts     map[verify.Kind]int `json:"counts"`
		Violations []verify.Violation  `json:"violations"`
	}{rep.OK, rep.Counts, rep.Violations}, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return append(b, '\n')
}

// TestEveryKindHasACase keeps testdata/cases.json covering each kind.
func TestEveryKindHasACase(t *testing.T) {
	seen := map[verify.Kind]bool{}
	for _, tc := range loadCases(t) {
		b, err := os.ReadFile(filepath.Join("testdata", tc.Name+".golden"))
		if err != nil {
			t.Fatal(err)
		}
		var g struct{ Counts map[verify.Kind]int }
		if err := json.Unmarshal(b, &g); err != nil {
			t.Fatal(err)
		}
		for k := range g.Counts {
			seen[k] = true
		}
	}
	for _, k := range verify.Kinds {
		if !seen[k] {
			t.Errorf("no case of testdata/cases.json produces %s", k)
		}
	}
}

// TestFlowsLeaveNoViolation runs the money flows on a new table (of the
// engine or DYNAMODB_ENDPOINT) and checks it: the verifier finds nothing
// wrong with what the real flows write.
func TestFlowsLeaveNoViolation(t *testing.T) {
	db, _ := ddbtest.Client(t, nil)
	table := ddbtest.TableName("verify-flows")
	if err := provision.EnsureTable(context.Background(), db, table); err != nil {
		t.Fatal(err)
	}
	ddbtest.DeleteAfter(t, db, table)
	buildHealthy(t, db, table)
	rep, err := verify.Table(context.Background(), db, func(o *verify.Options) { o.Table, o.MaxRCU = table, -1 })
	if err != nil {
		t.Fatal(err)
	}
	if !rep.OK || rep.Users != 3 || rep.Orders != 3 || rep.Payments != 2 || rep.LedgerEntries != 4 || rep.Records != 9 {
		var b strings.Builder
		rep.WriteText(&b)
		t.Errorf("want OK with 3 users, 3 orders, 2 payments, 4 ledger entries, 9 records; got\n%s", b.String())
	}
}

func TestNoTable(t *testing.T) {
	db, _ := ddbtest.Client(t, nil)
	if _, err := verify.Table(context.Background(), db); !errors.Is(err, verify.ErrNoTable) {
		t.Errorf("err = %v, want ErrNoTable", err)
	}
	if _, err := verify.Table(context.Background(), db, func(o *verify.Options) { o.Table = "absent" }); err == nil {
		t.Error("a missing table gave no error")
	}
}

func load(t *testing.T, db *dynamodb.Client, table string, items []map[string]types.AttributeValue) {
	t.Helper()
	ctx := context.Background()
	if err := provision.EnsureTable(ctx, db, table); err != nil {
		t.Fatal(err)
	}
	ddbtest.DeleteAfter(t, db, table)
	for _, it := range items {
		if _, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: it}); err != nil {
			t.Fatal(err)
		}
	}
}

// apply returns a copy of items with the mutations done.
func apply(t *testing.T, items []map[string]types.AttributeValue, ms []mutation) []map[string]types.AttributeValue {
	t.Helper()
	out := make([]map[string]types.AttributeValue, 0, len(items))
	for _, it := range items {
		c := make(map[string]types.AttributeValue, len(it))
		for k, v := range it {
			c[k] = v
		}
		out = append(out, c)
	}
	for _, m := range ms {
		if m.Op == "put" {
			it, err := fromJSONItem(m.Item)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, it)
			continue
		}
		i := match(t, out, m.Where)
		switch m.Op {
		case "delete":
			out = append(out[:i], out[i+1:]...)
		case "remove":
			delete(out[i], m.Attr)
		case "set":
			v, err := fromJSON(m.Value)
			if err != nil {
				t.Fatal(err)
			}
			out[i][m.Attr] = v
		default:
			t.Fatalf("mutation op %q", m.Op)
		}
	}
	return out
}

// match is the index of the one item whose string and number attributes
// equal where.
func match(t *testing.T, items []map[string]types.AttributeValue, where map[string]string) int {
	t.Helper()
	found := -1
	for i, it := range items {
		if matches(it, where) {
			if found >= 0 {
				t.Fatalf("where %v matches more than one item", where)
			}
			found = i
		}
	}
	if found < 0 {
		t.Fatalf("where %v matches no item", where)
	}
	return found
}

func matches(it map[string]types.AttributeValue, where map[string]string) bool {
	for k, want := range where {
		var got string
		switch v := it[k].(type) {
		case *types.AttributeValueMemberS:
			got = v.Value
		case *types.AttributeValueMemberN:
			got = v.Value
		default:
			return false
		}
		if got != want && !(strings.HasSuffix(want, "*") && strings.HasPrefix(got, strings.TrimSuffix(want, "*"))) {
			return false
		}
	}
	return true
}
