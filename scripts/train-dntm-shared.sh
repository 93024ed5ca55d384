#!/usr/bin/env bash
# project.yml command 'train-dntm-shared', kept in a file: weasel turns '$' into '$$' in a project.yml script
# when --vars overrides are given. Arguments: lm_seeds.
lm_seeds="$1"
for seed in ${lm_seeds}; do out=training/dntm/both-shared-s$seed; [ -d $out/model-best ] && continue; \
python -m spacy train configs/dntm.cfg --output $out --system.seed $seed \
--components.entity_lm_scorer.model.dynamic both --components.entity_lm_scorer.model.share_embeddings true \
--components.entity_lm_scorer.model.state_dropout 0.5 --training.logger.output_file $out/log.jsonl || exit 1; \
done
