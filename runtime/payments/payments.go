package payments

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/idempotency"
	"github.com/oncetable/oncetable/runtime/keys"
	"github.com/oncetable/oncetable/runtime/retry"
	"github.com/oncetable/oncetable/runtime/store"
)

// Flow names, used as idempotency operations, log fields and metric
// dimensions.
const (
	FlowCredit      = "credit"
	FlowDebit       = "debit"
	FlowCreateOrder = "create_order"
	FlowCharge      = "charge"
	FlowSettle      = "settle"
)

// Options configures a [Service].
type Options struct {
	// IdempotencyExpiry is how long a record blocks its key. Default: 24h.
	IdempotencyExpiry time.Duration
	// OnRetry, if set, is told about every retried attempt (for metrics).
	OnRetry func(flow string, kind retry.Kind)
}

// Service runs the money flows on a store.
type Service struct {
	st     *store.Store
	expiry time.Duration
	// onRetry may be nil.
	onRetry func(flow string, kind retry.Kind)
}

// New returns the flows on st.
func New(st *store.Store, opts ...func(*Options)) *Service {
	o := Options{}
	for _, f := range opts {
		f(&o)
	}
	if o.IdempotencyExpiry <= 0 {
		o.IdempotencyExpiry = idempotency.DefaultExpiry
	}
	return &Service{st: st, expiry: o.IdempotencyExpiry, onRetry: o.OnRetry}
}

// Store is the service's store.
func (s *Service) Store() *store.Store { return s.st }

// Idem identifies one idempotent request: the scope (caller and
// operation), the raw key, and the request's fingerprint.
type Idem struct {
	Scope       idempotency.Scope
	Key         string
	Fingerprint string
}

// Response is what a flow answers: the status and JSON body that were stored
// with the effect, and whether they are a replay of an earlier request.
type Response struct {
	Status   int
	Body     json.RawMessage
	Replayed bool
}

// attemptFunc builds a transaction's items (without the idempotency
// record) and its success response for one attempt at now.
type attemptFunc func(now time.Time) (items []types.TransactWriteItem, status int, body any, err error)

// failFunc maps the cancellation reasons of the effect items to an error.
type failFunc func(reasons []types.CancellationReason) error

// run executes one idempotent flow: the effect items plus the idempotency
// record in one TransactWriteItems, retried on conflicts and throttling. A
// failed record condition is a replay (or a reused key), answered from the
// ALL_OLD item of its cancellation reason without another request.
func (s *Service) run(ctx context.Context, flow string, idem Idem, partition string, invocation []string, build attemptFunc, fail failFunc) (Response, error) {
	scopeHash := idem.Scope.Hash(idem.Key)
	recKey, err := keys.Idempotency(partition, scopeHash)
	if err != nil {
		return Response{}, err
	}
	// A fresh nonce per invocation: two invocations never share a token, even
	// when every id they write was chosen by the client.
	invocation = append([]string{keys.NewID("inv")}, invocation...)
	var resp Response
	var recIdx int
	policy := s.st.Retry()
	if s.onRetry != nil {
		policy = store.WithRetryHook(policy, func(k retry.Kind, _ int) { s.onRetry(flow, k) })
	}
	err = retry.Do(ctx, policy, func(attempt int) error {
		now := s.st.Now()
		items, status, body, err := build(now)
		if err != nil {
			return err
		}
		raw, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rec := idempotency.New(recKey, idem.Scope, idem.Fingerprint, status, raw, now, s.expiry)
		put, err := rec.Put(s.st.Table(), now)
		if err != nil {
			return err
		}
		recIdx = len(items)
		items = append(items, put)
		token := idempotency.ClientRequestToken(scopeHash, idem.Fingerprint, append(invocation, strconv.Itoa(attempt))...)
		_, err = s.st.DB().TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{
			TransactItems:      items,
			ClientRequestToken: aws.String(token),
		})
		if err != nil {
			return err
		}
		resp = Response{Status: status, Body: raw}
		return nil
	})
	if err == nil {
		return resp, nil
	}
	reasons := store.CancellationReasons(err)
	if reasons == nil {
		return Response{}, err
	}
	if store.ReasonFailed(reasons, recIdx) {
		return s.replay(ctx, recKey, reasons[recIdx].Item, idem.Fingerprint)
	}
	if mapped := fail(reasons); mapped != nil {
		return Response{}, mapped
	}
	return Response{}, fmt.Errorf("%s: transaction cancelled: %w", flow, err)
}

// replay answers from the record that blocked the write. The record arrives
// in the cancellation reason (ALL_OLD); only if an endpoint omits it is it
// read with one strongly consistent GetItem.
func (s *Service) replay(ctx context.Context, recKey keys.Key, item map[string]types.AttributeValue, fingerprint string) (Response, error) {
	if len(item) == 0 {
		out, err := s.st.DB().GetItem(ctx, &dynamodb.GetItemInput{
			TableName: aws.String(s.st.Table()), Key: store.KeyAV(recKey), ConsistentRead: aws.Bool(true),
		})
		if err != nil {
			return Response{}, err
		}
		if len(out.Item) == 0 {
			return Response{}, &retry.UnavailableError{Kind: retry.Conflict, Attempts: 1, RetryAfter: time.Second,
				Cause: errors.New("idempotency record vanished between condition check and read")}
		}
		item = out.Item
	}
	rec, err := idempotency.FromItem(item)
	if err != nil {
		return Response{}, err
	}
	if err := rec.Replay(fingerprint); err != nil {
		return Response{}, err
	}
	return Response{Status: rec.Status, Body: json.RawMessage(rec.Body), Replayed: true}, nil
}
