# oncetable's front door. Every target installs what it needs on a fresh
# machine (npm ci for the pinned Node.js 22 and CDK CLI, go mod download) and
# does nothing extra when nothing changed.

SHELL := bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := test

# jsii (the CDK's Go bindings) and the CDK CLI run on the project-local
# Node.js from package.json, never on an older machine-wide one.
export PATH := $(CURDIR)/node_modules/.bin:$(PATH)
# The CDK CLI must never wait on the network: no telemetry, no version check,
# no notices (also off in cdk.json).
export CDK_DISABLE_CLI_TELEMETRY := true
export CDK_DISABLE_VERSION_CHECK := true

ENV ?=
CDK_OUT := cdk.out
# Go files of the module, as the go tool sees them: not node_modules (CDK
# init templates), hidden directories or testdata (fixtures, possibly broken).
GO_FILES = $(shell find . -path ./node_modules -prune -o -path './.*' -prune -o -name testdata -prune -o -name '*.go' -print)
# Go modules of their own inside the repository, joined with the root module
# by go.work for development: the embedded engine, the exactly-once library,
# the two packages the library's API shares with the root module (txn,
# retry) and ddbtest. `go test ./...` at the top does not enter them, so
# lint and test name them (GO_PATTERNS), in one go command each.
WORK_MODULES := runtime/ddblocal runtime/ddbtest runtime/idempotency runtime/retry runtime/txn
GO_PATTERNS := ./... $(foreach m,$(WORK_MODULES),./$(m)/...)
# Go modules outside the workspace, built as another team builds them
# (GOWORK=off), each requiring oncetable's modules through replace directives:
# test/consumer is another team's CDK app; test/consumer-idempotency and
# test/consumer-ddblocal require only the library or only the engine, and
# their tests fail when `go mod graph` there names the CDK, jsii or the root
# module. test/enginebench holds the engine's benchmarks and their peers
# (minidyn), which the product does not need.
NESTED_MODULES := test/consumer test/consumer-idempotency test/consumer-ddblocal test/enginebench
STATICCHECK_VERSION := v0.8.2
TOOLS := $(CURDIR)/.tools
STATICCHECK := $(TOOLS)/staticcheck-$(STATICCHECK_VERSION)
NODE_STAMP := node_modules/.installed
GO_STAMP := $(TOOLS)/.go-mod-downloaded
CDK := npx --no-install cdk --no-notices
# Demos and benchmarks print their results and write them under tmp/reports/
# (git-ignored) by default, so `git status` stays clean after any target.
# DOCS=1 writes the tracked files instead: a whole measurement report into
# REPORTS (docs/reports/), a measured section or the figures of a reference
# page into PAGES (docs/).
DOCS ?=
REPORTS := $(if $(DOCS),$(CURDIR)/docs/reports,$(CURDIR)/tmp/reports)
PAGES := $(if $(DOCS),$(CURDIR)/docs,$(CURDIR)/tmp/reports)
# A report that is a marked section of a tracked page starts from a copy of it.
define report_page
mkdir -p $(PAGES); $(if $(DOCS),,cp docs/$(1) $(PAGES)/$(1);)
endef

.PHONY: help run engine test synth diff deploy bootstrap lint fmt deps clean require-env bench-engine

## help: list the targets with what they do (targets marked [report] write under tmp/reports/, or with DOCS=1 into docs/reports/
##       for a whole report and docs/ for a reference page)
help:
	@awk '/^## / { sub(/^## /, ""); print; next } /^##  / { print }' $(MAKEFILE_LIST)

## deps: install Node.js 22 + CDK CLI (npm ci) and the Go modules
deps: $(NODE_STAMP) $(GO_STAMP)

$(NODE_STAMP): package.json package-lock.json
	npm ci --no-audit --no-fund --loglevel=error
	@touch $@

$(GO_STAMP): go.mod go.sum go.work $(foreach m,$(WORK_MODULES),$(m)/go.mod $(m)/go.sum)
	@mkdir -p $(TOOLS)
	go mod download
	@touch $@

$(STATICCHECK):
	@mkdir -p $(TOOLS)
	GOBIN=$(TOOLS) go install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)
	@mv $(TOOLS)/staticcheck $@

## release-check: VERSION=v0.1.0: check that every module's go.mod requires this repository's modules at VERSION
##                and CHANGELOG.md has a [VERSION] section per module; print the git tag commands in dependency
##                order (it creates no tag)
.PHONY: release-check
release-check:
	@test -n "$(VERSION)" || { echo "VERSION=vX.Y.Z is required" >&2; exit 2; }
	go run ./scripts/releasecheck -version $(VERSION)

## run: the local runner: the API on 127.0.0.1:8080 over the embedded DynamoDB engine on 127.0.0.1:8000
##      (RUN_FLAGS="-data-dir .data" keeps state; RUN_FLAGS="-dynamodb-endpoint URL" uses another endpoint;
##      REGIONS=us-east-1,eu-west-1 serves several Regions on the engine's port, a global table between them, one API
##      per Region on consecutive ports from 8080 and every cell of users homed in the first; make failover moves cells)
# The runner is built, then exec'd: it is make's only child, so Ctrl-C and
# `kill <make's pid>` (make forwards SIGTERM) reach it, and it stops with
# status 0. `go build` fetches only the modules the runner imports, never
# the CDK's. The first build on empty caches is measured in the README.
RUN_FLAGS ?=
RUN_FIRST_BUILD := about 80 s of CPU and 41 MB of modules
RUNNER := $(TOOLS)/oncetable-local
run:
	@mkdir -p $(TOOLS)
	@echo "building the local runner (first time on empty caches: $(RUN_FIRST_BUILD))"
	@go build -tags otlp -o $(RUNNER) ./lambdas/local
	@exec $(RUNNER) $(if $(REGIONS),-regions $(REGIONS)) $(RUN_FLAGS)

## failover: fail a cell of the running multi-Region local runner (REGIONS=… make run) over to TO: CELL=c012 or
##           FAILOVER_USER=alice, MODE=planned|freeze|takeover (default planned); a dry run unless APPLY=1. The
##           cell's current home is read from its lease. Against AWS (ENV=…) it is not built: there the same steps
##           are home.Failover over each Region's client, and runbook sections drive them.
MODE ?= planned
FAILOVER_RUNNER := $(TOOLS)/oncetable-failover
.PHONY: failover
failover:
	@if [ -n "$(ENV)" ]; then echo "make failover drives the local runner only; against AWS ($(ENV)) see docs/multi-region.md" >&2; exit 2; fi
	@if [ -z "$(REGIONS)" ] || [ -z "$(TO)" ]; then echo "make failover needs REGIONS (as given to make run) and TO" >&2; exit 2; fi
	@mkdir -p $(TOOLS)
	@go build -o $(FAILOVER_RUNNER) ./lambdas/local
	@$(FAILOVER_RUNNER) -regions $(REGIONS) -failover $(MODE) -to $(TO) $(if $(CELL),-cell $(CELL)) \
		$(if $(FAILOVER_USER),-user $(FAILOVER_USER)) $(if $(APPLY),-apply)

## engine: the embedded DynamoDB engine alone on port 8000, a DynamoDB Local without Java; ENGINE_FLAGS takes
##         DynamoDB Local's options (-port, -inMemory, -dbPath, -sharedDb, -delayTransientStatuses, -cors, -help)
##         and -regions us-east-1,eu-west-1 (one endpoint serving several Regions; -regionPorts adds a port per Region)
ENGINE_FLAGS ?= -inMemory
engine:
	@mkdir -p $(TOOLS)
	@go build -tags otlp -o $(RUNNER) ./lambdas/local
	@exec $(RUNNER) engine $(ENGINE_FLAGS)

## freeze: the kill switch: make freeze ENV=local|<env> FLOW=all|<money flow> REASON='why' stops money movement
##         within 5 s, no deploy (ENV=local: the engine of make run; else the stack's table, with your AWS identity)
## unfreeze: make unfreeze ENV=… FLOW=… REASON='why' restores it; make frozen ENV=… shows what is frozen and the audit
.PHONY: freeze unfreeze frozen
freeze unfreeze:
	@test -n "$(ENV)" -a -n "$(FLOW)" -a -n "$(REASON)" || { echo "usage: make $@ ENV=local|<env of cdk.json> FLOW=all|<money flow> REASON='why'" >&2; exit 2; }
	@go run ./lambdas/freeze $@ -env '$(ENV)' -flow '$(FLOW)' -reason '$(REASON)'
frozen:
	@test -n "$(ENV)" || { echo "usage: make frozen ENV=local|<env of cdk.json>" >&2; exit 2; }
	@go run ./lambdas/freeze status -env '$(ENV)'

## republish: publish payment events again, rebuilt from the table under their original ids (consumers deduplicate):
##            make republish ENV=local|<env> FROM=<RFC 3339> TO=<RFC 3339>, or DLQ=1 for the batches in the events
##            function's failure queue; a dry run that prints the events unless APPLY=1 (docs/runbook.md#republishing-events)
.PHONY: republish
republish:
	@test -n "$(ENV)" -a \( -n "$(DLQ)" -o \( -n "$(FROM)" -a -n "$(TO)" \) \) || { echo "usage: make republish ENV=local|<env of cdk.json> FROM=<RFC 3339> TO=<RFC 3339> [APPLY=1], or DLQ=1 instead of FROM/TO" >&2; exit 2; }
	@go run ./lambdas/republish -env '$(ENV)' $(if $(DLQ),-dlq,-from '$(FROM)' -to '$(TO)') $(if $(APPLY),-apply)

## synth: synthesize every environment (or ENV=name) into cdk.out/ and list the templates
# Synthesis needs no AWS account: keep the CLI's credential lookup off the
# EC2 instance metadata endpoint, so it never waits on the network.
synth: export AWS_EC2_METADATA_DISABLED := true
# It synthesizes into a fresh directory and replaces cdk.out/ only when that
# succeeded, so a failed synth (one line: the app's error) keeps the last one.
synth: deps
	@mkdir -p .cdk-out; tmp=$$(mktemp -d .cdk-out/synth.XXXXXX); trap 'rm -rf "$$tmp"' EXIT; \
	if ! $(CDK) synth --quiet --output "$$tmp" $(if $(ENV),-c env=$(ENV)) >"$$tmp.log" 2>&1; then \
		grep -m1 '^oncetable: ' "$$tmp.log" >&2 || cat "$$tmp.log" >&2; rm -f "$$tmp.log"; exit 1; \
	fi; \
	cat "$$tmp.log" >&2; rm -f "$$tmp.log"; rm -rf $(CDK_OUT); mv "$$tmp" $(CDK_OUT)
	@echo "CloudFormation templates:"
	@ls -1 $(CDK_OUT)/*.template.json | sed 's/^/  /'

# Deploy-time settings, never committed to cdk.json: the account to deploy
# into and the Slack IDs, as make variables (passed to the CDK app as -c
# context) or as ONCETABLE_<ENV>_ACCOUNT, ONCETABLE_<ENV>_SLACK_WORKSPACE_ID
# and ONCETABLE_<ENV>_SLACK_CHANNEL_ID in the environment.
ACCOUNT ?=
SLACK_WORKSPACE_ID ?=
SLACK_CHANNEL_ID ?=
# --require-approval of cdk deploy: broadening (the CLI's default) asks before
# IAM or security-group changes that widen access; never runs without a
# prompt, as in CI.
REQUIRE_APPROVAL ?= broadening
DEPLOY_CONTEXT = -c env=$(ENV) $(if $(ACCOUNT),-c account=$(ACCOUNT)) \
	$(if $(SLACK_WORKSPACE_ID),-c slackWorkspaceId=$(SLACK_WORKSPACE_ID)) $(if $(SLACK_CHANNEL_ID),-c slackChannelId=$(SLACK_CHANNEL_ID))
# deploycheck refuses at once (one line naming the setting) an environment
# without an account, or a production one that would page nobody.
DEPLOY_CHECK = mkdir -p $(TOOLS) && go build -o $(TOOLS)/deploycheck ./stacks/deploycheck && $(TOOLS)/deploycheck -env $(ENV) -account '$(ACCOUNT)' \
	-slackWorkspaceId '$(SLACK_WORKSPACE_ID)' -slackChannelId '$(SLACK_CHANNEL_ID)'

## diff ENV=name: compare one environment with what is deployed (needs AWS credentials)
diff: deps require-env
	@$(DEPLOY_CHECK)
	$(CDK) diff $(DEPLOY_CONTEXT) OnceTable-$(ENV)

## bootstrap ENV=name [ACCOUNT=...]: prepare every account and region the environment deploys into (its
##                                   region and its DR region) for CDK deployments, once
bootstrap: require-env
	@targets=$$($(DEPLOY_CHECK) -targets); $(MAKE) --no-print-directory deps; \
	echo "bootstrapping $$(echo $$targets)"; \
	$(CDK) bootstrap $(DEPLOY_CONTEXT) $$targets

## deploy ENV=name [ACCOUNT=... SLACK_WORKSPACE_ID=... SLACK_CHANNEL_ID=...] [REQUIRE_APPROVAL=never]:
##        deploy one environment and its DR stack (needs AWS credentials); REQUIRE_APPROVAL=never runs without a
##        prompt (CI)
deploy: require-env
	@$(DEPLOY_CHECK)
	@$(MAKE) --no-print-directory deps
	$(CDK) deploy $(DEPLOY_CONTEXT) --require-approval $(REQUIRE_APPROVAL) OnceTable-$(ENV)

require-env:
	@if [ -z "$(ENV)" ]; then echo "set ENV, for example: make $(MAKECMDGOALS) ENV=dev" >&2; exit 2; fi

## lint: gofmt, go mod tidy -diff, go vet and staticcheck over every module: the workspace's (go.work) and the nested ones (NESTED_MODULES)
lint: deps $(STATICCHECK)
	@unformatted=$$(gofmt -l $(GO_FILES)); \
	if [ -n "$$unformatted" ]; then echo "gofmt needed on:"; echo "$$unformatted"; exit 1; fi
	@for m in . $(WORK_MODULES) $(NESTED_MODULES); do (cd $$m && GOWORK=off go mod tidy -diff >/dev/null) || \
		{ echo "go.mod or go.sum of $$m is not tidy: run (cd $$m && GOWORK=off go mod tidy)"; exit 1; }; done
	go vet $(GO_PATTERNS)
	$(STATICCHECK) $(GO_PATTERNS)
	@for m in $(NESTED_MODULES); do echo "lint $$m"; (cd $$m && GOWORK=off go vet ./... && GOWORK=off $(STATICCHECK) ./...) || exit 1; done

## cfn-lint: cfn-lint over the snapshot templates (test/cdk/testdata); fails on any error, shows warnings; needs
##           cfn-lint on PATH (pip install cfn-lint; it is not installed by make deps)
.PHONY: cfn-lint
cfn-lint:
	@command -v cfn-lint >/dev/null || { echo "cfn-lint is not on PATH (pip install cfn-lint)" >&2; exit 2; }
	@cfn-lint --version
	@status=0; cfn-lint test/cdk/testdata/*.template.json || status=$$?; \
	if [ $$((status & 2)) -ne 0 ]; then echo "cfn-lint: errors" >&2; exit 1; fi

## fmt: format every Go file, listing the files it changed
fmt:
	@gofmt -l -w $(GO_FILES)

## openapi-check: validate docs/openapi.json (redocly, swagger-parser from npm) and call a local runner
##                through a TypeScript client generated from it (test/openapi)
.PHONY: openapi-check
openapi-check: $(NODE_STAMP)
	@test/openapi/check.sh

## test: lint, the OpenAPI document's check (openapi-check), then every test of every module (the workspace's and NESTED_MODULES) with the race detector
test: deps lint openapi-check
	go test -race -tags ddblocal_poison -count=1 -timeout 30m $(GO_PATTERNS)
	@for m in $(NESTED_MODULES); do (cd $$m && GOWORK=off go test -race -count=1 ./...) || exit 1; done

## bench-engine: the embedded engine against minidyn and dynalite (installs dynalite@4.0.0 into a cache dir), and the
##               engine ÷ SDK-alone ratios measured paired first, in PAIRED_RUNS processes one after the other (default 5)
##               holding only those two peers, PAIRED_ROUNDS alternating rounds each (default 15, GOMAXPROCS
##               PAIRED_PROCS, 0 = unchanged), one JSON each in PAIRED_DIR; the first also measures the write rows on
##               a data directory and in the durable mode (DURABLE_ROUNDS rounds) and PutItem on a global table of two
##               Regions with its replication rate and heap per item; the report judges each engine goal
##               on the median of the run medians against the run-to-run spread; [report] docs/reports/engine-benchmark.md
PAIRED_RUNS ?= 5
PAIRED_ROUNDS ?= 15
PAIRED_PROCS ?= 0
PAIRED_DIR ?= $(CURDIR)/tmp/engine-paired
bench-engine: deps
	@mkdir -p $(REPORTS) $(PAIRED_DIR); rm -f $(PAIRED_DIR)/run-*.json
	cd test/enginebench && export GOWORK=off && for i in $$(seq 1 $(PAIRED_RUNS)); do \
		go test -run '^$$' -bench '^BenchmarkPaired$$' -benchtime 1x -timeout 30m . -args -paired-out $(PAIRED_DIR)/run-$$(printf %02d $$i).json \
			-paired-rounds $(PAIRED_ROUNDS) -paired-procs $(PAIRED_PROCS) -paired-durable=$$([ $$i = 1 ] && echo true || echo false) -durable-rounds $(DURABLE_ROUNDS) \
			-paired-regions=$$([ $$i = 1 ] && echo true || echo false); \
	done
	cd test/enginebench && GOWORK=off go test -run '^$$' -bench '^Benchmark(Engine|Startup)$$' -benchtime 2s -timeout 60m . -args -paired-in $(PAIRED_DIR) -report $(REPORTS)/engine-benchmark.md

## bench-durable: what a data directory and the durable mode (-durable, fsync per commit) cost on PutItem and the
##               transactions (1k and 100k), paired against the SDK client alone and each other (DURABLE_ROUNDS rounds,
##               default 9; make bench-engine measures the same rows in its first paired run);
##               [report] docs/reports/engine-durability.md
.PHONY: bench-durable
DURABLE_ROUNDS ?= 9
bench-durable: $(GO_STAMP)
	@mkdir -p $(REPORTS)
	cd test/enginebench && GOWORK=off go test -run '^$$' -bench '^BenchmarkDurable$$' -benchtime 1x -timeout 30m . -args -durable-rounds $(DURABLE_ROUNDS) -durable-report $(REPORTS)/engine-durability.md

## crash-test: kill the embedded engine (SIGKILL) at random points of a mixed load CRASH_CYCLES times (default 200),
##             alternating both durability modes; checks nothing acknowledged is lost, nothing half-applied, tokens kept
.PHONY: crash-test
CRASH_CYCLES ?= 200
crash-test: $(GO_STAMP)
	go test -count=1 -run '^TestCrash$$' -v -timeout 60m ./runtime/ddblocal -args -crash.cycles $(CRASH_CYCLES)

## bench-engine-regression: the engine rows and runtime/ddblocal benchmarks of commit BASE (default 9f303ac, the engine
##                          before issue 10) and of the working tree, side by side in one run, ROUNDS rounds alternating;
##                          each row judged on its paired per-round ratios and their interquartile range, the SDK-alone rows
##                          as the control; [report] docs/reports/engine-regression.md
.PHONY: bench-engine-regression
BASE ?= 9f303ac
ROUNDS ?= 9
bench-engine-regression: $(GO_STAMP)
	@mkdir -p $(REPORTS)
	test/enginebench/regression.sh $(BASE) $(ROUNDS) $(REPORTS)/engine-regression.md

clean:
	rm -rf $(CDK_OUT) $(TOOLS)

## soak: the invariant workload with every fault on for DURATION (default 10m); [report] docs/reports/soak.md and soak.svg
DURATION ?= 10m
.PHONY: soak
soak: $(GO_STAMP)
	@mkdir -p $(REPORTS)
	go run ./test/workload/cmd/soak -duration $(DURATION) -out $(REPORTS)

## soak-contended: the soak with 64 clients on 8 users, so that most requests meet another on the same balance, for
##                 DURATION; [report] docs/reports/soak-contended.md and soak-contended.svg
.PHONY: soak-contended
soak-contended: $(GO_STAMP)
	@mkdir -p $(REPORTS)
	go run ./test/workload/cmd/soak -duration $(DURATION) -clients 64 -users 8 -seed 2 -phase 5s -out $(REPORTS) -name soak-contended

## migrate-demo: the soak (HTTP, partition throughput and every fault on) with the orders-by-status-v2 migration
##               run through every phase in the middle (a killed backfill, a rollback from verify, two deploys);
##               prints `verified` and `lost: 0`, exits 1 on any violation; [report] its section of migrations.md
.PHONY: migrate-demo
MIGRATE_DEMO_FLAGS ?=
migrate-demo: $(GO_STAMP)
	@$(call report_page,migrations.md)
	go run ./test/workload/cmd/migrate-demo -docs $(PAGES)/migrations.md $(MIGRATE_DEMO_FLAGS)

## dr-drill: the invariant workload with faults, a point-in-time restore to the middle of its traffic, the verifier on the
##           restored table, RTO and RPO; then again with the torn-backup fault, which the verifier must reject, naming the
##           torn transaction (the target fails if it does not); the reports go to tmp/dr-drill/; [report] recovery.md
.PHONY: dr-drill
DR_DRILL_FLAGS ?=
DR_DRILL := $(TOOLS)/dr-drill
dr-drill: $(GO_STAMP)
	@$(call report_page,recovery.md)
	@mkdir -p $(TOOLS) && go build -o $(DR_DRILL) ./test/workload/cmd/dr-drill
	$(DR_DRILL) -docs $(PAGES)/recovery.md $(DR_DRILL_FLAGS)
	@echo "== dr-drill, second run: the torn-backup fault is on; the verifier must reject the restore"
	@status=0; $(DR_DRILL) -torn -docs $(PAGES)/recovery.md $(DR_DRILL_FLAGS) || status=$$?; \
	if [ $$status -ne 1 ]; then echo "dr-drill: the torn restore was NOT rejected by the verifier (exit $$status)" >&2; exit 1; fi; \
	echo "dr-drill: the torn restore was rejected, as it must be"

## bench-migrate: the scale figure: orders offered at 250/s above one partition's (scaled-down) write limit, in v1
##                (one GSI1 partition per status) and v2 (8 shards) side by side; [report] its section of migrations.md
.PHONY: bench-migrate
bench-migrate: $(GO_STAMP)
	@$(call report_page,migrations.md)
	go run ./test/workload/cmd/migrate-demo -scale -docs $(PAGES)/migrations.md

## bench: the cost of each flow (test/costbench: DynamoDB requests, capacity units, latency, hot account)
##        against the Powertools-style baseline; [report] cost.md (the engine's own: make bench-engine)
BENCHTIME ?= 400x
.PHONY: bench
bench: $(GO_STAMP)
	@mkdir -p $(PAGES)
	COSTBENCH_OUT=$(PAGES)/cost.md go test -run '^$$' -bench . -benchtime $(BENCHTIME) -timeout 30m ./test/costbench

## bench-reconcile: the live reconciliation (runtime/reconcile) on the engine with a test/population of RECONCILE_USERS
##                  (default 20000) users: RCU per million items in one invocation and in short ones, and the lag from a
##                  corrupted balance to its confirmed verdict; [report] reconcile.md
RECONCILE_USERS ?= 20000
.PHONY: bench-reconcile
bench-reconcile: $(GO_STAMP)
	@mkdir -p $(REPORTS)
	go run ./test/workload/cmd/bench-reconcile -users $(RECONCILE_USERS) -out $(REPORTS)/reconcile.md

## bench-regions: the multi-Region simulation (test/regionsim), BENCH_REGIONS_RUNS (default 2500) seeded runs of each of
##                2 and 3 Regions in freeze and takeover mode; fails on any violation; [report] its section of multi-region.md
BENCH_REGIONS_RUNS ?= 2500
.PHONY: bench-regions
bench-regions: $(GO_STAMP)
	@$(call report_page,multi-region.md)
	go test -run '^TestSimulationReport$$' -count=1 -timeout 600m ./test/regionsim -args -sim-runs $(BENCH_REGIONS_RUNS) -sim-report $(PAGES)/multi-region.md

## bench-synth: time `cdk synth` of every environment with an empty Go build cache, then with that
##              cache warm, and list the bundled bootstrap sizes (numbers go in docs/compute.md)
.PHONY: bench-synth
bench-synth: export AWS_EC2_METADATA_DISABLED := true
bench-synth: deps
	@cache=$$(mktemp -d); trap 'chmod -R u+w "$$cache"; rm -rf "$$cache"' EXIT; \
	for run in cold warm; do \
		rm -rf $(CDK_OUT); start=$$(date +%s.%N); \
		GOCACHE=$$cache $(CDK) synth --quiet --output $(CDK_OUT) >/dev/null 2>"$$cache/synth.log" || { cat "$$cache/synth.log"; exit 1; }; \
		end=$$(date +%s.%N); \
		awk -v s=$$start -v e=$$end -v r=$$run -v l="$$(cut -d' ' -f1 /proc/loadavg 2>/dev/null)" \
			'BEGIN { printf "synth of every environment, Go build cache %s: %.1f s (load average %s)\n", r, e - s, l }'; \
	done
	@echo "bundled bootstraps:"
	@for f in $(CDK_OUT)/asset.*/bootstrap; do printf '  %s  %s bytes\n' "$$f" "$$(stat -c %s "$$f")"; done

## bench-coldstart: each function's cold start, from exec of its bootstrap to its first answered invocation,
##                  through a stand-in for the Lambda Runtime API (numbers go in docs/compute.md); the -traced
##                  variants export their spans over OTLP to a stand-in collector (docs/observability.md)
COLDSTARTS ?= 30x
.PHONY: bench-coldstart
bench-coldstart: $(GO_STAMP)
	go test -run '^$$' -bench ColdStart -benchtime $(COLDSTARTS) ./constructs/paymentsapi

## model: the NoSQL Workbench data model of the table (from runtime/schema, runtime/keys and the store's entities,
##        sample items written by the real flows: test/workbench; import it in NoSQL Workbench) and the Patterns
##        table of access-patterns.md (generated by TestAccessPatterns from store.Patterns, run against the engine);
##        [report] oncetable.workbench.json, access-patterns.md
.PHONY: model
model: $(GO_STAMP)
	@$(call report_page,access-patterns.md)
	go run ./test/workbench/cmd/model -out $(PAGES)/oncetable.workbench.json
	go test ./runtime/store -run '^TestAccessPatterns$$' -count=1 -args -update -patterns-doc $(PAGES)/access-patterns.md

## bench-scale: every access pattern and money flow ramped on a production-skewed population (test/population) with
##              the engine's partition limits on (DynamoDB's divided by 10), in layouts v1, v2 and v2 with the
##              unprocessed queue sharded, and the platform totals' writes on one item against their shards: where
##              throttling starts, the partition key that throttles and the ThrottlingReasons, throughput at twice
##              that, the API's ceiling; about 8 minutes at load 25 plus 1 to 2 for the platform totals (longer:
##              BENCH_SCALE_FLAGS="-users 5000 -window 3s"); [report] docs/reports/scale.md, scale.svg
BENCH_SCALE_FLAGS ?=
.PHONY: bench-scale
bench-scale: $(GO_STAMP)
	@mkdir -p $(REPORTS)
	go run ./test/scalebench/cmd/bench-scale -out $(REPORTS) $(BENCH_SCALE_FLAGS)
