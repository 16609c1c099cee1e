# visguard: `make demo` and `make test` work on a fresh machine: they create .venv and install what is needed.
SHELL := /bin/bash
VENV ?= .venv
PY := $(VENV)/bin/python
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# CDK: the oldest aws-cdk-lib visguard supports (the `[cdk]` extra's lower bound), in a second cached virtualenv:
# `make test` runs the CDK tests that matter on old releases there too (tests/cdk/MIN_VERSION_TESTS).
CDK_MIN_VENV ?= .venv-cdk-min
CDK_MIN := 2.150.0
CDK_MIN_CONSTRUCTS := 10.4.2
CDK_MIN_STAMP := $(CDK_MIN_VENV)/.installed-$(CDK_MIN)
OUT ?= out
# jsii runs on the Node.js LTS pinned in package.json (npm's `node` package, installed by npm ci): first on PATH.
export PATH := $(CURDIR)/node_modules/.bin:$(PATH)
export PYTHONSAFEPATH := 1
# The repo root must never be on sys.path (constructs/ would shadow the jsii package): see DESIGN.md.

# the documentation site: docs/ + pages generated from the rule registry, the rule fixtures and the JSON Schema
# (scripts/docs_pages.py, run by the mkdocs hook); --strict: a broken link, anchor or orphan page fails it
.PHONY: install install-cdk-min docs demo demo-consumers test test-fast check bench format clean dist demo-engine demo-kit synth demo-cdk demo-lint demo-simulate demo-audit

$(STAMP): pyproject.toml $(wildcard package.json package-lock.json) scripts/install-system-deps.sh
	@test -x $(PY) || python3 -m venv $(VENV)
	$(PY) -m pip install -q --disable-pip-version-check --upgrade pip
	$(PY) -m pip install -q --disable-pip-version-check -e '.[all,dev,docs]'
	@if [ -f package-lock.json ]; then npm ci --no-audit --no-fund --loglevel=error; fi
	@node_modules/.bin/node --version >/dev/null  # the pinned Node.js LTS (package.json: node)
	bash scripts/install-system-deps.sh
	@touch $@

install: $(STAMP)

$(CDK_MIN_STAMP): pyproject.toml
	@test -x $(CDK_MIN_VENV)/bin/python || python3 -m venv $(CDK_MIN_VENV)
	$(CDK_MIN_VENV)/bin/python -m pip install -q --disable-pip-version-check --upgrade pip
	$(CDK_MIN_VENV)/bin/python -m pip install -q --disable-pip-version-check -e . pytest hypothesis \
		'aws-cdk-lib==$(CDK_MIN)' 'constructs==$(CDK_MIN_CONSTRUCTS)'
	@touch $@

install-cdk-min: $(CDK_MIN_STAMP)

demo: install demo-engine demo-kit demo-cdk demo-lint demo-consumers demo-lsp demo-simulate demo-audit
	@echo "demo finished: outputs in $(OUT)/"

demo-engine: install
	$(BIN)/visguard engine-demo --out $(OUT)/engine/demo-timeline.json

# Everything CI needs: the whole suite on two workers (pytest-xdist), then the CDK tests on the oldest supported
# aws-cdk-lib. Both always run; it fails at the end if either failed. TEST_WORKERS=0 runs in one process.
TEST_WORKERS ?= 2
PYTEST_XDIST = $(if $(filter-out 0,$(TEST_WORKERS)),-n $(TEST_WORKERS))
test: install install-cdk-min
	@bash scripts/run-tests.sh '$(BIN)/pytest $(PYTEST_XDIST)' \
		'$(CDK_MIN_VENV)/bin/pytest $$(cat tests/cdk/MIN_VERSION_TESTS)  # the CDK tests on aws-cdk-lib $(CDK_MIN)'

# The edit-test loop: everything but the slow tests (Spark, moto server, CDK synth), on every core.
test-fast: install
	$(BIN)/pytest -m "not slow" -n auto

docs: install
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --site-dir site
	@echo "docs: the site is in site/ (python3 -m http.server -d site, then open http://127.0.0.1:8000/)"

check: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

format: install
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

bench: install
	@for b in benchmarks/*.py; do echo "== $$b"; $(PY) -P $$b || exit 1; done

# The wheel and sdist users install (pip install dist/visguard-*.whl, or '...whl[all]' for every extra).
dist: install
	rm -f dist/visguard-*.whl dist/visguard-*.tar.gz
	$(PY) -m build --outdir dist .

# also the audit's cache of this user (the Spark class archive, ~190 MB; only files visguard wrote)
clean:
	rm -rf $(OUT) cdk.out .pytest_cache .hypothesis
	@if [ -x $(BIN)/visguard ]; then $(BIN)/visguard audit cache --clear; fi

# CDK: synthesize the sample app (cdk_app/, cdk.json) with the pinned CLI, offline; VisGuardChecks runs in synth.
synth: install
	CDK_DISABLE_CLI_TELEMETRY=true npx --no-install cdk synth --no-notices -q -o cdk.out

# The planted defect (a plain queue with a 60 s timeout under a 30 s Lambda: VG011 warning) must be reported by
# both the validation plugin and `visguard lint cdk.out`; errors fail the target.
demo-cdk: synth
	@mkdir -p $(OUT)/cdk
	cp cdk.out/validation-report.json $(OUT)/cdk/validation-report.json
	$(BIN)/visguard lint cdk.out --fail-on error
	$(BIN)/visguard lint cdk.out --fail-on error -f sarif -o $(OUT)/cdk/lint.sarif
	grep -q '"ruleName": "VG011"' $(OUT)/cdk/validation-report.json
	grep -q '"ruleId": "VG011"' $(OUT)/cdk/lint.sarif
	@echo "demo-cdk: VG011 on VisguardOrders/LegacyReports caught by VisGuardChecks and visguard lint; outputs in $(OUT)/cdk/"

demo-lint: install
	@mkdir -p $(OUT)/lint
	$(BIN)/visguard lint --config examples/visguard.yaml examples/templates/ --fail-on never
	$(BIN)/visguard lint --config examples/visguard.yaml examples/templates/ --fail-on never \
		--format sarif --output $(OUT)/lint/examples.sarif
	$(BIN)/visguard lint examples/terraform --fail-on never
	$(BIN)/visguard lint examples/serverless --fail-on never
	@echo "demo-lint: SARIF report (upload it to GitHub code scanning) in $(OUT)/lint/examples.sarif"
	# what CI systems read: GitHub annotations, a GitLab Code Quality report, a Markdown job summary
	$(BIN)/visguard lint examples/terraform --fail-on never --format github --output $(OUT)/lint/annotations.txt
	grep -q '^::warning file=examples/terraform/' $(OUT)/lint/annotations.txt
	$(BIN)/visguard lint examples/terraform --fail-on never --format gitlab --output $(OUT)/lint/gl-code-quality.json
	$(BIN)/visguard lint examples/terraform --fail-on never --format markdown --output $(OUT)/lint/summary.md
	@echo "demo-lint: CI formats in $(OUT)/lint/annotations.txt, gl-code-quality.json, summary.md"
	@echo "demo-lint: the mechanical fixes for examples/templates/orders-cfn.yaml (--fix --diff changes nothing):"
	$(BIN)/visguard lint --config examples/visguard.yaml examples/templates/orders-cfn.yaml --fix --diff \
		|| test $$? -eq 2
	@echo "demo-lint: the literal fixes for the Terraform root module examples/terraform (--diff changes nothing):"
	$(BIN)/visguard lint examples/terraform --diff || test $$? -eq 2

# The test kit: a team's consumer tests (bare @mock_sqs, a decorated TestCase, asyncio) on the virtual clock.
# Queues checked against what consumes them: an ECS service, a Beanstalk worker, a pipe, a KEDA Deployment and
# application code (boto3, Celery, sqs-consumer), joined across Terraform, manifests and code in one run.
demo-consumers: install
	@mkdir -p $(OUT)/consumers
	$(BIN)/visguard lint examples/consumers --fail-on never
	$(BIN)/visguard lint examples/consumers --fail-on never -f sarif -o $(OUT)/consumers/lint.sarif
	for r in VG060 VG061 VG062 VG063 VG064 VG065 VG071 VG072 VG074; do grep -q "\"ruleId\": \"$$r\"" $(OUT)/consumers/lint.sarif || exit 1; done
	$(BIN)/visguard lint examples/consumers --diff > $(OUT)/consumers/fixes.diff; test $$? -eq 2  # the fixes, not written
	grep -q '^+      terminationGracePeriodSeconds' $(OUT)/consumers/fixes.diff
	# a local stack: queues a LocalStack hook and Kombu create, a Celery worker started by its Procfile
	$(BIN)/visguard lint examples/local --fail-on never -f sarif -o $(OUT)/consumers/local.sarif
	for r in VG020 VG072; do grep -q "\"ruleId\": \"$$r\"" $(OUT)/consumers/local.sarif || exit 1; done
	# CDK apps in TypeScript, never synthesized (the cdk-source loader's fixtures): the constructs read from the
	# source, a Lambda's event sources and a Fargate worker joined to their queues
	$(BIN)/visguard lint tests/linter/fixtures/cdk-source/queue-dlq tests/linter/fixtures/cdk-source/fargate-env \
		--fail-on never -f sarif -o $(OUT)/consumers/cdk-app.sarif
	for r in VG011 VG020 VG022 VG060; do grep -q "\"ruleId\": \"$$r\"" $(OUT)/consumers/cdk-app.sarif || exit 1; done
	# a worker's visibility read from an environment variable: the number its App Runner service and its compose
	# service give, per queue (VG060 where App Runner sets 30 s for a 120 s queue)
	$(BIN)/visguard lint tests/linter/fixtures/consumers/join/env-number-apprunner --fail-on never -f json \
		-o $(OUT)/consumers/env-settings.json
	grep -q '"rule": "VG060"' $(OUT)/consumers/env-settings.json
	# a Python CDK app, ecs_patterns' QueueProcessingFargateService and a role only an outside workload assumes
	$(BIN)/visguard lint tests/linter/fixtures/cdk-source/python-lambda tests/linter/fixtures/cdk-source/queue-processing \
		tests/linter/fixtures/cdk-source/role-grant --fail-on never -f sarif -o $(OUT)/consumers/cdk-more.sarif
	for r in VG020 VG031; do grep -q "\"ruleId\": \"$$r\"" $(OUT)/consumers/cdk-more.sarif || exit 1; done
	# a monorepo's compose file: a Laravel web service and its queue:work worker, each joined by its own binding
	$(BIN)/visguard lint tests/linter/fixtures/consumers/join/laravel-web-and-worker --fail-on never \
		-f sarif -o $(OUT)/consumers/laravel.sarif
	grep -q '"ruleId": "VG072"' $(OUT)/consumers/laravel.sarif
	# wired as real repositories wire them: a Kotlin Spring Cloud AWS 2.x listener set by application.yml, a
	# Lambda whose code receives from the queue its Terraform environment names, an Ansible-rendered receive script,
	# a queue URL a TypeScript function returns from its CreateQueue call
	$(BIN)/visguard lint tests/linter/fixtures/code/kotlin/spring2 tests/linter/fixtures/consumers/join/lambda-env-terraform \
		tests/linter/fixtures/consumers/join/ansible-template tests/linter/fixtures/created/code/returned/ts \
		--fail-on never -f sarif -o $(OUT)/consumers/wired.sarif
	for r in VG020 VG024 VG060 VG061; do grep -q "\"ruleId\": \"$$r\"" $(OUT)/consumers/wired.sarif || exit 1; done
	@echo "demo-consumers: the fixes --fix would write: $(OUT)/consumers/fixes.diff"

# the language server in an editor session scripted with pygls's client: diagnostics across the workspace (the
# worker in app/billing judged against its queue in infra/main.tf), hover with the engine's numbers, quick fixes
demo-lsp: install
	cd examples/consumers && PYTHONSAFEPATH=1 $(abspath $(BIN))/python -P $(CURDIR)/scripts/lsp_session.py . \
		$(abspath $(OUT))/lsp/session.json app/billing/poller.py infra/main.tf
	grep -q '"code": "VG060"' $(OUT)/lsp/session.json
	@echo "demo-lsp: the session: $(OUT)/lsp/session.json"

demo-kit: install
	$(BIN)/pytest -q -p no:cacheprovider examples/test-kit

demo-simulate: install
	@mkdir -p $(OUT)
	$(BIN)/visguard simulate --example
	$(BIN)/visguard simulate engine/examples/order-pipeline.yaml --plot $(OUT)/order-pipeline.png
	$(BIN)/visguard simulate engine/examples/video-encoder-12h.yaml
	$(BIN)/visguard simulate engine/examples/video-encoder-heartbeat.yaml --plot $(OUT)/video-encoder-heartbeat.png
	$(BIN)/visguard simulate engine/examples/video-encoder-heartbeat.yaml --mode fast
	$(BIN)/visguard simulate engine/examples/lambda-reserved-concurrency.yaml
	$(BIN)/visguard recommend --p50 1800 --p99 21600 --max-recovery 1800 --max-duplicate-rate 0.005 --plot $(OUT)/recommend-video-encoder.png

demo-audit: install
	rm -rf $(OUT)/audit
	$(BIN)/visguard audit generate --queues 20000 --accounts 12 --seed 7 --owners --out $(OUT)/audit/inventory
	$(BIN)/visguard audit run --inventory $(OUT)/audit/inventory --out $(OUT)/audit/result --fail-on never
	# from a deployed queue to the line that declares it: examples/org's inventory (owner records of two stacks
	# and a Terraform state) and the three repositories that declare them; drift, SARIF per repository, patches
	$(BIN)/visguard audit run --inventory examples/org/inventory --out $(OUT)/audit/org --fail-on never \
		--sources examples/org/repos/orders-app examples/org/repos/payments-cdk/cdk.out examples/org/repos/infra-tf \
		--patches $(OUT)/audit/org-patches
	grep -q VG085 $(OUT)/audit/org/findings.csv
	test -s $(OUT)/audit/org/sarif/orders-app.sarif && test -s $(OUT)/audit/org-patches/infra-tf.diff
	@echo "demo-audit: open $(OUT)/audit/result/report.html (summary: $(OUT)/audit/result/summary.json)"
	@echo "demo-audit: where each deployed queue is declared: $(OUT)/audit/org/report.html, $(OUT)/audit/org-patches/"
	$(BIN)/visguard audit cache
