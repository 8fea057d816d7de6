package expr

import (
	"encoding/json"
	"errors"
	"sort"

	"github.com/oncetable/oncetable/runtime/ddblocal/attr"
)

// UnmarshalJSON decodes a request's ExpressionAttributeValues. An invalid
// value is reported with the member and the placeholder it is under, as
// DynamoDB reports it: "ExpressionAttributeValues contains invalid value:
// <why> for key :x". Placeholders are decoded in sorted order, so the first
// bad one is named.
func (v *Values) UnmarshalJSON(data []byte) error {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	if raw == nil {
		*v = nil
		return nil
	}
	keys := make([]string, 0, len(raw))
	for k := range raw {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make(Values, len(raw))
	for _, k := range keys {
		var val attr.Value
		if err := json.Unmarshal(raw[k], &val); err != nil {
			var ve *attr.ValidationError
			if errors.As(err, &ve) {
				return invalid("ExpressionAttributeValues contains invalid value: " + ve.Message + " for key " + k)
			}
			return err
		}
		out[k] = val
	}
	*v = out
	return nil
}
