package eventrules

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

// templates are the snapshot templates test/cdk writes and checks.
const templates = "../cdk/testdata"

// expected says, per rule (by its logical ID without CDK's hash suffix),
// which sample events of testdata/events it must match; every other sample
// event must not match it. A rule in a template without an entry here
// fails TestEveryRuleHasSampleEvents: add its case.
var expected = map[string][]string{
	// Backup and copy jobs carry their state in detail.state.
	"BackupFailedJobs": {"backup-job-aborted", "backup-job-expired", "backup-job-failed", "copy-job-failed"},
	// Restore jobs carry it in detail.status: the failed restore is
	// matched, the completed one is not.
	"BackupFailedRestores": {"restore-job-failed"},
	// The restore validation starts on a completed restore test of the
	// table's own plan, never on another restore.
	"BackupRestoreValidationRule": {"restore-test-job-completed"},
}

// standIns are the deploy-time values a template names with intrinsic
// functions, by attribute: the sample events carry the same values.
var standIns = map[string]string{
	"RestoreTestingPlanArn": "arn:aws:backup:us-west-2:1112233445566:restore-testing-plan:oncetable_restore_test-1a2b3c4d",
}

// resolve replaces each {"Fn::GetAtt": [id, attribute]} in a pattern with
// the attribute's stand-in; any other intrinsic is an error.
func resolve(v any) (any, error) {
	switch v := v.(type) {
	case map[string]any:
		if att, ok := v["Fn::GetAtt"].([]any); ok && len(v) == 1 && len(att) == 2 {
			if s, ok := standIns[fmt.Sprint(att[1])]; ok {
				return s, nil
			}
			return nil, fmt.Errorf("no stand-in for %v: add one to standIns", att)
		}
		for k, e := range v {
			if strings.HasPrefix(k, "Fn::") || k == "Ref" {
				return nil, fmt.Errorf("intrinsic %s in a pattern: add its stand-in", k)
			}
			r, err := resolve(e)
			if err != nil {
				return nil, err
			}
			v[k] = r
		}
	case []any:
		for i, e := range v {
			r, err := resolve(e)
			if err != nil {
				return nil, err
			}
			v[i] = r
		}
	}
	return v, nil
}

type rule struct {
	template, id, pattern string
}

// rules reads every AWS::Events::Rule of every snapshot template.
func rules(t *testing.T) []rule {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(templates, "*.template.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no templates in %s (%v)", templates, err)
	}
	var out []rule
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var tpl struct {
			Resources map[string]struct {
				Type       string
				Properties struct{ EventPattern json.RawMessage }
			}
		}
		if err := json.Unmarshal(raw, &tpl); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for id, r := range tpl.Resources {
			if r.Type != "AWS::Events::Rule" {
				continue
			}
			var p any
			if err := json.Unmarshal(r.Properties.EventPattern, &p); err != nil {
				t.Fatalf("%s %s: %v", f, id, err)
			}
			p, err := resolve(p)
			if err != nil {
				t.Fatalf("%s %s: %v", f, id, err)
			}
			resolved, _ := json.Marshal(p)
			out = append(out, rule{template: filepath.Base(f), id: id, pattern: string(resolved)})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].template+out[i].id < out[j].template+out[j].id })
	return out
}

// events reads the sample events, by file name without .json.
func events(t *testing.T) map[string][]byte {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "events", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no sample events (%v)", err)
	}
	out := map[string][]byte{}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out[strings.TrimSuffix(filepath.Base(f), ".json")] = raw
	}
	return out
}

// name is a logical ID without the 8-character hash CDK appends.
func name(logicalID string) string {
	if len(logicalID) > 8 {
		return logicalID[:len(logicalID)-8]
	}
	return logicalID
}

func TestEveryRuleHasSampleEvents(t *testing.T) {
	found := rules(t)
	if len(found) == 0 {
		t.Fatal("no AWS::Events::Rule in the templates")
	}
	for _, r := range found {
		if _, ok := expected[name(r.id)]; !ok {
			t.Errorf("%s: rule %s has no case in expected: say which sample events it must match", r.template, r.id)
		}
	}
}

// TestRulesMatchSampleEvents matches every rule's pattern, as synthesized,
// against every sample event.
func TestRulesMatchSampleEvents(t *testing.T) {
	samples := events(t)
	for _, r := range rules(t) {
		want, ok := expected[name(r.id)]
		if !ok {
			continue // reported by TestEveryRuleHasSampleEvents
		}
		t.Run(strings.TrimSuffix(r.template, ".template.json")+"/"+name(r.id), func(t *testing.T) {
			p, err := Compile([]byte(r.pattern))
			if err != nil {
				t.Fatalf("pattern %s: %v", r.pattern, err)
			}
			var got []string
			for ev, raw := range samples {
				m, err := p.Match(raw)
				if err != nil {
					t.Fatalf("%s: %v", ev, err)
				}
				if m {
					got = append(got, ev)
				}
			}
			sort.Strings(got)
			if !slices.Equal(got, want) {
				t.Errorf("pattern %s\nmatches %q\nwant    %q", r.pattern, got, want)
			}
		})
	}
}

// TestFailedRestorePagesCompletedDoesNot is the case the old pattern
// (detail.state on restore jobs) got wrong: of the restore events, only
// the failed one reaches a failed-jobs rule, in every environment.
func TestFailedRestorePagesCompletedDoesNot(t *testing.T) {
	samples := events(t)
	byTemplate := map[string][]*Pattern{}
	for _, r := range rules(t) {
		p, err := Compile([]byte(r.pattern))
		if err != nil {
			t.Fatal(err)
		}
		byTemplate[r.template] = append(byTemplate[r.template], p)
	}
	for tpl, patterns := range byTemplate {
		for ev, wantMatch := range map[string]bool{"restore-job-failed": true, "restore-job-completed": false, "restore-job-running": false} {
			matched := false
			for _, p := range patterns {
				m, err := p.Match(samples[ev])
				if err != nil {
					t.Fatal(err)
				}
				matched = matched || m
			}
			if matched != wantMatch {
				t.Errorf("%s: %s matched by a rule: %v, want %v", tpl, ev, matched, wantMatch)
			}
		}
	}
}
