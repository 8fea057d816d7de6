package cursor_test

import (
	"fmt"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/cursor"
)

func ExampleCodec() {
	c := cursor.New([]byte("a secret of at least thirty-two bytes"))
	last := map[string]types.AttributeValue{
		"PK": &types.AttributeValueMemberS{Value: "USER#u1"},
		"SK": &types.AttributeValueMemberS{Value: "LEDGER#2026-11-29T20:00:00.000000000Z#cr_1"},
	}
	next, _ := c.Encode("ledger|USER#u1", last)
	start, err := c.Decode("ledger|USER#u1", next)
	fmt.Println(start["SK"].(*types.AttributeValueMemberS).Value, err)
	_, err = c.Decode("ledger|USER#u2", next)
	fmt.Println(err)
	// Output:
	// LEDGER#2026-11-29T20:00:00.000000000Z#cr_1 <nil>
	// cursor: invalid cursor: signature does not match this query
}
