package envconfig

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// Deploy-time settings: values that differ per AWS organization and must
// never be committed to cdk.json. Each comes from the CDK context of the
// command line (cdk deploy -c env=prod -c account=...), which applies to the
// selected environment only, or from an environment variable named for the
// environment (ONCETABLE_PROD_ACCOUNT). The context wins.
const (
	AccountKey          = "account"
	SlackWorkspaceIDKey = "slackWorkspaceId"
	SlackChannelIDKey   = "slackChannelId"
	// SlackTicketChannelIDKey is the Slack channel of the ticket topic.
	SlackTicketChannelIDKey = "slackTicketChannelId"
)

// deployTime lists the deploy-time settings: context key, variable suffix
// and the field each sets.
var deployTime = []struct {
	key, suffix string
	set         func(c *Config, v string)
}{
	{AccountKey, "ACCOUNT", func(c *Config, v string) { c.Account = v }},
	{SlackWorkspaceIDKey, "SLACK_WORKSPACE_ID", func(c *Config, v string) { c.Slack.WorkspaceID = v }},
	{SlackChannelIDKey, "SLACK_CHANNEL_ID", func(c *Config, v string) { c.Slack.ChannelID = v }},
	{SlackTicketChannelIDKey, "SLACK_TICKET_CHANNEL_ID", func(c *Config, v string) { c.Slack.TicketChannelID = v }},
}

// DeployTimeKeys are the context keys of the deploy-time settings.
func DeployTimeKeys() []string {
	keys := make([]string, len(deployTime))
	for i, d := range deployTime {
		keys[i] = d.key
	}
	return keys
}

// EnvVar is the environment variable of a deploy-time setting of env:
// EnvVar("prod", AccountKey) is ONCETABLE_PROD_ACCOUNT.
func EnvVar(env, key string) string {
	for _, d := range deployTime {
		if d.key == key {
			return "ONCETABLE_" + strings.ToUpper(strings.NewReplacer("-", "_", ".", "_").Replace(env)) + "_" + d.suffix
		}
	}
	panic("envconfig: no deploy-time setting " + key)
}

// ApplyDeployTime sets the account and Slack IDs of the environments from
// the context (through lookup, for the selected environment only) and from
// the environment (through getenv, for every environment), then validates
// each environment again. A deploy-time context value without a selected
// environment is an error: it would apply to all of them.
func ApplyDeployTime(all map[string]Config, selected string, lookup, getenv func(string) string) error {
	for _, d := range deployTime {
		if selected == "" && lookup(d.key) != "" {
			return fmt.Errorf("%w: -c %s applies to one environment: add -c %s=NAME", ErrInvalidConfig, d.key, SelectKey)
		}
	}
	for name, c := range all {
		for _, d := range deployTime {
			v := getenv(EnvVar(name, d.key))
			if name == selected {
				v = firstNonEmpty(lookup(d.key), v)
			}
			if v != "" {
				d.set(&c, v)
			}
		}
		if err := c.validate(); err != nil {
			return err
		}
		all[name] = c
	}
	return nil
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// Slack ID formats: AWS Chatbot takes a workspace (team) ID such as
// T07ABCDEF12 and a channel ID such as C07ABCDEF12 (G for a private
// channel), upper-case letters and digits.
var (
	slackWorkspaceID = regexp.MustCompile(`^[TE][0-9A-Z]{8,}$`)
	slackChannelID   = regexp.MustCompile(`^[CG][0-9A-Z]{8,}$`)
)

// validateSlack rejects malformed Slack IDs and placeholders such as
// T0000000000 or CXXXXXXXXXX: AWS Chatbot refuses them and the stack's
// creation fails in CloudFormation, long after synthesis.
func (c Config) validateSlack(bad func(field, format string, args ...any) error) error {
	s := c.Slack
	if (s.WorkspaceID == "") != (s.ChannelID == "" && s.TicketChannelID == "") {
		return bad("slack", "set workspaceId together with channelId (pages) or ticketChannelId (tickets), or none of them")
	}
	for _, id := range []struct {
		field, key, v, what string
		re                  *regexp.Regexp
	}{
		{"slack.workspaceId", SlackWorkspaceIDKey, s.WorkspaceID, "a Slack workspace ID (T followed by 8 or more upper-case letters or digits)", slackWorkspaceID},
		{"slack.channelId", SlackChannelIDKey, s.ChannelID, "a Slack channel ID (C or G followed by 8 or more upper-case letters or digits)", slackChannelID},
		{"slack.ticketChannelId", SlackTicketChannelIDKey, s.TicketChannelID, "a Slack channel ID (C or G followed by 8 or more upper-case letters or digits)", slackChannelID},
	} {
		if id.v == "" {
			continue
		}
		hint := fmt.Sprintf("pass the real one at deploy time (-c %s=... or %s), never in cdk.json", id.key, EnvVar(c.Name, id.key))
		if !id.re.MatchString(id.v) {
			return bad(id.field, "%q is not %s; %s", id.v, id.what, hint)
		}
		if placeholder(id.v[1:]) {
			return bad(id.field, "%q is a placeholder, not a real Slack ID; %s", id.v, hint)
		}
	}
	return nil
}

// placeholder reports whether the body of an ID is filler: one repeated
// character (0000000000, XXXXXXXXXX) or a run of ascending digits
// (123456789).
func placeholder(body string) bool {
	if strings.Count(body, body[:1]) == len(body) {
		return true
	}
	return strings.HasPrefix("1234567890123456789012345678901234567890", body) ||
		strings.HasPrefix("0123456789012345678901234567890123456789", body)
}

// placeholderDomains and placeholderTLDs are reserved for documentation
// and testing (RFC 2606, RFC 6761): mail to them reaches nobody.
var (
	placeholderDomains = []string{"example.com", "example.net", "example.org"}
	placeholderTLDs    = []string{"example", "test", "invalid", "localhost"}
)

func placeholderEmail(addr string) bool {
	domain := strings.ToLower(addr[strings.LastIndex(addr, "@")+1:])
	for _, d := range placeholderDomains {
		if domain == d || strings.HasSuffix(domain, "."+d) {
			return true
		}
	}
	return slices.Contains(placeholderTLDs, domain[strings.LastIndex(domain, ".")+1:])
}

// HasPager reports whether pages reach someone who is paged: the page
// topic's Slack channel or an HTTPS endpoint (a pager's events URL). Email
// alone is not a pager, and tickets page nobody.
func (c Config) HasPager() bool {
	return c.Slack.ChannelID != "" || len(c.Notifications.Page.HTTPSEndpoints) > 0
}

// ReadyToDeploy checks what `make deploy` and `make bootstrap` need beyond
// a valid configuration: an account to deploy into and, in production, a
// pager. Synthesis needs neither.
func (c Config) ReadyToDeploy() error {
	if c.Account == "" {
		return &FieldError{Env: c.Name, Field: AccountKey, Reason: fmt.Sprintf(
			"no account to deploy into: pass it at deploy time (make ... ACCOUNT=123456789012, -c %s=..., or %s)",
			AccountKey, EnvVar(c.Name, AccountKey))}
	}
	if c.Production && !c.HasPager() {
		return &FieldError{Env: c.Name, Field: "slack", Reason: fmt.Sprintf(
			"production would page nobody: pass the Slack IDs at deploy time (SLACK_WORKSPACE_ID=... SLACK_CHANNEL_ID=..., "+
				"-c %s=... -c %s=..., or %s and %s), or set notifications.page.httpsEndpoints",
			SlackWorkspaceIDKey, SlackChannelIDKey, EnvVar(c.Name, SlackWorkspaceIDKey), EnvVar(c.Name, SlackChannelIDKey))}
	}
	return nil
}

// BootstrapTargets are the CDK environments (aws://ACCOUNT/REGION) that the
// environment's stacks deploy into: its region, with replicas and a
// customer-managed key each replica's Region (its key stack), and, with a
// DR copy, the DR region. It needs the account (ReadyToDeploy).
func (c Config) BootstrapTargets() []string {
	out := []string{"aws://" + c.Account + "/" + c.Region}
	if r := c.Regions; r != nil && c.CustomerManagedKey {
		for _, reg := range r.Replicas {
			out = append(out, "aws://"+c.Account+"/"+reg)
		}
	}
	if dr := c.Backup.DR; dr != nil {
		out = append(out, "aws://"+c.Account+"/"+dr.Region)
	}
	return out
}
