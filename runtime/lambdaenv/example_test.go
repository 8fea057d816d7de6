package lambdaenv_test

import (
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/oncetable/oncetable/runtime/lambdaenv"
)

func ExampleConfig() {
	// In a function, lambdaenv.Config() reads os.Getenv; here the variables
	// are those Lambda would set, pointed at a local endpoint.
	env := map[string]string{
		"AWS_REGION": "eu-west-1", "AWS_ACCESS_KEY_ID": "ASIAEXAMPLE", "AWS_SECRET_ACCESS_KEY": "secret",
		"AWS_SESSION_TOKEN": "token", "AWS_ENDPOINT_URL": "http://localhost:8000",
	}
	cfg, err := lambdaenv.Config(func(o *lambdaenv.Options) { o.Getenv = func(k string) string { return env[k] } })
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(cfg.Region, aws.ToString(cfg.BaseEndpoint))

	delete(env, "AWS_REGION")
	_, err = lambdaenv.Config(func(o *lambdaenv.Options) { o.Getenv = func(k string) string { return env[k] } })
	fmt.Println(err)
	// Output:
	// eu-west-1 http://localhost:8000
	// lambdaenv: AWS_REGION must be set (Lambda sets it to the function's region)
}
