package costbench_test

import (
	"context"
	"sort"
	"sync"
	"time"

	awsmiddleware "github.com/aws/aws-sdk-go-v2/aws/middleware"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go/middleware"

	"github.com/oncetable/oncetable/runtime/ddbtest"
)

// usage is what one call cost.
type usage struct {
	Requests int
	WCU, RCU float64
	Ops      []string
	// Unreported counts requests whose response carried no capacity (an
	// error response: a cancelled transaction, a failed condition).
	Unreported int
}

type usageKey struct{}

// metered returns ctx carrying u: every DynamoDB request made with it is
// added to u.
func metered(ctx context.Context, u *usage) context.Context {
	return context.WithValue(ctx, usageKey{}, u)
}

var usageMu sync.Mutex

// meter is the SDK middleware: it asks every request for
// ReturnConsumedCapacity=TOTAL (Initialize, before serialization) and counts
// each attempt and its consumed capacity (Finalize, after the retryer, so
// SDK retries count too).
func meter(stack *middleware.Stack) error {
	if err := stack.Initialize.Add(middleware.InitializeMiddlewareFunc("costbenchCapacity",
		func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
			ddbtest.AskCapacity(in.Parameters)
			out, md, err := next.HandleInitialize(ctx, in)
			u, _ := ctx.Value(usageKey{}).(*usage)
			if u == nil {
				return out, md, err
			}
			cc := ddbtest.ConsumedCapacity(out.Result)
			usageMu.Lock()
			defer usageMu.Unlock()
			if err != nil || len(cc) == 0 {
				u.Unreported++
			}
			for _, c := range cc {
				w, r := capUnits(c)
				u.WCU += w
				u.RCU += r
			}
			return out, md, err
		}), middleware.Before); err != nil {
		return err
	}
	return stack.Finalize.Add(middleware.FinalizeMiddlewareFunc("costbenchCounter",
		func(ctx context.Context, in middleware.FinalizeInput, next middleware.FinalizeHandler) (middleware.FinalizeOutput, middleware.Metadata, error) {
			if u, _ := ctx.Value(usageKey{}).(*usage); u != nil {
				usageMu.Lock()
				u.Requests++
				u.Ops = append(u.Ops, awsmiddleware.GetOperationName(ctx))
				usageMu.Unlock()
			}
			return next.HandleFinalize(ctx, in)
		}), middleware.After)
}

// capUnits splits a ConsumedCapacity into write and read units; TOTAL mode
// may report only CapacityUnits, which then count as the kind the
// operation is.
func capUnits(c types.ConsumedCapacity) (w, r float64) {
	if c.WriteCapacityUnits != nil || c.ReadCapacityUnits != nil {
		if c.WriteCapacityUnits != nil {
			w = *c.WriteCapacityUnits
		}
		if c.ReadCapacityUnits != nil {
			r = *c.ReadCapacityUnits
		}
		return w, r
	}
	if c.CapacityUnits != nil {
		return *c.CapacityUnits, 0 // resolved by the caller's op kind; see note in the report
	}
	return 0, 0
}

// sample collects the usage and latency of many calls.
type sample struct {
	mu    sync.Mutex
	calls int
	u     usage
	lat   []time.Duration
	ops   map[string]int
	notes map[string]int
}

func (s *sample) add(u *usage, d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls++
	s.u.Requests += u.Requests
	s.u.WCU += u.WCU
	s.u.RCU += u.RCU
	s.u.Unreported += u.Unreported
	s.lat = append(s.lat, d)
	if s.ops == nil {
		s.ops = map[string]int{}
	}
	for _, op := range u.Ops {
		s.ops[op]++
	}
}

func (s *sample) note(n string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.notes == nil {
		s.notes = map[string]int{}
	}
	s.notes[n]++
}

func (s *sample) perCall(v float64) float64 {
	if s.calls == 0 {
		return 0
	}
	return v / float64(s.calls)
}

func (s *sample) quantile(q float64) time.Duration {
	l := append([]time.Duration(nil), s.lat...)
	sort.Slice(l, func(i, j int) bool { return l[i] < l[j] })
	if len(l) == 0 {
		return 0
	}
	i := int(float64(len(l))*q+0.999999) - 1
	return l[max(0, min(i, len(l)-1))]
}
