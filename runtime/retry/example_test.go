package retry_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/retry"
)

func ExampleDo() {
	policy := retry.Policy{MaxAttempts: 3, Base: time.Millisecond, Cap: 2 * time.Millisecond}
	err := retry.Do(context.Background(), policy, func(attempt int) error {
		return &types.ProvisionedThroughputExceededException{Message: aws.String("slow down")}
	})
	var ue *retry.UnavailableError
	fmt.Println(errors.As(err, &ue), ue.Kind, ue.Attempts, ue.RetryAfter)
	// Output: true throttled 3 1s
}
