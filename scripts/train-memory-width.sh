#!/usr/bin/env bash
# project.yml command 'train-memory-width', kept in a file: weasel turns '$' into '$$' in a project.yml script
# when --vars overrides are given. Arguments: memory_widths, memory_width_steps.
memory_widths="$1"
memory_width_steps="$2"
for w in ${memory_widths}; do python -m spacy train configs/memory_width.cfg \
--output training/width/w$w --components.entity_memory.model.hidden_width $w \
--components.entity_memory.model.mlp_width $w --training.max_steps ${memory_width_steps} \
--training.eval_frequency 100 --training.logger.output_file training/width/w$w.log.jsonl || exit 1; done
