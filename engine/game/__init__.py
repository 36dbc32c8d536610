"""The game: cards, rulesets, commands, events, the state, the Decider, the fold and the dealer."""
