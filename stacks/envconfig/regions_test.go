package envconfig_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/oncetable/oncetable/runtime/config"
	"github.com/oncetable/oncetable/stacks/envconfig"
)

// twoRegions is a valid regions section: eu-west-1 (the environment's)
// and eu-west-2, leases on both and a witness in eu-west-3.
func twoRegions() map[string]any {
	return map[string]any{
		"replicas": []any{"eu-west-2"},
		"leases":   map[string]any{"regions": []any{"eu-west-1", "eu-west-2"}, "witness": "eu-west-3"},
		"homes":    map[string]any{"eu-west-1": "c000-c031", "eu-west-2": "c032-c063"},
	}
}

func regionsWith(path string, v any) map[string]any {
	r := twoRegions()
	r[path] = v
	return r
}

func TestRegionsRefused(t *testing.T) {
	tests := []struct {
		name, field, wantIn string
		regions             map[string]any
	}{
		{"no replica", "regions.replicas", "at least one", regionsWith("replicas", []any{})},
		{"the environment's region as a replica", "regions.replicas", "named twice", regionsWith("replicas", []any{"eu-west-1"})},
		{"two lease regions, no witness", "regions.leases", "three regions, or two and a witness", regionsWith("leases", map[string]any{"regions": []any{"eu-west-1", "eu-west-2"}})},
		{"lease store outside the Region set", "regions.leases", "outside the MRSC Region set", regionsWith("leases", map[string]any{"regions": []any{"eu-west-1", "us-east-1"}, "witness": "eu-west-3"})},
		{"lease store without the environment's region", "regions.leases.regions", "must include", regionsWith("leases", map[string]any{"regions": []any{"eu-west-2", "eu-west-3", "eu-central-1"}})},
		{"a cell without a home", "regions.homes", "cell c063 has no first home", regionsWith("homes", map[string]any{"eu-west-1": "c000-c031", "eu-west-2": "c032-c062"})},
		{"a cell with two homes", "regions.homes", "cell c031 is in the ranges", regionsWith("homes", map[string]any{"eu-west-1": "c000-c031", "eu-west-2": "c031-c063"})},
		{"a home outside the table", "regions.homes", "not a Region of the table", regionsWith("homes", map[string]any{"eu-west-1": "c000-c031", "eu-west-3": "c032-c063"})},
		{"a range past the last cell", "regions.homes.eu-west-2", "below c064", regionsWith("homes", map[string]any{"eu-west-1": "c000-c031", "eu-west-2": "c032-c064"})},
		{"too many cells", "regions.cells", "outside 1..4096", regionsWith("cells", 5000)},
		{"unknown unplanned mode", "regions.unplanned", `"retry"`, regionsWith("unplanned", "retry")},
		{"plain http peer", "regions.peers.eu-west-2", "https://", regionsWith("peers", map[string]any{"eu-west-2": "http://api.example.com"})},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := envconfig.Parse([]byte(`{"prod":` + with(t, "regions", tt.regions) + `}`))
			var fe *envconfig.FieldError
			if !errors.As(err, &fe) || fe.Field != tt.field || !strings.Contains(fe.Reason, tt.wantIn) {
				t.Fatalf("got %v, want a *FieldError on %s containing %q", err, tt.field, tt.wantIn)
			}
		})
	}
}

// TestRegionsGiveEachRegionItsHomes: each Region's functions get the
// homes of the runtime's contract, reading the lease table in their own
// Region when it has a replica there.
func TestRegionsGiveEachRegionItsHomes(t *testing.T) {
	all, err := envconfig.Parse([]byte(`{"prod":` + with(t, "regions", regionsWith("peers", map[string]any{"eu-west-2": "https://api.eu2.example.com"})) + `}`))
	if err != nil {
		t.Fatal(err)
	}
	c := all["prod"]
	if got := c.TableRegions(); !reflect.DeepEqual(got, []string{"eu-west-1", "eu-west-2"}) {
		t.Fatalf("TableRegions = %v", got)
	}
	if c.Regions.Cells != 64 || c.Regions.Unplanned != envconfig.Freeze || c.Regions.ReplicationLatencyAlarmMs != envconfig.DefaultReplicationLatencyAlarmMs {
		t.Fatalf("defaults: got %+v", c.Regions)
	}
	want := config.Homes{LeaseTable: "leases", Region: "eu-west-2", LeaseRegion: "eu-west-2", Cells: 64,
		Peers:  map[string]string{"eu-west-2": "https://api.eu2.example.com"},
		Assign: []config.CellRange{{From: 0, To: 31, Region: "eu-west-1"}, {From: 32, To: 63, Region: "eu-west-2"}}}
	got := c.Homes("eu-west-2", "leases")
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Homes(eu-west-2) = %+v, want %+v", got, want)
	}
	loaded, err := config.LoadHomes(func(k string) string { return got.Environment()[k] })
	if err != nil || !reflect.DeepEqual(loaded, want) {
		t.Fatalf("LoadHomes(Environment()) = %+v, %v; want %+v", loaded, err, want)
	}
	if one := (envconfig.Config{Region: "eu-west-1"}); one.Homes("eu-west-1", "leases").Enabled() || len(one.TableRegions()) != 1 {
		t.Fatal("an environment without regions has homes")
	}
}
