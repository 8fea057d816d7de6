package gofunction_test

import (
	"errors"
	"fmt"

	"github.com/oncetable/oncetable/constructs/gofunction"
)

// A failed build carries the go command's own output; synthesis shows it
// as an error annotation.
func ExampleBuildError() {
	var err error = &gofunction.BuildError{
		Entry:   "./lambdas/charge",
		Command: "go build",
		Output:  "lambdas/charge/main.go:12:2: undefined: handler\n",
	}
	var be *gofunction.BuildError
	fmt.Println(errors.Is(err, gofunction.ErrBuild), errors.As(err, &be) && be.Entry == "./lambdas/charge")
	fmt.Println(err)
	// Output:
	// true true
	// go build ./lambdas/charge failed:
	// lambdas/charge/main.go:12:2: undefined: handler
}

// Log retentions must be periods CloudWatch Logs offers.
func ExampleValidRetention() {
	fmt.Println(gofunction.ValidRetention(30), gofunction.ValidRetention(31))
	// Output: true false
}
