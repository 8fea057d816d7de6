package txn

import (
	"errors"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// MaxItems is the most items one TransactWriteItems may hold.
const MaxItems = 100

// ConditionalCheckFailed is the reason code of an item whose condition failed.
const ConditionalCheckFailed = "ConditionalCheckFailed"

// ErrDuplicateName is reported by [Items.Err] when two items share a name.
var ErrDuplicateName = errors.New("txn: duplicate item name")

// Items is an ordered list of named transaction items. The zero value is
// empty and ready to use.
type Items struct {
	names []string
	items []types.TransactWriteItem
	err   error
}

// Add appends item under name. A name used twice is reported by [Items.Err].
func (t *Items) Add(name string, item types.TransactWriteItem) {
	if t.Index(name) >= 0 && t.err == nil {
		t.err = fmt.Errorf("%w: %q", ErrDuplicateName, name)
	}
	t.names = append(t.names, name)
	t.items = append(t.items, item)
}

// Err reports a misuse of Add (a duplicate name), or nil.
func (t *Items) Err() error { return t.err }

// Len is the number of items.
func (t *Items) Len() int { return len(t.items) }

// Names lists the names in request order.
func (t *Items) Names() []string { return append([]string(nil), t.names...) }

// Index is the position of the item called name, or -1.
func (t *Items) Index(name string) int {
	for i, n := range t.names {
		if n == name {
			return i
		}
	}
	return -1
}

// List returns the items in request order, for TransactWriteItemsInput.
func (t *Items) List() []types.TransactWriteItem { return t.items }

// Input is a TransactWriteItemsInput of the items.
func (t *Items) Input() *dynamodb.TransactWriteItemsInput {
	return &dynamodb.TransactWriteItemsInput{TransactItems: t.items}
}

// CancelledError is a cancelled transaction whose reasons are addressed by
// item name. It unwraps to the SDK's *types.TransactionCanceledException.
type CancelledError struct {
	// Reasons holds the reason of each item by name. An item that did not
	// cause the cancellation has code "None".
	Reasons map[string]types.CancellationReason
	// Names lists the items in request order.
	Names []string
	Err   *types.TransactionCanceledException
}

func (e *CancelledError) Error() string {
	var failed []string
	for _, n := range e.Names {
		if c := code(e.Reasons[n]); c != "" && c != "None" {
			failed = append(failed, n+": "+c)
		}
	}
	return "txn: transaction cancelled (" + strings.Join(failed, ", ") + ")"
}

func (e *CancelledError) Unwrap() error { return e.Err }

// Failed reports whether the condition of the item called name failed.
func (e *CancelledError) Failed(name string) bool {
	return code(e.Reasons[name]) == ConditionalCheckFailed
}

// Code is the reason code of the item called name ("None" when it was not
// the cause, "" when there is no such item).
func (e *CancelledError) Code(name string) string { return code(e.Reasons[name]) }

// Item is the image DynamoDB returned for the item called name
// (ReturnValuesOnConditionCheckFailure=ALL_OLD), or nil.
func (e *CancelledError) Item(name string) map[string]types.AttributeValue {
	return e.Reasons[name].Item
}

// Cancelled reads err as a cancellation of the transaction made of items.
// It reports false when err is no TransactionCanceledException.
func Cancelled(err error, items *Items) (*CancelledError, bool) {
	var c *CancelledError
	if errors.As(err, &c) {
		return c, true
	}
	var tce *types.TransactionCanceledException
	if !errors.As(err, &tce) {
		return nil, false
	}
	c = &CancelledError{Reasons: make(map[string]types.CancellationReason, len(items.names)), Names: items.Names(), Err: tce}
	for i, n := range items.names {
		if i < len(tce.CancellationReasons) {
			c.Reasons[n] = tce.CancellationReasons[i]
		}
	}
	return c, true
}

func code(r types.CancellationReason) string {
	if r.Code == nil {
		return ""
	}
	return *r.Code
}
