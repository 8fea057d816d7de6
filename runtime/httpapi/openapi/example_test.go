package openapi_test

import (
	"encoding/json"
	"fmt"

	"github.com/oncetable/oncetable/runtime/httpapi/openapi"
)

func ExampleDocument() {
	var doc struct {
		OpenAPI    string `json:"openapi"`
		Components struct {
			Schemas map[string]struct {
				Properties map[string]struct {
					MaxLength *int `json:"maxLength"`
				} `json:"properties"`
			} `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(openapi.Document(), &doc); err != nil {
		panic(err)
	}
	fmt.Println(doc.OpenAPI, *doc.Components.Schemas["CreateUserRequest"].Properties["name"].MaxLength)
	// Output: 3.1.0 200
}
