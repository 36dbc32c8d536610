"""Matches played in memory: a local match, self-play between bots and its tally, stacked-deck scenarios."""
