package workbench_test

import (
	"context"
	"encoding/json"
	"os"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/oncetable/oncetable/runtime/keys"
	"github.com/oncetable/oncetable/runtime/schema"
	"github.com/oncetable/oncetable/test/workbench"
)

// tracked is the model `make model DOCS=1` writes.
const tracked = "../../docs/oncetable.workbench.json"

func build(t *testing.T) workbench.Model {
	t.Helper()
	sample, err := workbench.Sample(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	m, err := workbench.Build("oncetable", schema.Default(), keys.Default, sample)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// shape is a model without what changes from one generation to the next:
// the dates and the sample values (payment and ledger ids, timestamps);
// each facet keeps its rows' count and attribute names.
func shape(m workbench.Model) workbench.Model {
	m.ModelMetadata.DateCreated, m.ModelMetadata.DateLastModified = "", ""
	var tables []workbench.Table
	for _, t := range m.DataModel {
		var facets []workbench.Facet
		for _, f := range t.TableFacets {
			var rows []workbench.Item
			for _, row := range f.TableData {
				names := make([]string, 0, len(row))
				for n := range row {
					names = append(names, n)
				}
				sort.Strings(names)
				rows = append(rows, workbench.Item{strings.Join(names, ","): nil})
			}
			f.TableData = rows
			facets = append(facets, f)
		}
		t.TableFacets = facets
		tables = append(tables, t)
	}
	m.DataModel = tables
	return m
}

func TestModelInStepWithTheSchema(t *testing.T) {
	m := build(t)
	if err := workbench.Validate(m); err != nil {
		t.Fatalf("the generated model is invalid:\n%v", err)
	}
	raw, err := os.ReadFile(tracked)
	if err != nil {
		t.Fatal(err)
	}
	var got workbench.Model
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatalf("%s: %v", tracked, err)
	}
	if err := workbench.Validate(got); err != nil {
		t.Errorf("%s is invalid:\n%v", tracked, err)
	}
	// Compare through JSON, as the file is read.
	var want workbench.Model
	gen, _ := json.Marshal(m)
	if err := json.Unmarshal(gen, &want); err != nil {
		t.Fatal(err)
	}
	if a, b := shape(got), shape(want); !reflect.DeepEqual(a, b) {
		ja, _ := json.MarshalIndent(a, "", " ")
		jb, _ := json.MarshalIndent(b, "", " ")
		t.Errorf("%s is out of step with runtime/schema, runtime/keys and the entities; run make model DOCS=1\n got %s\nwant %s", tracked, ja, jb)
	}
}

func TestModelShowsEveryEntityAndIndex(t *testing.T) {
	m := build(t)
	tab := m.DataModel[0]
	for _, f := range tab.TableFacets {
		if len(f.TableData) == 0 {
			t.Errorf("facet %s has no sample item", f.FacetName)
		}
	}
	var got []string
	for _, ix := range tab.GlobalSecondaryIndexes {
		got = append(got, ix.IndexName)
	}
	var want []string
	for _, ix := range schema.Default().Indexes() {
		want = append(want, ix.Name)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("indexes %v, want the schema's %v", got, want)
	}
	if !strings.Contains(m.ModelMetadata.Description, schema.OrdersByStatus.Name) {
		t.Errorf("the description does not name %s, which the format cannot express", schema.OrdersByStatus.Name)
	}
}

func TestValidateFindsDrift(t *testing.T) {
	cases := []struct {
		name   string
		change func(*workbench.Table)
		want   string
	}{
		{"facet attribute the table does not declare", func(t *workbench.Table) {
			t.TableFacets[0].NonKeyAttributes = append(t.TableFacets[0].NonKeyAttributes, "nickname")
		}, "attribute nickname is not declared"},
		{"row attribute the facet does not list", func(t *workbench.Table) {
			t.TableFacets[0].TableData[0]["nickname"] = map[string]any{"S": "x"}
		}, "which the facet does not list"},
		{"row value of another type", func(t *workbench.Table) {
			t.TableFacets[0].TableData[0]["balance"] = map[string]any{"S": "10"}
		}, "attribute balance is S, declared N"},
		{"row key outside the facet's alias", func(t *workbench.Table) {
			t.TableFacets[0].TableData[0]["PK"] = map[string]any{"S": "ORDER#o1"}
		}, "does not match the alias"},
		{"index key of another type", func(t *workbench.Table) {
			t.GlobalSecondaryIndexes[0].KeyAttributes.PartitionKey.AttributeType = "N"
		}, "is not a declared attribute of that type"},
		{"INCLUDE without attributes", func(t *workbench.Table) {
			for i := range t.GlobalSecondaryIndexes {
				t.GlobalSecondaryIndexes[i].Projection.NonKeyAttributes = nil
			}
		}, "projection"},
	}
	base := build(t)
	raw, _ := json.Marshal(base)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var m workbench.Model
			if err := json.Unmarshal(raw, &m); err != nil {
				t.Fatal(err)
			}
			c.change(&m.DataModel[0])
			err := workbench.Validate(m)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("Validate = %v, want an error containing %q", err, c.want)
			}
		})
	}
}
