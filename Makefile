# The kit's build entry points. `make run` and `make test` are the two
# commands a fresh machine needs (README.md).
GO ?= go
FUZZTIME ?= 5s
BENCH ?= .

.PHONY: all run test testdeps lint vet bench fuzz cover

all: lint test

## run: the quickstart agent on the built-in scripted model (no keys, no network)
run:
	$(GO) run ./examples/quickstart

## test: vet, every test with the race detector, then the 1 GiB
## bounded-memory and over-long-line tests (too slow under -race, so they run on their own)
test: vet testdeps
	$(GO) test -race -count=1 ./...
	$(GO) test -count=1 -run '^(TestOneGiBBoundedMemory|TestGrepOverLongLine)$$' ./spooledartifact/

## testdeps: install what the tests run beside Go (Chromium, npm packages)
testdeps:
	./scripts/testdeps.sh

vet:
	$(GO) vet ./...

## lint: gofmt check plus vet
lint: vet
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

## bench: every benchmark, with allocations
bench:
	$(GO) test -run '^$$' -bench '$(BENCH)' -benchmem ./...

## fuzz: a short run of every fuzz target (FUZZTIME each)
fuzz:
	@set -e; for pkg in $$($(GO) list ./...); do \
	  for f in $$($(GO) test -list '^Fuzz' $$pkg 2>/dev/null | grep '^Fuzz' || true); do \
	    echo "== $$pkg $$f"; \
	    $(GO) test -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) $$pkg; \
	  done; \
	done

cover:
	$(GO) test -count=1 -coverprofile=cover.out ./... && $(GO) tool cover -func=cover.out | tail -1
