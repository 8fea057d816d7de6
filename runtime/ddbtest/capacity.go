package ddbtest

import (
	"context"
	"reflect"
	"sync"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go/middleware"
)

// AskCapacity sets ReturnConsumedCapacity=TOTAL on an operation's input
// that has that field (the data-plane operations), and reports whether it
// did.
func AskCapacity(params any) bool {
	v := reflect.ValueOf(params)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
		return false
	}
	f := v.Elem().FieldByName("ReturnConsumedCapacity")
	if !f.IsValid() || f.Type() != reflect.TypeFor[types.ReturnConsumedCapacity]() {
		return false
	}
	f.Set(reflect.ValueOf(types.ReturnConsumedCapacityTotal))
	return true
}

// ConsumedCapacity is what an operation's output reports in its
// ConsumedCapacity field (one value or a list); nil for other outputs.
func ConsumedCapacity(result any) []types.ConsumedCapacity {
	v := reflect.ValueOf(result)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
		return nil
	}
	field := v.Elem().FieldByName("ConsumedCapacity")
	if !field.IsValid() {
		return nil
	}
	switch f := field.Interface().(type) {
	case []types.ConsumedCapacity:
		return f
	case *types.ConsumedCapacity:
		if f != nil {
			return []types.ConsumedCapacity{*f}
		}
	}
	return nil
}

// Capacity sums the capacity units the endpoint reports, asking every
// request for them (ReturnConsumedCapacity=TOTAL). Failed conditional
// writes report none, in DynamoDB as in the engine. The zero value is
// ready; register it with Option.
type Capacity struct {
	mu       sync.Mutex
	wcu, rcu float64
}

// Units returns the write and read units since the last Reset.
func (c *Capacity) Units() (wcu, rcu float64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.wcu, c.rcu
}

// Reset zeroes the sums.
func (c *Capacity) Reset() {
	c.mu.Lock()
	c.wcu, c.rcu = 0, 0
	c.mu.Unlock()
}

// Option is the client option that registers c.
func (c *Capacity) Option(o *dynamodb.Options) {
	o.APIOptions = append(o.APIOptions, func(stack *middleware.Stack) error {
		return stack.Initialize.Add(middleware.InitializeMiddlewareFunc("ddbtestCapacity",
			func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
				AskCapacity(in.Parameters)
				out, md, err := next.HandleInitialize(ctx, in)
				c.mu.Lock()
				for _, u := range ConsumedCapacity(out.Result) {
					if u.WriteCapacityUnits != nil {
						c.wcu += *u.WriteCapacityUnits
					}
					if u.ReadCapacityUnits != nil {
						c.rcu += *u.ReadCapacityUnits
					}
				}
				c.mu.Unlock()
				return out, md, err
			}), middleware.After)
	})
}
