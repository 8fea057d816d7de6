package gofunction

import (
	"github.com/aws/aws-cdk-go/awscdk/v2/awsdynamodb"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/jsii-runtime-go"
	"github.com/cdklabs/cdk-nag-go/cdknag/v2"
)

// GrantStreamRead lets role read table's stream, as a DynamoDB stream event
// source mapping of its function needs: the stream's reads on that stream
// only, and dynamodb:ListStreams, the fourth action the DynamoDB Streams
// event source documentation (and AWSLambdaDynamoDBExecutionRole) lists.
// ListStreams supports no resource-level permission, so it is granted on
// "*" as there and in the CDK's own StreamGrants.list; it returns stream
// ARNs, never records.
func GrantStreamRead(role awsiam.IRole, table awsdynamodb.ITableV2) {
	role.AddToPrincipalPolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
		Sid:       jsii.String("ReadTableStream"),
		Actions:   jsii.Strings("dynamodb:DescribeStream", "dynamodb:GetRecords", "dynamodb:GetShardIterator"),
		Resources: &[]*string{table.TableStreamArn()},
	}))
	role.AddToPrincipalPolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
		Sid:       jsii.String("ListTableStreams"),
		Actions:   jsii.Strings("dynamodb:ListStreams"),
		Resources: jsii.Strings("*"),
	}))
}

// StreamMappingDLQ is the cdk-nag suppression of Serverless-LambdaDLQ for
// a function invoked only by a stream mapping with an on-failure
// destination of its own.
func StreamMappingDLQ() *cdknag.NagPackSuppression {
	return &cdknag.NagPackSuppression{Id: jsii.String("Serverless-LambdaDLQ"), Reason: jsii.String("Invoked only by its DynamoDB stream mapping, which has " +
		"its own on-failure destination (FailureQueue); a function dead-letter queue applies to asynchronous invocations only.")}
}

// ListStreamsOnAnyResource is the cdk-nag suppression of AwsSolutions-IAM5
// for the ListStreams statement of GrantStreamRead.
func ListStreamsOnAnyResource() *cdknag.NagPackSuppression {
	return &cdknag.NagPackSuppression{Id: jsii.String("AwsSolutions-IAM5"), Reason: jsii.String("dynamodb:ListStreams supports no resource-level permission: " +
		"Lambda's DynamoDB Streams event source documentation and AWSLambdaDynamoDBExecutionRole grant it on *. It lists " +
		"stream ARNs only; reading records stays limited to this table's stream."), AppliesTo: &[]any{"Resource::*"}}
}
