package cdk

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/oncetable/oncetable/runtime/schema"
)

// TestConsumerApp runs test/consumer, a separate CDK app that imports the
// constructs, as the CDK CLI would (its own process, CDK_OUTDIR set), and
// checks the template it writes.
func TestConsumerApp(t *testing.T) {
	out := t.TempDir()
	cmd := exec.Command(appBinary(t, "consumer"))
	cmd.Env = append(os.Environ(), "CDK_OUTDIR="+out)
	if output, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("test/consumer: %v\n%s", err, output)
	}
	raw, err := os.ReadFile(filepath.Join(out, "Payments.template.json"))
	if err != nil {
		t.Fatal(err)
	}
	var template struct {
		Resources map[string]struct {
			Type       string
			Properties map[string]any
		}
	}
	if err := json.Unmarshal(raw, &template); err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	var tableKeys string
	for id, r := range template.Resources {
		count[r.Type]++
		// Every alarm links to its section of the consumer's own runbook.
		if d, _ := r.Properties["AlarmDescription"].(string); r.Type == "AWS::CloudWatch::Alarm" &&
			!regexp.MustCompile(`Runbook: https://wiki\.example\.com/payments/runbook#[a-z-]+$`).MatchString(d) {
			t.Errorf("alarm %s: description %q has no link to the consumer's runbook", id, d)
		}
		if r.Type == "AWS::DynamoDB::GlobalTable" {
			keys, _ := json.Marshal(r.Properties["KeySchema"])
			tableKeys = string(keys)
		}
	}
	// 2 throttle and 2 key-range throttle alarms for the table and each
	// index, system errors, conflicts, 2 capacity alarms, a failed backup
	// job, the backup dead-letter queue's alarm, no completed backup, the
	// subscriptions' dead-letter queue, plus the consumer's latency alarm.
	wantAlarms := 4*(1+len(schema.Indexes())) + 4 + 3 + 1 + 1
	for typ, n := range map[string]int{
		"AWS::DynamoDB::GlobalTable":   1,
		"AWS::CloudWatch::Alarm":       wantAlarms,
		"AWS::CloudWatch::Dashboard":   1,
		"AWS::SNS::Topic":              2,
		"AWS::SNS::Subscription":       2,
		"AWS::Backup::BackupVault":     1,
		"AWS::Backup::BackupSelection": 1,
		"AWS::Events::Rule":            2,
		"AWS::SQS::Queue":              2,
	} {
		if count[typ] != n {
			t.Errorf("got %d %s, want %d", count[typ], typ, n)
		}
	}
	if !strings.Contains(tableKeys, `"`+schema.PartitionKey+`"`) || !strings.Contains(tableKeys, `"`+schema.SortKey+`"`) {
		t.Errorf("table keys %s, want %s and %s", tableKeys, schema.PartitionKey, schema.SortKey)
	}
}
