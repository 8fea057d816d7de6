// Package oncall is the catalogue of oncetable's alarms as on-call meets
// them: each Kind is one section of docs/runbook.md (what it means, the first
// three checks, how to mitigate) and one routing key, and it has a default
// Severity, Page or Ticket. An environment's Routing moves a kind to the
// other severity (cdk.json alarms.routing).
//
//	sev := oncall.Routing{"api-latency": oncall.Page}.SeverityOf(oncall.APILatency) // Page
//
// It imports no CDK package, so stacks/envconfig can validate cdk.json
// against it; constructs/alarms builds the topics and alarms. It is not for
// thresholds: each construct owns its own.
package oncall
