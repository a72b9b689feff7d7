# Set-up is part of every target: Debian packages (once), the .venv (once per pyproject change).
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
APT_PKGS := libcairo2-dev libpango1.0-dev pkg-config
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
ARGS ?=

.PHONY: video video-en videos test lint bench clean setup
setup: $(STAMP)

$(STAMP): pyproject.toml
	@dpkg -s $(APT_PKGS) >/dev/null 2>&1 || { \
	  echo "Installing Debian packages: $(APT_PKGS)"; \
	  $(SUDO) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $(APT_PKGS); }
	@$(PYTHON) -c 'import ensurepip, sys; assert sys.version_info >= (3, 11)' 2>/dev/null || { \
	  echo "Installing python3-venv python3-dev gcc"; \
	  $(SUDO) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq python3-venv python3-dev gcc; }
	[ -x $(PY) ] || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[test]'
	touch $(STAMP)

video: $(STAMP)
	$(PY) render.py --lang zh $(ARGS)

video-en: $(STAMP)
	$(PY) render.py --lang en $(ARGS)

videos: $(STAMP)
	$(PY) render.py --lang all $(ARGS)

test: $(STAMP)
	$(PY) -m ruff check .
	$(PY) -m pytest -q

bench: $(STAMP)
	for b in benchmarks/bench_*.py; do $(PY) $$b; done

clean:
	rm -rf output media .pytest_cache
