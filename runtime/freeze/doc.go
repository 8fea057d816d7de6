// Package freeze is the kill switch of money movement: an operator freezes
// every money flow ([All]) or one flow, and unfreezes it, with no deploy.
//
// The switch is a control item per frozen scope in the application's own
// table (partition "CONTROL#freeze"). [Switch.Check] reads the items of
// All and of the request's flow with strongly consistent GetItems (an
// action every function already holds) and keeps each answer for
// [Options.CacheTTL] (default 5 s), so a freeze or an unfreeze takes effect
// in every running function within that bound, for two reads (1 RCU each)
// per function instance per CacheTTL. A frozen flow answers [*FrozenError] before anything is written
// or any Idempotency-Key is taken (runtime/httpapi maps it to 503 with
// Retry-After); reads are never checked.
//
// [Switch.Freeze] and [Switch.Unfreeze] write the control item and an audit
// item (who, when, why; partition "AUDIT#freeze") in one transaction, so a
// change is never unaudited. Freezing a frozen scope and unfreezing one that
// is not frozen are errors that write nothing.
//
//	sw := freeze.New(db, func(o *freeze.Options) { o.Table = "oncetable" })
//	err := sw.Freeze(ctx, "charge", "alice@example.com", "card processor incident")
//	err = sw.Check(ctx, "charge") // a *FrozenError within 5 s in every function
//
// It is not an authorization mechanism (IAM decides who may write the
// table) and not a rate limiter.
package freeze
