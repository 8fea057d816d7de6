package money_test

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/oncetable/oncetable/runtime/money"
)

func ExampleParseJSON() {
	var body struct {
		Amount   json.RawMessage `json:"amount"`
		Currency string          `json:"currency"`
	}
	_ = json.Unmarshal([]byte(`{"amount": 1250, "currency": "EUR"}`), &body)
	a, err := money.ParseJSON(body.Amount, body.Currency)
	fmt.Println(a, a.Minor, err)

	_, err = money.ParseJSON(json.RawMessage(`12.5`), "EUR")
	fmt.Println(errors.Is(err, money.ErrInvalidAmount))
	// Output:
	// 12.50 EUR 1250 <nil>
	// true
}
