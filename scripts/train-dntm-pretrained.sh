#!/usr/bin/env bash
# project.yml command 'train-dntm-pretrained', kept in a file: weasel turns '$' into '$$' in a project.yml script
# when --vars overrides are given. Arguments: lm_seeds, dntm_merge_seeds.
lm_seeds="$1"
dntm_merge_seeds="$2"
train() { out=training/dntm/$1-s$2; [ -d $out/model-last ] && return 0; \
python -m spacy train configs/dntm.cfg --output $out --system.seed $2 \
--components.entity_lm_scorer.model.dynamic $3 --components.entity_lm_scorer.model.merge $4 \
--components.entity_lm_scorer.model.freeze_context $6 \
--paths.pretrained_context training/dntm_context/encoder.pt \
--initialize.components.entity_lm_scorer.slots_as_anonymised $5 --training.logger.output_file $out/log.jsonl; }; \
for seed in ${lm_seeds}; do for variant in none input output both; \
do train $variant-pre $seed $variant gru_relu true true || exit 1; done; \
for variant in none both; do train $variant-pre-slots $seed $variant gru_relu false true || exit 1; done; done; \
for seed in ${dntm_merge_seeds}; do for merge in gru max latest; \
do train both-pre-$merge $seed both $merge true true || exit 1; done; done; \
train both-pre-unfrozen 0 both gru_relu true false
