"""Game Review: every decision of a seat scored in expected match points from that seat's knowledge."""
