"""From the file to the loops worth planning: candidate loops found on CPython's ast, paired
with their libcst nodes, and the line index findings use. (Decoding and the prefilter are
`inputs.py` and `prefilter.py` one level up.)"""
