"""The screens of unoduo play, the minimum-size notice, and PlayHost: what a screen needs of its app."""
