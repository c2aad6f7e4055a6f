# envkit — `make demo` and `make test` are the two commands a newcomer runs.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
PIP    := $(PY) -m pip --disable-pip-version-check -q
ENVKIT := $(VENV)/bin/envkit

.PHONY: demo test bench venv clean lint

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --upgrade pip

venv: $(PY)
	$(PIP) install -e .

demo: venv
	@bash examples/demo.sh $(ENVKIT)

# The smoke tests need a CPU torch; torch==2.13.0 is pinned so that pip takes the CPU wheel on disk
# and never downloads a multi-GB CUDA build.
$(VENV)/.test-deps: pyproject.toml $(PY)
	$(PIP) install -e '.[test]'
	$(PIP) install 'torch==2.13.0'
	touch $@

test: $(VENV)/.test-deps
	$(PY) -m pytest -n 2 -q

bench: venv
	$(PY) bench/run.py --write bench/RESULTS.md

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .hypothesis
