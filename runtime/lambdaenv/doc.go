// Package lambdaenv builds the aws.Config of a Lambda function from the
// environment variables Lambda sets, in place of config.LoadDefaultConfig.
//
// In Lambda the region and the execution role's temporary credentials are
// environment variables (AWS_REGION, AWS_ACCESS_KEY_ID,
// AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN). The SDK's default loader also
// links the shared config and credentials files, SSO and SSO-OIDC, STS, web
// identity, IMDS, process and container credentials: none of them applies to
// a provided.al2023 function, and together they add about 1.9 MB to each
// bootstrap (docs/compute.md). Config reads the variables alone:
//
//	cfg, err := lambdaenv.Config()
//	if err != nil {
//		log.Fatalf("charge: %v", err)
//	}
//	db := retry.NewClient(cfg)
//
// It also honours AWS_ENDPOINT_URL (every client goes to that endpoint, as
// with the default loader; the cold-start benchmark uses it) and
// AWS_MAX_ATTEMPTS, and gives every client the SDK's standard retryer;
// every DynamoDB client turns it off (retry.NewClient), because
// runtime/retry retries its calls.
//
// It is not for code outside Lambda: lambdas/local, tests and tools that
// need profiles, SSO or IMDS keep config.LoadDefaultConfig or build their
// clients themselves. It does not read service-specific endpoints
// (AWS_ENDPOINT_URL_DYNAMODB and the like), AWS_RETRY_MODE or
// AWS_CA_BUNDLE.
package lambdaenv
