package cdk

import (
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/oncetable/oncetable/runtime/schema"
)

// stages are the order index stages in deploy order: CloudFormation adds or
// removes one GSI per stack update, so each is a deploy of its own.
var stages = []schema.OrderIndexes{schema.OrdersV1, schema.OrdersBoth, schema.OrdersV2}

// gsis returns the table's global secondary indexes by name, and their
// names in template order.
func gsis(t *testing.T, s *synthesized) (map[string]map[string]any, []string) {
	t.Helper()
	_, table := dataTable(t, s)
	byName := map[string]map[string]any{}
	var names []string
	for _, g := range props(table)["GlobalSecondaryIndexes"].([]any) {
		gsi := g.(map[string]any)
		name := gsi["IndexName"].(string)
		byName[name] = gsi
		names = append(names, name)
	}
	return byName, names
}

// attributeDefinitions maps each attribute the table defines to its type.
func attributeDefinitions(t *testing.T, s *synthesized) map[string]string {
	t.Helper()
	_, table := dataTable(t, s)
	out := map[string]string{}
	for _, d := range props(table)["AttributeDefinitions"].([]any) {
		def := d.(map[string]any)
		out[def["AttributeName"].(string)] = def["AttributeType"].(string)
	}
	return out
}

// alarmsPerIndex counts the alarms whose metrics name each GSI.
func alarmsPerIndex(s *synthesized) map[string]int {
	out := map[string]int{}
	for _, r := range resources(s, "AWS::CloudWatch::Alarm") {
		seen := map[string]bool{}
		walkDimensions(r, func(name, value string) {
			if name == "GlobalSecondaryIndexName" {
				seen[value] = true
			}
		})
		for ix := range seen {
			out[ix]++
		}
	}
	return out
}

func walkDimensions(v any, visit func(name, value string)) {
	switch v := v.(type) {
	case map[string]any:
		if dims, ok := v["Dimensions"].([]any); ok {
			for _, d := range dims {
				dm, _ := d.(map[string]any)
				name, _ := dm["Name"].(string)
				value, _ := dm["Value"].(string)
				visit(name, value)
			}
		}
		for _, e := range v {
			walkDimensions(e, visit)
		}
	case []any:
		for _, e := range v {
			walkDimensions(e, visit)
		}
	}
}

// TestOrderIndexStages: at each stage (cdk.json orderIndexes) the table has
// exactly the stage's indexes, OrdersByStatus on its multi-attribute key;
// each index has its alarms; the api function may query exactly those
// indexes.
func TestOrderIndexStages(t *testing.T) {
	tests := []struct {
		stage schema.OrderIndexes
		want  []string
	}{
		{schema.OrdersV1, []string{"GSI1", "Unprocessed", "Featured"}},
		{schema.OrdersBoth, []string{"GSI1", "Unprocessed", "Featured", "OrdersByStatus"}},
		{schema.OrdersV2, []string{"Unprocessed", "Featured", "OrdersByStatus"}},
	}
	for _, tt := range tests {
		t.Run(string(tt.stage), func(t *testing.T) {
			s := byStage[tt.stage]
			if got := s.table.Orders.Stage; got != tt.stage {
				t.Fatalf("table built at stage %q, want %q", got, tt.stage)
			}
			// THEN the table has exactly the stage's indexes
			byName, names := gsis(t, s)
			if !reflect.DeepEqual(names, tt.want) {
				t.Errorf("GSIs %v, want %v", names, tt.want)
			}
			if got := s.table.IndexNames(); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Table.IndexNames() %v, want %v", got, tt.want)
			}
			// THEN OrdersByStatus is keyed by the order's own attributes, in order
			defs := attributeDefinitions(t, s)
			if gsi, ok := byName["OrdersByStatus"]; ok {
				wantKeys := []any{
					map[string]any{"AttributeName": "status", "KeyType": "HASH"},
					map[string]any{"AttributeName": "shard", "KeyType": "HASH"},
					map[string]any{"AttributeName": "createdAt", "KeyType": "RANGE"},
					map[string]any{"AttributeName": "orderId", "KeyType": "RANGE"},
				}
				if !reflect.DeepEqual(gsi["KeySchema"], wantKeys) {
					t.Errorf("OrdersByStatus KeySchema %s, want %s", compact(gsi["KeySchema"]), compact(wantKeys))
				}
				if !reflect.DeepEqual(gsi["Projection"], map[string]any{"ProjectionType": "ALL"}) {
					t.Errorf("OrdersByStatus Projection %v, want ALL", gsi["Projection"])
				}
			}
			// THEN the table defines exactly the key attributes of the table and of the stage's indexes, typed
			want := map[string]string{schema.PartitionKey: "S", schema.SortKey: "S"}
			for _, ix := range (schema.Schema{Orders: tt.stage}).Indexes() {
				for _, k := range append(ix.HashKeys(), ix.RangeKeys()...) {
					want[k.Name] = string(k.Type)
				}
			}
			if !reflect.DeepEqual(defs, want) {
				t.Errorf("AttributeDefinitions %v, want %v", defs, want)
			}
			if tt.stage != schema.OrdersV1 && defs["shard"] != "N" {
				t.Errorf("shard defined as %q, want N", defs["shard"])
			}
			// THEN each of the stage's indexes, and no other, has as many alarms as every other index
			perIndex := alarmsPerIndex(s)
			var alarmed []string
			for ix := range perIndex {
				alarmed = append(alarmed, ix)
			}
			sort.Strings(alarmed)
			wantAlarmed := slices.Sorted(slices.Values(tt.want))
			if !reflect.DeepEqual(alarmed, wantAlarmed) {
				t.Errorf("indexes with alarms %v, want %v", alarmed, wantAlarmed)
			}
			for _, ix := range tt.want {
				if perIndex[ix] != perIndex[tt.want[0]] || perIndex[ix] == 0 {
					t.Errorf("alarms per index %v: want the same number, above 0, for each", perIndex)
					break
				}
			}
		})
	}
}

// TestOrderIndexStagesChangeOneGSIPerDeploy diffs the synthesized templates
// of consecutive stages (v1 -> both, both -> v2): CloudFormation can add or
// remove only one GSI per stack update, so each step must add or remove
// exactly one GSI, leave the others as they are, and replace nothing
// (the table keeps its logical ID).
func TestOrderIndexStagesChangeOneGSIPerDeploy(t *testing.T) {
	for i := 0; i+1 < len(stages); i++ {
		from, to := stages[i], stages[i+1]
		t.Run(string(from)+"->"+string(to), func(t *testing.T) {
			a, b := byStage[from], byStage[to]
			before, _ := gsis(t, a)
			after, _ := gsis(t, b)
			var added, removed, changed []string
			for name, g := range after {
				if old, ok := before[name]; !ok {
					added = append(added, name)
				} else if !reflect.DeepEqual(old, g) {
					changed = append(changed, name)
				}
			}
			for name := range before {
				if _, ok := after[name]; !ok {
					removed = append(removed, name)
				}
			}
			if len(added)+len(removed) != 1 || len(changed) != 0 {
				t.Errorf("GSIs added %v, removed %v, changed %v: want exactly one added or removed and none changed", added, removed, changed)
			}

			diff := templateDiff(normalize(a.json), normalize(b.json))
			tableID := logicalID(b, b.table.Table)
			if logicalID(a, a.table.Table) != tableID {
				t.Errorf("the table's logical ID changes: %s -> %s", logicalID(a, a.table.Table), tableID)
			}
			for _, line := range strings.Split(diff, "\n") {
				// Only the index's alarms and the fence's policy come and go;
				// every other resource is updated in place.
				if (strings.HasPrefix(line, "added resource ") || strings.HasPrefix(line, "removed resource ")) &&
					!strings.HasSuffix(line, "(AWS::CloudWatch::Alarm)") && !fencePolicy.MatchString(line) {
					t.Errorf("%s: only alarms and the fence's policy may be added or removed", line)
				}
			}
			tableChanges := tableDiffPaths(diff, tableID)
			for _, p := range tableChanges {
				if !indexProperty.MatchString(p) {
					t.Errorf("table property %s changes; want only the GSIs, their replica settings and the attribute definitions", p)
				}
			}
			if len(tableChanges) == 0 {
				t.Error("the table does not change")
			}
			t.Logf("template diff OnceTable-%s %s -> %s (long values cut):\n%s", stageEnv, from, to, cutLines(diff, 160))
		})
	}
}

// indexProperty matches the table properties a GSI is part of: the index
// list, each replica's per-index settings and the key attribute definitions.
var indexProperty = regexp.MustCompile(`^Properties\.(GlobalSecondaryIndexes|AttributeDefinitions|Replicas\[\d+\]\.GlobalSecondaryIndexes)\b`)

// fencePolicy matches the diff line of a function's MigrationFence policy.
var fencePolicy = regexp.MustCompile(`^(added|removed) resource Payments\w+FunctionMigrationFencePolicy\w* \(AWS::IAM::Policy\)$`)

// cutLines shortens each line of s to n bytes.
func cutLines(s string, n int) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if len(l) > n {
			lines[i] = l[:n] + "..."
		}
	}
	return strings.Join(lines, "\n")
}

// tableDiffPaths lists the property paths templateDiff reports for the
// changed resource id.
func tableDiffPaths(diff, id string) []string {
	var out []string
	in := false
	for _, line := range strings.Split(diff, "\n") {
		switch {
		case strings.HasPrefix(line, "changed resource "):
			in = strings.HasPrefix(line, fmt.Sprintf("changed resource %s ", id))
		case strings.HasPrefix(line, "added resource "), strings.HasPrefix(line, "removed resource "), strings.HasPrefix(line, "section "):
			in = false
		case in && line != "" && !strings.HasPrefix(line, " "):
			out = append(out, line)
		}
	}
	return out
}
