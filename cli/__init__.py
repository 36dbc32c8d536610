"""The ``unoduo`` command line."""
