"""Player ratings across events (issue 23): pure rating systems, folded from match results elsewhere."""
