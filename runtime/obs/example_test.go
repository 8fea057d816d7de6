package obs_test

import (
	"fmt"

	"github.com/oncetable/oncetable/runtime/obs"
)

func ExampleKeyHash() {
	fmt.Println(obs.KeyHash("8e03978e-40d5-43e8-bc93-6894a57f9324"))
	// Output: 238c5b6ddb487a6d
}
