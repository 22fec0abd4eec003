# Quick start: `make demo` and `make test` (ruff, then pytest). Both create .venv on first use.
# CI passes TORCH_SPEC=torch==2.13.0 to use the local CPU wheel.
PYTHON ?= python3
VENV ?= .venv
TORCH_SPEC ?= torch
PY := $(VENV)/bin/python
PIP := $(PY) -m pip install -q

.PHONY: demo test mutate bench clean

$(VENV)/.base: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PIP) --upgrade pip
	$(PIP) "$(TORCH_SPEC)"
	$(PIP) -e .
	touch $@

$(VENV)/.test: $(VENV)/.base
	$(PIP) -e ".[test]"
	touch $@

demo: $(VENV)/.base
	$(PY) examples/demo.py

test: $(VENV)/.test
	$(PY) -m ruff check torchlift tests benchmarks
	$(PY) -m pytest -q

# Planted bugs the tests must catch (tests/mutations/): minutes, so not part of `make test`.
mutate: $(VENV)/.test
	$(PY) tests/mutations/run.py

bench: $(VENV)/.test
	for b in benchmarks/*.py; do $(PY) $$b; done

clean:
	rm -rf $(VENV) lightning_logs demo_out
