#!/usr/bin/env bash
# project.yml command 'corelm-train', kept in a file: weasel turns '$' into '$$' in a project.yml script
# when --vars overrides are given. Arguments: corelm_pieces.
corelm_pieces="$1"
for entities in gold none; do python -m spacy_entmem.research.corelm_experiment train \
training/corelm/gating-$entities.pt --train corpus/corelm/train-[0-9].pt --dev corpus/corelm/dev-[0-9].pt \
--train-entities corpus/corelm/train-entities.pt --dev-entities corpus/corelm/dev-entities.pt \
--entities $entities --max-pieces ${corelm_pieces} --lr 3e-4 & done; wait
