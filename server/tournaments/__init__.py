"""Tournaments: the round-robin schedule and what is built on it."""
