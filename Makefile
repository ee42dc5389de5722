# Two entry points (see README): `make book` reproduces everything and renders the book,
# `make test` runs the test suite. Both create and fill the virtual environment first.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
PROFILE ?= paper
JOBS   ?= 2
# Offline OpenML seed: used when present beside the checkout (CI, this machine); users with
# internet and no seed load from OpenML itself. Override with DPLASSO_OPENML_SEED=... or =''.
SHARED_SEED := $(abspath ../shared/data/openml)
export DPLASSO_OPENML_SEED ?= $(if $(wildcard $(SHARED_SEED)),$(SHARED_SEED),)
export MPLBACKEND ?= module://matplotlib_inline.backend_inline

.PHONY: install test test-reruns test-all results pages book book-html book-record book-single book-check browser \
        paper-record clean

install: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml constraints.txt
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade "pip==26.3"
	$(BIN)/python -m pip install --quiet -c constraints.txt -e ".[dev]"
	$(BIN)/python -m ipykernel install --sys-prefix --name python3 > /dev/null
	touch $@

test: install
	$(BIN)/python -m pytest -m "not slow and not book and not reruns" -n $(JOBS) -q

# Every notebook rerun at tiny sizes with a reader's changed parameters (tests/reruns): kernels,
# not library tests, so CI runs them on the core its fresh-clone check leaves idle.
test-reruns: install
	$(BIN)/python -m pytest -m reruns -q tests/reruns

test-all: install
	$(BIN)/python -m pytest -m "not book" -n $(JOBS) -q

results: install
	$(BIN)/dplasso reproduce --profile $(PROFILE) --jobs $(JOBS)

# The findings, verdict-list and execution pages (book/generated/pages/): the claim tests run on
# the results (a failing one is marked on the page, so it does not stop the build;
# test_findings.py checks the built page, so it runs in book-check, after the build), and on the
# committed paper record (book/paper-results/<notebook>/, `make paper-record`), whose verdicts
# the findings page shows first. tests/claims.py runs them once per set of results: it reuses a
# record of them (claims*.json) whose digest of the inputs (results, library, tests, committed
# records, pins) is the present one, as after `dplasso record --restore`, where both sets are
# the same files.
CLAIMS = $(BIN)/python tests/claims.py
PAGES = book/generated/pages
pages: install
	$(CLAIMS) book/generated $(PAGES)/claims.json
	$(CLAIMS) book/paper-results $(PAGES)/claims-paper.json --reuse $(PAGES)/claims.json
	$(BIN)/dplasso pages

book-html: install pages
	rm -rf _build/html
	$(BIN)/jupyter-book build . -W -n --keep-going

book: results book-html
	@echo "Book: $(abspath _build/html/index.html)"

# The book from the committed paper record, executing nothing (a few minutes): the record's
# notebooks and results are copied into book/generated/ with their run-time table (runtimes.md),
# then rendered as `make book` does; on a fresh clone too (.ci/fresh-clone checks it in CI).
book-record: install
	$(BIN)/dplasso record --restore
	$(MAKE) book-html
	@echo "Book (paper record): $(abspath _build/html/index.html)"

# The whole book in one file, offline, from the results and pages `make book` left: Sphinx's
# single-page HTML, then headless Chromium's print of it to PDF (needs `make browser`).
book-single: install
	test -f book/generated/pages/findings.md || (echo "no book/generated/pages: run make book first" >&2; exit 1)
	rm -rf _build/singlehtml
	$(BIN)/jupyter-book build . --builder singlehtml -W -n --keep-going
	# Sphinx writes the page as its root document, book/intro.html, with links relative to the
	# build's top: it goes there, in place of the redirect.
	mv _build/singlehtml/book/intro.html _build/singlehtml/index.html && rmdir _build/singlehtml/book
	$(BIN)/python tests/book/book_browser.py _build/singlehtml/index.html _build/pdf/dplasso-book.pdf

# The claim tests' outcomes are those `pages` recorded when still current (else they run
# again); any failure fails the check.
book-check: install
	$(CLAIMS) --strict book/generated $(PAGES)/claims.json
	$(CLAIMS) --strict book/paper-results $(PAGES)/claims-paper.json
	$(BIN)/python -m pytest -m book -q tests/book tests/reproduction/test_findings.py \
	  tests/reproduction/test_paper_record.py

# Headless Chromium for the browser test in book-check (Debian's package; needs root, as CI has).
browser:
	test -x /usr/bin/chromium || (apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y chromium)

# The committed paper record brought up to date (book/paper-results/<notebook>/): the record is
# copied into a scratch folder with its run keys (a run already current there, from an
# interrupted paper-record, is kept), the paper profile runs there, which executes
# only the notebooks whose record is stale (their text, parameters, the library modules their
# code imports or the pins changed; `dplasso record --check` names them) and reads every
# experiment unit whose code did not change from the unit cache; then the folder becomes the
# record. The record's run-time table becomes book/paper-run.md (each notebook's time is that of
# its own last execution; the one it replaces is book/paper-run-previous.md, which the
# performance page compares it with).
RECORD_RUN = results/paper-record
paper-record: install
	$(BIN)/dplasso record --restore --missing-ok --keep-current --out $(RECORD_RUN)
	$(BIN)/dplasso reproduce --profile paper --jobs $(JOBS) --out $(RECORD_RUN)
	$(BIN)/dplasso record --out $(RECORD_RUN)
	cp book/paper-run.md book/paper-run-previous.md
	cp $(RECORD_RUN)/runtimes.md book/paper-run.md
	# the performance page reads the record and its run times just written: it runs on them
	$(BIN)/dplasso reproduce performance --profile paper --force --out $(RECORD_RUN)
	$(BIN)/dplasso record --out $(RECORD_RUN)

clean:
	rm -rf _build book/generated
