#!/usr/bin/env bash
# project.yml command 'train-coref-hybrid-finetune', kept in a file: weasel turns '$' into '$$' in a project.yml script
# when --vars overrides are given. Arguments: none.
for seed in 0 1; do out=training/hybrid/ft-s$seed; \
[ -d $out/model-last ] || python -m spacy train configs/experiments/coref_hybrid_finetune.cfg --output $out --system.seed $seed \
--paths.hybrid training/hybrid/trf-s1/average \
--training.logger.output_file $out/log.jsonl --training.logger.checkpoints_dir $out/checkpoints || exit 1; \
python -m spacy_entmem average-checkpoints $out/average $out/checkpoints/step-200 $out/checkpoints/step-250 \
$out/checkpoints/step-300 $out/checkpoints/step-350 || exit 1; done
