#!/usr/bin/env bash
# project.yml command 'evaluate-memory-width', kept in a file: weasel turns '$' into '$$' in a project.yml script
# when --vars overrides are given. Arguments: memory_widths, memory_width_model.
memory_widths="$1"
memory_width_model="$2"
python benchmarks/memory_cpu_time.py --model default \
$(for w in ${memory_widths}; do echo --model training/width/w$w/${memory_width_model}; done)
