package workload_test

import (
	"context"
	"fmt"
	"time"

	"github.com/oncetable/oncetable/test/workload"
)

// A short run without faults: the clients drive the API for two seconds and
// the checker compares their history with the table.
func ExampleRun() {
	res, err := workload.Run(context.Background(), workload.Config{Duration: 2 * time.Second, Clients: 4, Seed: 7, NoFaults: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("violations:", len(res.Violations))
	// Output: violations: 0
}
