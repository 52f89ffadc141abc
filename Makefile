# Two commands matter: `make run` (install what is missing, run the default
# benchmark) and `make test` (lint, types, tests). Both work from a clean clone.
PYTHON ?= python3
VENV   ?= .venv
BIN     = $(VENV)/bin
# Two pytest workers (pytest-xdist): the suite is ~40 CPU-minutes, mostly one process at a time, and CI has
# 30 minutes on 2 cores; the tests already assume a busy machine, so a second worker beside each is one more load.
# One test file per worker (loadfile), so a module's fixtures (a lossy-link run, a crossed run) are made once.
# --durations: the slowest 25 in every log, CI's too, for the next time budget.
# Not loadgroup: xdist 3.8 marks groups in Node._nodeid, which pytest 9.2 no longer reads, and every module fixture
# was silently made on both workers.
PYTEST_ARGS ?= --numprocesses 2 --dist loadfile --durations 25
STAMP   = $(VENV)/.installed-$(shell cat pyproject.toml constraints.txt | cksum | cut -d' ' -f1)

.PHONY: run test lint unit deps sysdeps bench clean fleet-demo ssh-builds clients

run: deps
	@echo "sshbench: installed as $(abspath $(BIN))/sshbench (put $(abspath $(BIN)) on PATH to call it sshbench)"
	@echo "sshbench: its manual: MANPATH=$(abspath share/man): man sshbench; completion: . $(abspath share/bash-completion/completions/sshbench) (bash), fpath+=($(abspath share/zsh/site-functions)) (zsh)"
	$(BIN)/sshbench $(ARGS)

test: deps
	@PYTHON=$(PYTHON) sh scripts/install-deps --test
	$(BIN)/sshbench clients install all
	$(BIN)/ruff check src tests bench scripts
	$(BIN)/mypy
	$(BIN)/lint-imports
	$(BIN)/pytest $(PYTEST_ARGS)

lint: deps
	$(BIN)/ruff check src tests bench scripts
	$(BIN)/mypy
	$(BIN)/lint-imports

unit: deps
	$(BIN)/pytest tests/unit

bench: deps
	$(BIN)/python bench/loopback_vs_hand.py $(ARGS)

# OpenSSH portable and HPN-SSH from release tarballs into .venv/opt/builds, for --build (docs/builds.md):
# SOURCES="path-or-URL ..." (default: every tarball in ../shared/sources, or $SSHBENCH_SOURCES)
ssh-builds: deps
	@PYTHON=$(PYTHON) sh scripts/install-deps --builds
	$(BIN)/python scripts/ssh_builds.py $(SOURCES)

# The measured clients whose drivers are compiled (goxcrypto: Go's x/crypto/ssh, docs/clients.md) into .venv/opt/drivers,
# once, from the sources and module versions the package pins; --client runs them offline. Without Go: skipped, said.
clients: deps
	$(BIN)/sshbench clients install all

# A test fleet of namespaced sshd "hosts" on this machine, measured through fleet/sshbench.yml (root).
fleet-demo: deps
	$(BIN)/python scripts/fleet_demo.py $(ARGS)

deps: sysdeps $(STAMP)

sysdeps:
	@PYTHON=$(PYTHON) sh scripts/install-deps

$(STAMP): pyproject.toml constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --disable-pip-version-check -c constraints.txt -e '.[dev]'
	rm -f $(VENV)/.installed-*
	touch $@

clean:
	rm -rf $(VENV) build src/*.egg-info .pytest_cache .mypy_cache .ruff_cache .hypothesis
