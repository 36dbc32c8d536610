"""How a match is written down: the event codec, canonical JSON, hash chain, sealed fields, replay file."""
