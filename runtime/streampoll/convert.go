package streampoll

import (
	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	st "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"
)

// lambdaRecord is a Streams API record as Lambda delivers it.
func lambdaRecord(r st.Record, arn string) events.DynamoDBEventRecord {
	out := events.DynamoDBEventRecord{
		AWSRegion: aws.ToString(r.AwsRegion), EventID: aws.ToString(r.EventID), EventName: string(r.EventName),
		EventSource: aws.ToString(r.EventSource), EventVersion: aws.ToString(r.EventVersion), EventSourceArn: arn,
	}
	if id := r.UserIdentity; id != nil {
		out.UserIdentity = &events.DynamoDBUserIdentity{Type: aws.ToString(id.Type), PrincipalID: aws.ToString(id.PrincipalId)}
	}
	if d := r.Dynamodb; d != nil {
		out.Change = events.DynamoDBStreamRecord{
			Keys: lambdaImage(d.Keys), NewImage: lambdaImage(d.NewImage), OldImage: lambdaImage(d.OldImage),
			SequenceNumber: aws.ToString(d.SequenceNumber), SizeBytes: aws.ToInt64(d.SizeBytes), StreamViewType: string(d.StreamViewType),
		}
		if d.ApproximateCreationDateTime != nil {
			out.Change.ApproximateCreationDateTime = events.SecondsEpochTime{Time: *d.ApproximateCreationDateTime}
		}
	}
	return out
}

func lambdaImage(m map[string]st.AttributeValue) map[string]events.DynamoDBAttributeValue {
	if m == nil {
		return nil
	}
	out := make(map[string]events.DynamoDBAttributeValue, len(m))
	for k, v := range m {
		out[k] = lambdaValue(v)
	}
	return out
}

func lambdaValue(v st.AttributeValue) events.DynamoDBAttributeValue {
	switch v := v.(type) {
	case *st.AttributeValueMemberS:
		return events.NewStringAttribute(v.Value)
	case *st.AttributeValueMemberN:
		return events.NewNumberAttribute(v.Value)
	case *st.AttributeValueMemberB:
		return events.NewBinaryAttribute(v.Value)
	case *st.AttributeValueMemberBOOL:
		return events.NewBooleanAttribute(v.Value)
	case *st.AttributeValueMemberSS:
		return events.NewStringSetAttribute(v.Value)
	case *st.AttributeValueMemberNS:
		return events.NewNumberSetAttribute(v.Value)
	case *st.AttributeValueMemberBS:
		return events.NewBinarySetAttribute(v.Value)
	case *st.AttributeValueMemberL:
		list := make([]events.DynamoDBAttributeValue, len(v.Value))
		for i, e := range v.Value {
			list[i] = lambdaValue(e)
		}
		return events.NewListAttribute(list)
	case *st.AttributeValueMemberM:
		return events.NewMapAttribute(lambdaImage(v.Value))
	}
	return events.NewNullAttribute()
}
