package cdk

import (
	"fmt"
	"slices"
	"sort"
	"testing"
)

// keptOnFailedCreate lists, per stack, every resource CloudFormation keeps
// when the stack's first create fails and rolls back: those with
// DeletionPolicy Retain (or Snapshot, which leaves a snapshot). A kept
// resource with a fixed name makes the retry fail with "already exists",
// and a kept compliance-locked vault can never be removed. Retention is
// RetainExceptOnCreate instead, so the list is empty everywhere; a
// resource added to it must have no fixed physical name.
var keptOnFailedCreate = map[string][]string{
	"dev": {}, "staging": {}, "prod": {}, "prod-dr": {}, "defaults": {}, "prod deployed": {}, "prod-dr deployed": {},
}

// retainedTypes are the resource types an environment that retains its
// data keeps on update and delete (RetainExceptOnCreate with
// UpdateReplacePolicy Retain): the table, the vault, the keys, the logs,
// the cursor secret and the event history (bus, archive, failure queues).
var retainedTypes = []string{
	"AWS::Backup::BackupVault", "AWS::DynamoDB::GlobalTable", "AWS::Events::Archive", "AWS::Events::EventBus",
	"AWS::KMS::Key", "AWS::Logs::LogGroup", "AWS::SecretsManager::Secret",
}

func TestRollbackOfAFailedCreateKeepsNothing(t *testing.T) {
	named := map[string]*synthesized{
		"dev": byEnv["dev"], "staging": byEnv["staging"], "prod": byEnv["prod"], "prod-dr": drStacks["prod"],
		"defaults": defaults, "prod deployed": deployed, "prod-dr deployed": deployedDR,
	}
	for name, s := range named {
		t.Run(name, func(t *testing.T) {
			var kept []string
			retained := map[string]bool{}
			for id, r := range s.json["Resources"].(map[string]any) {
				res := r.(map[string]any)
				switch res["DeletionPolicy"] {
				case "Retain", "Snapshot":
					kept = append(kept, fmt.Sprintf("%s (%s)", id, res["Type"]))
				case "RetainExceptOnCreate":
					if res["UpdateReplacePolicy"] != "Retain" {
						t.Errorf("%s: RetainExceptOnCreate with UpdateReplacePolicy %v, want Retain (a replacement would delete the data)", id, res["UpdateReplacePolicy"])
					}
					retained[res["Type"].(string)] = true
				}
			}
			sort.Strings(kept)
			if want := keptOnFailedCreate[name]; !slices.Equal(kept, want) {
				t.Errorf("kept on a failed create: %q, want %q", kept, want)
			}
			if name == "dev" {
				if len(retained) > 0 {
					t.Errorf("dev (removalPolicy destroy) retains %v", retained)
				}
				return
			}
			for _, typ := range retainedTypes {
				if _, present := typesIn(s)[typ]; present && !retained[typ] {
					t.Errorf("%s is not retained (RetainExceptOnCreate)", typ)
				}
			}
		})
	}
}

func typesIn(s *synthesized) map[string]int {
	out := map[string]int{}
	for _, r := range s.json["Resources"].(map[string]any) {
		out[r.(map[string]any)["Type"].(string)]++
	}
	return out
}
