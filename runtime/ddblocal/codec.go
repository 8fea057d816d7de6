package ddblocal

import "github.com/oncetable/oncetable/runtime/ddblocal/attr"

func decodeItem(raw []byte) (attr.Item, error) {
	it, err := attr.DecodeItem(raw)
	if err != nil {
		return nil, newError(CodeInternalServerError, "stored item is corrupt: %v", err)
	}
	return it, nil
}
