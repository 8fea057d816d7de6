package oncall_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/oncetable/oncetable/constructs/oncall"
)

func TestKindsAreUniqueAndComplete(t *testing.T) {
	seen := map[string]bool{}
	groups := map[oncall.Group]bool{}
	for _, g := range oncall.Groups() {
		groups[g] = true
	}
	for _, k := range oncall.Kinds() {
		if seen[k.Name] {
			t.Errorf("two kinds named %q", k.Name)
		}
		seen[k.Name] = true
		if !k.Severity.Valid() || !groups[k.Group] {
			t.Errorf("kind %+v: severity or group unknown", k)
		}
		if got, ok := oncall.Lookup(k.Name); !ok || got != k {
			t.Errorf("Lookup(%q) = %+v, %v", k.Name, got, ok)
		}
	}
}

func TestRouting(t *testing.T) {
	tests := []struct {
		name    string
		routing oncall.Routing
		kind    oncall.Kind
		want    oncall.Severity
		wantErr bool
	}{
		{name: "nil routes to the default", kind: oncall.APILatency, want: oncall.Ticket},
		{name: "moved to page", routing: oncall.Routing{"api-latency": oncall.Page}, kind: oncall.APILatency, want: oncall.Page},
		{name: "moved to ticket", routing: oncall.Routing{"api-5xx-rate": oncall.Ticket}, kind: oncall.APIServerErrorRate, want: oncall.Ticket},
		{name: "others keep theirs", routing: oncall.Routing{"api-latency": oncall.Page}, kind: oncall.TableThrottles, want: oncall.Ticket},
		{name: "unknown kind", routing: oncall.Routing{"api-latencyy": oncall.Page}, wantErr: true},
		{name: "unknown severity", routing: oncall.Routing{"api-latency": "email"}, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.routing.Validate()
			var re *oncall.RoutingError
			if tt.wantErr {
				if !errors.As(err, &re) {
					t.Fatalf("Validate() = %v, want a *RoutingError", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Validate() = %v", err)
			}
			if got := tt.routing.SeverityOf(tt.kind); got != tt.want {
				t.Errorf("SeverityOf(%s) = %s, want %s", tt.kind.Name, got, tt.want)
			}
		})
	}
}

func ExampleRouting_SeverityOf() {
	staging := oncall.Routing{"api-5xx-rate": oncall.Ticket}
	fmt.Println(staging.SeverityOf(oncall.APIServerErrorRate), staging.SeverityOf(oncall.MoneyFunctionErrors))
	fmt.Println(oncall.APIServerErrorRate.Link(oncall.DefaultRunbookURL))
	// Output:
	// ticket page
	// https://github.com/oncetable/oncetable/blob/main/docs/runbook.md#api-5xx-rate
}
