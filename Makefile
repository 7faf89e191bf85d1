# gozk's make targets. `make test` is the test command: it needs Go and
# the module proxy, nothing else (no Java, no ZooKeeper).
#
#   make setup             download the Go modules: all that make build, make run and make test need
#   make setup-interop     install what make interop needs (Debian's Java ZooKeeper 3.8.0, JDK, clients; npm)
#   make run               build bin/gozk, then run it standalone on 127.0.0.1:2181 with its data in ./data
#   make build             bin/gozk, and every other package compiled (says what it compiles)
#   make test              go vet and go test, all packages
#   make testrace          go test with the race detector and the invariants checks (tag invariants), all packages
#   make generate          go generate ./... (proto/zookeeper_gen.go from proto/zookeeper.jute)
#   make check-generated   fail if the generated files differ from what is committed
#   make lint              gofmt, go vet and staticcheck
#   make fuzz              every fuzz target for FUZZTIME (default 60s), one after another
#   make bench             every benchmark, with allocation counts
#   make interop           the compatibility tests under compat/ (tag interop); runs setup-interop first
#   make golden            regenerate proto's golden vectors with ZooKeeper's Java classes
#   make quorum-oracle     regenerate quorum's fixture of Java's quorum verdicts
#   make fle-oracle        regenerate fle's fixture of Java's election wire bytes
#   make snapstream-oracle regenerate zkfiles' fixture of a Java leader's SNAP stream

GO ?= go
FUZZTIME ?= 60s
# GOZK_TAGS are the build tags (comma-separated) that make build and make
# interop build bin/gozk with; CI sets invariants, so that the interop
# suites run against a server checking internal/invariants' assertions.
GOZK_TAGS ?=
GOZK_TAGS_FLAG := $(if $(strip $(GOZK_TAGS)),-tags=$(strip $(GOZK_TAGS)))
# FUZZPKGS are the packages whose Fuzz targets `make fuzz` runs.
FUZZPKGS ?= ./...
# GENERATED lists the committed files that `make generate` writes.
GENERATED ?= proto/zookeeper_gen.go
# staticcheck 2026.2.2 (module version v0.8.2) is built for Go 1.26; it is
# installed into bin/tools when that version is not there yet.
STATICCHECK_VERSION ?= v0.8.2
TOOLS := $(CURDIR)/bin/tools
STATICCHECK := $(TOOLS)/staticcheck

.DEFAULT_GOAL := build

.PHONY: setup setup-interop interop-deps run build test testrace generate check-generated lint staticcheck fuzz bench interop chaos

# Debian packages the interop tests drive: Apache ZooKeeper 3.8.0 (the
# oracle), its Java client jars and zkCli, Curator, the C client (cli_mt and
# load_gen, Debian has no cli_st; the headers and library for our C test
# program, and gcc to build it), kazoo, the servlet API that Java's
# AdminServer needs, and a JDK to compile the Java test programs.
INTEROP_PACKAGES ?= zookeeper zookeeper-bin libzookeeper-java libzookeeper-mt-dev \
	libcurator-framework-java libcurator-recipes-java libservlet-api-java python3-kazoo default-jdk-headless gcc libc6-dev
# MIT Kerberos for the GSSAPI tests (internal/kdctest runs a private KDC:
# krb5kdc, kdb5_util and kadmin.local) and kazoo's GSSAPI (pure-sasl over
# python3-kerberos).
INTEROP_PACKAGES += krb5-kdc krb5-admin-server krb5-user python3-kerberos python3-pure-sasl
SUDO := $(shell [ "$$(id -u)" -eq 0 ] || echo sudo)

# GO_PROGRESS turns the package list of `go build -v` into one line per
# module as its compilation starts (the standard library as "std"; one
# line per package of gozk's own, and a count every 25 packages), and
# passes everything else (compile errors) through unchanged. A shell loop,
# as mawk would hold its input back in blocks.
GO_PROGRESS = while IFS= read -r line; do \
	case "$$line" in \
	""|*[!a-zA-Z0-9._~/+-]*) echo "$$line";; \
	github.com/gozk/gozk|github.com/gozk/gozk/*) echo "  compiling $$line";; \
	*) case "$${line%%/*}" in \
	   github.com|golang.org|gitlab.com|bitbucket.org|gopkg.in) m=$$(echo "$$line" | cut -d/ -f1-3);; \
	   *.*) m=$$(echo "$$line" | cut -d/ -f1-2);; *) m=std;; esac; \
	   n=$$((n + 1)); \
	   case "$$seen" in *" $$m "*) [ $$((n % 25)) -ne 0 ] || echo "  compiling $$m ($$n packages so far)";; \
	   *) seen="$$seen $$m "; echo "  compiling $$m";; esac;; \
	esac; done

# go-filtered runs `$(GO) $(1)` with its output (stdout and stderr)
# through the filter $(2), keeping go's exit status (make's /bin/sh has
# no pipefail).
define go-filtered
	@rc=$$( { { $(GO) $(1) 2>&1 3>&-; echo $$? >&3; } | $(2) >&2 3>&-; } 3>&1 ); exit $$rc
endef

# MOD_PROGRESS shows each module zip that `go mod download -x` fetches
# (as module@version) and passes go's own messages through.
MOD_PROGRESS = while IFS= read -r line; do \
	case "$$line" in \
	"\# get "*".zip: 200 OK"*) u=$${line\#"\# get "}; u=$${u%%.zip:*}; u=$${u\#*://}; u=$${u\#*/}; \
	   echo "  fetched $${u%%/@v/*}@$${u\#\#*/@v/}" | sed 's/%21\(.\)/\U\1/g';; \
	"\#"*|mkdir\ *|cd\ *|rm\ *|mv\ *|touch\ *|cp\ *|unzip\ *|git\ *|[0-9]*s\ \#*) ;; \
	*) echo "$$line";; \
	esac; done

# setup needs Go and the module proxy, nothing else: make build, make run
# and make test need no more.
setup:
	@echo "setup: downloading the Go modules of go.mod into $$($(GO) env GOMODCACHE) (go mod download)"
	$(call go-filtered,mod download -x,$(MOD_PROGRESS))
	@echo "setup: done; make build compiles gozk (the first time takes a few minutes), make test runs the tests"

# setup-interop installs what the compatibility tests drive, when any of
# it is missing: Debian's packages (INTEROP_PACKAGES), Node.js and npm
# (Debian's nodejs and npm packages, when npm is missing) and the pinned
# node-zookeeper-client under compat/node.
setup-interop:
	@missing="$$(for p in $(INTEROP_PACKAGES); do dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q '^install ok installed' || echo $$p; done)"; \
	command -v npm >/dev/null 2>&1 || missing="$$missing nodejs npm"; \
	if [ -n "$$(echo $$missing)" ]; then \
		echo "setup-interop: installing" $$missing; \
		$(SUDO) apt-get update -q && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -q $$missing; \
	fi
	@# node-zookeeper-client, pinned by compat/node/package-lock.json.
	@if [ ! -d compat/node/node_modules ]; then \
		echo "setup-interop: npm ci in compat/node"; \
		(cd compat/node && npm ci --no-audit --no-fund) || { echo "setup-interop: npm ci in compat/node failed: is the npm registry reachable?"; exit 1; }; \
	fi

# interop-deps is the former name of setup-interop.
interop-deps: setup-interop

# run builds bin/gozk first (with progress: `go run` would compile for
# minutes without a word on a fresh machine), then runs it.
run: build
	bin/gozk server

build:
	@echo "build: bin/gozk (a first build compiles every dependency and takes a few minutes; later builds take seconds)"
	$(call go-filtered,build -v $(GOZK_TAGS_FLAG) -o bin/gozk ./cmd/gozk,$(GO_PROGRESS))
	@echo "build: the other packages (go build ./...)"
	$(call go-filtered,build -v ./...,$(GO_PROGRESS))
	@echo "build: done: bin/gozk"

test:
	$(GO) vet ./...
	$(GO) test ./...

# testrace runs every package's tests again with the race detector and the
# assertions of internal/invariants compiled in; each package starts
# goroutines of its own or through its tests. The race detector needs cgo,
# hence a C compiler (race-deps installs Debian's gcc when there is none).
testrace: race-deps
	$(GO) test -race -tags invariants ./...

.PHONY: race-deps
race-deps:
	@if ! command -v gcc >/dev/null 2>&1; then \
		echo "installing gcc for the race detector (cgo)"; \
		$(SUDO) apt-get update -q && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -q gcc libc6-dev; \
	fi

generate:
	$(GO) generate ./...

check-generated: generate
	git diff --exit-code -- $(GENERATED)

lint: staticcheck
	@unformatted="$$(gofmt -l $$(find . -name '*.go' -not -path './.git/*'))"; \
	if [ -n "$$unformatted" ]; then echo "gofmt -l reports:"; echo "$$unformatted"; exit 1; fi
	$(GO) vet ./...
	$(GO) vet -tags invariants ./...
	$(STATICCHECK) ./...
	$(STATICCHECK) -tags invariants ./...

staticcheck:
	@if ! "$(STATICCHECK)" -version 2>/dev/null | grep -q '($(STATICCHECK_VERSION:v%=%))'; then \
		echo "installing staticcheck $(STATICCHECK_VERSION) into bin/tools"; \
		GOBIN="$(TOOLS)" $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION); \
	fi

# One target at a time: fuzzing already uses every core.
fuzz:
	@set -e; for pkg in $$($(GO) list $(FUZZPKGS)); do \
		for target in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz' || true); do \
			echo "== $$pkg $$target ($(FUZZTIME))"; \
			$(GO) test -run='^$$' -fuzz="^$$target\$$" -fuzztime=$(FUZZTIME) $$pkg; \
		done; \
	done

bench:
	$(GO) test -run='^$$' -bench=. -benchmem ./...

# The compat tests drive real clients against a real gozk; they live behind
# the interop build tag so that `make test` stays self-contained.
interop: setup-interop
	@if [ -d compat ]; then \
		echo "$(GO) build $(GOZK_TAGS_FLAG) -o bin/gozk ./cmd/gozk"; \
		$(GO) build $(GOZK_TAGS_FLAG) -o bin/gozk ./cmd/gozk; \
		echo "GOZK_BIN=bin/gozk $(GO) test -tags interop -timeout 30m ./compat/..."; \
		GOZK_BIN=$(CURDIR)/bin/gozk $(GO) test -tags interop -timeout 30m ./compat/...; \
	else \
		echo "no compat/ directory yet"; \
	fi

# chaos runs the fault matrix (compat/chaos): ensembles of gozk and of
# gozk mixed with Apache ZooKeeper 3.8.0, and an all-Java control, each
# under kills, pauses, partitions, disk faults and gozk's crash points,
# with workloads whose histories are checked (linearizability with
# porcupine, lost and duplicated writes, session guarantees). One pass by
# default (about ten minutes); CHAOS_TIME=2h soaks, repeating passes with
# new seeds. The results table is printed and written to
# $(CHAOS_REPORT).
CHAOS_TIME ?=
CHAOS_REPORT ?= .bench/chaos-results.md
chaos: setup-interop
	$(GO) build $(GOZK_TAGS_FLAG) -o bin/gozk ./cmd/gozk
	@mkdir -p $(dir $(CHAOS_REPORT))
	GOZK_BIN=$(CURDIR)/bin/gozk CHAOS_TIME=$(CHAOS_TIME) CHAOS_REPORT=$(abspath $(CHAOS_REPORT)) \
		$(GO) test -tags chaos -count=1 -timeout $(if $(CHAOS_TIME),0,45m) -run TestChaos -v ./compat/chaos

# golden regenerates the golden vectors in proto/testdata/golden from
# Apache ZooKeeper's own Java classes, then runs the Go tests that check
# them. It needs javac and the ZooKeeper jars (Debian/Ubuntu:
# apt-get install -y zookeeper libzookeeper-java default-jdk-headless).
# The vectors are committed, so `go test` itself never needs Java.
GOLDEN_JARS ?= /usr/share/java
GOLDEN_ZK_VERSION ?= 3.8.0
GOLDEN_SRC := proto/testdata/javagen
GOLDEN_CLASSES := $(GOLDEN_SRC)/classes
GOLDEN_CP := $(GOLDEN_JARS)/zookeeper-jute-$(GOLDEN_ZK_VERSION).jar:$(GOLDEN_JARS)/zookeeper-$(GOLDEN_ZK_VERSION).jar
GOLDEN_RUN_CP := $(GOLDEN_CLASSES):$(GOLDEN_CP):$(GOLDEN_JARS)/slf4j-api.jar:$(GOLDEN_JARS)/slf4j-nop.jar

.PHONY: golden
golden:
	rm -rf $(GOLDEN_CLASSES)
	mkdir -p $(GOLDEN_CLASSES)
	javac -Xlint:all,-path -d $(GOLDEN_CLASSES) -cp $(GOLDEN_CP) $(GOLDEN_SRC)/*.java
	java -cp $(GOLDEN_RUN_CP) GoldenVectors proto/testdata/golden proto/zookeeper.jute
	go test ./proto/ -run '^TestGolden'

# java-oracle compiles the Java program in directory $(1) against
# ZooKeeper's jars, runs its class $(2) with arguments $(3) into file $(4),
# and removes the class files again. The oracles below ask Apache
# ZooKeeper's own classes for the answers a package's tests hold it to;
# their output is committed, so `go test` itself never needs Java (the
# jars and javac as for golden).
define java-oracle
	rm -rf $(1)/classes
	mkdir -p $(1)/classes
	javac -Xlint:all,-path -d $(1)/classes -cp $(GOLDEN_CP) $(1)/*.java
	java -cp $(1)/classes:$(GOLDEN_CP):$(GOLDEN_JARS)/slf4j-api.jar:$(GOLDEN_JARS)/slf4j-nop.jar $(2) $(3) > $(4)
	rm -rf $(1)/classes
endef

# quorum-oracle: QuorumMaj's and QuorumHierarchical's verdicts on random
# ensembles (seed and count fixed, so the file only changes with Java).
.PHONY: quorum-oracle
quorum-oracle:
	$(call java-oracle,quorum/testdata/javaoracle,QuorumOracle,20261127 400,quorum/testdata/java-verdicts.txt)
	go test ./quorum/

# fle-oracle: the notification bytes FastLeaderElection sends and what
# QuorumCnxManager makes of the initial messages, for the cases in
# fle/testdata/java-wire-cases.txt.
# snapstream-oracle: the bytes a Java 3.8.0 leader streams to a learner
# after SNAP (sessions, tree, signature), for zkfiles.DecodeSnapStream and
# EncodeSnapStream: a small tree, and many sessions and ACL lists.
.PHONY: snapstream-oracle
snapstream-oracle:
	$(call java-oracle,persistence/zkfiles/testdata/javaoracle,SnapStreamOracle,,persistence/zkfiles/testdata/java-snapstream.bin)
	$(call java-oracle,persistence/zkfiles/testdata/javaoracle,SnapStreamOracle,many,persistence/zkfiles/testdata/java-snapstream-many.bin)
	go test ./persistence/zkfiles/

.PHONY: fle-oracle
fle-oracle:
	$(call java-oracle,fle/testdata/javaoracle,org.apache.zookeeper.server.quorum.FleOracle,fle/testdata/java-wire-cases.txt,fle/testdata/java-wire.txt)
	go test ./fle/

# bench-compare installs Apache ZooKeeper 3.8.0 if it is missing (bench-deps),
# builds gozk, starts Apache ZooKeeper and gozk side by
# side (standalone on loopback ports, tickTime 2000, forceSync on, data
# directories under .bench/ on the same disk), runs the same grid of
# workloads against each with the same client, and prints the gozk/Java
# ratios. Then, one server at a time, the footprint: empty start-up to the
# first answer (median of 5), RSS holding 100,000 and 1,000,000 znodes of
# 100 bytes, and restart to serving with 1,000,000. The results are saved as
# JSON under .bench/ (git-ignored). bench-tail runs get and set at 16x1 for
# 60 s each, for the maximum latency over a long run.
# BENCH_ARGS adds flags of `gozk bench compare`, e.g.
#   make bench-compare BENCH_ARGS='--workloads get,set,create --shapes 16x1,64x4'
BENCH_ZK_LIB ?= /usr/share/java
BENCH_DURATION ?= 5s
BENCH_WARMUP ?= 1s
BENCH_ARGS ?=

# bench-deps installs Debian's Apache ZooKeeper 3.8.0 (and the Java it
# runs on) when its jars or java are missing.
BENCH_PACKAGES ?= zookeeper libzookeeper-java default-jre-headless

.PHONY: bench-deps
bench-deps:
	@if [ ! -f $(BENCH_ZK_LIB)/zookeeper.jar ] || ! command -v java >/dev/null 2>&1; then \
		echo "installing" $(BENCH_PACKAGES); \
		$(SUDO) apt-get update -q && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -q $(BENCH_PACKAGES); \
	fi

.PHONY: bench-compare
bench-compare: bench-deps
	go build -o bin/gozk ./cmd/gozk
	bin/gozk bench compare --zk-lib $(BENCH_ZK_LIB) --dir .bench --out .bench \
		--duration $(BENCH_DURATION) --warmup $(BENCH_WARMUP) \
		--workloads get,set,create,mixed,connect,watch --shapes 1x1,16x1,64x4 \
		--watchers 1000 --value-size 100 --read-ratio 0.9 --footprint --znodes 100000,1000000 $(BENCH_ARGS)

# bench-ensemble starts a 3-server gozk ensemble, then a 3-server Apache
# ZooKeeper 3.8.0 one (never both at once), each member on loopback with its
# data directory under .bench/ (tickTime 2000, initLimit 10, syncLimit 5,
# forceSync on, Java with -Xmx256m), and once each has a leader and two
# followers runs create, set, get and mixed at 16x1 and 64x4 with the
# sessions on the followers, then on the leader; then kills the leader with
# SIGKILL 3 times under a running writer, timing the first acknowledged
# write on an existing and on a new session. Prints gozk/Java ratios and
# saves .bench/ensemble-<time>.json. Not part of make test.
BENCH_ENSEMBLE_DURATION ?= 3s
BENCH_ENSEMBLE_ARGS ?=

.PHONY: bench-ensemble
bench-ensemble: bench-deps
	go build -o bin/gozk ./cmd/gozk
	bin/gozk bench ensemble --zk-lib $(BENCH_ZK_LIB) --dir .bench --out .bench \
		--duration $(BENCH_ENSEMBLE_DURATION) --warmup $(BENCH_WARMUP) \
		--workloads create,set,get,mixed --shapes 16x1,64x4 --placements followers,leader \
		--jvm-args -Xmx256m --tick-time 2000 --init-limit 10 --sync-limit 5 --failovers 3 \
		--value-size 100 --read-ratio 0.9 $(BENCH_ENSEMBLE_ARGS)

.PHONY: bench-tail
bench-tail: bench-deps
	go build -o bin/gozk ./cmd/gozk
	bin/gozk bench compare --zk-lib $(BENCH_ZK_LIB) --dir .bench --out .bench \
		--duration 60s --warmup $(BENCH_WARMUP) --workloads get,set --shapes 16x1 $(BENCH_ARGS)
