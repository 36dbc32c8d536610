"""The two Textual apps: unoduo play, and unoduo replay (the scrubber with its screens)."""
