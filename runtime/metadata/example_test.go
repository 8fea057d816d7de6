package metadata_test

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/oncetable/oncetable/runtime/metadata"
)

func Example() {
	var body struct {
		Metadata metadata.Metadata `json:"metadata"`
	}
	err := json.Unmarshal([]byte(`{"metadata":{"invoice":"INV-7","cart[1]":"x"}}`), &body)
	var me *metadata.Error
	if errors.As(err, &me) {
		fmt.Println(me.Param, me.Reason)
	}
	err = json.Unmarshal([]byte(`{"metadata":{"invoice":"INV-7"}}`), &body)
	fmt.Println(body.Metadata["invoice"], err)
	// Output:
	// metadata[cart[1]] key_character
	// INV-7 <nil>
}
