"""Migration scripts, applied in revision order."""
