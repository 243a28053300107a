# Two commands for a newcomer: `make run` and `make test`. Both create .venv and install
# the project (with its test tools) the first time, and again whenever pyproject.toml changes.

VENV   := .venv
PYTHON := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

.PHONY: install run test lint typecheck unit bench samples clean

$(STAMP): pyproject.toml
	python3 -m venv $(VENV)
	$(PYTHON) -m pip install --quiet --upgrade pip
	$(PYTHON) -m pip install --quiet -e '.[test]'
	touch $(STAMP)

install: $(STAMP)

# Until the web app exists, `make run` plays a simulated game and renders a sample photo.
run: install
	$(VENV)/bin/dicke-daemonen play --players 4 --seed 7

lint: install
	$(VENV)/bin/ruff check .

typecheck: install
	$(VENV)/bin/mypy --strict engine

unit: install
	$(VENV)/bin/pytest

test: lint typecheck unit

bench: install
	$(PYTHON) benchmarks/engine.py
	$(PYTHON) benchmarks/synth.py

# Make sample_images/ again after changing the generator (tests check they reproduce).
samples: install
	$(PYTHON) -m synth.samples sample_images --overlays out/sample_overlays

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .mypy_cache .ruff_cache
