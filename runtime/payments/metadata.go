package payments

import (
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"

	"github.com/oncetable/oncetable/runtime/metadata"
)

// metadataName is the attribute of an item's metadata.
var metadataName = expression.Name("metadata")

// FlowOptions is what a client attaches to one money flow besides its
// money.
type FlowOptions struct {
	// Metadata is stored with what the flow writes and returned in its
	// answer: on the ledger entry of a credit, a debit, a settle, a
	// capture and a refund (on the sender's entry of a transfer), on the
	// payment of a charge, the hold of an authorization, the order of a
	// creation and the refund item of a refund. A settle adds its keys to
	// the order's metadata and a capture or a void to the hold's (a key
	// already there takes the new value). Bounded as metadata.Validate
	// says; a flow refuses a bad one before it writes. Default: none.
	Metadata metadata.Metadata
}

// WithMetadata attaches m to a flow.
func WithMetadata(m metadata.Metadata) func(*FlowOptions) {
	return func(o *FlowOptions) { o.Metadata = m }
}

// flowOptions applies opts and validates the result.
func flowOptions(opts []func(*FlowOptions)) (FlowOptions, error) {
	var o FlowOptions
	for _, f := range opts {
		f(&o)
	}
	return o, metadata.Validate(o.Metadata)
}
