package scalebench

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/oncetable/oncetable/runtime/platform"
	"github.com/oncetable/oncetable/test/machine"
)

// dynamo is a bench-scale rate at DynamoDB scale.
func (r *Report) dynamo(rate float64) float64 { return rate * r.Config.Scale }

// Find returns the result of variant and name.
func (r *Report) Find(variant, name string) (Result, bool) {
	for _, res := range r.Results {
		if res.Variant == variant && res.Name == name {
			return res, true
		}
	}
	return Result{}, false
}

// TopKey is the partition key throttled most at the onset (or, when the
// onset step named none, at twice the onset).
func (res Result) TopKey() string {
	for _, s := range []*Step{res.OnsetStep, res.Twice} {
		if s != nil && len(s.Keys) > 0 {
			k := s.Keys[0]
			return fmt.Sprintf("`%s` on %s (%s)", k.Key, resourceName(k.Resource), k.Reason)
		}
	}
	return ""
}

func resourceName(arn string) string {
	if i := strings.Index(arn, "/index/"); i >= 0 {
		return "index " + arn[i+len("/index/"):]
	}
	return "the table"
}

// Reasons lists the ThrottlingReasons and cancellation codes the
// throttled calls got, at the onset and at twice it.
func (res Result) Reasons() string {
	n := map[string]int{}
	for _, s := range []*Step{res.OnsetStep, res.Twice} {
		if s != nil {
			for k, v := range s.Reasons {
				n[k] += v
			}
		}
	}
	var out []string
	for k, v := range n {
		out = append(out, fmt.Sprintf("%s ×%d", k, v))
	}
	sort.Strings(out)
	return strings.Join(out, "; ")
}

// implied is the rate (DynamoDB scale) at which the pattern's hottest
// partition would reach its limit, from its share of the calls and the
// units each call takes; 0 when unknown.
func (r *Report) implied(res Result) float64 {
	if res.Kind != "read" || res.UnitsPerCall == 0 {
		return 0
	}
	share := 0.0
	switch res.Name {
	case "User", "Balance", "UserView", "UserOrders", "Ledger":
		share = r.HotUserShare
	case "Product":
		share = r.TopProductShare
	case "FeaturedProducts", "UnprocessedPayments":
		share = 1
	case "OrdersByStatus":
		share = 1
		if res.Variant != "v1" {
			share = 1 / float64(r.Config.OrderShards)
		}
	}
	if share == 0 {
		return 0
	}
	units := res.UnitsPerCall
	if res.Name == "UnprocessedPayments" && res.Variant == "v2+queue" {
		share = 1 / float64(r.Config.QueueShards)
	}
	if res.Name == "OrdersByStatus" && res.Variant != "v1" {
		units /= float64(r.Config.OrderShards) // one of the N queries per partition
	}
	if res.Name == "UnprocessedPayments" && res.Variant == "v2+queue" {
		units /= float64(r.Config.QueueShards)
	}
	return 3000 / (share * units)
}

// onsetCell is the onset, or the highest clean rate when none was found.
func (r *Report) onsetCell(res Result) string {
	switch {
	case res.Onset > 0:
		return fmt.Sprintf("**%.0f** (clean at %.0f)", r.dynamo(res.Onset), r.dynamo(res.Clean))
	case res.ClientBound:
		return fmt.Sprintf("not reached: client-bound at %.0f (clean at %.0f)", r.dynamo(res.Steps[len(res.Steps)-1].Rate), r.dynamo(res.Clean))
	}
	return fmt.Sprintf("none up to %.0f", r.dynamo(res.Clean))
}

func (r *Report) twiceCell(res Result) string {
	if res.Twice == nil {
		return "—"
	}
	s := res.Twice
	note := ""
	if s.ClientBound() {
		note = " (client-bound)"
	}
	if s.Empty > 0 {
		note += fmt.Sprintf(" (%d calls found their pool empty)", s.Empty)
	}
	return fmt.Sprintf("%.0f of %.0f offered (%.0f%% throttled)%s", r.dynamo(s.Achieved(r.Config.Window)), r.dynamo(s.Rate), 100*s.ThrottledShare(), note)
}

// WriteJSON saves r (without Config.Only and Config.Log), so that its page
// can be rendered again (bench-scale -from).
func (r *Report) WriteJSON(path string) error {
	raw, err := json.MarshalIndent(r, "", " ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, raw, 0o644)
}

// ReadJSON reads a report WriteJSON saved.
func ReadJSON(path string) (*Report, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var r Report
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, err
	}
	r.relink()
	return &r, nil
}

// relink points each result's OnsetStep and Twice at its steps.
func (r *Report) relink() {
	for i := range r.Results {
		res := &r.Results[i]
		res.OnsetStep, res.Twice = nil, nil
		for j := range res.Steps {
			s := &res.Steps[j]
			if res.Onset > 0 && s.Rate == res.Onset {
				res.OnsetStep = s
			}
			if res.Onset > 0 && s.Rate == 2*res.Onset {
				res.Twice = s
			}
		}
	}
}

// Write writes the report's page (md) and plot (svg).
func (r *Report) Write(md, svg string) error {
	f, err := os.Create(svg)
	if err != nil {
		return err
	}
	if err := r.WriteSVG(f); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	f, err = os.Create(md)
	if err != nil {
		return err
	}
	r.WriteMarkdown(f, svgName(svg))
	return f.Close()
}

func svgName(path string) string { return path[strings.LastIndex(path, "/")+1:] }

// ceiling is the API's ceiling: the v1 order life cycle's onset, and the
// order-path flow (create, charge, settle, process) whose throttled key it
// shares with the lowest onset.
func (r *Report) ceiling(variant string) (Result, Result, bool) {
	life, ok := r.Find(variant, "OrderLifecycle")
	if !ok || life.Onset == 0 {
		return life, Result{}, false
	}
	key := life.TopKey()
	var setter Result
	for _, name := range []string{"CreateOrder", "Charge", "Settle", "ProcessPayment"} {
		res, ok := r.Find(variant, name)
		if !ok || res.Onset == 0 {
			continue
		}
		if keyName(res.TopKey()) == keyName(key) && (setter.Name == "" || res.Onset < setter.Onset) {
			setter = res
		}
	}
	return life, setter, true
}

func keyName(k string) string {
	if i := strings.Index(k, " ("); i >= 0 {
		return k[:i]
	}
	return k
}

// WriteMarkdown writes the page; svg is the plot's file name beside it.
func (r *Report) WriteMarkdown(w io.Writer, svg string) {
	c := r.Config
	p := func(format string, a ...any) { fmt.Fprintf(w, format+"\n", a...) }
	p("# Scale: the ceiling of every access pattern")
	p("")
	p("Use this page to see at which load each access pattern and money flow of the single table stops scaling, which partition key sets the ceiling, and what to do before it matters.")
	p("")
	p("%s The run (test/scalebench) took %s, from load average %s.", machine.Measured("make bench-scale", r.Started), r.Took.Round(time.Second), r.LoadStart)
	p("Every rate on this page is in calls per second **at DynamoDB scale**: the engine's per-partition limits were DynamoDB's divided by %.0f (%.0f RCU and %.0f WCU per partition-key value per second, burst %s), the bench offered rates %.0f times smaller, and the page multiplies them back.", c.Scale, c.ReadUnits(), c.WriteUnits(), c.Burst, c.Scale)
	s := r.Stats
	p("Data: `test/population` seed %d, %d users (3 hot users with %.1f%% of the activity each; the most active ordinary user has %.1f%%), %d products of %d merchants (the most popular product %.1f%% of the lines), %d orders (%d open, %d charged and unprocessed, %d paid; the most active user has %d, the median %d, %d users none), loaded through the real flows (%s for v1).",
		c.Population.Seed, s.Users, 100*r.HotUserShare, 100*r.secondUserShare(), s.Products, c.Population.Merchants, 100*r.TopProductShare, s.Orders, s.OpenOrders, s.Unprocessed, s.Paid, s.MaxOrders, s.MedianOrders, s.UsersWithoutOrders, r.Loaded["v1"].Round(time.Millisecond))
	p("Each pattern's load doubles from %.0f/s (reads from 4 times that) until at least 1%% of calls, and at least 3, are throttled, then the midpoint of the last clean and the first throttled rate is measured (the onset is known within a factor √2), then twice the onset; each step is %s of warm-up and a %s window; calls are not retried. A step is *client-bound* when more than 1%% of its calls were dropped for want of one of %d workers, or its calls were started at less than 90%% of the offered rate (the dispatcher, starved of CPU, fell behind): there the machine, not the partitions, set the rate, and the ramp stops.", r.dynamo(c.StartRate), c.Warm, c.Window, c.MaxInFlight)
	p("")
	r.writeCeiling(w)
	p("")
	p("![achieved against offered load](%s)", svg)
	p("")
	p("## Every pattern")
	p("")
	p("Variants: `v1` is today's layout (orders by status on GSI1); `v2` after the migration orders-by-status-v2 (OrdersByStatus over %d shards); `v2+queue` is v2 with the unprocessed queue sharded over %d index partitions; `platform-1` is v1 with the platform accounts' totals on one item each instead of %d shards.", c.OrderShards, c.QueueShards, platform.DefaultShards)
	p("*Onset* is the lowest offered rate with ≥ 1%% of calls (and ≥ 3) throttled; *implied* is where the hottest partition reaches its limit from its share of the calls and the capacity per call (reads only); requests and capacity per call are measured on the clean steps.")
	p("")
	p("| Variant | Pattern | Onset of throttling | Partition key that throttles | ThrottlingReasons and cancellation codes seen | Achieved at 2× onset | Implied | Requests/call | Capacity/call |")
	p("|---|---|---|---|---|---|---|---|---|")
	for _, res := range r.Results {
		p("| %s | %s | %s | %s | %s | %s | %s | %.2f | %.2f |", res.Variant, res.Name, r.onsetCell(res), res.TopKey(), res.Reasons(),
			r.twiceCell(res), r.impliedCell(res), res.RequestsPerCall, res.UnitsPerCall)
	}
	p("")
	r.writeQueue(w)
	p("")
	r.writePlatform(w)
	p("")
	r.writeSteps(w)
}

func (r *Report) secondUserShare() float64 {
	n := r.Config.Population.HotUsers
	if n >= r.Stats.Users {
		return 0
	}
	return r.userShare(n)
}

func (r *Report) userShare(i int) float64 { return r.UserShares[i] }

func (r *Report) impliedCell(res Result) string {
	v := r.implied(res)
	if v == 0 {
		return "—"
	}
	return fmt.Sprintf("%.0f", v)
}

// writeCeiling states the API's ceiling and what it means for a deployment.
func (r *Report) writeCeiling(w io.Writer) {
	p := func(format string, a ...any) { fmt.Fprintf(w, format+"\n", a...) }
	p("## The ceiling")
	p("")
	life, setter, ok := r.ceiling("v1")
	if !ok {
		p("The order life cycle did not throttle in this run: no ceiling was found (see the table).")
		return
	}
	p("**The API's ceiling is %.0f orders per second** (the whole write path of an order: create, charge, settle, process, measured as `OrderLifecycle` on v1; throttled from %.0f, %s at twice that). It is set by %s%s.",
		r.dynamo(life.Clean), r.dynamo(life.Onset), r.twiceCell(life), life.TopKey(), setterClause(r, setter))
	if l2, s2, ok := r.ceiling("v2"); ok {
		p("After the migration to v2 the ceiling moves to **%.0f orders per second** (throttled from %.0f), set by %s%s.", r.dynamo(l2.Clean), r.dynamo(l2.Onset), l2.TopKey(), setterClause(r, s2))
	}
	if l3, ok := r.Find("v2+queue", "OrderLifecycle"); ok {
		if l3.Onset > 0 {
			p("With the queue sharded too it is %.0f orders per second (throttled from %.0f, by %s).", r.dynamo(l3.Clean), r.dynamo(l3.Onset), l3.TopKey())
		} else {
			p("With the queue sharded too no throttling was seen up to %.0f orders per second%s.", r.dynamo(l3.Clean), map[bool]string{true: " (there the client, not the partitions, was the bound)", false: ""}[l3.ClientBound])
		}
	}
	p("Calls are not retried here, so a life cycle that meets one throttle fails as a whole, and at twice the onset almost none completes; in production the store's and the SDK's retries turn throttling into latency until the offered rate exceeds the partition's, then into 503s with Retry-After (retry.ErrUnavailable).")
	p("")
	p("What it means for a real deployment:")
	p("")
	r.writeBusiness(w)
}

// setterClause names the flow that throttles first on the ceiling's key.
func setterClause(r *Report, setter Result) string {
	if setter.Name == "" {
		return ""
	}
	return fmt.Sprintf(": of the single flows, %s throttles first on that partition, from %.0f calls/s", setter.Name, r.dynamo(setter.Onset))
}

// writeBusiness turns the design-choice ceilings into business volumes.
func (r *Report) writeBusiness(w io.Writer) {
	p := func(format string, a ...any) { fmt.Fprintf(w, format+"\n", a...) }
	users := r.users
	if res, ok := r.Find("v1", "CreateOrder"); ok && res.Onset > 0 {
		life, _ := r.Find("v1", "OrderLifecycle")
		at := res.Clean
		if life.Clean > 0 {
			at = life.Clean
		}
		p("- **GSI1 `ORDERSTATUS#created` (v1).** Every order is written to this one index partition when it is created, again when it is charged (its projection changes) and once more when settle moves it to `paid`. Create order alone throttles from %.0f orders/s, the whole life cycle above %.0f. At a peak %.0f× the daily average and %.0f orders per user a month, %.0f orders/s at peak is about %s active users. The next step exists: the migration orders-by-status-v2 (`ORDER_INDEXES=v2`, docs/migrations.md); run it before the peak order rate reaches half of that.",
			r.dynamo(res.Onset), r.dynamo(at), peakFactor, ordersPerUserMonth, r.dynamo(at), human(users(r.dynamo(at))))
	}
	if res, ok := r.Find("v2", "Charge"); ok && res.Onset > 0 {
		at := res.Clean
		if life, ok := r.Find("v2", "OrderLifecycle"); ok && life.Clean > 0 {
			at = life.Clean
		}
		p("- **The unprocessed queue `PAYMENT#UNPROCESSED`.** Every payment enters this one index partition (2 write units in the charge transaction) and leaves it when processed (1 more). Once orders are sharded (v2), charge alone throttles from %.0f payments/s, and the life cycle, whose charge and processing both write the queue, above %.0f orders/s: about %s active users on the same assumptions. Below half of that, leave it alone (docs/migrations.md); above, shard it (next section).",
			r.dynamo(res.Onset), r.dynamo(at), human(users(r.dynamo(at))))
	}
	if res, ok := r.Find("v1", "Credit"); ok && res.Onset > 0 {
		per := r.dynamo(res.Onset) * r.topUserShare()
		p("- **One hot user.** A user's balance, ledger and order summaries share the partition `USER#<id>`; a credit or debit updates the balance and puts a ledger entry there in one transaction (its idempotency record has a partition of its own). Credit throttles from %.0f/s in this population because its hottest user makes %.0f%% of them: %.0f money movements per second on one account. No consumer does that; a marketplace's platform account, a payroll or B2B account paying through one user does. The ceiling is per account and does not grow with the table. The next step for such accounts is to take them off the single partition: split the account into sub-accounts (`USER#<id>#<n>`, balance checked per sub-account) or batch its movements; for everyone else nothing is needed.",
			r.dynamo(res.Onset), 100*r.topUserShare(), per)
	}
	if res, ok := r.Find("v1", "UserView"); ok {
		p("- **Reads.** Reads of one user or one product stay far below the partition's 3,000 RCU: the implied ceilings in the table are where the hottest user's or product's partition would saturate (for UserView %s calls/s overall). DynamoDB's adaptive capacity and split for heat would also move a hot item's partition; the engine does not emulate that (every partition-key value is its own partition, with fixed limits), so these figures are conservative.", r.impliedCell(res))
	}
}

// The business assumptions that turn an order rate into users: the peak
// is peakFactor times the month's average, and an active user places
// ordersPerUserMonth orders a month.
const (
	peakFactor         = 3.0
	ordersPerUserMonth = 4.0
)

// users is how many active users place ordersPerSecond at peak.
func (r *Report) users(ordersPerSecond float64) float64 {
	return ordersPerSecond * 86400 * 30 / ordersPerUserMonth / peakFactor
}

func (r *Report) topUserShare() float64 {
	top := 0.0
	for _, s := range r.UserShares {
		top = max(top, s)
	}
	return top
}

func human(n float64) string {
	switch {
	case n >= 1e6:
		return fmt.Sprintf("%.1f million", n/1e6)
	case n >= 1e3:
		return fmt.Sprintf("%.0f thousand", n/1e3)
	}
	return fmt.Sprintf("%.0f", n)
}

// writeQueue compares the queue unsharded and sharded.
func (r *Report) writeQueue(w io.Writer) {
	p := func(format string, a ...any) { fmt.Fprintf(w, format+"\n", a...) }
	c := r.Config
	p("## Sharding the unprocessed queue")
	p("")
	p("`v2+queue` keys the Unprocessed index by `UnprocessedPK` and a number `queueShard` = FNV-1a(paymentId) mod %d, as docs/migrations.md sketches it (a wrapper adds the attribute to each payment the charge transaction puts: what a charge writing the shard would send); the reader queries the %d shards in parallel. Both variants have orders sharded (v2), so the queue is what differs.", c.QueueShards, c.QueueShards)
	p("")
	p("| Pattern | v2 (v1 where v2 was not measured): onset | achieved at 2× | v2+queue: onset | v2+queue: achieved at 2× | v2+queue: key that throttles |")
	p("|---|---|---|---|---|---|")
	gain := 0.0
	for _, name := range []string{"Charge", "ProcessPayment", "UnprocessedPayments", "OrderLifecycle"} {
		a, okA := r.Find("v2", name)
		if !okA {
			a, okA = r.Find("v1", name) // the same unsharded queue
		}
		b, okB := r.Find("v2+queue", name)
		if !okB {
			continue
		}
		ac, at := "not measured", "—"
		if okA {
			ac, at = r.onsetCell(a), r.twiceCell(a)
		}
		p("| %s | %s | %s | %s | %s | %s |", name, ac, at, r.onsetCell(b), r.twiceCell(b), b.TopKey())
		if name == "OrderLifecycle" && okA && a.Onset > 0 {
			top := b.Onset
			if top == 0 {
				top = b.Clean
			}
			gain = top / a.Onset
		}
	}
	p("")
	if gain > 0 {
		l2, _ := r.Find("v2", "OrderLifecycle")
		p("Sharding the queue over %d partitions moves the order life cycle's throttling onset by a factor of **%.1f** (at least: where v2+queue did not throttle, the factor uses its highest clean rate). The cost: the reader of unprocessed payments makes %d Queries per page instead of 1 and merges them oldest first (as `GET /orders?status=` does in v2), and processing must find the payment's shard (it is derived from the payment id, so no read).", c.QueueShards, gain, c.QueueShards)
		p("")
		l1, _ := r.Find("v1", "OrderLifecycle")
		first := "the queue is not the first ceiling while orders by status are on GSI1 (v1: " + keyName(l1.TopKey()) + " throttles first)"
		if strings.Contains(l1.TopKey(), "PAYMENT#UNPROCESSED") {
			first = "even on v1 the queue is the first ceiling, but only"
		}
		p("**Recommendation.** Not now: %s, and after v2 it throttles the life cycle only from %.0f orders/s (%s users on the assumptions above). Shard it, with a migration like orders-by-status-v2 (a `queueShard` attribute and a multi-attribute Unprocessed index, the reader merging shards), when the forecast peak order rate passes half of that, %.0f orders/s; until then watch the `Unprocessed` index's throttle events (ThrottlingReasons `IndexWriteKeyRangeThroughputExceeded` on the index ARN) and its consumed WCU against 1,000 per second.",
			first, r.dynamo(l2.Onset), human(r.users(r.dynamo(l2.Onset))), r.dynamo(l2.Onset)/2)
	}
}

// writeSteps lists every step, for the record.
func (r *Report) writeSteps(w io.Writer) {
	p := func(format string, a ...any) { fmt.Fprintf(w, format+"\n", a...) }
	p("## Every step")
	p("")
	p("Offered, delivered (the rate at which calls were actually started) and achieved are at DynamoDB scale; *sent* and the counts are calls in the window; *requests* reached the engine (counted in front of its client) in the window, shown as a rate at DynamoDB scale; CPU is the cores this process used.")
	p("")
	p("| Variant | Pattern | Offered/s | Delivered/s | Sent | OK | Throttled | Failed | Empty pool | Requests/s at the engine | p50 | p99 | Late | CPU | Load | Flag |")
	p("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
	for _, res := range r.Results {
		for _, s := range res.Steps {
			fl := strings.TrimSpace(flag(s))
			if s.Failed > 0 {
				fl += " failed: " + strings.ReplaceAll(s.FailedSample, "|", "/")
			}
			p("| %s | %s | %.0f | %.0f | %d | %d | %d | %d | %d | %.0f | %s | %s | %s | %.2f | %s | %s |", res.Variant, res.Name, r.dynamo(s.Rate), r.dynamo(s.Delivered()), s.Sent, s.OK, s.Throttled, s.Failed, s.Empty,
				r.dynamo(float64(s.Requests)/r.Config.Window.Seconds()), s.P50.Round(10*time.Microsecond), s.P99.Round(10*time.Microsecond), s.Late.Round(10*time.Microsecond), s.CPU, s.Load, fl)
		}
	}
}

// WriteSVG plots achieved against offered load (both at DynamoDB scale,
// logarithmic) for every flow.
func (r *Report) WriteSVG(w io.Writer) error {
	const width, height, left, right, top, bottom = 900.0, 520.0, 70.0, 230.0, 30.0, 50.0
	var series []Result
	lo, hi := math.Inf(1), 0.0
	for _, res := range r.Results {
		if res.Kind != "flow" {
			continue
		}
		series = append(series, res)
		for _, s := range res.Steps {
			lo, hi = math.Min(lo, r.dynamo(s.Rate)), math.Max(hi, r.dynamo(s.Rate))
		}
	}
	if len(series) == 0 {
		lo, hi = 1, 10
	}
	lo, hi = math.Pow(10, math.Floor(math.Log10(lo))), math.Pow(10, math.Ceil(math.Log10(hi)))
	x := func(v float64) float64 {
		return left + (width-left-right)*(math.Log10(math.Max(v, lo))-math.Log10(lo))/(math.Log10(hi)-math.Log10(lo))
	}
	y := func(v float64) float64 {
		return height - bottom - (height-top-bottom)*(math.Log10(math.Max(v, lo))-math.Log10(lo))/(math.Log10(hi)-math.Log10(lo))
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" font-family="sans-serif" font-size="12">`+"\n", width, height)
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
	fmt.Fprintf(&b, `<text x="%.0f" y="18" font-size="14">Achieved against offered calls/s of each flow (DynamoDB scale, log-log; dashed: achieved = offered)</text>`+"\n", left)
	for d := lo; d <= hi*1.0001; d *= 10 {
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#ddd"/><text x="%.1f" y="%.1f" text-anchor="middle">%g</text>`+"\n", x(d), top, x(d), height-bottom, x(d), height-bottom+16, d)
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#ddd"/><text x="%.1f" y="%.1f" text-anchor="end">%g</text>`+"\n", left, y(d), width-right, y(d), left-6, y(d)+4, d)
	}
	fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#888" stroke-dasharray="4 4"/>`+"\n", x(lo), y(lo), x(hi), y(hi))
	fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="middle">offered calls/s</text>`+"\n", left+(width-left-right)/2, height-12)
	fmt.Fprintf(&b, `<text transform="translate(16 %.1f) rotate(-90)" text-anchor="middle">achieved calls/s</text>`+"\n", top+(height-top-bottom)/2)
	colors := []string{"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf", "#393b79", "#637939", "#8c6d31", "#843c39", "#7b4173", "#3182bd", "#e6550d"}
	for i, res := range series {
		steps := append([]Step(nil), res.Steps...)
		sort.Slice(steps, func(a, b int) bool { return steps[a].Rate < steps[b].Rate })
		var pts []string
		for _, s := range steps {
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", x(r.dynamo(s.Rate)), y(r.dynamo(s.Achieved(r.Config.Window)))))
		}
		col := colors[i%len(colors)]
		dash := ""
		if res.Variant != "v1" {
			dash = ` stroke-dasharray="6 3"`
		}
		fmt.Fprintf(&b, `<polyline fill="none" stroke="%s" stroke-width="2"%s points="%s"/>`+"\n", col, dash, strings.Join(pts, " "))
		ly := top + 14*float64(i+1)
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="2"%s/><text x="%.1f" y="%.1f">%s %s</text>`+"\n", width-right+10, ly, width-right+30, ly, col, dash, width-right+35, ly+4, res.Variant, res.Name)
	}
	b.WriteString("</svg>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// writePlatform compares the platform accounts' totals sharded (v1, the
// default shards) and on one item (platform-1).
func (r *Report) writePlatform(w io.Writer) {
	sharded, okS := r.Find("v1", PlatformTotals)
	single, okO := r.Find("platform-1", PlatformTotals)
	if !okS && !okO {
		return
	}
	p := func(format string, a ...any) { fmt.Fprintf(w, format+"\n", a...) }
	p("## The platform accounts' totals")
	p("")
	p("The totaller (runtime/platform) adds each ledger entry's platform legs to its account's total in one TransactWriteItems: the entry marked `totalled`, `ADD` on `PLATFORM#<account>#<shard>`. Here each call totals one credit of a user drawn by activity (its `platform:funding` leg), alone, as a stream record delivered alone is totalled: the worst case for the totals items, since a fuller batch writes each total once for up to %d entries. The entries are made before each step, so only the totaller's writes are measured. `v1` keeps the totals on %d shards (the default); `platform-1` on the single item the shards replace. Conflicts are the transactions the totaller found conflicting with another on a totals item and sent again on the next shard; the latency is the totaller's per record, conflicts retried included (its lag beyond the mapping's batching window).", platform.MaxEntriesPerTransaction, platform.DefaultShards)
	p("")
	p("| Totals | Onset of throttling | Partition key that throttles | ThrottlingReasons and cancellation codes seen | Achieved at 2× onset | Capacity/call | Conflicts/call | p99 at the highest clean step |")
	p("|---|---|---|---|---|---|---|---|")
	row := func(label string, res Result) {
		var calls, conflicts int64
		var clean *Step
		for i, s := range res.Steps {
			if !s.throttled() && !s.ClientBound() {
				calls += int64(s.OK + s.Failed)
				conflicts += s.Conflicts
				if clean == nil || s.Rate > clean.Rate {
					clean = &res.Steps[i]
				}
			}
		}
		perCall, p99 := "—", "—"
		if calls > 0 {
			perCall = fmt.Sprintf("%.2f", float64(conflicts)/float64(calls))
		}
		if clean != nil {
			p99 = fmt.Sprintf("%s (at %.0f/s)", clean.P99.Round(10*time.Microsecond), r.dynamo(clean.Rate))
		}
		p("| %s | %s | %s | %s | %s | %.2f | %s | %s |", label, r.onsetCell(res), res.TopKey(), res.Reasons(), r.twiceCell(res), res.UnitsPerCall, perCall, p99)
	}
	if okO {
		row("one item (`platform-1`)", single)
	}
	if okS {
		row(fmt.Sprintf("%d shards (`v1`)", platform.DefaultShards), sharded)
	}
	p("")
	p("Every money movement in the table writes an entry whose legs some platform account's total takes, so one item per account caps the whole table's movements, not one user's. Calls are not retried here; the totaller's stream mapping retries a throttled batch (up to its retry attempts), so in production throttling shows as the totals' lag growing (the mapping's iterator age, ticket at 15 minutes) until the offered rate falls below what the items take.")
	p("")
	if !okS || !okO {
		return
	}
	switch {
	case single.Onset > 0 && sharded.Onset == 0:
		p("One platform item throttles from %.0f entries/s; the %d shards did not throttle up to %.0f entries/s%s: sharding moves the totals' ceiling by a factor of at least **%.1f**.",
			r.dynamo(single.Onset), platform.DefaultShards, r.dynamo(sharded.Clean), map[bool]string{true: " (there the client, not the partitions, was the bound)", false: ""}[sharded.ClientBound], sharded.Clean/single.Onset)
	case single.Onset > 0 && sharded.Onset > 0:
		p("One platform item throttles from %.0f entries/s, the %d shards from %.0f (by %s): a factor of **%.1f**.",
			r.dynamo(single.Onset), platform.DefaultShards, r.dynamo(sharded.Onset), keyName(sharded.TopKey()), sharded.Onset/single.Onset)
	default:
		p("Neither throttled up to the rates offered (one item clean at %.0f entries/s, the shards at %.0f).", r.dynamo(single.Clean), r.dynamo(sharded.Clean))
	}
}
