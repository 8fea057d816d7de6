package cdk

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/oncetable/oncetable/runtime/config"
	"github.com/oncetable/oncetable/stacks"
)

// resourcesOf lists the resources of s of type typ, by logical id.
func resourcesOf(s *synthesized, typ string) map[string]map[string]any {
	out := map[string]map[string]any{}
	for id, r := range s.json["Resources"].(map[string]any) {
		if m := r.(map[string]any); m["Type"] == typ {
			out[id] = m["Properties"].(map[string]any)
		}
	}
	return out
}

// TestReplicatedTable: GIVEN prod's regions in cdk.json (eu-west-1 and
// eu-west-2, leases with a witness in eu-west-3) WHEN synthesized THEN
// the table is a global table with a replica in eu-west-2 under that
// Region's key, the lease table is MRSC with the witness, every payments
// function and the region watch read their homes through runtime/config,
// and the watch's alarms exist; dev, with no regions, has none of it.
func TestReplicatedTable(t *testing.T) {
	prod := byEnv["prod"]
	var data, leases map[string]any
	for _, p := range resourcesOf(prod, "AWS::DynamoDB::GlobalTable") {
		switch p["TableName"] {
		case stacks.TableName("prod"):
			data = p
		case stacks.LeaseTableName("prod"):
			leases = p
		}
	}
	if data == nil || leases == nil {
		t.Fatalf("prod: tables %v, want %s and %s", resourcesOf(prod, "AWS::DynamoDB::GlobalTable"), stacks.TableName("prod"), stacks.LeaseTableName("prod"))
	}
	regionsOf := func(p map[string]any) []string {
		var out []string
		for _, r := range p["Replicas"].([]any) {
			out = append(out, r.(map[string]any)["Region"].(string))
		}
		return out
	}
	if got := strings.Join(regionsOf(data), ","); got != "eu-west-2,eu-west-1" {
		t.Errorf("data replicas: got %s, want eu-west-2,eu-west-1", got)
	}
	for _, r := range data["Replicas"].([]any) {
		rep := r.(map[string]any)
		raw, _ := json.Marshal(rep["SSESpecification"])
		if rep["Region"] == "eu-west-2" && !strings.Contains(string(raw), "alias/oncetable-prod-table") {
			t.Errorf("eu-west-2 replica's key: got %s, want the key stack's alias", raw)
		}
		if rep["DeletionProtectionEnabled"] != true {
			t.Errorf("replica %v without deletion protection", rep["Region"])
		}
	}
	if data["StreamSpecification"].(map[string]any)["StreamViewType"] != "NEW_AND_OLD_IMAGES" {
		t.Errorf("data stream: got %v", data["StreamSpecification"])
	}
	witness, _ := json.Marshal(leases["GlobalTableWitnesses"])
	if leases["MultiRegionConsistency"] != "STRONG" || string(witness) != `[{"Region":"eu-west-3"}]` || strings.Join(regionsOf(leases), ",") != "eu-west-2,eu-west-1" {
		t.Errorf("leases: consistency %v, witnesses %s, replicas %v", leases["MultiRegionConsistency"], witness, regionsOf(leases))
	}
	if _, ok := keyStacks[stacks.KeyStackName("prod", "eu-west-2")]; !ok {
		t.Errorf("no key stack %s", stacks.KeyStackName("prod", "eu-west-2"))
	}

	funcs := resourcesOf(prod, "AWS::Lambda::Function")
	watched, homed := 0, 0
	for id, f := range funcs {
		env, _ := f["Environment"].(map[string]any)
		vars, _ := env["Variables"].(map[string]any)
		if vars[config.HomeLeaseTableEnv] == nil {
			continue
		}
		homed++
		if vars[config.HomeLeaseTableEnv] != stacks.LeaseTableName("prod") || vars[config.HomeRegionEnv] != "eu-west-1" ||
			vars[config.HomeLeaseRegionEnv] != "eu-west-1" || vars[config.HomeCellsEnv] != "64" || vars[config.HomeAssignEnv] != "c000-c063=eu-west-1" {
			t.Errorf("%s homes: got %v", id, vars)
		}
		if strings.HasPrefix(id, "RegionWatch") {
			watched++
		}
	}
	if watched != 1 || homed < 5 {
		t.Errorf("functions with homes: %d (want the 4 payments functions, the rotation's if any, and the watch), watch %d", homed, watched)
	}
	var names []string
	for _, a := range resourcesOf(prod, "AWS::CloudWatch::Alarm") {
		if d, _ := a["AlarmDescription"].(string); strings.Contains(d, "regionwatch") || strings.Contains(d, "replication from eu-west-1 to eu-west-2") {
			names = append(names, d[:strings.Index(d, ":")])
		}
	}
	if len(names) < 4 {
		t.Errorf("region alarms: got %v, want outside-owner, mismatch, failure queue and replication latency", names)
	}
	for _, a := range []string{"outside-owner-writes", "ledger-mismatch", "replication-latency"} {
		found := false
		for _, al := range resourcesOf(prod, "AWS::CloudWatch::Alarm") {
			if d, _ := al["AlarmDescription"].(string); strings.Contains(d, "runbook.md#"+a) {
				found = true
			}
		}
		if !found {
			t.Errorf("no alarm links runbook section %s", a)
		}
	}
	if n := len(resourcesOf(byEnv["dev"], "AWS::DynamoDB::GlobalTable")); n != 1 {
		t.Errorf("dev: %d global tables, want 1 (no lease store)", n)
	}
}
