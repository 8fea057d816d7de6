package retry_test

import (
	"context"
	"errors"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/oncetable/oncetable/runtime/retry"
)

func canceled(codes ...string) error {
	var rs []types.CancellationReason
	for _, c := range codes {
		rs = append(rs, types.CancellationReason{Code: aws.String(c)})
	}
	return &types.TransactionCanceledException{Message: aws.String("canceled"), CancellationReasons: rs}
}

func TestClassify(t *testing.T) {
	tests := []struct {
		name      string
		err       error
		kind      retry.Kind
		transient bool
	}{
		{"conflict", canceled("None", "TransactionConflict"), retry.Conflict, true},
		{"condition failed", canceled("ConditionalCheckFailed", "None"), "", false},
		{"condition and conflict", canceled("ConditionalCheckFailed", "TransactionConflict"), retry.Conflict, true},
		{"throttled in transaction", canceled("None", "ThrottlingError"), retry.Throttled, true},
		{"throughput", &types.ProvisionedThroughputExceededException{Message: aws.String("x")}, retry.Throttled, true},
		{"request limit", &types.RequestLimitExceeded{Message: aws.String("x")}, retry.Throttled, true},
		{"in progress", &types.TransactionInProgressException{Message: aws.String("x")}, retry.Conflict, true},
		{"internal", &types.InternalServerError{Message: aws.String("x")}, retry.ServerFail, true},
		{"connection reset", &smithyhttp.RequestSendError{Err: syscall.ECONNRESET}, retry.ServerFail, true},
		{"validation", errors.New("plain"), "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			kind, transient := retry.Classify(tt.err)
			if kind != tt.kind || transient != tt.transient {
				t.Errorf("Classify = %q, %v; want %q, %v", kind, transient, tt.kind, tt.transient)
			}
		})
	}
}

func TestDo(t *testing.T) {
	var retried []retry.Kind
	p := retry.Policy{MaxAttempts: 3, Base: time.Microsecond, Cap: time.Millisecond, RetryAfter: 2 * time.Second,
		OnRetry: func(k retry.Kind, _ int) { retried = append(retried, k) }}

	calls := 0
	err := retry.Do(context.Background(), p, func(int) error {
		calls++
		if calls < 3 {
			return canceled("TransactionConflict")
		}
		return nil
	})
	if err != nil || calls != 3 || len(retried) != 2 {
		t.Errorf("eventual success: err=%v calls=%d retried=%v", err, calls, retried)
	}

	calls = 0
	err = retry.Do(context.Background(), p, func(int) error {
		calls++
		return &types.ProvisionedThroughputExceededException{Message: aws.String("slow down")}
	})
	var ue *retry.UnavailableError
	if !errors.As(err, &ue) || ue.Kind != retry.Throttled || ue.RetryAfter != 2*time.Second || calls != 3 || !errors.Is(err, retry.ErrUnavailable) {
		t.Errorf("exhausted: err=%v calls=%d", err, calls)
	}

	business := canceled("ConditionalCheckFailed")
	calls = 0
	if err := retry.Do(context.Background(), p, func(int) error { calls++; return business }); err != business || calls != 1 {
		t.Errorf("business failure: err=%v calls=%d, want the error once", err, calls)
	}
}

func TestBackoffIsCapped(t *testing.T) {
	p := retry.Policy{Base: 10 * time.Millisecond, Cap: 50 * time.Millisecond}
	for attempt := 1; attempt < 40; attempt++ {
		if d := p.Backoff(attempt); d <= 0 || d > 50*time.Millisecond {
			t.Fatalf("Backoff(%d) = %v, want (0, 50ms]", attempt, d)
		}
	}
}

func TestSleep(t *testing.T) {
	done, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name string
		ctx  context.Context
		d    time.Duration
		want error
	}{
		{"waits", context.Background(), time.Millisecond, nil},
		{"ended context", done, time.Hour, context.Canceled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			if err := retry.Sleep(tt.ctx, tt.d); !errors.Is(err, tt.want) {
				t.Fatalf("Sleep = %v, want %v", err, tt.want)
			}
			if tt.want == nil && time.Since(start) < tt.d {
				t.Errorf("Sleep returned after %v, before %v", time.Since(start), tt.d)
			}
		})
	}
}

// TestDoWrite: a write whose replay would not be detected is not sent again
// after a 5xx or a transport failure (its outcome is unknown), while
// throttling and conflicts, which wrote nothing, are retried; Do resends
// all of them.
func TestDoWrite(t *testing.T) {
	p := retry.Policy{MaxAttempts: 4, Base: time.Microsecond, Cap: time.Microsecond}
	internal := &types.InternalServerError{Message: aws.String("x")}
	reset := &smithyhttp.RequestSendError{Err: syscall.ECONNRESET}
	throttled := &types.ProvisionedThroughputExceededException{Message: aws.String("x")}
	for _, tt := range []struct {
		name      string
		do        func(context.Context, retry.Policy, func(int) error) error
		err       error
		wantCalls int
	}{
		{"DoWrite, 5xx", retry.DoWrite, internal, 1},
		{"DoWrite, connection reset", retry.DoWrite, reset, 1},
		{"DoWrite, throttled", retry.DoWrite, throttled, 4},
		{"DoWrite, conflict", retry.DoWrite, canceled("TransactionConflict"), 4},
		{"Do, 5xx", retry.Do, internal, 4},
		{"Do, connection reset", retry.Do, reset, 4},
	} {
		t.Run(tt.name, func(t *testing.T) {
			calls := 0
			err := tt.do(context.Background(), p, func(int) error { calls++; return tt.err })
			var ue *retry.UnavailableError
			if calls != tt.wantCalls || !errors.As(err, &ue) || ue.Attempts != tt.wantCalls {
				t.Errorf("%d calls, %v; want %d calls and an UnavailableError after as many attempts", calls, err, tt.wantCalls)
			}
		})
	}
}
