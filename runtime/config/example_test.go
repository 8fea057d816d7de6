package config_test

import (
	"fmt"

	"github.com/oncetable/oncetable/runtime/config"
	"github.com/oncetable/oncetable/runtime/schema"
)

// A construct writes a function's environment; its main reads it back.
func ExampleLoadPayments() {
	env := config.Payments{Table: "oncetable-dev", Orders: config.Orders{Stage: schema.OrdersBoth}}.Environment()
	fmt.Println(env[config.IdempotencyExpiryEnv], env[config.OrderIndexesEnv], env[config.OrderShardsEnv])

	cfg, err := config.LoadPayments(func(k string) string { return env[k] })
	fmt.Println(cfg.Table, cfg.Orders.Stage, cfg.Orders.Shards, err)

	env[config.OrderShardsEnv] = "abc"
	_, err = config.LoadPayments(func(k string) string { return env[k] })
	fmt.Println(err)
	// Output:
	// 24h0m0s both 4
	// oncetable-dev both 4 <nil>
	// config: ORDER_SHARDS="abc": want an integer 1..100
}
