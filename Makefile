# make run | test | build | generate | lint | bench | chaos | clean
#
# `make test` starts one embedded PostgreSQL for the whole run and gives its URL
# to every Go test package and to the Playwright specs as DATABASE_URL (set
# DATABASE_URL yourself to use another PostgreSQL); it is stopped and removed at
# the end, pass or fail.

SHELL := bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := build

GO ?= go
GO_TEST_FLAGS ?= -count=1 -timeout 20m
CMDS := manent-server manent
GOLANGCI_LINT_VERSION := v2.15.0
GOLANGCI_LINT := bin/golangci-lint-$(GOLANGCI_LINT_VERSION)
# The clusters of `make run` (manent-server's .manent/pg), `make test` and
# `make bench`; as root each lives in /var/tmp/manent-pg-<hash> and the
# server or pgctl prints where. `make clean` removes them.
PGDEV_DIR := $(CURDIR)/.manent/pg
PGTEST_DIR := $(CURDIR)/.manent/pgtest
PGBENCH_DIR := $(CURDIR)/.manent/pgbench

.PHONY: deps build frontend test test-go test-frontend test-playwright chromium sshd prometheus python3 bench chaos vet fmt-check lint clean run generate check-generated FORCE

NPM_CI := npm ci --ignore-scripts --no-audit --no-fund

## deps: the npm packages of the root (the embedded PostgreSQL binaries), of the
## web interface and of the Playwright specs, installed again when a lock file
## changed. Install scripts stay off: the only one makes library symlinks, which
## internal/embeddedpg makes itself.
deps: node_modules/.package-lock.json frontend/node_modules/.package-lock.json e2e/playwright/node_modules/.package-lock.json

node_modules/.package-lock.json: package.json package-lock.json
	$(NPM_CI)
	@touch $@

frontend/node_modules/.package-lock.json: frontend/package.json frontend/package-lock.json
	cd frontend && $(NPM_CI)
	@touch $@

e2e/playwright/node_modules/.package-lock.json: e2e/playwright/package.json e2e/playwright/package-lock.json
	cd e2e/playwright && $(NPM_CI)
	@touch $@

## frontend: build the web interface into frontend/dist, which manent-server embeds.
frontend: deps
	cd frontend && npm run build

## run: build everything and serve the demo of examples/ on http://127.0.0.1:8080,
## on the embedded PostgreSQL under .manent/ (or DATABASE_URL).
run: build
	bin/manent-server dev -c examples/manent.yml

## generate: regenerate the GraphQL code (gqlgen server, genqlient client, the
## web interface's types).
generate: deps
	$(GO) run github.com/99designs/gqlgen generate
	cd client && $(GO) run github.com/Khan/genqlient genqlient.yaml
	cd frontend && npm run --silent generate

# check-generated regenerates and fails if that changed anything: committed
# generated code must match the schema and the operations.
GENERATED := graph/generated graph/model client/generated.go frontend/src/gql
check-generated:
	@before=$$(find $(GENERATED) -type f -print0 | sort -z | xargs -0 sha256sum); \
	$(MAKE) --no-print-directory generate >/dev/null; \
	after=$$(find $(GENERATED) -type f -print0 | sort -z | xargs -0 sha256sum); \
	if [ "$$before" != "$$after" ]; then \
		echo "generated code was stale: 'make generate' changed it; commit the result"; \
		diff <(echo "$$before") <(echo "$$after") || true; exit 1; \
	fi

## build: the web interface, then every Go package, and the binaries into bin/.
build: frontend
	$(GO) build ./...
	$(GO) build -o bin/ $(addprefix ./cmd/,$(CMDS))

bin/pgctl: FORCE
	$(GO) build -o $@ ./internal/embeddedpg/cmd/pgctl

## test: formatting, vet, generated code, the web interface's unit tests, then
## every Go test and the Playwright specs on one shared PostgreSQL.
test: deps fmt-check vet check-generated test-frontend build chromium sshd prometheus python3 bin/pgctl
	@if [ -n "$${DATABASE_URL:-}" ]; then \
		$(MAKE) --no-print-directory test-go test-playwright; \
	else \
		url=$$(bin/pgctl start --dir '$(PGTEST_DIR)' --ephemeral); \
		trap "bin/pgctl stop --dir '$(PGTEST_DIR)' --ephemeral" EXIT; \
		DATABASE_URL="$$url" $(MAKE) --no-print-directory test-go test-playwright; \
	fi

test-go:
	$(GO) test $(GO_TEST_FLAGS) ./...

test-frontend: deps
	cd frontend && npm test

# The specs drive Debian's Chromium against the binaries built by `build`.
test-playwright: deps
	cd e2e/playwright && MANENT_E2E_SKIP_BUILD=1 npm test

## chromium: Debian's Chromium for the Playwright specs, installed when missing
## (apt-get: CI runs as root).
chromium:
	@test -x /usr/bin/chromium || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium; }

## sshd: OpenSSH's server for the end-to-end test of the ssh plugin
## (e2e/ssh_test.go), installed when missing and root (apt-get: CI runs as
## root). The test starts its own sshd on a loopback port; the package's
## service is never used. Without root the test fails and says why, unless
## MANENT_E2E_ALLOW_SKIP_SSHD=1 lets it skip.
sshd:
	@test -x /usr/sbin/sshd || { \
		if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
			apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq -o DPkg::Lock::Timeout=300 \
				--no-install-recommends openssh-server; \
		else \
			echo "sshd: /usr/sbin/sshd is missing and cannot be installed here (not root, or no apt-get):"; \
			echo "sshd: the OpenSSH end-to-end test will fail unless MANENT_E2E_ALLOW_SKIP_SSHD=1"; \
		fi; }

## python3: the interpreter of the Python snippet of docs/callbacks.md, which
## engine/callbacks_test.go runs against a real delivery; installed when
## missing and root (apt-get: CI runs as root).
python3:
	@command -v python3 >/dev/null || { \
		if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
			apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq -o DPkg::Lock::Timeout=300 \
				--no-install-recommends python3; \
		else \
			echo "python3: missing and cannot be installed here (not root, or no apt-get):"; \
			echo "python3: the callbacks' snippet test will fail unless MANENT_ALLOW_SKIP_PYTHON=1"; \
		fi; }

## prometheus: Debian's Prometheus for the end-to-end test of the rollout's
## Prometheus gate (e2e/prometheus_test.go), installed when missing and root
## (apt-get: CI runs as root). The test starts its own /usr/bin/prometheus on
## a loopback port with a temporary configuration and data directory, and
## never uses the package's service (which apt starts only where systemd
## runs): the binary needs no systemd. Without it the test fails, unless
## MANENT_E2E_ALLOW_SKIP_PROMETHEUS=1 lets it skip.
prometheus:
	@test -x /usr/bin/prometheus || { \
		if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
			apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq -o DPkg::Lock::Timeout=300 \
				--no-install-recommends prometheus; \
		else \
			echo "prometheus: /usr/bin/prometheus is missing and cannot be installed here (not root, or no apt-get):"; \
			echo "prometheus: the end-to-end test of the Prometheus gate will fail unless MANENT_E2E_ALLOW_SKIP_PROMETHEUS=1"; \
		fi; }

## bench: the benchmarks of bench/ on their own embedded PostgreSQL (or
## DATABASE_URL); they print ratios measured side by side (docs/benchmarks.md).
bench: deps bin/pgctl
	@if [ -n "$${DATABASE_URL:-}" ]; then \
		$(GO) test -run '^$$' -bench . -benchtime 8s -timeout 20m ./bench/; \
	else \
		url=$$(bin/pgctl start --dir '$(PGBENCH_DIR)' --ephemeral); \
		trap "bin/pgctl stop --dir '$(PGBENCH_DIR)' --ephemeral" EXIT; \
		DATABASE_URL="$$url" $(GO) test -run '^$$' -bench . -benchtime 8s -timeout 20m ./bench/; \
	fi

## chaos: the long chaos run of e2e/chaos_test.go (200 deploys, 100 SIGKILLs of
## a worker among two, 4 PostgreSQL crashes) on a PostgreSQL of its own and a
## loopback OpenSSH fleet (root and sshd, as the ssh tests of `make test`);
## `make test` runs the short one. It prints its table (docs/scaling.md#chaos-run);
## MANENT_CHAOS_SEED=<n> replays the seed a run printed.
chaos: node_modules/.package-lock.json sshd
	MANENT_CHAOS=long $(GO) test -count=1 -run '^TestChaos$$' -timeout 60m -v ./e2e/

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

## clean: the build outputs, and the checkout's embedded PostgreSQL clusters
## (make run's, and any a killed make test or make bench left) wherever they
## live (as root: /var/tmp/manent-pg-<hash>), with the copy of the PostgreSQL
## binaries made for them. make run's database goes with it.
clean: bin/pgctl
	bin/pgctl remove --dir '$(PGDEV_DIR)'
	bin/pgctl remove --dir '$(PGTEST_DIR)'
	bin/pgctl remove --dir '$(PGBENCH_DIR)'
	bin/pgctl remove-binaries
	rm -rf bin frontend/dist/assets frontend/dist/index.html

FORCE:
