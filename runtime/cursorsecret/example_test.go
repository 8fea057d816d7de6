package cursorsecret_test

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"
	smtypes "github.com/aws/aws-sdk-go-v2/service/secretsmanager/types"

	"github.com/oncetable/oncetable/runtime/cursor"
	"github.com/oncetable/oncetable/runtime/cursorsecret"
)

// neverRotated stands in for the Secrets Manager client: one version,
// and no AWSPREVIOUS yet.
type neverRotated struct{}

func (neverRotated) GetSecretValue(_ context.Context, in *secretsmanager.GetSecretValueInput, _ ...func(*secretsmanager.Options)) (*secretsmanager.GetSecretValueOutput, error) {
	if *in.VersionStage != cursorsecret.StageCurrent {
		return nil, &smtypes.ResourceNotFoundException{}
	}
	value, created := "a cursor secret of at least 32 bytes", time.Now()
	return &secretsmanager.GetSecretValueOutput{SecretString: &value, CreatedDate: &created}, nil
}

func ExampleCache() {
	// In the api function: secretsmanager.NewFromConfig(awsCfg) and os.Getenv(config.CursorSecretARNEnv).
	cache := cursorsecret.New(neverRotated{}, "arn:aws:secretsmanager:eu-west-1:111122223333:secret:CursorSecret")
	if err := cache.Load(context.Background()); err != nil {
		fmt.Println(err)
		return
	}
	codec := cursor.New(nil) // the static secret is replaced by the cache
	codec.UseKeySource(cache)

	next, _ := codec.Encode("ledger|USER#u1", map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: "USER#u1"}})
	start, err := codec.Decode("ledger|USER#u1", next)
	fmt.Println(start["PK"].(*types.AttributeValueMemberS).Value, err)
	// Output: USER#u1 <nil>
}
