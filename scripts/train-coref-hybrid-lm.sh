#!/usr/bin/env bash
# project.yml command 'train-coref-hybrid-lm', kept in a file: weasel turns '$' into '$$' in a project.yml script
# when --vars overrides are given. Arguments: none.
for seed in 0 1; do out=training/hybrid/lm-s$seed; \
[ -d $out/model-last ] || python -m spacy train configs/experiments/coref_hybrid_lm.cfg --output $out --system.seed $seed \
--training.logger.output_file $out/log.jsonl --training.logger.checkpoints_dir $out/checkpoints || exit 1; \
python -m spacy_entmem average-checkpoints $out/average $out/checkpoints/step-300 $out/checkpoints/step-350 \
$out/checkpoints/step-400 $out/checkpoints/step-450 $out/checkpoints/step-500 || exit 1; done
