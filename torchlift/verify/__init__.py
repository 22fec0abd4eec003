"""Run a script with every `Tensor.backward()` recorded: the ground truth for "same numbers"."""
