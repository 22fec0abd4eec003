"""Transform passes: each takes libcst nodes and returns rewritten nodes, one concern each."""
