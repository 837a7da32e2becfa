# t2sbench — see README.md. `make demo` is the main job, `make test` is what CI runs.
GO      ?= go
BIN     := bin/t2sbench
PKGS    := ./...
FUZZTIME ?= 20s

.PHONY: build test k8s-validate image demo bench bench-store fuzz lint cover reproduce-sim clean

# The commit goes in by -ldflags too: `t2sbench version` reports it where
# the Go toolchain stamps no VCS information (GOFLAGS=-buildvcs=false, a
# git worktree, a copied tree).
COMMIT  := $(shell git rev-parse HEAD 2>/dev/null)$(shell git status --porcelain --untracked-files=no 2>/dev/null | grep -q . && echo +dirty)

build:
	$(GO) build -ldflags "-X main.buildCommit=$(COMMIT)" -o $(BIN) ./cmd/t2sbench

# go test starts the packages in the order it is given them, at most -p
# (the number of CPUs) at a time, and links each test binary in one of
# those slots too. The four whose tests run longest go first, so that the
# short ones link and run beside them rather than one after another
# behind the last long one (alphabetical order put viewer's 13-17 s last,
# alone). Given other PKGS, test runs just those.
SLOWTESTS := ./viewer ./datasets ./cmd/t2sbench ./bench
TESTPKGS  := $(if $(filter ./...,$(PKGS)),$(SLOWTESTS) $(PKGS),$(PKGS))

test:
	$(GO) vet $(PKGS)
	$(GO) test -count=1 -timeout 20m $(TESTPKGS)
	$(MAKE) k8s-validate

# The Kubernetes manifests (deploy/k8s), decoded strictly into the
# Kubernetes API types by a module of their own, so that the main module
# does not depend on them; its modules download here (CI's `go mod
# download` fetches the main module's only).
k8s-validate:
	cd deploy/k8s/validate && $(GO) mod download && $(GO) vet ./... && $(GO) test -count=1 ./...

# The container image the manifests run (Dockerfile).
image:
	docker build -t t2sbench:latest .

demo: build
	$(BIN) run experiments/quickstart.yaml --fresh --out runs/quickstart
	$(BIN) report runs/quickstart --out runs/quickstart/report
	@echo
	@echo "Report written to runs/quickstart/report/report.md"

bench:
	$(GO) test -run '^$$' -bench . -benchtime 3x -timeout 60m $(PKGS)

# Peak RSS and time of status and report over synthetic run stores of
# 20k and 200k items, with the ratios (scripts/bench-store.sh; SMALL,
# LARGE and WORK override the sizes and the work directory).
bench-store:
	scripts/bench-store.sh

fuzz:
	@for pkgfn in $$(grep -rl --include='*_test.go' 'func Fuzz' . | xargs -n1 dirname | sort -u); do \
	  for fn in $$(grep -h -o 'func Fuzz[A-Za-z0-9_]*' $$pkgfn/*_test.go | sed 's/func //'); do \
	    echo "== $$pkgfn $$fn"; \
	    $(GO) test -run '^$$' -fuzz "^$$fn$$" -fuzztime $(FUZZTIME) $$pkgfn || exit 1; \
	  done; \
	done

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt:"; echo "$$out"; exit 1; fi
	$(GO) vet $(PKGS)
	@if command -v staticcheck >/dev/null 2>&1; then staticcheck $(PKGS); else echo "staticcheck not installed; skipped"; fi

cover:
	$(GO) test -count=1 -coverprofile=cover.out $(PKGS)
	$(GO) tool cover -func=cover.out | tail -1
	$(GO) tool cover -html=cover.out -o cover.html

# Every spec in experiments/ (at the papers' settings) offline on mini,
# through the quick profile (bench.Profiles: n_rollout at most 4, the
# first 12 questions), which every report title states.
reproduce-sim: build
	@for f in experiments/*.yaml; do \
	  name=$$(basename $$f .yaml); echo "== $$name"; \
	  $(BIN) run $$f --fresh --benchmark mini --profile quick --quiet --out runs/sim/$$name || exit 1; \
	  $(BIN) report runs/sim/$$name --out runs/sim/$$name/report || exit 1; \
	done

clean:
	rm -rf bin runs cover.out cover.html
