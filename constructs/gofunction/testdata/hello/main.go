// Command hello is a minimal Lambda main that the gofunction tests bundle.
package main

import (
	"context"

	"github.com/aws/aws-lambda-go/lambda"
)

func main() {
	lambda.Start(func(ctx context.Context, name string) (string, error) { return "hello " + name, nil })
}
