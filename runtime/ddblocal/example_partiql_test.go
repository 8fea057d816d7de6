package ddblocal_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/ddblocal"
)

// PartiQL statements run through the same writes and conditions as the
// item operations: an INSERT of a key that exists is refused.
func ExampleEngine_Client_partiQL() {
	ctx := context.Background()
	eng := ddblocal.New()
	defer eng.Close()
	db := eng.Client()
	if err := createUsers(ctx, db); err != nil {
		fmt.Println(err)
		return
	}
	run := func(stmt string, params ...types.AttributeValue) (*dynamodb.ExecuteStatementOutput, error) {
		in := &dynamodb.ExecuteStatementInput{Statement: aws.String(stmt)}
		if len(params) > 0 {
			in.Parameters = params
		}
		return db.ExecuteStatement(ctx, in)
	}
	if _, err := run(`INSERT INTO "users" VALUE {'PK': 'USER#1', 'SK': 'PROFILE', 'balance': 100}`); err != nil {
		fmt.Println(err)
		return
	}
	if _, err := run(`UPDATE "users" SET balance = balance - ? WHERE PK = 'USER#1' AND SK = 'PROFILE' AND balance >= ?`,
		&types.AttributeValueMemberN{Value: "30"}, &types.AttributeValueMemberN{Value: "30"}); err != nil {
		fmt.Println(err)
		return
	}
	out, err := run(`SELECT balance FROM "users" WHERE PK = 'USER#1'`)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(out.Items[0]["balance"].(*types.AttributeValueMemberN).Value)

	_, err = run(`INSERT INTO "users" VALUE {'PK': 'USER#1', 'SK': 'PROFILE'}`)
	var dup *types.DuplicateItemException
	fmt.Println(errors.As(err, &dup))
	// Output:
	// 70
	// true
}
