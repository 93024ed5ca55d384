"""Entity-aware language models as torch modules (plain tensors in and out)."""
