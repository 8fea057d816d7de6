// Package slo sets service-level objectives on the payments API's money
// routes (credit, debit, orders, charge, settle, transfers, holds,
// refunds, cancel) and alarms on the rate at which their error budgets
// burn, with the multi-window, multi-burn-rate alerts of Google's SRE
// workbook (chapter 5, "Alerting on SLOs"):
//
//	burn rate 14.4 over 1 hour and over 5 minutes   page    (2% of a 30-day budget in an hour)
//	burn rate 6    over 6 hours and over 30 minutes page    (5% in six hours)
//	burn rate 1    over 3 days and over 6 hours     ticket  (10% in three days)
//
// Two objectives, each with its error budget over 30 days:
//
//   - availability: Props.Availability of the money requests are not
//     answered 5xx (default 99.9%);
//   - latency: Props.Latency of them are answered within
//     Props.LatencyThreshold (default 99% within 1 s).
//
// The indicators are measured on the API's access log, where every
// request is, whether or not it reached a function: two metric filters
// turn each money request into a MoneyLatency value (its latency in ms;
// its SampleCount counts the requests) and each 5xx into MoneyServerErrors,
// in the namespace "oncetable/<stack name>". The API's own per-route
// metrics would need 22 metrics in one alarm, and CloudWatch takes 10.
//
// Each burn-rate alert is a composite alarm, ALARM when both its windows'
// alarms are: the long window says enough budget burned, the short one
// that it is still burning, so the alert stops soon after the burn does.
// Each window's alarm is CloudWatch metric math over one period as long
// as the window (bad requests / requests, 0 under Props.MinRequests), and
// notifies no one itself.
//
//	slo.New(stack, "SLO", &slo.Props{AccessLogs: api.AccessLogs, Monitor: ops})
//
// It is not for the reads, whose alarms are the API's own
// (constructs/paymentsapi), nor for the functions' metrics.
package slo
