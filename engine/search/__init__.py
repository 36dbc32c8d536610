"""Search over hidden information: what a seat knows, fast playouts, and the evaluators built on them.

Pure engine code: no I/O, no clock; every chance comes from a ``random.Random`` or a dealer handed in.
"""
