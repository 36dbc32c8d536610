"""The club's web pages (issue 38): read-only HTML served by ``unoduo serve`` beside the API.

Pages are built from the same service calls the public API makes for an anonymous spectator
(``pages``), rendered by Jinja2 templates (``render``), cached per tournament version
(``cache``) and served by thin routes (``routes``). Nothing here writes, and nothing here reads
the store or a match state directly: that is how a page can show nothing the API withholds.
"""
