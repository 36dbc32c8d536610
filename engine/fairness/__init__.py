"""Checks with no trust in the server: replays verified and re-run, proofs, audit reports, house bots."""
