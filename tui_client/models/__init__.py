"""Headless cores (no Textual): what each screen shows, in rows and words, and the client's own checks."""
