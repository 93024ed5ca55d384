#!/usr/bin/env bash
# project.yml command 'evaluate-dntm', kept in a file: weasel turns '$' into '$$' in a project.yml script
# when --vars overrides are given. Arguments: none.
for model in training/dntm/*/model-best; do run=$(basename $(dirname $model)); \
python -m spacy_entmem lm-evaluate $model corpus/litbank/test.spacy corpus/gum_rd/test.spacy \
--output metrics/dntm/$run.json || exit 1; done
