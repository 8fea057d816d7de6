package costbench_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"time"

	"github.com/oncetable/oncetable/runtime/idempotency"
)

// external runs the baseline's effects under the library's external mode
// (runtime/idempotency: Begin, the effect, Complete), the lock-first
// protocol done with one request for the lock and one for completion.
type external struct {
	records *idempotency.Table
}

func (x *external) guard(ctx context.Context, partition, keyHash string, effect func(ctx context.Context, now time.Time) (string, error)) (string, bool, error) {
	req := idempotency.Request{Scope: idempotency.Scope{Caller: "bench", Operation: "external"}, Key: keyHash,
		Fingerprint: keyHash}
	resp, p, err := x.records.Begin(ctx, req, time.Minute)
	if errors.Is(err, idempotency.ErrInProgress) {
		return "", false, errInProgress
	}
	if err != nil || p == nil {
		return string(resp.Body), err == nil, err
	}
	body, err := effect(ctx, x.records.Now())
	if err != nil {
		p.Release(ctx)
		return "", false, err
	}
	_, err = p.Complete(ctx, &idempotency.Effect{Status: http.StatusOK, Body: json.RawMessage(body)})
	return body, false, err
}
