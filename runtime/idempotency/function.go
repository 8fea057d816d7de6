package idempotency

import (
	"context"
	"encoding/json"
	"fmt"
)

// Codec encodes a function's input (for its fingerprint) and output (the
// stored response). [JSON] is the default; any encoding whose Marshal is
// deterministic for equal values will do (gob, protobuf with deterministic
// marshalling, ...). Non-UTF-8 output is stored as a Binary attribute.
type Codec interface {
	Marshal(v any) ([]byte, error)
	Unmarshal(data []byte, v any) error
}

// JSON is the encoding/json [Codec].
var JSON Codec = jsonCodec{}

type jsonCodec struct{}

func (jsonCodec) Marshal(v any) ([]byte, error)      { return json.Marshal(v) }
func (jsonCodec) Unmarshal(data []byte, v any) error { return json.Unmarshal(data, v) }

// FuncOptions configures [Func]. Every field has a default.
type FuncOptions struct {
	// Caller is the scope's caller for one call, for a function that serves
	// several tenants. Default: the constant "func".
	Caller func(ctx context.Context) (string, error)
	// Codec encodes the input's fingerprint and the stored output.
	// Default: [JSON].
	Codec Codec
}

// Func makes fn idempotent, like Powertools' idempotent_function: the key
// of a call comes from its input by key, the input's encoding is the
// fingerprint (another input with the same key is [ErrKeyReused]), and the
// output is stored with the codec and decoded on a replay, so fn runs once
// per key until the table's Expiry. It runs in the external mode
// ([Table.Run]): while a call is in flight a duplicate gets
// *[InProgressError]; an error from fn releases the key and is returned,
// not stored. The in-progress window is the context's deadline (a Lambda's
// remaining time) or Options.Window.
func Func[In, Out any](t *Table, operation string, key func(In) (string, error), fn func(context.Context, In) (Out, error), opts ...func(*FuncOptions)) func(context.Context, In) (Out, error) {
	o := FuncOptions{Codec: JSON, Caller: func(context.Context) (string, error) { return "func", nil }}
	for _, f := range opts {
		f(&o)
	}
	return func(ctx context.Context, in In) (Out, error) {
		var out Out
		req, err := funcRequest(ctx, o, operation, key, in)
		if err != nil {
			return out, err
		}
		resp, err := t.Run(ctx, req, func(ctx context.Context, _ string) (*Effect, error) {
			res, err := fn(ctx, in)
			if err != nil {
				return nil, err
			}
			body, err := o.Codec.Marshal(res)
			if err != nil {
				return nil, fmt.Errorf("idempotency: encode output: %w", err)
			}
			return &Effect{Status: 200, Body: body}, nil
		})
		if err != nil {
			return out, err
		}
		if err := o.Codec.Unmarshal(resp.Body, &out); err != nil {
			return out, fmt.Errorf("idempotency: decode stored output: %w", err)
		}
		return out, nil
	}
}

func funcRequest[In any](ctx context.Context, o FuncOptions, operation string, key func(In) (string, error), in In) (Request, error) {
	k, err := key(in)
	if err != nil {
		return Request{}, fmt.Errorf("idempotency: key of the input: %w", err)
	}
	caller, err := o.Caller(ctx)
	if err != nil {
		return Request{}, err
	}
	enc, err := o.Codec.Marshal(in)
	if err != nil {
		return Request{}, fmt.Errorf("idempotency: encode input: %w", err)
	}
	return Request{Scope: Scope{Caller: caller, Operation: operation}, Key: k, Fingerprint: FingerprintOf(enc)}, nil
}
