"""Loop shapes: how a training loop is laid out (epoch x batch today). A shape finds the
loop's parts, builds the skeleton plan and calls the patterns (see registry.py) on them."""
