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
