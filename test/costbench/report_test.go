package costbench_test

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/oncetable/oncetable/test/machine"
)

var caseNames = []struct{ key, title string }{
	{"first", "first call"},
	{"replay", "replay"},
	{"race-loser", "losing a concurrent race"},
}

// report renders docs/cost.md from the collected results.
func report() string {
	var b strings.Builder
	b.WriteString("# Cost of each flow\n\n")
	b.WriteString("Use this page to see what each money flow costs in DynamoDB requests and capacity units, and to reproduce the figures.\n\n")
	b.WriteString(machine.Measured("make bench", time.Now()) + " The benchmarks are test/costbench's.\n")
	b.WriteString(`Reproduce:

    make bench DOCS=1    # rewrites this page (without DOCS=1: tmp/reports/cost.md)
    # or just these benchmarks, writing this file:
    COSTBENCH_OUT=$PWD/docs/cost.md go test -run '^$' -bench . -benchtime 400x ./test/costbench

Every number is measured on the embedded engine (runtime/ddblocal) in process. Requests are counted by an
SDK middleware after the retryer (every attempt counts); capacity units are what the engine reports with
ReturnConsumedCapacity=TOTAL, which the middleware sets on every request; latency is the time of one
call of the oncetable handler (API.Handle with an API Gateway v2 event) or of the baseline function.

The **baseline** exists only in this benchmark: the Powertools-style idempotency sequence around the same
effects: a conditional PutItem of an INPROGRESS record, the effect (the same TransactWriteItems oncetable
runs, without its record), then an UpdateItem of the record to COMPLETE with the response. A replay is the
failed PutItem plus a GetItem of the record. A duplicate that arrives while the first call is in flight
finds INPROGRESS and gets IdempotencyAlreadyInProgressError.

## DynamoDB requests per call

Target: 1 request per first call and 1 per replay, against the baseline's 3 and 2.

| flow | case | oncetable | requests made | baseline | requests made | oncetable / baseline |
|---|---|---:|---|---:|---|---:|
`)
	requestRows(&b, "oncetable")
	b.WriteString(`
## The library's external mode

runtime/idempotency also offers the lock-first protocol for effects outside DynamoDB (Table.Begin, the
effect, Pending.Complete). Here it guards the baseline's own effects, so the two columns differ only in
the protocol: a conditional PutItem of a pending record, the effect, an UpdateItem storing the response.
A replay is the failed PutItem alone: the record comes back inside the ConditionalCheckFailedException
(ReturnValuesOnConditionCheckFailure=ALL_OLD), so no GetItem follows.

| flow | case | external | requests made | baseline | requests made | external / baseline |
|---|---|---:|---|---:|---|---:|
`)
	requestRows(&b, "external")
	b.WriteString(`
## Capacity and latency per call

WCU and RCU are summed over the call's requests as the engine reports them. An error response carries no
ConsumedCapacity (a cancelled transaction, a failed conditional write), in DynamoDB as in the engine, so
the units of such requests are not observable; the column "requests without a report" counts them.

| flow | case | implementation | WCU | RCU | requests without a report | p50 | p99 | outcome of the loser |
|---|---|---|---:|---:|---:|---:|---:|---|
`)
	for _, f := range flows {
		for _, c := range caseNames {
			for _, impl := range impls {
				s := results[f.name+"/"+c.key+"/"+impl]
				if s == nil {
					continue
				}
				fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", f.name, c.title, impl,
					num(s.perCall(s.u.WCU)), num(s.perCall(s.u.RCU)), num(s.perCall(float64(s.u.Unreported))),
					dur(s.quantile(0.5)), dur(s.quantile(0.99)), notes(s))
			}
		}
	}
	b.WriteString(`
## One hot account

Concurrent clients debit one user, each request with its own Idempotency-Key. The engine serializes
transactions on an item instead of cancelling them with TransactionConflict as DynamoDB does, so these
figures show the cost of the protocol's requests under contention, not DynamoDB's conflict behaviour
(the soak, docs/reports/soak.md, injects TransactionConflict).

| clients | implementation | debits | debits/s | p50 | p99 | failed |
|---:|---|---:|---:|---:|---:|---:|
`)
	var names []string
	for n := range hot {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool { return hotOrder(names[i]) < hotOrder(names[j]) })
	for _, n := range names {
		h := hot[n]
		clients, impl, _ := strings.Cut(strings.TrimPrefix(n, "clients="), "/")
		fmt.Fprintf(&b, "| %s | %s | %d | %.0f | %s | %s | %d |\n", clients, impl, h.ops, float64(h.ops)/h.elapsed.Seconds(),
			dur(h.lat.quantile(0.5)), dur(h.lat.quantile(0.99)), h.unavailable)
	}
	b.WriteString(`
## Reading the figures

- **charge and debit** commit the effect and the idempotency record in one TransactWriteItems: one
  request on a first call. A replay (and the loser of a race) meets the record's condition and gets the
  stored response back inside the cancellation reason (ReturnValuesOnConditionCheckFailure=ALL_OLD): one
  request, no GetItem. Charge's request names only the order, and its payment does not carry the user:
  PaymentCreated reads the user from the order's stream record (docs/events.md), so the events' user
  costs charge no request.
- **settle** reads the order together with the idempotency record in one strongly consistent BatchGetItem
  before its transaction, because the request names neither the user nor the total and DynamoDB cannot use
  one item's attribute in another item's update (runtime/payments documents this). A first call is
  therefore two requests; a replay is answered from that read, one request. The baseline needs the same
  read of the order inside its effect, so it makes four requests on a first call.
- **Write units.** oncetable writes its idempotency record inside the transaction, and a transactional
  write costs twice the units of a standard one, while the baseline's Put and Update of its record are
  standard writes; compare the WCU columns. What oncetable saves is round trips (each one a network
  hop, a chance to be throttled and a window for a crash between the steps), not write units.
- **Latency** here is in process: no network, so a DynamoDB request costs tens of microseconds of CPU
  instead of a round trip of milliseconds, and the p99 reflects a shared, busy machine (see the load
  average above) more than the protocol. Against DynamoDB each request adds a network round trip, so the
  request counts above are the better predictor of latency; in process, a failed transaction (oncetable's
  replay) costs more CPU than a failed Put plus a GetItem (the baseline's).
- **Where the record lives.** A record has a partition of its own (PK = SK = IDEM#<hash of caller,
  operation and key>), so nothing the effect writes changes the key's identity. This costs no request and
  no write unit: the record is the same transactional Put wherever it lives. Until one expiry (24 h) has
  passed since the upgrade, oncetable also checks the record's former place (the user's or the order's
  partition) with one ConditionCheck in the same transaction and one more key in settle's BatchGetItem:
  "oncetable" rows are with that check, "oncetable-skip-legacy" rows without it
  (IDEMPOTENCY_SKIP_LEGACY_RECORDS=true); the difference in the WCU and RCU columns is its cost.
- **The external mode** needs the lock and the completion as requests of their own, as the baseline
  does, so a first call costs what the baseline's does; it saves the replay's GetItem, and its pending
  record's in-progress window is chosen by the caller (docs/idempotency.md).
- The loser of a race in oncetable always gets the winner's response; in the baseline it gets
  IdempotencyAlreadyInProgressError whenever it arrives while the winner is between its Put and its
  Update, and the client has to retry later.
`)
	if declines != "" {
		b.WriteString("\n" + declines + "\n")
	}
	if metadataCost != "" {
		b.WriteString("\n" + metadataCost + "\n")
	}
	return b.String()
}

func hotOrder(n string) string {
	c, impl, _ := strings.Cut(strings.TrimPrefix(n, "clients="), "/")
	return fmt.Sprintf("%04s/%s", c, impl)
}

// requestRows writes the rows of a table of requests per call: impl
// against the baseline, for every flow and case measured for both.
func requestRows(b *strings.Builder, impl string) {
	for _, f := range flows {
		for _, c := range caseNames {
			s, p := results[f.name+"/"+c.key+"/"+impl], results[f.name+"/"+c.key+"/baseline"]
			if s == nil || p == nil {
				continue
			}
			sr, pr := s.perCall(float64(s.u.Requests)), p.perCall(float64(p.u.Requests))
			fmt.Fprintf(b, "| %s | %s | %s | %s | %s | %s | %.2f |\n", f.name, c.title, num(sr), ops(s), num(pr), ops(p), sr/pr)
		}
	}
}

func num(v float64) string {
	if v == float64(int64(v)) {
		return fmt.Sprintf("%d", int64(v))
	}
	return fmt.Sprintf("%.2f", v)
}

func dur(d time.Duration) string {
	if d < time.Millisecond {
		return fmt.Sprintf("%d µs", d.Microseconds())
	}
	return fmt.Sprintf("%.2f ms", float64(d.Microseconds())/1000)
}

// ops lists the operations of one call on average ("BatchGetItem, TransactWriteItems").
func ops(s *sample) string {
	var names []string
	for n := range s.ops {
		names = append(names, n)
	}
	sort.Strings(names)
	var parts []string
	for _, n := range names {
		per := s.perCall(float64(s.ops[n]))
		if per == 1 {
			parts = append(parts, n)
		} else {
			parts = append(parts, fmt.Sprintf("%s ×%s", n, num(per)))
		}
	}
	return strings.Join(parts, " + ")
}

func notes(s *sample) string {
	var parts []string
	for n, c := range s.notes {
		parts = append(parts, fmt.Sprintf("%s (%d of %d)", n, c, s.calls))
	}
	sort.Strings(parts)
	return strings.Join(parts, "; ")
}
