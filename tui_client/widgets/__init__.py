"""Widgets and their words: cards in colour, literal text, the table's and the scrubber's widgets."""
