// Package cursorsecret keeps the api function's cursor-signing secret in
// AWS Secrets Manager instead of its configuration, and rotates it.
//
// [Cache] reads the secret at run time with the Secrets Manager client,
// both its AWSCURRENT and its AWSPREVIOUS version, and refreshes them every
// Options.Refresh. It is a [cursor.KeySource]: cursors verify against both
// versions, so a cursor issued before a rotation stays valid until the
// next one. A new AWSCURRENT version only signs once it is older than
// Options.SigningDelay, by which time every instance has refreshed and can
// verify it; until then the previous version keeps signing.
//
//	cache := cursorsecret.New(secretsmanager.NewFromConfig(awsCfg), os.Getenv(config.CursorSecretARNEnv))
//	if err := cache.Load(ctx); err != nil { ... }
//	api.Store().Cursors().UseKeySource(cache)
//
// [Rotator] is the Lambda rotation function of the secret: Secrets
// Manager's four steps (createSecret, setSecret, testSecret, finishSecret)
// for a random HMAC key that no other system needs to learn.
//
// It is not for secrets that a database or another service must accept;
// their setSecret step has work to do.
package cursorsecret
