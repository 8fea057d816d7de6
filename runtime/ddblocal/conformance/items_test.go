package conformance_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

const (
	pagePutItem    = "PutItem (DynamoDB API Reference)"
	pageGetItem    = "GetItem (DynamoDB API Reference)"
	pageUpdateItem = "UpdateItem (DynamoDB API Reference)"
	pageDeleteItem = "DeleteItem (DynamoDB API Reference)"
	pageDataTypes  = "Supported data types and naming rules in Amazon DynamoDB (Developer Guide)"
	pageItemSize   = "Item sizes and formats (Developer Guide) / Service, account, and table quotas"
	pageCondFail   = "ConditionalCheckFailedException / ReturnValuesOnConditionCheckFailure (DynamoDB API Reference)"
)

func TestPutGetDelete(t *testing.T) {
	doc(t, pagePutItem+" / "+pageGetItem+" / "+pageDeleteItem, `PutItem creates a new item, or replaces an old item with a new item. GetItem returns a set of attributes for the item with the given primary key; if there is no matching item, GetItem does not return any data and there will be no Item element in the response. DeleteItem deletes a single item in a table by primary key.`)
	each(t, func(t *testing.T, tg *target) {
		table := compositeTable(t, tg, types.ScalarAttributeTypeS)
		key := item{"pk": s("p"), "sk": s("s")}
		if it := get(t, tg, table, key); it != nil {
			t.Fatalf("GetItem on empty table = %s, want no Item", show(it))
		}
		first := item{"pk": s("p"), "sk": s("s"), "a": s("1"), "b": s("2")}
		put(t, tg, table, first)
		wantItem(t, get(t, tg, table, key), first)
		second := item{"pk": s("p"), "sk": s("s"), "c": s("3")}
		put(t, tg, table, second)
		wantItem(t, get(t, tg, table, key), second) // replaced, not merged

		out, err := tg.client.GetItem(ctx(t), &dynamodb.GetItemInput{
			TableName: aws.String(table), Key: key, ProjectionExpression: aws.String("c, nope"),
		})
		noErr(t, err, "GetItem projection")
		wantItem(t, out.Item, item{"c": s("3")})

		_, err = tg.client.DeleteItem(ctx(t), &dynamodb.DeleteItemInput{TableName: aws.String(table), Key: key})
		noErr(t, err, "DeleteItem")
		if it := get(t, tg, table, key); it != nil {
			t.Errorf("item after DeleteItem = %s, want none", show(it))
		}
		// Deleting a missing item succeeds.
		_, err = tg.client.DeleteItem(ctx(t), &dynamodb.DeleteItemInput{TableName: aws.String(table), Key: key})
		noErr(t, err, "DeleteItem of missing item")
	})
}

func TestKeyValidation(t *testing.T) {
	each(t, func(t *testing.T, tg *target) {
		table := compositeTable(t, tg, types.ScalarAttributeTypeS)
		cases := []struct {
			name string
			call func() error
			msg  []string
			doc  string
		}{
			{
				name: "GetItem missing sort key",
				call: func() error {
					_, err := tg.client.GetItem(ctx(t), &dynamodb.GetItemInput{TableName: aws.String(table), Key: item{"pk": s("a")}})
					return err
				},
				msg: []string{"The provided key element does not match the schema"},
				doc: `GetItem Key: For a composite primary key, you must provide values for both the partition key and the sort key.`,
			},
			{
				name: "GetItem extra attribute in key",
				call: func() error {
					_, err := tg.client.GetItem(ctx(t), &dynamodb.GetItemInput{TableName: aws.String(table), Key: item{"pk": s("a"), "sk": s("b"), "x": s("c")}})
					return err
				},
				msg: []string{"The provided key element does not match the schema"},
				doc: `GetItem Key: A map of attribute names to AttributeValue objects, representing the primary key of the item to retrieve (only the key attributes).`,
			},
			{
				name: "GetItem key of wrong type",
				call: func() error {
					_, err := tg.client.GetItem(ctx(t), &dynamodb.GetItemInput{TableName: aws.String(table), Key: item{"pk": n("1"), "sk": s("b")}})
					return err
				},
				msg: []string{"The provided key element does not match the schema"},
				doc: `GetItem Key: the key attributes must have the types of the table's key schema.`,
			},
			{
				name: "PutItem missing key attribute",
				call: func() error {
					_, err := tg.client.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: aws.String(table), Item: item{"pk": s("a")}})
					return err
				},
				msg: []string{"One or more parameter values were invalid: Missing the key sk in the item"},
				doc: `PutItem Item: You must provide all of the attributes for the primary key.`,
			},
			{
				name: "PutItem key type mismatch",
				call: func() error {
					_, err := tg.client.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: aws.String(table), Item: item{"pk": s("a"), "sk": n("1")}})
					return err
				},
				msg: []string{"One or more parameter values were invalid: Type mismatch for key sk expected: S actual: N"},
				doc: `PutItem Item: If you specify any attributes that are part of an index key, then the data types for those attributes must match those of the schema in the table's attribute definition.`,
			},
			{
				name: "PutItem empty string key",
				call: func() error {
					_, err := tg.client.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: aws.String(table), Item: item{"pk": s(""), "sk": s("b")}})
					return err
				},
				msg: []string{"One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty string value. Key: pk"},
				doc: `Empty String and Binary attribute values are allowed, except for key attributes: "When you use String or Binary as a key attribute, the attribute value must have a length greater than zero".`,
			},
			{
				name: "UpdateItem sets a key attribute",
				call: func() error {
					_, err := tg.client.UpdateItem(ctx(t), &dynamodb.UpdateItemInput{
						TableName: aws.String(table), Key: item{"pk": s("a"), "sk": s("b")},
						UpdateExpression: aws.String("SET sk = :v"), ExpressionAttributeValues: item{":v": s("c")},
					})
					return err
				},
				msg: []string{"One or more parameter values were invalid: Cannot update attribute sk. This attribute is part of the key"},
				doc: `UpdateItem: You cannot use UpdateItem to update any primary key attributes. Instead, you will need to delete the item, and then use PutItem to create a new item with new attributes.`,
			},
			{
				name: "PutItem on missing table",
				call: func() error {
					_, err := tg.client.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: aws.String(table + "-missing"), Item: item{"pk": s("a"), "sk": s("b")}})
					return err
				},
				doc: `ResourceNotFoundException: The operation tried to access a nonexistent table or index.`,
			},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				doc(t, pagePutItem+" / "+pageGetItem+" / "+pageUpdateItem, c.doc)
				err := c.call()
				if c.msg == nil {
					wantErr(t, err, "ResourceNotFoundException", "Requested resource not found")
					return
				}
				wantValidation(t, err, c.msg...)
			})
		}
	})
}

func TestAttributeTypesRoundTrip(t *testing.T) {
	doc(t, pageDataTypes, `Scalar types: number, string, binary, Boolean, and null. Document types: list and map. Set types: string set, number set, and binary set. Lists and maps can be nested within each other up to 32 levels deep; an empty String or Binary is allowed in non-key attributes; lists and maps may be empty.`)
	each(t, func(t *testing.T, tg *target) {
		table := hashTable(t, tg)
		it := item{
			"pk":      s("types"),
			"S":       s("héllo 🌍"),
			"Sempty":  s(""),
			"N":       n("-12.5"),
			"B":       b([]byte{0, 1, 0xfe, 0xff}),
			"Bempty":  b([]byte{}),
			"BOOL":    boolv(true),
			"BOOLf":   boolv(false),
			"NULL":    null(),
			"L":       l(s("a"), n("1"), l(boolv(false)), m(item{"k": null()})),
			"Lempty":  l(),
			"M":       m(item{"nested": m(item{"deep": l(n("2"), s("x"))}), "e": s("")}),
			"Mempty":  m(item{}),
			"SS":      ss("a", "b", "c"),
			"NS":      ns("1", "2.5", "-3"),
			"BS":      bs([]byte{1}, []byte{2, 3}),
			"name.wi": s("dots are legal in attribute names"),
		}
		put(t, tg, table, it)
		wantItem(t, get(t, tg, table, item{"pk": s("types")}), it)
	})
}

func TestAttributeValueValidation(t *testing.T) {
	doc(t, pageDataTypes, `Sets: All of the elements within a set must be of the same type; the values within a set must be unique; an empty set is not allowed.`)
	each(t, func(t *testing.T, tg *target) {
		table := hashTable(t, tg)
		cases := []struct {
			name string
			v    types.AttributeValue
			msg  string
		}{
			{"empty string set", ss(), "may not be empty"},
			{"empty number set", ns(), "may not be empty"},
			{"empty binary set", bs(), "may not be empty"},
			{"duplicate string set", ss("a", "a"), "contains duplicates"},
			{"duplicate number set", ns("1", "1.0"), "contains duplicates"},
			{"duplicate binary set", bs([]byte{1}, []byte{1}), "contains duplicates"},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				_, err := tg.client.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: aws.String(table), Item: item{"pk": s("x"), "v": c.v}})
				// Wordings differ by set type ("An string set  may not be empty", "Binary sets should not be empty").
				if c.msg == "may not be empty" {
					wantValidationOneOf(t, err, "may not be empty", "should not be empty")
					return
				}
				wantValidation(t, err, c.msg)
			})
		}
	})
}

func TestNumbers(t *testing.T) {
	doc(t, pageDataTypes, `Numbers can have up to 38 digits of precision. Positive range: 1E-130 to 9.9999999999999999999999999999999999999E+125; negative range: -9.9999999999999999999999999999999999999E+125 to -1E-130. Leading and trailing zeroes are trimmed. If number precision is important, pass numbers to DynamoDB using strings.`)
	each(t, func(t *testing.T, tg *target) {
		table := hashTable(t, tg)
		stored := []struct{ in, want string }{
			{"12345678901234567890123456789012345678", "12345678901234567890123456789012345678"},
			{"-0.12345678901234567890123456789012345678", "-0.12345678901234567890123456789012345678"},
			{"9.9999999999999999999999999999999999999E+125", "999999999999999999999999999999999999990000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"},
			{"1E-130", "0.0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000001"},
			{"-1E-130", "-0.0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000001"},
			{"1.50", "1.5"},
			{"00012", "12"},
			{"1e2", "100"},
			{"0.0", "0"},
			{"-0", "0"},
			{"123456789012345678901234567890123456780000", "123456789012345678901234567890123456780000"},
		}
		for _, c := range stored {
			t.Run("store "+c.in, func(t *testing.T) {
				put(t, tg, table, item{"pk": s("num"), "v": n(c.in)})
				got := get(t, tg, table, item{"pk": s("num")})["v"]
				if gn, ok := got.(*types.AttributeValueMemberN); !ok || gn.Value != c.want {
					t.Errorf("stored %s, read back %s, want N(%s)", c.in, show(got), c.want)
				}
			})
		}
		rejected := []struct{ in, msg string }{
			{"123456789012345678901234567890123456789", "Attempting to store more than 38 significant digits in a Number"},
			{"1E+126", "Number overflow. Attempting to store a number with magnitude larger than supported range"},
			{"-1E+126", "Number overflow. Attempting to store a number with magnitude larger than supported range"},
			{"1E-131", "Number underflow. Attempting to store a number with magnitude smaller than supported range"},
			{"abc", "A value provided cannot be converted into a number"},
			{"", "A value provided cannot be converted into a number"},
		}
		for _, c := range rejected {
			t.Run("reject "+c.in, func(t *testing.T) {
				_, err := tg.client.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: aws.String(table), Item: item{"pk": s("bad"), "v": n(c.in)}})
				if c.msg == "A value provided cannot be converted into a number" {
					// Unsure of today's wording; both known service wordings are accepted.
					wantValidationOneOf(t, err, c.msg, "The parameter cannot be converted to a numeric value")
					return
				}
				wantValidation(t, err, c.msg)
			})
		}
		t.Run("exact arithmetic", func(t *testing.T) {
			put(t, tg, table, item{"pk": s("acc"), "v": n("99999999999999999999999999999999999998"), "f": n("0.1")})
			out, err := tg.client.UpdateItem(ctx(t), &dynamodb.UpdateItemInput{
				TableName: aws.String(table), Key: item{"pk": s("acc")},
				UpdateExpression:          aws.String("SET v = v + :one, f = f + :two ADD g :g"),
				ExpressionAttributeValues: item{":one": n("1"), ":two": n("0.2"), ":g": n("-0.3")},
				ReturnValues:              types.ReturnValueAllNew,
			})
			noErr(t, err, "UpdateItem")
			wantItem(t, out.Attributes, item{"pk": s("acc"), "v": n("99999999999999999999999999999999999999"), "f": n("0.3"), "g": n("-0.3")})
		})
		t.Run("arithmetic overflow", func(t *testing.T) {
			put(t, tg, table, item{"pk": s("big"), "v": n("9.9999999999999999999999999999999999999E+125")})
			_, err := tg.client.UpdateItem(ctx(t), &dynamodb.UpdateItemInput{
				TableName: aws.String(table), Key: item{"pk": s("big")},
				UpdateExpression:          aws.String("SET v = v + :x"),
				ExpressionAttributeValues: item{":x": n("9.9999999999999999999999999999999999999E+125")},
			})
			wantValidation(t, err, "Number overflow")
		})
	})
}

func TestItemSizeLimit(t *testing.T) {
	doc(t, pageItemSize, `The maximum item size in DynamoDB is 400 KB, which includes both attribute name binary length (UTF-8 length) and attribute value lengths (again binary length). Strings are Unicode with UTF-8 binary encoding; the size of a string is (length of attribute name) + (number of UTF-8-encoded bytes). Binary: (length of attribute name) + (number of raw bytes).`)
	each(t, func(t *testing.T, tg *target) {
		table := hashTable(t, tg)
		const limit = 400 * 1024
		// {"pk": "k", "d": <x>}: 2+1 + 1+len(x).
		fill := limit - 4
		t.Run("string at limit", func(t *testing.T) {
			put(t, tg, table, item{"pk": s("k"), "d": s(strings.Repeat("x", fill))})
		})
		t.Run("string over limit", func(t *testing.T) {
			_, err := tg.client.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: aws.String(table), Item: item{"pk": s("k"), "d": s(strings.Repeat("x", fill+1))}})
			wantValidation(t, err, "Item size has exceeded the maximum allowed size")
		})
		t.Run("multibyte string counted in UTF-8 bytes", func(t *testing.T) {
			// "é" is two bytes in UTF-8: half as many runes reach the limit.
			_, err := tg.client.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: aws.String(table), Item: item{"pk": s("k"), "d": s(strings.Repeat("é", fill/2+1))}})
			wantValidation(t, err, "Item size has exceeded the maximum allowed size")
			put(t, tg, table, item{"pk": s("k"), "d": s(strings.Repeat("é", fill/2))})
		})
		t.Run("binary at and over limit", func(t *testing.T) {
			put(t, tg, table, item{"pk": s("k"), "d": b(make([]byte, fill))})
			_, err := tg.client.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: aws.String(table), Item: item{"pk": s("k"), "d": b(make([]byte, fill+1))}})
			wantValidation(t, err, "Item size has exceeded the maximum allowed size")
		})
		t.Run("attribute names count", func(t *testing.T) {
			_, err := tg.client.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: aws.String(table), Item: item{"pk": s("k"), "dd": s(strings.Repeat("x", fill))}})
			wantValidation(t, err, "Item size has exceeded the maximum allowed size")
		})
		t.Run("update growing past limit", func(t *testing.T) {
			put(t, tg, table, item{"pk": s("u"), "d": s(strings.Repeat("x", fill-100))})
			_, err := tg.client.UpdateItem(ctx(t), &dynamodb.UpdateItemInput{
				TableName: aws.String(table), Key: item{"pk": s("u")},
				UpdateExpression:          aws.String("SET e = :v"),
				ExpressionAttributeValues: item{":v": s(strings.Repeat("y", 200))},
			})
			wantValidation(t, err, "Item size to update has exceeded the maximum allowed size")
		})
	})
}

func TestReturnValuesPutDelete(t *testing.T) {
	doc(t, pagePutItem+" / "+pageDeleteItem, `ReturnValues: NONE - If ReturnValues is not specified, or if its value is NONE, then nothing is returned. ALL_OLD - If PutItem overwrote an attribute name-value pair (DeleteItem: deleted an item), then the content of the old item is returned. The values returned are strongly consistent. The ReturnValues parameter is used by several DynamoDB operations; however, PutItem and DeleteItem do not recognize any values other than NONE or ALL_OLD.`)
	each(t, func(t *testing.T, tg *target) {
		table := hashTable(t, tg)
		old := item{"pk": s("a"), "v": s("old")}
		out, err := tg.client.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: aws.String(table), Item: old, ReturnValues: types.ReturnValueAllOld})
		noErr(t, err, "PutItem ALL_OLD on new item")
		if len(out.Attributes) != 0 {
			t.Errorf("ALL_OLD on a new item returned %s, want nothing", show(out.Attributes))
		}
		out, err = tg.client.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: aws.String(table), Item: item{"pk": s("a"), "v": s("new")}, ReturnValues: types.ReturnValueAllOld})
		noErr(t, err, "PutItem ALL_OLD")
		wantItem(t, out.Attributes, old)
		out, err = tg.client.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: aws.String(table), Item: item{"pk": s("a"), "v": s("newer")}, ReturnValues: types.ReturnValueNone})
		noErr(t, err, "PutItem NONE")
		if len(out.Attributes) != 0 {
			t.Errorf("NONE returned %s", show(out.Attributes))
		}
		for _, rv := range []types.ReturnValue{types.ReturnValueAllNew, types.ReturnValueUpdatedOld, types.ReturnValueUpdatedNew} {
			_, err = tg.client.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: aws.String(table), Item: old, ReturnValues: rv})
			wantValidation(t, err, "ReturnValues can only be ALL_OLD or NONE")
			_, err = tg.client.DeleteItem(ctx(t), &dynamodb.DeleteItemInput{TableName: aws.String(table), Key: item{"pk": s("a")}, ReturnValues: rv})
			wantValidation(t, err, "ReturnValues can only be ALL_OLD or NONE")
		}
		d, err := tg.client.DeleteItem(ctx(t), &dynamodb.DeleteItemInput{TableName: aws.String(table), Key: item{"pk": s("a")}, ReturnValues: types.ReturnValueAllOld})
		noErr(t, err, "DeleteItem ALL_OLD")
		wantItem(t, d.Attributes, item{"pk": s("a"), "v": s("newer")})
		d, err = tg.client.DeleteItem(ctx(t), &dynamodb.DeleteItemInput{TableName: aws.String(table), Key: item{"pk": s("a")}, ReturnValues: types.ReturnValueAllOld})
		noErr(t, err, "DeleteItem ALL_OLD missing")
		if len(d.Attributes) != 0 {
			t.Errorf("DeleteItem ALL_OLD of a missing item returned %s", show(d.Attributes))
		}
	})
}

func TestReturnValuesUpdate(t *testing.T) {
	doc(t, pageUpdateItem, `ReturnValues: NONE - nothing is returned. ALL_OLD - Returns all of the attributes of the item, as they appeared before the UpdateItem operation. UPDATED_OLD - Returns only the updated attributes, as they appeared before the UpdateItem operation. ALL_NEW - Returns all of the attributes of the item, as they appear after the UpdateItem operation. UPDATED_NEW - Returns only the updated attributes, as they appear after the UpdateItem operation.`)
	before := item{"pk": s("a"), "keep": s("k"), "x": n("1"), "gone": s("g")}
	expr := "SET x = x + :one, y = :y REMOVE gone"
	cases := []struct {
		rv   types.ReturnValue
		want item
	}{
		{types.ReturnValueNone, nil},
		{types.ReturnValueAllOld, before},
		{types.ReturnValueUpdatedOld, item{"x": n("1"), "gone": s("g")}},
		{types.ReturnValueAllNew, item{"pk": s("a"), "keep": s("k"), "x": n("2"), "y": s("Y")}},
		{types.ReturnValueUpdatedNew, item{"x": n("2"), "y": s("Y")}},
	}
	each(t, func(t *testing.T, tg *target) {
		table := hashTable(t, tg)
		for _, c := range cases {
			t.Run(string(c.rv), func(t *testing.T) {
				put(t, tg, table, before)
				out, err := tg.client.UpdateItem(ctx(t), &dynamodb.UpdateItemInput{
					TableName: aws.String(table), Key: item{"pk": s("a")},
					UpdateExpression:          aws.String(expr),
					ExpressionAttributeValues: item{":one": n("1"), ":y": s("Y")},
					ReturnValues:              c.rv,
				})
				noErr(t, err, "UpdateItem")
				if c.want == nil {
					if len(out.Attributes) != 0 {
						t.Errorf("NONE returned %s", show(out.Attributes))
					}
					return
				}
				wantItem(t, out.Attributes, c.want)
			})
		}
		t.Run("UPDATED_NEW nested path returns the changed leaf", func(t *testing.T) {
			put(t, tg, table, item{"pk": s("n"), "m": m(item{"a": n("1"), "b": n("2")})})
			out, err := tg.client.UpdateItem(ctx(t), &dynamodb.UpdateItemInput{
				TableName: aws.String(table), Key: item{"pk": s("n")},
				UpdateExpression:          aws.String("SET m.a = :v"),
				ExpressionAttributeValues: item{":v": n("5")},
				ReturnValues:              types.ReturnValueUpdatedNew,
			})
			noErr(t, err, "UpdateItem")
			wantItem(t, out.Attributes, item{"m": m(item{"a": n("5")})})
		})
		t.Run("upsert creates the item", func(t *testing.T) {
			out, err := tg.client.UpdateItem(ctx(t), &dynamodb.UpdateItemInput{
				TableName: aws.String(table), Key: item{"pk": s("fresh")},
				UpdateExpression:          aws.String("SET v = :v"),
				ExpressionAttributeValues: item{":v": s("V")},
				ReturnValues:              types.ReturnValueAllNew,
			})
			noErr(t, err, "UpdateItem upsert")
			wantItem(t, out.Attributes, item{"pk": s("fresh"), "v": s("V")})
		})
	})
}

func TestReturnValuesOnConditionCheckFailure(t *testing.T) {
	doc(t, pageCondFail, `ReturnValuesOnConditionCheckFailure: Use it to return the item attributes if a PutItem/UpdateItem/DeleteItem operation fails a condition check; valid values are NONE and ALL_OLD. ConditionalCheckFailedException: A condition specified in the operation failed to be evaluated. Item: Item which caused the ConditionalCheckFailedException. Message: The conditional request failed.`)
	each(t, func(t *testing.T, tg *target) {
		table := hashTable(t, tg)
		old := item{"pk": s("a"), "v": n("1"), "tag": ss("x")}
		put(t, tg, table, old)
		cond := aws.String("v = :two")
		vals := item{":two": n("2")}
		calls := map[string]func(rv types.ReturnValuesOnConditionCheckFailure) error{
			"PutItem": func(rv types.ReturnValuesOnConditionCheckFailure) error {
				_, err := tg.client.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: aws.String(table), Item: item{"pk": s("a")},
					ConditionExpression: cond, ExpressionAttributeValues: vals, ReturnValuesOnConditionCheckFailure: rv})
				return err
			},
			"UpdateItem": func(rv types.ReturnValuesOnConditionCheckFailure) error {
				_, err := tg.client.UpdateItem(ctx(t), &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: item{"pk": s("a")},
					UpdateExpression: aws.String("SET w = :two"), ConditionExpression: cond, ExpressionAttributeValues: vals, ReturnValuesOnConditionCheckFailure: rv})
				return err
			},
			"DeleteItem": func(rv types.ReturnValuesOnConditionCheckFailure) error {
				_, err := tg.client.DeleteItem(ctx(t), &dynamodb.DeleteItemInput{TableName: aws.String(table), Key: item{"pk": s("a")},
					ConditionExpression: cond, ExpressionAttributeValues: vals, ReturnValuesOnConditionCheckFailure: rv})
				return err
			},
		}
		for _, op := range []string{"PutItem", "UpdateItem", "DeleteItem"} {
			t.Run(op+" ALL_OLD", func(t *testing.T) {
				err := calls[op](types.ReturnValuesOnConditionCheckFailureAllOld)
				var ccf *types.ConditionalCheckFailedException
				if !errors.As(err, &ccf) {
					t.Fatalf("got %v, want *types.ConditionalCheckFailedException", err)
				}
				wantErr(t, err, "ConditionalCheckFailedException", "The conditional request failed")
				wantItem(t, ccf.Item, old)
			})
			t.Run(op+" NONE", func(t *testing.T) {
				err := calls[op](types.ReturnValuesOnConditionCheckFailureNone)
				var ccf *types.ConditionalCheckFailedException
				if !errors.As(err, &ccf) {
					t.Fatalf("got %v, want *types.ConditionalCheckFailedException", err)
				}
				if len(ccf.Item) != 0 {
					t.Errorf("NONE returned item %s", show(ccf.Item))
				}
			})
		}
		t.Run("ALL_OLD on a missing item returns no item", func(t *testing.T) {
			_, err := tg.client.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: aws.String(table), Item: item{"pk": s("missing")},
				ConditionExpression: aws.String("attribute_exists(pk)"), ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld})
			var ccf *types.ConditionalCheckFailedException
			if !errors.As(err, &ccf) {
				t.Fatalf("got %v, want *types.ConditionalCheckFailedException", err)
			}
			if len(ccf.Item) != 0 {
				t.Errorf("missing item: got Item %s, want none", show(ccf.Item))
			}
		})
		if got := get(t, tg, table, item{"pk": s("a")}); !equalItem(got, old) {
			t.Errorf("failed conditional writes changed the item: %s, want %s", show(got), show(old))
		}
	})
}
