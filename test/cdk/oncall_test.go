package cdk

import (
	"bufio"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/aws/constructs-go/constructs/v10"

	"github.com/oncetable/oncetable/constructs/oncall"
	"github.com/oncetable/oncetable/runtime/obs"
	"github.com/oncetable/oncetable/stacks/envconfig"
)

// oncallStacks are the stacks whose alarms the on-call tests read: every
// environment and prod as deployed (with its Slack channels and pager).
func oncallStacks() map[string]*synthesized {
	out := map[string]*synthesized{"prod deployed": deployed}
	for _, env := range envs {
		out[env] = byEnv[env]
	}
	return out
}

// envOf is the cdk.json environment of an oncallStacks name.
func envOf(name string) string { return strings.TrimSuffix(name, " deployed") }

// alarmResource is the template properties of the alarm construct c.
func alarmResource(t *testing.T, s *synthesized, c constructs.IConstruct) map[string]any {
	t.Helper()
	if c == nil {
		t.Fatal("no such alarm construct")
	}
	r, ok := s.json["Resources"].(map[string]any)[logicalID(s, c)].(map[string]any)
	if !ok || (r["Type"] != "AWS::CloudWatch::Alarm" && r["Type"] != "AWS::CloudWatch::CompositeAlarm") {
		t.Fatalf("%s is not an alarm of the template", *c.Node().Path())
	}
	return props(r)
}

// datapoints is an alarm's DatapointsToAlarm, which defaults to its
// EvaluationPeriods.
func datapoints(p map[string]any) float64 {
	if d, ok := p["DatapointsToAlarm"].(float64); ok {
		return d
	}
	return p["EvaluationPeriods"].(float64)
}

// runbookLink is the end of every alarm description.
var runbookLink = regexp.MustCompile(`Runbook: (\S+)/docs/runbook\.md#([a-z0-9-]+)$`)

// runbookSections are the "### " headings under "## Alarms" of
// docs/runbook.md, each with its body.
func runbookSections(t *testing.T) map[string]string {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "..", "docs", "runbook.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sections := map[string]string{}
	inAlarms, current := false, ""
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "## "):
			inAlarms, current = line == "## Alarms", ""
		case inAlarms && strings.HasPrefix(line, "### "):
			current = strings.TrimPrefix(line, "### ")
			if _, dup := sections[current]; dup {
				t.Errorf("runbook: two sections %q", current)
			}
			sections[current] = ""
		case current != "":
			sections[current] += line + "\n"
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return sections
}

// TestRunbookCoversEveryAlarm reads the templates of every environment and
// the runbook's headings: every alarm's description ends with a link to a
// section that exists, every section is linked by an alarm of some
// environment, and each section says what it means, gives three first
// checks and how to mitigate.
func TestRunbookCoversEveryAlarm(t *testing.T) {
	sections := runbookSections(t)
	linked := map[string][]string{}
	for env, s := range oncallStacks() {
		all := resources(s, "AWS::CloudWatch::Alarm")
		maps.Copy(all, resources(s, "AWS::CloudWatch::CompositeAlarm"))
		for id, r := range all {
			desc, _ := props(r)["AlarmDescription"].(string)
			m := runbookLink.FindStringSubmatch(desc)
			if m == nil {
				t.Errorf("%s %s: description has no runbook link: %q", env, id, desc)
				continue
			}
			if m[1] != "https://github.com/oncetable/oncetable/blob/main" {
				t.Errorf("%s %s: runbook link %s is not the repository's", env, id, m[0])
			}
			if _, ok := sections[m[2]]; !ok {
				t.Errorf("%s %s: links runbook section %q, which docs/runbook.md does not have", env, id, m[2])
			}
			linked[m[2]] = append(linked[m[2]], env)
		}
	}
	for name, body := range sections {
		if len(linked[name]) == 0 {
			t.Errorf("runbook section %q: no alarm of any environment links to it", name)
		}
		k, ok := oncall.Lookup(name)
		if !ok {
			t.Errorf("runbook section %q is not an alarm kind of constructs/oncall", name)
			continue
		}
		if !strings.HasPrefix(body, "\nDefault: "+string(k.Severity)) {
			t.Errorf("runbook section %q does not start with its default severity %q", name, k.Severity)
		}
		checks := regexp.MustCompile(`(?m)^First checks:\n1\. .+\n2\. .+\n3\. .+\n\nMitigate: .+`)
		if !checks.MatchString(body) {
			t.Errorf("runbook section %q lacks the three first checks and the mitigation", name)
		}
	}
	for _, k := range oncall.Kinds() {
		if _, ok := sections[k.Name]; !ok {
			t.Errorf("kind %q has no runbook section", k.Name)
		}
	}
}

// TestAlarmRouting: every alarm of every environment reaches exactly the
// topic of its kind's severity under cdk.json's routing, on ALARM and on
// OK, and says its severity first.
func TestAlarmRouting(t *testing.T) {
	all, err := envconfig.ReadCDKJSON(filepath.Join("..", "..", "cdk.json"))
	if err != nil {
		t.Fatal(err)
	}
	for name, s := range oncallStacks() {
		env := envOf(name)
		t.Run(name, func(t *testing.T) {
			routing := all[env].Alarms.Routing
			topics := map[oncall.Severity]any{
				oncall.Page:   []any{ref(logicalID(s, s.ops.Page.Topic))},
				oncall.Ticket: []any{ref(logicalID(s, s.ops.Ticket.Topic))},
			}
			inTemplate := len(resources(s, "AWS::CloudWatch::Alarm")) + len(resources(s, "AWS::CloudWatch::CompositeAlarm"))
			if len(s.ops.Alarms)+len(s.ops.Inputs) != inTemplate {
				t.Errorf("%d alarms went through Operations.AddAlarm and %d through AddAlarmInputs, the template has %d", len(s.ops.Alarms), len(s.ops.Inputs), inTemplate)
			}
			// Inputs of composite alarms say their severity and notify no one.
			for _, a := range s.ops.Inputs {
				p := alarmResource(t, s, a.Alarm)
				if d, _ := p["AlarmDescription"].(string); p["AlarmActions"] != nil || p["OKActions"] != nil || !strings.HasPrefix(d, "["+string(routing.SeverityOf(a.Kind))+"] ") {
					t.Errorf("input %s (%s): actions %v / OK %v, description %q; want none, and its severity first", *a.Alarm.Node().Path(), a.Kind.Name, p["AlarmActions"], p["OKActions"], d)
				}
			}
			bySeverity := map[oncall.Severity][]string{}
			for _, a := range s.ops.Alarms {
				want := routing.SeverityOf(a.Kind)
				p := alarmResource(t, s, a.Alarm)
				if a.Severity != want || fmt.Sprint(p["AlarmActions"]) != fmt.Sprint(topics[want]) || fmt.Sprint(p["OKActions"]) != fmt.Sprint(topics[want]) {
					t.Errorf("%s (%s): actions %v / OK %v, want the %s topic %v", *a.Alarm.Node().Path(), a.Kind.Name, p["AlarmActions"], p["OKActions"], want, topics[want])
				}
				if d, _ := p["AlarmDescription"].(string); !strings.HasPrefix(d, "["+string(want)+"] ") {
					t.Errorf("%s: description %q does not start with [%s]", *a.Alarm.Node().Path(), d, want)
				}
				bySeverity[want] = append(bySeverity[want], a.Kind.Name)
			}
			// THEN budgets, conflicts and capacity are tickets, and the money
			// symptoms page; prod pages on latency as cdk.json routes it.
			for _, k := range []oncall.Kind{oncall.TableCapacityBudget, oncall.TransactionConflicts, oncall.TableThrottles, oncall.FunctionConcurrency} {
				if contains(bySeverity[oncall.Page], k.Name) {
					t.Errorf("%s pages, want a ticket", k.Name)
				}
			}
			for _, k := range []oncall.Kind{oncall.APIServerErrorRate, oncall.MoneyRouteErrorRate, oncall.MoneyFunctionErrors, oncall.StreamConsumerLag,
				oncall.StreamConsumerStuck, oncall.EventsDeadLetters, oncall.BackupJobFailed, oncall.BackupMissing, oncall.APIThrottledRate, oncall.APIClientErrorSurge, oncall.UnavailableAnswers} {
				if !contains(bySeverity[oncall.Page], k.Name) {
					t.Errorf("%s does not page", k.Name)
				}
			}
			if latencyPages := contains(bySeverity[oncall.Page], oncall.APILatency.Name); latencyPages != (env == "prod") {
				t.Errorf("api-latency pages: %v, want %v (cdk.json routes it in prod only)", latencyPages, env == "prod")
			}
		})
	}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// TestPagesAreRatesOrLastingConditions: a paging alarm is a guarded rate,
// or needs 2 breaching periods or more, or is one of the kinds whose single
// event is the incident (a failed job, validation or delivery, dead
// letters, the heartbeat, a confirmed reconciliation violation, a
// quarantined late write or a confirmed ledger mismatch), each
// argued in its runbook section. Missing data
// breaches only where silence is the condition.
func TestPagesAreRatesOrLastingConditions(t *testing.T) {
	singleEvent := map[string]bool{oncall.BackupJobFailed.Name: true, oncall.RestoreValidation.Name: true, oncall.AlarmDeliveryFailed.Name: true,
		oncall.EventsDeadLetters.Name: true, oncall.NoSettledPayment.Name: true, oncall.ReconcileViolations.Name: true,
		// A quarantined late write and a mismatch the strongly consistent re-read found are each the incident.
		oncall.OutsideOwnerWrites.Name: true, oncall.LedgerMismatch.Name: true}
	breaching := map[string]bool{oncall.BackupMissing.Name: true, oncall.NoSettledPayment.Name: true, oncall.ReconcileStalled.Name: true,
		oncall.CanaryFailed.Name: true}
	for stack, s := range oncallStacks() {
		env := envOf(stack)
		t.Run(stack, func(t *testing.T) {
			for _, a := range s.ops.Alarms {
				p := alarmResource(t, s, a.Alarm)
				name := *a.Alarm.Node().Path()
				if rule, composite := p["AlarmRule"]; composite {
					// A composite is a lasting condition when it needs two
					// alarms at once (a burn rate over two windows).
					if !strings.Contains(compact(rule), ") AND ALARM(") {
						t.Errorf("%s (%s): composite rule %s is not two alarms at once", name, a.Kind.Name, compact(rule))
					}
					continue
				}
				expr := compact(p["Metrics"])
				if strings.Contains(expr, "100 *") && !regexp.MustCompile(`IF\(.+ (>=|\\u003e=) [0-9]+, 100 \*`).MatchString(expr) {
					t.Errorf("%s: rate without a minimum-traffic guard: %s", name, expr)
				}
				if a.Severity == oncall.Page && !singleEvent[a.Kind.Name] && datapoints(p) < 2 {
					t.Errorf("%s (%s) pages on one period", name, a.Kind.Name)
				}
				wantMissing := "notBreaching"
				if breaching[a.Kind.Name] || (a.Kind == oncall.StreamConsumerLag && env == "prod") {
					wantMissing = "breaching"
				}
				if p["TreatMissingData"] != wantMissing {
					t.Errorf("%s (%s): TreatMissingData %v, want %s", name, a.Kind.Name, p["TreatMissingData"], wantMissing)
				}
			}
		})
	}
}

// TestDashboardShowsEveryGroup: the dashboard starts with the alarm status
// of every group that has alarms, holding every alarm, and graphs the
// backups, the dead-letter queues, the bus and concurrency.
func TestDashboardShowsEveryGroup(t *testing.T) {
	for name, s := range oncallStacks() {
		t.Run(name, func(t *testing.T) {
			_, dash := only(t, s, "AWS::CloudWatch::Dashboard")
			body := compact(props(dash)["DashboardBody"])
			groups := map[oncall.Group]int{}
			for _, a := range s.ops.Alarms {
				groups[a.Kind.Group]++
				if arn := compact(map[string]any{"Fn::GetAtt": []any{logicalID(s, a.Alarm), "Arn"}}); !strings.Contains(body, arn) {
					t.Errorf("dashboard has no status of %s", *a.Alarm.Node().Path())
				}
			}
			var order []int
			for _, g := range oncall.Groups() {
				title := fmt.Sprintf("Alarm status: %s (%d)", g, groups[g])
				i := strings.Index(body, title)
				if groups[g] > 0 && i < 0 {
					t.Errorf("dashboard has no %q", title)
				}
				if i >= 0 {
					order = append(order, i)
				}
			}
			firstGraph := strings.Index(body, `\"type\":\"metric\"`)
			if !sort.IntsAreSorted(order) || len(order) == 0 || firstGraph < 0 || order[len(order)-1] > firstGraph {
				t.Errorf("the alarm status rows are not first, in group order")
			}
			for _, title := range []string{"Backups: jobs of the vault", "Backups: undelivered failure events", "events: failure queue (dead letters)",
				"Payment events bus", "concurrent executions", "Lambda concurrency of the account"} {
				if !strings.Contains(body, title) {
					t.Errorf("dashboard has no %q", title)
				}
			}
			// THEN every metric the functions emit is graphed, across
			// flows and by flow.
			for _, m := range obs.Catalogue() {
				// The Region watch's metrics are per table, graphed by its
				// own row (constructs/regions) where the table has replicas.
				if m.Namespace == obs.RegionsNamespace {
					continue
				}
				if !strings.Contains(body, `[\"`+m.Namespace+`\",\"`+m.Name+`\"`) {
					t.Errorf("dashboard does not graph %s %s (obs.Catalogue)", m.Namespace, m.Name)
				}
				// The reconciliation's and the totaller's metrics are per table and
				// the canary's per canary user, not per flow.
				if m.Namespace != obs.ReconcileNamespace && m.Namespace != obs.TotalsNamespace && m.Namespace != obs.CanaryNamespace &&
					!strings.Contains(body, `SEARCH('{`+m.Namespace+`,Flow}'`) {
					t.Errorf("dashboard does not graph %s by flow", m.Namespace)
				}
			}
			if (s.ops.SubscriptionsDLQ != nil) != strings.Contains(body, "Operations: undelivered alarms") {
				t.Errorf("the dashboard graphs SubscriptionsDLQ: %v, want %v", !(s.ops.SubscriptionsDLQ != nil), s.ops.SubscriptionsDLQ != nil)
			}
			if name == "prod deployed" && s.ops.SubscriptionsDLQ == nil {
				t.Errorf("prod deployed with a pager has no SubscriptionsDLQ")
			}
		})
	}
}
