"""Reliability: fuzzing the API, races on one match against a real server, bad input at every door."""
