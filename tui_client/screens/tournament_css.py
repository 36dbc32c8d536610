"""The tournament screen's part of ``unoduo play``'s CSS, apart from the screen: the app's CSS is
made when it starts, the screen's module imported when a tournament is first opened."""

from __future__ import annotations

# Part of the app's CSS: the tournament screen, and the replay scrubber's layout (replay_app's
# CSS, scoped to the scrubber opened from here: the table screen's ``#table { height: 2 }`` and
# the lobby's ``#disputes`` must not reach these widgets, so every rule names its screen).
TOURNAMENT_CSS = """
TournamentScreen #tour-title { height: auto; max-height: 2; background: $panel; }
TournamentScreen #standings { height: auto; max-height: 40%; border: round $primary; }
TournamentScreen #schedule { height: 1fr; min-height: 7; border: round $primary; }
TournamentScreen #disputes { height: auto; max-height: 8; border: round #ff5252; display: none; padding: 0; }
TournamentScreen #disputes.shown { display: block; }
TournamentScreen #tour-season { height: auto; display: none; background: $panel; }
TournamentScreen #tour-season.shown { display: block; }
SeasonScreen #season-head { height: auto; max-height: 3; background: $panel; }
SeasonScreen #season-events { height: auto; max-height: 7; border: round $primary; }
SeasonScreen #season-table { height: 1fr; border: round $primary; }
SeasonScreen #season-foot { height: auto; }
TournamentScreen #bracket { height: 1fr; border: round $primary; display: none; }
TournamentScreen #bracket.shown { display: block; }
TournamentScreen DataTable.hidden { display: none; }
TournamentScreen #tour-status { height: auto; display: none; }
TournamentScreen #tour-status.shown { display: block; }
TextScreen #tour-title { height: 1; background: $panel; }
TextScreen #text-body { height: 1fr; border: round $primary; padding: 0 1; }
MatchScrubber #main { height: 1fr; }
MatchScrubber #left { width: 1fr; min-width: 36; }
MatchScrubber #right { width: 1fr; min-width: 36; }
MatchScrubber #table { height: auto; border: round $primary; padding: 0 1; }
MatchScrubber #events { height: 1fr; min-height: 4; border: round $primary; padding: 0 1; }
MatchScrubber #audit { border: round #ff5252; padding: 0 1; height: 1fr; }
MatchScrubber #at { border: round #ff5252; padding: 0 1; height: 1fr; }
MatchScrubber #scores { border: round $primary; padding: 0 1; height: 1fr; }
"""
