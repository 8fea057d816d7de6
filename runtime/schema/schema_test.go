package schema_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/oncetable/oncetable/runtime/schema"
)

func TestIndexesHaveDistinctNamesAndKeys(t *testing.T) {
	names := map[string]bool{}
	attrs := map[string]string{schema.PartitionKey: "table", schema.SortKey: "table"}
	for _, ix := range schema.Indexes() {
		if names[ix.Name] {
			t.Errorf("index name %q used twice", ix.Name)
		}
		names[ix.Name] = true
		for _, a := range []string{ix.PartitionKey, ix.SortKey} {
			if owner, ok := attrs[a]; ok {
				t.Errorf("key attribute %q of %s already belongs to %s", a, ix.Name, owner)
			}
			attrs[a] = ix.Name
		}
		if (ix.Projection == schema.ProjectInclude) != (len(ix.NonKeyAttributes) > 0) {
			t.Errorf("%s: projection %s with %d non-key attributes", ix.Name, ix.Projection, len(ix.NonKeyAttributes))
		}
	}
	if len(names) != 3 {
		t.Errorf("got %d indexes, want 3", len(names))
	}
}

func ExampleIndexes() {
	for _, ix := range schema.Indexes() {
		fmt.Println(ix.Name, ix.PartitionKey, ix.SortKey, ix.Projection)
	}
	// Output:
	// GSI1 GSI1PK GSI1SK ALL
	// Unprocessed UnprocessedPK UnprocessedSK INCLUDE
	// Featured FeaturedPK FeaturedSK ALL
}

func TestOrderIndexesStages(t *testing.T) {
	for _, tc := range []struct {
		stage schema.OrderIndexes
		want  string
	}{
		{"", "GSI1 Unprocessed Featured"},
		{schema.OrdersV1, "GSI1 Unprocessed Featured"},
		{schema.OrdersBoth, "GSI1 Unprocessed Featured OrdersByStatus"},
		{schema.OrdersV2, "Unprocessed Featured OrdersByStatus"},
	} {
		var names []string
		for _, ix := range (schema.Schema{Orders: tc.stage}).Indexes() {
			names = append(names, ix.Name)
		}
		if got := strings.Join(names, " "); got != tc.want {
			t.Errorf("Orders=%q: indexes %s, want %s", tc.stage, got, tc.want)
		}
	}
	if _, err := schema.ParseOrderIndexes("v3"); err == nil {
		t.Error("ParseOrderIndexes(v3) = nil error")
	}
}

func ExampleIndex_HashKeys() {
	for _, ix := range []schema.Index{schema.GSI1, schema.OrdersByStatus} {
		fmt.Println(ix.Name, ix.MultiAttribute(), ix.HashKeys(), ix.RangeKeys())
	}
	// Output:
	// GSI1 false [{GSI1PK S}] [{GSI1SK S}]
	// OrdersByStatus true [{status S} {shard N}] [{createdAt S} {orderId S}]
}
