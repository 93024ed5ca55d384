#!/usr/bin/env bash
# project.yml command 'train-dntm', kept in a file: weasel turns '$' into '$$' in a project.yml script
# when --vars overrides are given. Arguments: lm_seeds.
lm_seeds="$1"
for seed in ${lm_seeds}; do for variant in none input output both; do \
out=training/dntm/$variant-s$seed; [ -d $out/model-best ] && continue; \
python -m spacy train configs/dntm.cfg --output $out --system.seed $seed \
--components.entity_lm_scorer.model.dynamic $variant --training.logger.output_file $out/log.jsonl || exit 1; \
done; done
