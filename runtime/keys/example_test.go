package keys_test

import (
	"errors"
	"fmt"

	"github.com/oncetable/oncetable/runtime/keys"
)

func ExampleOrderItem() {
	k, _ := keys.OrderItem("o-1001", 2)
	fmt.Println(k.PK, k.SK)

	_, err := keys.Order("o-1001#ITEM#001")
	fmt.Println(errors.Is(err, keys.ErrInvalidID), err)
	// Output:
	// ORDER#o-1001 ITEM#002
	// true invalid orderId "o-1001#ITEM#001": must not contain '#'
}
