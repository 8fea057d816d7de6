// Package attr is the embedded engine's model of a DynamoDB attribute value:
// the ten types (S, N, B, BOOL, NULL, L, M, SS, NS, BS), their wire JSON
// form, exact decimal numbers, ordering, equality, item size and a compact
// binary encoding for storage.
//
// It follows DynamoDB's rules rather than Go's: numbers are decimals with up
// to 38 significant digits in DynamoDB's range (never float64), strings and
// binaries order bytewise, sets are unordered and never empty, and an item's
// size is computed the documented way (names plus values, 3 bytes of
// overhead per list or map and 1 byte per element).
//
// A Value is built from wire JSON with encoding/json:
//
//	var it attr.Item
//	if err := json.Unmarshal(body, &it); err != nil {
//		var ve *attr.ValidationError
//		if errors.As(err, &ve) { /* ValidationException: ve.Message */ }
//	}
//
// It is not for application code: services talk to DynamoDB through the AWS
// SDK and its attributevalue package. attr exists so the engine does not
// depend on the SDK's types for storage, comparison or arithmetic.
package attr
