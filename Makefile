# Set-up, build, serve and test the lesson site. `make help` lists the targets.
# Every target installs what it needs first, so a fresh clone needs only
# Python 3.11+, Node/npm and (for `make test`) a Chromium.

PYTHON    ?= python3
VENV      ?= .venv
PY        := $(VENV)/bin/python
CHROMIUM  ?= /usr/bin/chromium
HOST      ?= 127.0.0.1
PORT      ?= 8000
# Which program renders the pages: mkdocs (the default, see README) or zensical. Either way the
# same post-build step of our own (python -m sitebuild finish) completes and checks site/.
BUILDER   ?= mkdocs

export NO_MKDOCS_2_WARNING := 1
export CHROMIUM

.DEFAULT_GOAL := help
.PHONY: help setup build serve test bench editor chromium engines office sandbox-tools clean

help:
	@echo "make serve  - instala tudo e serve o site em http://$(HOST):$(PORT)/"
	@echo "make build  - gera a pasta site/, pronta para qualquer servidor estático"
	@echo "              (BUILDER=zensical: com o Zensical no lugar do MkDocs, em build e serve)"
	@echo "make test   - instala tudo (inclusive Chromium, Firefox e WebKitGTK) e roda todos os testes"
	@echo "make bench  - mede a velocidade dos corretores, do widget e da página (Lighthouse); não é teste"
	@echo "make editor - reconstrói o pacote do CodeMirror (só para quem muda o editor)"
	@echo "make clean  - apaga site/, .venv/ e node_modules/"

# Stamps make re-runs cheap: they are redone only when the pins change.
$(VENV)/.created:
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	@touch $@

$(VENV)/.site-deps: $(VENV)/.created pyproject.toml
	$(PY) -m pip install --quiet -e ".[site]"
	$(PY) -m compileall -q graders
	@touch $@

$(VENV)/.zensical-deps: $(VENV)/.created pyproject.toml
	$(PY) -m pip install --quiet -e ".[zensical]"
	$(PY) -m compileall -q graders
	@touch $@

$(VENV)/.test-deps: $(VENV)/.site-deps $(VENV)/.zensical-deps pyproject.toml
	$(PY) -m pip install --quiet -e ".[test]"
	@touch $@

node_modules/.package-lock.json: package.json package-lock.json
	npm ci --no-audit --no-fund
	@touch $@

ifeq ($(BUILDER),mkdocs)
BUILDER_DEPS := $(VENV)/.site-deps
BUILD_SITE   := $(PY) -m mkdocs build --strict
# MkDocs' hook (sitebuild/mkdocs_hook.py) runs the post-build step at each rebuild; live reload.
SERVE_SITE   := $(PY) -m mkdocs serve --strict --dev-addr $(HOST):$(PORT)
else ifeq ($(BUILDER),zensical)
BUILDER_DEPS := $(VENV)/.zensical-deps
# --clean: no page from the cache of an earlier build (the exercise fence reads exercises/ on its own).
BUILD_SITE   := $(VENV)/bin/zensical build --strict --clean
# Not `zensical serve` (it sends .wasm with the wrong type); see sitebuild/serve.py.
SERVE_SITE   := $(PY) -m sitebuild serve --builder zensical --dev-addr $(HOST):$(PORT)
else
$(error BUILDER deve ser mkdocs ou zensical, não "$(BUILDER)")
endif

setup: $(BUILDER_DEPS) node_modules/.package-lock.json

build: setup
	$(BUILD_SITE)
	$(PY) -m sitebuild finish site

serve: setup
	$(SERVE_SITE)

# The CLI's sandbox (bubblewrap) and the ground-truth test's real kills (strace), when root on Debian.
sandbox-tools:
	@if command -v bwrap >/dev/null && command -v strace >/dev/null; then \
		echo "bwrap e strace: ok"; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bubblewrap strace >/dev/null; \
	else \
		echo "Instale os pacotes bubblewrap e strace (os testes do isolamento da CLI precisam deles)." >&2; \
		exit 1; \
	fi

# Debian's chromium when it is missing and we may install it; otherwise say what to do.
chromium:
	@if [ -x "$(CHROMIUM)" ]; then \
		echo "Chromium: $(CHROMIUM)"; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
		[ -x "$(CHROMIUM)" ] || { echo "apt-get não instalou $(CHROMIUM)" >&2; exit 1; }; \
	else \
		echo "Chromium não encontrado em $(CHROMIUM). Instale-o ou rode: make test CHROMIUM=/caminho/do/chromium" >&2; \
		exit 1; \
	fi

# The two other engines of the core-path test (tests/test_browser_engines.py): Firefox ESR and
# WebKitGTK (the engine of Safari: its WebDriver, its MiniBrowser and a virtual display for it).
ENGINE_PACKAGES := firefox-esr webkit2gtk-driver libwebkit2gtk-4.1-0 xvfb xauth
engines:
	@if [ -x /usr/bin/firefox-esr ] && [ -x /usr/bin/WebKitWebDriver ] && [ -x /usr/bin/xvfb-run ] \
		&& ls /usr/lib/*/webkit2gtk-4.1/MiniBrowser >/dev/null 2>&1; then \
		echo "Firefox e WebKitGTK: ok"; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
		apt-get -o DPkg::Lock::Timeout=600 update -qq \
		&& DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq $(ENGINE_PACKAGES) >/dev/null; \
	else \
		echo "Instale os pacotes $(ENGINE_PACKAGES) (o teste do caminho do aluno roda no Firefox e no WebKitGTK)." >&2; \
		exit 1; \
	fi

# LibreOffice Calc opens the planilha as a pt-BR spreadsheet would (tests/test_moodle_class.py).
office:
	@if command -v soffice >/dev/null; then \
		echo "LibreOffice: ok"; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
		apt-get -o DPkg::Lock::Timeout=600 update -qq \
		&& DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq libreoffice-calc >/dev/null; \
	else \
		echo "Instale o pacote libreoffice-calc (o teste da planilha a abre como uma planilha em português)." >&2; \
		exit 1; \
	fi

test: setup $(VENV)/.test-deps chromium engines office sandbox-tools
	$(PY) -m pytest

# The shipped editor bundle, split into pieces (one per CodeMirror package, then our entry) that
# lesson/editor-loader.js evaluates one per task; tests/test_frontend_assets.py checks they match
# this build. Entries keep their names; the shared code goes to chunks named by their content.
EDITOR_DIR    := docs/assets/javascripts/vendor/codemirror
EDITOR_PIECES := $(wildcard docs/assets/javascripts/src/pieces/*.js) docs/assets/javascripts/src/editor.js
editor: node_modules/.package-lock.json
	rm -rf $(EDITOR_DIR)
	node_modules/.bin/esbuild $(EDITOR_PIECES) --bundle --splitting --minify --format=esm \
		--legal-comments=none --banner:js="/* CodeMirror 6 (MIT), bundled by esbuild from package-lock.json: make editor */" \
		--entry-names=[name] --chunk-names=chunk-[hash] --log-level=warning --outdir=$(EDITOR_DIR)

bench: setup $(VENV)/.test-deps chromium sandbox-tools
	$(PY) tests/benchmarks/bench_cli.py 200 estrito
	$(PY) tests/benchmarks/bench_cli.py 200 conteiner
	$(PY) tests/benchmarks/bench_report.py 500
	$(PY) tests/benchmarks/bench_widget.py
	$(PY) tests/benchmarks/bench_lighthouse.py

clean:
	rm -rf site $(VENV) node_modules
