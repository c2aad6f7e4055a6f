# envkit — `make demo` and `make test` are the two commands a newcomer runs.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
PIP    := $(PY) -m pip --disable-pip-version-check -q
ENVKIT := $(VENV)/bin/envkit

.PHONY: demo test bench bench-quick venv clean lint sshd fleet-tools

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --upgrade pip

venv: $(PY)
	$(PIP) install -e .

demo: venv
	@bash examples/demo.sh $(ENVKIT)

# The smoke tests need a CPU torch: scripts/install_cpu_torch.sh takes torch 2.13.0+cpu from the PyTorch
# CPU index or a local wheel cache, never the multi-GB CUDA build plain PyPI serves, and leaves torch out
# (those tests then skip) where neither is reachable.
$(VENV)/.test-deps: pyproject.toml $(PY)
	$(PIP) install -e '.[test]'
	bash scripts/install_cpu_torch.sh $(PY)
	touch $@

# The ssh tests of `envkit diff` start a real sshd on 127.0.0.1.  Installing one is opt-in: it runs
# apt-get as root (`make test INSTALL_SSHD=1`, or `make sshd INSTALL_SSHD=1`); otherwise those tests
# skip and say why.
INSTALL_SSHD ?= 0
sshd:
	@if command -v sshd >/dev/null 2>&1 || [ -x /usr/sbin/sshd ]; then :; \
	elif [ "$(INSTALL_SSHD)" = 1 ] && [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	  echo "note: INSTALL_SSHD=1: installing openssh-server with apt-get (as root) for the ssh diff tests"; \
	  apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq openssh-server >/dev/null; \
	else echo "note: sshd not installed; the ssh diff tests will be skipped (make test INSTALL_SSHD=1 installs it with apt-get, as root)"; fi

# The `envkit fleet` tests load the HTML report in headless Chromium and run Debian's clush and
# pdsh.  Installing them is opt-in, as for sshd (`make fleet-tools INSTALL_FLEET_TOOLS=1`, as root);
# otherwise those tests skip and say why.
INSTALL_FLEET_TOOLS ?= 0
fleet-tools:
	@missing=""; for t in chromium clush pdsh; do command -v $$t >/dev/null 2>&1 || missing="$$missing $$t"; done; \
	if [ -z "$$missing" ]; then :; \
	elif [ "$(INSTALL_FLEET_TOOLS)" = 1 ] && [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	  echo "note: INSTALL_FLEET_TOOLS=1: installing chromium clustershell pdsh with apt-get (as root) for the fleet tests"; \
	  apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium clustershell pdsh >/dev/null; \
	else echo "note:$$missing not installed; those fleet tests will be skipped (make test INSTALL_FLEET_TOOLS=1 installs them with apt-get, as root)"; fi

test: $(VENV)/.test-deps sshd fleet-tools
	$(PY) -m pytest -n 2 -q

# The benchmark (bench/run.py): about 10 minutes on 2 cores, `make bench-quick` about 2; the smoke
# cases need torch (`make test` installs it) and skip without it.
$(VENV)/.bench-deps: pyproject.toml $(PY)
	$(PIP) install -e '.[bench]'
	touch $@

bench: $(VENV)/.bench-deps
	$(PY) bench/run.py --write bench/RESULTS.md

bench-quick: $(VENV)/.bench-deps
	$(PY) bench/run.py --quick

# ruff (lint + format check), mypy (and --strict on the public model and API surface) and
# import-linter's layer contracts (all in pyproject.toml);
# every tool runs, and the target fails if any of them did.
$(VENV)/.lint-deps: pyproject.toml $(PY)
	$(PIP) install -e '.[lint]'
	touch $@

lint: $(VENV)/.lint-deps
	@rc=0; \
	$(VENV)/bin/ruff check envkit tests bench scripts templates || rc=1; \
	$(VENV)/bin/ruff format --check envkit tests bench scripts templates || rc=1; \
	$(VENV)/bin/mypy || rc=1; \
	$(VENV)/bin/mypy --strict --follow-imports=silent envkit/__init__.py envkit/model.py envkit/formats/registry.py \
	  envkit/errors.py envkit/ops/__init__.py envkit/ops/_inputs.py envkit/ops/_duplicates.py envkit/ops/check.py \
	  envkit/ops/convert.py envkit/ops/create.py envkit/ops/diff.py envkit/ops/lock.py envkit/ops/normalize.py \
	  envkit/ops/smoke.py envkit/ops/template.py || rc=1; \
	$(VENV)/bin/lint-imports || rc=1; \
	exit $$rc

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .hypothesis
