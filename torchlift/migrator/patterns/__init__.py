"""Patterns: one module per idiom of training scripts (the step sequence, device moves, AMP,
accumulation, clipping, schedulers, evaluation passes, ...). Each owns its rule codes, its
recogniser and what it contributes to the plan; registry.py lists them in order."""
