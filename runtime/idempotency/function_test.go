package idempotency_test

import (
	"bytes"
	"context"
	"encoding/gob"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/oncetable/oncetable/runtime/idempotency"
)

type order struct {
	ID     string
	Amount int
}

type receipt struct {
	Order string
	Seq   int32
}

// gobCodec is a binary codec: its bytes are no UTF-8, stored as Binary.
type gobCodec struct{}

func (gobCodec) Marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	err := gob.NewEncoder(&b).Encode(v)
	return b.Bytes(), err
}
func (gobCodec) Unmarshal(data []byte, v any) error {
	return gob.NewDecoder(bytes.NewReader(data)).Decode(v)
}

// TestFunc makes a plain Go function idempotent, with the default JSON
// codec and a swapped binary one.
func TestFunc(t *testing.T) {
	for _, codec := range []idempotency.Codec{idempotency.JSON, gobCodec{}} {
		t.Run(fmt.Sprintf("%T", codec), func(t *testing.T) {
			w := newWorld(t)
			var runs atomic.Int32
			process := func(_ context.Context, o order) (receipt, error) {
				if o.Amount <= 0 {
					return receipt{}, errors.New("amount must be positive")
				}
				return receipt{Order: o.ID, Seq: runs.Add(1)}, nil
			}
			once := idempotency.Func(w.records, "process-order", func(o order) (string, error) { return o.ID, nil }, process,
				func(fo *idempotency.FuncOptions) { fo.Codec = codec })
			ctx := context.Background()
			first, err := once(ctx, order{"o1", 10})
			again, err2 := once(ctx, order{"o1", 10})
			if err != nil || err2 != nil || first != again || first.Seq != 1 || runs.Load() != 1 {
				t.Fatalf("first %+v %v, again %+v %v after %d runs; want one run, the same receipt", first, err, again, err2, runs.Load())
			}
			if _, err := once(ctx, order{"o1", 11}); !errors.Is(err, idempotency.ErrKeyReused) {
				t.Errorf("same key, other input: %v, want ErrKeyReused", err)
			}
			if _, err := once(ctx, order{"o2", 0}); err == nil {
				t.Error("failing function: want its error")
			}
			if r, err := once(ctx, order{"o2", 0}); err == nil || r != (receipt{}) {
				t.Errorf("a failure is not stored: the retry runs again and fails, got %+v, %v", r, err)
			}
			w.advance(time.Hour + time.Second)
			if r, err := once(ctx, order{"o1", 10}); err != nil || r.Seq != 2 {
				t.Errorf("after the expiry: %+v, %v; want a second run", r, err)
			}
			keyless := idempotency.Func(w.records, "process-order", func(order) (string, error) { return "", nil }, process)
			if _, err := keyless(ctx, order{"o3", 1}); !errors.Is(err, idempotency.ErrKeyMissing) {
				t.Errorf("empty key: %v, want ErrKeyMissing", err)
			}
		})
	}
}
