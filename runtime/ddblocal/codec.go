package ddblocal

import "github.com/oncetable/oncetable/runtime/ddblocal/attr"

// decodeItem decodes a stored row. Rows are never modified once stored, so
// the item's strings share the row's bytes.
func decodeItem(raw []byte) (attr.Item, error) {
	it, err := attr.DecodeItemView(raw)
	if err != nil {
		return nil, newError(CodeInternalServerError, "stored item is corrupt: %v", err)
	}
	return it, nil
}
