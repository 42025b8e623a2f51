#!/bin/sh
# A second set of real failure reports from public issue threads, collected
# after the database was written and disjoint from tests/corpus.  Measured
# blind first (see README.md); kept as a regression set since.
exec sh tests/accuracy/run.sh "${1:-./nccl-triage}" tests/heldout/expected.tsv
