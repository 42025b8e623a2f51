#!/bin/sh
# Accuracy on real failure reports from public issue threads (expected.tsv;
# sources in expected.json).  Many signatures took samples from the same
# threads, so this is a regression set, not an independent measurement.
exec sh tests/accuracy/run.sh "${1:-./nccl-triage}" tests/corpus/expected.tsv
