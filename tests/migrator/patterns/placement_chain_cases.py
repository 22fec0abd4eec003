"""Cases of patterns/placement_chain.py: an if/elif/else chain placing the model per branch
becomes Trainer arguments chosen by the same tests; a branch they cannot follow is TL143."""
